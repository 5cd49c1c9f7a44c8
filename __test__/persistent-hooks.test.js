'use strict'

// Persistent hooks (`cline-hook: mode=persistent`) through the real addon, as a user checks
// them: one process answering a thousand events, its timeout (tree stopped, a fresh process
// next), a crash loop (disabled after 3, enabled again by a file change), a file change (EOF to
// the old process, a new one), the idle stop, terminateAll(), a host that exits or dies and a
// worker thread that is torn down (nothing left behind), log lines before the answer, a `{`
// line that is not JSON, a hook that never reads its stdin, the failure policy, serveHook and
// the examples end to end, and concurrent runs against one process. The hooks are Node programs
// written with their header (see hook-programs.js), so all but the POSIX-signal and #!-example
// cases run on Windows too.

const fs = require('fs')
const path = require('path')
const { spawn, execFileSync, spawnSync } = require('child_process')
const { Worker } = require('worker_threads')

const {
  addon,
  isWindows,
  describeUnix,
  testIf,
  makeWorkspace,
  makeTempDir,
  hooksDirOf,
  writeProgram,
  readInputThen,
  writePidTo,
  STAY_ALIVE,
  waitForFile,
  trackPid,
  isAlive,
  waitDead,
  opts,
  expectCompleted,
  waitFor,
  nodeSync,
} = require('./helpers')

const { runHook, discoverHooks, HookFactory, terminateAll } = addon

const ROOT = path.resolve(__dirname, '..')
const EXAMPLES = path.join(ROOT, 'examples', 'persistent')
// The package as a project gets it: the repository itself, or under test:package the installed
// copy (the tests then run in a project of their own, beside its node_modules).
const PACKAGE_DIR = path.dirname(require.resolve('@cline/hooks/package.json', { paths: [ROOT] }))
const SERVE_JS = require.resolve('@cline/hooks/serve', { paths: [ROOT] })
const q = JSON.stringify

/** How long a hook may take to start and answer: a Node program under Wine or load takes seconds. */
const START_MS = isWindows ? 60000 : 30000
/** How long a stopped process may take to be gone where the product promises no figure. */
const GONE_MS = isWindows ? 30000 : 15000
/** A short timeout for an event that is never answered (the process is running already). */
const SHORT_MS = isWindows ? 5000 : 1500
/** What the issue promises for a host that exits or dies: every hook process gone within 2 s. */
const HOST_DEATH_MS = 2000

const hasJq = !isWindows && spawnSync('jq', ['--version'], { stdio: 'ignore' }).status === 0

/**
 * A persistent hook program: it reads events line by line and, for each, runs `onEvent` with
 * `event` (the parsed line), `count` (its own count of events) and `answer(obj)` (prints `obj`
 * as one JSON line, synchronously). By default it answers with its pid, count, the
 * CLINE_HOOK_MODE it sees and the event's `id`. At EOF it runs `onEof`, then exits 0.
 */
function persistentProgram({ onEvent = 'answer(said())', onEof = '', setup = '' } = {}) {
  return `const fs = require('fs')
let count = 0
const answer = (obj) => fs.writeSync(1, JSON.stringify(obj) + '\\n')
const log = (text) => fs.writeSync(2, text + '\\n')
let event = null
const said = () => ({ contextModification: [process.pid, count, process.env.CLINE_HOOK_MODE || '-', event.id].join(':') })
${setup}
require('readline')
  .createInterface({ input: process.stdin })
  .on('line', (line) => {
    count += 1
    event = JSON.parse(line)
    ${onEvent}
  })
  .on('close', () => {
    ${onEof}
    process.exit(0)
  })
`
}

/** A workspace with one persistent PreToolUse hook running `program`; `header` adds settings. */
function persistentHook(program, { header = '', event = 'PreToolUse' } = {}) {
  const root = makeWorkspace()
  const hook = writeProgram(hooksDirOf(root), event, program, { header: `mode=persistent ${header}`.trim() })
  return { root, hook, options: (extra = {}) => opts({ workspaceRoots: [root], timeoutMs: START_MS, ...extra }) }
}

/** The fields of a default answer (see persistentProgram), the execution having completed. */
function said(result) {
  expect(result.hooks).toHaveLength(1)
  expectCompleted(result.hooks[0])
  const [pid, count, mode, id] = result.hooks[0].contextModification.split(':')
  return { pid: trackPid(Number(pid)), count: Number(count), mode, id }
}

/** The one execution of a run of one hook. */
function only(result) {
  expect(result.hooks).toHaveLength(1)
  return result.hooks[0]
}

/**
 * A program block that starts a child Node process, deaf to SIGTERM, outside the hook's own
 * job object on Windows (as host-death.test.js does: Node puts a child it starts otherwise in a
 * job of its own that kills on close), and calls `then(child)` once it runs (it says so with a
 * file named after its pid in a fresh folder: node.exe under Wine cannot write to a pipe).
 */
function spawnDeafChild(then) {
  const ready = makeTempDir()
  const child = `process.on('SIGTERM', () => {}); require('fs').writeFileSync(require('path').join(${q(ready)}, String(process.pid)), ''); setInterval(() => {}, 1 << 30)`
  return `{
    const c = require('child_process').spawn(process.execPath, ['-e', ${q(child)}], {
      stdio: 'ignore', windowsHide: true, detached: process.platform === 'win32',
    })
    const poll = setInterval(() => {
      if (!fs.existsSync(require('path').join(${q(ready)}, String(c.pid)))) return
      clearInterval(poll)
      ;(${then})(c)
    }, 10)
  }`
}

/**
 * For a hook that logs a line on stderr during an event and then answers: on Windows the answer
 * waits until the runtime has read that line. The runtime takes with an answer what it has
 * read of the hook's stderr by then; on Linux and macOS one poller watches both pipes, so a line
 * written before the answer is there in practice, but on Windows tokio reads each pipe on a
 * blocking thread of its own, so a line written just before the answer can still be on its way
 * when the answer is read (under Wine, 1 run in 3: see the README's limits).
 * The signal: the test's `onEvent` sees the stderr line (the runtime read it during the event)
 * and calls `seen(name)`, which creates a file; `setup` (for persistentProgram) defines
 * `whenStderrSeen(name, then)`, which runs `then` once that file exists (at once off Windows).
 * A file, because node.exe under Wine cannot write to a pipe.
 */
function stderrSeenSignal() {
  const dir = makeTempDir()
  return {
    setup: `const whenStderrSeen = (name, then) => {
  if (process.platform !== 'win32') return then()
  const file = require('path').join(${q(dir)}, name)
  const poll = setInterval(() => {
    if (!fs.existsSync(file)) return
    clearInterval(poll)
    then()
  }, 10)
}`,
    seen: (name) => fs.writeFileSync(path.join(dir, name), ''),
  }
}

