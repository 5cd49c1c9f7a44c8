'use strict'

// A host that dies while its hooks run: by SIGTERM, SIGINT, SIGHUP or SIGKILL (an editor
// window closed, a crashed extension host, Ctrl-C of a terminal job). Each host here is a
// child Node process running hooks that fork grandchildren (one of them deaf to SIGTERM);
// once every pid is recorded the host is killed, and every recorded process must be gone
// within 2 s. The host's own death must be the signal's (nothing keeps it alive).

const fs = require('fs')
const path = require('path')
const { spawn } = require('child_process')

const { describeUnix, makeTempDir, writeHook, shq, waitFor, isAlive, waitDead, trackPid } = require('./helpers')

const ADDON_DIR = path.resolve(__dirname, '..')

/** A hook that records its pid, a grandchild's and a SIGTERM-proof grandchild's, then waits. */
function forkingHook(dir, pids) {
  writeHook(
    dir,
    'TaskStart',
    [
      `echo $$ > ${shq(pids)}/$$`,
      `sleep 60 & echo $! > ${shq(pids)}/$!`,
      `sh -c 'trap "" TERM; echo $$ > ${pids}/$$; while :; do sleep 1; done' &`,
      'wait',
    ].join('\n'),
  )
}

/** Starts a host running `runs` overlapping runs of the hooks in `dirs`, in its own group. */
function startHost(dirs, runs) {
  const script = `
    const { runHook } = require(${JSON.stringify(ADDON_DIR)})
    for (let i = 0; i < ${runs}; i++) {
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: ${JSON.stringify(dirs)} })
    }
    setInterval(() => {}, 1000)`
  const host = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  host.stdout.on('data', (chunk) => (output += chunk))
  host.stderr.on('data', (chunk) => (output += chunk))
  const ended = new Promise((resolve) => host.on('exit', (code, signal) => resolve({ code, signal, output: () => output })))
  return { host, ended }
}

/** The pids of `recorded` that did not end within 2 s of waiting for each, in turn. */
async function survivors(recorded) {
  const left = []
  for (const pid of recorded) if (!(await waitDead(pid, 2000))) left.push(pid)
  return left
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

describeUnix('hooks do not outlive a host that dies', () => {
  test.each(['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGKILL'])(
    'host killed by %s: every hook process and grandchild is gone within 2 s, and the host died of that signal',
    async (signal) => {
      const tmp = makeTempDir()
      const pids = path.join(tmp, 'pids')
      fs.mkdirSync(pids)
      const dirs = [0, 1].map((i) => path.join(tmp, `hooks${i}`))
      for (const dir of dirs) forkingHook(dir, pids)
      const runs = 2
      const expected = dirs.length * runs * 3
      const { host, ended } = startHost(dirs, runs)
      try {
        await waitFor(() => fs.readdirSync(pids).length >= expected, { timeoutMs: 20000, what: `${expected} hook pids` })
        const recorded = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
        for (const pid of recorded) expect(isAlive(pid)).toBe(true)

        host.kill(signal)
        const { code, signal: diedBy, output } = await ended
        expect({ code, signal: diedBy }).toEqual({ code: null, signal })
        expect(output()).toBe('')

        expect(await survivors(recorded)).toEqual([])
      } finally {
        if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL')
      }
    },
    30000,
  )

  test('a host that kills itself in the middle of a burst of hook starts leaves nothing, round after round', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, 'TaskStart', `echo $$ > ${shq(pids)}/$$\ntrap '' TERM\nwhile :; do sleep 1; done`)
    for (let round = 0; round < 8; round++) {
      // Dies 0-7 ms after asking for 8 runs, while their processes are being started.
      const script = `
        const { runHook } = require(${JSON.stringify(ADDON_DIR)})
        for (let i = 0; i < 8; i++) runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}] })
        const until = Date.now() + ${round}
        while (Date.now() < until) {}
        process.kill(process.pid, 'SIGKILL')`
      const host = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true })
      await new Promise((resolve) => host.on('exit', resolve))
    }
    // A hook that survived would have written its pid by now; every one written must go.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const recorded = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
    expect(await survivors(recorded)).toEqual([])
  }, 60000)

  test('a killed watchdog is replaced at once: the host dying right after still leaves nothing', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    const dir = path.join(tmp, 'hooks')
    forkingHook(dir, pids)
    const { host, ended } = startHost([dir], 2)
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

  test('a detached run is left running when the host dies: that is what detached means', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, 'TaskStart', `echo $$ > ${shq(pids)}/$$\nsleep 60\n`)
    const script = `
      const { runHook } = require(${JSON.stringify(ADDON_DIR)})
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}], detached: true })
      setInterval(() => {}, 1000)`
    const host = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true })
    const ended = new Promise((resolve) => host.on('exit', resolve))
    await waitFor(() => fs.readdirSync(pids).length >= 1, { timeoutMs: 10000, what: 'the detached hook' })
    const [pid] = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
    host.kill('SIGKILL')
    await ended
    // The watchdog acts within 250 ms of the host's death; give it four times that.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(isAlive(pid)).toBe(true)
  })
})
