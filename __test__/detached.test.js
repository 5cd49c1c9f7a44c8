'use strict'

// Detached runs (`detached: true`, fire and forget): the whole input reaches the hook even
// when the host exits at once, finished hooks are reaped (no zombies, even once the host's
// libuv owns SIGCHLD), they count against the process limit, and terminateAll() stops and
// counts them. Only the host's exit leaves them running (see host-death.test.js). The hooks
// are Node programs, so every case runs on Windows too but the zombie one (a Unix rule).

const fs = require('fs')
const path = require('path')
const { spawn, execFileSync } = require('child_process')

const {
  addon,
  isWindows,
  describeUnix,
  testIf,
  makeTempDir,
  writeFile,
  writeHook,
  writeProgram,
  shq,
  readInputThen,
  STAY_ALIVE,
  waitFor,
  waitForFile,
  isAlive,
  trackPid,
} = require('./helpers')

const { HookFactory, runHook, terminateAll } = addon
const ADDON_DIR = path.resolve(__dirname, '..')

/** How long hooks may take to start and say so: a Node program under Wine takes up to ~1 s. */
const START_MS = 30000

/**
 * Runs the Node program `script` as a host; resolves with its exit code and everything it
 * wrote. Its stdout and stderr are a file, not a pipe: node.exe under Wine cannot write to a
 * pipe.
 */
function runHost(tmp, script) {
  const file = path.join(tmp, 'host-output')
  const out = fs.openSync(file, 'w')
  return new Promise((resolve, reject) => {
    const host = spawn(process.execPath, [script], { stdio: ['ignore', out, out] })
    fs.closeSync(out)
    host.on('error', reject)
    host.on('exit', (code) => resolve({ code, out: fs.readFileSync(file, 'utf8') }))
  })
}

describe('detached runs', () => {
  test('an input of 1 MiB reaches the hook whole when the host exits as soon as the run resolves', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const got = path.join(tmp, 'got')
    // The hook reads slowly, long after its host is gone.
    const part = JSON.stringify(`${got}.part`)
    writeProgram(
      dir,
      'TaskComplete',
      `setTimeout(() => {\n${readInputThen(`require('fs').writeFileSync(${part}, input)\nrequire('fs').renameSync(${part}, ${JSON.stringify(got)})`)}}, 300)\n`,
    )
    const big = 'x'.repeat(1 << 20)
    const script = path.join(tmp, 'host.js')
    fs.writeFileSync(
      script,
      `require(${JSON.stringify(ADDON_DIR)})
        .runHook('TaskComplete', { big: 'x'.repeat(1 << 20) }, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}], detached: true })
        .then((r) => { console.log(r.hooks[0].status); process.exit(0) })`,
    )
    const exit = await runHost(tmp, script)
    expect(exit).toEqual({ code: 0, out: 'started\n' })
    const input = JSON.parse(await waitForFile(got, START_MS))
    expect(input.big).toBe(big)
    expect(input.hookName).toBe('TaskComplete')
  })

  test("detached hooks count against the factory's maxConcurrentHooks", async () => {
    const tmp = makeTempDir()
    const running = path.join(tmp, 'running')
    const seen = path.join(tmp, 'seen')
    const release = path.join(tmp, 'release')
    fs.mkdirSync(running)
    fs.mkdirSync(seen)
    const dir = path.join(tmp, 'hooks')
    writeProgram(
      dir,
      'TaskComplete',
      // Named by pid and a random part: under Wine a pid can come back within a run.
      `const fs = require('fs'), path = require('path')
const me = \`\${process.pid}.\${Math.random().toString(36).slice(2)}\`
fs.writeFileSync(path.join(${JSON.stringify(running)}, me), '')
fs.writeFileSync(path.join(${JSON.stringify(seen)}, me), String(fs.readdirSync(${JSON.stringify(running)}).length))
const until = Date.now() + 20000
const wait = () => {
  if (!fs.existsSync(${JSON.stringify(release)}) && Date.now() < until) return setTimeout(wait, 50)
  fs.rmSync(path.join(${JSON.stringify(running)}, me))
}
wait()
`,
    )
    const runner = await new HookFactory({ globalHooksDir: null, extraHooksDirs: [dir], maxConcurrentHooks: 4 }).create('TaskComplete')
    const runs = Array.from({ length: 12 }, () => runner.run({}, { detached: true }))
    await waitFor(() => fs.readdirSync(seen).length >= 4, { timeoutMs: START_MS, what: '4 hooks started' })
    // The other 8 wait for a slot; release the first ones and let them all through.
    fs.writeFileSync(release, '')
    const results = await Promise.all(runs)
    expect(results.map((r) => r.hooks[0].status)).toEqual(Array(12).fill('started'))
    await waitFor(() => fs.readdirSync(seen).length === 12 && fs.readdirSync(running).length === 0, { timeoutMs: 40000, what: 'all 12 hooks done' })
    const most = Math.max(...fs.readdirSync(seen).map((f) => Number(fs.readFileSync(path.join(seen, f), 'utf8'))))
    expect(most).toBeLessThanOrEqual(4)
  }, 90000)

  test('terminateAll() stops detached hooks and counts them', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    const dir = path.join(tmp, 'hooks')
    writeProgram(dir, 'TaskComplete', `require('fs').writeFileSync(require('path').join(${JSON.stringify(pids)}, String(process.pid)), '')\n${STAY_ALIVE}`)
    const options = { globalHooksDir: null, extraHooksDirs: [dir], detached: true }
    await Promise.all([runHook('TaskComplete', {}, options), runHook('TaskComplete', {}, options)])
    await waitFor(() => fs.readdirSync(pids).length === 2, { timeoutMs: START_MS, what: 'both hooks' })
    const started = fs.readdirSync(pids).map((p) => trackPid(Number(p)))
    expect(await terminateAll()).toBe(2)
    for (const pid of started) expect(isAlive(pid)).toBe(false)
  })
})

describeUnix(
  'detached runs: reaping',
  () => {
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
  },
  { reason: 'zombies, SIGCHLD and /proc are Unix rules' },
)

describeUnix('detached runs: a hook without a #! line', () => {
  test('is run with /bin/sh and still reads its whole input from the file it was given', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const got = path.join(tmp, 'got')
    // No #! line: the first start fails with ENOEXEC and the hook is started again with /bin/sh,
    // which needs its own handle to the input file.
    writeFile(dir, 'TaskComplete', `cat > ${shq(got)}.part && mv ${shq(got)}.part ${shq(got)}\n`, 0o755)
    const result = await runHook('TaskComplete', { marker: 'whole' }, { globalHooksDir: null, extraHooksDirs: [dir], detached: true })
    expect(result.hooks[0].status).toBe('started')
    expect(result.hooks[0].warnings.join('\n')).toContain('has no #! line')
    const input = JSON.parse(await waitForFile(got, START_MS))
    expect([input.marker, input.hookName]).toEqual(['whole', 'TaskComplete'])
  })
})
