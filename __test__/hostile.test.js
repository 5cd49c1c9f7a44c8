'use strict'

// Issue 3: hostile hooks and load; issue 12: the same cases on Windows. Every case: the run
// returns within its bound, the result says what happened in one sentence, nothing is left
// running (except a background process the hook started on purpose), and the other hooks of
// the same run still count. The hooks are Node programs (hook-programs.js), so each case is
// written once and runs on both platforms; the cases tied to one platform's rules (exec bits,
// POSIX signals, uids; job objects, console control events) say so in their titles.

const fs = require('fs')
const path = require('path')
const { spawn, spawnSync } = require('child_process')

const {
  addon,
  isWindows,
  describeUnix,
  testUnix,
  testIf,
  makeTempDir,
  writeHook,
  writeProgram,
  writeQuickHook,
  writeQuickTreeHook,
  writeHookbotHook,
  quickHooksAvailable,
  programHookName,
  printJson,
  writePidTo,
  STAY_ALIVE,
  echoJson,
  shq,
  waitFor,
  waitForPid,
  trackPid,
  isAlive,
  waitDead,
  opts,
  watchdogsOf,
  expectCompleted,
  nodeSync,
} = require('./helpers')
const { HOOKBOT } = require('./hook-programs')

const { runHook, HookFactory, discoverHooks, terminateAll } = addon

const MiB = 1024 * 1024
const isLinux = process.platform === 'linux'
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
const ADDON_DIR = path.resolve(__dirname, '..')
const CENSUS = process.env.CLINE_HOOKS_TEST_CENSUS || null
const J = JSON.stringify

// A Node program starts in ~50 ms on Linux and in up to a second as node.exe under Wine; the
// bounds that include a hook's start-up add this much.
const START_UP = isWindows ? 5000 : 0
// How a stopped tree is named: Unix signals, or Windows' job object.
const STOPPED = isWindows ? /its job object was terminated/ : /SIGTERM, then SIGKILL/
const WINDOWS_LANE = 'Windows job objects and console control events; needs hookbot.exe from the Windows lane (npm run test:windows)'
const hasHookbot = isWindows && Boolean(HOOKBOT)
// Under Wine a process start takes 100-300 ms (set by the Windows lane): the load cases start
// a twentieth of the processes there, and the full count on Linux and on real Windows.
const underWine = isWindows && process.env.CLINE_HOOKS_TEST_WINE === '1'

/** Whether `nobody` can reach `dir` (every folder on the way lets others in). */
function othersCanRead(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o005) !== 0o005) return false
    if (path.dirname(d) === d) return true
  }
}
const asNobody = isLinux && (!isRoot || othersCanRead(ADDON_DIR))
const AS_NOBODY_REASON = `needs Linux and, as root, an addon folder that \`nobody\` can read (${ADDON_DIR})`

/** Writes hooks `TaskStart` (one Node program per source) into fresh dirs; returns the dirs in run order. */
function hookDirs(...sources) {
  const tmp = makeTempDir()
  return sources.map((source, i) => {
    const dir = path.join(tmp, `hooks-${i}`)
    writeProgram(dir, 'TaskStart', source)
    return dir
  })
}

/** Program text: starts a Node child running `code` with `stdio`; evaluates to the child. */
function spawnNode(code, stdio = 'ignore') {
  return `require('child_process').spawn(process.execPath, ['-e', ${J(code)}], { stdio: ${J(stdio)} })`
}

/** Program text: ignores every termination request Node can catch on this platform. */
const IGNORE_STOPS = `for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK']) process.on(s, () => {})\n`

/**
 * The platform's quickest hook that starts a child and never ends, writing one file named after
 * each pid of its tree into a fresh `pids` folder under `tmp`; returns { dir, pids, perRun }.
 */
function longHook(tmp) {
  const pids = path.join(tmp, 'pids')
  fs.mkdirSync(pids)
  const dir = path.join(tmp, 'long-hook')
  const perRun = writeQuickTreeHook(dir, 'TaskStart', pids)
  return { dir, pids, perRun }
}

/** The pids a quick tree hook wrote into `pids` (hookbot.exe names its files <role>-<pid>.pid). */
function pidsWritten(pids) {
  return fs.readdirSync(pids).filter((f) => !f.startsWith('verdict')).map((f) => Number(f.replace(/^\D*-?(\d+).*$/, '$1')))
}

/** A hook that always allows, with a context, so tests can see that the others still count. */
const GOOD = printJson({ contextModification: 'the good hook still counts' })

/** A dir with the good hook in the platform's quickest form, for runs with a short timeout. */
function quickGoodDir() {
  const dir = path.join(makeTempDir(), 'good')
  writeQuickHook(dir, 'TaskStart', { contextModification: 'the good hook still counts' })
  return dir
}

/** Runs the hooks in `dirs` once; returns the result, the executions and the wall time. */
async function run(dirs, options = {}, input = {}) {
  const started = Date.now()
  const result = await runHook('TaskStart', input, opts({ extraHooksDirs: dirs, ...options }))
  return { result, hooks: result.hooks, elapsed: Date.now() - started }
}

/** The pids written one per line into `file`. */
function pidsIn(file) {
  return fs.readFileSync(file, 'utf8').trim().split('\n').map(Number)
}

/**
 * What this process holds, as the platform counts it: on Linux its open fds and live children
 * (/proc), on Windows its handle count and live descendants (census.exe, the Windows API). The
 * hook watchdog, started once per process with the first hook, is not counted.
 */
function resources() {
  if (isWindows) {
    const out = spawnSync(CENSUS, [String(process.pid)], { encoding: 'utf8', timeout: 20000 })
    if (out.status !== 0) throw new Error(`census.exe failed: ${out.stderr || out.error}`)
    const { handles, descendants } = JSON.parse(out.stdout)
    // census.exe is itself a child while it counts.
    return { handles, children: descendants.filter((pid) => pid !== out.pid).length }
  }
  return { handles: fs.readdirSync('/proc/self/fd').length, children: liveChildren().length }
}
const canCount = isLinux || (isWindows && Boolean(CENSUS))
const COUNT_REASON = 'needs /proc on Linux, or census.exe from the Windows lane on Windows'

/** Live (non-zombie) child processes of this process (Linux), the hook watchdog aside. */
function liveChildren() {
  const children = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(rest[1]) !== process.pid || rest[0] === 'Z') continue
    if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('cline-hooks-watchdog')) continue
    children.push(Number(entry))
  }
  return children
}

/** Samples this process's RSS every few ms while `fn` runs; returns [fn's value, growth in MiB]. */
async function rssGrowth(fn) {
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 5)
  try {
    const value = await fn()
    peak = Math.max(peak, process.memoryUsage().rss)
    return [value, (peak - before) / MiB]
  } finally {
    clearInterval(sampler)
  }
}

