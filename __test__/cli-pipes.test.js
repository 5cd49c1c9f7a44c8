// Issue 18 item 4: cline-hooks and its pipes, input files and signals, as real processes: a
// stdout whose reader is gone, a full disk, FIFOs with and without a writer, /dev/zero, 600 MB on
// stdin, SIGHUP/SIGINT/SIGTERM during a read and during a run (the hook tree must be gone), an
// internal error, and the exit-status table in --help. The pipes, the input limits and the
// internal errors run on both platforms; FIFOs, /dev files and POSIX signals are Unix's (Ctrl-C
// on Windows is in cli.test.js).
const { spawn, spawnSync, execFileSync } = require('child_process')
const fs = require('fs')
const path = require('path')
const {
  isWindows,
  describeUnix,
  testIf,
  makeTempDir,
  makeWorkspace,
  hooksDirOf,
  writeHook,
  writeProgram,
  readInputThen,
  printJson,
  writePidTo,
  waitFor,
  waitForFile,
  trackPid,
  isAlive,
  waitDead,
  cliEnv,
  nodeSync,
} = require('./helpers')

const ROOT = path.join(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'cline-hooks.js')
// The examples of this platform: both have a PreToolUse hook that blocks the write of a .js file.
const EXAMPLE_WS = path.join(ROOT, 'examples', isWindows ? 'windows' : 'workspace')
const EXAMPLE_INPUT = path.join(ROOT, 'examples', 'inputs', 'PreToolUse.json')
const BLOCKING_INPUT = path.join(ROOT, 'examples', 'inputs', 'PreToolUse-write-js.json')

const STACK_LINE = /^\s+at .+(\(|:\d+)/m
const isLinux = process.platform === 'linux'

/**
 * Starts the CLI; resolves `exited` with { code, signal, stdout, stderr, at }. `closed` names a
 * pipe ('stdout' or 'stderr') whose reading end this process closes at once, before the CLI has
 * started: every write to it then fails with EPIPE, on every platform.
 */
function start(args, { stdio = ['ignore', 'pipe', 'pipe'], env, closed } = {}) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio, env: cliEnv(env) })
  trackPid(child.pid)
  if (closed) child[closed].destroy()
  let stdout = ''
  let stderr = ''
  if (child.stdout && closed !== 'stdout') child.stdout.on('data', (d) => (stdout += d))
  if (child.stderr && closed !== 'stderr') child.stderr.on('data', (d) => (stderr += d))
  const exited = new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, at: Date.now() })),
  )
  return { child, exited }
}

/** `exited`, or (after `ms`) the CLI killed and an error saying it hung. */
async function within(run, ms, what) {
  let timer
  const hung = new Promise((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL')
      reject(new Error(`cline-hooks did not exit within ${ms} ms after ${what}`))
    }, ms)
  })
  try {
    return await Promise.race([run.exited, hung])
  } finally {
    clearTimeout(timer)
  }
}

function mkfifo(dir, name = 'input.fifo') {
  const fifo = path.join(dir, name)
  execFileSync('mkfifo', [fifo])
  return fifo
}

/** Pids of `pid` and all its descendants (Linux /proc). */
function processTree(pid) {
  const parents = new Map()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(Number(entry), ppid)
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid]
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child)
  }
  return tree
}

/** Whether a thread of `pid` or of a descendant sleeps in the kernel waiting for a FIFO's other end. */
function waitsForFifoPartner(pid) {
  for (const p of processTree(pid)) {
    let tasks = []
    try {
      tasks = fs.readdirSync(`/proc/${p}/task`)
    } catch {
      continue
    }
    for (const t of tasks) {
      try {
        if (fs.readFileSync(`/proc/${p}/task/${t}/wchan`, 'utf8') === 'wait_for_partner') return true
      } catch {
        // gone meanwhile
      }
    }
  }
  return false
}

/** Opens `fifo` for writing once a reader has it open (or is blocked opening it). */
async function openWriterWhenRead(fifo) {
  let fd = null
  await waitFor(
    () => {
      try {
        fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
        return true
      } catch (e) {
        if (e.code === 'ENXIO') return false // no reader yet
        throw e
      }
    },
    { timeoutMs: 20000, what: `a reader on ${fifo}` },
  )
  return fd
}

