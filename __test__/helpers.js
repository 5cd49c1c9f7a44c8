'use strict'

// Shared helpers for the Jest suite: temp dirs removed after each test, real hook scripts
// written with a given shebang and mode, background processes tracked and killed, bounded
// polling, and Unix-only tests that say why they are skipped on Windows.

const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawnSync } = require('child_process')

const addon = require('..')
const programs = require('./hook-programs')

const isWindows = process.platform === 'win32'
// The default reason; a test tied to another Unix-only rule (signals, /proc, process groups)
// passes its own, so the skip title says which rule.
const UNIX_ONLY_REASON = 'exec bits and shebangs are Unix rules'

const SHEBANGS = {
  sh: '#!/bin/sh',
  bash: '#!/usr/bin/env bash',
  python3: '#!/usr/bin/env python3',
  node: '#!/usr/bin/env node',
}

// ---------------------------------------------------------------------------------------
// Unix-only tests: on Windows they are skipped with the reason in the title, never silently.

function withReason(title, reason = UNIX_ONLY_REASON) {
  const note = `(skipped on Windows: ${reason})`
  return title.includes(note) ? title : `${title} ${note}`
}

/** A Unix-only test; `reason` names the Unix rule it is tied to. */
function testUnix(title, fn, timeout, { reason } = {}) {
  if (isWindows) {
    test.skip(withReason(title, reason), fn)
  } else {
    test(title, fn, timeout)
  }
}

/**
 * A describe block of Unix-only tests. On Windows every test declared inside it is declared
 * with `test.skip`, the reason appended to its own title.
 */
function describeUnix(title, fn, { reason } = {}) {
  if (!isWindows) {
    describe(title, fn)
    return
  }
  describe(withReason(title, reason), () => {
    const realTest = global.test
    const realIt = global.it
    const skipper = (t, f) => realTest.skip(withReason(t, reason), f || (() => {}))
    skipper.skip = skipper
    skipper.only = skipper
    skipper.concurrent = skipper
    skipper.each = (table) => (t, f) => realTest.skip.each(table)(withReason(t, reason), f || (() => {}))
    global.test = skipper
    global.it = skipper
    try {
      fn()
    } finally {
      global.test = realTest
      global.it = realIt
    }
  })
}

/** A test that only makes sense when `condition` holds; otherwise skipped, with `reason` shown. */
function testIf(condition, reason, title, fn, timeout) {
  if (condition) {
    test(title, fn, timeout)
  } else {
    test.skip(`${title} (skipped: ${reason})`, fn)
  }
}

// ---------------------------------------------------------------------------------------
// Temp dirs and background processes, cleaned up after every test.

const tempDirs = []
const trackedPids = new Set()

/** A fresh temp dir (real path, so comparisons with hook-reported paths hold on macOS too). */
function makeTempDir(prefix = 'cline-hooks-test-') {
  const base = fs.realpathSync(os.tmpdir())
  const dir = fs.mkdtempSync(path.join(base, prefix))
  tempDirs.push(dir)
  return dir
}

/** A workspace root (optionally named `name` inside a fresh temp dir), with its hooks dir path. */
function makeWorkspace(name) {
  const root = name ? path.join(makeTempDir(), name) : makeTempDir('cline-hooks-ws-')
  fs.mkdirSync(root, { recursive: true })
  return root
}

/** `<root>/.clinerules/hooks` */
function hooksDirOf(root) {
  return path.join(root, '.clinerules', 'hooks')
}

function restorePermissions(dir) {
  let entries
  try {
    fs.chmodSync(dir, 0o700)
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    if (entry.isDirectory()) restorePermissions(path.join(dir, entry.name))
  }
}

function trackPid(pid) {
  if (Number.isInteger(pid) && pid > 0) trackedPids.add(pid)
  return pid
}