describe('hostile hooks: hooks that never end', () => {
  test('1. a busy loop forever is timedOut close to timeoutMs, and its whole tree (by the pids it wrote) is dead', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    const dirs = hookDirs(
      `const child = ${spawnNode('for (;;) {}')}
require('fs').appendFileSync(${J(pids)}, child.pid + '\\n' + process.pid + '\\n')
for (;;) {}
`,
    )
    dirs.push(quickGoodDir())
    const timeoutMs = 1000 + START_UP
    const { hooks, result, elapsed } = await run(dirs, { timeoutMs })
    expect(hooks.map((h) => h.status)).toEqual(['timedOut', 'completed'])
    expect(hooks[0].failure).toMatch(new RegExp(`did not finish within ${timeoutMs} ms`))
    expect(hooks[0].failure).toMatch(STOPPED)
    expect(result.contextModification).toBe('the good hook still counts')
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50)
    expect(elapsed).toBeLessThan(timeoutMs + 4000)
    const written = pidsIn(pids)
    expect(written).toHaveLength(2)
    for (const pid of written) expect(await waitDead(pid, 2000)).toBe(true)
  }, 30000)

  test('2. a hook and its child that both ignore SIGTERM (console control events on Windows) and keep stdout open are timedOut and both dead after the grace', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    const dirs = hookDirs(
      `${IGNORE_STOPS}const child = ${spawnNode(`${IGNORE_STOPS}setInterval(() => console.log('still here'), 50)`, ['ignore', 'inherit', 'inherit'])}
require('fs').appendFileSync(${J(pids)}, child.pid + '\\n' + process.pid + '\\n')
setInterval(() => {}, 50)
`,
    )
    dirs.push(quickGoodDir())
    const { hooks, result, elapsed } = await run(dirs, { timeoutMs: 800 + START_UP })
    expect(hooks.map((h) => h.status)).toEqual(['timedOut', 'completed'])
    expect(hooks[0].failure).toMatch(STOPPED)
    expect(result.contextModification).toBe('the good hook still counts')
    expect(elapsed).toBeLessThan(5000 + START_UP)
    const written = pidsIn(pids)
    expect(written).toHaveLength(2)
    // Dead already when the run resolved: the kill follows the grace, and the run waits for it.
    for (const pid of written) expect(isAlive(pid)).toBe(false)
  }, 30000)

  /** hookbot.exe in `mode` as the hook TaskStart, printing `verdict` first: { dir, pids }. */
  function hookbotTree(mode, verdict) {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    fs.mkdirSync(pids)
    const dir = path.join(tmp, 'hooks')
    writeHookbotHook(dir, 'TaskStart', mode, pids, verdict)
    return { dir, pids }
  }

  /** The hook, its child and its grandchild wrote their pids into `pids`, and are all dead. */
  async function expectTreeDead(pids) {
    const written = fs.readdirSync(pids).filter((f) => f.endsWith('.pid'))
    expect(written.map((f) => f.split('-')[0]).sort()).toEqual(['child', 'grandchild', 'hook'])
    for (const f of written) expect(await waitDead(Number(fs.readFileSync(path.join(pids, f), 'utf8')), 2000)).toBe(true)
  }

  testIf(hasHookbot, WINDOWS_LANE, '2w. a compiled hook whose child and grandchild ignore console control events and keep stdout open: timedOut, its cancel kept, all three dead', async () => {
    const { dir, pids } = hookbotTree('ignore-ctrl', { cancel: true, errorMessage: 'blocked before hanging' })
    const { hooks, result, elapsed } = await run([dir, quickGoodDir()], { timeoutMs: 2000 + START_UP })
    expect(hooks.map((h) => h.status)).toEqual(['timedOut', 'completed'])
    expect(hooks[0].failure).toMatch(STOPPED)
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('blocked before hanging')
    expect(result.contextModification).toBe('the good hook still counts')
    expect(elapsed).toBeLessThan(10000 + START_UP)
    await expectTreeDead(pids)
  }, 30000)

  testIf(hasHookbot, WINDOWS_LANE, '2x. a hook that starts its child with CREATE_BREAKAWAY_FROM_JOB cannot take it out of the tree: timedOut and both dead', async () => {
    const { dir, pids } = hookbotTree('breakaway', { cancel: true })
    const { hooks, result } = await run([dir], { timeoutMs: 2000 + START_UP })
    expect(hooks[0].status).toBe('timedOut')
    expect(result.cancel).toBe(true)
    // The job refuses the breakaway (ERROR_ACCESS_DENIED, 5), so the child stays inside it.
    expect(fs.readFileSync(path.join(pids, 'escape.txt'), 'utf8')).toBe('refused 5')
    await expectTreeDead(pids)
  }, 30000)

  testIf(hasHookbot, WINDOWS_LANE, '2y. a hook that puts itself in a job object of its own (nested in ours) and starts a child there: timedOut and both dead', async () => {
    const { dir, pids } = hookbotTree('own-job', { contextModification: 'in a job of its own' })
    const { hooks, result } = await run([dir], { timeoutMs: 2000 + START_UP })
    expect(hooks[0].status).toBe('timedOut')
    // A hook that did not complete adds no context to the run; its own record keeps what it printed.
    expect(hooks[0].contextModification).toBe('in a job of its own')
    expect(fs.readFileSync(path.join(pids, 'job.txt'), 'utf8')).toBe('nested')
    await expectTreeDead(pids)
  }, 30000)

  // Found by issue 12's attack: a process created with another as its parent joins that
  // parent's job, so a hook that opens the host and names it as its child's parent takes the
  // child out of its own job. The child still carries the hook's start marker, and the stop
  // of the tree also ends every process that does.
  testIf(hasHookbot, WINDOWS_LANE, '2z. a child started with the host as its parent (PROC_THREAD_ATTRIBUTE_PARENT_PROCESS) leaves the hook\'s job, and is stopped with the tree all the same: timedOut, its cancel kept, all three dead', async () => {
    const { dir, pids } = hookbotTree('spoof-parent', { cancel: true })
    const { hooks, result } = await run([dir], { timeoutMs: 2000 + START_UP })
    expect(hooks[0].status).toBe('timedOut')
    expect(result.cancel).toBe(true)
    expect(fs.readFileSync(path.join(pids, 'escape.txt'), 'utf8')).toBe('started')
    for (const f of fs.readdirSync(pids).filter((f) => f.endsWith('.pid'))) trackPid(Number(fs.readFileSync(path.join(pids, f), 'utf8')))
    await expectTreeDead(pids)
  }, 30000)

  test('4. a hook that prints its JSON and leaves a background process holding stdout returns at once after its exit, JSON honoured, background alive', async () => {
    const tmp = makeTempDir()
    const bgPid = path.join(tmp, 'bg.pid')
    const exited = path.join(tmp, 'exited')
    const dirs = hookDirs(
      `const fs = require('fs')
// Detached on Windows, where libuv ends a program's other children when it exits.
const bg = require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: ['ignore', 'inherit', 'inherit'], detached: process.platform === 'win32' })
bg.unref()
fs.writeFileSync(${J(bgPid)}, String(bg.pid))
${printJson({ cancel: true, errorMessage: 'blocked, checking in the background' })}
fs.writeFileSync(${J(exited)}, String(Date.now()))
`,
    )
    const { result, hooks } = await run(dirs)
    const resolvedAt = Date.now()
    const bg = await waitForPid(bgPid)
    expectCompleted(hooks[0])
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('blocked, checking in the background')
    expect(hooks[0].warnings.join(' ')).toMatch(/still holds its stdout or stderr/)
    // The contract's grace after the hook's own exit is at most 250 ms (the runtime's is 150).
    expect(resolvedAt - Number(fs.readFileSync(exited, 'utf8'))).toBeLessThan(1000)
    expect(isAlive(bg)).toBe(true)
  }, 30000)
})