function expectOneQuietLine(stderr) {
  expect(stderr).not.toMatch(STACK_LINE)
  expect(stderr.endsWith('\n')).toBe(true)
  expect(stderr.trimEnd().split('\n')).toHaveLength(1)
  expect(stderr.startsWith('cline-hooks: ')).toBe(true)
}

describe('exit statuses', () => {
  test('--help has one table with every exit status the CLI uses, one row each, with its meaning', () => {
    const r = nodeSync([CLI, '--help'], { cwd: ROOT, encoding: 'utf8' })
    expect(r.status).toBe(0)
    const at = r.stdout.indexOf('\nExit status:\n')
    expect(at).toBeGreaterThan(-1)
    const rows = r.stdout.slice(at).split('\n').slice(2)
    const table = rows.slice(0, rows.findIndex((l) => l === ''))
    expect(table.map((l) => Number(l.trim().split(/\s+/)[0]))).toEqual([0, 1, 2, 3, 70, 74, 129, 130, 141, 143])
    for (const row of table) expect(row).toMatch(/^ +\d+ {2}\S.{20,}/)
    // ... and the codes the code uses are exactly those of the table.
    const { EXIT, EXIT_TABLE } = require('../bin/cline-hooks.js')
    expect(EXIT_TABLE.map(([code]) => code)).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b))
  })
})

describe('a closed stdout', () => {
  test('run --json into a pipe whose reader is gone exits 141 without a word, after the hooks finished', async () => {
    const ws = makeWorkspace()
    writeProgram(hooksDirOf(ws), 'PreToolUse', readInputThen(writePidTo(path.join(ws, 'hook.pid')) + printJson({ cancel: true })))
    const run = start(['run', 'PreToolUse', '--no-global', '--workspace', ws, '--json'], { closed: 'stdout' })
    const r = await within(run, 60000, 'writing to a closed pipe')
    expect(r.stderr).toBe('')
    expect(r.signal).toBeNull()
    expect(r.code).toBe(141) // not 1: a cancel code read from a broken pipe would be a lie
    const hookPid = trackPid(Number(fs.readFileSync(path.join(ws, 'hook.pid'), 'utf8')))
    expect(isAlive(hookPid)).toBe(false)
  })

  test('list into a pipe whose reader is gone exits 141 without a word', async () => {
    const run = start(['list', '--no-global', '--workspace', EXAMPLE_WS], { closed: 'stdout' })
    const r = await within(run, 60000, 'writing to a closed pipe')
    expect(r).toMatchObject({ code: 141, signal: null, stderr: '' })
  })

  test('`list | head -1`: a reader that leaves after the first line ends the pipeline; cline-hooks exits 0 or 141, never with a stack trace', async () => {
    // Whether the rest of the write lands before the reader is gone is a race; either outcome is
    // quiet. The reader is this process, as `head -1` would be in a shell.
    const child = spawn(process.execPath, [CLI, 'list', '--no-global', '--workspace', EXAMPLE_WS], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: cliEnv(),
    })
    trackPid(child.pid)
    let head = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      head += d
      if (head.includes('\n')) {
        head = head.slice(0, head.indexOf('\n') + 1)
        child.stdout.destroy()
      }
    })
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })))
    const r = await within({ child, exited }, 60000, 'its reader left')
    expect(head).toMatch(/^HOOK\s+STATE/)
    expect(r.signal).toBeNull()
    expect([0, 141]).toContain(r.code)
    expect(stderr).toBe('')
  })

  testIf(fs.existsSync('/dev/full'), 'no /dev/full here', 'a stdout that fails to write (/dev/full) exits 74 with one sentence', async () => {
    const full = fs.openSync('/dev/full', 'w')
    const run = start(['list', '--no-global', '--workspace', EXAMPLE_WS], { stdio: ['ignore', full, 'pipe'] })
    fs.closeSync(full)
    const r = await within(run, 30000, 'writing to /dev/full')
    expect(r.code).toBe(74)
    expectOneQuietLine(r.stderr)
    expect(r.stderr).toContain('cannot write the output (no space left on device)')
  })

  test('a stderr nobody reads does not stop a run: its warnings are dropped, stdout and the status are right', async () => {
    const run = start(
      ['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--workspace', 'no-such-dir', '--input', BLOCKING_INPUT],
      { closed: 'stderr' },
    )
    const r = await within(run, 60000, 'a run with a closed stderr')
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/✘ cancelled · 1 hook/)
  })
})

