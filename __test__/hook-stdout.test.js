'use strict'

// Issue 33 item 5: what a hook printed is visible. `HookExecution.stdout` is the last 16 KiB of
// its stdout, a copy for reading beside the verdict (which is read from all of stdout, as
// before): log text then JSON, 100 KiB cut to its last 16 KiB, a cut inside a character, bytes
// that are not UTF-8, a persistent hook's event (its own lines only), the executions that read
// nothing (skipped, detached), and `cline-hooks run` showing a hook's stdout when it held no
// verdict or the hook failed, escaped. The hooks are node programs, so all of it runs on Windows.

const path = require('path')

const { addon, isWindows, makeTempDir, makeWorkspace, hooksDirOf, writeProgram, readInputThen, opts, expectCompleted, trackPid, cliEnv, nodeSync } = require('./helpers')

const { runHook, terminateAll } = addon

const ROOT = path.join(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'cline-hooks.js')
const KEEP = 16 << 10
/** A node hook under Wine or a loaded machine takes seconds to start. */
const TIMEOUT_MS = isWindows ? 60000 : 30000

/** Runs `source` as the only TaskStart hook; its one execution. */
async function runOne(source, { name = 'TaskStart', input = {}, header, options = {} } = {}) {
  const dir = path.join(makeTempDir(), 'hooks')
  writeProgram(dir, name, source, { header })
  const result = await runHook(name, input, opts({ extraHooksDirs: [dir], timeoutMs: TIMEOUT_MS, ...options }))
  expect(result.hooks).toHaveLength(1)
  return result.hooks[0]
}

/** A program that writes `text` to stdout (through fd 1, whole) and exits with `code`. */
function printing(text, code = 0) {
  return readInputThen(`require('fs').writeSync(1, ${JSON.stringify(text)})\nprocess.exitCode = ${code}\n`)
}

describe('HookExecution.stdout', () => {
  test('log text then a JSON verdict: stdout holds both as printed, and the verdict is read as before', async () => {
    const printed = `checking src/a.ts\n${JSON.stringify({ cancel: true, errorMessage: 'no writes today' })}\n`
    const exec = await runOne(printing(printed))
    expectCompleted(exec)
    expect(exec.stdout).toBe(printed)
    expect(exec).toMatchObject({ cancel: true, errorMessage: 'no writes today', output: { cancel: true, errorMessage: 'no writes today' }, stderr: '' })
  })

  test('100 KiB of stdout: only its last 16 KiB are kept, ending with its last bytes', async () => {
    // 1,600 numbered lines of 64 bytes, then a marker: every cut is recognisable.
    const expected = Array.from({ length: 1600 }, (_, i) => `line ${i}`.padEnd(63, '.') + '\n').join('') + 'THE-END'
    expect(expected.length).toBeGreaterThan(100 << 10)
    const exec = await runOne(printing(expected))
    expectCompleted(exec)
    expect(exec.output).toBeNull()
    expect(exec.stdout).toHaveLength(KEEP)
    expect(exec.stdout).toBe(expected.slice(-KEEP))
    expect(exec.stdout.endsWith('line 1599'.padEnd(63, '.') + '\nTHE-END')).toBe(true)
  })

  test('a cut inside a character starts at the next whole one; bytes that are not UTF-8 read as U+FFFD', async () => {
    // 2-byte characters, then one byte: the last 16 KiB begin in the middle of a character.
    const cut = await runOne(printing(`${'é'.repeat(50000)}a`))
    expectCompleted(cut)
    expect(Buffer.byteLength(cut.stdout)).toBe(KEEP - 1)
    expect(cut.stdout).toBe(`${'é'.repeat((KEEP - 2) / 2)}a`)
    const invalid = await runOne(readInputThen(`require('fs').writeSync(1, Buffer.from([0x6f, 0x6b, 0xff, 0x21, 0x0a]))\n`))
    expectCompleted(invalid)
    expect(invalid.stdout).toBe('ok\ufffd!\n')
  })

  test('a failed hook keeps what it printed, its verdict fields read as before', async () => {
    const exec = await runOne(printing(`about to fail\n${JSON.stringify({ cancel: true })}\n`, 3))
    expect(exec).toMatchObject({ status: 'failed', failureKind: 'crash', exitCode: 3, cancel: true })
    expect(exec.stdout).toBe('about to fail\n{"cancel":true}\n')
  })

  test("a persistent hook's execution holds that event's output: its log line and its answer, not another event's", async () => {
    const program = `const fs = require('fs')
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const event = JSON.parse(line)
  fs.writeSync(1, 'checking ' + event.id + '\\n')
  fs.writeSync(1, JSON.stringify({ contextModification: process.pid + ':' + event.id }) + '\\n')
}).on('close', () => process.exit(0))
`
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', program, { header: 'mode=persistent' })
    const options = opts({ workspaceRoots: [root], timeoutMs: TIMEOUT_MS })
    try {
      const pids = []
      for (const id of ['e1', 'e2']) {
        const result = await runHook('PreToolUse', { id }, options)
        expect(result.hooks).toHaveLength(1)
        const exec = result.hooks[0]
        expectCompleted(exec)
        const [pid, said] = exec.contextModification.split(':')
        pids.push(trackPid(Number(pid)))
        expect(said).toBe(id)
        expect(exec.stdout).toBe(`checking ${id}\n${JSON.stringify({ contextModification: `${pid}:${id}` })}\n`)
      }
      // One process answered both: the second execution's stdout is its event's only.
      expect(pids[1]).toBe(pids[0])
    } finally {
      await terminateAll()
    }
  })

  test('an execution that read no stdout has an empty one: skipped by tools=, started detached', async () => {
    const skipped = await runOne(printing('{"cancel": true}\n'), {
      name: 'PreToolUse',
      header: 'tools=write_to_file',
      input: { preToolUse: { tool: 'read_file', parameters: { path: 'a' } } },
    })
    expect(skipped).toMatchObject({ status: 'skipped', started: false, stdout: '', stderr: '' })
    const detached = await runOne(printing('printed where nobody reads\n'), { options: { detached: true } })
    expect(detached).toMatchObject({ status: 'started', stdout: '', stderr: '' })
  })
})

