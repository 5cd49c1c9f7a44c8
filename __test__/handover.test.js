'use strict'

// Issue 11: results reach JavaScript the same whatever the host did to its globals. A host
// that replaced JSON.parse (before or after loading the addon) or put setters on
// Object.prototype gets exactly the result a plain host gets, and `slowest` is one of `hooks`.
// Errors too: a throwing setter for `code`, `name`, `cause` or `once` does not turn a rejection into
// a synchronous throw or an uncaught exception.

const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawnSync } = require('child_process')

const { addon, describeUnix, makeTempDir, writeHook, echoJson, opts } = require('./helpers')

const HOST = path.join(__dirname, 'fixtures', 'handover', 'host.js')
const SETTERS_HOST = path.join(__dirname, 'fixtures', 'handover', 'setters-host.js')
const ADDON_DIR = path.join(__dirname, '..')

/** Hooks whose output carries what a changed JSON.parse would change (kept for the whole file). */
function hooks() {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'cline-hooks-handover-'))
  writeHook(
    dir,
    'PreToolUse',
    `cat >/dev/null\n${echoJson({
      cancel: true,
      contextModification: '2024-01-01T00:00:00Z is when',
      errorMessage: 'ünïcødé ✓',
    })}`,
  )
  // JSON text with a "__proto__" key, which an object literal cannot print.
  writeHook(
    path.join(dir, 'b'),
    'PreToolUse',
    `cat >/dev/null\nprintf '%s\\n' '{"cancel":false,"__proto__":{"x":1},"when":"2024-02-02","deep":[1,{"a":null,"b":[true,1.5e300]}]}'`,
  )
  return [dir, path.join(dir, 'b')]
}

function runIn(dirs, change) {
  const child = spawnSync(process.execPath, [HOST, ADDON_DIR, dirs.join(path.delimiter), change], { encoding: 'utf8', timeout: 60_000 })
  if (child.status !== 0) throw new Error(`host (${change}) exited ${child.status}: ${child.stderr}`)
  return JSON.parse(child.stdout)
}

describeUnix('results whatever the host did to its globals', () => {
  let dirs
  let plain
  beforeAll(() => {
    dirs = hooks()
    plain = runIn(dirs, 'none:none')
  }, 120_000)
  afterAll(() => fs.rmSync(dirs[0], { recursive: true, force: true }))

  test('a plain host: slowest is one of hooks, plain prototypes, a "__proto__" key is an own key', () => {
    expect(plain.rejected).toBeUndefined()
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
    expect(changed).toEqual(plain)
  }, 60_000)
})

describeUnix('slowest', () => {
  test('is the very object in hooks that took longest', async () => {
    const dir = makeTempDir()
    writeHook(dir, 'PreToolUse', `cat >/dev/null\nsleep 0.3\n${echoJson({ cancel: false })}`)
    writeHook(path.join(dir, 'fast'), 'PreToolUse', `cat >/dev/null\n${echoJson({ cancel: false })}`)
    const result = await addon.runHook('PreToolUse', { taskId: 't' }, opts({ extraHooksDirs: [path.join(dir, 'fast'), dir] }))
    expect(result.hooks).toHaveLength(2)
    expect(result.slowest).toBe(result.hooks[1])
  })
})

describeUnix('errors whatever setters the host put on its prototypes', () => {
  test('every failure rejects with its own code, name and cause; the host lives', () => {
    const dir = makeTempDir()
    const hook = writeHook(dir, 'PreToolUse', 'cat >/dev/null\nexec sleep 60')
    const child = spawnSync(process.execPath, [SETTERS_HOST, ADDON_DIR, hook], { encoding: 'utf8', timeout: 60_000 })
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
