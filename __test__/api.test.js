'use strict'

// Issue 2, sections 2 and 6 at the API edge: AbortSignal, invalid input and options,
// overlapping calls, terminateAll(), and never blocking the JS thread.
//
// Every test runs on both platforms: its hooks are node programs (`writeProgram`: `#!` on Unix,
// a `.cmd` on Windows) or, where a test runs many, the platform's quickest hook
// (`writeQuickHook`). A node hook starts in ~0.5 s under Wine, so the tests that keep many
// hooks alive at once start fewer of them on Windows, and say so in their titles.

const fs = require('fs')
const path = require('path')
const { getEventListeners } = require('events')

const {
  addon,
  isWindows,
  makeTempDir,
  writeProgram,
  writeQuickHook,
  quickHooksAvailable,
  printJson,
  readInputThen,
  waitFor,
  waitForPid,
  waitDead,
  opts,
} = require('./helpers')

const { runHook, HookFactory, terminateAll } = addon

// How long a stopped process may take to be gone (waitDead returns as soon as it is).
const GONE_MS = 5000

/**
 * A hook that starts a child (a node process living 60 s), records its own pid and the
 * child's, and waits for the child.
 */
function longHook(dir, tmp, name = 'TaskStart') {
  const hookPid = path.join(tmp, `${path.basename(dir)}.hook.pid`)
  const childPid = path.join(tmp, `${path.basename(dir)}.child.pid`)
  writeProgram(
    dir,
    name,
    `const fs = require('fs')
const child = require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore', windowsHide: true })
fs.writeFileSync(${JSON.stringify(childPid)}, String(child.pid))
fs.writeFileSync(${JSON.stringify(hookPid)}, String(process.pid))
`,
  )
  return { hookPid, childPid }
}

/** A hook that creates the file `canary` (and exits, or lives `ms` more milliseconds). */
function canaryHook(dir, canary, ms = 0) {
  return writeProgram(
    dir,
    'TaskStart',
    `require('fs').writeFileSync(${JSON.stringify(canary)}, '')
${ms ? `setTimeout(() => {}, ${ms})
` : ''}`,
  )
}

/**
 * The platform's quickest hook printing `verdict` (writeQuickHook: sh on Unix, hookbot.exe on
 * Windows), or a node program printing it where hookbot.exe is not built (Windows outside the
 * lane).
 */
function quickHook(dir, event, verdict) {
  if (quickHooksAvailable) return writeQuickHook(dir, event, verdict)
  return writeProgram(dir, event, readInputThen(printJson(verdict)))
}

async function rejectionOf(promise) {
  try {
    await promise
  } catch (err) {
    return err
  }
  throw new Error('expected a rejection, but it resolved')
}

