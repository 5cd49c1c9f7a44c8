'use strict'

// `@cline/hooks/sdk`: the Cline SDK's file hooks, run by this runtime. `createFileHooks(options)`
// returns the runtime-hooks object (`beforeRun`, `afterRun`, `beforeModel`, `beforeTool`,
// `afterTool`, `onEvent`) that the SDK's own `createHookConfigFileHooks` returns, with the same
// payloads and results, so a host swaps runners with one import. The hooks are discovered by a
// `HookFactory` in the `cli` profile, fresh on every event (a cached snapshot, revalidated), so
// hooks added during a session run. Payload and verdict rules live in payloads.js and
// verdicts.js; this file holds the options and the I/O.

const os = require('node:os')

const { HookFactory } = require('..')
const { argumentError } = require('../hook-error.js')
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
  'managedHooksDir',
  'maxConcurrentHooks',
  'timeoutMs',
  'maxTimeoutMs',
  'signal',
  'env',
  'sequential',
  'policyFile',
  'trust',
  'requireHooks',
  'claudeSettings',
  'sandbox',
  'sandboxWritable',
  'sandboxNetwork',
  'onFailure',
  'scrubEnv',
]

/** The kinds of failure `onFailure` can block (see RunOptions.onFailure). */
const FAILURE_KINDS = ['timedOut', 'crash', 'startFailure', 'invalidOutput']

/** `onFailure` by the runtime's rules, so a bad one throws now rather than at the first tool call. */
function checkOnFailure(value) {
  if (value === undefined || value === 'allow' || value === 'block') return
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [kind, verdict] of Object.entries(value)) {
      // `timeout`: timedOut's name before 0.2, still accepted, but not beside it.
      if (kind === 'timeout' && 'timedOut' in value) throw invalidOption('onFailure has both timedOut and timeout, its old name, for the same kind of failure; keep timedOut')
      if (!FAILURE_KINDS.includes(kind) && kind !== 'timeout') throw invalidOption(`onFailure.${kind} is not a kind of failure; the kinds are ${FAILURE_KINDS.join(', ')}`)
      if (verdict !== undefined && verdict !== 'allow' && verdict !== 'block') throw invalidOption(`onFailure.${kind} must be "allow" or "block"`)
    }
    return
  }
  throw invalidOption('onFailure must be "allow", "block", or an object such as { timedOut: "block" }')
}

/** `scrubEnv` by the runtime's rules. */
function checkScrubEnv(value) {
  if (value === undefined || typeof value === 'boolean') return
  const isName = (n) => typeof n === 'string' && n !== '' && !n.includes('=') && !n.includes('\0')
  if (Array.isArray(value) && value.every(isName)) return
  throw invalidOption('scrubEnv must be true, false, or an array of variable names')
}

function invalidOption(message) {
  return argumentError(`createFileHooks: ${message}`, 'ERR_INVALID_OPTION')
}

/** Longest per-hook timeout the runtime takes: a day. */
const MAX_TIMEOUT_MS = 86_400_000

/**
 * Checks every option now, so that a mistake throws here rather than failing each hook call
 * inside the agent loop. The discovery options are checked by the HookFactory constructor.
 */
