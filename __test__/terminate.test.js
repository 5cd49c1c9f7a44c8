'use strict'

// terminateAll(): what a stopped hook printed still counts, hooks waiting for a slot never
// start, only trees it stopped are counted, and a process even SIGKILL cannot stop (frozen in
// the kernel) does not leave a run or terminateAll() unsettled. The hooks are Node programs,
// so the first three cases run on Windows too (there terminateAll() terminates job objects);
// the frozen process needs Linux's cgroup freezer.

const fs = require('fs')
const path = require('path')

const {
  addon,
  testIf,
  makeTempDir,
  writeHook,
  writeProgram,
  shq,
  printJson,
  STAY_ALIVE,
  waitFor,
  waitForFile,
  isAlive,
} = require('./helpers')

const { HookFactory, runHook, terminateAll } = addon

/** How long a hook may take to start and say so: a Node program under Wine takes up to ~1 s. */
const START_MS = 30000

/** A program line that writes the (empty) file `file` once stdout has taken what came before. */
const thenTouch = (file) => `process.stdout.write('', () => require('fs').writeFileSync(${JSON.stringify(file)}, ''))\n`

describe('terminateAll()', () => {
  test('a hook that printed {"cancel":true} and is then stopped by terminateAll() still blocks', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const ready = path.join(dir, '..', 'ready')
    writeProgram(dir, 'PreToolUse', `${printJson({ cancel: true, errorMessage: 'blocked before it was stopped' })}${thenTouch(ready)}${STAY_ALIVE}`)
    const running = runHook('PreToolUse', {}, { globalHooksDir: null, extraHooksDirs: [dir] })
    await waitFor(() => fs.existsSync(ready), { timeoutMs: START_MS, what: 'the verdict printed' })
    expect(await terminateAll()).toBe(1)
    const result = await running
    expect(result.hooks[0].status).toBe('aborted')
    expect(result.hooks[0].failure).toMatch(/terminateAll/)
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('blocked before it was stopped')
  })

  test('hooks still waiting for a slot when terminateAll() is called never start', async () => {
    const tmp = makeTempDir()
    const started = path.join(tmp, 'started')
    fs.mkdirSync(started)
    const dirs = [0, 1, 2, 3].map((i) => path.join(tmp, `d${i}`))
    const marksItsStart = `require('fs').writeFileSync(require('path').join(${JSON.stringify(started)}, String(process.pid)), '')\n`
    for (const dir of dirs) writeProgram(dir, 'TaskStart', `${marksItsStart}${STAY_ALIVE}`)
    const runner = await new HookFactory({ globalHooksDir: null, extraHooksDirs: dirs, maxConcurrentHooks: 1 }).create('TaskStart')
    const running = runner.run({}, { timeoutMs: 20000 })
    await waitFor(() => fs.readdirSync(started).length === 1, { timeoutMs: START_MS, what: 'the first hook' })
    expect(await terminateAll()).toBe(1)
    const result = await running
    expect(result.hooks.map((h) => h.status)).toEqual(['aborted', 'aborted', 'aborted', 'aborted'])
    // Whichever hook got the one slot was stopped; the three waiting for it never started.
    expect(result.hooks.map((h) => h.failure).sort()).toEqual([
      "was stopped by terminateAll() (or its factory's dispose())",
      ...Array(3).fill("was stopped by terminateAll() (or its factory's dispose()) before it started"),
    ])
    // The run has settled, so nothing of it can start any more: the count is final.
    expect(fs.readdirSync(started)).toHaveLength(1)
    // And a run begun after terminateAll() runs normally.
    const after = await runner.run({}, { timeoutMs: 200 })
    expect(after.hooks[0].status).toBe('timedOut')
  })

  test('terminateAll() counts only the trees it stopped: a second call while they stop, and trees already ending, are not counted again', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const ready = path.join(dir, '..', 'ready')
    // Deaf to SIGTERM (Unix), so its tree is still stopping when the second call comes.
    writeProgram(dir, 'TaskStart', `process.on('SIGTERM', () => {})\n${thenTouch(ready)}${STAY_ALIVE}`)
    const running = runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [dir] })
    await waitFor(() => fs.existsSync(ready), { timeoutMs: START_MS, what: 'the hook' })
    const [first, second] = await Promise.all([terminateAll(), terminateAll()])
    expect([first, second].sort()).toEqual([0, 1])
    expect((await running).hooks[0].status).toBe('aborted')
    expect(await terminateAll()).toBe(0)
  })
})

// The cgroup v1 freezer puts a process in uninterruptible sleep that SIGKILL cannot end until
// it is thawed, exactly like a process stuck on a hung network filesystem.
const FREEZER = '/sys/fs/cgroup/freezer'
function canFreeze() {
  if (process.platform !== 'linux' || !fs.existsSync(path.join(FREEZER, 'cgroup.procs'))) return false
  const probe = path.join(FREEZER, `cline-hooks-probe-${process.pid}`)
  try {
    fs.mkdirSync(probe)
    fs.rmdirSync(probe)
    return true
  } catch {
    return false
  }
}

const NO_FREEZER =
  process.platform === 'linux' ? 'needs a writable cgroup v1 freezer (root on Linux)' : 'the cgroup v1 freezer is a Linux rule'

testIf(canFreeze(), NO_FREEZER, 'a hook stuck in the kernel (frozen: SIGKILL cannot end it) settles its run after the timeout plus the kill grace, and terminateAll() settles too', async () => {
  const tmp = makeTempDir()
  const group = path.join(FREEZER, `cline-hooks-test-${process.pid}`)
  fs.mkdirSync(group)
  const pidFile = path.join(tmp, 'pid')
  const dir = path.join(tmp, 'hooks')
  writeHook(dir, 'TaskStart', `echo $$ > ${shq(pidFile)}\nwhile :; do sleep 1; done`)
  let pid
  try {
    const started = Date.now()
    const running = runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [dir], timeoutMs: 1000 })
    pid = Number(await waitForFile(pidFile))
    fs.writeFileSync(path.join(group, 'cgroup.procs'), String(pid))
    fs.writeFileSync(path.join(group, 'freezer.state'), 'FROZEN')
    await waitFor(() => fs.readFileSync(path.join(group, 'freezer.state'), 'utf8').trim() === 'FROZEN', { what: 'the freeze' })

    // Bounded here, so the finally below always thaws the hook, even if the run never settles.
    const unsettled = new Promise((resolve) => setTimeout(resolve, 15000, 'the run did not settle within 15 s').unref())
    const result = await Promise.race([running, unsettled])
    const elapsed = Date.now() - started
    expect(result.hooks?.[0].status ?? result).toBe('timedOut')
    expect(result.hooks[0].failure).toMatch(/could not be stopped even by SIGKILL/)
    // 1 s timeout + 250 ms grace + 1 s reap limit + pipe grace, with room for a busy machine.
    expect(elapsed).toBeLessThan(6000)
    expect(isAlive(pid)).toBe(true)
    const stopped = await Promise.race([terminateAll(), new Promise((resolve) => setTimeout(resolve, 10000, 'terminateAll() did not settle within 10 s').unref())])
    expect(stopped).toBe(0)
  } finally {
    fs.writeFileSync(path.join(group, 'freezer.state'), 'THAWED')
    if (pid) await waitFor(() => !isAlive(pid), { timeoutMs: 5000, what: 'the thawed hook to die' }).catch(() => {})
    await waitFor(() => {
      try {
        fs.rmdirSync(group)
        return true
      } catch {
        return false
      }
    }, { timeoutMs: 5000, what: 'the freezer group to empty' })
  }
}, 30000)