describe('hostile hooks: stdin', () => {
  const TEN_MIB = 'x'.repeat(10 * MiB)

  test('3a. a hook that never reads stdin, given a 10 MiB input, does not deadlock the run', async () => {
    const dirs = hookDirs(`setTimeout(() => { ${printJson({ contextModification: 'never read it' })} }, 300)\n`, GOOD)
    const { hooks, result, elapsed } = await run(dirs, { timeoutMs: 10000 + START_UP }, { blob: TEN_MIB })
    expect(hooks.map((h) => h.status)).toEqual(['completed', 'completed'])
    expect(result.contextModification).toBe('never read it\n\nthe good hook still counts')
    expect(elapsed).toBeLessThan(5000 + START_UP)
  }, 30000)

  test('3b. a hook that exits at once without reading a 10 MiB input is completed (no broken-pipe failure)', async () => {
    const dirs = hookDirs(`${printJson({ cancel: true })}process.exit(0)\n`)
    const { hooks, result } = await run(dirs, {}, { blob: TEN_MIB })
    expectCompleted(hooks[0])
    expect(hooks[0].failure).toBeUndefined()
    expect(result.cancel).toBe(true)
  })

  test('3c. a hook that never reads stdin and never ends is timedOut, not deadlocked', async () => {
    const dirs = [...hookDirs(STAY_ALIVE), quickGoodDir()]
    const { hooks, elapsed } = await run(dirs, { timeoutMs: 700 + START_UP }, { blob: TEN_MIB })
    expect(hooks.map((h) => h.status)).toEqual(['timedOut', 'completed'])
    expect(elapsed).toBeLessThan(5000 + START_UP)
  }, 30000)
})

/** Program text: writes `bytes` (an expression) of `chunk` (a Buffer expression) to fd `fd`. */
function writeRepeated(fd, chunk, bytes) {
  return `{
  const chunk = ${chunk}
  for (let left = ${bytes}; left > 0; ) {
    left -= require('fs').writeSync(${fd}, chunk, 0, Math.min(left, chunk.length))
  }
}
`
}