/**
 * Runs the Node program `script` as a host to its end and returns what it printed (stdout and
 * stderr, through a file: node.exe under Wine cannot write to a pipe).
 */
function runHost(script, { env = process.env, timeout }) {
  const file = path.join(makeTempDir(), 'host-output')
  const out = fs.openSync(file, 'w')
  try {
    nodeSync(['-e', script], { stdio: ['ignore', out, out], env, timeout, windowsHide: true })
  } finally {
    fs.closeSync(out)
  }
  return fs.readFileSync(file, 'utf8')
}

afterAll(async () => {
  await terminateAll()
})

describe('one process answers event after event', () => {
  test('1,000 events through runHook: one pid, its count 1..1000, every event completed, CLINE_HOOK_MODE=persistent', async () => {
    const { options } = persistentHook(persistentProgram())
    const first = said(await runHook('PreToolUse', { id: 'e1' }, options()))
    expect(first).toEqual({ pid: first.pid, count: 1, mode: 'persistent', id: 'e1' })
    for (let n = 2; n <= 1000; n++) {
      const answer = said(await runHook('PreToolUse', { id: `e${n}` }, options()))
      // One comparison per event, so a failure names the event.
      if (answer.pid !== first.pid || answer.count !== n || answer.id !== `e${n}` || answer.mode !== 'persistent') {
        expect({ n, ...answer }).toEqual({ n, pid: first.pid, count: n, mode: 'persistent', id: `e${n}` })
      }
    }
    expect(isAlive(first.pid)).toBe(true)
  }, 240000)

  test('a per-event hook is not told CLINE_HOOK_MODE=persistent', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'TaskStart', readInputThen(`require('fs').writeSync(1, JSON.stringify({ contextModification: process.env.CLINE_HOOK_MODE || '-' }) + '\\n')`))
    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [root], timeoutMs: START_MS }))
    expectCompleted(only(result))
    expect(result.contextModification).toBe('-')
  })

  test("a per-event hook is not told persistent even when the host's own environment says CLINE_HOOK_MODE=persistent", async () => {
    // A host started from a persistent hook (a script that runs `cline-hooks run`, a nested
    // agent) inherits the variable; a per-event hook that reads it as its mode would wait for
    // lines that are not its protocol.
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'TaskStart', readInputThen(`require('fs').writeSync(1, JSON.stringify({ contextModification: process.env.CLINE_HOOK_MODE || '-' }) + '\\n')`))
    const script = `require(${q(ROOT)}).runHook('TaskStart', {}, { globalHooksDir: null, workspaceRoots: [${q(root)}], timeoutMs: ${START_MS} })
      .then((r) => process.stdout.write(JSON.stringify({ status: r.hooks[0].status, mode: r.contextModification })))`
    const { status, mode } = JSON.parse(runHost(script, { env: { ...process.env, CLINE_HOOK_MODE: 'persistent' }, timeout: START_MS * 2 }))
    expect(status).toBe('completed')
    expect(mode).not.toBe('persistent')
  }, 120000)

  test('8 concurrent runs against one persistent hook, cold and then warm: each gets the answer to its own event; the process holds one event at a time, and an event that finds it busy runs per event', async () => {
    // Each event is answered 30 ms later; the hook notes how many it holds at once, and at
    // EOF answers the event in hand before it exits (as a hook run per event must).
    const program = `const fs = require('fs')
let inFlight = 0, most = 0, count = 0, closed = false
const done = () => { if (closed && inFlight === 0) process.exit(0) }
require('readline').createInterface({ input: process.stdin })
  .on('line', (line) => {
    const event = JSON.parse(line)
    count += 1
    inFlight += 1
    most = Math.max(most, inFlight)
    const mine = [process.pid, count, process.env.CLINE_HOOK_MODE || '-', event.id].join(':')
    setTimeout(() => {
      inFlight -= 1
      fs.writeSync(1, JSON.stringify({ contextModification: mine + ':' + most }) + '\\n')
      done()
    }, 30)
  })
  .on('close', () => { closed = true; done() })
`
    const { options } = persistentHook(program)
    const persistentPids = new Set()
    let perEvent = 0
    for (const batch of ['cold', 'warm']) {
      const ids = Array.from({ length: 8 }, (_, i) => `${batch}-${i}`)
      const results = await Promise.all(ids.map((id) => runHook('PreToolUse', { id }, options())))
      results.forEach((result, i) => {
        const answer = said(result)
        expect(answer.id).toBe(ids[i])
        // The 5th field: the most events its process ever held at once.
        expect(result.contextModification.split(':')[4]).toBe('1')
        if (answer.mode === 'persistent') persistentPids.add(answer.pid)
        else perEvent += 1
      })
    }
    expect(persistentPids.size).toBe(1)
    expect(perEvent).toBeGreaterThan(0)
  }, 120000)

  test('one process per hook file and working directory: a global hook used from two workspaces runs twice, each in its own', async () => {
    const global = makeTempDir()
    writeProgram(global, 'PreToolUse', persistentProgram({ onEvent: "answer({ contextModification: process.pid + '|' + process.cwd() })" }), { header: 'mode=persistent' })
    const [a, b] = [makeWorkspace(), makeWorkspace()]
    const run = async (root) => {
      const result = await runHook('PreToolUse', {}, { globalHooksDir: global, workspaceRoots: [root], timeoutMs: START_MS })
      expectCompleted(only(result))
      const [pid, cwd] = result.contextModification.split('|')
      return { pid: trackPid(Number(pid)), cwd: fs.realpathSync(cwd) }
    }
    const inA = await run(a)
    const inB = await run(b)
    expect(inA.cwd).toBe(a)
    expect(inB.cwd).toBe(b)
    expect(inB.pid).not.toBe(inA.pid)
    expect(await run(a)).toEqual(inA)
  }, 120000)
})

