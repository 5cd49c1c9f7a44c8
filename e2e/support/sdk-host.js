// Runs one task through the Cline SDK in this process, with no CLI binary: `@cline/core` from
// .ci-cache/cline, a local (in-process) session whose built-in file hooks are left out
// (`localRuntime.configExtensions` without "hooks") and whose runtime hooks are the `AgentHooks`
// object the caller passes (`localRuntime.hooks`), the model being the scripted server. Cline's
// state goes to a temp HOME.
'use strict'

const path = require('node:path')
// Jest's require('module') is Node's own: its _load runs outside Jest's sandbox, where @cline/core
// (an ES module, import-only) can be imported.
const NodeModule = require('node:module')

const { CLINE_MODULES, assertClineInstalled } = require('./install')
const { MODEL_ID } = require('./model-server')
const { controlledStopReason } = require('./log-entries')
const { MARKER_VAR, newRunId, killProcessesOfRun } = require('./processes')
const { makeTempDir } = require('./workspace')

const realm = NodeModule._load(path.join(__dirname, 'real-realm.cjs'), null, false)

// The file hooks are the "hooks" kind and the CLI-style plugins (which may carry hooks too) the
// "plugins" kind; with neither, the caller's hooks are the only hooks of the run.
const DEFAULT_CONFIG_EXTENSIONS = ['rules', 'skills', 'workflows']
// After an abort on time-out, how long the run may take to settle before the host is disposed.
const ABORT_GRACE_MS = 5000

const TIMED_OUT = Symbol('timed out')
// { r } or { e } once `promise` settles, or TIMED_OUT after `ms`; the timer never outlives the wait.
async function settleWithin(promise, ms) {
  let timer
  const limit = new Promise((resolve) => { timer = setTimeout(() => resolve(TIMED_OUT), ms) })
  try {
    return await Promise.race([Promise.resolve(promise).then((r) => ({ r }), (e) => ({ e })), limit])
  } finally {
    clearTimeout(timer)
  }
}

let sdkPromise = null
/** `{ core, storage }`: @cline/core and @cline/shared/storage, imported once per process. */
function loadSdk() {
  assertClineInstalled()
  sdkPromise ??= Promise.all([
    realm.importModule(path.join(CLINE_MODULES, '@cline', 'core', 'dist', 'index.js')),
    realm.importModule(path.join(CLINE_MODULES, '@cline', 'shared', 'dist', 'storage', 'index.js')),
  ]).then(([core, storage]) => ({ core, storage }))
  return sdkPromise
}

// Sets the real environment for the run (HOME and Cline's dirs in the temp HOME, no CLINE_* or
// OpenAI variable of the user's, the run marker) and returns a function that puts it back.
function isolateEnv({ home, runId, extra }) {
  const env = realm.env
  const saved = { ...env }
  for (const key of Object.keys(env)) {
    if (key.startsWith('CLINE_') || key === 'OPENAI_API_KEY' || key === 'OPENAI_BASE_URL') delete env[key]
  }
  Object.assign(env, {
    HOME: home,
    CLINE_DIR: path.join(home, '.cline'),
    CLINE_DATA_DIR: path.join(home, '.cline', 'data'),
    [MARKER_VAR]: runId,
  })
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined || value === null) delete env[key]
    else env[key] = String(value)
  }
  return () => {
    for (const key of Object.keys(env)) if (!(key in saved)) delete env[key]
    Object.assign(env, saved)
  }
}

function errorFields(value) {
  if (value instanceof Error || (value && typeof value === 'object' && 'message' in value && 'name' in value)) {
    return { name: value.name, message: value.message }
  }
  return value
}

// A BasicLogger that keeps entries shaped like the CLI's pino lines: { level, msg, ...metadata }.
function recordingLogger(entries) {
  const record = (level) => (msg, metadata) => {
    const fields = {}
    for (const [key, value] of Object.entries(metadata ?? {})) fields[key] = errorFields(value)
    entries.push({ level, msg, ...fields })
  }
  return { debug: record('debug'), log: record('log'), error: record('error') }
}

