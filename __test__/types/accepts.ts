// Must compile under `tsc --strict --exactOptionalPropertyTypes` against index.d.ts
// (__test__/types.test.js). Type-checked only, never run.
import {
  HookError,
  HookFactory,
  KNOWN_HOOKS,
  discoverHooks,
  runHook,
  type CliEventName,
  type HookErrorCode,
  type HookInputFor,
  type HookName,
  type HookOutput,
  type HookRunner,
  type HookRunnerFor,
  type HookRunResult,
  type PreToolUseInput,
  type RunHookOptions,
} from '@cline/hooks'

declare const signal: AbortSignal

export async function everyHook(): Promise<HookRunResult[]> {
  const options: RunHookOptions = { workspaceRoots: ['/repo'], signal, timeoutMs: 5000 }
  const common = { taskId: 't1', clineVersion: '3.17.0', userId: 'u1' }
  return Promise.all([
    // The extension's hooks, as Cline sends them (the Chinese reference page's shapes).
    runHook('TaskStart', { ...common, taskStart: { taskMetadata: { taskId: 't1', ulid: '01J', initialTask: 'Add auth' } } }, options),
    runHook('TaskResume', {
      taskResume: {
        taskMetadata: { taskId: 't1', ulid: '01J' },
        previousState: { lastMessageTs: '1736654400000', messageCount: '12', conversationHistoryDeleted: 'false' },
      },
    }),
    runHook('TaskCancel', { taskCancel: { taskMetadata: { taskId: 't1', ulid: '01J' } } }),
    runHook('TaskComplete', { taskComplete: { taskMetadata: { taskId: 't1', ulid: '01J' } } }),
    runHook('TaskError', { taskError: { task: 'Add auth', error: 'API request failed' } }),
    runHook('PreToolUse', { preToolUse: { toolName: 'x', parameters: {} } }),
    runHook('PreToolUse', { ...common, preToolUse: { toolName: 'write_to_file', parameters: { path: 'src/a.ts', content: '' } } }, options),
    runHook('PostToolUse', {
      postToolUse: { toolName: 'execute_command', parameters: { command: 'npm test' }, result: 'ok', success: true, executionTimeMs: 3450 },
    }),
    runHook('UserPromptSubmit', { userPromptSubmit: { prompt: 'Add auth', attachments: [] } }),
    runHook('PreCompact', { preCompact: { conversationLength: 45, estimatedTokens: 125000 } }),
    runHook('SessionShutdown', { sessionShutdown: { reason: 'user_exit' } }),
    runHook('Notification', { notification: { type: 'approval_required', message: 'npm install?' } }),
    // The published hooks page's shapes (`tool`, `durationMs`, `task`), which the runtime reads too.
    runHook('PreToolUse', { preToolUse: { tool: 'write_to_file', parameters: { path: 'src/a.ts' } } }),
    runHook('PostToolUse', { postToolUse: { tool: 'execute_command', parameters: {}, result: 'ok', success: true, durationMs: 3450 } }),
    runHook('TaskStart', { taskStart: { task: 'Add auth' } }),
    // Every field is optional for the caller: the runtime fills hookName, timestamp,
    // workspaceRoots and model; a hook-specific field may be left out (the Jest tests do).
    runHook('PreToolUse', {}),
    runHook('TaskStart', { hookName: 'TaskStart', timestamp: '1736654400000', workspaceRoots: ['/repo'], model: { provider: 'p', slug: 's' } }),
    // The CLI's events, as the Cline SDK's file hooks send them.
    runHook('agent_start', { hookName: 'agent_start', taskId: 'conv-123', sessionContext: { rootSessionId: 'conv-123' }, taskStart: { taskMetadata: {} } }, { profile: 'cli' }),
    runHook('agent_resume', { taskResume: { taskMetadata: {}, previousState: {} } }, { profile: 'cli' }),
    runHook('prompt_submit', { userPromptSubmit: { prompt: 'hi', attachments: [] } }, { profile: 'cli' }),
    runHook('tool_call', {
      hookName: 'tool_call',
      iteration: 1,
      agent_id: 'a1',
      parent_agent_id: null,
      tool_call: { id: 'call-456', name: 'read_files', input: { filePath: '/path/to/file.ts' } },
      preToolUse: { toolName: 'read_files', parameters: { filePath: '/path/to/file.ts' } },
    }, { profile: 'cli' }),
    runHook('tool_result', { tool_result: { id: 'c', name: 'read_files', input: {}, output: 'x', error: null, durationMs: 45 } }, { profile: 'cli' }),
    runHook('agent_end', { turn: { outputText: 'done', status: 'completed' }, taskComplete: { taskMetadata: {} } }, { profile: 'cli', detached: true }),
    runHook('agent_error', { error: { name: 'Error', message: 'boom' } }, { profile: 'cli' }),
    runHook('agent_abort', { reason: 'cancelled', taskCancel: { taskMetadata: {} } }, { profile: 'cli' }),
    runHook('session_shutdown', { reason: 'exit' }, { profile: 'cli', requireHooks: ['tool_call', 'PreToolUse'] }),
  ])
}