describe('its timeout', () => {
  test('an event it never answers is timedOut, its tree (hook and a child deaf to SIGTERM) is stopped, and the next event gets a fresh process', async () => {
    // Its first event starts the child and answers once the child runs; an event with
    // `hang` is never answered. Only the `warm` event starts one: the fresh process that
    // answers `next` starts nothing, so what the test leaves running is the runtime's alone to
    // stop (a child it started and never learnt of would be left to afterEach, which on Windows
    // cannot stop what it does not know of).
    const { options } = persistentHook(
      persistentProgram({
        setup: 'let childPid = 0',
        onEvent: `if (event.hang) return
    if (event.id === 'warm') {
      ${spawnDeafChild("(c) => { childPid = c.pid; answer({ contextModification: said().contextModification + ':' + childPid }) }")}
    } else answer(said())`,
      }),
    )
    const warm = await runHook('PreToolUse', { id: 'warm' }, options())
    const first = said(warm)
    const childPid = trackPid(Number(warm.contextModification.split(':')[4]))
    expect(isAlive(childPid)).toBe(true)

    const started = Date.now()
    const hung = only(await runHook('PreToolUse', { id: 'hang', hang: true }, options({ timeoutMs: SHORT_MS })))
    expect(hung).toEqual(expect.objectContaining({ status: 'timedOut', failureKind: 'timedOut', timeoutMs: SHORT_MS, started: true }))
    expect(hung.failure).toMatch(new RegExp(`^did not finish within ${SHORT_MS} ms, so its process tree was stopped`))
    expect(hung.warnings).toContain("its persistent process tree was stopped at the event's timeout; the next event starts a fresh process")
    // It says how it ended: SIGTERM (or SIGKILL, for a tree deaf to it); Windows has no signals.
    if (!isWindows) expect(hung.signal).toMatch(/^SIG(TERM|KILL)/)
    expect(Date.now() - started).toBeLessThan(SHORT_MS + GONE_MS)
    expect(await waitDead(first.pid, GONE_MS)).toBe(true)
    expect(await waitDead(childPid, GONE_MS)).toBe(true)

    const next = said(await runHook('PreToolUse', { id: 'next' }, options()))
    expect(next.pid).not.toBe(first.pid)
    expect(next.count).toBe(1)
    expect(next.id).toBe('next')
  }, 180000)

  test('a hook that never reads its stdin, given several MiB: the event times out, the JavaScript thread is never blocked, the process is gone after', async () => {
    const pidFile = path.join(makeTempDir(), 'pid')
    const { options } = persistentHook(`${writePidTo(pidFile)}${STAY_ALIVE}`)
    // Under Wine the process alone takes seconds to start: there it gets more time.
    const timeoutMs = isWindows ? 20000 : SHORT_MS
    const input = { id: 'big', blob: 'x'.repeat(8 << 20) }
    let ticks = 0
    let last = Date.now()
    let longestGap = 0
    const ticker = setInterval(() => {
      const now = Date.now()
      longestGap = Math.max(longestGap, now - last)
      last = now
      ticks += 1
    }, 20)
    let result
    try {
      result = await runHook('PreToolUse', input, options({ timeoutMs }))
    } finally {
      clearInterval(ticker)
    }
    const execution = only(result)
    expect(execution).toEqual(expect.objectContaining({ status: 'timedOut', failureKind: 'timedOut' }))
    // A thread blocked on the full pipe would show one gap as long as the whole timeout.
    expect(longestGap).toBeLessThan(Math.min(1000, timeoutMs / 2))
    expect(ticks).toBeGreaterThanOrEqual(10)
    const pid = trackPid(Number(await waitForFile(pidFile, START_MS)))
    expect(await waitDead(pid, GONE_MS)).toBe(true)
  }, 120000)
})

describe('a crash loop', () => {
  // A gate that blocks every event, and crashes on the ones the model shapes to crash it.
  const GATE = persistentProgram({
    onEvent: "if (event.crash) { log('cannot connect to the linter daemon'); process.exit(3) } answer({ cancel: true, errorMessage: 'blocked:' + (process.env.CLINE_HOOK_MODE || '-') })",
  })

  test('3 crashes make it run per event with the reason and its last stderr lines: the gate keeps blocking, listed enabled; a file change makes it persistent again', async () => {
    const { root, hook, options } = persistentHook(GATE)
    const factory = new HookFactory(opts({ workspaceRoots: [root] }))
    const before = await factory.create('PreToolUse')
    for (let attempt = 1; attempt <= 3; attempt++) {
      const crashed = only(await runHook('PreToolUse', { id: `c${attempt}`, crash: true }, options()))
      expect(crashed).toEqual(expect.objectContaining({ status: 'failed', failureKind: 'crash', exitCode: 3, started: true }))
      expect(crashed.failure).toMatch(/^exited with code 3 \(stderr: cannot connect to the linter daemon\)/)
      expect(crashed.warnings.some((w) => w.includes('so from now on it runs per event'))).toBe(attempt === 3)
      expect(crashed.stderr).toContain('cannot connect to the linter daemon')
    }

    const [listed] = await discoverHooks('PreToolUse', opts({ workspaceRoots: [root] }))
    expect(listed.enabled).toBe(true)
    const reason = listed.warnings.find((w) => w.startsWith('its persistent process crashed 3 times within 60 s, so it runs per event'))
    expect(reason).toMatch(/Its last stderr lines:\ncannot connect to the linter daemon$/)
    expect(await factory.hasHook('PreToolUse')).toBe(true)

    // The model cannot switch the gate off: the next events are decided by the same file,
    // per event (a process each, without CLINE_HOOK_MODE), through runHook and a runner made
    // before the crashes.
    for (const result of [await runHook('PreToolUse', { id: 'c4' }, options()), await before.run({ id: 'c5' }, { timeoutMs: START_MS })]) {
      expect(result.cancel).toBe(true)
      expect(result.hooks).toEqual([expect.objectContaining({ path: hook, status: 'completed', started: true, cancel: true, errorMessage: 'blocked:-' })])
      expect(result.hooks[0].warnings).toContain(reason)
    }

    // Fixed: persistent again.
    writeProgram(hooksDirOf(root), 'PreToolUse', persistentProgram(), { header: 'mode=persistent' })
    const fixed = said(await runHook('PreToolUse', { id: 'fixed' }, options()))
    expect(fixed.id).toBe('fixed')
    expect(fixed.mode).toBe('persistent')
    const [again] = await discoverHooks('PreToolUse', opts({ workspaceRoots: [root] }))
    expect(again.enabled).toBe(true)
    expect(again.warnings).toEqual([])
  }, 180000)
})

