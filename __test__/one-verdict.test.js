// One verdict on every path: what the persistent path and the host-facing options must never
// decide differently from a per-event run, tried as the model would (it chooses every tool
// argument) and as a host would (detached events, a process cap, a hook stopped at its timeout,
// an author saving a running hook). The seeded differential run of many hook behaviours
// through every mode and entry point is verdict-parity.test.js.

const fs = require('fs')
const path = require('path')
const { spawn } = require('child_process')

const { addon, isWindows, testIf, makeWorkspace, makeTempDir, hooksDirOf, writeProgram, trackPid, isAlive, waitDead, waitFor, opts } = require('./helpers')

const { runHook, HookFactory, trustHook, terminateAll } = addon

const ROOT = path.resolve(__dirname, '..')
const SERVE_JS = require.resolve('@cline/hooks/serve', { paths: [ROOT] })
const q = JSON.stringify
const START_MS = isWindows ? 60000 : 30000

jest.setTimeout(180000)
afterEach(() => terminateAll())

/** A workspace with one PreToolUse hook running `program` (Node), persistent by its header. */
function persistentGate(program, { header = 'mode=persistent', event = 'PreToolUse' } = {}) {
  const root = makeWorkspace()
  const hook = writeProgram(hooksDirOf(root), event, program, { header })
  return { root, hook, options: (extra = {}) => opts({ workspaceRoots: [root], timeoutMs: START_MS, ...extra }) }
}

describe('the event id cannot collide with what the event holds', () => {
  // A serveHook gate that blocks every write and says which id it saw.
  const GATE = `require(${q(SERVE_JS)}).serveHook((event) => ({ cancel: true, errorMessage: 'blocked ' + event.hookEventId }))\n`

  test.each([
    ['the word as a tool argument', { preToolUse: { tool: 'search_files', parameters: { regex: 'hookEventId' } } }],
    ['a nested key', { preToolUse: { tool: 'write_to_file', parameters: { path: 'a.ts', content: { hookEventId: '1' } } } }],
    ["a caller's own top-level hookEventId", { hookEventId: 'mine', preToolUse: { tool: 'write_to_file', parameters: { path: 'a.ts' } } }],
    ['an id-shaped value everywhere', { hookEventId: '2', preToolUse: { tool: 'write_to_file', parameters: { hookEventId: '3', path: '"hookEventId":"4"' } } }],
  ])('%s: the persistent gate is answered at once and its cancel counts', async (_, input) => {
    const { options } = persistentGate(GATE)
    // Warm: the process is up and has shown it echoes ids.
    expect((await runHook('PreToolUse', { preToolUse: { tool: 'read_file' } }, options())).cancel).toBe(true)
    for (let i = 0; i < 3; i++) {
      const began = Date.now()
      const result = await runHook('PreToolUse', input, options())
      expect(result.hooks).toEqual([expect.objectContaining({ status: 'completed', cancel: true })])
      expect(result.cancel).toBe(true)
      // The hook saw the runtime's id, never the caller's or the content's.
      expect(result.errorMessage).toMatch(/^blocked \d+$/)
      expect(result.errorMessage).toBe(`blocked ${result.hooks[0].output.hookEventId}`)
      expect(Date.now() - began).toBeLessThan(START_MS / 2)
    }
  })
})

describe('detached events reach persistent hooks', () => {
  test('10 detached events from a host that exits right after are all delivered', async () => {
    const log = path.join(makeTempDir(), 'events.log')
    const program = `const fs = require('fs')
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  fs.appendFileSync(${q(log)}, JSON.parse(line).n + ' ' + process.pid + '\\n')
  fs.writeSync(1, '{}\\n')
})
`
    const { root } = persistentGate(program, { event: 'TaskComplete' })
    const host = `const { runHook } = require(${q(ROOT)})
;(async () => {
  for (let n = 1; n <= 10; n++) {
    await runHook('TaskComplete', { n }, { workspaceRoots: [${q(root)}], globalHooksDir: null, detached: true })
  }
  process.exit(0)
})()
`
    const child = spawn(process.execPath, ['-e', host], { stdio: 'ignore' })
    await new Promise((resolve) => child.on('exit', resolve))
    const delivered = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [])
    await waitFor(() => delivered().length >= 10, { timeoutMs: START_MS, what: '10 detached events to be delivered' })
    const lines = delivered().map((line) => line.split(' ').map(Number))
    expect(lines.map(([n]) => n).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    // Each ends once its input does; waited for, as Windows keeps a folder a process runs in.
    for (const [, pid] of lines) expect(await waitDead(trackPid(pid), START_MS)).toBe(true)
  })
})

