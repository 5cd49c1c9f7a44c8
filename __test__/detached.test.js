'use strict'

// Detached runs (`detached: true`, fire and forget): the whole input reaches the hook even
// when the host exits at once, finished hooks are reaped (no zombies, even once the host's
// libuv owns SIGCHLD), they count against the process limit, and terminateAll() stops and
// counts them. Only the host's exit leaves them running (see host-death.test.js).

const fs = require('fs')
const path = require('path')
const { spawn, execFileSync } = require('child_process')

const { addon, describeUnix, makeTempDir, writeHook, shq, waitFor, waitForFile, isAlive, trackPid } = require('./helpers')

const { HookFactory, runHook, terminateAll } = addon
const ADDON_DIR = path.resolve(__dirname, '..')

describeUnix('detached runs', () => {
  test('an input of 1 MiB reaches the hook whole when the host exits as soon as the run resolves', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const got = path.join(tmp, 'got')
    // The hook reads slowly, long after its host is gone.
    writeHook(dir, 'TaskComplete', `sleep 0.3\ncat > ${shq(got)}.part && mv ${shq(got)}.part ${shq(got)}`)
    const big = 'x'.repeat(1 << 20)
    const script = path.join(tmp, 'host.js')
    fs.writeFileSync(
      script,
      `require(${JSON.stringify(ADDON_DIR)})
        .runHook('TaskComplete', { big: 'x'.repeat(1 << 20) }, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}], detached: true })
        .then((r) => { console.log(r.hooks[0].status); process.exit(0) })`,
    )
    const exit = await new Promise((resolve) => {
      const host = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      host.stdout.on('data', (c) => (out += c))
      host.stderr.on('data', (c) => (out += c))
      host.on('close', (code) => resolve({ code, out }))
    })
    expect(exit).toEqual({ code: 0, out: 'started\n' })
    const input = JSON.parse(await waitForFile(got, 10000))
    expect(input.big).toBe(big)
    expect(input.hookName).toBe('TaskComplete')
  })

  test('a finished detached hook is reaped, even after the host spawned a child of its own', async () => {
    execFileSync('true') // libuv now owns SIGCHLD in this process
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const pidFile = path.join(tmp, 'pid')
    writeHook(dir, 'TaskComplete', `echo $$ > ${shq(pidFile)}.part && mv ${shq(pidFile)}.part ${shq(pidFile)}`)
    const result = await runHook('TaskComplete', {}, { globalHooksDir: null, extraHooksDirs: [dir], detached: true })
    expect(result.hooks[0].status).toBe('started')
    const pid = Number(await waitForFile(pidFile))
    // A zombie keeps its /proc entry; a reaped process has none.
    await waitFor(() => !fs.existsSync(`/proc/${pid}`), { timeoutMs: 5000, what: `process ${pid} to be reaped` })
  })

  test("detached hooks count against the factory's maxConcurrentHooks", async () => {
    const tmp = makeTempDir()
    const running = path.join(tmp, 'running')
    const seen = path.join(tmp, 'seen')
    const release = path.join(tmp, 'release')
    fs.mkdirSync(running)
    fs.mkdirSync(seen)
    const dir = path.join(tmp, 'hooks')
    writeHook(
      dir,
      'TaskComplete',
      [
        `touch ${shq(running)}/$$`,
        `ls ${shq(running)} | wc -l > ${shq(seen)}/$$`,
        `for i in $(seq 400); do [ -e ${shq(release)} ] && break; sleep 0.05; done`,
        `rm ${shq(running)}/$$`,
      ].join('\n'),
    )
    const runner = await new HookFactory({ globalHooksDir: null, extraHooksDirs: [dir], maxConcurrentHooks: 4 }).create('TaskComplete')
    const runs = Array.from({ length: 12 }, () => runner.run({}, { detached: true }))
    await waitFor(() => fs.readdirSync(seen).length >= 4, { what: '4 hooks started' })
    // The other 8 wait for a slot; release the first ones and let them all through.
    fs.writeFileSync(release, '')
    const results = await Promise.all(runs)
    expect(results.map((r) => r.hooks[0].status)).toEqual(Array(12).fill('started'))
    await waitFor(() => fs.readdirSync(seen).length === 12 && fs.readdirSync(running).length === 0, { timeoutMs: 20000, what: 'all 12 hooks done' })
    const most = Math.max(...fs.readdirSync(seen).map((f) => Number(fs.readFileSync(path.join(seen, f), 'utf8'))))
    expect(most).toBeLessThanOrEqual(4)
  })

  test('terminateAll() stops detached hooks and counts them', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, 'TaskComplete', `echo $$ > ${shq(pids)}/$$\nsleep 30`)
    const options = { globalHooksDir: null, extraHooksDirs: [dir], detached: true }
    await Promise.all([runHook('TaskComplete', {}, options), runHook('TaskComplete', {}, options)])
    await waitFor(() => fs.readdirSync(pids).length === 2, { what: 'both hooks' })
    const started = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
    expect(await terminateAll()).toBe(2)
    for (const pid of started) expect(isAlive(pid)).toBe(false)
  })
})