function killTracked() {
  for (const pid of trackedPids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
  trackedPids.clear()
}

afterEach(async () => {
  // A test that failed half-way may leave a hook running: stop it so nothing leaks. The
  // runtime's trees first, each as a whole. A tracked pid is often a hook's program (on
  // Windows, node.exe under the cmd.exe that runs the .cmd and heads the tree, where a kill
  // reaches that one process): killed first, it ends the hook's own process, and what a hook
  // whose own process has ended left running is released by design, out of terminateAll()'s
  // reach. Then whatever is tracked outside the runtime's trees (hosts, released processes).
  await addon.terminateAll()
  killTracked()
  while (tempDirs.length) {
    const dir = tempDirs.pop()
    restorePermissions(dir)
    // Windows holds a file or a working directory a moment after its process ends: retry
    // rather than fail. The promise form, because fs.rmSync never retries EBUSY on a folder.
    await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: isWindows ? 20 : 0 })
  }
})

// ---------------------------------------------------------------------------------------
// Hook scripts.

/** Writes `body` as is to `dir/name` (dir created as needed) with `mode`; returns its path. */
function writeFile(dir, name, body, mode = 0o644) {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, name)
  fs.writeFileSync(file, body)
  fs.chmodSync(file, mode)
  return file
}

/**
 * Writes an executable hook script `dir/name` (dir created as needed) and returns its path.
 * `shebang` is one of sh, bash, python3, node (or a full `#!` line); `mode` defaults to 0o755.
 */
function writeHook(dir, name, body, { shebang = 'sh', mode = 0o755 } = {}) {
  const line = SHEBANGS[shebang] || shebang
  return writeFile(dir, name, `${line}\n${body.replace(/^\n/, '')}`, mode)
}