describe('a changed file', () => {
  test('editing the hook file restarts it: the old process gets EOF and ends, the event runs on the new version, which is kept', async () => {
    const eofDir = makeTempDir()
    const version = (v) =>
      persistentProgram({
        onEvent: `answer({ contextModification: said().contextModification + ':${v}' })`,
        onEof: `fs.writeFileSync(require('path').join(${q(eofDir)}, String(process.pid)), 'eof')`,
      })
    const { root, options } = persistentHook(version('v1'))
    const one = await runHook('PreToolUse', { id: 'a' }, options())
    const old = said(one)
    expect(one.contextModification.split(':')[4]).toBe('v1')

    writeProgram(hooksDirOf(root), 'PreToolUse', version('v22'), { header: 'mode=persistent' })
    const two = await runHook('PreToolUse', { id: 'b' }, options())
    const fresh = said(two)
    expect(two.contextModification.split(':')[4]).toBe('v22')
    expect(fresh.pid).not.toBe(old.pid)
    expect(fresh.count).toBe(1)

    // The old process read EOF (it says so in a file named after its pid) and ended.
    expect(await waitForFile(path.join(eofDir, String(old.pid)), GONE_MS)).toBe('eof')
    expect(await waitDead(old.pid, GONE_MS)).toBe(true)
    // The new one is kept for the next events.
    const three = said(await runHook('PreToolUse', { id: 'c' }, options()))
    expect({ pid: three.pid, count: three.count }).toEqual({ pid: fresh.pid, count: 2 })
  }, 120000)

  test('an old process that ignores EOF is stopped (the issue: 1 s after EOF)', async () => {
    const { root, options } = persistentHook(persistentProgram({ onEof: STAY_ALIVE.replace(/\n$/, '; return') }))
    const old = said(await runHook('PreToolUse', { id: 'a' }, options()))
    writeProgram(hooksDirOf(root), 'PreToolUse', `// v2\n${persistentProgram()}`, { header: 'mode=persistent' })
    const fresh = said(await runHook('PreToolUse', { id: 'b' }, options()))
    expect(fresh.pid).not.toBe(old.pid)
    expect(await waitDead(old.pid, GONE_MS)).toBe(true)
  }, 120000)
})

describe('stopping idle processes', () => {
  test('persistentIdleMs: 300 retires an idle process (EOF first), and the next event starts a new one', async () => {
    const eofFile = path.join(makeTempDir(), 'eof')
    const { options } = persistentHook(persistentProgram({ onEof: `fs.writeFileSync(${q(eofFile)}, String(process.pid))` }))
    const first = said(await runHook('PreToolUse', { id: 'a' }, options({ persistentIdleMs: 300 })))
    expect(await waitDead(first.pid, GONE_MS)).toBe(true)
    expect(Number(await waitForFile(eofFile, GONE_MS))).toBe(first.pid)
    const next = said(await runHook('PreToolUse', { id: 'b' }, options({ persistentIdleMs: 300 })))
    expect(next.pid).not.toBe(first.pid)
    expect(next.count).toBe(1)
  }, 120000)

  test("a HookFactory's persistentIdleMs reaches its runners", async () => {
    const { root } = persistentHook(persistentProgram())
    const runner = await new HookFactory(opts({ workspaceRoots: [root], persistentIdleMs: 300 })).create('PreToolUse')
    const first = said(await runner.run({ id: 'a' }, { timeoutMs: START_MS }))
    expect(await waitDead(first.pid, GONE_MS)).toBe(true)
  }, 120000)

  test('terminateAll() stops an idle persistent process and counts it; the next event simply starts it again', async () => {
    const { options } = persistentHook(persistentProgram())
    const first = said(await runHook('PreToolUse', { id: 'a' }, options()))
    expect(isAlive(first.pid)).toBe(true)
    expect(await terminateAll()).toBeGreaterThanOrEqual(1)
    expect(await waitDead(first.pid, GONE_MS)).toBe(true)
    const next = said(await runHook('PreToolUse', { id: 'b' }, options()))
    expect(next.pid).not.toBe(first.pid)
    expect(only(await runHook('PreToolUse', { id: 'c' }, options())).warnings).toEqual([])
  }, 120000)
})

// ---------------------------------------------------------------------------------------
// Hosts that end: a child Node process runs one persistent event, writes what the hook
// answered (its pid and its child's) to a file, then ends as each case says.

/**
 * A hook folder with a persistent TaskStart hook that, on its first event, starts a child deaf
 * to SIGTERM and answers `<pid>:<child pid>`.
 */
function forkingPersistentHook() {
  const dir = path.join(makeTempDir(), 'hooks')
  writeProgram(
    dir,
    'TaskStart',
    persistentProgram({
      onEvent: spawnDeafChild("(c) => answer({ contextModification: process.pid + ':' + c.pid })"),
    }),
    { header: 'mode=persistent' },
  )
  return dir
}

/**
 * Starts a host that runs one event of the hooks in `dir`, writes the answer to `answerFile`,
 * then runs `then` (a statement). Its output goes to a file (node.exe under Wine cannot write to
 * a pipe). Resolves `ended` with its exit code, signal, output and when it ended.
 */
function startHost(dir, then) {
  const tmp = makeTempDir()
  const answerFile = path.join(tmp, 'answer')
  const script = `
    const fs = require('fs')
    require(${q(ROOT)}).runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${q(dir)}], timeoutMs: ${START_MS} })
      .then((r) => {
        fs.writeFileSync(${q(answerFile)}, r.hooks[0].status === 'completed' ? r.contextModification : JSON.stringify(r))
        ${then}
      })`
  const outFile = path.join(tmp, 'host-output')
  const out = fs.openSync(outFile, 'w')
  const host = spawn(process.execPath, ['-e', script], { stdio: ['ignore', out, out], detached: !isWindows })
  fs.closeSync(out)
  trackPid(host.pid)
  const ended = new Promise((resolve) =>
    host.on('exit', (code, signal) => resolve({ code, signal, at: Date.now(), output: fs.readFileSync(outFile, 'utf8') })),
  )
  const answered = async () => {
    const text = await waitForFile(answerFile, START_MS)
    const [pid, child] = text.split(':').map(Number)
    if (!(pid > 0 && child > 0)) throw new Error(`the host's hook did not answer as expected: ${text}`)
    return { pids: [trackPid(pid), trackPid(child)], at: Date.now() }
  }
  return { host, ended, answered }
}

/** The pids of `pids` still running after waiting up to `ms` for each in turn from now. */
async function survivors(pids, ms) {
  const deadline = Date.now() + ms
  const left = []
  for (const pid of pids) if (!(await waitDead(pid, Math.max(0, deadline - Date.now())))) left.push(pid)
  return left
}

