'use strict'

// Issue 10, A1, A9 (binding items) and A10: the addon boundary. Hostile input never takes
// the host down, the hook gets exactly JSON.stringify's bytes, and every bad call rejects
// with a typed code, a message naming the option, the value and the fix, and the cause.

const fs = require('fs')
const path = require('path')
const { spawnSync } = require('child_process')

const { addon, describeUnix, makeTempDir, writeHook, shq, opts } = require('./helpers')

const { runHook, discoverHooks, HookFactory } = addon
const ADDON_DIR = path.join(__dirname, '..')
const FIXTURES = path.join(__dirname, 'fixtures', 'boundary')

/** How a call settled: never a synchronous throw. */
async function outcomeOf(call) {
  let promise
  try {
    promise = call()
  } catch (err) {
    return { threw: err }
  }
  try {
    return { resolved: await promise }
  } catch (err) {
    return { rejected: err }
  }
}

async function rejectionOf(call) {
  const outcome = await outcomeOf(call)
  if (outcome.threw) throw new Error(`threw synchronously: ${outcome.threw.message}`)
  if (!outcome.rejected) throw new Error('expected a rejection, but it resolved')
  return outcome.rejected
}

/** A hook that saves its stdin to `file` and prints nothing. */
function recordingHook(tmp) {
  const dir = path.join(tmp, 'hooks')
  const file = path.join(tmp, 'stdin.json')
  writeHook(dir, 'TaskStart', `cat > ${shq(file)}\n`)
  return { dir, file }
}

describeUnix('A1: hostile input never takes the host down', () => {
  test('inputs 20,000 and 100,000 levels deep and a cyclic input reject with ERR_INVALID_HOOK_INPUT, and the host lives', () => {
    const tmp = makeTempDir()
    const { dir, file } = recordingHook(tmp)
    // In a child: before the fix, the first of these killed the process with SIGSEGV.
    const child = spawnSync(process.execPath, [path.join(FIXTURES, 'hostile-input.js'), ADDON_DIR, dir], {
      encoding: 'utf8',
      timeout: 60000,
    })
    expect({ signal: child.signal, status: child.status, stderr: child.stderr }).toEqual({ signal: null, status: 0, stderr: '' })
    const results = JSON.parse(child.stdout)
    expect(results).toHaveLength(8)
    for (const r of results) {
      expect(r).toMatchObject({ outcome: 'rejected', code: 'ERR_INVALID_HOOK_INPUT' })
      expect(r.message).toMatch(/JSON\.stringify could not serialize it .*no cycles/)
    }
    // V8's JSON.stringify throws RangeError past its depth; a cycle is a TypeError.
    expect(results.find((r) => r.label === 'runHook depth100000').cause).toBe('RangeError')
    expect(results.find((r) => r.label === 'runHook cyclic').cause).toBe('TypeError')
    expect(fs.existsSync(file)).toBe(false)
  })

  test('the cause of a refused input is exactly what JSON.stringify threw (cycle, BigInt, a toJSON that throws)', async () => {
    const tmp = makeTempDir()
    const { dir } = recordingHook(tmp)
    const cyclic = {}
    cyclic.self = cyclic
    const mine = new Error('mine')
    for (const input of [cyclic, { n: 1n }, { a: { toJSON() { throw mine } } }]) {
      let thrown
      try {
        JSON.stringify(input)
      } catch (err) {
        thrown = err
      }
      const err = await rejectionOf(() => runHook('TaskStart', input, opts({ extraHooksDirs: [dir] })))
      expect(err.constructor.name).toBe('TypeError') // a real TypeError (instanceof fails across Jest's realm)
      expect(err.code).toBe('ERR_INVALID_HOOK_INPUT')
      expect(err.cause.constructor.name).toBe(thrown.constructor.name)
      expect(err.cause.message).toBe(thrown.message)
    }
    const err = await rejectionOf(() => runHook('TaskStart', { a: { toJSON() { throw mine } } }, opts({ extraHooksDirs: [dir] })))
    expect(err.cause).toBe(mine)
  })

  test('the hook receives exactly JSON.stringify(input) plus the filled fields, on one line', async () => {
    const tmp = makeTempDir()
    const { dir, file } = recordingHook(tmp)
    // 1,000 levels: serde_json's 128-level limit would have refused it.
    let deep = 'bottom'
    for (let i = 0; i < 1000; i++) deep = [deep]
    const input = Object.assign(Object.create({ inherited: 'not sent' }), {
      hookName: undefined, // dropped by JSON.stringify: must not block the filling
      when: new Date(Date.UTC(2026, 0, 15, 10, 30)),
      custom: { toJSON: () => ({ replaced: true }) },
      dropped: undefined,
      fn: () => 1,
      list: [undefined, () => 1, Symbol('s'), NaN],
      text: 'line\nbreak \u2028 "quoted" é 😀',
      number: 0.30000000000000004,
      deep,
    })
    const result = await runHook('TaskStart', input, opts({ extraHooksDirs: [dir], workspaceRoots: [tmp] }))
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
    const got = fs.readFileSync(file, 'utf8')
    const given = JSON.stringify(input)
    const prefix = `${given.slice(0, -1)},"hookName":"TaskStart","timestamp":"`
    const suffix = `","workspaceRoots":${JSON.stringify([tmp])},"model":{"provider":"unknown","slug":"unknown"}}\n`
    expect(got.startsWith(prefix)).toBe(true)
    expect(got.endsWith(suffix)).toBe(true)
    expect(got.slice(prefix.length, -suffix.length)).toMatch(/^\d{13}$/)
    expect(got.indexOf('\n')).toBe(got.length - 1)
  })

  test('fields the caller set are kept as they were, and an empty object gets no stray comma', async () => {
    const tmp = makeTempDir()
    const { dir, file } = recordingHook(tmp)
    const input = { model: null, timestamp: '2026-01-15T10:30:00Z', hookName: 'tool_call', workspaceRoots: [] }
    await runHook('TaskStart', input, opts({ extraHooksDirs: [dir] }))
    expect(fs.readFileSync(file, 'utf8')).toBe(`${JSON.stringify(input)}\n`)
    await runHook('TaskStart', {}, opts({ extraHooksDirs: [dir] }))
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^\{"hookName":"TaskStart","timestamp":"\d+","workspaceRoots":\[\],"model":/)
  })

  test('an input whose toJSON gives a non-object (a Date, a string, an array, undefined) is refused as not a JSON object', async () => {
    const tmp = makeTempDir()
    const { dir, file } = recordingHook(tmp)
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    for (const input of [new Date(0), { toJSON: () => 'x' }, { toJSON: () => [1] }, { toJSON: () => undefined }, new String('s')]) {
      for (const call of [() => runHook('TaskStart', input, opts({ extraHooksDirs: [dir] })), () => runner.run(input)]) {
        const err = await rejectionOf(call)
        expect(err.code).toBe('ERR_INVALID_HOOK_INPUT')
        expect(err.message).toContain('must be a JSON object')
      }
    }
    expect(fs.existsSync(file)).toBe(false)
  })
})

