'use strict'

// `@cline/hooks/sdk`: the Cline SDK's file hooks, run by this runtime. `createFileHooks(options)`
// returns the runtime-hooks object (`beforeRun`, `afterRun`, `beforeModel`, `beforeTool`,
// `afterTool`, `onEvent`) that the SDK's own `createHookConfigFileHooks` returns, with the same
// payloads and results, so a host swaps runners with one import. The hooks are discovered by a
// `HookFactory` in the `cli` profile, fresh on every event (a cached snapshot, revalidated), so
// hooks added during a session run. Payload and verdict rules live in payloads.js and
// verdicts.js; this file holds the options and the I/O.

const { HookFactory } = require('..')
const payloads = require('./payloads')
const { controlOf, couldNotRun, combineControls } = require('./verdicts')

/** The SDK's default per-hook timeout for blocking events. */
const DEFAULT_TIMEOUT_MS = 120_000

/** The SDK's options, then this runtime's; anything else is a mistake worth an error. */
const SDK_OPTIONS = [
  'workspacePath',
  'cwd',
  'rootSessionId',
  'logger',
  'toolCallTimeoutMs',
  'detachAsyncHooks',
  'blockingRunStartHooks',
  'onHookRuntime',
  'workspaceInfo',
]
const RUNTIME_OPTIONS = [
  'workspaceRoots',
  'globalHooksDir',
  'extraHooksDirs',
  'clineDir',
  'maxConcurrentHooks',
  'timeoutMs',
  'signal',
  'env',
  'sequential',
]

function invalidOption(message) {
  const error = new TypeError(`createFileHooks: ${message}`)
  error.code = 'ERR_INVALID_OPTION'
  return error
}

/** Checks the options this file reads itself; the runtime checks the ones it passes on. */
function settingsOf(options) {
  if (options === null || typeof options !== 'object') {
    throw invalidOption(`options must be an object with at least { workspacePath }, got ${options === null ? 'null' : typeof options}`)
  }
  for (const name of Object.keys(options)) {
    if (!SDK_OPTIONS.includes(name) && !RUNTIME_OPTIONS.includes(name)) {
      throw invalidOption(`unknown option "${name}"; the options are ${[...SDK_OPTIONS, ...RUNTIME_OPTIONS].join(', ')}`)
    }
  }
  const { workspacePath, toolCallTimeoutMs, timeoutMs, logger, onHookRuntime } = options
  if (typeof workspacePath !== 'string' || workspacePath === '') {
    throw invalidOption('workspacePath must be the workspace folder, a non-empty string')
  }
  if (toolCallTimeoutMs !== undefined && timeoutMs !== undefined && toolCallTimeoutMs !== timeoutMs) {
    throw invalidOption(
      `toolCallTimeoutMs (${toolCallTimeoutMs}) and timeoutMs (${timeoutMs}) name the same per-hook timeout; give one`,
    )
  }
  if (logger !== undefined && (logger === null || typeof logger.log !== 'function')) {
    throw invalidOption('logger must be an object with a log(message, metadata) method (the SDK\'s BasicLogger)')
  }
  if (onHookRuntime !== undefined && typeof onHookRuntime !== 'function') {
    throw invalidOption('onHookRuntime must be a function')
  }
  return {
    workspacePath,
    rootSessionId: options.rootSessionId,
    workspaceInfo: options.workspaceInfo,
    logger,
    onHookRuntime,
    timeoutMs: timeoutMs ?? toolCallTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    detach: options.detachAsyncHooks ?? true,
    blockingRunStart: options.blockingRunStartHooks === true,
    signal: options.signal,
    env: options.env,
    sequential: options.sequential,
  }
}

/** The folders: the workspace's (or `workspaceRoots`), the global ones, and `--hooks-dir`. */
function discoveryOf(options) {
  const discovery = { profile: 'cli', workspaceRoots: options.workspaceRoots ?? [options.workspacePath] }
  for (const name of ['globalHooksDir', 'clineDir', 'maxConcurrentHooks']) {
    if (options[name] !== undefined) discovery[name] = options[name]
  }
  // The CLI's `--hooks-dir` only exports CLINE_HOOKS_DIR, which the SDK's runner never reads.
  const hooksDir = process.env.CLINE_HOOKS_DIR
  discovery.extraHooksDirs = options.extraHooksDirs ?? (hooksDir ? [hooksDir] : [])
  return discovery
}

/** Writes to the SDK logger as the SDK's runner does, else to the console. */
function logWith(logger) {
  return (message, severity, error) => {
    if (!logger) return void console.warn(message)
    try {
      if (severity === 'debug' && typeof logger.debug === 'function') logger.debug(message)
      else logger.log(message, { severity, ...(error === undefined ? {} : { error }) })
    } catch {
      // A logger that throws must not turn a hook's verdict into an exception.
    }
  }
}

/** What a run said that a host should hear: failures as warnings, notes as debug lines. */
function report(log, hookName, result) {
  for (const execution of result.hooks) {
    if (execution.failure) log(`${hookName} hook ${execution.path} ${execution.status}: ${execution.failure}`, 'warn')
    for (const warning of execution.warnings) log(`${hookName} hook ${execution.path}: ${warning}`, 'debug')
  }
  for (const warning of result.warnings) log(`${hookName} hooks: ${warning}`, 'debug')
}

