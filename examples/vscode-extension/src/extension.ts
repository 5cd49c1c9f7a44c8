// The extension's entry points: `activate` creates the UI the hooks report to and hands out one
// TaskHooks per task; `deactivate` stops every hook still running before the host unloads it.

import * as vscode from 'vscode'
import { terminateAll } from '@cline/hooks'
import { TaskHooks, describeSlowest, type HookName, type TaskHookResult } from './hooks'

/** What `activate` returns: how the rest of the extension (its Task) gets its hooks. */
export interface ExampleApi {
  /** The hooks of a new task, over the workspace folders open now. */
  startTask(taskId: string): TaskHooks
}

const SECTION = 'clineHooksExample'
// Shown in the status bar only past this: most hooks are quick, and the design notes ask for no
// noise unless hooks are slow.
const DEFAULT_SLOW_HOOK_MS = 1000

let output: vscode.OutputChannel | undefined
let status: vscode.StatusBarItem | undefined

export function activate(context: vscode.ExtensionContext): ExampleApi {
  output = vscode.window.createOutputChannel('Cline Hooks')
  status = vscode.window.createStatusBarItem()
  const clineVersion = context.extension.packageJSON.version
  const api: ExampleApi = { startTask: (taskId) => startTask(taskId, clineVersion) }
  context.subscriptions.push(
    output,
    status,
    // Lets a user try their PreToolUse hooks on a sample tool call, without starting a task.
    vscode.commands.registerCommand(`${SECTION}.tryPreToolUse`, async () => {
      const hooks = api.startTask(`try-${Date.now()}`)
      const result = await hooks.run('PreToolUse', {
        preToolUse: { tool: 'write_to_file', parameters: { path: 'src/example.js', content: '' } },
      })
      if (result.cancel) void vscode.window.showErrorMessage(`PreToolUse blocked the tool: ${result.errorMessage}`)
      return result
    }),
  )
  return api
}

function startTask(taskId: string, clineVersion: string | undefined): TaskHooks {
  const config = vscode.workspace.getConfiguration(SECTION)
  return new TaskHooks({
    taskId,
    workspaceRoots: (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
    // '' (the default) leaves the package's default, the user's Documents folder + Cline/Hooks.
    globalHooksDir: config.get<string>('globalHooksDir') || undefined,
    clineVersion,
    onResult: (hookName, result) => report(hookName, result, config.get('slowHookMs', DEFAULT_SLOW_HOOK_MS)),
  })
}

/** Every run goes to the output channel; a slow one goes to the status bar too. */
function report(hookName: HookName, result: TaskHookResult, slowHookMs: number): void {
  const verdict = result.cancel ? `blocked: ${result.errorMessage}` : 'allowed'
  output?.appendLine(`${hookName}: ${verdict}`)
  const slowest = result.slowest
  if (!slowest) return
  output?.appendLine(`  slowest: ${describeSlowest(slowest)}`)
  if (status && slowest.durationMs >= slowHookMs) {
    status.text = `$(watch) ${hookName} hook: ${Math.round(slowest.durationMs)} ms`
    status.tooltip = describeSlowest(slowest)
    status.show()
  }
}

/**
 * Awaited by the editor before it unloads the extension: stops every hook process tree still
 * running (detached ones included), as the extension's HookProcessRegistry.terminateAll() does.
 */
export async function deactivate(): Promise<void> {
  const stopped = await terminateAll()
  output?.appendLine(`deactivate: stopped ${stopped} running hook(s)`)
}