function settingsOf(options) {
  if (options === null || typeof options !== 'object') {
    throw invalidOption(`options must be an object with at least { workspacePath }, got ${options === null ? 'null' : typeof options}`)
  }
  for (const name of Object.keys(options)) {
    if (!SDK_OPTIONS.includes(name) && !RUNTIME_OPTIONS.includes(name)) {
      throw invalidOption(`unknown option "${name}"; the options are ${[...SDK_OPTIONS, ...RUNTIME_OPTIONS].join(', ')}`)
    }
  }
  const { workspacePath, toolCallTimeoutMs, timeoutMs, maxTimeoutMs, logger, onHookRuntime, signal, env } = options
  if (typeof workspacePath !== 'string' || workspacePath === '') {
    throw invalidOption('workspacePath must be the workspace folder, a non-empty string')
  }
  for (const [name, value] of [['toolCallTimeoutMs', toolCallTimeoutMs], ['timeoutMs', timeoutMs], ['maxTimeoutMs', maxTimeoutMs]]) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 1 && value <= MAX_TIMEOUT_MS)) {
      throw invalidOption(`${name} must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (24 hours), got ${String(value)}`)
    }
  }
  if (toolCallTimeoutMs !== undefined && timeoutMs !== undefined && toolCallTimeoutMs !== timeoutMs) {
    throw invalidOption(
      `toolCallTimeoutMs (${toolCallTimeoutMs}) and timeoutMs (${timeoutMs}) name the same per-hook timeout; give one`,
    )
  }
  for (const name of ['detachAsyncHooks', 'blockingRunStartHooks', 'sequential']) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean') {
      throw invalidOption(`${name} must be true or false, got ${JSON.stringify(options[name]) ?? typeof options[name]}`)
    }
  }
  for (const name of ['cwd', 'rootSessionId']) {
    if (options[name] !== undefined && typeof options[name] !== 'string') {
      throw invalidOption(`${name} must be a string, got ${typeof options[name]}`)
    }
  }
  if (
    logger !== undefined &&
    (logger === null || typeof logger.log !== 'function' || (logger.debug !== undefined && typeof logger.debug !== 'function'))
  ) {
    throw invalidOption('logger must be an object with a log(message, metadata) method and, if any, a debug(message) method (the SDK\'s BasicLogger)')
  }
  if (onHookRuntime !== undefined && typeof onHookRuntime !== 'function') {
    throw invalidOption('onHookRuntime must be a function')
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidOption('signal must be an AbortSignal (for example new AbortController().signal)')
  }
  checkEnv(env)
  checkOnFailure(options.onFailure)
  checkScrubEnv(options.scrubEnv)
  return {
    workspacePath,
    rootSessionId: options.rootSessionId,
    workspaceInfo: options.workspaceInfo,
    logger,
    onHookRuntime,
    timeoutMs: timeoutMs ?? toolCallTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxTimeoutMs,
    detach: options.detachAsyncHooks ?? true,
    blockingRunStart: options.blockingRunStartHooks === true,
    signal,
    env,
    sequential: options.sequential,
    onFailure: options.onFailure,
    scrubEnv: options.scrubEnv,
  }
}

/** `env` by the runtime's rules (see RunOptions.env), so a bad one throws now. */
function checkEnv(env) {
  if (env === undefined) return
  const prototype = env === null || typeof env !== 'object' ? undefined : Object.getPrototypeOf(env)
  if (prototype !== Object.prototype && prototype !== null) {
    throw invalidOption('env must be a plain object of variable names to strings, such as { DEBUG: "1" }')
  }
  for (const [name, value] of Object.entries(env)) {
    if (name === '' || name.includes('=') || name.includes('\0')) {
      throw invalidOption(`env: ${JSON.stringify(name)} is not a variable name (empty, or with "=" or NUL)`)
    }
    const usable =
      value === undefined ||
      (typeof value === 'string' && !value.includes('\0')) ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      typeof value === 'bigint'
    if (!usable) throw invalidOption(`env.${name} must be a string without NUL (or a finite number, or undefined), got ${value === null ? 'null' : typeof value}`)
  }
}

/**
 * The folders: the managed one (the system's unless `managedHooksDir` says otherwise), the
 * workspace's (or `workspaceRoots`), the global ones, and `--hooks-dir`.
 */
