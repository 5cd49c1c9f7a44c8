'use strict'

// Issue 10, A1, A9 (binding items) and A10: the addon boundary. Hostile input never takes
// the host down, the hook gets exactly JSON.stringify's bytes, and every bad call rejects
// with a typed code, a message naming the option, the value and the fix, and the cause.
//
// Every test runs on both platforms: its hooks are node programs (`writeProgram`: `#!` on Unix,
// a `.cmd` on Windows) or the platform's quickest hook (`writeQuickHook`). Unix-only: removing
// the current directory (Windows refuses), and Linux's limit on one variable.

const fs = require('fs')
const path = require('path')
const { spawnSync } = require('child_process')

const {
  addon,
  testUnix,
  testIf,
  makeTempDir,
  writeHook,
  writeProgram,
  writeQuickHook,
  quickHooksAvailable,
  printJson,
  readInputThen,
  opts,
  nodeSync,
} = require('./helpers')

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

/** A hook that saves its stdin to `file`, byte for byte, and prints nothing. */
function recordingHook(tmp) {
  const dir = path.join(tmp, 'hooks')
  const file = path.join(tmp, 'stdin.json')
  writeProgram(
    dir,
    'TaskStart',
    `const chunks = []
process.stdin.on('data', (c) => chunks.push(c))
process.stdin.on('end', () => require('fs').writeFileSync(${JSON.stringify(file)}, Buffer.concat(chunks)))
`,
  )
  return { dir, file }
}