describeUnix('A10: every bad call rejects with a typed code and a message that names the fix', () => {
  // A fresh folder with a trivial hook per test (temp dirs are removed after each test).
  let dir
  beforeEach(() => {
    dir = path.join(makeTempDir(), 'hooks')
    writeHook(dir, 'TaskStart', 'cat > /dev/null\n')
  })

  test.each([
    [42, 'a number'],
    [undefined, 'null or undefined'],
    [Symbol('x'), 'a symbol'],
    [{ toString: () => 'TaskStart' }, 'an object'],
    [10n, 'a BigInt'],
  ])('a hook name that is not a string (%p) rejects with ERR_INVALID_HOOK_NAME from every call', async (name, what) => {
    const factory = new HookFactory(opts({ extraHooksDirs: [dir] }))
    for (const call of [
      () => runHook(name, {}, opts({ extraHooksDirs: [dir] })),
      () => discoverHooks(name, opts()),
      () => factory.hasHook(name),
      () => factory.create(name),
    ]) {
      const err = await rejectionOf(call)
      expect(err.constructor.name).toBe('TypeError') // a real TypeError (instanceof fails across Jest's realm)
      expect(err.code).toBe('ERR_INVALID_HOOK_NAME')
      expect(err.message).toBe(`the hook name must be a string such as "PreToolUse", not ${what}.`)
    }
  })

  test('a 30 MB hook name is refused with a short message', async () => {
    const err = await rejectionOf(() => discoverHooks('A'.repeat(30 * 1024 * 1024), opts()))
    expect(err.code).toBe('ERR_INVALID_HOOK_NAME')
    expect(err.message.length).toBeLessThan(300)
  })

  test.each([
    [-1, '-1'],
    [0, '0'],
    [1.5, '1.5'],
    [2 ** 32 + 1, '4294967297'],
    [1025, '1025'],
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
  ])('maxConcurrentHooks: %p is refused everywhere (an integer from 1 to 1024)', async (value, shown) => {
    const expected = `invalid option maxConcurrentHooks: ${shown} is not a process count; use an integer from 1 to 1024`
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    for (const call of [
      () => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], maxConcurrentHooks: value })),
      () => runner.run({}, { maxConcurrentHooks: value }),
      () => discoverHooks('TaskStart', opts({ maxConcurrentHooks: value })),
    ]) {
      const err = await rejectionOf(call)
      expect([err.code, err.message]).toEqual(['ERR_INVALID_OPTION', expected])
    }
    expect(() => new HookFactory(opts({ maxConcurrentHooks: value }))).toThrow(expected)
  })

  test.each([
    ['a string', 'fast'],
    ['a number', 5],
    ['an array', [{ timeoutMs: 5 }]],
    ['a boolean', true],
    ['a function', () => ({})],
  ])('options that are not an object (%s) are refused', async (what, options) => {
    const expected = `invalid option options: must be an object such as { timeoutMs: 5000 } (or undefined for the defaults), not ${what}`
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    for (const call of [() => runHook('TaskStart', {}, options), () => runner.run({}, options), () => discoverHooks('TaskStart', options)]) {
      const err = await rejectionOf(call)
      expect([err.code, err.message]).toEqual(['ERR_INVALID_OPTION', expected])
    }
    expect(() => new HookFactory(options)).toThrow(expected)
  })

  test('undefined and null options mean the defaults', async () => {
    for (const options of [undefined, null]) {
      await expect(discoverHooks('TaskStart', options)).resolves.toEqual(expect.any(Array))
      expect(new HookFactory(options)).toBeInstanceOf(HookFactory)
    }
  })

  test.each([
    ['workspaceRoot', 'workspaceRoots'],
    ['timeOutMs', 'timeoutMs'],
    ['signl', 'signal'],
    ['TIMEOUTMS', 'timeoutMs'],
    ['extraHookDirs', 'extraHooksDirs'],
  ])('a misspelled option (%s) is refused, naming %s', async (typo, meant) => {
    const err = await rejectionOf(() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], [typo]: 1 })))
    expect(err.code).toBe('ERR_INVALID_OPTION')
    expect(err.message).toMatch(new RegExp(`^unknown option "${typo}": did you mean "${meant}"\\?`))
  })

  test('a run option given to discovery says where it belongs, and the constructor throws it', async () => {
    const err = await rejectionOf(() => discoverHooks('TaskStart', opts({ timeoutMs: 5 })))
    expect(err.code).toBe('ERR_INVALID_OPTION')
    expect(err.message).toContain('discoverHooks does not take "timeoutMs", an option of runs (runHook, runner.run)')
    let thrown
    try {
      new HookFactory(opts({ timeOutMs: 5 }))
    } catch (e) {
      thrown = e
    }
    expect(thrown.constructor.name).toBe('TypeError')
    expect(thrown.code).toBe('ERR_INVALID_OPTION')
    expect(thrown.message).toContain('new HookFactory does not take "timeoutMs"')
  })

  test('an option of the wrong type is named with its value and what to use', async () => {
    for (const [bad, message] of [
      [{ sequential: 'yes' }, 'invalid option sequential: "yes" is a string; use true or false'],
      [{ timeoutMs: '100' }, 'invalid option timeoutMs: "100" is a string; use a number of milliseconds'],
      [{ workspaceRoots: 'x' }, 'invalid option workspaceRoots: "x" is a string; use an array of directory paths'],
      [{ env: [] }, 'invalid option env: an array was given; use an object of variable names to string values'],
    ]) {
      const err = await rejectionOf(() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], ...bad })))
      expect([err.code, err.message]).toEqual(['ERR_INVALID_OPTION', message])
    }
  })

  test('getters and Proxies that throw reject with what they threw as the cause (and the constructor throws it)', async () => {
    const boom = new Error('boom')
    const throwing = () => {
      throw boom
    }
    const cases = [
      [Object.defineProperty(opts({ extraHooksDirs: [dir] }), 'timeoutMs', { enumerable: true, get: throwing }), 'timeoutMs'],
      [new Proxy({}, { ownKeys: throwing }), 'options'],
      // Only own options are read: the first of them is named.
      [new Proxy(opts(), { get: throwing }), 'globalHooksDir'],
      [opts({ extraHooksDirs: [dir], signal: { get aborted() { throw boom }, addEventListener() {} } }), 'signal'],
    ]
    for (const [options, option] of cases) {
      const err = await rejectionOf(() => runHook('TaskStart', {}, options))
      expect(err.code).toBe('ERR_INVALID_OPTION')
      expect(err.message).toMatch(new RegExp(`^invalid option ${option}: `))
      expect(err.cause).toBe(boom)
    }
    let thrown
    try {
      new HookFactory(Object.defineProperty({}, 'profile', { enumerable: true, get: throwing }))
    } catch (e) {
      thrown = e
    }
    expect([thrown.code, thrown.cause]).toEqual(['ERR_INVALID_OPTION', boom])
    // Nothing was left pending: the next call works.
    await expect(runHook('TaskStart', {}, opts({ extraHooksDirs: [dir] }))).resolves.toMatchObject({ cancel: false })
  })

  test('an AbortSignal-like whose addEventListener throws is refused with the cause', async () => {
    const boom = new Error('no listeners here')
    const signal = {
      aborted: false,
      addEventListener() {
        throw boom
      },
    }
    const err = await rejectionOf(() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal })))
    expect(err.code).toBe('ERR_INVALID_OPTION')
    expect(err.message).toMatch(/^invalid option signal: listening to it failed/)
    expect(err.cause).toBe(boom)
  })
})

