'use strict'

// Issue 2, section 5 (combining hooks) and the sequential/parallel rule of RunOptions. Every
// hook is a node program (hook-programs.js), so each test runs on macOS/Linux and Windows.

const fs = require('fs')
const path = require('path')

const { addon, isWindows, makeTempDir, writeProgram, programHookName, printJson, STAY_ALIVE, opts } = require('./helpers')

const { runHook, HookFactory } = addon

// A node hook starts in ~50 ms on Linux and 0.3-0.9 s under Wine: hooks that must complete get
// 10 s, and the Jest timeout leaves room for a few of them in turn.
const MUST_COMPLETE_MS = 10000
jest.setTimeout(60000)

/** One hook per program, each in its own extra dir, so discovery order is the array order. */
function hooksInOrder(sources, { name = 'TaskStart' } = {}) {
  const tmp = makeTempDir()
  const dirs = sources.map((_, i) => path.join(tmp, `d${i}`))
  const paths = sources.map((source, i) => writeProgram(dirs[i], name, source))
  return { dirs, paths }
}

/** A program that waits `ms`, then prints `obj` as its verdict. */
const after = (ms, obj) => `setTimeout(() => { ${printJson(obj)} }, ${ms})\n`

/** A hook that is listed disabled on every platform: a folder named like the hook. */
function disabledHook(dir, event) {
  fs.mkdirSync(path.join(dir, programHookName(event)), { recursive: true })
}

describe('combining the hooks of one run', () => {
  test('any hook cancelling cancels the run', async () => {
    const { dirs } = hooksInOrder([
      '', // prints nothing, exits 0
      printJson({ cancel: false }),
      printJson({ cancel: true }),
      printJson({ cancel: false, contextModification: 'fine' }),
    ])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, timeoutMs: MUST_COMPLETE_MS }))
    expect(result.hooks.map((h) => h.cancel)).toEqual([false, false, true, false])
    expect(result.cancel).toBe(true)

    const none = hooksInOrder([printJson({ cancel: false }), ''])
    const allow = await runHook('TaskStart', {}, opts({ extraHooksDirs: none.dirs, timeoutMs: MUST_COMPLETE_MS }))
    expect(allow.cancel).toBe(false)
  })

  test('contextModifications are trimmed and joined by a blank line in discovery order, not finish order', async () => {
    const { dirs, paths } = hooksInOrder([
      after(2000, { contextModification: '  first  \n' }),
      after(1000, { contextModification: 'second\nstill second' }),
      printJson({ contextModification: '   \n ' }),
      "console.log('no json at all')\n",
      printJson({ contextModification: 'third' }),
    ])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, timeoutMs: MUST_COMPLETE_MS }))
    expect(result.hooks.map((h) => h.path)).toEqual(paths)
    expect(result.hooks.every((h) => h.status === 'completed')).toBe(true)
    expect(result.contextModification).toBe('first\n\nsecond\nstill second\n\nthird')
  })

  test('errorMessages are joined by newlines in discovery order, empty ones left out', async () => {
    const { dirs } = hooksInOrder([
      after(1000, { errorMessage: 'first problem' }),
      printJson({ errorMessage: '' }),
      printJson({ contextModification: 'no error here' }),
      printJson({ errorMessage: 'second problem' }),
    ])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, timeoutMs: MUST_COMPLETE_MS }))
    expect(result.errorMessage).toBe('first problem\nsecond problem')
  })

  test("a hook that failed or timed out never discards another hook's cancel", async () => {
    const gate = printJson({ cancel: true, errorMessage: 'blocked by the gate', contextModification: 'gate context' })
    const crashed = "console.error('boom')\nprocess.exitCode = 1\n"
    const broken = `process.stdout.write('{"cancel": fal\\n')\n`
    const hung = STAY_ALIVE

    // Both runs at once: each waits for its hung hook's timeout.
    const gateLast = hooksInOrder([crashed, broken, hung, gate])
    const gateFirst = hooksInOrder([gate, hung, broken, crashed])
    const [result, again] = await Promise.all(
      [gateLast, gateFirst].map(({ dirs }) => runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, timeoutMs: MUST_COMPLETE_MS }))),
    )
    expect(result.hooks.map((h) => h.status)).toEqual(['failed', 'failed', 'timedOut', 'completed'])
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('blocked by the gate')
    expect(result.contextModification).toBe('gate context')

    expect(again.hooks.map((h) => h.status)).toEqual(['completed', 'timedOut', 'failed', 'failed'])
    expect(again.cancel).toBe(true)
    expect(again.errorMessage).toBe('blocked by the gate')
    expect(again.contextModification).toBe('gate context')
  })

  test('slowest is the execution that took longest', async () => {
    // The middle hook waits 2.5 s: far more than a node start varies (up to ~0.6 s under Wine).
    const { dirs, paths } = hooksInOrder([
      after(100, { contextModification: 'a' }),
      after(2500, { contextModification: 'b' }),
      printJson({ contextModification: 'c' }),
    ])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, timeoutMs: MUST_COMPLETE_MS }))
    expect(result.slowest).not.toBeNull()
    expect(result.slowest.path).toBe(paths[1])
    expect(result.slowest).toEqual(result.hooks[1])
    const longest = Math.max(...result.hooks.map((h) => h.durationMs))
    expect(result.slowest.durationMs).toBe(longest)
    expect(result.slowest.durationMs).toBeGreaterThanOrEqual(700)
    expect(result.durationMs).toBeGreaterThanOrEqual(result.slowest.durationMs - 1)
  })

  test('no hooks: cancel false, no executions, slowest null', async () => {
    const tmp = makeTempDir()
    // One directory with nothing, one with only a disabled hook, one missing. The disabled
    // hook is a folder named like the hook, disabled on every platform (a file without an exec
    // bit is the Unix case: discovery.test.js).
    const empty = path.join(tmp, 'empty')
    fs.mkdirSync(empty)
    const disabledDir = path.join(tmp, 'disabled')
    disabledHook(disabledDir, 'TaskStart')
    const options = opts({ extraHooksDirs: [empty, disabledDir, path.join(tmp, 'missing')] })
    const [disabled] = await addon.discoverHooks('TaskStart', options)
    expect(disabled.enabled).toBe(false)

    for (const result of [
      await runHook('TaskStart', { any: 'input' }, options),
      await (await new HookFactory(options).create('TaskStart')).run({}),
    ]) {
      expect(result.cancel).toBe(false)
      expect(result.hooks).toEqual([])
      expect(result.slowest).toBeNull()
      expect(result.contextModification).toBe('')
      expect(result.errorMessage).toBe('')
    }
  })
})