describe('a host that ends leaves no persistent process behind', () => {
  test('a host with nothing else to do exits at once after its event (the idle process does not keep Node alive), and the process is gone within 2 s', async () => {
    const { ended, answered } = startHost(forkingPersistentHook(), '')
    const { pids, at } = await answered()
    const end = await ended
    expect({ code: end.code, signal: end.signal, output: end.output }).toEqual({ code: 0, signal: null, output: '' })
    // Well under the default idle time of 5 minutes; generous for a loaded machine.
    expect(end.at - at).toBeLessThan(isWindows ? 20000 : 10000)
    expect(await survivors(pids, HOST_DEATH_MS)).toEqual([])
  }, 120000)

  test('a host that calls process.exit() while its persistent process idles: the process and its child are gone within 2 s', async () => {
    const { ended, answered } = startHost(forkingPersistentHook(), 'setTimeout(() => process.exit(3), 100); setInterval(() => {}, 1000)')
    const { pids } = await answered()
    const end = await ended
    expect({ code: end.code, signal: end.signal }).toEqual({ code: 3, signal: null })
    expect(await survivors(pids, HOST_DEATH_MS)).toEqual([])
  }, 120000)

  test("a host killed by SIGKILL (TerminateProcess on Windows) while its persistent process idles: the process and its child are gone within 2 s", async () => {
    const { host, ended, answered } = startHost(forkingPersistentHook(), 'setInterval(() => {}, 1000)')
    const { pids } = await answered()
    for (const pid of pids) expect(isAlive(pid)).toBe(true)
    host.kill('SIGKILL')
    const end = await ended
    expect(end.signal).toBe('SIGKILL')
    expect(await survivors(pids, HOST_DEATH_MS)).toEqual([])
  }, 120000)
})

describeUnix(
  'a host that dies of a POSIX signal leaves no persistent process behind',
  () => {
    test.each(['SIGTERM', 'SIGINT', 'SIGHUP'])(
      'host killed by %s while its persistent process idles: the process and its child are gone within 2 s, and the host died of the signal',
      async (signal) => {
        const { host, ended, answered } = startHost(forkingPersistentHook(), 'setInterval(() => {}, 1000)')
        const { pids } = await answered()
        for (const pid of pids) expect(isAlive(pid)).toBe(true)
        host.kill(signal)
        const end = await ended
        expect({ code: end.code, signal: end.signal, output: end.output }).toEqual({ code: null, signal, output: '' })
        expect(await survivors(pids, HOST_DEATH_MS)).toEqual([])
      },
      120000,
    )
  },
  { reason: 'POSIX signals to the host are a Unix rule' },
)

describe('a worker thread that used a persistent hook', () => {
  /** A worker that runs one event of `dir`'s hook, posts the answer, then runs `then`. */
  function startWorker(dir, then) {
    const source = `
      const { parentPort } = require('worker_threads')
      require(${q(ROOT)}).runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${q(dir)}], timeoutMs: ${START_MS} })
        .then((r) => { parentPort.postMessage(r.hooks[0].status === 'completed' ? r.contextModification : JSON.stringify(r)); ${then} })`
    const worker = new Worker(source, { eval: true })
    const exited = new Promise((resolve) => worker.on('exit', resolve))
    const answer = new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    return { worker, exited, answer }
  }

  const pidsOf = (answer) => {
    const pids = String(answer).split(':').map(Number)
    expect(pids.every((pid) => pid > 0)).toBe(true)
    return pids.map(trackPid)
  }

  test('terminated: its persistent process and the child it started stop', async () => {
    const { worker, exited, answer } = startWorker(forkingPersistentHook(), 'setInterval(() => {}, 1000)')
    const pids = pidsOf(await answer)
    for (const pid of pids) expect(isAlive(pid)).toBe(true)
    await worker.terminate()
    await exited
    expect(await survivors(pids, GONE_MS)).toEqual([])
  }, 120000)

  test('ending on its own with nothing else to do: it ends at once, and its persistent process stops', async () => {
    const { exited, answer } = startWorker(forkingPersistentHook(), '')
    const pids = pidsOf(await answer)
    const answeredAt = Date.now()
    expect(await exited).toBe(0)
    expect(Date.now() - answeredAt).toBeLessThan(isWindows ? 20000 : 10000)
    expect(await survivors(pids, GONE_MS)).toEqual([])
  }, 120000)
})

describe('what it prints', () => {
  test('log lines before the answer are kept as its log, the answer is read, and what it prints on stderr during an event is that event\'s stderr', async () => {
    const stderrSeen = stderrSeenSignal()
    const { options } = persistentHook(
      persistentProgram({
        onEvent: `fs.writeSync(1, 'checking event ' + count + '\\n')
    fs.writeSync(1, 'value: {not json, just log\\n')
    fs.writeSync(1, '[1, 2]\\n')
    fs.writeSync(1, '42\\n')
    log('on stderr ' + count)
    const answering = said().contextModification
    whenStderrSeen('e' + count, () => answer({ cancel: true, errorMessage: 'no writes today ' + count, contextModification: answering }))`,
        setup: stderrSeen.setup,
      }),
    )
    let pid = null
    for (const n of [1, 2, 3]) {
      const lines = { stdout: [], stderr: [] }
      const result = await runHook('PreToolUse', { id: `e${n}` }, options({
        onEvent: (event) => {
          if (event.type === 'stdout' || event.type === 'stderr') lines[event.type].push(event.line)
          if (event.type === 'stderr') stderrSeen.seen(`e${n}`)
        },
      }))
      const execution = only(result)
      const answer = said(result)
      pid = pid ?? answer.pid
      expect(answer.pid).toBe(pid)
      expect({ cancel: result.cancel, errorMessage: result.errorMessage }).toEqual({ cancel: true, errorMessage: `no writes today ${n}` })
      expect(execution.output).toEqual(expect.objectContaining({ cancel: true, errorMessage: `no writes today ${n}` }))
      expect(lines.stdout.slice(0, 4)).toEqual([`checking event ${n}`, 'value: {not json, just log', '[1, 2]', '42'])
      expect(lines.stdout).toHaveLength(5)
      expect(JSON.parse(lines.stdout[4])).toEqual(execution.output)
      expect(execution.stderr).toBe(`on stderr ${n}\n`)
      expect(lines.stderr).toEqual([`on stderr ${n}`])
    }
  }, 120000)

  test('a line that starts with `{` but is not JSON is decided as the same output per event, and the same process answers the next', async () => {
    const stderrSeen = stderrSeenSignal()
    const { options } = persistentHook(
      persistentProgram({
        setup: stderrSeen.setup,
        onEvent: "if (event.broken) { log('pid ' + process.pid); whenStderrSeen(event.id, () => fs.writeSync(1, '{oops this is not json\\n')) } else answer(said())",
      }),
    )
    const first = said(await runHook('PreToolUse', { id: 'a' }, options()))
    const broken = only(await runHook('PreToolUse', { id: 'b', broken: true }, options({
      onEvent: (event) => {
        if (event.type === 'stderr') stderrSeen.seen('b')
      },
    })))
    expect(broken.started).toBe(true)
    expect(broken.stderr).toBe(`pid ${first.pid}\n`)
    const next = said(await runHook('PreToolUse', { id: 'c' }, options()))
    expect(next).toEqual({ pid: first.pid, count: 3, mode: 'persistent', id: 'c' })
    // Decided as the same output per event (run last: a run of other hooks retires this
    // host's persistent processes).
    const perEventRoot = makeWorkspace()
    writeProgram(hooksDirOf(perEventRoot), 'PreToolUse', "require('fs').writeSync(1, '{oops this is not json\\n')")
    const perEvent = only(await runHook('PreToolUse', { id: 'b' }, opts({ workspaceRoots: [perEventRoot], timeoutMs: START_MS })))
    const decided = ({ status, cancel, failureKind, failure }) => ({ status, cancel, failureKind, failure })
    expect(decided(broken)).toEqual(decided(perEvent))
  }, 120000)
})