export async function factoryAndRunner(): Promise<void> {
  const factory = new HookFactory({ workspaceRoots: ['/repo'], requireHooks: ['PreToolUse'] })
  if (await factory.hasHook('PreToolUse')) console.log('a PreToolUse hook exists')
  await factory.hasHook('tool_call')

  // The runner's type carries its name; its run takes that hook's input.
  const runner = await factory.create('PreToolUse')
  const name: 'PreToolUse' = runner.hookName
  const result = await runner.run({ preToolUse: { toolName: 'x', parameters: {} } }, { signal })
  if (result.cancel) console.log(name, result.errorMessage)
  for (const hook of runner.hooks) console.log(hook.path, hook.enabled)

  const post: HookRunnerFor<'PostToolUse'> = await factory.create('PostToolUse')
  await post.run({ postToolUse: { toolName: 'x', parameters: {}, result: '', success: true } })

  // A runner typed without its name takes any hook's input.
  const any: HookRunner = runner
  await any.run({ taskStart: { task: 't' } })
  await any.run({ preToolUse: { toolName: 'x', parameters: {} } })

  // A name only known at run time: a HookName (or CliEventName) value.
  for (const hook of KNOWN_HOOKS) {
    const r = await factory.create(hook)
    await r.run({})
    await runHook(hook, { taskId: 't' })
    await discoverHooks(hook)
  }
  const event: CliEventName = 'tool_call'
  await runHook(event, {})

  // Generic wrappers: the input of the hook `N`.
  async function fire<N extends HookName>(hookName: N, input: HookInputFor<N>): Promise<boolean> {
    return (await runHook(hookName, input)).cancel
  }
  await fire('PreToolUse', { preToolUse: { toolName: 'x', parameters: {} } })
  const typed: PreToolUseInput = { taskId: 't', preToolUse: { toolName: 'x', parameters: { path: 'a' } } }
  await fire('PreToolUse', typed)

  // A name the runtime accepts but the types do not know: cast.
  await runHook('FutureHook' as HookName, {})

  await factory.refresh()
  const stopped: number = await factory.terminateAll()
  console.log(stopped)
  await factory.dispose()
  await factory[Symbol.asyncDispose]()
}

export async function disposalAndWrapping(): Promise<void> {
  try {
    await runHook('PreToolUse', {})
  } catch (e) {
    if (e instanceof HookError) {
      const code: HookErrorCode = e.code
      if (code === 'ERR_HOOK_FACTORY_DISPOSED' || code === 'ABORT_ERR') console.log(e.message, e.cause)
    }
  }
  throw new HookError('wrapped', { code: 'ERR_INVALID_OPTION', cause: new Error('inner') })
}

export function knownHooks(): void {
  const names: readonly HookName[] = KNOWN_HOOKS
  const first: HookName | undefined = KNOWN_HOOKS[0]
  console.log(names.length, first, KNOWN_HOOKS.includes('PreToolUse'))
}

export async function errors(): Promise<void> {
  try {
    await runHook('PreToolUse', {}, { timeoutMs: -1 })
  } catch (e) {
    if (e instanceof HookError && e.code === 'ERR_INVALID_OPTION') console.log(e.message, e.cause)
    if (e instanceof HookError) {
      const code: HookErrorCode = e.code
      switch (code) {
        case 'ABORT_ERR':
        case 'ERR_HOOK_FACTORY_DISPOSED':
        case 'ERR_HOOK_NO_CONSTRUCTOR':
          break
        default:
          console.log(code)
      }
      const error: Error = e
      console.log(error.name)
    }
  }
}

// What a hook prints.
export const outputs: HookOutput[] = [
  {},
  { cancel: false },
  { cancel: true, errorMessage: 'Use .ts files' },
  { contextModification: 'WORKSPACE_RULES: Use TypeScript' },
  { shouldContinue: false },
  { review: true, context: 'critical file', overrideInput: { filePath: '/home/me/a' } },
]

// `await using`: the factory is disposed when the scope ends.
export async function scoped(): Promise<boolean> {
  await using factory = new HookFactory({ workspaceRoots: ['/repo'] })
  return factory.hasHook('PreToolUse')
}
