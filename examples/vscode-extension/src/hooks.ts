// The hook layer of Cline's VS Code extension (src/core/hooks/ in cline/cline) written on
// @cline/hooks: one TaskHooks per task. It does not import `vscode`, so it runs (and is tested)
// in any Node host.
//
// How the extension's pieces map onto this package:
//   HookFactory + HookDiscoveryCache  -> one `new HookFactory({ workspaceRoots })` per task: it
//                                        caches discovery and revalidates it cheaply (250 ms).
//   HookRunner.run / completeParams   -> `HookRunner.run(input)`; the package fills `hookName`,
//                                        `timestamp`, `workspaceRoots` and `model` when left out,
//                                        the caller adds `taskId`, `clineVersion`, `userId`.
//   NoOpRunner                        -> the runner `create()` returns when no hook exists: it
//                                        starts nothing and resolves at once.
//   StdioHookRunner + HookProcess     -> each hook the runner starts: its own process tree, stdin
//                                        fed, the final JSON object of stdout read, 30 s timeout.
//   CombinedHookRunner                -> the same runner: global hooks then workspace hooks, in
//                                        parallel, any `cancel` blocks, contexts joined by a blank
//                                        line, error messages by newlines; it records `slowest`.
//   HookExecutionError (timeout, ...) -> `HookExecution.status` and `failure` (one sentence): a
//                                        hook's failure never rejects the run.
//   executeHook's AbortController     -> `signal`: the task's own, and optionally one per run
//   (setActiveHookExecution)             (a "cancel hook" button); aborting stops the hooks'
//                                        process trees and the run rejects with an AbortError
//                                        (the extension's `wasCancelled: true`).
//   HookProcessRegistry.terminateAll  -> `terminateAll()`, in extension.ts's `deactivate`.

import { HookFactory, type HookExecution, type HookRunResult } from '@cline/hooks'

/**
 * The hook-specific data the extension passes for each hook, named after the hook in camelCase
 * (the published hooks page). The extension's `Hooks` interface, which types
 * `NamedHookInput<Name>`, plays this part there.
 */
export interface Hooks {
  TaskStart: { taskStart: { task: string } }
  TaskResume: { taskResume: { task: string } }
  TaskCancel: { taskCancel: { task: string } }
  TaskComplete: { taskComplete: { task: string } }
  PreToolUse: { preToolUse: { tool: string; parameters: Record<string, unknown> } }
  PostToolUse: {
    postToolUse: { tool: string; parameters: Record<string, unknown>; result: string; success: boolean; durationMs: number }
  }
  UserPromptSubmit: { userPromptSubmit: { prompt: string } }
  PreCompact: { preCompact: { conversationLength: number; estimatedTokens: number } }
}

export type HookName = keyof Hooks

/** What the UI shows of the hook that took longest ("let developers know why their hooks are slow"). */
export type SlowestHook = Pick<HookExecution, 'hookName' | 'path' | 'durationMs' | 'status' | 'failure'>

/** What the extension needs from one run of the hooks of an event. */
export interface TaskHookResult {
  /** Block the tool (PreToolUse) or stop the task: some hook printed `cancel: true`. */
  cancel: boolean
  /** Context for the model; '' when no hook added any. */
  contextModification: string
  /** Shown to the user when `cancel` is true; '' when no hook gave one. */
  errorMessage: string
  /** The hook that took longest, or null when none ran. */
  slowest: SlowestHook | null
}

export interface TaskHooksOptions {
  taskId: string
  /** The task's workspace roots, in order: each one's `.clinerules/hooks` is searched. */
  workspaceRoots: readonly string[]
  /** undefined: `<Documents>/Cline/Hooks`; null: no global hooks. */
  globalHooksDir?: string | null | undefined
  clineVersion?: string | undefined
  userId?: string | undefined
  /** Per hook; default 30 s, as in the extension. */
  timeoutMs?: number | undefined
  /** Called with each run's result: where the extension updates its UI. */
  onResult?: ((hookName: HookName, result: TaskHookResult) => void) | undefined
}

/** The hooks of one task: created when the task starts, cancelled with it. */
export class TaskHooks {
  readonly taskId: string
  private readonly factory: HookFactory
  // The task's cancellation. One signal for all of the task's runs: the package adds one
  // listener to it, however many runs share it.
  private readonly controller = new AbortController()
  private readonly common: { taskId: string; clineVersion?: string; userId?: string }

  constructor(private readonly options: TaskHooksOptions) {
    this.taskId = options.taskId
    // Discovery is cached per factory, and the factory is this task's: a task started after
    // the user added a workspace folder sees the new folder's hooks.
    this.factory = new HookFactory({
      workspaceRoots: [...options.workspaceRoots],
      ...(options.globalHooksDir !== undefined && { globalHooksDir: options.globalHooksDir }),
    })
    this.common = {
      taskId: options.taskId,
      ...(options.clineVersion !== undefined && { clineVersion: options.clineVersion }),
      ...(options.userId !== undefined && { userId: options.userId }),
    }
  }

  /** Aborted when the task is cancelled. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  /**
   * Runs the hooks of `hookName` with `data`. Rejects with an AbortError when the task is
   * cancelled (or `signal` aborts) meanwhile; never because of what a hook did.
   */
  async run<Name extends HookName>(hookName: Name, data: Hooks[Name], options: { signal?: AbortSignal } = {}): Promise<TaskHookResult> {
    const signal = options.signal ? AbortSignal.any([this.controller.signal, options.signal]) : this.controller.signal
    return this.runWith(hookName, data, signal)
  }

  /**
   * Cancels the task: stops its running hooks (their runs reject with an AbortError), then
   * runs its TaskCancel hooks, which the task's signal no longer governs (the extension runs
   * them after the abort, not cancellable).
   */
  async cancel(data: Hooks['TaskCancel']): Promise<TaskHookResult> {
    this.controller.abort(new Error(`task ${this.taskId} cancelled`))
    return this.runWith('TaskCancel', data, undefined)
  }

  private async runWith<Name extends HookName>(hookName: Name, data: Hooks[Name], signal: AbortSignal | undefined): Promise<TaskHookResult> {
    // `create` is cheap once discovery is cached; asking each time picks up a hook the user
    // added or made executable since the last run.
    const runner = await this.factory.create(hookName)
    const result = await runner.run(
      { ...this.common, ...data },
      { ...(signal && { signal }), ...(this.options.timeoutMs !== undefined && { timeoutMs: this.options.timeoutMs }) },
    )
    const taskResult = toTaskResult(result)
    this.options.onResult?.(hookName, taskResult)
    return taskResult
  }
}

/** The package's result, narrowed to what the extension uses. */
export function toTaskResult(result: HookRunResult): TaskHookResult {
  const slowest = result.slowest
  return {
    cancel: result.cancel,
    contextModification: result.contextModification,
    errorMessage: result.errorMessage,
    slowest: slowest && {
      hookName: slowest.hookName,
      path: slowest.path,
      durationMs: slowest.durationMs,
      status: slowest.status,
      ...(slowest.failure !== undefined && { failure: slowest.failure }),
    },
  }
}

/** One line for the user about the slowest hook: its path, its time, and why it failed if it did. */
export function describeSlowest(slowest: SlowestHook): string {
  const time = `${slowest.hookName} hook ${slowest.path} took ${Math.round(slowest.durationMs)} ms`
  return slowest.failure ? `${time} (${slowest.status}: ${slowest.failure})` : time
}