/** A hook that creates the file `started`, then lives 30 s (until it is stopped). */
function startedHook(dir, started) {
  writeProgram(dir, 'TaskStart', `require('fs').writeFileSync(${JSON.stringify(started)}, '')\nsetTimeout(() => {}, 30000)\n`)
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

describe('A1: hostile input never takes the host down', () => {
  test('inputs 20,000 and 100,000 levels deep and a cyclic input reject with ERR_INVALID_HOOK_INPUT, and the host lives', () => {
    const tmp = makeTempDir()
    const { dir, file } = recordingHook(tmp)
    // In a child: before the fix, the first of these killed the process with SIGSEGV.
    const child = nodeSync([path.join(FIXTURES, 'hostile-input.js'), ADDON_DIR, dir], {
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
      expect([err.name, err instanceof addon.HookError]).toEqual(['TypeError', true]) // a HookError of its TypeError kind
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

describe('A10: every bad call rejects with a typed code and a message that names the fix', () => {
  // A fresh folder with a trivial hook per test (temp dirs are removed after each test).
  let dir
  beforeEach(() => {
    dir = path.join(makeTempDir(), 'hooks')
    quickHook(dir, 'TaskStart', {})
  })

  test.each([
    [42, 'the number 42'],
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
      expect([err.name, err instanceof addon.HookError]).toEqual(['TypeError', true]) // a HookError of its TypeError kind
      expect(err.code).toBe('ERR_INVALID_HOOK_NAME')
      expect(err.message).toBe(`the hook name (the first argument) must be a string such as "PreToolUse", not ${what}.`)
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
    ['the string "fast"', 'fast'],
    ['the number 5', 5],
    ['an array', [{ timeoutMs: 5 }]],
    ['the boolean true', true],
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
    expect([thrown.name, thrown instanceof addon.HookError]).toEqual(['TypeError', true])
    expect(thrown.code).toBe('ERR_INVALID_OPTION')
    expect(thrown.message).toContain('new HookFactory does not take "timeoutMs"')
  })

  test('an option of the wrong type is named with its value and what to use', async () => {
    for (const [bad, message] of [
      [{ sequential: 'yes' }, 'invalid option sequential: "yes" is a string; use true or false'],
      [{ timeoutMs: '100' }, 'invalid option timeoutMs: "100" is a string; use a number of milliseconds'],
      [{ workspaceRoots: 'x' }, 'invalid option workspaceRoots: "x" is a string; use an array of directory paths'],
      [{ env: [] }, "invalid option env: an array was given; use a plain object of variable names to string values, such as { NAME: 'value' }"],
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
    expect(err.message).toMatch(/^invalid option signal: its addEventListener threw/)
    expect(err.cause).toBe(boom)
  })
})

describe('options and a polluted Object.prototype', () => {
  test("only the caller's own options count, and no setter up the prototype chain runs", () => {
    // In a child: the addon's objects come from Node's main realm, not from Jest's sandbox.
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    writeProgram(dir, 'TaskStart', printJson({ contextModification: 'ran' }))
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
    const child = nodeSync(['-e', script], { encoding: 'utf8', timeout: 30000 })
    expect(child.stderr).toBe('')
    expect(JSON.parse(child.stdout)).toEqual([
      { name: 'inherited value', ok: 'ran' },
      { name: 'inherited setter', ok: 'ran' },
    ])
  })
})

describe('issue 18, item 7: env and paths the OS cannot take are refused up front', () => {
  test('a polluted Object.prototype adds no variable to a hook\'s environment', () => {
    // In a child: the addon's objects come from Node's main realm, not from Jest's sandbox.
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    writeProgram(
      dir,
      'TaskStart',
      readInputThen(
        "const e = process.env\nprocess.stdout.write(JSON.stringify({ contextModification: 'A=' + e.A + ' POLLUTED=' + ('POLLUTED' in e ? e.POLLUTED : 'unset') }) + '\\n')",
      ),
    )
    const script = `
      const { runHook } = require(${JSON.stringify(ADDON_DIR)})
      Object.prototype.POLLUTED = 'leaked'
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}], env: { A: '1' } })
        .then((r) => console.log(JSON.stringify(r.contextModification)), (e) => console.log(JSON.stringify(e.message)))`
    const child = nodeSync(['-e', script], { encoding: 'utf8', timeout: 30000 })
    expect(child.stderr).toBe('')
    expect(JSON.parse(child.stdout)).toBe('A=1 POLLUTED=unset')
  })

  testUnix('a relative path when the current directory is gone is refused with the fix (pass an absolute path)', () => {
    const tmp = makeTempDir()
    const gone = path.join(tmp, 'gone')
    fs.mkdirSync(gone)
    const script = `
      const fs = require('fs')
      const { discoverHooks } = require(${JSON.stringify(ADDON_DIR)})
      process.chdir(${JSON.stringify(gone)})
      fs.rmdirSync(${JSON.stringify(gone)})
      discoverHooks('TaskStart', { globalHooksDir: null, workspaceRoots: ['project'] })
        .then(() => console.log('"resolved"'), (e) => console.log(JSON.stringify([e.code, e.message])))`
    const child = nodeSync(['-e', script], { encoding: 'utf8', timeout: 30000 })
    expect(child.stderr).toBe('')
    const [code, message] = JSON.parse(child.stdout)
    expect(code).toBe('ERR_INVALID_OPTION')
    expect(message).toMatch(/^invalid option workspaceRoots: "project" is relative and the current directory cannot be read \(.*\); pass an absolute path$/)
  }, undefined, { reason: "Windows does not let a process's current directory be removed (rmdir fails with EBUSY)" })

  test('an env value with a NUL is refused naming the value and its variable, not the name', async () => {
    const tmp = makeTempDir()
    const { dir, file } = recordingHook(tmp)
    const err = await rejectionOf(() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], env: { GOOD: 'x', TOKEN: 'abc\0def' } })))
    expect([err.code, err.message]).toEqual([
      'ERR_INVALID_OPTION',
      'invalid option env: the value of env.TOKEN contains a NUL byte at index 3, which no environment variable can hold; remove the NUL from the value',
    ])
    expect(fs.existsSync(file)).toBe(false)
  })

  test('a NUL in any path option is refused up front naming the option and the entry, by every call, and discovers nothing', async () => {
    const tmp = makeTempDir()
    const { dir, file } = recordingHook(tmp)
    const cases = [
      [{ workspaceRoots: [tmp, tmp, `${tmp}\0/x`] }, `workspaceRoots: workspaceRoots[2] (${JSON.stringify(`${tmp}\0/x`)}) contains a NUL byte at index ${tmp.length}`],
      [{ extraHooksDirs: [dir, '\0'] }, 'extraHooksDirs: extraHooksDirs[1] ("\\u0000") contains a NUL byte at index 0'],
      [{ globalHooksDir: '/x\0y' }, 'globalHooksDir: "/x\\u0000y" contains a NUL byte at index 2'],
      [{ profile: 'cli', clineDir: '/x\0' }, 'clineDir: "/x\\u0000" contains a NUL byte at index 2'],
    ]
    for (const [bad, start] of cases) {
      const expected = `invalid option ${start}, which no file path can hold; pass the path without it`
      const options = { extraHooksDirs: [dir], ...bad }
      for (const call of [() => runHook('TaskStart', {}, options), () => discoverHooks('TaskStart', options)]) {
        const err = await rejectionOf(call)
        expect([err.code, err.message]).toEqual(['ERR_INVALID_OPTION', expected])
      }
      expect(() => new HookFactory(options)).toThrow(expected)
    }
    expect(fs.existsSync(file)).toBe(false)
  })

  testIf(process.platform === 'linux', 'Linux only: its kernel limits one variable', 'on Linux an env variable over 32 pages is refused up front, and one just under runs', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, 'TaskStart', 'cat > /dev/null\necho "{\\"contextModification\\": \\"${#BIG}\\"}"\n')
    const page = Number(spawnSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).stdout)
    const limit = 32 * page - 1 // bytes of BIG=value; measured: one more fails with E2BIG
    const fits = 'x'.repeat(limit - 'BIG='.length)
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], env: { BIG: fits } }))
    expect(result.hooks.map((h) => [h.status, h.failure])).toEqual([['completed', undefined]])
    expect(result.contextModification).toBe(String(fits.length))
    const err = await rejectionOf(() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], env: { BIG: `${fits}x` } })))
    expect([err.code, err.message]).toEqual([
      'ERR_INVALID_OPTION',
      `invalid option env: env.BIG is ${limit + 1} bytes long as NAME=value, more than the ${limit} bytes this system allows one variable; pass large data in the hook's input or in a file instead`,
    ])
  })

  test('what a caller\'s getter or Proxy throws while env or a path entry is read is the cause', async () => {
    const tmp = makeTempDir()
    const { dir, file } = recordingHook(tmp)
    const boom = new Error('boom')
    const throwing = () => {
      throw boom
    }
    const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
    for (const [options, message] of [
      [{ env: Object.defineProperty({}, 'A', { enumerable: true, get: throwing }) }, 'invalid option env: reading env.A threw (the error\'s cause is what it threw); pass a plain object of variable names to string values'],
      [{ env: new Proxy({}, { ownKeys: throwing }) }, 'invalid option env: listing its keys threw (the error\'s cause is what it threw); pass a plain object of variable names to string values'],
    ]) {
      for (const call of [() => runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], ...options })), () => runner.run({}, options)]) {
        const err = await rejectionOf(call)
        expect([err.code, err.message, err.cause]).toEqual(['ERR_INVALID_OPTION', message, boom])
      }
    }
    const roots = Object.defineProperty([tmp], 0, { get: throwing })
    const err = await rejectionOf(() => discoverHooks('TaskStart', opts({ workspaceRoots: roots })))
    expect([err.code, err.message, err.cause]).toEqual([
      'ERR_INVALID_OPTION',
      'invalid option workspaceRoots: reading workspaceRoots[0] threw (the error\'s cause is what it threw); pass an array of directory paths',
      boom,
    ])
    expect(fs.existsSync(file)).toBe(false)
    // Nothing was left pending: the next call works.
    await expect(runner.run({}, { env: { A: '1' } })).resolves.toMatchObject({ cancel: false })
  })
})