describe('hostile hooks: floods and bytes', () => {
  test(`5. 1 GiB on stdout before the final JSON and 200 MiB on stderr: JSON honoured, host RSS grows < 32 MiB, stdout and stderr bounded tails`, async () => {
    const dirs = hookDirs(
      `${writeRepeated(1, `Buffer.from('log line that is not JSON {\\n'.repeat(4096))`, 1024 * MiB)}
${writeRepeated(2, `Buffer.from('stderr noise\\n'.repeat(8192))`, 200 * MiB)}
require('fs').writeSync(2, 'the last stderr line\\n')
require('fs').writeSync(1, '\\n')
${printJson({ cancel: true, contextModification: 'after the flood' })}`,
      GOOD,
    )
    const [{ hooks, result }, growth] = await rssGrowth(() => run(dirs, { timeoutMs: 80000 }))
    expectCompleted(hooks[0])
    expect(result.cancel).toBe(true)
    expect(result.contextModification).toBe('after the flood\n\nthe good hook still counts')
    // All of stdout is scanned as it streams: nothing to warn about.
    expect(hooks[0].warnings).toEqual([])
    expect(Buffer.byteLength(hooks[0].stderr)).toBeLessThanOrEqual(64 * 1024)
    expect(hooks[0].stderr).toMatch(/stderr noise\n.*the last stderr line\n$/)
    // stdout's copy is its last 16 KiB, ending with the verdict.
    expect(Buffer.byteLength(hooks[0].stdout)).toBe(16 * 1024)
    expect(hooks[0].stdout).toMatch(/^[^\n]*\n(log line that is not JSON \{\n)+log line[^\n]*\n\{"cancel":true,"contextModification":"after the flood"\}\n$/)
    expect(growth).toBeLessThan(32)
  }, 120000)

  test('5b. one 200 MiB verdict object, its cancel after the big field: it blocks, host RSS grows < 32 MiB, read as fast as it is printed', async () => {
    const dirs = hookDirs(
      `require('fs').writeSync(1, '{"data": "')
${writeRepeated(1, `Buffer.alloc(1 << 20, 'd')`, 200 * MiB)}
require('fs').writeSync(1, '", "errorMessage": "blocked by a 200 MiB verdict", "cancel": true}\\n')
`,
      GOOD,
    )
    const [{ hooks, result, elapsed }, growth] = await rssGrowth(() => run(dirs, { timeoutMs: 60000 }))
    expectCompleted(hooks[0])
    expect(result.cancel).toBe(true)
    expect(hooks[0].errorMessage).toBe('blocked by a 200 MiB verdict')
    expect(hooks[0].output).toEqual({ cancel: true, errorMessage: 'blocked by a 200 MiB verdict' })
    expect(hooks[0].warnings.join(' ')).toMatch(/printed a verdict object of 2097152\d\d bytes that the runner could not keep whole/)
    expect(result.contextModification).toBe('the good hook still counts')
    expect(growth).toBeLessThan(32)
    expect(elapsed).toBeLessThan(45000)
  }, 90000)

  test('6. bytes that are not UTF-8, NUL bytes and CRLF line ends in stdout and stderr: no crash, the final JSON still parsed', async () => {
    const dirs = hookDirs(
      `const fs = require('fs')
fs.writeSync(2, Buffer.from('bad \\xff\\xfe bytes\\x00 and NUL\\r\\n', 'latin1'))
fs.writeSync(1, Buffer.from('log \\xff\\xc0\\x00 line\\r\\n', 'latin1'))
fs.writeSync(1, Buffer.from('{"cancel": false,\\r\\n "contextModification": "café ✓"}\\r\\n', 'utf8'))
`,
    )
    const { hooks } = await run(dirs)
    expectCompleted(hooks[0])
    expect(hooks[0].contextModification).toBe('café ✓')
    expect(hooks[0].stderr).toContain('bad \uFFFD\uFFFD bytes\u0000 and NUL')
  })

  test('6b. a verdict in UTF-16 with a byte-order mark, CRLF line ends and a log line before it (PowerShell Out-File): its cancel counts', async () => {
    const dirs = hookDirs(
      `require('fs').writeSync(1, Buffer.from('\\ufefflog line\\r\\n{"cancel": true, "errorMessage": "café ✓"}\\r\\n', 'utf16le'))\n`,
      GOOD,
    )
    const { hooks, result } = await run(dirs)
    expectCompleted(hooks[0])
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('café ✓')
    expect(result.contextModification).toBe('the good hook still counts')
  })
})

describe('hostile hooks: broken output', () => {
  const DEEP = 100000
  const print = (text) => `require('fs').writeSync(1, ${text})\n`
  const CASES = [
    ['a truncated object', print(J('{"cancel": true, "contextModification": "cut')), /not valid JSON|does not parse|truncated|incomplete/i],
    ['trailing garbage after the object', print(J('{"contextModification": "x"} and then garbage\n')), /after its final JSON object/],
    ['an array', print(J('[{"cancel": true}]\n')), /array/],
    ['a number', print(J('42\n')), /number/],
    ['{"cancel":"yes"}', print(J('{"cancel":"yes"}\n')), /cancel/],
    [`a ${DEEP}-deep nested array`, print(`'['.repeat(${DEEP}) + ']'.repeat(${DEEP}) + '\\n'`), /JSON array as its final output/],
  ]

  test.each(CASES)('7. %s is failed with a sentence, and the other hook still counts', async (label, source, sentence) => {
    const dirs = hookDirs(source, GOOD)
    const { hooks, result } = await run(dirs)
    expect(hooks.map((h) => h.status)).toEqual(['failed', 'completed'])
    expect(hooks[0].failure).toMatch(sentence)
    expect(hooks[0].failure).toMatch(/^[a-z].*[^\n]$/) // one sentence for a hook author
    expect(result.contextModification).toBe('the good hook still counts')
  })

  test(`7b. a ${DEEP}-deep nested object is read as JSON.parse reads it: completed, with a warning about the depth`, async () => {
    const source = print(`'{"a":'.repeat(${DEEP}) + '1' + '}'.repeat(${DEEP}) + '\\n'`)
    const { hooks, result } = await run(hookDirs(source, GOOD))
    expect(hooks.map((h) => h.status)).toEqual(['completed', 'completed'])
    expect(hooks[0].warnings).toEqual([expect.stringMatching(/^printed a JSON object nested more than 127 levels deep/)])
    expect(result.cancel).toBe(false)
    expect(result.contextModification).toBe('the good hook still counts')
  })

  test('8. a hook that kills itself after printing a cancel is failed, with no exit code and the signal named on Unix; the cancel still counts', async () => {
    // On Windows, process.kill ends the process with TerminateProcess (exit code 1): no signal.
    const dirs = hookDirs(`${printJson({ cancel: true })}process.kill(process.pid, 'SIGKILL')\n${STAY_ALIVE}`, GOOD)
    const { hooks, result } = await run(dirs)
    expect(hooks[0].status).toBe('failed')
    if (isWindows) {
      expect(hooks[0].exitCode).toBe(1)
      expect(hooks[0].signal).toBeNull()
    } else {
      expect(hooks[0].exitCode).toBeNull()
      expect(hooks[0].failure).toMatch(/SIGKILL/)
    }
    expect(result.cancel).toBe(true)
    expect(result.contextModification).toBe('the good hook still counts')
  })
})

describe('hostile hooks: output built to be slow to read', () => {
  test('7c. 1 MiB of lines that each open an array never closed, from 4 hooks at once: each is read in linear time and named as arrays, and an unrelated run with a 1 s timeout is not held up', async () => {
    // 256 lines of 4 KiB, each opening an array that never closes: quadratic for a parser
    // that retries every line start (2.4 s of CPU per hook, on the workers every run shares).
    const line = `[${'"x",'.repeat(1023)}\n`
    const dirs = hookDirs(...Array(4).fill(`require('fs').writeSync(1, ${J(line)}.repeat(256))\n`))
    const quickDir = path.join(makeTempDir(), 'quick')
    writeQuickHook(quickDir, 'TaskStart', { contextModification: 'quick' })
    const slow = run(dirs, { timeoutMs: 30000 })
    const quick = await run([quickDir], { timeoutMs: 1000 })
    expectCompleted(quick.hooks[0])
    expect(quick.elapsed).toBeLessThan(3000)
    const { hooks, elapsed } = await slow
    expect(elapsed).toBeLessThan(10000 + START_UP)
    for (const h of hooks) {
      expect(h.status).toBe('failed')
      expect(h.failure).toMatch(/arrays that are never closed/)
      expect(h.failure).not.toMatch(/object that ends too early/)
    }
  }, 30000)
})

describeUnix('hostile hooks: not runnable', () => {
  test('9. no exec bit, a directory, a broken symlink, a symlink loop, a missing #! interpreter: listed with a reason or failed with one; runHook never throws', async () => {
    const tmp = makeTempDir()
    const dir = (name) => path.join(tmp, name)
    writeHook(dir('noexec'), 'TaskStart', echoJson({ cancel: true }), { mode: 0o644 })
    fs.mkdirSync(path.join(dir('directory'), 'TaskStart'), { recursive: true })
    fs.mkdirSync(dir('broken'))
    fs.symlinkSync(path.join(tmp, 'nowhere'), path.join(dir('broken'), 'TaskStart'))
    fs.mkdirSync(dir('loop'))
    fs.symlinkSync('TaskStart', path.join(dir('loop'), 'TaskStart'))
    writeHook(dir('nointerp'), 'TaskStart', echoJson({ cancel: true }), { shebang: '#!/nonexistent/interpreter' })
    writeHook(dir('good'), 'TaskStart', GOOD, { shebang: 'node' })
    const dirs = ['noexec', 'directory', 'broken', 'loop', 'nointerp', 'good'].map(dir)

    const found = await discoverHooks('TaskStart', opts({ extraHooksDirs: dirs }))
    const byDir = Object.fromEntries(found.map((h) => [path.basename(path.dirname(h.path)), h]))
    expect(byDir.noexec).toMatchObject({ enabled: false, reason: expect.stringMatching(/exec|chmod/) })
    expect(byDir.directory).toMatchObject({ enabled: false, reason: expect.stringMatching(/directory/) })
    expect(byDir.broken).toMatchObject({ enabled: false, reason: expect.stringMatching(/symlink|does not exist|points/i) })
    expect(byDir.loop).toMatchObject({ enabled: false, reason: expect.any(String) })
    expect(byDir.nointerp.reason || '').toMatch(/nonexistent/)
    expect(byDir.good).toMatchObject({ enabled: true })

    const { result, hooks } = await run(dirs)
    expect(result.cancel).toBe(false) // nothing that cannot run may block
    expect(result.contextModification).toBe('the good hook still counts')
    for (const h of hooks.filter((h) => h.status !== 'completed')) {
      expect(h.failure).toMatch(/nonexistent/)
    }
    expect(result.warnings.length).toBeGreaterThanOrEqual(4) // the skipped ones, each with why
  })

  // Root reads every directory, so the unreadable folder is searched by a child Node running
  // as `nobody`; a non-root run checks it directly.
  testIf(asNobody, AS_NOBODY_REASON, '9b. a hooks directory without read permission is skipped; the hooks of the other directories run', async () => {
    const tmp = makeTempDir()
    fs.chmodSync(tmp, 0o755)
    const locked = path.join(tmp, 'locked')
    const open = path.join(tmp, 'open')
    writeHook(locked, 'TaskStart', echoJson({ cancel: true }))
    writeHook(open, 'TaskStart', GOOD, { shebang: 'node' })
    fs.chmodSync(locked, 0o000)
    const script = `
      const { runHook } = require(${JSON.stringify(ADDON_DIR)})
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: ${JSON.stringify([locked, open])} })
        .then((r) => console.log(JSON.stringify({ cancel: r.cancel, context: r.contextModification, n: r.hooks.length, failure: r.hooks[0] && r.hooks[0].failure })))
        .catch((e) => console.log(JSON.stringify({ error: String(e) })))`
    const child = nodeSync(['-e', script], {
      cwd: tmp,
      encoding: 'utf8',
      timeout: 20000,
      // As a service account whose home is its own (root's HOME is not enterable by nobody).
      ...(isRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: tmp } } : {}),
    })
    expect(child.stderr).toBe('')
    expect(JSON.parse(child.stdout)).toEqual({ cancel: false, context: 'the good hook still counts', n: 1 })
  })
  testIf(asNobody && isRoot, `${AS_NOBODY_REASON}, and root to run a child as nobody`, '9c. a working directory the user cannot enter fails the hook with a sentence that names the directory', async () => {
    const tmp = makeTempDir()
    fs.chmodSync(tmp, 0o755)
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, 'TaskStart', echoJson({ cancel: true }))
    // The child's home, where a hook without a workspace root runs: root's own, mode 0700.
    const locked = makeTempDir('cline-hooks-locked-home-')
    fs.chmodSync(locked, 0o700)
    const script = `
      require(${JSON.stringify(ADDON_DIR)})
        .runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}] })
        .then((r) => console.log(r.hooks[0].failure))`
    const child = nodeSync(['-e', script], {
      cwd: tmp,
      encoding: 'utf8',
      timeout: 20000,
      uid: 65534,
      gid: 65534,
      env: { ...process.env, HOME: locked },
    })
    expect(child.stdout.trim()).toBe(`could not start: its working directory ${locked} cannot be entered by this user (permission denied)`)
  })
}, { reason: 'exec bits, #! lines, symlinks and file permissions are Unix rules' })

