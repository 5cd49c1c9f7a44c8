// Runs the real Cline CLI (cline@3.0.65 from .ci-cache/cline) on one task, offline and isolated:
// a temp HOME, `cline auth` pointed at the scripted model server, then `cline --json "prompt"` in
// the workspace. Every process it starts is marked (see processes.js) and killed, group and all,
// if the run outlives its time limit. Also: readers for the run's events and stop reason.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')

const { CLINE_WRAPPER, assertClineInstalled } = require('./install')
const { MODEL_ID } = require('./model-server')
const { parseJsonLines, controlledStopReason } = require('./log-entries')
const { MARKER_VAR, newRunId, processesOfRun, killProcessesOfRun } = require('./processes')
const { makeTempDir } = require('./workspace')

/**
 * The environment the CLI runs with: the test's, without anything that would point Cline at the
 * user's state or a real provider, plus the isolation the CLI needs (see
 * /work/shared/notes/cline-cli-offline.md), plus `extra` (a null/undefined value removes a variable).
 */
function clineEnv({ home, runId, extra = {} }) {
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('CLINE_') || key === 'OPENAI_API_KEY' || key === 'OPENAI_BASE_URL') continue
    env[key] = value
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    // In-process sessions: no background hub daemon that would outlive the run.
    CLINE_SESSION_BACKEND_MODE: 'local',
    CLINE_NO_AUTO_UPDATE: '1',
    // Plugins run in a separate Node process: this Node, not whichever `node` PATH finds first.
    CLINE_JS_RUNTIME_PATH: process.execPath,
    [MARKER_VAR]: runId,
  })
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined || value === null) delete env[key]
    else env[key] = String(value)
  }
  return env
}

// Runs one CLI command in a process group of its own; kills the group (and any marked process that
// left it) when `deadline` passes.
function spawnCli(args, { cwd, env, deadline, runId }) {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(process.execPath, [CLINE_WRAPPER, ...args], {
      cwd,
      env,
      // stdin is /dev/null: a run with no terminal and nothing to read.
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    const pgid = child.pid
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
    let timedOut = false
    // Over time, everything goes at once with SIGKILL. Not SIGTERM: the CLI catches it and, with a
    // model request in flight, may not exit; and a SIGTERM to the group kills a PreToolUse hook under
    // the CLI, which the CLI takes for "no verdict" and runs the tool anyway (seen with 3.0.65).
    const killAll = () => {
      try {
        process.kill(-pgid, 'SIGKILL')
      } catch {}
      killProcessesOfRun(runId)
    }
    const overTime = setTimeout(() => {
      timedOut = true
      killAll()
    }, Math.max(0, deadline - Date.now()))
    child.on('error', (error) => {
      stderr += `\n[e2e] spawn failed: ${error.message}`
    })
    child.on('close', (exitCode, signal) => {
      clearTimeout(overTime)
      // Marked processes that outlived the group (started in a group of their own) went too.
      if (timedOut) killAll()
      resolve({ exitCode, signal, timedOut, stdout, stderr, pid: child.pid, pgid, durationMs: Date.now() - started })
    })
  })
}

/**
 * Writes ~/.cline/data/settings/providers.json as `cline auth -p openai-compatible -k sk-e2e
 * -m e2e-model -b URL` writes it (the only file that command writes; the harness test compares the
 * two), without paying for a second CLI start (~2.5 s here).
 */
function writeProviderSettings(home, baseUrl) {
  const dir = path.join(home, '.cline', 'data', 'settings')
  fs.mkdirSync(dir, { recursive: true })
  const settings = {
    version: 1,
    lastUsedProvider: 'openai-compatible',
    modes: {},
    providers: {
      'openai-compatible': {
        settings: { provider: 'openai-compatible', apiKey: 'sk-e2e', model: MODEL_ID, baseUrl },
        updatedAt: new Date().toISOString(),
        tokenSource: 'manual',
      },
    },
  }
  fs.writeFileSync(path.join(dir, 'providers.json'), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 })
}

/**
 * Runs one task on the real CLI.
 * @param {object} options
 * @param {string} options.workspace the task's folder (the CLI's cwd).
 * @param {string} options.prompt the task.
 * @param {{url: string}} [options.server] the model server (startModelServer); required unless `auth: false`.
 * @param {string[]} [options.args] extra CLI options, placed before the prompt (e.g. ['--hooks-dir', dir]).
 * @param {object} [options.env] extra environment; a null/undefined value removes a variable.
 * @param {string} [options.home] HOME to use (default: a new temp dir).
 * @param {boolean|'file'} [options.auth] true (default): run `cline auth -p openai-compatible ...`
 *   first; 'file': write the settings file that command writes (faster); false: neither.
 * @param {number} [options.timeoutMs] for auth and task together (default 120 s).
 * @returns {Promise<{exitCode: number|null, signal: string|null, timedOut: boolean, durationMs: number,
 *   taskDurationMs: number, events: object[], otherStdout: string[], stdout: string, stderr: string,
 *   log: string, logEntries: object[], home: string, workspace: string, runId: string, pid: number,
 *   pgid: number, auth: object|null}>}
 */