describe('maxConcurrentHooks counts every live hook process', () => {
  test('3 persistent hooks rewritten between runs, cap 2: never more than 2 hook processes alive, every event answered', async () => {
    const pids = makeTempDir()
    // Each process notes its pid, answers every event, and ignores EOF for a while (a
    // retired process lives through its grace).
    const program = (version) => `const fs = require('fs')
fs.writeFileSync(require('path').join(${q(pids)}, String(process.pid)), '')
require('readline').createInterface({ input: process.stdin })
  .on('line', () => fs.writeSync(1, JSON.stringify({ contextModification: 'v${version}' }) + '\\n'))
  .on('close', () => setTimeout(() => process.exit(0), 400))
`
    const roots = [makeWorkspace(), makeWorkspace(), makeWorkspace()]
    const write = (version) => roots.forEach((root) => writeProgram(hooksDirOf(root), 'PreToolUse', program(version), { header: 'mode=persistent' }))
    write(0)
    const factory = new HookFactory(opts({ workspaceRoots: roots, maxConcurrentHooks: 2 }))

    let most = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const alive = fs.readdirSync(pids).filter((pid) => isAlive(Number(pid))).length
        most = Math.max(most, alive)
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    for (let version = 0; version < 5; version++) {
      if (version > 0) write(version)
      const runner = await factory.create('PreToolUse')
      const result = await runner.run({}, { timeoutMs: START_MS })
      expect(result.hooks.map((h) => [h.status, h.contextModification])).toEqual(roots.map(() => ['completed', `v${version}`]))
    }
    sampling = false
    await sampler
    fs.readdirSync(pids).forEach((pid) => trackPid(Number(pid)))
    expect(most).toBeGreaterThan(0)
    expect(most).toBeLessThanOrEqual(2)
  })
})

describe('a stopped hook says how it ended', () => {
  const HANG = "process.stdin.resume(); setInterval(() => {}, 1000)\n"

  test.each([
    ['per event', ''],
    ['persistent', 'mode=persistent'],
  ])('%s: stopped at its timeout, by an abort or by terminateAll(), it reports the signal, in its audit-log line too', async (_, header) => {
    const auditLog = path.join(makeTempDir(), 'audit.jsonl')
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', HANG, header ? { header } : undefined)
    const options = (extra) => opts({ workspaceRoots: [root], auditLog, ...extra })
    const timedOut = await runHook('PreToolUse', {}, options({ timeoutMs: 500 }))
    const controller = new AbortController()
    const aborting = runHook('PreToolUse', {}, options({ timeoutMs: START_MS, signal: controller.signal }))
    setTimeout(() => controller.abort(), 500)
    // The run rejects with an AbortError; its audit-log line says how the hook ended.
    expect((await aborting.catch((error) => error)).name).toBe('AbortError')
    const terminating = runHook('PreToolUse', {}, options({ timeoutMs: START_MS }))
    setTimeout(() => terminateAll(), 500)
    const terminated = await terminating
    const signal = isWindows ? null : expect.stringMatching(/^SIG(TERM|KILL)/)
    for (const [result, status] of [[timedOut, 'timedOut'], [terminated, 'aborted']]) {
      expect(result.hooks).toEqual([expect.objectContaining({ status, signal })])
    }
    const lines = fs.readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(lines).toEqual([
      expect.objectContaining({ status: 'timedOut', signal: timedOut.hooks[0].signal }),
      expect.objectContaining({ status: 'aborted', signal }),
      expect.objectContaining({ status: 'aborted', signal: terminated.hooks[0].signal }),
    ])
  })
})