/**
 * The Cline SDK's runtime hooks for file hooks, backed by this runtime (see index.d.ts).
 * Throws `ERR_INVALID_OPTION` for a bad option, at once, as the SDK's runner cannot.
 */
function createFileHooks(options) {
  const settings = settingsOf(options)
  const factory = new HookFactory(discoveryOf(options))
  const log = logWith(settings.logger)
  const env = () => ({ ...process.env, ...settings.env })
  const now = () => new Date()
  const runOptions = (detached) => ({
    timeoutMs: settings.timeoutMs,
    ...(settings.signal === undefined ? {} : { signal: settings.signal }),
    ...(settings.env === undefined ? {} : { env: settings.env }),
    ...(settings.sequential === undefined ? {} : { sequential: settings.sequential }),
    ...(detached ? { detached: true } : {}),
  })

  /** Runs a blocking event; a run that could not happen at all stops the operation. */
  async function decide(hookName, payload, withInput) {
    let result
    try {
      const runner = await factory.create(hookName)
      if (runner.hooks.length === 0) return undefined
      result = await runner.run(payloads.asJson(payload), runOptions(false))
    } catch (error) {
      log(`${hookName} hooks could not run: ${error && error.message}`, 'error', error)
      return couldNotRun(hookName, error)
    }
    report(log, hookName, result)
    return controlOf(result, hookName, { withInput })
  }

  /** Runs an observation-only event: detached unless `detachAsyncHooks: false`. */
  async function observe(hookName, payload) {
    try {
      const runner = await factory.create(hookName)
      if (runner.hooks.length === 0) return
      const result = await runner.run(payloads.asJson(payload), runOptions(settings.detach))
      report(log, hookName, result)
      if (!settings.detach && settings.onHookRuntime) {
        for (const execution of result.hooks) {
          settings.onHookRuntime({
            hookName,
            durationMs: execution.durationMs,
            exitCode: execution.exitCode,
            exited: execution.status !== 'timedOut' && execution.status !== 'aborted',
          })
        }
      }
    } catch (error) {
      log(`${hookName} hooks could not run: ${error && error.message}`, 'warn', error)
    }
  }

  // UserPromptSubmit fires once per prompt the user sent. A run's own prompt is the last
  // message of the conversation when the run starts (the SDK adds it then, with no event): its
  // hooks run in `beforeRun`, whose result the SDK applies (a stop, or context appended after the
  // prompt). A prompt added during a run comes as a `message-added` event, which cannot answer:
  // with blocking run-start hooks its verdict waits for the next model call, which it stops, or
  // whose request shows its context right after it (on every later request too).
  const promptsSeen = new Set() // message ids
  let promptStop // a mid-run prompt's cancel, until the next model call applies it
  const promptContexts = new Map() // mid-run prompt's message id → context text

  const isPrompt = (message) =>
    message !== null && typeof message === 'object' && message.role === 'user' && message.metadata?.displayRole !== 'system'

  /** Runs the prompt's hooks once; resolves with their control when blocking. */
  async function promptSubmitted(snapshot, message) {
    if (promptsSeen.has(message.id)) return undefined
    promptsSeen.add(message.id)
    const payload = payloads.promptSubmit(snapshot, payloads.promptOf(message.content), settings, env(), now())
    if (!settings.blockingRunStart) return void (await observe('prompt_submit', payload))
    return decide('prompt_submit', payload, false)
  }

  async function beforeRun({ snapshot }) {
    const history = snapshot.messages ?? []
    const last = history[history.length - 1]
    for (const message of history.slice(0, -1)) if (isPrompt(message)) promptsSeen.add(message.id)
    const hookName = env().CLINE_HOOK_AGENT_RESUME === '1' ? 'agent_resume' : 'agent_start'
    const payload = payloads.runStart(hookName, snapshot, settings, env(), now())
    if (!settings.blockingRunStart) {
      await observe(hookName, payload)
      if (isPrompt(last)) await promptSubmitted(snapshot, last)
      return undefined
    }
    const start = await decide(hookName, payload, false)
    if (start?.stop) return start
    const prompt = isPrompt(last) ? await promptSubmitted(snapshot, last) : undefined
    return combineControls(start, prompt)
  }

  async function beforeModel({ request }) {
    if (promptStop) {
      const stop = promptStop
      promptStop = undefined
      return stop
    }
    if (promptContexts.size === 0) return undefined
    const messages = []
    for (const message of request.messages) {
      messages.push(message)
      const text = promptContexts.get(message.id)
      if (text !== undefined) messages.push(payloads.promptContextMessage(message, text))
    }
    return { messages }
  }

  return {
    beforeRun,
    async onEvent(event) {
      if (event.type !== 'message-added' || !isPrompt(event.message)) return
      const control = await promptSubmitted(event.snapshot, event.message)
      if (control?.stop) promptStop ??= control
      else if (control?.appendContext) promptContexts.set(event.message.id, control.appendContext)
    },
    beforeModel,
    async beforeTool(context) {
      return decide('tool_call', payloads.toolCall(context, settings, env(), now()), true)
    },
    async afterTool(context) {
      return decide('tool_result', payloads.toolResult(context, settings, env(), now()), false)
    },
    async afterRun({ snapshot, result }) {
      for (const payload of payloads.runEnd(snapshot, result, settings, env(), now())) {
        await observe(payload.hookName, payload)
      }
    },
  }
}

module.exports = { createFileHooks }