describe('hostile hooks: files changing under the run', () => {
  const HOOK = programHookName('TaskStart')

  test('10a. a hook file deleted between discovery and run is failed with "no longer exists"; the others run', async () => {
    const dirs = hookDirs(printJson({ cancel: true }), GOOD)
    const factory = new HookFactory(opts({ extraHooksDirs: dirs }))
    const runner = await factory.create('TaskStart')
    fs.rmSync(path.join(dirs[0], HOOK))
    const result = await runner.run({})
    expect(result.hooks.map((h) => h.status)).toEqual(['failed', 'completed'])
    expect(result.hooks[0].failure).toMatch(/no longer exists/)
    expect(result.cancel).toBe(false)
    expect(result.contextModification).toBe('the good hook still counts')
  })

  test('10b. a hook file replaced between discovery and run: the file found at run time is what runs', async () => {
    const dirs = hookDirs(printJson({ contextModification: 'old' }))
    const runner = await new HookFactory(opts({ extraHooksDirs: dirs })).create('TaskStart')
    const file = path.join(dirs[0], HOOK)
    const staging = path.join(makeTempDir(), 'staging')
    const fresh = writeProgram(staging, 'TaskStart', printJson({ contextModification: 'new' }))
    fs.renameSync(fresh, file)
    const result = await runner.run({})
    expectCompleted(result.hooks[0])
    expect(result.contextModification).toBe('new')
  })

  test('10c. hooks that delete and rewrite their own file and their siblings mid-run: no crash, one result each', async () => {
    const tmp = makeTempDir()
    const dirs = [0, 1, 2].map((i) => path.join(tmp, `d${i}`))
    const files = dirs.map((d) => path.join(d, HOOK))
    writeProgram(dirs[0], 'TaskStart', `for (const f of ${J(files)}) require('fs').rmSync(f, { force: true })\n${printJson({ contextModification: 'deleter' })}`)
    writeProgram(
      dirs[1],
      'TaskStart',
      `const fs = require('fs')
try { fs.writeFileSync(${J(files[1])}, 'garbage') } catch {}
try { fs.rmdirSync(${J(dirs[2])}) } catch {}
${printJson({ contextModification: 'rewriter' })}`,
    )
    writeProgram(dirs[2], 'TaskStart', `setTimeout(() => { ${printJson({ contextModification: 'sibling' })} }, 200)\n`)
    // One snapshot for all three runs: a run that rescanned after another's hooks deleted the
    // files would rightly find nothing, which is not what this case is about.
    expect(await discoverHooks('TaskStart', opts({ extraHooksDirs: dirs }))).toHaveLength(3)
    const results = await Promise.all([1, 2, 3].map(() => runHook('TaskStart', {}, opts({ extraHooksDirs: dirs, timeoutMs: 20000 }))))
    for (const result of results) {
      expect(result.hooks).toHaveLength(3)
      for (const h of result.hooks) {
        expect(['completed', 'failed']).toContain(h.status)
        if (h.status === 'failed') expect(h.failure).toEqual(expect.any(String))
      }
    }
  }, 60000)
})

describe('hostile hooks: paths', () => {
  // Each platform's shell metacharacters, in names the platform allows: on Unix quotes, $(),
  // backticks, ; and a newline; on Windows (no " or newline in a name) cmd.exe's &, ^, %VAR%,
  // !VAR! and parentheses. Each injection, if it ran, would create the canary.
  const unixName = (canary) => `we ird 'q' "dq" $(touch ${canary}) \`touch ${canary}\`; touch ${canary}\nline2 ünï 中文 🚀`
  const windowsName = () => `we ird 'q' & mkdir CANARY ^& (x) %CLINE_CANARY% !CLINE_CANARY! ünï 中文 🚀`

  test('11. workspace, hooks-dir and global-dir paths full of the platform\'s shell metacharacters and non-ASCII letters run where they are, and a canary proves nothing was injected', async () => {
    const tmp = makeTempDir()
    const canary = path.join(tmp, 'INJECTED')
    const evil = isWindows ? windowsName() : unixName(canary)
    const root = path.join(tmp, evil)
    const extra = path.join(tmp, `extra ${evil}`)
    const global = path.join(tmp, `home ${evil}`, 'Documents', 'Cline', 'Hooks')
    writeProgram(path.join(root, '.clinerules', 'hooks'), 'TaskStart', `require('fs').writeSync(1, JSON.stringify({ contextModification: process.cwd() }) + '\\n')\n`)
    writeProgram(extra, 'TaskStart', printJson({ contextModification: 'extra ran' }))
    writeProgram(global, 'TaskStart', printJson({ contextModification: 'global ran' }))
    const result = await runHook(
      'TaskStart',
      {},
      opts({ workspaceRoots: [root], extraHooksDirs: [extra], globalHooksDir: global, env: { CLINE_CANARY: 'EXPANDED' }, timeoutMs: 20000 }),
    )
    expect(result.hooks.map((h) => h.status)).toEqual(['completed', 'completed', 'completed'])
    expect(result.contextModification.split('\n\n').sort()).toEqual(['extra ran', 'global ran', root].sort())
    expect(fs.existsSync(canary)).toBe(false)
    // cmd.exe's `mkdir CANARY` would have made it in the hook's working directory.
    for (const dir of [root, extra, global, tmp]) expect(fs.existsSync(path.join(dir, 'CANARY'))).toBe(false)
  }, 60000)

  test('11b. a workspace whose hook paths are longer than 260 characters runs its hooks, a .cmd and a program started directly', async () => {
    const tmp = makeTempDir()
    let root = tmp
    while (root.length < 300) root = path.join(root, `a folder with a long name ${root.length}`)
    fs.mkdirSync(root, { recursive: true })
    const hook = writeProgram(path.join(root, '.clinerules', 'hooks'), 'TaskStart', printJson({ contextModification: 'deep ran' }))
    const program = writeQuickHook(path.join(root, '.clinerules', 'hooks'), 'PreToolUse', { contextModification: 'deep program ran' })
    expect(hook.length).toBeGreaterThan(260)
    const found = await discoverHooks('TaskStart', opts({ workspaceRoots: [root] }))
    expect(found.map((h) => [h.path, h.enabled])).toEqual([[hook, true]])
    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [root], timeoutMs: 20000 }))
    expect(result.hooks.map((h) => h.failure || h.status)).toEqual(['completed'])
    expect(result.contextModification).toBe('deep ran')

    // A program started directly (an .exe on Windows) from that deep folder runs too.
    expect(program.length).toBeGreaterThan(260)
    const direct = await runHook('PreToolUse', {}, opts({ workspaceRoots: [root], timeoutMs: 20000 }))
    expect(direct.hooks.map((h) => h.failure || h.status)).toEqual(['completed'])
    expect(direct.contextModification).toBe('deep program ran')
  }, 60000)
})