describe('the failure policy applies to persistent hooks', () => {
  const CRASHING = persistentProgram({ onEvent: "log('boom'); process.exit(3)" })

  test("onFailure: 'block': a crash and a timeout of a persistent hook cancel", async () => {
    const { options } = persistentHook(CRASHING)
    const crashed = await runHook('PreToolUse', {}, options({ onFailure: 'block' }))
    expect(crashed.cancel).toBe(true)
    expect(crashed.errorMessage).toBe('PreToolUse (workspace) exited with code 3; blocking because onFailure.crash is "block"')

    const hanging = persistentHook(persistentProgram({ onEvent: 'if (!event.hang) answer(said())' }))
    said(await runHook('PreToolUse', { id: 'warm' }, hanging.options()))
    const timedOut = await runHook('PreToolUse', { hang: true }, hanging.options({ onFailure: { timeout: 'block' }, timeoutMs: SHORT_MS }))
    expect(only(timedOut).status).toBe('timedOut')
    expect(timedOut.cancel).toBe(true)
    expect(timedOut.errorMessage).toMatch(/^PreToolUse \(workspace\) timed out after .*; blocking because onFailure.timedOut is "block"$/)
  }, 120000)

  test('header onFailure=block: a crash of a persistent hook cancels', async () => {
    const { options } = persistentHook(CRASHING, { header: 'onFailure=block' })
    const crashed = await runHook('PreToolUse', {}, options())
    expect(crashed.cancel).toBe(true)
    expect(crashed.errorMessage).toBe('PreToolUse (workspace) exited with code 3; blocking because onFailure.crash is "block"')
  }, 120000)

  test.each([
    ['the run', {}, { onFailure: 'block' }],
    ['its header', { header: 'onFailure=block' }, {}],
  ])('a blocking guard (onFailure=block from %s) that crash-loops keeps blocking once disabled for it: it does not fail open', async (_, hookOptions, runOptions) => {
    const { options } = persistentHook(CRASHING, hookOptions)
    for (let attempt = 1; attempt <= 5; attempt++) {
      const result = await runHook('PreToolUse', { preToolUse: { tool: 'write_to_file' } }, options(runOptions))
      // A per-event hook that crashes every time blocks every time; so must this one.
      expect({ attempt, cancel: result.cancel }).toEqual({ attempt, cancel: true })
      expect(result.errorMessage).toMatch(/PreToolUse \(workspace\)/)
    }
  }, 120000)
})

describe('serveHook and the examples, end to end', () => {
  const SERVE = SERVE_JS
  const EXAMPLE = fs.readFileSync(path.join(EXAMPLES, 'node', 'PreToolUse'), 'utf8')
  const HEADER = EXAMPLE.split('\n')[1].replace(/^\/\/ cline-hook: /, '')

  const write = (tool, file) => ({ preToolUse: { tool, parameters: { path: file } } })
  /** What a guard of environment files must answer: [input, blocked]. */
  const CASES = [
    [write('write_to_file', '.env'), true],
    [write('write_to_file', 'config/.env.local'), true],
    [write('replace_in_file', 'deploy/.ENV'), true],
    [write('write_to_file', 'src/app.js'), false],
    [write('replace_in_file', 'README.md'), false],
    [write('write_to_file', 'env.txt'), false],
  ]

  /** Runs every case `rounds` times; returns the pids the hook reported (when it does). */
  async function guardAnswers(options, rounds) {
    for (let round = 0; round < rounds; round++) {
      for (const [input, blocked] of CASES) {
        const result = await runHook('PreToolUse', input, options)
        expectCompleted(only(result))
        expect({ file: input.preToolUse.parameters.path, cancel: result.cancel }).toEqual({ file: input.preToolUse.parameters.path, cancel: blocked })
        if (blocked) expect(result.errorMessage).toBe(`${input.preToolUse.parameters.path} is an environment file: it holds secrets, so it is edited by hand, not by Cline.`)
      }
      // Not a tool it names: skipped, no process asked.
      const read = await runHook('PreToolUse', write('read_file', '.env'), options)
      expect(read.hooks.map((h) => h.status)).toEqual(['skipped'])
      expect(read.cancel).toBe(false)
    }
  }

  /**
   * The live processes (Unix) whose command line names `file` and whose parent's does not: the
   * hook's own process, not the subshells of its pipeline (the bash example runs `jq | while`).
   */
  function hookProcesses(file) {
    const listing = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    const naming = new Map()
    for (const line of listing.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)
      if (m && m[3].includes(file) && Number(m[1]) !== process.pid) naming.set(Number(m[1]), Number(m[2]))
    }
    return [...naming].filter(([pid, ppid]) => !naming.has(ppid) && isAlive(pid)).map(([pid]) => trackPid(pid))
  }

  /** Runs the cases through the hook at `hook` (Unix) and checks one process served them all. */
  async function oneProcessAnswers(hook, options) {
    await guardAnswers(options, 1)
    const first = hookProcesses(hook)
    expect(first).toHaveLength(1)
    await guardAnswers(options, 3)
    expect(hookProcesses(hook)).toEqual(first)
  }

  test('the Node example, serve.js required by its absolute path: blocks .env writes, allows others, many events on one pid', async () => {
    expect(HEADER).toBe('mode=persistent tools=write_to_file,replace_in_file')
    // Its pid goes to its log (console.log goes to stderr while serveHook serves).
    const source = EXAMPLE.replace(/^#!.*\n/, '')
      .replace("require('@cline/hooks/serve')", `require(${q(SERVE)})`)
      .replace('serveHook((event) => {', "serveHook((event) => {\n  console.log('pid ' + process.pid)")
    expect(source).toContain(q(SERVE))
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', source, { header: HEADER })
    const pids = new Set()
    const options = opts({
      workspaceRoots: [root],
      timeoutMs: START_MS,
      onEvent: (event) => {
        const m = event.type === 'stderr' && /^pid (\d+)$/.exec(event.line)
        if (m) pids.add(trackPid(Number(m[1])))
      },
    })
    await guardAnswers(options, 5)
    expect(pids.size).toBe(1)
  }, 180000)

  testIf(!isWindows, 'the example is a #! script', 'the Node example as shipped, with @cline/hooks installed in the project: blocks .env writes, allows others, one process', async () => {
    const root = makeWorkspace()
    // What `npm install @cline/hooks` gives the project: the package in its node_modules.
    fs.mkdirSync(path.join(root, 'node_modules', '@cline'), { recursive: true })
    fs.symlinkSync(PACKAGE_DIR, path.join(root, 'node_modules', '@cline', 'hooks'), 'dir')
    const hook = path.join(hooksDirOf(root), 'PreToolUse')
    fs.mkdirSync(hooksDirOf(root), { recursive: true })
    fs.copyFileSync(path.join(EXAMPLES, 'node', 'PreToolUse'), hook)
    fs.chmodSync(hook, 0o755)
    await oneProcessAnswers(hook, opts({ workspaceRoots: [root], timeoutMs: START_MS }))
  }, 180000)

  testIf(hasJq, isWindows ? 'a #! bash script' : 'needs jq', 'the bash example: blocks .env writes, allows others, one process', async () => {
    const root = makeWorkspace()
    const hook = path.join(hooksDirOf(root), 'PreToolUse')
    fs.mkdirSync(hooksDirOf(root), { recursive: true })
    fs.copyFileSync(path.join(EXAMPLES, 'bash', 'PreToolUse'), hook)
    fs.chmodSync(hook, 0o755)
    const [listed] = await discoverHooks('PreToolUse', opts({ workspaceRoots: [root] }))
    expect(listed.settings).toEqual({ mode: 'persistent', tools: ['write_to_file', 'replace_in_file'], line: 2 })
    await oneProcessAnswers(hook, opts({ workspaceRoots: [root], timeoutMs: START_MS }))
  }, 180000)
})

