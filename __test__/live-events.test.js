// Issue 15 item 1: live events (RunOptions.onEvent, slowThresholdMs). Real hooks (node
// programs, so they run on both platforms) report their start, output lines, slow mark and end
// to onEvent: in order per hook, all before the run's promise settles, with the line limit
// and cut; a throwing or slow callback changes nothing about the run, and nothing is left to
// keep Node alive after it.
const fs = require('fs')
const path = require('path')
const { addon, testUnix, makeWorkspace, makeTempDir, hooksDirOf, writeHook, writeProgram, printJson, readInputThen, opts, expectCompleted, writePidTo, waitForPid, waitFor, isAlive, nodeSync } = require('./helpers')

const { runHook, HookFactory } = addon
const TRUNCATED = "[truncated: the rest of this hook's output is not sent as events]"

/** Runs `hookName` with an onEvent that records every event, and when the promise settled. */
async function observed(hookName, options) {
  const events = []
  let settled = false
  const lateEvents = []
  const result = await runHook(hookName, {}, {
    ...options,
    onEvent: (event) => {
      if (settled) lateEvents.push(event)
      events.push(event)
    },
  })
  settled = true
  return { result, events, lateEvents }
}

/** The events of the hook at `file`, in the order they came. */
const eventsOf = (events, file) => events.filter((e) => e.path === file)

/** A node program that prints `lines` on stderr, waits `ms`, prints more and its verdict. */
function chatty(name, ms) {
  return readInputThen(`const fs = require('fs')
fs.writeSync(2, '${name} err 1\\n')
fs.writeSync(1, '${name} out 1\\n')
setTimeout(() => {
  fs.writeSync(2, '${name} err 2\\r\\n')
  fs.writeSync(1, '${name} out 2\\n')
  ${printJson({ cancel: false, contextModification: name })}
  fs.writeSync(2, '${name} no newline')
}, ${ms})`)
}