/**
 * Runs one task through `ClineCore` (backendMode "local").
 * @param {object} options
 * @param {string} options.workspace the task's folder (cwd and workspace root).
 * @param {string} options.prompt the task.
 * @param {{url: string}} options.server the model server (startModelServer).
 * @param {object} [options.hooks] an AgentHooks object (`beforeTool`, `afterTool`, `beforeRun`, ...).
 * @param {string[]} [options.configExtensions] what Cline loads from config files (default
 *   ['rules', 'skills', 'workflows']: no file hooks, no plugins).
 * @param {object} [options.config] extra session config, merged over the defaults.
 * @param {object} [options.env] extra environment for the run; null/undefined removes a variable.
 * @param {string} [options.home] HOME to use (default: a new temp dir).
 * @param {number} [options.timeoutMs] abort the run after this (default 120 s).
 * @returns {Promise<{finishReason: string|undefined, result: object|undefined, error: Error|undefined,
 *   timedOut: boolean, wedged: boolean, stopReason: string|undefined, sessionId: string, events: object[],
 *   logEntries: object[], home: string, workspace: string, runId: string, durationMs: number}>}
 *   `result` is the SDK's AgentResult (text, toolCalls, messages, finishReason, ...); `start` is what
 *   ClineCore.start resolved to; `wedged`: over time, the run did not settle after abort (a hook
 *   that never settles does that) and the host was left undisposed.
 */
async function runSdkTask({
  workspace,
  prompt,
  server,
  hooks,
  configExtensions = DEFAULT_CONFIG_EXTENSIONS,
  config = {},
  env = {},
  home,
  timeoutMs = 120000,
}) {
  if (!workspace || typeof prompt !== 'string' || !server?.url) {
    throw new TypeError('runSdkTask needs { workspace, prompt, server }')
  }
  if (realm.state.active) throw new Error('runSdkTask: one SDK task at a time (it changes the process environment)')
  const { core, storage } = await loadSdk()
  realm.state.active = true
  const started = Date.now()
  const runId = newRunId()
  home = home ?? makeTempDir('sdk-home')
  const restoreEnv = isolateEnv({ home, runId, extra: env })
  const releaseTimers = realm.trackTimers()
  // @cline/shared resolves HOME once at import; these set where this run's state goes.
  storage.setHomeDir(home)
  storage.setClineDir(path.join(home, '.cline'))

  const logEntries = []
  const events = []
  const sessionId = `e2e-${runId}`
  let cline
  let unsubscribe = () => {}
  let result
  let error
  let timedOut = false
  let wedged = false
  try {
    cline = await core.ClineCore.create({ clientName: 'cline-hooks-e2e', backendMode: 'local', logger: recordingLogger(logEntries) })
    unsubscribe = cline.subscribe((event) => events.push(event))
    const run = cline.start({
      config: {
        sessionId,
        providerId: 'openai-compatible',
        modelId: MODEL_ID,
        apiKey: 'sk-e2e',
        baseUrl: server.url,
        cwd: workspace,
        workspaceRoot: workspace,
        systemPrompt: 'You are a coding agent under test. Use the tools you are asked to use.',
        mode: 'act',
        enableTools: true,
        enableSpawnAgent: false,
        enableAgentTeams: false,
        ...config,
      },
      prompt,
      interactive: false,
      toolPolicies: { '*': { autoApprove: true } },
      localRuntime: { configExtensions, ...(hooks ? { hooks } : {}) },
    })
    const outcome = await settleWithin(run, timeoutMs)
    if (outcome === TIMED_OUT) {
      timedOut = true
      // The agent loop awaits a runtime hook without racing it against the abort: a hook that never
      // settles keeps the run (and stop() and dispose()) pending for good. So every wait is bounded.
      await settleWithin(cline.abort(sessionId, 'e2e time limit'), ABORT_GRACE_MS)
      const settled = await settleWithin(run, ABORT_GRACE_MS)
      if (settled !== TIMED_OUT && 'r' in settled) result = settled.r
      error = settled !== TIMED_OUT && 'e' in settled
        ? settled.e
        : new Error(`SDK task over its time limit (${timeoutMs} ms); it did not settle ${ABORT_GRACE_MS} ms after abort`)
      wedged = settled === TIMED_OUT
    } else if ('e' in outcome) {
      error = outcome.e
    } else {
      result = outcome.r
    }
  } catch (e) {
    error = e
  } finally {
    unsubscribe()
    if (cline && !wedged) await settleWithin(cline.dispose(), ABORT_GRACE_MS)
    if (timedOut) killProcessesOfRun(runId)
    releaseTimers()
    restoreEnv()
    realm.state.active = false
  }
  return {
    finishReason: result?.result?.finishReason,
    result: result?.result,
    start: result,
    error,
    timedOut,
    wedged,
    stopReason: controlledStopReason(logEntries),
    sessionId,
    events,
    logEntries,
    home,
    workspace,
    runId,
    durationMs: Date.now() - started,
  }
}

/** The reason a hook stopped the run with (from the SDK's log), or undefined. */
function hookStopReason(result) {
  return controlledStopReason(result.logEntries)
}

module.exports = { runSdkTask, hookStopReason, loadSdk, DEFAULT_CONFIG_EXTENSIONS }
