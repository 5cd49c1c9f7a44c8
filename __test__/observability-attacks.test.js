'use strict'

// What an attack on issue 15's promises broke (live events, audit log, hook logs, setLogger,
// instant discovery, doctor, init, run): each test failed before its fix, and names the
// promise it holds the product to.

const fs = require('fs')
const path = require('path')
const { spawn, execFileSync } = require('child_process')

const { addon, makeTempDir, makeWorkspace, hooksDirOf, writeHook, describeUnix, trackPid } = require('./helpers')

const ADDON = path.join(__dirname, '..')

/**
 * Runs `script` in a Node process of its own (the addon as `addon`), killed after `boundMs`;
 * resolves with whether it ended by itself, its exit status and output.
 */
function host(script, boundMs, env = process.env) {
  const file = path.join(makeTempDir(), 'host.js')
  fs.writeFileSync(file, `const addon = require(${JSON.stringify(ADDON)})\n${script}`)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { env, windowsHide: true })
    trackPid(child.pid)
    let out = ''
    let ended = true
    const timer = setTimeout(() => {
      ended = false
      child.kill('SIGKILL')
    }, boundMs)
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ ended, status, out })
    })
  })
}

/** A workspace whose PreToolUse prints `{"cancel": true}`. */
function cancellingWorkspace() {
  const root = makeWorkspace()
  writeHook(hooksDirOf(root), 'PreToolUse', `printf '%s\\n' '{"cancel": true}'\n`)
  return root
}

const RUN_AND_PRINT = (options) => `
addon.runHook('PreToolUse', {}, ${options}).then((r) => {
  console.log('SETTLED ' + JSON.stringify({ cancel: r.cancel, warnings: r.warnings }))
})
`

describeUnix('records (auditLog, hookLogs) that are FIFOs', () => {
  // README, Audit log: "Never in the way: ... a write that fails ... adds a warning to the
  // run's warnings and changes nothing else: the verdict stands." A FIFO nobody reads (left by
  // a tool, or `auditLog` pointed at a named pipe) blocks open(O_WRONLY) forever: the run's
  // promise never settles, its verdict is lost, and the host never exits.
  test('auditLog naming a FIFO with no reader does not hang the run', async () => {
    const root = cancellingWorkspace()
    const fifo = path.join(makeTempDir(), 'audit.fifo')
    execFileSync('mkfifo', [fifo])
    const options = JSON.stringify({ workspaceRoots: [root], globalHooksDir: null, auditLog: fifo })
    const { ended, out } = await host(RUN_AND_PRINT(options), 10000)
    expect(out).toMatch(/SETTLED \{"cancel":true/)
    expect(ended).toBe(true)
  }, 30000)

  // README, Hook logs: "a failure is a warning of the run, never a failure". A hook (or
  // anything else) leaving a FIFO as `.clinerules/logs/PreToolUse.log` blocks every later run
  // of PreToolUse with hookLogs forever.
  test('hookLogs with a FIFO as <HookName>.log does not hang the run', async () => {
    const root = cancellingWorkspace()
    fs.mkdirSync(path.join(root, '.clinerules', 'logs'))
    execFileSync('mkfifo', [path.join(root, '.clinerules', 'logs', 'PreToolUse.log')])
    const options = JSON.stringify({ workspaceRoots: [root], globalHooksDir: null, hookLogs: true })
    const { ended, out } = await host(RUN_AND_PRINT(options), 10000)
    expect(out).toMatch(/SETTLED \{"cancel":true/)
    expect(ended).toBe(true)
  }, 30000)
})

const TRUNCATED = "[truncated: the rest of this hook's output is not sent as events]"

describeUnix('live events when the JavaScript thread falls behind', () => {
  // README, Live events: "If the queue ever holds 16 MiB of lines (a thread stuck for long
  // while hooks flood their output), each hook still sending gets its `truncated` line and no
  // more lines". The truncated line itself goes through the full queue and is dropped, so a
  // hook's lines just stop, with nothing saying they were cut.
  test('a hook cut short by the full event queue still gets its truncated line', async () => {
    const root = makeWorkspace()
    const marks = makeTempDir()
    const HOOKS = 8
    // ~6 MB of 4,000-byte lines each (1,500 lines: more than the 1,000-line limit, and 8 of
    // them pass 16 MiB of queued lines), then a verdict, then a mark that it is done.
    writeHook(
      hooksDirOf(root),
      'PreToolUse',
      `head -c 6000000 /dev/zero | tr '\\0' x | fold -w 4000
printf '%s\\n' '{"cancel": true}'
mktemp ${JSON.stringify(marks)}/done.XXXXXX >/dev/null
`,
    )
    const events = Array.from({ length: HOOKS }, () => [])
    let held = false
    const runs = events.map((seen) =>
      addon.runHook(
        'PreToolUse',
        {},
        {
          workspaceRoots: [root],
          globalHooksDir: null,
          maxConcurrentHooks: HOOKS,
          onEvent(event) {
            seen.push(event)
            if (held) return
            held = true
            // The JavaScript thread is stuck (a busy extension host) until every hook is done.
            const until = Date.now() + 60000
            while (fs.readdirSync(marks).length < HOOKS && Date.now() < until) {
              // busy: the thread does nothing else
            }
          },
        },
      ),
    )
    const results = await Promise.all(runs)
    for (const result of results) expect(result.cancel).toBe(true)
    expect(fs.readdirSync(marks).length).toBe(HOOKS)
    const lastLines = events.map((seen) => {
      const lines = seen.filter((e) => e.type === 'stdout' || e.type === 'stderr')
      if (!lines.length) return '(no line)'
      const last = lines[lines.length - 1].line
      return last === TRUNCATED ? 'truncated' : `cut off silently after ${lines.length} lines`
    })
    expect(lastLines).toEqual(Array(HOOKS).fill('truncated'))
  }, 120000)
})

describeUnix('CLINE_HOOKS_LOG and a stderr nobody reads', () => {
  // README, Logging: "the lines queued are written before the process exits (within 0.5 s ...)".
  // With stderr a full pipe nobody reads, a Node process that ends by itself waits 0.5 s in
  // the environment's cleanup hook and then 0.5 s more in the atexit handler: 1 s, twice the
  // bound (baseline: ~20 ms). The bound here is 950 ms: the 0.5 s wait plus room for a loaded
  // machine's teardown, and still under the 1 s the two waits took.
  test('a host whose stderr nobody reads exits within 0.5 s of finishing its work', async () => {
    const script = `
const factory = new addon.HookFactory({ globalHooksDir: null, workspaceRoots: [${JSON.stringify(makeWorkspace())}] })
;(async () => {
  for (let i = 0; i < 5000; i++) await factory.hasHook('PreToolUse') // trace records: far more than a pipe holds
  process.stdout.write('done\\n')
})()
`
    const file = path.join(makeTempDir(), 'host.js')
    fs.writeFileSync(file, `const addon = require(${JSON.stringify(ADDON)})\n${script}`)
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, CLINE_HOOKS_LOG: 'trace' },
      stdio: ['ignore', 'pipe', 'pipe'], // stderr: a pipe this test never reads
    })
    trackPid(child.pid)
    let doneAt = null
    child.stdout.on('data', (chunk) => {
      if (doneAt === null && String(chunk).includes('done')) doneAt = Date.now()
    })
    const exitedAt = await new Promise((resolve) => child.on('exit', () => resolve(Date.now())))
    expect(doneAt).not.toBeNull()
    expect(exitedAt - doneAt).toBeLessThan(950)
  }, 60000)
})
