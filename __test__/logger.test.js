'use strict'

// Logging through `tracing`: setLogger routes the runtime's records to a JavaScript function at
// the level asked for, never throws into the host, never keeps it alive; CLINE_HOOKS_LOG prints
// them to stderr when no logger is set. The logger is one per process, so each test sets its own
// and the hooks are Node programs (hook-programs.js), run on Windows too.

const fs = require('fs')
const path = require('path')

const { addon, makeTempDir, makeWorkspace, hooksDirOf, writeProgram, waitFor, expectCompleted, envWith, nodeSync } = require('./helpers')

const { runHook, setLogger, HookFactory } = addon

const ADDON = path.join(__dirname, '..')
const ALLOW = `require('fs').writeSync(1, '{"cancel": false}\\n')\n`

afterEach(() => setLogger(null))

/** A workspace with a PreToolUse hook that allows; its options and the hook's path. */
function workspace() {
  const root = makeWorkspace()
  const hook = writeProgram(hooksDirOf(root), 'PreToolUse', ALLOW)
  return { hook, options: { workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null } }
}

/** A logger that keeps what it is given. */
function collector() {
  const records = []
  const log = (record) => records.push(record)
  log.records = records
  log.ran = () => records.filter((r) => r.message === 'run ended').length
  return log
}

test('at debug, a hook start comes with its argv, then its exit, each as { level, target, message, fields }', async () => {
  const { hook, options } = workspace()
  const log = collector()
  setLogger(log, { level: 'debug' })
  expectCompleted((await runHook('PreToolUse', {}, options)).hooks[0])
  await waitFor(() => log.ran() === 1, { timeoutMs: 20000, what: 'the run ended record' })
  const started = log.records.find((r) => r.message === 'hook started')
  expect(started).toMatchObject({ level: 'debug', target: 'cline_hooks_core::process::spawn' })
  expect(started.fields.hook).toBe(hook)
  expect(started.fields.argv).toContain(path.basename(hook))
  expect(typeof started.fields.pid).toBe('number')
  const ended = log.records.find((r) => r.message === 'hook ended')
  expect(ended.fields).toMatchObject({ hook, status: 'completed', exit_code: 0 })
  expect(log.records.find((r) => r.message === 'hook output read').fields).toMatchObject({ cancel: false, verdict: true })
  // Discovery said what it scanned.
  expect(log.records.some((r) => r.message === 'hooks folder scanned' && r.fields.folder === path.dirname(hook))).toBe(true)
  for (const r of log.records) {
    expect(Object.keys(r)).toEqual(['level', 'target', 'message', 'fields'])
    expect(['debug', 'info', 'warn', 'error']).toContain(r.level)
  }
}, 60000)

test('at trace, each discovery cache hit and miss; at error and at the default level, a normal run gives nothing', async () => {
  const { options } = workspace()
  const log = collector()
  setLogger(log, { level: 'trace' })
  const factory = new HookFactory(options)
  await factory.hasHook('PreToolUse') // a miss, then a rescan
  await factory.hasHook('PreToolUse') // a hit
  await waitFor(() => log.records.some((r) => r.message === 'discovery cache hit'), { what: 'a cache hit record' })
  expect(log.records.find((r) => r.message === 'discovery cache miss')).toMatchObject({ level: 'trace', fields: { hook: 'PreToolUse' } })

  for (const quiet of [{ level: 'error' }, undefined]) {
    const silent = collector()
    setLogger(silent, quiet)
    expectCompleted((await runHook('PreToolUse', {}, options)).hooks[0])
    // The same function at debug, then one more run: once its end arrives, anything the quiet
    // run had queued has been delivered before it.
    setLogger(silent, { level: 'debug' })
    expectCompleted((await runHook('PreToolUse', {}, options)).hooks[0])
    await waitFor(() => silent.ran() === 1, { timeoutMs: 20000, what: 'the debug run' })
    expect(silent.records.filter((r) => r.message === 'run started')).toHaveLength(1)
    expect(silent.records.filter((r) => r.level === 'error')).toEqual([])
  }
}, 60000)

test('null turns the logger off', async () => {
  const { options } = workspace()
  const off = collector()
  setLogger(off, { level: 'debug' })
  setLogger(null)
  expectCompleted((await runHook('PreToolUse', {}, options)).hooks[0])
  const next = collector()
  setLogger(next, { level: 'debug' })
  expectCompleted((await runHook('PreToolUse', {}, options)).hooks[0])
  await waitFor(() => next.ran() === 1, { timeoutMs: 20000, what: 'the second run' })
  expect(off.records).toEqual([])
}, 60000)