describe('onEvent', () => {
  test('two hooks in parallel: per hook start, its lines in order, slow once, end last with its execution; all before the promise settles', async () => {
    const ws = makeWorkspace('events-parallel')
    const global = makeTempDir('events-global-')
    const first = writeProgram(global, 'PreToolUse', chatty('g', 900))
    const second = writeProgram(hooksDirOf(ws), 'PreToolUse', chatty('w', 900))
    const { result, events, lateEvents } = await observed('PreToolUse', {
      workspaceRoots: [ws],
      globalHooksDir: global,
      managedHooksDir: null,
      slowThresholdMs: 300,
    })
    expect(lateEvents).toEqual([])
    expect(result.hooks.map((h) => h.path)).toEqual([first, second])
    for (const [index, file] of [first, second].entries()) {
      const mine = eventsOf(events, file)
      const name = index === 0 ? 'g' : 'w'
      expectCompleted(result.hooks[index])
      expect(mine[0].type).toBe('start')
      expect(mine[mine.length - 1].type).toBe('end')
      expect(mine.filter((e) => e.type === 'start')).toHaveLength(1)
      expect(mine.filter((e) => e.type === 'end')).toHaveLength(1)
      expect(mine.filter((e) => e.type === 'slow')).toHaveLength(1)
      const lines = (stream) => mine.filter((e) => e.type === stream).map((e) => e.line)
      expect(lines('stdout')).toEqual([`${name} out 1`, `${name} out 2`, JSON.stringify({ cancel: false, contextModification: name })])
      // CRLF loses its \r; a last line without a newline still comes, before the end.
      expect(lines('stderr')).toEqual([`${name} err 1`, `${name} err 2`, `${name} no newline`])
      for (const e of mine) {
        expect(e).toMatchObject({ hookName: 'PreToolUse', path: file, source: index === 0 ? 'global' : 'workspace' })
        expect(typeof e.elapsedMs).toBe('number')
      }
      const slow = mine.find((e) => e.type === 'slow')
      expect(slow.elapsedMs).toBeGreaterThanOrEqual(300)
      expect(slow.line).toBeUndefined()
      // elapsedMs never goes back (slow is timed on another thread than the lines), and the
      // end's is about the execution's duration.
      const times = mine.filter((e) => e.type !== 'slow').map((e) => e.elapsedMs)
      expect([...times].sort((a, b) => a - b)).toEqual(times)
      const end = mine[mine.length - 1]
      expect(end.execution).toEqual(result.hooks[index])
      expect(Math.abs(end.elapsedMs - result.hooks[index].durationMs)).toBeLessThan(50)
    }
    // They ran together: the second started before the first ended.
    const startSecond = events.findIndex((e) => e.path === second && e.type === 'start')
    const endFirst = events.findIndex((e) => e.path === first && e.type === 'end')
    expect(startSecond).toBeLessThan(endFirst)
  }, 60000)

  test('sequential hooks: one hook\'s events all come before the next one\'s start', async () => {
    const ws = makeWorkspace('events-sequential')
    const global = makeTempDir('events-global-')
    const first = writeProgram(global, 'PreToolUse', chatty('g', 50))
    const second = writeProgram(hooksDirOf(ws), 'PreToolUse', chatty('w', 50))
    const runner = await new HookFactory({ workspaceRoots: [ws], globalHooksDir: global, managedHooksDir: null }).create('PreToolUse')
    const events = []
    const result = await runner.run({}, { sequential: true, onEvent: (e) => events.push(e) })
    result.hooks.forEach(expectCompleted)
    const lastOfFirst = events.map((e) => e.path).lastIndexOf(first)
    const firstOfSecond = events.findIndex((e) => e.path === second)
    expect(events[lastOfFirst].type).toBe('end')
    expect(events[firstOfSecond].type).toBe('start')
    expect(lastOfFirst).toBeLessThan(firstOfSecond)
    // A fast hook under the default threshold (2 s) is never slow.
    expect(events.filter((e) => e.type === 'slow')).toEqual([])
  }, 60000)

  test('at most 1,000 lines per hook (stdout and stderr together), then one truncated line; each cut at 4 KiB', async () => {
    const ws = makeWorkspace('events-cap')
    const file = writeProgram(hooksDirOf(ws), 'PreToolUse', readInputThen(`const fs = require('fs')
fs.writeSync(1, 'é'.repeat(3000) + '\\n')
let out = ''
for (let i = 1; i < 600; i++) out += 'out ' + i + '\\n'
fs.writeSync(1, out)
${printJson({ cancel: true })}
// stderr once stdout's lines are surely read, so the 1,000 lines are these in this order.
setTimeout(() => {
  let err = ''
  for (let i = 0; i < 900; i++) err += 'err ' + i + '\\n'
  fs.writeSync(2, err)
}, 500)`))
    const { result, events } = await observed('PreToolUse', opts({ workspaceRoots: [ws], managedHooksDir: null }))
    expect(result.cancel).toBe(true)
    const lines = eventsOf(events, file).filter((e) => e.type === 'stdout' || e.type === 'stderr')
    expect(lines).toHaveLength(1001)
    // 3,000 two-byte characters: cut at 4,096 bytes, on a character boundary.
    expect(lines[0].line).toBe('é'.repeat(2048))
    expect(Buffer.byteLength(lines[0].line)).toBe(4096)
    expect(lines.slice(1, 600).map((e) => e.line)).toEqual(Array.from({ length: 599 }, (_, i) => `out ${i + 1}`))
    expect(lines[600].line).toBe('{"cancel":true}')
    expect(lines.slice(601, 1000).filter((e) => e.type !== 'stderr')).toEqual([])
    expect(lines[999].line).toBe('err 398')
    expect(lines[1000]).toMatchObject({ type: 'stderr', line: TRUNCATED })
    expect(eventsOf(events, file).pop().type).toBe('end')
  }, 60000)

  test('a throwing onEvent breaks nothing: no uncaught exception, every event still comes, the result is intact', () => {
    const ws = makeWorkspace('events-throw')
    writeProgram(hooksDirOf(ws), 'PreToolUse', chatty('w', 20))
    const script = `
const { runHook } = require(${JSON.stringify(path.join(__dirname, '..'))})
let uncaught = 0
process.on('uncaughtException', () => { uncaught++ })
process.on('unhandledRejection', () => { uncaught++ })
const seen = []
runHook('PreToolUse', {}, { workspaceRoots: [${JSON.stringify(ws)}], globalHooksDir: null, managedHooksDir: null,
  onEvent: (e) => { seen.push(e.type); throw new Error('observer failed on ' + e.type) } })
  .then((r) => setTimeout(() => console.log(JSON.stringify({ uncaught, seen, status: r.hooks[0].status, context: r.contextModification })), 50))
`
    const r = nodeSync(['-e', script], { encoding: 'utf8', timeout: 60000 })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({ uncaught: 0, status: 'completed', context: 'w' })
    expect(out.seen[0]).toBe('start')
    expect(out.seen.pop()).toBe('end')
    expect(out.seen.filter((t) => t === 'stdout')).toHaveLength(3)
  }, 60000)

  test('a slow onEvent (busy for 4 s) neither delays the hooks nor inflates their timing; the promise settles as soon as the thread is free', async () => {
    const ws = makeWorkspace('events-busy')
    writeProgram(hooksDirOf(ws), 'PreToolUse', chatty('w', 20))
    const events = []
    let freeAt = 0
    const result = await runHook('PreToolUse', {}, opts({
      workspaceRoots: [ws],
      managedHooksDir: null,
      onEvent: (e) => {
        events.push(e)
        if (e.type === 'start') {
          const until = Date.now() + 4000
          while (Date.now() < until) {
            // busy: the JavaScript thread is held
          }
          freeAt = Date.now()
        }
      },
    }))
    const settledAt = Date.now()
    expectCompleted(result.hooks[0])
    expect(result.contextModification).toBe('w')
    // The hook ran while the callback held the thread: its time is its own.
    expect(result.hooks[0].durationMs).toBeLessThan(3000)
    expect(result.durationMs).toBeLessThan(3000)
    expect(settledAt - freeAt).toBeLessThan(1000)
    expect(events[0].type).toBe('start')
    expect(events.pop().type).toBe('end')
  }, 60000)

  test('with onEvent, Node exits by itself as soon as the run settles (a plain and a detached run)', async () => {
    const ws = makeWorkspace('events-exit')
    // The detached hook says when it is done, so it is gone before its folder is removed
    // (Windows cannot remove a process's working directory).
    const donePid = path.join(makeTempDir(), 'detached.pid')
    writeProgram(hooksDirOf(ws), 'PreToolUse', chatty('w', 20))
    writeProgram(hooksDirOf(ws), 'TaskComplete', readInputThen(printJson({}) + writePidTo(donePid)))
    const script = `
const { runHook } = require(${JSON.stringify(path.join(__dirname, '..'))})
const options = { workspaceRoots: [${JSON.stringify(ws)}], globalHooksDir: null, managedHooksDir: null, slowThresholdMs: 0 }
const seen = []
const onEvent = (e) => seen.push(e.type + ':' + (e.execution ? e.execution.status : ''))
runHook('PreToolUse', {}, { ...options, onEvent })
  .then(() => runHook('TaskComplete', {}, { ...options, detached: true, onEvent }))
  .then(() => { console.log(JSON.stringify({ seen })); console.log(Date.now()) })
`
    const r = nodeSync(['-e', script], { encoding: 'utf8', timeout: 60000 })
    const exitedAt = Date.now()
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const [json, settledAt] = r.stdout.trim().split('\n')
    expect(exitedAt - Number(settledAt)).toBeLessThan(3000)
    const { seen } = JSON.parse(json)
    // Threshold 0: a hook is slow at once. The detached one is started and left: start, end.
    expect(seen.slice(-2)).toEqual(['start:', 'end:started'])
    expect(seen.slice(0, -2)).toContain('slow:')
    expect(seen.slice(0, -2).filter((t) => t.startsWith('end:'))).toEqual(['end:completed'])
    const pid = await waitForPid(donePid, 30000)
    await waitFor(() => !isAlive(pid), { timeoutMs: 30000, what: 'the detached hook to end' })
  }, 90000)

  testUnix('a hook that cannot start sends only its end (no start), with its failure', async () => {
    const ws = makeWorkspace('events-no-start')
    const file = writeHook(hooksDirOf(ws), 'PreToolUse', 'exit 0', { shebang: '#!/nonexistent/interpreter' })
    const { result, events } = await observed('PreToolUse', opts({ workspaceRoots: [ws], managedHooksDir: null }))
    expect(result.hooks[0].status).toBe('failed')
    expect(eventsOf(events, file).map((e) => e.type)).toEqual(['end'])
    expect(events[0].execution).toEqual(result.hooks[0])
  }, 30000)

  test('no hook enabled: no event, and the promise settles at once', async () => {
    const ws = makeWorkspace('events-none')
    const { result, events } = await observed('PreToolUse', opts({ workspaceRoots: [ws], managedHooksDir: null }))
    expect(result.hooks).toEqual([])
    expect(events).toEqual([])
  })

  test('bad onEvent and slowThresholdMs values are ERR_INVALID_OPTION, on runHook and runner.run', async () => {
    const ws = makeWorkspace('events-options')
    const runner = await new HookFactory(opts({ workspaceRoots: [ws] })).create('PreToolUse')
    for (const bad of [-1, NaN, Infinity, '100', true]) {
      await expect(runHook('PreToolUse', {}, opts({ slowThresholdMs: bad }))).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION', message: expect.stringContaining('slowThresholdMs') })
      await expect(runner.run({}, { slowThresholdMs: bad })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' })
    }
    for (const bad of ['log', 1, {}, true]) {
      await expect(runHook('PreToolUse', {}, opts({ onEvent: bad }))).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION', message: expect.stringContaining('onEvent') })
      await expect(runner.run({}, { onEvent: bad })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' })
    }
    for (const good of [0, 1.5, 1e300, undefined, null]) {
      await expect(runner.run({}, { slowThresholdMs: good, onEvent: null })).resolves.toMatchObject({ hooks: [] })
    }
    await expect(runner.run({}, { onevent: () => {} })).rejects.toMatchObject({ message: expect.stringContaining('did you mean "onEvent"') })
  })
})
