'use strict'

// HookFactory.dispose() and HookFactory.terminateAll(): a factory's hooks are its own. Disposing
// of one stops its running hooks (their runs resolve, reporting `aborted`, and keep a printed
// cancel), ends its persistent hooks' processes, and refuses every later call with a HookError;
// its terminateAll() stops its hooks and no other factory's or runHook()'s. Node programs as
// hooks, so these run on Windows too.

const fs = require('fs')
const path = require('path')

const { addon, makeTempDir, writeProgram, printJson, STAY_ALIVE, waitFor, isAlive, waitDead } = require('./helpers')

const { HookFactory, HookError, runHook } = addon

/** How long a hook may take to start and say so: a Node program under Wine takes up to ~1 s. */
const START_MS = 30000

/** A program line that writes its pid to `file` once stdout has taken what came before. */
const thenMark = (file) => `process.stdout.write('', () => require('fs').writeFileSync(${JSON.stringify(file)}, String(process.pid)))\n`

/** A hooks folder with a PreToolUse hook that prints `verdict`, marks `ready` and stays alive. */
function stayingHook(verdict = {}) {
  const tmp = makeTempDir()
  const dir = path.join(tmp, 'hooks')
  const ready = path.join(tmp, 'ready')
  writeProgram(dir, 'PreToolUse', `${printJson(verdict)}${thenMark(ready)}${STAY_ALIVE}`)
  return { dir, ready }
}

/** The pid written to `mark` if its process is still alive: [] when none started or it is gone. */
function leftRunning(mark) {
  if (!fs.existsSync(mark)) return []
  const pid = Number(fs.readFileSync(mark, 'utf8'))
  return pid > 0 && isAlive(pid) ? [pid] : []
}

const started = (ready) => waitFor(() => fs.existsSync(ready) && fs.readFileSync(ready, 'utf8') !== '', { timeoutMs: START_MS, what: 'the hook started' })