// The breaks an attack found, each a test: answers given to the wrong event, a stopped hook's
// children left running, a gone hook's process kept, printed cancels dropped, a closed stdout
// waited on for the whole timeout.
describe('what an attack broke', () => {
  test('a JSON answer line between events (a second answer) replaces the process: no later event gets another\'s verdict; a JSON log line there is log', async () => {
    const marks = makeTempDir()
    // Each event's answer echoes its id; 40 ms later the hook prints one more JSON line, then
    // notes that it did.
    const late = (line) => persistentProgram({
      onEvent: `answer(said()); const at = count; setTimeout(() => { answer(${line}); fs.writeFileSync(require('path').join(${q(marks)}, String(process.pid) + '-' + at), '') }, 40)`,
    })
    // A second answer (it holds a verdict field): the process is out of step and replaced.
    const second = persistentHook(late('{ cancel: false, after: at }'))
    const first = said(await runHook('PreToolUse', { id: 'e1' }, second.options()))
    expect(first.id).toBe('e1')
    expect(await waitDead(first.pid, GONE_MS)).toBe(true)
    const replaced = await runHook('PreToolUse', { id: 'e2' }, second.options())
    expect(said(replaced).id).toBe('e2')
    expect(said(replaced).pid).not.toBe(first.pid)
    expect(replaced.hooks[0].warnings).toEqual([expect.stringMatching(/^its persistent process printed a JSON object line between events \(.*cancel.*\): an answer to no event/)])
    // A JSON log line (no verdict field) between events is log: the same process answers on.
    const logging = persistentHook(late("{ status: 'ok', after: at }"))
    const one = said(await runHook('PreToolUse', { id: 'l1' }, logging.options()))
    await waitFor(() => fs.existsSync(path.join(marks, `${one.pid}-1`)), { timeoutMs: GONE_MS, what: 'the late log line' })
    const two = await runHook('PreToolUse', { id: 'l2' }, logging.options())
    expect(said(two)).toEqual(expect.objectContaining({ id: 'l2', pid: one.pid }))
    expect(two.hooks[0].warnings).toEqual([])
  }, 120000)

  test('a stopped persistent hook leaves nothing running: what it started is stopped with it, even when it exits at EOF', async () => {
    const pidsDir = makeTempDir()
    // It starts a child deaf to SIGTERM on its first event, answers, and exits at EOF.
    const program = persistentProgram({
      onEvent: `if (count === 1) ${spawnDeafChild(`(c) => { fs.writeFileSync(require('path').join(${q(pidsDir)}, 'child'), String(c.pid)); answer(said()) }`)} else answer(said())`,
    })
    const { options } = persistentHook(program)
    const { pid } = said(await runHook('PreToolUse', { id: 'a' }, options({ persistentIdleMs: 300 })))
    const child = trackPid(Number(fs.readFileSync(path.join(pidsDir, 'child'), 'utf8')))
    expect(isAlive(child)).toBe(true)
    expect(await waitDead(pid, GONE_MS)).toBe(true)
    expect(await waitDead(child, GONE_MS)).toBe(true)
  }, 120000)

  test('a persistent hook file made a per-event hook has its process retired at the next run of that event', async () => {
    const { root, hook, options } = persistentHook(persistentProgram())
    const { pid } = said(await runHook('PreToolUse', { id: 'a' }, options()))
    writeProgram(hooksDirOf(root), 'PreToolUse', readInputThen("process.stdout.write(JSON.stringify({ contextModification: 'per-event' }) + '\\n')\n"))
    const result = await runHook('PreToolUse', { id: 'b' }, options())
    expect(only(result).contextModification).toBe('per-event')
    expect(await waitDead(pid, GONE_MS)).toBe(true)

    expect(hook).toBeTruthy()
  }, 120000)

  // Windows: cmd.exe keeps the `.cmd` it runs open, and a file deleted while open stays (delete
  // pending, its metadata unchanged) until that handle closes, so the hook is still there.
  testIf(!isWindows, 'a .cmd being run by cmd.exe is only deleted once it ends', 'a persistent hook file that is deleted has its process retired at the next run of that event', async () => {
    const again = persistentHook(persistentProgram())
    const second = said(await runHook('PreToolUse', { id: 'c' }, again.options())).pid
    fs.rmSync(again.hook)
    await runHook('PreToolUse', { id: 'd' }, again.options())
    expect(await waitDead(second, GONE_MS)).toBe(true)
  }, 120000)

  test('a cancel printed in a line that is not the answer still counts when no answer comes (timeout), and in an answer line over the 2 MiB cap', async () => {
    const prefixed = persistentHook(persistentProgram({ onEvent: "process.stdout.write('gate: ' + JSON.stringify({ cancel: true, errorMessage: 'no' }) + '\\n')" }))
    // Found at the end of its line, as the per-event reader finds it: the answer, at once.
    const answered = await runHook('PreToolUse', { id: 'p' }, prefixed.options({ timeoutMs: START_MS }))
    expect(only(answered)).toEqual(expect.objectContaining({ status: 'completed', cancel: true, warnings: [] }))
    // A cancel inside a log line, not at its end, with no answer after it: kept at the timeout.
    const inside = persistentHook(persistentProgram({ onEvent: "process.stdout.write('gate: ' + JSON.stringify({ cancel: true, errorMessage: 'no' }) + ' (logged)\\n')" }))
    const timedOut = await runHook('PreToolUse', { id: 'q' }, inside.options({ timeoutMs: SHORT_MS }))
    expect(only(timedOut).status).toBe('timedOut')
    expect(timedOut.cancel).toBe(true)
    expect(only(timedOut).warnings).toEqual(["its persistent process tree was stopped at the event's timeout; the next event starts a fresh process"])

    const huge = persistentHook(persistentProgram({ onEvent: "answer({ cancel: true, errorMessage: 'x'.repeat(3 * 1024 * 1024) })" }))
    const cut = await runHook('PreToolUse', { id: 'h' }, huge.options())
    // Read whole, as the same answer per event is (its errorMessage cut at 50 KB).
    expect(only(cut)).toEqual(expect.objectContaining({ status: 'completed', cancel: true }))
    expect(cut.cancel).toBe(true)
  }, 120000)

  testIf(!isWindows, "the test's hook is a .cmd whose cmd.exe holds stdout open itself", 'a hook that closes its stdout fails its event at once, not at its timeout', async () => {
    const { options } = persistentHook(persistentProgram({ onEvent: 'fs.closeSync(1)' }))
    const started = Date.now()
    const result = await runHook('PreToolUse', { id: 'x' }, options({ timeoutMs: 120000 }))
    expect(only(result)).toEqual(expect.objectContaining({ status: 'failed', failureKind: 'crash' }))
    expect(only(result).failure).toMatch(/^closed its stdout and lives on, so it can never answer/)
    expect(Date.now() - started).toBeLessThan(60000)
    // A cancel it printed, without its newline, before closing stdout still counts.
    const printed = persistentHook(persistentProgram({ onEvent: `fs.writeSync(1, '{"cancel":true,"errorMessage":"then closed"}'); fs.closeSync(1)` }))
    const kept = await runHook('PreToolUse', { id: 'y' }, printed.options({ timeoutMs: 120000 }))
    expect(only(kept)).toEqual(expect.objectContaining({ status: 'failed', failureKind: 'crash', cancel: true }))
    expect({ cancel: kept.cancel, errorMessage: kept.errorMessage }).toEqual({ cancel: true, errorMessage: 'then closed' })
  }, 180000)

  test('tools= : an empty tool name names no tool (the hook runs); a quoted tool name warns', async () => {
    const root = makeWorkspace()
    const ran = path.join(makeTempDir(), 'ran')
    writeProgram(hooksDirOf(root), 'PreToolUse', readInputThen(`require('fs').writeFileSync(${q(ran)}, '')\nprocess.stdout.write('{}\\n')\n`), { header: 'tools=write_to_file' })
    const result = await runHook('PreToolUse', { preToolUse: { tool: '' } }, opts({ workspaceRoots: [root], timeoutMs: START_MS }))
    expect(only(result).status).toBe('completed')
    expect(fs.existsSync(ran)).toBe(true)
    const quoted = makeWorkspace()
    writeProgram(hooksDirOf(quoted), 'PreToolUse', readInputThen("process.stdout.write('{}\\n')\n"), { header: 'tools="write_to_file"' })
    const [listed] = await discoverHooks('PreToolUse', opts({ workspaceRoots: [quoted] }))
    expect(listed.settings.tools).toBeUndefined()
    expect(listed.warnings).toEqual([expect.stringMatching(/`"` cannot be in a tool name/)])
  }, 120000)
})