describe('every option rejection: one sentence that names the option and the fix, through the real addon', () => {
  const boom = () => {
    throw new Error('boom')
  }
  class Vars {
    constructor() {
      this.A = '1'
    }
  }
  const lone = '/tmp/\ud800x'
  const DISCOVERY = ['runHook', 'discoverHooks', 'new HookFactory']
  const RUN = ['runHook', 'runner.run']
  const ALL = [...DISCOVERY, 'runner.run']
  const SHAPE = "use a plain object of variable names to string values, such as { NAME: 'value' }"
  const RUN_HOOK_KEYS = 'workspaceRoots, globalHooksDir, extraHooksDirs, profile, clineDir, managedHooksDir, policyFile, trust, requireHooks, claudeSettings, sandbox, sandboxWritable, sandboxNetwork, maxConcurrentHooks, timeoutMs, maxTimeoutMs, persistentIdleMs, signal, onEvent, slowThresholdMs, env, sequential, detached, onFailure, scrubEnv, auditLog, hookLogs'
  // [what, calls, options, message, options passed as they are (not added to the base)]
  const TABLE = [
    ['options that are not an object', ALL, 'fast', 'invalid option options: must be an object such as { timeoutMs: 5000 } (or undefined for the defaults), not the string "fast"', true],
    ['options whose keys cannot be listed', ALL, new Proxy({}, { ownKeys: boom }), 'invalid option options: listing its keys failed (its ownKeys threw); pass a plain object', true],
    ['a misspelled option', ['runHook'], { timeOutMs: 5 }, `unknown option "timeOutMs": did you mean "timeoutMs"? (the options of runHook are ${RUN_HOOK_KEYS})`],
    ['an option of another call', ['discoverHooks'], { timeoutMs: 5 }, 'unknown option "timeoutMs": discoverHooks does not take "timeoutMs", an option of runs (runHook, runner.run); remove it (the options of discoverHooks are workspaceRoots, globalHooksDir, extraHooksDirs, profile, clineDir, managedHooksDir, maxConcurrentHooks, maxTimeoutMs, persistentIdleMs, policyFile, trust, requireHooks, claudeSettings, sandbox, sandboxWritable, sandboxNetwork)'],
    ['an unknown option', ['runHook'], { zzz: 1 }, `unknown option "zzz": remove it (the options of runHook are ${RUN_HOOK_KEYS})`],
    ['a getter that throws', RUN, Object.defineProperty({}, 'timeoutMs', { enumerable: true, get: boom }), 'invalid option timeoutMs: reading it threw (the error\'s cause is what it threw); pass a plain value'],
    ['workspaceRoots not an array', DISCOVERY, { workspaceRoots: 'x' }, 'invalid option workspaceRoots: "x" is a string; use an array of directory paths'],
    ['extraHooksDirs an array-like', DISCOVERY, { extraHooksDirs: { 0: 'x' } }, 'invalid option extraHooksDirs: an object was given; use an array of directory paths'],
    ['globalHooksDir a number', DISCOVERY, { globalHooksDir: 5 }, 'invalid option globalHooksDir: 5 is a number; use a directory path'],
    ['clineDir an array', DISCOVERY, { clineDir: ['x'] }, 'invalid option clineDir: an array was given; use a directory path'],
    ['profile a number', DISCOVERY, { profile: 1 }, 'invalid option profile: 1 is a number; use "extension" or "cli"'],
    ['an unknown profile with a NUL', DISCOVERY, { profile: 'cli\0' }, 'invalid option profile: "cli\\u0000" is not a profile; use "extension" or "cli"'],
    ['maxConcurrentHooks a string', DISCOVERY, { maxConcurrentHooks: '4' }, 'invalid option maxConcurrentHooks: "4" is a string; use an integer from 1 to 1024'],
    ['maxConcurrentHooks out of range', ALL, { maxConcurrentHooks: 0 }, 'invalid option maxConcurrentHooks: 0 is not a process count; use an integer from 1 to 1024'],
    ['timeoutMs a string', RUN, { timeoutMs: '100' }, 'invalid option timeoutMs: "100" is a string; use a number of milliseconds'],
    ['timeoutMs out of range', RUN, { timeoutMs: 0 }, 'invalid option timeoutMs: 0 is not a timeout: use a number of milliseconds from 1 to 86400000 (24 hours)'],
    ['sequential a string', RUN, { sequential: 'yes' }, 'invalid option sequential: "yes" is a string; use true or false'],
    ['detached a number', RUN, { detached: 1 }, 'invalid option detached: 1 is a number; use true or false'],
    ['signal a string', RUN, { signal: 'abort!' }, 'invalid option signal: must be an AbortSignal (for example new AbortController().signal), not the string "abort!"'],
    ['a signal whose addEventListener throws', RUN, { signal: { aborted: false, addEventListener: boom } }, 'invalid option signal: its addEventListener threw (the error\'s cause is what it threw); pass an AbortSignal (for example new AbortController().signal)'],
    ['a NUL in workspaceRoots[2]', DISCOVERY, { workspaceRoots: ['/tmp', '/tmp', '/a\0b'] }, 'invalid option workspaceRoots: workspaceRoots[2] ("/a\\u0000b") contains a NUL byte at index 2, which no file path can hold; pass the path without it'],
    ['a NUL in extraHooksDirs[1]', DISCOVERY, { extraHooksDirs: ['/tmp', '\0'] }, 'invalid option extraHooksDirs: extraHooksDirs[1] ("\\u0000") contains a NUL byte at index 0, which no file path can hold; pass the path without it'],
    ['a NUL in globalHooksDir', DISCOVERY, { globalHooksDir: '/x\0y' }, 'invalid option globalHooksDir: "/x\\u0000y" contains a NUL byte at index 2, which no file path can hold; pass the path without it'],
    ['a NUL in clineDir', DISCOVERY, { clineDir: '/x\0', profile: 'cli' }, 'invalid option clineDir: "/x\\u0000" contains a NUL byte at index 2, which no file path can hold; pass the path without it'],
    ['a lone surrogate in workspaceRoots[0]', DISCOVERY, { workspaceRoots: [lone] }, 'invalid option workspaceRoots: workspaceRoots[0] ("/tmp/\ufffdx") holds a lone UTF-16 surrogate (\\ud800) at index 5, which is not Unicode and no file path can hold; pass the path as valid Unicode text'],
    ['a lone surrogate in clineDir', DISCOVERY, { clineDir: lone }, 'invalid option clineDir: "/tmp/\ufffdx" holds a lone UTF-16 surrogate (\\ud800) at index 5, which is not Unicode and no file path can hold; pass the path as valid Unicode text'],
    ['a number in workspaceRoots', DISCOVERY, { workspaceRoots: ['/tmp', 5] }, 'invalid option workspaceRoots: workspaceRoots[1] is a number; use a directory path (a string)'],
    ['a hole in workspaceRoots', DISCOVERY, { workspaceRoots: [, '/tmp'] }, 'invalid option workspaceRoots: workspaceRoots[0] is undefined; use a directory path (a string)'], // eslint-disable-line no-sparse-arrays
    ['null in extraHooksDirs', DISCOVERY, { extraHooksDirs: [null] }, 'invalid option extraHooksDirs: extraHooksDirs[0] is null; use a directory path (a string)'],
    ['an empty workspace root', DISCOVERY, { workspaceRoots: [''] }, 'invalid option workspaceRoots: workspaceRoots[0] is an empty string, which names no file or folder; pass a directory path or leave the entry out'],
    ['an empty globalHooksDir', DISCOVERY, { globalHooksDir: '' }, 'invalid option globalHooksDir: an empty string names no file or folder; pass a directory path, or null to turn the global hooks off'],
    ['an empty clineDir', DISCOVERY, { clineDir: '' }, 'invalid option clineDir: an empty string names no file or folder; pass a directory path or leave the option out for the default'],
    ['env a string', RUN, { env: 'A=1' }, `invalid option env: "A=1" is a string; ${SHAPE}`],
    ['env an array', RUN, { env: ['a'] }, `invalid option env: an array was given; ${SHAPE}`],
    ['env a function', RUN, { env: Object.assign(() => {}, { A: '1' }) }, `invalid option env: a function was given; ${SHAPE}`],
    ['env a Map', RUN, { env: new Map([['A', '1']]) }, 'invalid option env: a Map was given; use a plain object of variable names to string values, such as Object.fromEntries(map)'],
    ['env with inherited variables', RUN, { env: Object.create({ A: '1' }) }, `invalid option env: an object whose prototype is not Object.prototype (a class instance, Set, Date, boxed string or Object.create(...) result) was given; ${SHAPE}`],
    ['env a class instance', RUN, { env: new Vars() }, `invalid option env: an object whose prototype is not Object.prototype (a class instance, Set, Date, boxed string or Object.create(...) result) was given; ${SHAPE}`],
    ['env a Date', RUN, { env: new Date(0) }, `invalid option env: an object whose prototype is not Object.prototype (a class instance, Set, Date, boxed string or Object.create(...) result) was given; ${SHAPE}`],
    ['env a boxed string', RUN, { env: new String('ab') }, `invalid option env: an object whose prototype is not Object.prototype (a class instance, Set, Date, boxed string or Object.create(...) result) was given; ${SHAPE}`], // eslint-disable-line no-new-wrappers
    ['env keys that cannot be listed', RUN, { env: new Proxy({}, { ownKeys: boom }) }, 'invalid option env: listing its keys threw (the error\'s cause is what it threw); pass a plain object of variable names to string values'],
    ['an env getter that throws', RUN, { env: Object.defineProperty({}, 'A', { enumerable: true, get: boom }) }, 'invalid option env: reading env.A threw (the error\'s cause is what it threw); pass a plain object of variable names to string values'],
    ['an env value null', RUN, { env: { A: null } }, 'invalid option env: env.A is null; use a string, or leave the variable out to keep the inherited value'],
    ['an env value boolean', RUN, { env: { A: false } }, 'invalid option env: env.A is a boolean; use a string such as "1" or "true"'],
    ['an env value object', RUN, { env: { A: { x: 1 } } }, 'invalid option env: env.A is an object; use a string (JSON.stringify it for structured data)'],
    ['an env value array', RUN, { env: { A: ['x'] } }, 'invalid option env: env.A is an object; use a string (JSON.stringify it for structured data)'],
    ['an env value function', RUN, { env: { A: () => 'x' } }, 'invalid option env: env.A is a function; use a string'],
    ['an env value symbol', RUN, { env: { A: Symbol('s') } }, 'invalid option env: env.A is a symbol; use a string'],
    ['an env value NaN', RUN, { env: { A: NaN } }, 'invalid option env: env.A is NaN; use a string or a finite number'],
    ['an env value Infinity', RUN, { env: { A: -Infinity } }, 'invalid option env: env.A is -Infinity; use a string or a finite number'],
    ['an empty env name', RUN, { env: { '': 'x' } }, 'invalid option env: env[""] has an empty name, which no environment variable can have; give the variable a name or remove it'],
    ['an env name with =', RUN, { env: { 'A=B': 'x' } }, 'invalid option env: the name of env["A=B"] contains "=" at index 1, which ends a variable\'s name (the hook would see another variable); rename the variable'],
    ['an env name with NUL', RUN, { env: { 'A\0B': 'x' } }, 'invalid option env: the name of env["A\\u0000B"] contains a NUL byte at index 1, which no environment variable\'s name can hold; rename the variable'],
    ['an env name with a lone surrogate', RUN, { env: { 'A\udc00': 'x' } }, 'invalid option env: the name of env["A\ufffd"] holds a lone UTF-16 surrogate (\\udc00) at index 1, which is not Unicode and no environment variable\'s name can hold; rename the variable'],
    ['an env value with NUL', RUN, { env: { TOKEN: 'abc\0' } }, 'invalid option env: the value of env.TOKEN contains a NUL byte at index 3, which no environment variable can hold; remove the NUL from the value'],
    ['an env value with a lone surrogate', RUN, { env: { TOKEN: 'abc\ud800' } }, 'invalid option env: the value of env.TOKEN holds a lone UTF-16 surrogate (\\ud800) at index 3, which is not Unicode and no environment variable can hold; pass the value as valid Unicode text'],
  ]

  let dir
  let file
  let runner
  beforeEach(async () => {
    ;({ dir, file } = recordingHook(makeTempDir()))
    runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
  })

  /** `options` on top of the base (own descriptors copied, so no getter runs here). */
  function withBase(base, options, raw) {
    if (raw) return options
    return Object.defineProperties(base, Object.getOwnPropertyDescriptors(options))
  }

  /** The error one call gives, as [how it failed, name, code, message]. */
  async function failureOf(call, options, raw) {
    const calls = {
      runHook: () => runHook('TaskStart', {}, withBase(opts({ extraHooksDirs: [dir] }), options, raw)),
      discoverHooks: () => discoverHooks('TaskStart', withBase(opts(), options, raw)),
      'runner.run': () => runner.run({}, options),
    }
    if (call === 'new HookFactory') {
      try {
        new HookFactory(withBase(opts(), options, raw))
        return ['constructed']
      } catch (err) {
        return ['threw', err.name, err.code, err.message]
      }
    }
    const outcome = await outcomeOf(calls[call])
    if (outcome.threw) return ['threw synchronously', outcome.threw.message]
    if (!outcome.rejected) return ['resolved']
    const err = outcome.rejected
    return ['rejected', err.name, err.code, err.message]
  }

  // Every row gets all five values: a test function with more parameters than its row has
  // values is taken to want Jest's `done` callback.
  test.each(TABLE.map(([what, calls, options, message, raw]) => [what, calls, options, message, raw === true]))('%s', async (what, calls, options, message, raw) => {
    for (const call of calls) {
      const how = call === 'new HookFactory' ? 'threw' : 'rejected'
      expect([call, ...(await failureOf(call, options, raw))]).toEqual([call, how, 'TypeError', 'ERR_INVALID_OPTION', message])
    }
    // One sentence for a hook's author: names the option, says what to do, no control
    // characters (a NUL is shown escaped), nothing from a second sentence.
    const named = /^(?:invalid option (\w+): |unknown option "(\w+)": )/.exec(message)
    expect(named).not.toBeNull()
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(message).not.toMatch(/[.!?]\s+[A-Z]/)
    expect(message).not.toMatch(/\.$/)
    expect(message).toMatch(/\b(use|pass|remove|rename|give|did you mean|must be)\b/)
    // Short enough to read at once: the longest is an unknown option of runHook, which lists
    // runHook's 27 options.
    expect(message.length).toBeLessThan(500)
    expect(fs.existsSync(file)).toBe(false)
  })
})

describe('A9: AbortSignal at the boundary', () => {
  test("an abort's rejection carries signal.reason as its cause, aborted before or during the run", async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const started = path.join(tmp, 'started')
    startedHook(dir, started)
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
    startedHook(dir, started)
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
    writeProgram(dir, 'TaskStart', 'setTimeout(() => {}, 30000)\n')
    const child = nodeSync([path.join(FIXTURES, 'exit-with-signal.js'), ADDON_DIR, dir], {
      encoding: 'utf8',
      timeout: 30000,
    })
    expect(child.status).toBe(0)
    expect(child.stderr).not.toContain('ObjectRef is not unref')
    expect(child.stderr).toBe('')
  })
})