async function runCline({ workspace, prompt, server, args = [], env = {}, home, auth = true, timeoutMs = 120000 }) {
  assertClineInstalled()
  if (!workspace || typeof prompt !== 'string') throw new TypeError('runCline needs { workspace, prompt }')
  // cline 3.0.65 takes a one-word prompt for a mistyped subcommand ("Unknown command or unquoted
  // prompt: hello", exit 1).
  if (!/\s/.test(prompt.trim())) throw new TypeError(`runCline: the CLI rejects a one-word prompt (${JSON.stringify(prompt)})`)
  if (auth && !server?.url) throw new TypeError('runCline needs { server } (startModelServer) unless auth: false')
  const started = Date.now()
  const deadline = started + timeoutMs
  const runId = newRunId()
  home = home ?? makeTempDir('home')
  const childEnv = clineEnv({ home, runId, extra: env })

  let authResult = null
  if (auth === 'file') {
    writeProviderSettings(home, server.url)
  } else if (auth) {
    authResult = await spawnCli(
      ['auth', '-p', 'openai-compatible', '-k', 'sk-e2e', '-m', MODEL_ID, '-b', server.url],
      { cwd: workspace, env: childEnv, deadline, runId },
    )
    if (authResult.exitCode !== 0) {
      throw new Error(`cline auth failed (exit ${authResult.exitCode}, signal ${authResult.signal}):\n${authResult.stdout}\n${authResult.stderr}`)
    }
  }

  const task = await spawnCli(['--json', ...args, prompt], { cwd: workspace, env: childEnv, deadline, runId })
  const logPath = path.join(home, '.cline', 'data', 'logs', 'cline.log')
  const log = fs.existsSync(logPath) ? fs.readFileSync(logPath, 'utf8') : ''
  const stdoutLines = parseJsonLines(task.stdout)
  return {
    exitCode: task.exitCode,
    signal: task.signal,
    timedOut: task.timedOut,
    durationMs: Date.now() - started,
    taskDurationMs: task.durationMs,
    events: stdoutLines.entries,
    otherStdout: stdoutLines.other,
    stdout: task.stdout,
    stderr: task.stderr,
    log,
    logEntries: parseJsonLines(log).entries,
    home,
    workspace,
    runId,
    pid: task.pid,
    pgid: task.pgid,
    auth: authResult,
  }
}

/** The run's finish reason (`completed`, `aborted`, `error`, ...) from its `run_result` event. */
function finishReason(result) {
  let reason
  for (const event of result.events) {
    if (event.type === 'run_result') reason = event.finishReason
  }
  if (reason === undefined) {
    for (const event of result.events) {
      if (event.type === 'agent_event' && event.event?.type === 'done') reason = event.event.reason
    }
  }
  return reason
}

/** The reason a hook stopped the run with (from ~/.cline/data/logs/cline.log), or undefined. */
function hookStopReason(result) {
  return controlledStopReason(result.logEntries)
}

/** The tool calls the CLI started: [{ toolName, toolCallId, input }]. */
function toolCalls(result) {
  return result.events
    .filter((e) => e.type === 'agent_event' && e.event?.type === 'content_start' && e.event.contentType === 'tool')
    .map((e) => ({ toolName: e.event.toolName, toolCallId: e.event.toolCallId, input: e.event.input }))
}

/** The tool calls that ended: [{ toolName, toolCallId, output, error }]. */
function toolResults(result) {
  return result.events
    .filter((e) => e.type === 'agent_event' && e.event?.type === 'content_end' && e.event.contentType === 'tool')
    .map((e) => ({ toolName: e.event.toolName, toolCallId: e.event.toolCallId, output: e.event.output, error: e.event.error }))
}

/** The names of the hook events the CLI announced (`agent_start`, `tool_call`, ...), in order. */
function hookEvents(result) {
  return result.events.filter((e) => e.type === 'hook_event').map((e) => e.hookEventName)
}

/** Live processes the run left (see processes.js); [] when none. */
function leftoverProcesses(result) {
  return processesOfRun(result.runId)
}

module.exports = {
  runCline,
  finishReason,
  hookStopReason,
  toolCalls,
  toolResults,
  hookEvents,
  leftoverProcesses,
  clineEnv,
  writeProviderSettings,
}