describe('AbortSignal', () => {
  test('aborting mid-run rejects with an AbortError and kills the hook tree', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const pids = longHook(dir, tmp)
    const controller = new AbortController()
    const started = Date.now()
    const run = runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal: controller.signal }))
    const outcome = rejectionOf(run)
    const hook = await waitForPid(pids.hookPid)
    const child = await waitForPid(pids.childPid)
    controller.abort()
    const err = await outcome
    expect(err.name).toBe('AbortError')
    expect(Date.now() - started).toBeLessThan(10000)
    expect(await waitDead(child, GONE_MS)).toBe(true)
    expect(await waitDead(hook, GONE_MS)).toBe(true)
  })

  test('aborting a HookRunner.run rejects with an AbortError and kills the hook tree', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const pids = longHook(dir, tmp)
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    const controller = new AbortController()
    const outcome = rejectionOf(runner.run({}, { signal: controller.signal }))
    const child = await waitForPid(pids.childPid)
    controller.abort()
    expect((await outcome).name).toBe('AbortError')
    expect(await waitDead(child, GONE_MS)).toBe(true)
  })

  test('an already-aborted signal spawns nothing', async () => {
    const tmp = makeTempDir()
    const canary = path.join(tmp, 'canary')
    const dir = path.join(tmp, 'hooks')
    canaryHook(dir, canary, 5000)
    const controller = new AbortController()
    controller.abort()

    const err = await rejectionOf(runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal: controller.signal })))
    expect(err.name).toBe('AbortError')
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    expect((await rejectionOf(runner.run({}, { signal: controller.signal }))).name).toBe('AbortError')

    // Had a hook been started it would still be sleeping: nothing is running, nothing was touched.
    expect(await terminateAll()).toBe(0)
    expect(fs.existsSync(canary)).toBe(false)
  })

  test("the caller's onabort handler and listeners are not replaced", async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const pids = longHook(dir, tmp)
    const controller = new AbortController()
    const calls = []
    const onabort = () => calls.push('onabort')
    controller.signal.onabort = onabort
    controller.signal.addEventListener('abort', () => calls.push('listener'))

    const outcome = rejectionOf(runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal: controller.signal })))
    await waitForPid(pids.childPid)
    expect(controller.signal.onabort).toBe(onabort)
    controller.abort()
    expect((await outcome).name).toBe('AbortError')
    expect(controller.signal.onabort).toBe(onabort)
    expect(calls.sort()).toEqual(['listener', 'onabort'])
  })

  const REUSES = isWindows ? 20 : 50
  test(`a signal reused for ${REUSES} runs does not accumulate abort listeners${isWindows ? ' (20 on Windows, where a hook process starts slowly under Wine; 50 on Unix)' : ''}`, async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    quickHook(dir, 'TaskStart', { contextModification: 'ok' })
    const slowDir = path.join(tmp, 'slow')
    const pids = longHook(slowDir, tmp)
    const controller = new AbortController()
    const { signal } = controller
    const baseline = getEventListeners(signal, 'abort').length

    // While a run is in flight the package does listen (so the check below is not vacuous).
    const inFlight = runHook('TaskStart', {}, opts({ extraHooksDirs: [slowDir], signal }))
    const child = await waitForPid(pids.childPid)
    expect(getEventListeners(signal, 'abort').length).toBeGreaterThan(baseline)
    process.kill(child, 'SIGKILL')
    await inFlight

    for (let i = 0; i < REUSES; i++) {
      const result = await runHook('TaskStart', { i }, opts({ extraHooksDirs: [dir], signal }))
      expect(result.contextModification).toBe('ok')
    }
    expect(getEventListeners(signal, 'abort').length).toBe(baseline)
  })
})

describe('AbortSignal shared by many runs', () => {
  // Still more than the 10 listeners at which Node warns.
  const RUNS = isWindows ? 12 : 30
  test(`${RUNS} runs in flight on one signal add one listener (no MaxListenersExceededWarning), and one abort stops them all${isWindows ? ' (12 on Windows, where a node hook starts in ~0.5 s; 30 on Unix)' : ''}`, async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    // Each records its pid as a file in `pids` and lives a minute.
    writeProgram(
      dir,
      'TaskStart',
      `require('fs').writeFileSync(require('path').join(${JSON.stringify(pids)}, String(process.pid)), '')
setTimeout(() => {}, 60000)
`,
    )
    const controller = new AbortController()
    const { signal } = controller
    const warnings = []
    const onWarning = (w) => warnings.push(w.name)
    process.on('warning', onWarning)
    try {
      const runs = Array.from({ length: RUNS }, () => rejectionOf(runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal, maxConcurrentHooks: RUNS }))))
      await waitFor(() => fs.readdirSync(pids).length === RUNS, { timeoutMs: 60000, what: `${RUNS} hooks running` })
      expect(getEventListeners(signal, 'abort')).toHaveLength(1)
      expect(Object.keys(signal)).toEqual([]) // the bookkeeping is invisible to the caller
      controller.abort()
      const errors = await Promise.all(runs)
      expect(errors.map((e) => e.name)).toEqual(runs.map(() => 'AbortError'))
      for (const pid of fs.readdirSync(pids).map(Number)) expect(await waitDead(pid, GONE_MS)).toBe(true)
      await new Promise(setImmediate) // a warning is emitted on the next tick
      expect(warnings).not.toContain('MaxListenersExceededWarning')
    } finally {
      process.off('warning', onWarning)
    }
  }, 120000)

  test('runs that settle on their own release the shared listener with the last of them', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    quickHook(dir, 'TaskStart', { contextModification: 'ok' })
    const { signal } = new AbortController()
    const results = await Promise.all(Array.from({ length: 25 }, () => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal }))))
    expect(results.every((r) => r.contextModification === 'ok')).toBe(true)
    expect(getEventListeners(signal, 'abort')).toHaveLength(0)
    expect(Object.getOwnPropertySymbols(signal).filter((s) => String(s).includes('@cline/hooks'))).toEqual([])
  })
})

