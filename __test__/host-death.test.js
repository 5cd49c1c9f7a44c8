'use strict'

// A host that dies while its hooks run: by SIGTERM, SIGINT, SIGHUP or SIGKILL (an editor
// window closed, a crashed extension host, Ctrl-C of a terminal job), or by process.exit().
// Each host here is a child Node process running hooks that start grandchildren (one of them
// deaf to SIGTERM); once every pid is recorded the host is killed, and every recorded process
// must be gone within 2 s. The host's own death must be the signal's (nothing keeps it alive).
//
// The hooks are Node programs, so the cases that are not about POSIX signals or the Unix
// watchdog run on Windows too, where each hook tree is a job object that kills on close: a
// host killed by Node's kill() (TerminateProcess there, whatever the signal's name) and a host
// that calls process.exit(). Two cases meet product bugs on Windows; they are skipped there,
// saying so, until the bugs are fixed.

const fs = require('fs')
const path = require('path')
const { spawn, spawnSync } = require('child_process')

const { isWindows, describeUnix, testIf, makeTempDir, writeProgram, STAY_ALIVE, waitFor, isAlive, waitDead, trackPid, watchdogsOf } = require('./helpers')

const ADDON_DIR = path.resolve(__dirname, '..')
const q = JSON.stringify

/** How long the hooks of a host may take to start and record themselves: under Wine each
 * process is a node.exe that takes up to ~1 s, a dozen of them at once. */
const START_MS = 60000

// Another: a hook's process is created suspended and only then put in its job object; a host
// that dies in between leaves it suspended, outside any job, for good (under Wine one such
// cmd.exe per host killed 100-400 ms into a burst of starts).
const HALF_STARTED_LEFT =
  'product bug on Windows: a host killed between creating a hook\'s process and putting it in its job object leaves that process behind, suspended'

/** The steps between the rounds' deaths in the burst case: where the starts fall. */
const BURST_STEP_MS = isWindows ? 60 : 1

/** A program line that records this process's pid as a file in `pids`. */
const recordPid = (pids) => `require('fs').writeFileSync(require('path').join(${q(pids)}, String(process.pid)), '')\n`

/**
 * A hook that records its pid and starts two grandchildren, one deaf to SIGTERM, each of which
 * records its own pid once running (the deaf one after it has turned SIGTERM off); then waits.
 * On Unix the grandchildren stay in the hook's process group, as `sleep 60 &` would. On Windows
 * they are started detached: Node puts every child it starts otherwise in a job object of its
 * own that kills on close, which would stop them with the hook whatever the addon did.
 */
function forkingHook(dir, pids) {
  const grandchild = (deaf) => {
    const program = `${deaf ? "process.on('SIGTERM', () => {})\n" : ''}${recordPid(pids)}${STAY_ALIVE}`
    return `spawn(process.execPath, ['-e', ${q(program)}], { stdio: 'ignore', windowsHide: true, detached: process.platform === 'win32' })\n`
  }
  writeProgram(dir, 'TaskStart', `const { spawn } = require('child_process')\n${recordPid(pids)}${grandchild(false)}${grandchild(true)}${STAY_ALIVE}`)
}

/**
 * Starts a host running `runs` overlapping runs of the hooks in `dirs`, in its own group. It
 * calls process.exit(3) once the file `exitFile` exists. Its stdout and stderr are a file, not
 * a pipe: node.exe under Wine cannot write to a pipe.
 */
function startHost(tmp, dirs, runs, exitFile) {
  const script = `
    const { runHook } = require(${q(ADDON_DIR)})
    for (let i = 0; i < ${runs}; i++) {
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: ${q(dirs)} })
    }
    setInterval(() => { if (require('fs').existsSync(${q(exitFile)})) process.exit(3) }, 20)`
  const file = path.join(tmp, 'host-output')
  const out = fs.openSync(file, 'w')
  const host = spawn(process.execPath, ['-e', script], { stdio: ['ignore', out, out], detached: true })
  fs.closeSync(out)
  const ended = new Promise((resolve) =>
    host.on('exit', (code, signal) => resolve({ code, signal, output: () => fs.readFileSync(file, 'utf8') })),
  )
  return { host, ended }
}

/** The pids of `recorded` that did not end within 2 s of waiting for each, in turn. */
async function survivors(recorded) {
  const left = []
  for (const pid of recorded) if (!(await waitDead(pid, 2000))) left.push(pid)
  return left
}

/**
 * A host runs 2 runs of 2 forking hooks; once all 12 processes are recorded, `kill(host,
 * exitFile)` ends it. It must end as `end` says, having written nothing, and leave nothing.
 */
async function hostDiesWhileHooksRun(kill, end) {
  const tmp = makeTempDir()
  const pids = path.join(tmp, 'pids')
  fs.mkdirSync(pids)
  const dirs = [0, 1].map((i) => path.join(tmp, `hooks${i}`))
  for (const dir of dirs) forkingHook(dir, pids)
  const runs = 2
  const expected = dirs.length * runs * 3
  const exitFile = path.join(tmp, 'exit')
  const { host, ended } = startHost(tmp, dirs, runs, exitFile)
  try {
    await waitFor(() => fs.readdirSync(pids).length >= expected, { timeoutMs: START_MS, what: `${expected} hook pids` })
    const recorded = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
    for (const pid of recorded) expect(isAlive(pid)).toBe(true)

    kill(host, exitFile)
    const { code, signal, output } = await ended
    expect({ code, signal }).toEqual(end)
    expect(output()).toBe('')

    expect(await survivors(recorded)).toEqual([])
  } finally {
    if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL')
  }
}

