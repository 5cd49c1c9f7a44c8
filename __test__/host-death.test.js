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

        const left = []
        for (const pid of recorded) if (!(await waitDead(pid, 2000))) left.push(pid)
        expect(left).toEqual([])
      } finally {
        if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL')
      }
    },
    30000,
  )

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