describe('invalid input and options', () => {
  function expectCode(err, code) {
    expect(err.code).toBe(code)
    expect(err.name).toBe('TypeError')
    expect(typeof err.message).toBe('string')
    expect(err.message.length).toBeGreaterThan(10)
  }

  test('input that is not a JSON object (array, string, number, null) rejects with ERR_INVALID_HOOK_INPUT and runs nothing', async () => {
    const tmp = makeTempDir()
    const canary = path.join(tmp, 'canary')
    const dir = path.join(tmp, 'hooks')
    canaryHook(dir, canary)
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    for (const input of [[], [{ a: 1 }], 'a string', 42, null]) {
      expectCode(await rejectionOf(runHook('TaskStart', input, opts({ extraHooksDirs: [dir] }))), 'ERR_INVALID_HOOK_INPUT')
      expectCode(await rejectionOf(runner.run(input)), 'ERR_INVALID_HOOK_INPUT')
    }
    expect(fs.existsSync(canary)).toBe(false)
  })

  test('invalid options (timeoutMs: 0, a bad env name, a non-signal) reject with ERR_INVALID_OPTION and run nothing', async () => {
    const tmp = makeTempDir()
    const canary = path.join(tmp, 'canary')
    const dir = path.join(tmp, 'hooks')
    canaryHook(dir, canary)
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    for (const bad of [{ timeoutMs: 0 }, { env: { 'A=B': 'x' } }, { env: { '': 'x' } }, { signal: 'abort!' }]) {
      const err = await rejectionOf(runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], ...bad })))
      expectCode(err, 'ERR_INVALID_OPTION')
      expectCode(await rejectionOf(runner.run({}, bad)), 'ERR_INVALID_OPTION')
    }
    expect(fs.existsSync(canary)).toBe(false)
  })

  test('options of the wrong type or range (timeoutMs: -1 or "100", workspaceRoots: "x") reject with ERR_INVALID_OPTION', async () => {
    const tmp = makeTempDir()
    const canary = path.join(tmp, 'canary')
    const dir = path.join(tmp, 'hooks')
    canaryHook(dir, canary)
    const failures = []
    for (const bad of [{ timeoutMs: -1 }, { timeoutMs: '100' }, { workspaceRoots: 'x' }]) {
      let outcome
      try {
        const promise = runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], ...bad }))
        outcome = await promise.then(
          () => 'resolved',
          (err) => (err.code === 'ERR_INVALID_OPTION' ? 'ok' : `rejected with code ${err.code}`),
        )
      } catch (err) {
        outcome = `threw synchronously with code ${err.code}`
      }
      if (outcome !== 'ok') failures.push(`${JSON.stringify(bad)}: ${outcome}`)
    }
    expect(failures).toEqual([])
    expect(fs.existsSync(canary)).toBe(false)
  })
})

describe("env follows Node's child_process where that gives a meaningful string", () => {
  /** A node hook that saves its whole environment as JSON to `file`. */
  function envHook(tmp) {
    const dir = path.join(tmp, 'hooks')
    const file = path.join(tmp, 'env.json')
    writeProgram(dir, 'TaskStart', `require('fs').writeFileSync(${JSON.stringify(file)}, JSON.stringify(process.env))\n`)
    return { dir, read: () => JSON.parse(fs.readFileSync(file, 'utf8')) }
  }
  // A variable every host has: the home directory's.
  const HOME = isWindows ? 'USERPROFILE' : 'HOME'

  test('numbers and BigInts become String(value), undefined leaves the variable out (the inherited value stays), strings pass exactly', async () => {
    const tmp = makeTempDir()
    const { dir, read } = envHook(tmp)
    expect(process.env[HOME]).toEqual(expect.any(String))
    const env = { N: 1, F: 1.5, E: 1e21, Z: -0, B: 10n, S: 'x y', EMPTY: '', UNI: 'é 😀', U: undefined, [HOME]: undefined }
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], env, timeoutMs: 15000 }))
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
    const seen = read()
    const mine = Object.fromEntries(Object.keys(env).map((k) => [k, seen[k]]))
    expect(mine).toEqual({ N: '1', F: '1.5', E: '1e+21', Z: '0', B: '10', S: 'x y', EMPTY: '', UNI: 'é 😀', U: undefined, [HOME]: process.env[HOME] })
    expect('U' in seen).toBe(false)
    // The strings are exactly what Node's own child_process makes of these values. (Its env
    // replaces the environment, so there `HOME: undefined` removes HOME; ours is added to the
    // inherited one, and adds nothing for it.)
    const node = JSON.parse(
      require('child_process').execFileSync(process.execPath, ['-e', 'console.log(JSON.stringify(process.env))'], { env }),
    )
    const defined = Object.keys(env).filter((k) => env[k] !== undefined)
    expect(Object.fromEntries(defined.map((k) => [k, node[k]]))).toEqual(Object.fromEntries(defined.map((k) => [k, mine[k]])))
    expect('U' in node).toBe(false)
  })

  test('a null-prototype object works, and only its own enumerable string keys count', async () => {
    const tmp = makeTempDir()
    const { dir, read } = envHook(tmp)
    const env = Object.assign(Object.create(null), { A: '1' })
    Object.defineProperty(env, 'HIDDEN', { value: 'x', enumerable: false })
    env[Symbol('S')] = 'y'
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    const result = await runner.run({}, { env, timeoutMs: 15000 })
    expect(result.hooks.map((h) => h.failure || h.status)).toEqual(['completed'])
    const seen = read()
    expect([seen.A, seen.HIDDEN]).toEqual(['1', undefined])
  })
})