describe('hostile hooks: load', () => {
  /** Four hook dirs whose (quick) hooks each answer `<input id>:<name>`. */
  function quickHooks(tmp) {
    return ['a', 'b', 'c', 'd'].map((name) => {
      const dir = path.join(tmp, name)
      writeQuickHook(dir, 'TaskStart', { contextModification: `@ID@:${name}` })
      return dir
    })
  }

  /** Four hook dirs whose hooks record how many hook processes are running at once. */
  function countingHooks(tmp) {
    const live = path.join(tmp, 'live')
    fs.mkdirSync(live)
    return ['a', 'b', 'c', 'd'].map((name) => {
      const dir = path.join(tmp, name)
      writeProgram(
        dir,
        'TaskStart',
        `const fs = require('fs'), path = require('path')
const mine = path.join(${J(live)}, String(process.pid))
fs.writeFileSync(mine, '')
const running = fs.readdirSync(${J(live)}).length
let input = ''
process.stdin.on('data', (c) => { input += c })
process.stdin.on('end', () => {
  // Hold a moment, so overlapping hooks see each other.
  setTimeout(() => {
    fs.rmSync(mine, { force: true, maxRetries: 10 })
    fs.writeSync(1, JSON.stringify({ contextModification: JSON.parse(input).id + ':${name}', peak: running }) + '\\n')
  }, 50)
})
`,
      )
      return dir
    })
  }

  testIf(canCount && quickHooksAvailable, COUNT_REASON, `12/13. ${underWine ? '50 (under Wine; 1,000 elsewhere)' : '1,000'} overlapping runHook calls with 4 hooks each all resolve correctly, and handles (fds) and child processes return to the baseline`, async () => {
    const tmp = makeTempDir()
    const dirs = quickHooks(tmp)
    // Warm the runtime and the discovery cache, so the baseline holds their handles.
    await runHook('TaskStart', { id: 'warm' }, opts({ extraHooksDirs: dirs }))
    const before = resources()
    // Wine answers GetProcessHandleCount with 0: there only processes are compared.
    if (!underWine) expect(before.handles).toBeGreaterThan(0)

    const ids = Array.from({ length: underWine ? 50 : 1000 }, (_, i) => `c${i}`)
    const results = await Promise.all(ids.map((id) => runHook('TaskStart', { id }, opts({ extraHooksDirs: dirs, timeoutMs: 120000 }))))
    for (const [i, result] of results.entries()) {
      expect(result.hooks.map((h) => h.failure || h.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
      expect(result.contextModification).toBe(['a', 'b', 'c', 'd'].map((n) => `${ids[i]}:${n}`).join('\n\n'))
    }
    await waitFor(() => resources().handles <= before.handles, { timeoutMs: 10000, what: `handles back to ${before.handles}` })
    await waitFor(() => resources().children <= before.children, { timeoutMs: 10000, what: 'children back to the baseline' })
  }, 300000)

  test('13. maxConcurrentHooks caps the processes of a factory and of a call', async () => {
    const tmp = makeTempDir()
    const dirs = countingHooks(tmp)
    // Node programs start slowly under Wine: fewer runs there, the same caps.
    const runs = isWindows ? 4 : 8
    const factory = new HookFactory(opts({ extraHooksDirs: dirs, maxConcurrentHooks: 2 }))
    const runner = await factory.create('TaskStart')
    const viaFactory = await Promise.all(Array.from({ length: runs }, (_, i) => runner.run({ id: `f${i}` }, { timeoutMs: 60000 })))
    const viaCall = await Promise.all(
      Array.from({ length: runs }, (_, i) => runHook('TaskStart', { id: `r${i}` }, opts({ extraHooksDirs: dirs, maxConcurrentHooks: 3, timeoutMs: 60000 }))),
    )
    const peakOf = (results) => Math.max(...results.flatMap((r) => r.hooks.map((h) => h.output.peak)))
    expect(peakOf(viaFactory)).toBeLessThanOrEqual(2)
    for (const [i, r] of viaFactory.entries()) {
      expect(r.hooks.map((h) => h.failure || h.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
      expect(r.contextModification).toBe(['a', 'b', 'c', 'd'].map((n) => `f${i}:${n}`).join('\n\n'))
    }
    // Per call: each call has its own 3 slots, so its 4 hooks never all run at once.
    for (const r of viaCall) expect(r.hooks.map((h) => h.failure || h.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
  }, 120000)

  test('13b. runs queued behind the limit still honour their timeouts and their signals', async () => {
    const tmp = makeTempDir()
    const pidFile = path.join(tmp, 'slow.pid')
    const [slow] = hookDirs(`${writePidTo(pidFile)}setTimeout(() => {}, 30000)\n`)
    const factory = new HookFactory(opts({ extraHooksDirs: [slow], maxConcurrentHooks: 1 }))
    const runner = await factory.create('TaskStart')
    const holder = runner.run({}, { timeoutMs: 25000 })
    await waitForPid(pidFile, 10000)

    let started = Date.now()
    const queued = await runner.run({}, { timeoutMs: 500 })
    expect(queued.hooks[0].status).toBe('timedOut')
    expect(queued.hooks[0].failure).toMatch(/free hook slot/)
    expect(Date.now() - started).toBeLessThan(3000)

    const controller = new AbortController()
    const aborted = runner.run({}, { signal: controller.signal })
    started = Date.now()
    setTimeout(() => controller.abort(), 100)
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' })
    expect(Date.now() - started).toBeLessThan(2000)

    expect(await terminateAll()).toBe(1)
    expect((await holder).hooks[0].status).toBe('aborted')
  }, 30000)

  // Under Wine each of the 300 processes ends through a round trip to its server: the bound
  // there is 1.5 s (409-490 ms measured with the other core busy).
  const ABORT_BOUND = underWine ? 1500 : 500
  testIf(canCount, COUNT_REASON, `14. an AbortSignal aborted in the middle of 100 overlapping runs: all reject with AbortError within ${ABORT_BOUND} ms, no process left`, async () => {
    const { dir, pids, perRun } = longHook(makeTempDir())
    const childrenBefore = resources().children
    const controller = new AbortController()
    const count = 100
    const runs = Array.from({ length: count }, () =>
      runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal: controller.signal, maxConcurrentHooks: 100 })).then(
        () => 'resolved',
        (err) => ({ name: err.name, at: Date.now() }),
      ),
    )
    // Abort once 16 hooks (the default limit on 2 cores) have started their children.
    await waitFor(() => pidsWritten(pids).length >= 16 * perRun, { timeoutMs: 60000, what: '16 hooks running' })
    const abortedAt = Date.now()
    controller.abort()
    const outcomes = await Promise.all(runs)
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ name: 'AbortError' })
      expect(outcome.at - abortedAt).toBeLessThan(ABORT_BOUND)
    }
    for (const pid of pidsWritten(pids)) expect(await waitDead(pid, isWindows ? 5000 : 0)).toBe(true)
    await waitFor(() => resources().children <= childrenBefore, { timeoutMs: 10000, what: 'children back to the baseline' })
  }, 120000)
})