describeUnix('options and a polluted Object.prototype', () => {
  test("only the caller's own options count, and no setter up the prototype chain runs", () => {
    // In a child: the addon's objects come from Node's main realm, not from Jest's sandbox.
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, 'TaskStart', `echo '{"contextModification": "ran"}'\n`)
    const script = `
      const { runHook } = require(${JSON.stringify(ADDON_DIR)})
      const options = { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}] }
      const report = (name, p) => p.then((r) => ({ name, ok: r.contextModification }), (e) => ({ name, code: e.code, message: e.message }))
      ;(async () => {
        const out = []
        Object.prototype.timeoutMs = -5
        out.push(await report('inherited value', runHook('TaskStart', {}, options)))
        delete Object.prototype.timeoutMs
        Object.defineProperty(Object.prototype, 'timeoutMs', { configurable: true, set() { throw new Error('setter ran') } })
        out.push(await report('inherited setter', runHook('TaskStart', {}, { ...options, timeoutMs: 5000 })))
        delete Object.prototype.timeoutMs
        console.log(JSON.stringify(out))
      })()`
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000 })
    expect(child.stderr).toBe('')
    expect(JSON.parse(child.stdout)).toEqual([
      { name: 'inherited value', ok: 'ran' },
      { name: 'inherited setter', ok: 'ran' },
    ])
  })
})