describe('concurrency', () => {
  // Even the quickest hook (hookbot.exe) takes ~0.2 s a run under Wine: fewer calls there,
  // still several times the default process limit.
  const CALLS = isWindows ? 40 : 200
  test(`${CALLS} overlapping runHook calls all resolve with their own results${isWindows ? ' (40 on Windows, where a hook process starts slowly under Wine; 200 on Unix)' : ''}`, async () => {
    const tmp = makeTempDir()
    // Each call has a hooks folder of its own, whose quick hook answers with that call's id: a
    // result that reached another call would show. (The platform's quickest hook: 200 node
    // programs at once take many seconds on a busy machine.)
    const ids = Array.from({ length: CALLS }, (_, i) => `call-${i}`)
    const dirs = ids.map((id) => {
      const dir = path.join(tmp, id)
      quickHook(dir, 'TaskStart', { contextModification: id })
      return dir
    })
    // The timeout also covers waiting for a process slot: generous, as the point is not timing.
    const results = await Promise.all(ids.map((id, i) => runHook('TaskStart', { id }, opts({ extraHooksDirs: [dirs[i]], timeoutMs: 90000 }))))
    // Each hook's reason, exit code and stderr show when it did not complete.
    const outcome = (h) => (h.status === 'completed' ? 'completed' : `${h.status}: ${h.failure} (exit ${h.exitCode}, stderr ${JSON.stringify(h.stderr)})`)
    expect(results.map((r) => r.hooks.map(outcome))).toEqual(ids.map(() => ['completed']))
    expect(results.map((r) => r.contextModification)).toEqual(ids)
  }, 120000)

  test('runHook never blocks the JS thread while hooks run', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    writeProgram(dir, 'TaskStart', `setTimeout(() => {\n${printJson({ contextModification: 'done' })}}, 1000)\n`)
    let ticks = 0
    const ticker = setInterval(() => ticks++, 10)
    try {
      const callStarted = Date.now()
      const pending = runHook('TaskStart', {}, opts({ extraHooksDirs: [dir] }))
      expect(Date.now() - callStarted).toBeLessThan(100) // returns a promise at once
      const result = await pending
      expect(result.contextModification).toBe('done')
    } finally {
      clearInterval(ticker)
    }
    // About 100 ticks fit in the hook's second; a blocked thread would give almost none.
    expect(ticks).toBeGreaterThan(30)
  })

  test('terminateAll() stops every running hook, resolves with how many, and their runs report aborted', async () => {
    const tmp = makeTempDir()
    const dirs = ['a', 'b', 'c'].map((d) => path.join(tmp, d))
    const pids = dirs.map((d) => longHook(d, tmp))
    const runs = [
      runHook('TaskStart', {}, opts({ extraHooksDirs: [dirs[0]] })),
      runHook('TaskStart', {}, opts({ extraHooksDirs: [dirs[1], dirs[2]] })),
    ]
    const children = []
    for (const p of pids) {
      await waitForPid(p.hookPid)
      children.push(await waitForPid(p.childPid))
    }
    const started = Date.now()
    expect(await terminateAll()).toBe(3)
    expect(Date.now() - started).toBeLessThan(5000)
    const results = await Promise.all(runs)
    expect(results.map((r) => r.hooks.map((h) => h.status))).toEqual([['aborted'], ['aborted', 'aborted']])
    for (const child of children) expect(await waitDead(child, GONE_MS)).toBe(true)
    expect(await terminateAll()).toBe(0)
  })
})