describe('hostile hooks: the host goes away', () => {
  /**
   * Starts a child Node running `script`; resolves once it exits, with its output. The output
   * goes to a file (under Wine node.exe cannot write to a pipe).
   */
  function node(script) {
    const out = path.join(makeTempDir(), 'out.txt')
    const fd = fs.openSync(out, 'w')
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', fd, fd] })
      fs.closeSync(fd)
      child.on('close', (code, signal) => resolve({ code, signal, out: fs.readFileSync(out, 'utf8') }))
    })
  }

  test('15a. process.exit() while hooks run: their process trees are stopped, no orphans', async () => {
    const tmp = makeTempDir()
    const { dir, pids, perRun } = longHook(tmp)
    const script = `
      const fs = require('fs')
      const { runHook } = require(${J(ADDON_DIR)})
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${J(dir)}] })
      const t = setInterval(() => { if (fs.readdirSync(${J(pids)}).length >= ${perRun}) { clearInterval(t); process.exit(0) } }, 10)`
    const { code, out } = await node(script)
    expect(out).toBe('')
    expect(code).toBe(0)
    const written = pidsWritten(pids)
    expect(written).toHaveLength(perRun)
    for (const pid of written) expect(await waitDead(pid, 5000)).toBe(true)
  }, 60000)

  test('15b. a worker thread (a Node environment) torn down while its hooks run: its trees are stopped, the main thread\'s are not', async () => {
    const tmp = makeTempDir()
    const worker = longHook(tmp)
    const mainPids = path.join(tmp, 'main-pids')
    fs.mkdirSync(mainPids)
    const [mainDir] = hookDirs(`require('fs').writeFileSync(require('path').join(${J(mainPids)}, String(process.pid)), '')\n${STAY_ALIVE}`)
    const script = `
      const fs = require('fs')
      const { Worker } = require('worker_threads')
      const { runHook, terminateAll } = require(${J(ADDON_DIR)})
      const main = runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${J(mainDir)}] })
      const w = new Worker(\`
        const { runHook } = require(${J(ADDON_DIR).replace(/\\/g, '\\\\')})
        runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${J(worker.dir).replace(/\\/g, '\\\\')}] })
      \`, { eval: true })
      const t = setInterval(async () => {
        if (fs.readdirSync(${J(worker.pids)}).length < ${worker.perRun} || fs.readdirSync(${J(mainPids)}).length < 1) return
        clearInterval(t)
        await w.terminate()
        const pid = Number(fs.readdirSync(${J(mainPids)})[0])
        let alive = true
        try { process.kill(pid, 0) } catch { alive = false }
        console.log(JSON.stringify({ mainHookAliveAfterWorkerEnded: alive }))
        console.log(JSON.stringify({ stopped: await terminateAll(), status: (await main).hooks[0].status }))
      }, 10)`
    const { code, out } = await node(script)
    expect(code).toBe(0)
    expect(out.trim().split(/\r?\n/).map((l) => JSON.parse(l))).toEqual([
      { mainHookAliveAfterWorkerEnded: true },
      { stopped: 1, status: 'aborted' },
    ])
    const written = pidsWritten(worker.pids)
    expect(written).toHaveLength(worker.perRun)
    for (const pid of written) expect(await waitDead(pid, 5000)).toBe(true)
  }, 60000)
})

// Issue 18 (second attack, E): `env` under every per-variable limit but over the system's
// total for a start (64 variables of 100 KiB: 6.4 MiB, past Linux's 2 MiB, and past 6 MiB
// even with an unlimited stack). Before, the hook failed with "could not start: Argument
// list too long (os error 7)", which names neither the environment nor a fix. Windows has no
// such total (each variable may hold 32,767 characters, the block as much as fits): it runs.
describe('an env larger than Unix allows for a start', () => {
  test(`${isWindows ? 'on Windows, with no such limit, the hook runs' : 'the hook fails with a sentence that names the environment and the fix'}; the run returns`, async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    writeProgram(dir, 'TaskStart', printJson({ contextModification: 'ran' }))
    const env = {}
    for (let i = 0; i < 64; i++) env[`CLINE_HOOKS_BIG_${i}`] = 'x'.repeat(100 * 1024)
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], env, timeoutMs: 20000 }))
    expect(result.hooks.map((h) => [h.status, h.failure])).toEqual([
      isWindows
        ? ['completed', undefined]
        : [
            'failed',
            'could not start: its arguments and environment are larger than the system allows (E2BIG); pass fewer or smaller `env` variables',
          ],
    ])
  }, 60000)
})

// The system refuses to start processes: a cgroup's pids.max is reached, as a fork bomb
// elsewhere in the session leaves it. (Under Wine a process that dies while being set up makes
// CreateProcess fail with ERROR_INTERNAL_ERROR, as it did once in 40 overlapping starts.)
const PIDS_CGROUP = '/sys/fs/cgroup/pids'
const canLimitPids = process.platform === 'linux' && (() => {
  try {
    fs.accessSync(path.join(PIDS_CGROUP, 'cgroup.procs'), fs.constants.W_OK)
    return true
  } catch {
    return false
  }
})()
const PIDS_REASON = process.platform === 'linux' ? 'needs a writable cgroup v1 pids controller (root on Linux)' : "a cgroup's pids.max is a Linux rule"

/**
 * A host Node process in a pids cgroup of its own, running the hooks of `dir`: each line it
 * reads is a command ("run NAME"; "abort NAME", aborted 5 ms in, saying "aborted" then;
 * "threads", how many tokio threads it has, workers and blocking; "exit"), answered by one JSON line. `limit()` sets the group's
 * pids.max to the count now and returns it; `stderr()` is what the host printed there; `close()`
 * kills the host and removes the group.
 */