describeUnix('--input from a FIFO or a device', () => {
  test('a FIFO is read once a writer comes, asynchronously: the run sees what was written', async () => {
    const fifo = mkfifo(makeTempDir())
    const run = start(['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', fifo, '--json'])
    fs.writeFileSync(fifo, fs.readFileSync(BLOCKING_INPUT)) // blocks until cline-hooks opens it
    const r = await within(run, 30000, 'reading a FIFO')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).cancel).toBe(true)
  })

  test("bash's <(...) and /dev/stdin name the same input a file would", () => {
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run PreToolUse --no-global --workspace ${JSON.stringify(EXAMPLE_WS)} --json`
    const viaSubst = spawnSync('bash', ['-c', `${cmd} --input <(cat ${JSON.stringify(BLOCKING_INPUT)})`], { encoding: 'utf8', timeout: 30000 })
    expect(viaSubst.stderr).toBe('')
    expect(viaSubst.status).toBe(1)
    const viaStdin = spawnSync('bash', ['-c', `cat ${JSON.stringify(BLOCKING_INPUT)} | ${cmd} --input /dev/stdin`], { encoding: 'utf8', timeout: 30000 })
    expect(viaStdin.stderr).toBe('')
    expect(viaStdin.status).toBe(1)
  })

  testIf(isLinux, 'needs /proc/<pid>/task/<tid>/wchan', 'SIGINT while a FIFO has no writer yet: exit 130 promptly, nothing left waiting on the FIFO', async () => {
    const fifo = mkfifo(makeTempDir())
    const run = start(['run', 'PreToolUse', '--no-global', '--input', fifo])
    await waitFor(() => waitsForFifoPartner(run.child.pid), { timeoutMs: 20000, what: 'cline-hooks to wait for a writer on the FIFO' })
    const tree = processTree(run.child.pid)
    tree.forEach(trackPid)
    const sentAt = Date.now()
    run.child.kill('SIGINT')
    const r = await within(run, 10000, 'SIGINT')
    expect(r).toMatchObject({ code: 130, signal: null })
    expect(r.at - sentAt).toBeLessThan(5000)
    expect(r.stderr).toBe('')
    for (const pid of tree) expect(await waitDead(pid, 5000)).toBe(true)
    // Nobody is left with the FIFO open for reading: a non-blocking writer is refused.
    expect(() => fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)).toThrow(expect.objectContaining({ code: 'ENXIO' }))
  })

  test('SIGTERM while a FIFO writer sends nothing: exit 143 promptly', async () => {
    const fifo = mkfifo(makeTempDir())
    const run = start(['run', 'PreToolUse', '--no-global', '--input', fifo])
    const writer = await openWriterWhenRead(fifo) // the reader now waits for bytes that never come
    try {
      const sentAt = Date.now()
      run.child.kill('SIGTERM')
      const r = await within(run, 10000, 'SIGTERM')
      expect(r).toMatchObject({ code: 143, signal: null, stderr: '' })
      expect(r.at - sentAt).toBeLessThan(5000)
    } finally {
      fs.closeSync(writer)
    }
  })

  test('--input /dev/zero stops at the 16 MiB limit: exit 2 with one sentence', async () => {
    const run = start(['run', 'PreToolUse', '--no-global', '--input', '/dev/zero'])
    const r = await within(run, 30000, 'reading /dev/zero')
    expect(r.code).toBe(2)
    expectOneQuietLine(r.stderr)
    expect(r.stderr).toBe(
      'cline-hooks: the input from /dev/zero is larger than 16 MiB, the most cline-hooks reads; pass a smaller JSON object\n',
    )
  })
}, { reason: "FIFOs, /dev devices, bash's <(...) and POSIX signals are Unix's" })

describe('--input that is too much', () => {
  test('a regular file over the limit is refused before it is read', async () => {
    const big = path.join(makeTempDir(), 'big.json')
    fs.writeFileSync(big, '')
    fs.truncateSync(big, 16 * 1024 * 1024 + 1) // sparse: no 16 MiB written
    const r = await within(start(['run', 'PreToolUse', '--no-global', '--input', big]), 30000, 'a big file')
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(`cline-hooks: the input from ${big} is larger than 16 MiB, the most cline-hooks reads; pass a smaller JSON object\n`)
  })

  test('600 MB on --input -: exit 2 with one sentence, without reading it all', async () => {
    const run = start(['run', 'PreToolUse', '--no-global', '--input', '-'], { stdio: ['pipe', 'pipe', 'pipe'] })
    const chunk = Buffer.alloc(1 << 20, 'a')
    let written = 0
    let closed = false
    run.child.stdin.on('error', () => (closed = true)) // EPIPE once cline-hooks stops reading
    run.child.stdin.write('{"data":"')
    const feed = async () => {
      while (!closed && written < 600) {
        const ok = run.child.stdin.write(chunk)
        written++
        if (!ok) {
          await new Promise((resolve) => {
            const done = () => {
              run.child.stdin.off('drain', done).off('close', done)
              resolve()
            }
            run.child.stdin.on('drain', done).on('close', done)
          })
        }
      }
      if (!closed) run.child.stdin.end('"}')
    }
    feed()
    const r = await within(run, 60000, '600 MB on stdin')
    expect(r.code).toBe(2)
    expectOneQuietLine(r.stderr)
    expect(r.stderr).toContain('the input from stdin is larger than 16 MiB')
    expect(written).toBeLessThan(600) // it stopped reading at the limit
  })
})

describeUnix('signals during a run stop the hook tree, then exit 128 + the signal', () => {
  test.each([
    ['SIGHUP', 129],
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])('%s: exit %i, the hook and its children are gone', async (signal, status) => {
    const ws = makeWorkspace()
    // The hook, a child and a grandchild all sleep; their pids go to tree.pids in the workspace.
    writeHook(
      hooksDirOf(ws),
      'PreToolUse',
      'sleep 60 &\nA=$!\nbash -c \'sleep 60 & echo $! > "$PWD/grand.pid"; wait\' &\nB=$!\n' +
        'while [ ! -s grand.pid ]; do sleep 0.01; done\necho "$$ $A $B $(cat grand.pid)" > tree.pids.tmp\nmv tree.pids.tmp tree.pids\nwait\n',
      { shebang: 'bash' },
    )
    const run = start(['run', 'PreToolUse', '--no-global', '--workspace', ws])
    const pids = (await waitForFile(path.join(ws, 'tree.pids'), 20000)).split(/\s+/).map(Number)
    pids.forEach(trackPid)
    expect(pids).toHaveLength(4)
    expect(pids.every(isAlive)).toBe(true)

    const sentAt = Date.now()
    run.child.kill(signal)
    const r = await within(run, 15000, signal)
    // terminateAll() resolved before the exit, so the CLI killed the tree itself; give the kernel a
    // moment to finish them (a zombie counts as gone). Before, SIGHUP killed the CLI outright,
    // without a status of its own, and only the addon's watchdog cleaned up after it.
    for (const pid of pids) expect(await waitDead(pid, 3000)).toBe(true)
    expect(r.signal).toBeNull()
    expect(r.code).toBe(status)
    expect(r.at - sentAt).toBeLessThan(10000)
    expect(r.stderr).toBe(`cline-hooks: interrupted by ${signal}; the PreToolUse hooks were stopped\n`)
  })
}, { reason: 'POSIX signals (Ctrl-C on Windows is tested in cli.test.js)' })

describe('internal errors', () => {
  const PRELOAD = path.join(__dirname, 'fixtures', 'cli', 'discovery-throws.js')

  test('an internal error prints one sentence that says how to report it, and exits 70', () => {
    const r = nodeSync(['--require', PRELOAD, CLI, 'list', '--no-global'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CLINE_HOOKS_DEBUG: '' },
    })
    expect(r.status).toBe(70)
    expectOneQuietLine(r.stderr)
    expect(r.stderr).toContain('internal error (boom from the discovery-throws fixture)')
    expect(r.stderr).toContain('please report it')
    expect(r.stderr).toContain('CLINE_HOOKS_DEBUG=1')
  })

  test('CLINE_HOOKS_DEBUG=1 adds the stack trace', () => {
    const r = nodeSync(['--require', PRELOAD, CLI, 'list', '--no-global'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CLINE_HOOKS_DEBUG: '1' },
    })
    expect(r.status).toBe(70)
    expect(r.stderr).toMatch(STACK_LINE)
  })
})

describeUnix('internal errors while an input FIFO waits', () => {
  // At 0 ms the exception comes before the reader of the FIFO is started (it must then never start).
  test.each([0, 50])('an exception thrown outside main() %i ms in (the input FIFO waiting) is the same one sentence, and no reader is left', async (afterMs) => {
    const fifo = mkfifo(makeTempDir())
    const child = spawn(process.execPath, ['--require', path.join(__dirname, 'fixtures', 'cli', 'stray-exception.js'), CLI, 'run', 'PreToolUse', '--no-global', '--input', fifo], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CLINE_HOOKS_DEBUG: '', STRAY_EXCEPTION_AFTER_MS: String(afterMs) },
    })
    trackPid(child.pid)
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })))
    const r = await within({ child, exited }, 20000, 'a stray exception')
    expect(r).toEqual({ code: 70, signal: null })
    expectOneQuietLine(stderr)
    expect(stderr).toContain('internal error (stray boom from the stray-exception fixture)')
    // No reader is left on the FIFO (a helper started after the exit began would sit there).
    expect(() => fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)).toThrow(expect.objectContaining({ code: 'ENXIO' }))
  })
}, { reason: 'FIFOs are Unix files' })

/** Whether /dev/kmsg can be read here (root, or dmesg_restrict off): reading it past its end blocks. */
function kmsgReadable() {
  if (!isLinux) return false
  let fd
  try {
    fd = fs.openSync('/dev/kmsg', fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    fs.readSync(fd, Buffer.alloc(64 * 1024))
    return true
  } catch (e) {
    return e.code === 'EAGAIN' // readable, just nothing new
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Whether a thread of `pid` or of a descendant sleeps in the kernel function `wchan`. */
function sleepsIn(pid, wchan) {
  for (const p of processTree(pid)) {
    let tasks = []
    try {
      tasks = fs.readdirSync(`/proc/${p}/task`)
    } catch {
      continue
    }
    for (const t of tasks) {
      try {
        if (fs.readFileSync(`/proc/${p}/task/${t}/wchan`, 'utf8') === wchan) return true
      } catch {
        // gone meanwhile
      }
    }
  }
  return false
}

// Issue 18 (second attack, B2): stdin redirected from a character device that is not a terminal
// and whose read blocks (/dev/kmsg past its last record). Node reads such a stdin with an
// fs.ReadStream: a libuv worker thread sits in read(), and process.exit() waits for it, so
// SIGTERM and SIGINT were handled and then nothing happened. Now such a stdin is read by a
// `cat` child, which the stop kills. /dev/kmsg is the one blocking, non-terminal device a
// test can count on, and reading it needs root (or dmesg_restrict off).
describeUnix('--input - from a device that blocks', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ]) {
    testIf(kmsgReadable(), 'needs a readable /dev/kmsg (root on Linux)', `${signal} while reading stdin from /dev/kmsg: exit ${code} promptly, no reader left`, async () => {
      const kmsg = fs.openSync('/dev/kmsg', 'r')
      let run
      try {
        run = start(['run', 'PreToolUse', '--no-global', '--input', '-'], { stdio: [kmsg, 'pipe', 'pipe'] })
      } finally {
        fs.closeSync(kmsg) // the CLI has its own copy
      }
      await waitFor(() => sleepsIn(run.child.pid, 'devkmsg_read'), { timeoutMs: 20000, what: 'cline-hooks to wait for /dev/kmsg' })
      const tree = processTree(run.child.pid)
      tree.forEach(trackPid)
      const sentAt = Date.now()
      run.child.kill(signal)
      const r = await within(run, 10000, signal)
      expect(r).toMatchObject({ code, signal: null, stderr: '' })
      expect(r.at - sentAt).toBeLessThan(5000)
      for (const pid of tree) expect(await waitDead(pid, 5000)).toBe(true)
    })
  }
}, { reason: '/dev/kmsg and POSIX signals' })