describe('sequential and parallel runs', () => {
  // Each hook reports when it started and ended, after holding for `holdMs`.
  const timed = (holdMs) => `const start = Date.now()
setTimeout(() => console.log(JSON.stringify({ start, end: Date.now() })), ${holdMs})
`
  // Long enough, where a node start takes up to ~0.9 s (Wine), that hooks started together overlap.
  const OVERLAP_HOLD_MS = isWindows ? 5000 : 1000

  test('sequential: true runs the hooks one after another, in discovery order', async () => {
    const { dirs, paths } = hooksInOrder([timed(700), timed(700), timed(700)])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, sequential: true, timeoutMs: MUST_COMPLETE_MS }))
    expect(result.hooks.map((h) => h.path)).toEqual(paths)
    expect(result.hooks.map((h) => h.status)).toEqual(['completed', 'completed', 'completed'])
    const times = result.hooks.map((h) => h.output)
    for (let i = 1; i < times.length; i++) {
      expect(times[i].start).toBeGreaterThanOrEqual(times[i - 1].end)
    }
  })

  test('by default the hooks of one run start together, and results stay in discovery order', async () => {
    const hold = timed(OVERLAP_HOLD_MS)
    const { dirs, paths } = hooksInOrder([hold, hold, hold])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, timeoutMs: MUST_COMPLETE_MS + OVERLAP_HOLD_MS }))
    expect(result.hooks.map((h) => h.path)).toEqual(paths)
    expect(result.hooks.map((h) => h.status)).toEqual(['completed', 'completed', 'completed'])
    const times = result.hooks.map((h) => h.output)
    // Every hook had started before any of them ended: they overlapped.
    expect(Math.max(...times.map((t) => t.start))).toBeLessThan(Math.min(...times.map((t) => t.end)))
  })
})
