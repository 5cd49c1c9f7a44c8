'use strict'

// The run's records: `auditLog` (one JSON line per hook execution, whole lines even when many
// processes append at once) and `hookLogs` (each hook's own log beside its folder, capped and
// rotated once). Real hooks, real files, real processes; Node-program hooks run on Windows too.

const fs = require('fs')
const path = require('path')
const { spawn } = require('child_process')

const { addon, makeTempDir, makeWorkspace, hooksDirOf, writeProgram, expectCompleted, testIf, waitForFile } = require('./helpers')
const { writeQuickHook, quickHooksAvailable, writePidTo, STAY_ALIVE } = require('./hook-programs')

const { runHook, discoverHooks } = addon

const ADDON = path.join(__dirname, '..')

/** A hook that prints `stdout` and `stderr` as they are, then exits with `code`. */
function printing(stdout, stderr, code = 0) {
  return `const fs = require('fs')
fs.writeSync(1, ${JSON.stringify(stdout)})
fs.writeSync(2, ${JSON.stringify(stderr)})
process.exitCode = ${code}
`
}

/** The lines of the file at `file`, each parsed. */
function jsonLines(file) {
  const text = fs.readFileSync(file, 'utf8')
  expect(text.endsWith('\n')).toBe(true)
  return text.slice(0, -1).split('\n').map((line) => JSON.parse(line))
}

/** Runs `script` in a Node process of its own; resolves with its exit status and output. */
function node(script) {
  const file = path.join(makeTempDir(), 'host.js')
  fs.writeFileSync(file, `const addon = require(${JSON.stringify(ADDON)})\n${script}`)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { windowsHide: true })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('close', (status) => resolve({ status, out }))
  })
}