test('a logger that cannot keep up loses records, never the run, and is told how many it lost', async () => {
  const { options } = workspace()
  const log = collector()
  setLogger(log, { level: 'trace' })
  const factory = new HookFactory(options)
  await factory.hasHook('PreToolUse')
  // 5,000 cache hits while the JavaScript thread cannot take a record: the queue keeps 1,024.
  const calls = []
  for (let i = 0; i < 5000; i++) calls.push(factory.hasHook('PreToolUse'))
  expect(await Promise.all(calls)).toEqual(Array(5000).fill(true))
  await waitFor(() => log.records.length >= 1000, { what: 'the queued records' })
  // The next record after the queue drained brings the count of those dropped.
  await waitFor(
    async () => {
      await factory.hasHook('PreToolUse')
      return log.records.some((r) => r.fields.dropped > 0)
    },
    { timeoutMs: 20000, what: 'the dropped-records notice' },
  )
  const notice = log.records.find((r) => r.fields.dropped > 0)
  expect(notice.level).toBe('warn')
  expect(notice.message).toMatch(/^\d+ log records were dropped/)
  expect(log.records.filter((r) => r.message === 'discovery cache hit').length).toBeLessThan(5000)
}, 60000)

test('bad arguments throw ERR_INVALID_OPTION with the fix', () => {
  const thrown = (fn) => {
    try {
      fn()
    } catch (e) {
      return e
    }
    throw new Error('did not throw')
  }
  expect(thrown(() => setLogger('console'))).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_OPTION' })
  expect(thrown(() => setLogger(() => {}, { level: 'verbose' })).message).toMatch(/"verbose" is not a level; use 'error', 'warn', 'info', 'debug' or 'trace'/)
  expect(thrown(() => setLogger(() => {}, { levle: 'debug' })).message).toMatch(/unknown option "levle": .*the options of setLogger are level/)
  expect(thrown(() => setLogger(() => {}, { level: 4 })).code).toBe('ERR_INVALID_OPTION')
})

/** Runs `script` in a Node process of its own with `env` changes; its status, stdout and stderr. */
function host(script, env = {}) {
  const file = path.join(makeTempDir(), 'host.js')
  fs.writeFileSync(file, `const addon = require(${JSON.stringify(ADDON)})\n${script}`)
  const run = nodeSync([file], { env: envWith(env), encoding: 'utf8', timeout: 60000, windowsHide: true })
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr }
}

/** A host script that runs the hook of `options` and prints its status. */
function runScript(options, before = '') {
  return `${before}
addon.runHook('PreToolUse', {}, ${JSON.stringify(options)}).then((r) => console.log(r.hooks[0].status))\n`
}

test('a logger that throws breaks nothing, and a process with a logger set exits by itself', () => {
  const { options } = workspace()
  const throwing = host(runScript(options, `addon.setLogger(() => { throw new Error('logger boom') }, { level: 'debug' })`))
  expect(throwing).toMatchObject({ status: 0, signal: null, stdout: 'completed\n' })
  expect(throwing.stderr).not.toMatch(/logger boom/)

  // A logger left set: the process still ends on its own once the run is done.
  const kept = host(runScript(options, `let n = 0\naddon.setLogger(() => { n++ }, { level: 'trace' })\nprocess.on('exit', () => console.log(n > 0 ? 'logged' : 'nothing logged'))`))
  expect(kept).toMatchObject({ status: 0, signal: null, stdout: 'completed\nlogged\n' })
}, 60000)

test('CLINE_HOOKS_LOG=debug prints the records to stderr when no logger is set, and nothing without it', () => {
  const { hook, options } = workspace()
  const loud = host(runScript(options), { CLINE_HOOKS_LOG: 'debug' })
  expect(loud).toMatchObject({ status: 0, stdout: 'completed\n' })
  const started = loud.stderr.split('\n').find((line) => / DEBUG cline_hooks_core::process::spawn: hook started /.test(line))
  expect(started).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /)
  expect(started).toContain(JSON.stringify(hook))
  expect(loud.stderr).toMatch(/ DEBUG cline_hooks_core::event::runner: run ended /)

  const quiet = host(runScript(options), { CLINE_HOOKS_LOG: undefined })
  expect(quiet).toMatchObject({ status: 0, stdout: 'completed\n', stderr: '' })

  // A logger takes the records instead of stderr.
  const taken = host(runScript(options, `addon.setLogger(() => {}, { level: 'debug' })`), { CLINE_HOOKS_LOG: 'debug' })
  expect(taken).toMatchObject({ status: 0, stdout: 'completed\n', stderr: '' })

  const bad = host(runScript(options), { CLINE_HOOKS_LOG: 'verbose' })
  expect(bad.stderr).toBe('@cline/hooks: CLINE_HOOKS_LOG="verbose" is not a log level; use error, warn, info, debug or trace\n')
}, 60000)