describeUnix('A9: AbortSignal at the boundary', () => {
  test("an abort's rejection carries signal.reason as its cause, aborted before or during the run", async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const started = path.join(tmp, 'started')
    writeHook(dir, 'TaskStart', `touch ${shq(started)}\nexec sleep 30\n`)
    const reason = new Error('the user pressed stop')

    const before = new AbortController()
    before.abort(reason)
    const early = await rejectionOf(() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal: before.signal })))
    expect([early.name, early.code, early.cause]).toEqual(['AbortError', 'ABORT_ERR', reason])

    const during = new AbortController()
    const run = outcomeOf(() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal: during.signal })))
    const deadline = Date.now() + 10000
    while (!fs.existsSync(started) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    during.abort(reason)
    const late = (await run).rejected
    expect([late.name, late.code, late.cause]).toEqual(['AbortError', 'ABORT_ERR', reason])

    // The default reason (a DOMException) is passed on too.
    const plain = new AbortController()
    plain.abort()
    const err = await rejectionOf(() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal: plain.signal })))
    expect(err.cause).toBe(plain.signal.reason)
    expect(err.cause.name).toBe('AbortError')
  })

  test("a signal aborted by the caller's own code during the call (the input's toJSON, a getter) rejects and starts no hook", async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const started = path.join(tmp, 'started')
    writeHook(dir, 'TaskStart', `touch ${shq(started)}\nexec sleep 30\n`)
    const reason = new Error('aborted while the input was read')
    const viaToJSON = new AbortController()
    const input = { toJSON: () => (viaToJSON.abort(reason), {}) }
    const err = await rejectionOf(() => runHook('TaskStart', input, opts({ extraHooksDirs: [dir], signal: viaToJSON.signal, timeoutMs: 2000 })))
    expect([err.name, err.code, err.cause]).toEqual(['AbortError', 'ABORT_ERR', reason])

    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    const viaGetter = new AbortController()
    const sneaky = {}
    Object.defineProperty(sneaky, 'taskId', { enumerable: true, get: () => (viaGetter.abort(), 't') })
    const again = await rejectionOf(() => runner.run(sneaky, { signal: viaGetter.signal, timeoutMs: 2000 }))
    expect(again.code).toBe('ABORT_ERR')
    expect(fs.existsSync(started)).toBe(false)
  })

  test('process.exit() with a run holding a signal prints no "ObjectRef is not unref" warning', () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, 'TaskStart', 'exec sleep 30\n')
    const child = spawnSync(process.execPath, [path.join(FIXTURES, 'exit-with-signal.js'), ADDON_DIR, dir], {
      encoding: 'utf8',
      timeout: 30000,
    })
    expect(child.status).toBe(0)
    expect(child.stderr).not.toContain('ObjectRef is not unref')
    expect(child.stderr).toBe('')
  })
})