describe('auditLog', () => {
  test('one line per execution with every field, in a file created with its folders', async () => {
    const root = makeWorkspace()
    const globalDir = path.join(makeTempDir(), 'Hooks')
    const overriding = `{"cancel": true, "errorMessage": "no", "overrideInput": {"path": "b.ts"}}\n`
    writeProgram(globalDir, 'PreToolUse', printing('', 'global failed\n', 3))
    writeProgram(hooksDirOf(root), 'PreToolUse', printing(overriding, 'checked é\n'))
    const options = { workspaceRoots: [root], globalHooksDir: globalDir, managedHooksDir: null }
    const found = await discoverHooks('PreToolUse', options)
    const auditLog = path.join(makeTempDir(), 'nested', 'folder', 'audit.jsonl')
    const before = Date.now()
    const result = await runHook('PreToolUse', {}, { ...options, auditLog })
    expect(result.cancel).toBe(true)
    expect(result.warnings).toEqual([])
    const [global, workspace] = jsonLines(auditLog)
    expect(Object.keys(workspace)).toEqual([
      'time', 'runId', 'hookName', 'path', 'source', 'sha256', 'status', 'durationMs', 'exitCode', 'signal', 'signalNumber',
      'failureKind', 'cancel', 'review', 'inputOverridden', 'stdoutBytes', 'stderrBytes', 'confined',
    ])
    expect(workspace.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(Date.parse(workspace.time)).toBeGreaterThanOrEqual(before - 1000)
    expect(workspace.runId).toMatch(/^[0-9a-f]{32}$/)
    expect(global.runId).toBe(workspace.runId)
    expect(workspace).toMatchObject({
      hookName: 'PreToolUse', path: found[1].path, source: 'workspace', sha256: found[1].sha256, status: 'completed',
      exitCode: 0, signal: null, failureKind: null, cancel: true, review: false, inputOverridden: true,
      stdoutBytes: Buffer.byteLength(overriding), stderrBytes: Buffer.byteLength('checked é\n'), confined: false,
    })
    expect(workspace.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(workspace.durationMs).toBeCloseTo(result.hooks[1].durationMs, 0)
    expect(global).toMatchObject({
      path: found[0].path, source: 'global', sha256: found[0].sha256, status: 'failed', exitCode: 3, failureKind: 'crash',
      cancel: false, inputOverridden: false, stdoutBytes: 0, stderrBytes: Buffer.byteLength('global failed\n'),
    })

    // Appended, never rewritten.
    await runHook('PreToolUse', {}, { ...options, auditLog })
    const lines = jsonLines(auditLog)
    expect(lines).toHaveLength(4)
    expect(lines[2].runId).not.toBe(lines[0].runId)
  }, 60000)

  test('a log that cannot be written is a warning of the run, whose verdict stands', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', printing('{"cancel": true, "errorMessage": "blocked"}\n', ''))
    const file = path.join(makeTempDir(), 'a-file')
    fs.writeFileSync(file, '')
    const result = await runHook('PreToolUse', {}, { workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null, auditLog: path.join(file, 'audit.jsonl') })
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('blocked')
    expectCompleted(result.hooks[0])
    expect(result.warnings).toHaveLength(1)
    expect(result.warnings[0]).toMatch(/^the audit log .*audit\.jsonl was not written: .*; check that its folder is writable, or pass another auditLog$/)
  }, 60000)

  test('the hooks of an aborted run are recorded before the run rejects', async () => {
    const root = makeWorkspace()
    const pidFile = path.join(makeTempDir(), 'pid')
    writeProgram(hooksDirOf(root), 'PreToolUse', writePidTo(pidFile) + STAY_ALIVE)
    const auditLog = path.join(makeTempDir(), 'audit.jsonl')
    const controller = new AbortController()
    const run = runHook('PreToolUse', {}, { workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null, auditLog, hookLogs: true, signal: controller.signal })
    await waitForFile(pidFile, 30000)
    controller.abort()
    await expect(run).rejects.toMatchObject({ name: 'AbortError' })
    const [line] = jsonLines(auditLog)
    expect(line).toMatchObject({ status: 'aborted', failureKind: null, cancel: false })
    expect(fs.readFileSync(path.join(root, '.clinerules', 'logs', 'PreToolUse.log'), 'utf8')).toMatch(/: aborted in \d+ ms.*\nfailure: was stopped because the run was aborted/)
  }, 60000)

  test('a bad auditLog or hookLogs is refused up front', async () => {
    for (const [options, message] of [
      [{ auditLog: 42 }, /auditLog.*42 is a number; use a file path/],
      [{ auditLog: '' }, /auditLog/],
      [{ auditLog: 'a\u0000b' }, /auditLog.*NUL/],
      [{ hookLogs: 'yes' }, /hookLogs.*use true or false/],
    ]) {
      await expect(runHook('PreToolUse', {}, { globalHooksDir: null, ...options })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION', message: expect.stringMatching(message) })
    }
  })

  testIf(quickHooksAvailable, 'hookbot.exe is built by the Windows lane', '8 processes appending 500 lines each at once (100 under Wine, where each start is slow) leave every line whole', async () => {
    // Each process: 50 runs of 10 hooks (one per extra folder), all appending to one file.
    const RUNS = process.platform === 'win32' ? 10 : 50
    const dirs = []
    for (let i = 0; i < 10; i++) {
      const dir = path.join(makeTempDir(), `extra-${i}`)
      writeQuickHook(dir, 'PreToolUse', { cancel: false, contextModification: `hook ${i} `.repeat(20) })
      dirs.push(dir)
    }
    const auditLog = path.join(makeTempDir(), 'audit.jsonl')
    const options = { extraHooksDirs: dirs, globalHooksDir: null, managedHooksDir: null, auditLog }
    const script = `;(async () => {
  for (let i = 0; i < ${RUNS}; i++) {
    const r = await addon.runHook('PreToolUse', {}, ${JSON.stringify(options)})
    // On Windows each quick hook keeps its verdict in a sidecar file, <hook>.exe.verdict, which a run rightly names as a file that will not run.
    const warnings = r.warnings.filter((w) => !/\.exe\.verdict will not run: /.test(w))
    if (warnings.length || r.hooks.some((h) => h.status !== 'completed')) throw new Error(JSON.stringify(r))
  }
  console.log('ok')
})().catch((e) => { console.error(e); process.exitCode = 1 })
`
    const hosts = await Promise.all(Array.from({ length: 8 }, () => node(script)))
    for (const host of hosts) expect(host).toEqual({ status: 0, out: 'ok\n' })
    const lines = jsonLines(auditLog)
    expect(lines).toHaveLength(8 * RUNS * 10)
    const perRun = new Map()
    for (const line of lines) {
      expect(line.status).toBe('completed')
      perRun.set(line.runId, (perRun.get(line.runId) || 0) + 1)
    }
    expect(perRun.size).toBe(8 * RUNS)
    expect([...perRun.values()].every((n) => n === 10)).toBe(true)
  }, 180000)
})

describe('hookLogs', () => {
  test('a workspace hook logs to .clinerules/logs, a global one to Logs beside Hooks, an extra one nowhere', async () => {
    const root = makeWorkspace()
    const cline = path.join(makeTempDir(), 'Cline')
    const globalDir = path.join(cline, 'Hooks')
    const extraDir = path.join(makeTempDir(), 'extra')
    const ws = writeProgram(hooksDirOf(root), 'PreToolUse', printing('working\n{"cancel": false}\n', 'a log line\n'))
    const gl = writeProgram(globalDir, 'PreToolUse', printing('', 'global went wrong\n', 2))
    writeProgram(extraDir, 'PreToolUse', printing('{}\n', 'extra\n'))
    const options = { workspaceRoots: [root], globalHooksDir: globalDir, extraHooksDirs: [extraDir], managedHooksDir: null, hookLogs: true }
    const result = await runHook('PreToolUse', {}, options)
    expect(result.warnings).toEqual([])

    const wsLog = fs.readFileSync(path.join(root, '.clinerules', 'logs', 'PreToolUse.log'), 'utf8')
    const header = /^=== \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z PreToolUse \(workspace\) (.+): completed in \d+ ms, exit code 0; run [0-9a-f]{32}\n/
    expect(wsLog).toMatch(header)
    expect(wsLog.match(header)[1]).toBe(ws)
    expect(wsLog).toContain('--- stdout ---\n  working\n  {"cancel": false}\n--- stderr ---\n  a log line\n')

    const glLog = fs.readFileSync(path.join(cline, 'Logs', 'PreToolUse.log'), 'utf8')
    expect(glLog).toContain(`PreToolUse (global) ${gl}: failed in `)
    expect(glLog).toContain(', exit code 2; run ')
    expect(glLog).toMatch(/\nfailure: .+\n--- stderr ---\n  global went wrong\n$/)
    expect(fs.readdirSync(path.dirname(extraDir)).sort()).toEqual(['extra'])

    // The next run appends.
    await runHook('PreToolUse', {}, options)
    expect(fs.readFileSync(path.join(root, '.clinerules', 'logs', 'PreToolUse.log'), 'utf8').match(/^=== /gm)).toHaveLength(2)
  }, 60000)

  test('past 1 MiB the log is renamed to .log.1 once, and runs in 4 processes at once leave whole entries', async () => {
    const root = makeWorkspace()
    // 20 KiB on each stream: an entry keeps the last 16 KiB of each, about 32 KiB in all.
    const out = `${'o'.repeat(1023)}\n`.repeat(20)
    const err = `${'e'.repeat(1023)}\n`.repeat(20)
    writeProgram(hooksDirOf(root), 'PreToolUse', printing(out, err))
    const options = { workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null, hookLogs: true }
    const script = `;(async () => {
  for (let i = 0; i < 15; i++) {
    const r = await addon.runHook('PreToolUse', {}, ${JSON.stringify(options)})
    const warnings = r.warnings.filter((w) => !/\.exe\.verdict will not run: /.test(w))
    if (warnings.length || r.hooks[0].status !== 'completed') throw new Error(JSON.stringify(r))
  }
  console.log('ok')
})().catch((e) => { console.error(e); process.exitCode = 1 })
`
    const hosts = await Promise.all(Array.from({ length: 4 }, () => node(script)))
    for (const host of hosts) expect(host).toEqual({ status: 0, out: 'ok\n' })

    const log = path.join(root, '.clinerules', 'logs', 'PreToolUse.log')
    const sizes = [fs.statSync(log).size, fs.statSync(`${log}.1`).size]
    expect(sizes[0]).toBeLessThanOrEqual(1 << 20)
    expect(sizes[1]).toBeLessThanOrEqual(1 << 20)
    // 60 entries of about 32 KiB: 2 MiB in all, so the log was rotated; every entry kept is whole.
    let entries = 0
    for (const file of [log, `${log}.1`]) {
      const text = fs.readFileSync(file, 'utf8')
      const parts = text.split(/^(?==== )/m)
      for (const part of parts) {
        expect(part).toMatch(/^=== .+: completed in \d+ ms, exit code 0; run [0-9a-f]{32}\n--- stdout \(its last 16384 of 20480 bytes\) ---\n( {2}o*\n)+--- stderr \(its last 16384 of 20480 bytes\) ---\n( {2}e*\n)+$/)
        entries += 1
      }
    }
    expect(entries).toBeGreaterThan(30)
    expect(entries).toBeLessThanOrEqual(60)
  }, 180000)
})