/** A POSIX-shell single-quoted literal of `s`. */
function shq(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`
}

/** Shell snippet that prints `obj` as one JSON line. */
function echoJson(obj) {
  return `printf '%s\\n' ${shq(JSON.stringify(obj))}`
}

/**
 * Writes hook `event` into `dir` as the JavaScript program `source`, in the form this platform
 * runs (see hook-programs.js); returns the hook's path.
 */
function writeProgram(dir, event, source, options) {
  return programs.writeProgram(makeTempDir, dir, event, source, options)
}

// ---------------------------------------------------------------------------------------
// Waiting and processes.

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `predicate` (sync or async) every `intervalMs` until true; throws after `timeoutMs`. */
async function waitFor(predicate, { timeoutMs = 5000, intervalMs = 10, what = 'condition' } = {}) {
  const start = Date.now()
  for (;;) {
    if (await predicate()) return Date.now() - start
    if (Date.now() - start > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    }
    await delay(intervalMs)
  }
}

/** Waits for a file a hook writes; returns its trimmed contents. */
async function waitForFile(file, timeoutMs = 5000) {
  await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim() !== '', {
    timeoutMs,
    what: `file ${file}`,
  })
  return fs.readFileSync(file, 'utf8').trim()
}

/** Waits for a pid file a hook writes, tracks the pid for cleanup, and returns it. */
async function waitForPid(file, timeoutMs = 5000) {
  const pid = Number(await waitForFile(file, timeoutMs))
  return trackPid(pid)
}

/** Whether `pid` is a live process (a zombie counts as dead: PID 1 here may not reap). */
function isAlive(pid) {
  if (process.platform === 'linux') {
    let stat
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    } catch {
      return false
    }
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

/** Waits until `pid` is gone; returns whether it went within `timeoutMs`. */
async function waitDead(pid, timeoutMs = 3000) {
  try {
    await waitFor(() => !isAlive(pid), { timeoutMs, what: `process ${pid} to end` })
    return true
  } catch {
    return false
  }
}

let powerShellAnswer = null
/** Whether powershell.exe runs a script here (Wine's is a stub that runs none); asked once. */
function powerShellRunsScripts() {
  if (powerShellAnswer === null) {
    const r = require('child_process').spawnSync('powershell.exe', ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', 'Write-Output 42'], {
      encoding: 'utf8',
      timeout: 60000,
      windowsHide: true,
    })
    powerShellAnswer = r.status === 0 && String(r.stdout).trim() === '42'
  }
  return powerShellAnswer
}

/**
 * A copy of this process's environment with `changes` applied (an undefined value removes the
 * variable); names are compared without case, as Windows does, so `Path` is replaced by `PATH`
 * rather than kept beside it.
 */
function envWith(changes) {
  const env = { ...process.env }
  for (const [key, value] of Object.entries(changes)) {
    for (const existing of Object.keys(env)) {
      if (existing.toUpperCase() === key.toUpperCase()) delete env[existing]
    }
    if (value !== undefined) env[key] = value
  }
  return env
}

/**
 * envWith(`changes`), with the folder of this node first on PATH, as `npx cline-hooks` has it
 * (examples/windows' PreToolUse.cmd runs `node`).
 */
function cliEnv(changes = {}) {
  const pathKey = Object.keys(process.env).find((key) => key.toUpperCase() === 'PATH')
  const PATH = [path.dirname(process.execPath), pathKey && process.env[pathKey]].filter(Boolean).join(path.delimiter)
  return envWith({ PATH, ...changes })
}

/**
 * spawnSync of this node with `args`, as a test's second process. A process that never
 * started (Wine's CreateProcess fails now and then on shared cores: `output` is null) is
 * started again, up to three times, since nothing of the code under test ran; one that ran
 * is returned whatever it did. After three, it throws with the spawn error, so the failure
 * says what happened rather than comparing `null`.
 */
function nodeSync(args, options) {
  let out
  for (let attempt = 0; attempt < 3; attempt++) {
    out = spawnSync(process.execPath, args, options)
    if (out.output !== null) return out
  }
  throw new Error(`node ${args.slice(0, 2).join(' ')} did not start three times: ${out.error && out.error.message}`)
}

/** The live watchdog processes whose parent is `hostPid` (Linux). */
function watchdogsOf(hostPid) {
  const found = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(ppid) !== hostPid || state === 'Z') continue
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('cline-hooks-watchdog')) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/**
 * Asserts that a hook execution completed. When it did not, the failure says why (its
 * failure, warnings, exit code and the end of its stderr): a rare failure, as under Wine on
 * shared cores, must explain itself in the one run that shows it.
 */
function expectCompleted(execution) {
  if (execution.status === 'completed') return
  const { hookName, path: file, status, failure, failureKind, exitCode, signal, durationMs, warnings, stderr, output } = execution
  const why = { hookName, path: file, status, failure, failureKind, exitCode, signal, durationMs, warnings, stderr: String(stderr || '').slice(-2000), output }
  throw new Error(`expected the hook to complete, but it is ${status}: ${JSON.stringify(why, null, 2)}`)
}

/** Options that never let the real user's Documents folder leak in. */
function opts(extra = {}) {
  return { globalHooksDir: null, ...extra }
}

module.exports = {
  nodeSync,
  watchdogsOf,
  addon,
  isWindows,
  UNIX_ONLY_REASON,
  testUnix,
  describeUnix,
  testIf,
  makeTempDir,
  makeWorkspace,
  hooksDirOf,
  writeFile,
  writeHook,
  shq,
  echoJson,
  writeProgram,
  writeQuickHook: programs.writeQuickHook,
  writeQuickTreeHook: programs.writeQuickTreeHook,
  writeHookbotHook: programs.writeHookbotHook,
  quickHooksAvailable: programs.quickHooksAvailable,
  programHookName: programs.programHookName,
  printJson: programs.printJson,
  readInputThen: programs.readInputThen,
  writePidTo: programs.writePidTo,
  STAY_ALIVE: programs.STAY_ALIVE,
  waitFor,
  waitForFile,
  waitForPid,
  trackPid,
  isAlive,
  waitDead,
  powerShellRunsScripts,
  envWith,
  cliEnv,
  opts,
  expectCompleted,
}