/** census.exe (Windows lane): how many processes Windows (this Wine prefix) has now. */
function processCount() {
  const census = process.env.CLINE_HOOKS_TEST_CENSUS
  if (!census) throw new Error('needs census.exe from the Windows lane (CLINE_HOOKS_TEST_CENSUS)')
  const run = spawnSync(census, [String(process.pid)], { encoding: 'utf8', windowsHide: true })
  if (run.status !== 0) throw new Error(`census.exe failed (status ${run.status}): ${run.stderr}`)
  return JSON.parse(run.stdout).processes
}

/** The live processes (Linux) whose start marker names one of `hostPids` as their host. */
function startedBy(hostPids) {
  const prefixes = hostPids.map((pid) => `CLINE_HOOKS_START=${pid}.`)
  const found = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || !isAlive(Number(entry))) continue
    let environ
    try {
      environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0')
    } catch {
      continue // gone meanwhile, or not ours to read
    }
    if (environ.some((kv) => prefixes.some((p) => kv.startsWith(p)))) found.push(Number(entry))
  }
  return found
}

describeUnix(
  'hooks do not outlive a host that dies of a POSIX signal',
  () => {
    test.each(['SIGTERM', 'SIGINT', 'SIGHUP'])(
      'host killed by %s: every hook process and grandchild is gone within 2 s, and the host died of that signal',
      (signal) => hostDiesWhileHooksRun((host) => host.kill(signal), { code: null, signal }),
      30000,
    )
  },
  { reason: 'POSIX signals to the host are a Unix rule' },
)

describe('hooks do not outlive a host that dies', () => {
  test(
    'host killed by SIGKILL (on Windows TerminateProcess, which Node\'s kill() uses there): every hook process and grandchild is gone within 2 s, and the host died of it',
    () => hostDiesWhileHooksRun((host) => host.kill('SIGKILL'), { code: null, signal: 'SIGKILL' }),
    120000,
  )

  test(
    'host calls process.exit() while its hooks run: every hook process and grandchild is gone within 2 s, and the host exited with its code',
    () => hostDiesWhileHooksRun((host, exitFile) => fs.writeFileSync(exitFile, ''), { code: 3, signal: null }),
    120000,
  )

  testIf(!isWindows, HALF_STARTED_LEFT, 'a host that kills itself in the middle of a burst of hook starts leaves nothing, round after round', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    const dir = path.join(tmp, 'hooks')
    writeProgram(dir, 'TaskStart', `process.on('SIGTERM', () => {})\n${recordPid(pids)}${STAY_ALIVE}`)
    const before = isWindows ? processCount() : null
    const hosts = []
    for (let round = 0; round < 8; round++) {
      // Dies 0-7 ms after asking for 8 runs, while their processes are being started (under
      // Wine the starts come later and take longer: 0-420 ms).
      const script = `
        const { runHook } = require(${q(ADDON_DIR)})
        for (let i = 0; i < 8; i++) runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${q(dir)}] })
        const until = Date.now() + ${round * BURST_STEP_MS}
        while (Date.now() < until) {}
        process.kill(process.pid, 'SIGKILL')`
      const host = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true })
      hosts.push(host.pid)
      await new Promise((resolve) => host.on('exit', resolve))
    }
    // A hook that survived would have written its pid by now; every one written must go.
    await new Promise((resolve) => setTimeout(resolve, isWindows ? 3000 : 500))
    const recorded = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
    expect(await survivors(recorded)).toEqual([])
    // Nor is anything left that never got to record itself (a process cut off mid-start).
    if (isWindows) {
      expect(processCount()).toBe(before)
    } else if (process.platform === 'linux') {
      expect(startedBy(hosts)).toEqual([])
    }
  }, 120000)

  test('a detached run is left running when the host dies: that is what detached means', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    const dir = path.join(tmp, 'hooks')
    writeProgram(dir, 'TaskStart', `${recordPid(pids)}setTimeout(() => {}, 60000)\n`)
    const script = `
      const { runHook } = require(${q(ADDON_DIR)})
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${q(dir)}], detached: true })
      setInterval(() => {}, 1000)`
    const host = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true })
    const ended = new Promise((resolve) => host.on('exit', resolve))
    await waitFor(() => fs.readdirSync(pids).length >= 1, { timeoutMs: START_MS, what: 'the detached hook' })
    const [pid] = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
    host.kill('SIGKILL')
    await ended
    // The watchdog acts within 250 ms of the host's death; give it four times that.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(isAlive(pid)).toBe(true)
  }, 90000)
})

describeUnix(
  'the watchdog',
  () => {
    test('a killed watchdog is replaced at once: the host dying right after still leaves nothing', async () => {
      const tmp = makeTempDir()
      const pids = path.join(tmp, 'pids')
      fs.mkdirSync(pids)
      const dir = path.join(tmp, 'hooks')
      forkingHook(dir, pids)
      const { host, ended } = startHost(tmp, [dir], 2, path.join(tmp, 'exit'))
      try {
        await waitFor(() => fs.readdirSync(pids).length >= 6, { timeoutMs: 20000, what: '6 hook pids' })
        const recorded = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
        const [first] = watchdogsOf(host.pid)
        expect(first).toBeGreaterThan(0)
        process.kill(first, 'SIGKILL')
        await waitFor(() => watchdogsOf(host.pid).some((pid) => pid !== first), { what: 'a new watchdog' })
        host.kill('SIGKILL')
        await ended
        expect(await survivors(recorded)).toEqual([])
      } finally {
        if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL')
      }
    }, 30000)
  },
  { reason: 'the watchdog process (found through /proc) is how Unix hosts stop hooks they die with; Windows uses job objects that kill on close' },
)