describe('cline-hooks run shows a hook stdout that gave no verdict', () => {
  /** `cline-hooks run TaskStart` over `dir` alone (an empty workspace, no global folder). */
  function run(dir, ...more) {
    const r = nodeSync([CLI, 'run', 'TaskStart', '--no-global', '--hooks-dir', dir, '--workspace', makeTempDir(), ...more], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 2 * TIMEOUT_MS,
      env: cliEnv({ NO_COLOR: '1' }),
    })
    if (r.error) throw r.error
    return r
  }

  test('a failed hook: the end of its stdout under its block, control characters escaped', () => {
    const dir = makeTempDir()
    writeProgram(dir, 'TaskStart', printing('connecting\n\x1b[2Jnot json at all\n', 3))
    const r = run(dir)
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^ {2}status {4}✘ failed \(exit 3\)/m)
    expect(r.stdout).toMatch(/^ {2}stdout {4}│ connecting$/m)
    expect(r.stdout).toMatch(/^ {12}│ \\x1B\[2Jnot json at all$/m)
    expect(r.stdout).not.toContain('\x1b')
    // --json carries it exactly.
    const json = JSON.parse(run(dir, '--json').stdout)
    expect(json.hooks[0].stdout).toBe('connecting\n\x1b[2Jnot json at all\n')
  })

  test('a completed hook without JSON shows its stdout; one with a verdict shows the verdict, not its stdout', () => {
    const plain = makeTempDir()
    writeProgram(plain, 'TaskStart', printing('all good, I think\n'))
    const shown = run(plain)
    expect(shown.status).toBe(0)
    expect(shown.stdout).toMatch(/^ {2}status {4}✔ completed/m)
    expect(shown.stdout).toMatch(/^ {2}stdout {4}│ all good, I think$/m)

    const answered = makeTempDir()
    writeProgram(answered, 'TaskStart', printing(`a log line\n${JSON.stringify({ contextModification: 'ctx from the hook' })}\n`))
    const verdict = run(answered)
    expect(verdict.status).toBe(0)
    expect(verdict.stdout).toMatch(/^ {2}context {3}ctx from the hook$/m)
    expect(verdict.stdout).not.toMatch(/^ {2}stdout/m)
    expect(verdict.stdout).not.toContain('a log line')
  })
})
