'use strict'

// Issue 2, section 5 (combining hooks) and the sequential/parallel rule of RunOptions.

const path = require('path')

const { addon, describeUnix, makeTempDir, writeHook, echoJson, opts } = require('./helpers')

const { runHook, HookFactory } = addon

/** One hook per body, each in its own extra dir, so discovery order is the array order. */
function hooksInOrder(bodies, { shebang = 'sh', name = 'TaskStart' } = {}) {
  const tmp = makeTempDir()
  const dirs = bodies.map((body, i) => {
    const dir = path.join(tmp, `d${i}`)
    writeHook(dir, name, body, { shebang })
    return dir
  })
  return { dirs, paths: dirs.map((d) => path.join(d, name)) }
}

describeUnix('combining the hooks of one run', () => {
  test('any hook cancelling cancels the run', async () => {
    const { dirs } = hooksInOrder([
      'exit 0\n',
      echoJson({ cancel: false }),
      echoJson({ cancel: true }),
      echoJson({ cancel: false, contextModification: 'fine' }),
    ])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs }))
    expect(result.hooks.map((h) => h.cancel)).toEqual([false, false, true, false])
    expect(result.cancel).toBe(true)

    const none = hooksInOrder([echoJson({ cancel: false }), 'exit 0\n'])
    const allow = await runHook('TaskStart', {}, opts({ extraHooksDirs: none.dirs }))
    expect(allow.cancel).toBe(false)
  })

  test('contextModifications are trimmed and joined by a blank line in discovery order, not finish order', async () => {
    const { dirs, paths } = hooksInOrder([
      `sleep 0.6\n${echoJson({ contextModification: '  first  \n' })}`,
      `sleep 0.3\n${echoJson({ contextModification: 'second\nstill second' })}`,
      echoJson({ contextModification: '   \n ' }),
      'echo "no json at all"',
      echoJson({ contextModification: 'third' }),
    ])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs }))
    expect(result.hooks.map((h) => h.path)).toEqual(paths)
    expect(result.hooks.every((h) => h.status === 'completed')).toBe(true)
    expect(result.contextModification).toBe('first\n\nsecond\nstill second\n\nthird')
  })

  test('errorMessages are joined by newlines in discovery order, empty ones left out', async () => {
    const { dirs } = hooksInOrder([
      `sleep 0.3\n${echoJson({ errorMessage: 'first problem' })}`,
      echoJson({ errorMessage: '' }),
      echoJson({ contextModification: 'no error here' }),
      echoJson({ errorMessage: 'second problem' }),
    ])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs }))
    expect(result.errorMessage).toBe('first problem\nsecond problem')
  })

  test("a hook that failed or timed out never discards another hook's cancel", async () => {
    const gate = echoJson({ cancel: true, errorMessage: 'blocked by the gate', contextModification: 'gate context' })
    const crashed = 'echo "boom" >&2\nexit 1\n'
    const broken = `printf '%s\\n' '{"cancel": fal'\n`
    const hung = 'exec sleep 60\n'

    const gateLast = hooksInOrder([crashed, broken, hung, gate])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: gateLast.dirs, timeoutMs: 1000 }))
    expect(result.hooks.map((h) => h.status)).toEqual(['failed', 'failed', 'timedOut', 'completed'])
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('blocked by the gate')
    expect(result.contextModification).toBe('gate context')

    const gateFirst = hooksInOrder([gate, hung, broken, crashed])
    const again = await runHook('TaskStart', {}, opts({ extraHooksDirs: gateFirst.dirs, timeoutMs: 1000 }))
    expect(again.hooks.map((h) => h.status)).toEqual(['completed', 'timedOut', 'failed', 'failed'])
    expect(again.cancel).toBe(true)
    expect(again.errorMessage).toBe('blocked by the gate')
    expect(again.contextModification).toBe('gate context')
  })

  test('slowest is the execution that took longest', async () => {
    const { dirs, paths } = hooksInOrder([
      `sleep 0.1\n${echoJson({ contextModification: 'a' })}`,
      `sleep 0.8\n${echoJson({ contextModification: 'b' })}`,
      echoJson({ contextModification: 'c' }),
    ])
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs }))
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
    // One directory with nothing, one with only a disabled hook, one missing.
    const empty = path.join(tmp, 'empty')
    require('fs').mkdirSync(empty)
    const disabledDir = path.join(tmp, 'disabled')
    writeHook(disabledDir, 'TaskStart', echoJson({ cancel: true }), { mode: 0o644 })
    const options = opts({ extraHooksDirs: [empty, disabledDir, path.join(tmp, 'missing')] })

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

describeUnix('sequential and parallel runs', () => {
  // Each hook reports when it started and ended (after holding for 700 ms).
  const timed = `const start = Date.now()
setTimeout(() => console.log(JSON.stringify({ start, end: Date.now() })), 700)
`

  test('sequential: true runs the hooks one after another, in discovery order', async () => {
    const { dirs, paths } = hooksInOrder([timed, timed, timed], { shebang: 'node' })
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, sequential: true }))
    expect(result.hooks.map((h) => h.path)).toEqual(paths)
    expect(result.hooks.map((h) => h.status)).toEqual(['completed', 'completed', 'completed'])
    const times = result.hooks.map((h) => h.output)
    for (let i = 1; i < times.length; i++) {
      expect(times[i].start).toBeGreaterThanOrEqual(times[i - 1].end)
    }
  })

  test('by default the hooks of one run start together, and results stay in discovery order', async () => {
    const { dirs, paths } = hooksInOrder([timed, timed, timed], { shebang: 'node' })
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs }))
    expect(result.hooks.map((h) => h.path)).toEqual(paths)
    expect(result.hooks.map((h) => h.status)).toEqual(['completed', 'completed', 'completed'])
    const times = result.hooks.map((h) => h.output)
    // Every hook had started before any of them ended: they overlapped.
    expect(Math.max(...times.map((t) => t.start))).toBeLessThan(Math.min(...times.map((t) => t.end)))
  })
})