describe('answers that say which event they answer (hookEventId)', () => {
  test('each event line carries its hookEventId; an answer echoing another event\'s is skipped, with a warning', async () => {
    // It answers each event twice: first as if to another event, then to this one.
    const program = persistentProgram({
      onEvent: "answer({ hookEventId: 'not-' + event.hookEventId, cancel: true }); answer({ ...said(), hookEventId: event.hookEventId })",
    })
    const { options } = persistentHook(program)
    for (const id of ['a', 'b', 'c']) {
      const result = await runHook('PreToolUse', { id }, options())
      expect(said(result).id).toBe(id)
      expect(result.cancel).toBe(false)
      expect(only(result).output.hookEventId).toMatch(/^\d+$/)
      expect(only(result).warnings).toEqual([expect.stringMatching(/^it printed a JSON object line that answers another event/)])
    }
  }, 120000)

  test('serveHook echoes it: JSON log lines written past its redirect, even mid-event, never shift a verdict', async () => {
    const serve = SERVE_JS
    // Each answer is followed at once, and again 1 ms later, by a JSON log line on fd 1.
    const program = `const fs = require('fs')
require(${q(serve)}).serveHook((event) => {
  const file = event.preToolUse.parameters.path
  fs.writeSync(1, JSON.stringify({ level: 30, msg: 'checking ' + file }) + '\\n')
  setTimeout(() => fs.writeSync(1, JSON.stringify({ status: 'ok', file }) + '\\n'), 1)
  return { cancel: file.endsWith('.env'), errorMessage: 'for ' + file }
})
`
    const { options } = persistentHook(program)
    // The first event's log line lands before any answer has shown the hook echoes ids.
    await runHook('PreToolUse', { preToolUse: { tool: 'write_to_file', parameters: { path: 'warm.ts' } } }, options())
    const wrong = []
    for (let i = 0; i < 40; i++) {
      const file = i % 3 === 0 ? `${i}.env` : `${i}.ts`
      const result = await runHook('PreToolUse', { preToolUse: { tool: 'write_to_file', parameters: { path: file } } }, options())
      if (result.cancel !== file.endsWith('.env') || result.errorMessage !== `for ${file}`) wrong.push({ file, cancel: result.cancel, errorMessage: result.errorMessage })
    }
    expect(wrong).toEqual([])
  }, 180000)
})
