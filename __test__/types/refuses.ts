// Every `@ts-expect-error` line below must really be an error: tsc fails on an unused one
// (__test__/types.test.js compiles this file under `--strict --exactOptionalPropertyTypes`).
// Type-checked only, never run.
import { HookError, HookFactory, KNOWN_HOOKS, discoverHooks, runHook, type HookOutput, type HookRunner } from '@cline/hooks'

export async function misspeltNames(factory: HookFactory): Promise<void> {
  // @ts-expect-error a misspelt hook name
  await runHook('PreToolUser', {})
  // @ts-expect-error hook names are case-sensitive
  await runHook('pretooluse', {})
  // @ts-expect-error a misspelt CLI event name
  await runHook('tool_calls', {})
  // @ts-expect-error a misspelt hook name
  await factory.create('PreToolUser')
  // @ts-expect-error a misspelt hook name
  await factory.hasHook('PostToolUser')
  // @ts-expect-error a misspelt hook name
  await discoverHooks('TaskStrat')
  // @ts-expect-error a misspelt hook name in requireHooks
  new HookFactory({ requireHooks: ['PreToolUser'] })
  // @ts-expect-error a misspelt hook name in requireHooks
  await runHook('PreToolUse', {}, { requireHooks: ['tool_calls'] })
  const name: string = 'PreToolUse'
  // @ts-expect-error any string: it may be misspelt
  await runHook(name, {})
  // @ts-expect-error a hook name is a string
  await runHook(42, {})
}

export function knownHooksIsReadonly(): void {
  // @ts-expect-error KNOWN_HOOKS is readonly (and frozen)
  KNOWN_HOOKS.push('x')
  // @ts-expect-error KNOWN_HOOKS is readonly (and frozen)
  KNOWN_HOOKS[0] = 'TaskStart'
  // @ts-expect-error it holds hook names only
  const names: readonly 'x'[] = KNOWN_HOOKS
  void names
}

export async function wrongInputs(factory: HookFactory): Promise<void> {
  // @ts-expect-error another hook's field
  await runHook('PreToolUse', { postToolUse: { toolName: 'x', parameters: {}, result: '', success: true } })
  // @ts-expect-error the tool's name is missing
  await runHook('PreToolUse', { preToolUse: { parameters: {} } })
  // @ts-expect-error the parameters are missing
  await runHook('PreToolUse', { preToolUse: { toolName: 'x' } })
  // @ts-expect-error a misspelt field of the hook-specific object
  await runHook('PreToolUse', { preToolUse: { toolNam: 'x', parameters: {} } })
  // @ts-expect-error PostToolUse's result and success are missing
  await runHook('PostToolUse', { postToolUse: { toolName: 'x', parameters: {} } })
  // @ts-expect-error the prompt is missing
  await runHook('UserPromptSubmit', { userPromptSubmit: {} })
  // @ts-expect-error the timestamp is a string (milliseconds since the epoch, as text)
  await runHook('TaskStart', { timestamp: 1736654400000 })
  // @ts-expect-error a misspelt common field
  await runHook('TaskStart', { taskID: 't1' })
  // @ts-expect-error the input is an object
  await runHook('TaskStart', 'not an object')
  // @ts-expect-error the input is required
  await runHook('TaskStart')
  // @ts-expect-error the CLI's tool_call is not PreToolUse's input
  await runHook('PreToolUse', { tool_call: { name: 'x' } })
  // @ts-expect-error the CLI profile adds no model
  await runHook('tool_call', { model: { provider: 'p', slug: 's' } })
  // @ts-expect-error tool_call's tool name is `name`
  await runHook('tool_call', { tool_call: { toolName: 'x' } })

  const runner = await factory.create('PreToolUse')
  // @ts-expect-error a runner for PreToolUse takes PreToolUse's input
  await runner.run({ taskStart: { task: 't' } })
  // @ts-expect-error the tool's name is missing
  await runner.run({ preToolUse: { parameters: {} } })
  // @ts-expect-error its hookName is PreToolUse
  const other: 'PostToolUse' = runner.hookName
  void other
  const any: HookRunner = runner
  // @ts-expect-error a runner typed without its name still takes a hook's input only
  await any.run({ preToolUse: { parameters: {} } })
}

export async function errorCodes(): Promise<void> {
  try {
    await runHook('PreToolUse', {})
  } catch (e) {
    // @ts-expect-error no such code: the comparison can never be true
    if (e instanceof HookError && e.code === 'ERR_NO_SUCH_CODE') console.log(e)
    // @ts-expect-error `e` is unknown until narrowed
    console.log(e.code)
    if (e instanceof HookError) {
      // @ts-expect-error code is readonly
      e.code = 'ABORT_ERR'
    }
  }
  // @ts-expect-error made by the package only
  new HookError()
}

export const outputs: HookOutput[] = [
  // @ts-expect-error cancel is a boolean
  { cancel: 'true' },
  // @ts-expect-error null makes the hook failed
  { contextModification: null },
  // @ts-expect-error a misspelt field
  { contextModifcation: 'x' },
  // @ts-expect-error overrideInput is an object
  { overrideInput: 'x' },
]