function pidsLimitedHost(dir) {
  const group = fs.mkdtempSync(path.join(PIDS_CGROUP, 'cline-hooks-test-'))
  const host = spawn(
    process.execPath,
    [
      '-e',
      `const { runHook } = require(${J(ADDON_DIR)})
const run = async (line) => {
  const [what, id] = line.split(' ')
  if (what === 'threads') {
    const fs = require('fs')
    const tokio = fs.readdirSync('/proc/self/task').filter((t) => fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').startsWith('tokio-rt-worker'))
    return console.log(tokio.length)
  }
  const ac = new AbortController()
  if (what === 'abort') setTimeout(() => { ac.abort(); console.log('"aborted"') }, 5)
  const began = Date.now()
  try {
    const r = await runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${J(dir)}], timeoutMs: 20000, env: { RUN: id }, signal: ac.signal })
    const h = r.hooks[0]
    console.log(JSON.stringify({ status: h.status, failure: h.failure, context: r.contextModification, ms: Date.now() - began }))
  } catch (err) {
    console.log(JSON.stringify({ rejected: err.code || err.name, message: err.message }))
  }
}
require('readline').createInterface({ input: process.stdin }).on('line', (line) => (line === 'exit' ? process.exit(0) : run(line)))`,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  )
  let printed = ''
  host.stderr.setEncoding('utf8').on('data', (text) => (printed += text))
  const stderr = () => printed
  // 'close' comes after the host's stdio has ended, so everything it printed has been read.
  const closed = new Promise((resolve) => host.on('close', (code, signal) => resolve([code, signal])))
  fs.writeFileSync(path.join(group, 'cgroup.procs'), String(host.pid))
  const lines = require('readline').createInterface({ input: host.stdout })[Symbol.asyncIterator]()
  const next = async () => JSON.parse((await lines.next()).value)
  const ask = async (command) => {
    host.stdin.write(`${command}\n`)
    return next()
  }
  const pidsMax = (value) => fs.writeFileSync(path.join(group, 'pids.max'), String(value))
  const limit = () => {
    const current = Number(fs.readFileSync(path.join(group, 'pids.current'), 'utf8'))
    pidsMax(current)
    return current
  }
  const close = async () => {
    if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL')
    pidsMax('max')
    await waitFor(() => fs.readFileSync(path.join(group, 'cgroup.procs'), 'utf8').trim() === '', { timeoutMs: 5000, what: 'the test cgroup to empty' })
    fs.rmdirSync(group)
  }
  const exit = async () => {
    host.stdin.write('exit\n')
    return closed
  }
  return { host, ask, next, pidsMax, limit, stderr, exit, close }
}

describe('the system refuses to start processes', () => {
  testIf(canLimitPids, PIDS_REASON, "16. every start refused (a cgroup's pids.max reached): the hook fails within a second with a sentence that blames the system, not the hook; a run aborted while its start waits for another try rejects with AbortError; a run whose killed watchdog cannot be replaced settles too; the host lives on, prints nothing to stderr, and its next run completes once there is room", async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const ran = path.join(tmp, 'ran')
    writeHook(dir, 'TaskStart', `echo "$RUN" >> ${shq(ran)}\ncat > /dev/null\n${echoJson({ contextModification: 'ran' })}`)
    const { host, ask, next, pidsMax, limit, stderr, exit, close } = pidsLimitedHost(dir)
    try {
      // A first run starts the host's runtime threads and watchdog, so they are counted.
      expect(await ask('run warm')).toMatchObject({ status: 'completed', context: 'ran' })
      limit()
      const refused = await ask('run refused')
      expect(refused.status).toBe('failed')
      expect(refused.failure).toMatch(/^could not start: the system refused to create its process \(.*os error 11\)\) at each of 3 tries; .* the hook is not at fault, try again$/)
      expect(refused.ms).toBeLessThan(1000)
      // Aborted 5 ms in, during the 25 ms before its second try (that it then never tries is
      // the unit test a_stop_during_the_wait_ends_the_tries in spawn.rs).
      expect(await ask('abort aborted')).toBe('aborted')
      expect(await next()).toMatchObject({ rejected: 'ABORT_ERR' })
      // The watchdog killed with no room to start another: the run used to deadlock its thread
      // (and with it every later run and terminateAll()). The limit goes below the count first,
      // so the killed watchdog's slot cannot be taken by its replacement.
      pidsMax(limit() - 1)
      const [watchdog] = watchdogsOf(host.pid)
      process.kill(watchdog, 'SIGKILL')
      await waitFor(() => !watchdogsOf(host.pid).includes(watchdog), { timeoutMs: 5000, what: 'the watchdog to be gone' })
      // Whatever else ended meanwhile (a child of the killed watchdog, a runtime thread past its
      // idle time) freed a slot the hook could take: no room again, just before the run.
      limit()
      const unwatched = await ask('run unwatched')
      expect([unwatched.status, unwatched.failure]).toEqual(['failed', refused.failure])
      pidsMax('max')
      expect(await ask('run after')).toMatchObject({ status: 'completed', context: 'ran' })
      // Each run that started its hook wrote its name: the refused and aborted ones did not.
      expect(fs.readFileSync(ran, 'utf8').split('\n').filter(Boolean)).toEqual(['warm', 'after'])
      expect(await exit()).toEqual([0, null])
      expect(stderr()).toBe('')
    } finally {
      await close()
    }
  }, 60000)

  testIf(canLimitPids, PIDS_REASON, "16b. an idle host (its runtime's blocking threads gone) reaching pids.max: a run that must read its hooks folders rejects with ERR_HOOK_NO_THREAD, the refused thread is no panic printed on the host's stderr, and its next run completes once there is room (it used to wait for a thread that another folder's run started, rejecting with ERR_HOOK_DISCOVERY_TIMEOUT)", async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    writeHook(dir, 'TaskStart', `cat > /dev/null\n${echoJson({ contextModification: 'ran' })}`)
    const { ask, pidsMax, limit, stderr, exit, close } = pidsLimitedHost(dir)
    try {
      const idle = await ask('threads')
      expect(await ask('run warm')).toMatchObject({ status: 'completed', context: 'ran' })
      // tokio ends a blocking thread after 10 s without work: wait for the host to be back to
      // the runtime threads it had before its first run (its workers).
      await waitFor(async () => (await ask('threads')) <= idle, { timeoutMs: 30000, intervalMs: 500, what: 'the blocking threads to end' })
      limit()
      const refused = await ask('run refused')
      expect(refused.rejected).toBe('ERR_HOOK_NO_THREAD')
      expect(refused.message).toMatch(/^the system refused a thread to read the hooks folders \(.*\): too many processes or threads are running/)
      pidsMax('max')
      expect(await ask('run after')).toMatchObject({ status: 'completed', context: 'ran' })
      // tokio's pool panicked when refused; the core caught it, and the addon printed nothing
      // (read once the host has ended, so a late line cannot be missed).
      expect(await exit()).toEqual([0, null])
      expect(stderr()).toBe('')
    } finally {
      await close()
    }
  }, 60000)
})