describe('a persistent hook never locks its file against its author', () => {
  // Node runs a `.js` hook in the cli profile on every platform, so the saves below meet
  // Windows' sharing rules too (Wine enforces them as Windows does).
  const PROFILES = [
    ['extension', !isWindows, "the extension profile's hooks are .cmd files on Windows (the batch case is the next test)"],
    ['cli', true, ''],
  ]
  for (const [profile, runs, why] of PROFILES) {
    testIf(runs, why, `${profile} profile: with trust on, its file is saved in place, through a rename and by delete-and-recreate while it runs; each change restarts it on the approved new bytes`, async () => {
      const root = makeWorkspace()
      const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
      const options = opts({ workspaceRoots: [root], policyFile, trust: 'workspace', timeoutMs: START_MS, profile, clineDir: path.join(root, 'no-cline-dir') })
      const program = (version) => `require('readline').createInterface({ input: process.stdin })
  .on('line', () => require('fs').writeSync(1, JSON.stringify({ contextModification: ${q(version)} + ':' + process.pid }) + '\\n'))
`
      let hook
      if (profile === 'cli') {
        hook = path.join(hooksDirOf(root), 'PreToolUse.js')
        fs.mkdirSync(path.dirname(hook), { recursive: true })
        fs.writeFileSync(hook, `// cline-hook: mode=persistent\n${program('v0')}`)
      } else {
        hook = writeProgram(hooksDirOf(root), 'PreToolUse', program('v0'), { header: 'mode=persistent' })
      }
      await trustHook(hook, { policyFile })
      const said = async () => {
        const result = await runHook('PreToolUse', {}, options)
        expect({ statuses: result.hooks.map((h) => h.status), warnings: result.warnings }).toEqual({ statuses: ['completed'], warnings: [] })
        return result.contextModification.split(':')
      }
      const [, firstPid] = await said()
      trackPid(Number(firstPid))
      // The same bytes for the approval, written three ways while the process runs: in place,
      // through a temporary file renamed over it, and by delete-and-recreate (as git does).
      const again = fs.readFileSync(hook).toString().replace('v0', 'v1')
      const ways = [
        () => fs.writeFileSync(hook, again),
        () => {
          const temp = `${hook}.tmp`
          fs.writeFileSync(temp, again, { mode: 0o755 })
          fs.renameSync(temp, hook)
        },
        () => {
          fs.unlinkSync(hook)
          fs.writeFileSync(hook, again, { mode: 0o755 })
        },
      ]
      let lastPid = firstPid
      for (const save of ways) {
        expect(save).not.toThrow()
        await trustHook(hook, { policyFile })
        const [version, pid] = await said()
        expect(version).toBe('v1')
        expect(pid).not.toBe(lastPid)
        lastPid = pid
        trackPid(Number(pid))
      }
    })
  }

  testIf(isWindows, 'batch files are Windows\'', 'an approved batch file asked to be persistent runs per event, says so, and can be saved between events', async () => {
    const root = makeWorkspace()
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const options = opts({ workspaceRoots: [root], policyFile, trust: 'workspace', timeoutMs: START_MS })
    const hook = writeProgram(hooksDirOf(root), 'PreToolUse', `process.stdin.resume(); process.stdin.on('end', () => console.log(JSON.stringify({ cancel: true, errorMessage: 'v0' })))\n`, { header: 'mode=persistent' })
    await trustHook(hook, { policyFile })
    const first = await runHook('PreToolUse', {}, options)
    expect({ cancel: first.cancel, errorMessage: first.errorMessage, statuses: first.hooks.map((h) => h.status) }).toEqual({ cancel: true, errorMessage: 'v0', statuses: ['completed'] })
    const batchNote = expect.stringMatching(/PreToolUse\.cmd runs per event, not as a persistent process: it is an approved batch file.*make it a \.ps1 or an \.exe/)
    expect(first.warnings).toEqual([])
    expect(first.hooks[0].warnings).toEqual([batchNote])
    // The listing says so too.
    const runner = await new HookFactory(opts({ workspaceRoots: [root], policyFile, trust: 'workspace' })).create('PreToolUse')
    expect(runner.hooks.map((h) => h.warnings)).toEqual([[batchNote]])
    // Nothing holds it once the event is answered: git's delete-and-recreate succeeds.
    const bytes = fs.readFileSync(hook)
    expect(() => fs.unlinkSync(hook)).not.toThrow()
    fs.writeFileSync(hook, bytes)
    const second = await runHook('PreToolUse', {}, options)
    expect(second.cancel).toBe(true)
  })
})

