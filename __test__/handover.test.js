'use strict'

// Issue 11: results reach JavaScript the same whatever the host did to its globals. A host
// that replaced JSON.parse (before or after loading the addon) or put setters on
// Object.prototype gets exactly the result a plain host gets, and `slowest` is one of `hooks`.
// Errors too: a throwing setter for `code`, `name`, `cause` or `once` does not turn a rejection into
// a synchronous throw or an uncaught exception.
//
// Every test runs on both platforms: the hooks are node programs (`writeProgram`: `#!` on Unix,
// a `.cmd` on Windows), and the fast hook of `slowest` is the platform's quickest hook
// (`writeQuickHook`: sh on Unix, hookbot.exe on Windows). The hosts compare whole results,
// warnings included, so their hooks are not .exe files: under Wine a directly started .exe
// hook's stdout sometimes closes more than 150 ms after it exits, which adds a warning.

const fs = require('fs')
const os = require('os')
const path = require('path')

const {
  addon,
  makeTempDir,
  writeProgram,
  writeQuickHook,
  quickHooksAvailable,
  printJson,
  readInputThen,
  STAY_ALIVE,
  opts,
  expectCompleted,
  nodeSync,
} = require('./helpers')
const programs = require('./hook-programs')

const HOST = path.join(__dirname, 'fixtures', 'handover', 'host.js')
const SETTERS_HOST = path.join(__dirname, 'fixtures', 'handover', 'setters-host.js')
const ADDON_DIR = path.join(__dirname, '..')

/**
 * The platform's quickest hook that reads its input and prints `verdict` (writeQuickHook), or a
 * node program printing it where hookbot.exe is not built (Windows outside the lane).
 */
function quickHook(dir, event, verdict) {
  if (quickHooksAvailable) return writeQuickHook(dir, event, verdict)
  return writeProgram(dir, event, readInputThen(printJson(verdict)))
}

/** Hooks whose output carries what a changed JSON.parse would change (kept for the whole file). */
function hooks() {
  const base = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'cline-hooks-handover-'))
  const dir = path.join(base, 'hooks')
  // On Windows the programs behind the .cmd hooks are kept beside the hooks for the whole file
  // (the helpers' temp folders are removed after each test).
  const makeDir = (prefix) => fs.mkdtempSync(path.join(base, prefix))
  const printing = (verdict) => readInputThen(printJson(verdict))
  programs.writeProgram(
    makeDir,
    dir,
    'PreToolUse',
    printing({
      cancel: true,
      contextModification: '2024-01-01T00:00:00Z is when',
      errorMessage: 'ünïcødé ✓',
    }),
  )
  // JSON text with a "__proto__" key, which an object literal cannot print (JSON.parse makes it
  // an own key, which JSON.stringify prints).
  programs.writeProgram(
    makeDir,
    path.join(dir, 'b'),
    'PreToolUse',
    printing(JSON.parse('{"cancel":false,"__proto__":{"x":1},"when":"2024-02-02","deep":[1,{"a":null,"b":[true,1.5e300]}]}')),
  )
  return { base, dirs: [dir, path.join(dir, 'b')] }
}

function runIn(dirs, change) {
  const child = nodeSync([HOST, ADDON_DIR, dirs.join(path.delimiter), change], { encoding: 'utf8', timeout: 60_000 })
  if (child.status !== 0) throw new Error(`host (${change}) exited ${child.status}: ${child.stderr}`)
  return JSON.parse(child.stdout)
}

describe('results whatever the host did to its globals', () => {
  let base
  let dirs
  let plain
  beforeAll(() => {
    ;({ base, dirs } = hooks())
    plain = runIn(dirs, 'none:none')
    if (plain.result) plain.result.hooks.forEach(expectCompleted)
  }, 120_000)
  afterAll(() => fs.rmSync(base, { recursive: true, force: true, maxRetries: 10 }))

  test('a plain host: slowest is one of hooks, plain prototypes, a "__proto__" key is an own key', () => {
    expect(plain.rejected).toBeUndefined()
    expect(plain.result.hooks.map((h) => [h.status, h.failure])).toEqual([
      ['completed', undefined],
      ['completed', undefined],
    ])
    expect(plain.facts).toEqual({ slowestIsAHook: true, prototypesPlain: true, protoKeyIsOwn: true, datesStayStrings: true })
    expect(plain.result.cancel).toBe(true)
    expect(plain.result.hooks).toHaveLength(2)
    expect(plain.discovered).toHaveLength(2)
    expect(plain.runnerHooks).toEqual(plain.discovered)
    expect(plain.result.hooks[1].output).toEqual({ cancel: false, ['__proto__']: { x: 1 }, when: '2024-02-02', deep: [1, { a: null, b: [true, 1.5e300] }] })
  })

  test.each([
    'before:reviver',
    'after:reviver',
    'before:throws',
    'after:throws',
    'before:proxy',
    'before:setter',
    'after:setter',
    'before:lie',
    'before:realm',
    'before:dateparse',
    'after:arrays',
  ])('a host changed %s gets the same result', (change) => {
    const changed = runIn(dirs, change)
    // A hook that did not complete says why (its stderr), which a diff of the whole result cuts off.
    if (changed.result) changed.result.hooks.forEach(expectCompleted)
    expect(changed).toEqual(plain)
  }, 60_000)
})

describe('slowest', () => {
  test('is the very object in hooks that took longest', async () => {
    const dir = makeTempDir()
    // A node program that waits 2 s before it answers, beside the quickest hook: far apart
    // whatever a process costs to start here.
    writeProgram(dir, 'PreToolUse', readInputThen(`setTimeout(() => {\n${printJson({ cancel: false })}}, 2000)`))
    quickHook(path.join(dir, 'fast'), 'PreToolUse', { cancel: false })
    const result = await addon.runHook('PreToolUse', { taskId: 't' }, opts({ extraHooksDirs: [path.join(dir, 'fast'), dir], timeoutMs: 30000 }))
    expect(result.hooks.map((h) => h.status)).toEqual(['completed', 'completed'])
    expect(result.slowest).toBe(result.hooks[1])
  })
})

describe('errors whatever setters the host put on its prototypes', () => {
  test('every failure rejects with its own code, name and cause; the host lives', () => {
    const dir = makeTempDir()
    // A hook that runs until it is stopped.
    const hook = writeProgram(dir, 'PreToolUse', `process.stdin.resume()\n${STAY_ALIVE}`)
    // The host takes the hook's name from the path it is given: on Windows the hook is
    // PreToolUse.cmd, so it gets the path without the extension (the same path on Unix).
    const named = path.join(path.dirname(hook), 'PreToolUse')
    const child = nodeSync([SETTERS_HOST, ADDON_DIR, named], { encoding: 'utf8', timeout: 60_000 })
    expect(child.status).toBe(0)
    const out = JSON.parse(child.stdout)
    expect(out).toEqual({
      badName: { rejected: { code: 'ERR_INVALID_HOOK_NAME', name: 'TypeError', cause: undefined, isError: true } },
      badOption: { rejected: { code: 'ERR_INVALID_OPTION', name: 'TypeError', cause: undefined, isError: true } },
      preAborted: { rejected: { code: 'ABORT_ERR', name: 'AbortError', cause: 'early', isError: true } },
      inFlight: { rejected: { code: 'ABORT_ERR', name: 'AbortError', cause: 'late', isError: true } },
      listened: { rejected: { code: 'ABORT_ERR', name: 'AbortError', cause: 'later', isError: true } },
    })
  }, 60_000)
})