function discoveryOf(options) {
  const discovery = { profile: 'cli', workspaceRoots: options.workspaceRoots ?? [options.workspacePath] }
  for (const name of ['globalHooksDir', 'clineDir', 'managedHooksDir', 'maxConcurrentHooks', 'policyFile', 'trust', 'requireHooks', 'claudeSettings', 'sandbox', 'sandboxWritable', 'sandboxNetwork']) {
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
function report(log, hookName, result, said) {
  // A file meant for the hook that will not run is said out loud, once per file and problem.
  for (const file of result.notRun || []) {
    const key = `${file.path}\0${file.problem}`
    if (said.has(key)) continue
    if (said.size >= 1024) said.clear()
    said.add(key)
    log(`${hookName} hook ${file.path} will not run: ${file.reason}${file.fix ? `; fix: ${file.fix}` : ''}`, 'warn')
  }
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
  // Two factories, each with a process limit of its own: hooks that are started and left
  // running (a TaskStart that starts a watcher) must never hold the slots a guardrail needs.
  const discovery = discoveryOf(options)
  const limit = options.maxConcurrentHooks ?? Math.min(1024, 8 * (os.availableParallelism?.() ?? os.cpus().length))
  const factory = new HookFactory({ ...discovery, maxConcurrentHooks: limit })
  const observers = new HookFactory({ ...discovery, maxConcurrentHooks: limit })
  const log = logWith(settings.logger)
  const said = new Set()
  const env = () => ({ ...process.env, ...settings.env })
  const now = () => new Date()
  const runOptions = (detached) => ({
    timeoutMs: settings.timeoutMs,
    ...(settings.maxTimeoutMs === undefined ? {} : { maxTimeoutMs: settings.maxTimeoutMs }),
    ...(settings.signal === undefined ? {} : { signal: settings.signal }),
    ...(settings.env === undefined ? {} : { env: settings.env }),
    ...(settings.sequential === undefined ? {} : { sequential: settings.sequential }),
    ...(settings.onFailure === undefined ? {} : { onFailure: settings.onFailure }),
    ...(settings.scrubEnv === undefined ? {} : { scrubEnv: settings.scrubEnv }),
    ...(detached ? { detached: true } : {}),
  })

  /** Runs a blocking event; a run that could not happen at all stops the operation. */
  async function decide(hookName, payload, withInput) {
    let result
    try {
      const runner = await factory.create(hookName)
      // No hook found: the run still settles without a process, and it is what names the
      // misnamed files and blocks a required hook (requireHooks).
      result = await runner.run(payloads.asJson(payload), runOptions(false))
    } catch (error) {
      log(`${hookName} hooks could not run: ${error && error.message}`, 'error', error)
      return couldNotRun(hookName, error)
    }
    report(log, hookName, result, said)
    return controlOf(result, hookName, { withInput })
  }

  /**
   * Runs an observation-only event. Detached (the default): started and not awaited, as the
   * SDK's runner does, so a hook waiting for a process slot holds nothing. With
   * `detachAsyncHooks: false`: awaited, its runtime reported to `onHookRuntime`.
   */
  async function observe(hookName, payload) {
    const run = async () => {
      const runner = await observers.create(hookName)
      if (runner.hooks.length === 0) return
      const result = await runner.run(payloads.asJson(payload), runOptions(settings.detach))
      report(log, hookName, result, said)
      if (settings.detach || !settings.onHookRuntime) return
      for (const execution of result.hooks) {
        try {
          settings.onHookRuntime({
            hookName,
            durationMs: execution.durationMs,
            exitCode: execution.exitCode,
            exited: execution.status !== 'timedOut' && execution.status !== 'aborted',
          })
        } catch (error) {
          log(`onHookRuntime threw: ${error && error.message}`, 'warn', error)
        }
      }
    }
    const done = run().catch((error) => log(`${hookName} hooks could not run: ${error && error.message}`, 'warn', error))
    if (!settings.detach) await done
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
    const environment = env()
    const hookName = environment.CLINE_HOOK_AGENT_RESUME === '1' ? 'agent_resume' : 'agent_start'
    const payload = payloads.runStart(hookName, snapshot, settings, environment, now())
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