describe('items 2 and 5 on every platform: a persistent hook decides as the same output per event', () => {
  // Each program answers every line it reads (per event, the one event line; persistent,
  // event after event), so one file runs in both modes. Written as .cmd + node.exe on Windows.
  const write = (text) => `require('fs').writeSync(1, ${q(text)})`
  const later = (first, then) => `${write(first)}; setTimeout(() => ${write(then)}, 50)`
  const STAY = 'setInterval(() => {}, 1000)'
  const UNTERMINATED = '{"cancel":true,"errorMessage":"no final newline"}'
  const CASES = [
    ['no final newline, then exit 0', `${write(UNTERMINATED)}; process.exit(0)`],
    ['no final newline, then exit 3', `${write(UNTERMINATED)}; process.exit(3)`],
    ['no final newline, then hangs to its timeout', `${write(UNTERMINATED)}; ${STAY}`, { timeoutMs: 4000 }],
    ['no final newline, then stopped by terminateAll()', `${write(UNTERMINATED)}; ${STAY}`, { terminate: true }],
    ['ended by a bare \\r, then exit 0', `${write('{"cancel":true,"errorMessage":"bare CR"}\r')}; process.exit(0)`],
    ['two JSON lines in one write', `${write('{"status":"checking"}\n{"cancel":true,"errorMessage":"second line"}\n')}`],
    ['cli profile: a JSON log line, then HOOK_CONTROL, in one write', `${write('{"log":"checking"}\nHOOK_CONTROL\t{"cancel":true,"errorMessage":"control"}\n')}`, { profile: 'cli' }],
    // What an attack found: the answer is found as the per-event reader finds it, whatever
    // came before it and however it was cut into writes.
    ['a JSON log line, then the answer in a later write', later('{"status":"checking"}\n', '{"cancel":true,"errorMessage":"second write"}\n')],
    ['cli profile: a JSON log line, then HOOK_CONTROL in a later write', later('{"log":"checking"}\n', 'HOOK_CONTROL\t{"cancel":true,"errorMessage":"control"}\n'), { profile: 'cli' }],
    ['a line that is only {, then the answer', later('{\n', '{"cancel":true,"errorMessage":"after a brace"}\n')],
    ['log text without its newline, then the answer', later('working...', '{"cancel":true,"errorMessage":"after log text"}\n')],
    ['UTF-16: its byte-order mark alone, then the answer', `fs.writeSync(1, Buffer.from([0xff, 0xfe])); setTimeout(() => fs.writeSync(1, Buffer.from('{"cancel":true,"errorMessage":"utf16"}\\n', 'utf16le')), 50)`],
  ]

  test.each(CASES)('%s', async (_, behaviour, { timeoutMs = START_MS, terminate = false, profile = 'extension' } = {}) => {
    const decide = async (persistent) => {
      const root = makeWorkspace()
      const dir = hooksDirOf(root)
      const marker = path.join(makeTempDir(), 'wrote')
      const program = `const fs = require('fs')
require('readline').createInterface({ input: process.stdin }).on('line', () => {
  ${behaviour.replace(/; (process\.exit|setInterval)/, `; require('fs').writeFileSync(${q(marker)}, ''); $1`)}
})
`
      if (profile === 'cli') {
        fs.mkdirSync(dir, { recursive: true })
        fs.writeFileSync(path.join(dir, 'PreToolUse.js'), `${persistent ? '// cline-hook: mode=persistent\n' : ''}${program}`)
      } else {
        writeProgram(dir, 'PreToolUse', program, persistent ? { header: 'mode=persistent' } : undefined)
      }
      const running = runHook('PreToolUse', {}, opts({ workspaceRoots: [root], timeoutMs, profile, clineDir: path.join(root, 'no-cline-dir') }))
      if (terminate) {
        await waitFor(() => fs.existsSync(marker), { timeoutMs: START_MS, what: 'the hook to print its answer' })
        terminateAll()
      }
      const result = await running
      return { cancel: result.cancel, errorMessage: result.errorMessage }
    }
    const perEvent = await decide(false)
    expect(perEvent.cancel).toBe(true)
    expect(await decide(true)).toEqual(perEvent)
  })
})