describe('HookFactory.dispose()', () => {
  test('stops its running hooks: the run resolves, reports aborted and keeps the printed cancel', async () => {
    const { dir, ready } = stayingHook({ cancel: true, errorMessage: 'printed before dispose' })
    const factory = new HookFactory({ globalHooksDir: null, extraHooksDirs: [dir] })
    const runner = await factory.create('PreToolUse')
    const running = runner.run({}, { timeoutMs: 60000 })
    await started(ready)
    const pid = Number(fs.readFileSync(ready, 'utf8'))
    await factory.dispose()
    const result = await running
    expect(result.hooks[0].status).toBe('aborted')
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('printed before dispose')
    await waitDead(pid)
    expect(isAlive(pid)).toBe(false)
  })

  test('every later call rejects with ERR_HOOK_FACTORY_DISPOSED; dispose() again resolves', async () => {
    const { dir } = stayingHook()
    const factory = new HookFactory({ globalHooksDir: null, extraHooksDirs: [dir] })
    const runner = await factory.create('TaskStart')
    await factory.dispose()
    const calls = {
      create: () => factory.create('PreToolUse'),
      hasHook: () => factory.hasHook('PreToolUse'),
      refresh: () => factory.refresh(),
      terminateAll: () => factory.terminateAll(),
      'runner.run': () => runner.run({}),
    }
    for (const [name, call] of Object.entries(calls)) {
      const error = await call().then(
        () => null,
        (e) => e,
      )
      expect({ name, isHookError: error instanceof HookError, code: error && error.code }).toEqual({ name, isHookError: true, code: 'ERR_HOOK_FACTORY_DISPOSED' })
      expect(error.message).toMatch(/dispose\(\)/)
    }
    await expect(factory.dispose()).resolves.toBeUndefined()
  })

  test('ends its persistent hooks\' processes', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const pidFile = path.join(tmp, 'pid')
    // A persistent hook: one process answers every event, one JSON line per event.
    writeProgram(
      dir,
      'PreToolUse',
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))
require('readline').createInterface({ input: process.stdin }).on('line', () => require('fs').writeSync(1, '{"cancel":false}\\n'))
`,
      { header: 'mode=persistent' },
    )
    const factory = new HookFactory({ globalHooksDir: null, extraHooksDirs: [dir], persistentIdleMs: 600000 })
    const result = await (await factory.create('PreToolUse')).run({}, { timeoutMs: 60000 })
    expect(result.hooks[0]).toMatchObject({ status: 'completed' })
    const pid = Number(fs.readFileSync(pidFile, 'utf8'))
    expect(isAlive(pid)).toBe(true)
    await factory.dispose()
    await waitDead(pid)
    expect(isAlive(pid)).toBe(false)
  })

  test('Symbol.asyncDispose disposes of it', async () => {
    if (typeof Symbol.asyncDispose !== 'symbol') return
    const factory = new HookFactory({ globalHooksDir: null })
    await factory[Symbol.asyncDispose]()
    await expect(factory.hasHook('PreToolUse')).rejects.toMatchObject({ code: 'ERR_HOOK_FACTORY_DISPOSED' })
  })
})

describe('a stop called right after a run, before the run reached its hooks', () => {
  // The run takes its start permission when it is called, on this thread: a dispose() or a
  // terminateAll() in the same tick stops its hook, whether the runtime had started it already
  // (then the stop finds it registered, and waits until it is gone) or not (then it never
  // starts). Before, a hook could start after the stop had resolved and run to its timeout, and
  // a persistent one lived on until idle.
  test.each([
    ['per event', {}],
    ['persistent', { header: 'mode=persistent' }],
  ])('%s: dispose() in the same tick: the run is aborted and its hook, if it started, is gone when dispose() resolves', async (_, { header }) => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const startedMark = path.join(tmp, 'started')
    writeProgram(dir, 'PreToolUse', `require('fs').writeFileSync(${JSON.stringify(startedMark)}, String(process.pid))\n${STAY_ALIVE}`, header ? { header } : undefined)
    for (let round = 0; round < 5; round++) {
      fs.rmSync(startedMark, { force: true })
      const factory = new HookFactory({ globalHooksDir: null, extraHooksDirs: [dir] })
      const runner = await factory.create('PreToolUse')
      const running = runner.run({}, { timeoutMs: 60000 })
      await factory.dispose()
      expect(leftRunning(startedMark)).toEqual([])
      const result = await running
      expect(result.hooks.map((h) => h.status)).toEqual(['aborted'])
    }
  })

  test('terminateAll() in the same tick stops runHook()\'s hook: aborted, and gone when it resolves', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const startedMark = path.join(tmp, 'started')
    writeProgram(dir, 'PreToolUse', `require('fs').writeFileSync(${JSON.stringify(startedMark)}, String(process.pid))\n${STAY_ALIVE}`)
    for (let round = 0; round < 5; round++) {
      fs.rmSync(startedMark, { force: true })
      const running = runHook('PreToolUse', {}, { globalHooksDir: null, extraHooksDirs: [dir], timeoutMs: 60000 })
      await addon.terminateAll()
      expect(leftRunning(startedMark)).toEqual([])
      expect((await running).hooks.map((h) => h.status)).toEqual(['aborted'])
    }
  })

  test('two stops at once: each resolves only once the tree is gone (a hook deaf to SIGTERM)', async () => {
    const { dir, ready } = stayingHook()
    const deaf = path.join(path.dirname(dir), 'deaf')
    writeProgram(deaf, 'PreToolUse', `process.on('SIGTERM', () => {})\n${thenMark(ready)}${STAY_ALIVE}`)
    const factory = new HookFactory({ globalHooksDir: null, extraHooksDirs: [deaf] })
    const running = (await factory.create('PreToolUse')).run({}, { timeoutMs: 60000 })
    await started(ready)
    const pid = Number(fs.readFileSync(ready, 'utf8'))
    const stops = [factory.terminateAll(), addon.terminateAll(), factory.dispose()]
    const each = await Promise.all(stops.map((stop) => stop.then(() => isAlive(pid))))
    expect(each).toEqual([false, false, false])
    expect((await running).hooks[0].status).toBe('aborted')
    void dir
  })
})

describe('HookFactory.terminateAll()', () => {
  test('stops its own hooks only: another factory\'s and runHook()\'s keep running', async () => {
    const mine = stayingHook({ cancel: true })
    const other = stayingHook()
    const loose = stayingHook()
    const factory = new HookFactory({ globalHooksDir: null, extraHooksDirs: [mine.dir] })
    const otherFactory = new HookFactory({ globalHooksDir: null, extraHooksDirs: [other.dir] })
    const runs = {
      mine: (await factory.create('PreToolUse')).run({}, { timeoutMs: 60000 }),
      other: (await otherFactory.create('PreToolUse')).run({}, { timeoutMs: 60000 }),
      loose: runHook('PreToolUse', {}, { globalHooksDir: null, extraHooksDirs: [loose.dir], timeoutMs: 60000 }),
    }
    await Promise.all([mine, other, loose].map((h) => started(h.ready)))
    expect(await factory.terminateAll()).toBe(1)
    const result = await runs.mine
    expect(result.hooks[0].status).toBe('aborted')
    expect(result.cancel).toBe(true)
    for (const h of [other, loose]) expect(isAlive(Number(fs.readFileSync(h.ready, 'utf8')))).toBe(true)
    // The factory stays usable, and the others end with the process-wide terminateAll().
    expect(await factory.hasHook('PreToolUse')).toBe(true)
    expect(await addon.terminateAll()).toBe(2)
    for (const run of [runs.other, runs.loose]) expect((await run).hooks[0].status).toBe('aborted')
    await otherFactory.dispose()
    await factory.dispose()
  })
})
