'use strict'

// Issue 2, section 4: running one hook (stdin, cwd, env, no shell, output parsing, exit codes,
// signals, limits, timeouts, background processes, stderr).
//
// Each behaviour test writes its hook once, as a node program (`writeProgram`: `#!` on Unix, a
// `.cmd` on Windows), and runs on both platforms. What stays Unix-only is tied to a Unix rule,
// named in its title: interpreters picked by `#!`, process groups, POSIX signals.

const fs = require('fs')
const os = require('os')
const path = require('path')

const {
  addon,
  isWindows,
  describeUnix,
  testUnix,
  makeTempDir,
  makeWorkspace,
  hooksDirOf,
  writeHook,
  writeProgram,
  printJson,
  readInputThen,
  shq,
  echoJson,
  waitForPid,
  isAlive,
  waitDead,
  opts,
  expectCompleted,
} = require('./helpers')

const { runHook } = addon

// A node hook starts in ~50 ms on Linux and ~0.3-0.9 s under Wine: a hook that must be running
// (its pid files written) when its timeout hits gets more time on Windows, and a run may end
// this much later than its bound here. Never a tight timing.
const STOP_AFTER_MS = isWindows ? 8000 : 2000
const SLACK_MS = isWindows ? 10000 : 5000
// How long a stopped process may take to be gone (waitDead returns as soon as it is).
const GONE_MS = 5000

/** Writes hook `name` (a node program) into a fresh dir and runs it; returns { result, exec, dir }. */
async function runOne(source, { input = {}, options = {}, name = 'TaskStart' } = {}) {
  const dir = path.join(makeTempDir(), 'hooks')
  writeProgram(dir, name, source)
  const result = await runHook(name, input, opts({ extraHooksDirs: [dir], ...options }))
  expect(result.hooks).toHaveLength(1)
  return { result, exec: result.hooks[0], dir }
}

/** Unix-only: writes a shell (or other `#!`) script hook into a fresh dir and runs it. */
async function runScript(body, { shebang = 'sh', input = {}, options = {}, name = 'TaskStart' } = {}) {
  const dir = path.join(makeTempDir(), 'hooks')
  writeHook(dir, name, body, { shebang })
  const result = await runHook(name, input, opts({ extraHooksDirs: [dir], ...options }))
  expect(result.hooks).toHaveLength(1)
  return { result, exec: result.hooks[0], dir }
}

/** A program that prints `text` exactly (and exits with `exitCode`, with `stderr` on stderr). */
function printing(text, { exitCode = 0, stderr = '' } = {}) {
  return `${stderr ? `process.stderr.write(${JSON.stringify(stderr)})\n` : ''}process.stdout.write(${JSON.stringify(text)})
process.exitCode = ${exitCode}
`
}

/** A program that saves its stdin, byte for byte, to `file`. */
function saveInputTo(file) {
  return `const chunks = []
process.stdin.on('data', (c) => chunks.push(c))
process.stdin.on('end', () => require('fs').writeFileSync(${JSON.stringify(file)}, Buffer.concat(chunks)))
`
}

/**
 * A program that starts a child node process staying alive for a minute and writes the child's
 * pid to `childPid`. The hook waits for its child; a `background` child instead shares the
 * hook's stdout and stderr and is left running when the hook exits. (On Windows Node puts the
 * children it starts in a job object of its own that kills them when it exits, unless they are
 * `detached`; on Unix `detached` would start a new session, which the hook does not mean here.)
 */
function startChild(childPid, { background = false } = {}) {
  return `const child = require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
  stdio: ${background ? "['ignore', 'inherit', 'inherit']" : "'ignore'"},
  detached: ${background ? "process.platform === 'win32'" : 'false'},
  windowsHide: true,
})
require('fs').writeFileSync(${JSON.stringify(childPid)}, String(child.pid))
${background ? 'child.unref()\n' : ''}`
}

/** `name` without the characters Windows forbids in file names (`"`, `|`) when on Windows. */
function fileName(name) {
  return isWindows ? name.replace(/["|<>*?:]/g, '') : name
}

describeUnix('hooks in every supported interpreter', () => {
  test('sh, bash, python3 and node (#!/usr/bin/env node) hooks all run and are read', async () => {
    const tmp = makeTempDir()
    const dirs = ['sh', 'bash', 'python3', 'node'].map((s) => path.join(tmp, s))
    writeHook(dirs[0], 'TaskStart', echoJson({ contextModification: 'from sh' }), { shebang: 'sh' })
    writeHook(dirs[1], 'TaskStart', `x=bash; echo "{\\"contextModification\\": \\"from $x\\"}"\n`, {
      shebang: 'bash',
    })
    writeHook(dirs[2], 'TaskStart', 'import json\nprint(json.dumps({"contextModification": "from python3"}))\n', {
      shebang: 'python3',
    })
    writeHook(dirs[3], 'TaskStart', 'console.log(JSON.stringify({ contextModification: "from node" }))\n', {
      shebang: 'node',
    })
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: dirs }))
    expect(result.hooks.map((h) => [h.status, h.exitCode])).toEqual([
      ['completed', 0],
      ['completed', 0],
      ['completed', 0],
      ['completed', 0],
    ])
    expect(result.contextModification).toBe('from sh\n\nfrom bash\n\nfrom python3\n\nfrom node')
  })
})

describe('stdin', () => {
  test('the input is one JSON object on stdin, with hookName, timestamp, workspaceRoots and model filled in', async () => {
    const tmp = makeTempDir()
    const ws = makeWorkspace('ws')
    const seen = path.join(tmp, 'seen.json')
    // It reads to EOF (stdin must be closed after the object), and JSON.parse fails on anything
    // but exactly one JSON value.
    writeProgram(
      hooksDirOf(ws),
      'PreToolUse',
      readInputThen(`require('fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ raw: input, obj: JSON.parse(input) }))`),
    )
    const before = Date.now()
    const input = { preToolUse: { toolName: 'write_to_file', parameters: { path: 'a.txt' } }, taskId: 't1' }
    const result = await runHook('PreToolUse', input, opts({ workspaceRoots: [ws], timeoutMs: 15000 }))
    const after = Date.now()
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])

    const { raw, obj } = JSON.parse(fs.readFileSync(seen, 'utf8'))
    expect(obj).toEqual({
      ...input,
      hookName: 'PreToolUse',
      timestamp: expect.stringMatching(/^\d+$/),
      workspaceRoots: [ws],
      model: { provider: 'unknown', slug: 'unknown' },
    })
    expect(Number(obj.timestamp)).toBeGreaterThanOrEqual(before - 1)
    expect(Number(obj.timestamp)).toBeLessThanOrEqual(after + 1)
    expect(typeof raw).toBe('string')
    expect(raw.trim().startsWith('{')).toBe(true)
    // The caller's object is not modified in place.
    expect(input).toEqual({ preToolUse: { toolName: 'write_to_file', parameters: { path: 'a.txt' } }, taskId: 't1' })
  })

  test('fields the caller set are never overwritten', async () => {
    const tmp = makeTempDir()
    const ws = makeWorkspace('ws')
    const seen = path.join(tmp, 'seen.json')
    writeProgram(hooksDirOf(ws), 'PreToolUse', saveInputTo(seen))
    const input = {
      hookName: 'tool_call',
      timestamp: '2026-01-15T10:30:00Z',
      workspaceRoots: [],
      model: { provider: 'anthropic', slug: 'claude-sonnet' },
      extra: null,
    }
    const result = await runHook('PreToolUse', input, opts({ workspaceRoots: [ws], timeoutMs: 15000 }))
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
    expect(JSON.parse(fs.readFileSync(seen, 'utf8'))).toEqual(input)

    const withNullModel = { model: null }
    await runHook('PreToolUse', withNullModel, opts({ workspaceRoots: [ws], timeoutMs: 15000 }))
    expect(JSON.parse(fs.readFileSync(seen, 'utf8')).model).toBeNull()
  })

  test('a 10 MiB input reaches a hook that reads it all', async () => {
    const blob = 'x'.repeat(10 * 1024 * 1024)
    const { exec } = await runOne(
      readInputThen(`process.stdout.write(JSON.stringify({ contextModification: String(JSON.parse(input).blob.length) }) + '\\n')`),
      { input: { blob }, options: { timeoutMs: 30000 } },
    )
    expectCompleted(exec)
    expect(exec.contextModification).toBe(String(blob.length))
  })

  test('stdin is written while stdout is read: a hook echoing a 10 MiB input back does not deadlock', async () => {
    const blob = 'y'.repeat(10 * 1024 * 1024)
    const { exec } = await runOne(
      // The verdict goes through process.stdout too, so it comes after the echo (a direct
      // write to fd 1 could overtake data the pipe still holds).
      `process.stdin.pipe(process.stdout, { end: false })
process.stdin.on('end', () => {
  process.stdout.write('\\n' + JSON.stringify({ contextModification: 'echoed it all' }) + '\\n')
})
`,
      { input: { blob }, options: { timeoutMs: 30000 } },
    )
    expectCompleted(exec)
    expect(exec.contextModification).toBe('echoed it all')
  })

  test('a hook that exits without reading stdin (broken pipe) is completed', async () => {
    const blob = 'z'.repeat(4 * 1024 * 1024) // far more than a pipe buffer: the write must hit EPIPE
    const { exec } = await runOne(printJson({ contextModification: 'did not read' }), {
      input: { blob },
      options: { timeoutMs: 15000 },
    })
    expectCompleted(exec)
    expect(exec.failure).toBeUndefined()
    expect(exec.exitCode).toBe(0)
    expect(exec.contextModification).toBe('did not read')
  })
})

describe('working directory and environment', () => {
  const printCwd = 'process.stdout.write(JSON.stringify({ contextModification: process.cwd() }))\n'

  test('a workspace hook runs in its own root; global and extra hooks in the first root', async () => {
    const tmp = makeTempDir()
    const ws1 = makeWorkspace('ws one')
    const ws2 = makeWorkspace('ws two')
    const extra = path.join(tmp, 'extra')
    const globalDir = path.join(tmp, 'global')
    for (const dir of [extra, globalDir, hooksDirOf(ws1), hooksDirOf(ws2)]) {
      writeProgram(dir, 'TaskStart', printCwd)
    }
    const result = await runHook('TaskStart', {}, {
      extraHooksDirs: [extra],
      globalHooksDir: globalDir,
      workspaceRoots: [ws1, ws2],
      timeoutMs: 15000,
    })
    expect(result.hooks.map((h) => [h.source, h.status, h.contextModification])).toEqual([
      ['extra', 'completed', ws1],
      ['global', 'completed', ws1],
      ['workspace', 'completed', ws1],
      ['workspace', 'completed', ws2],
    ])
    expect(result.hooks.map((h) => h.workspaceRoot)).toEqual([undefined, undefined, ws1, ws2])
  })

  test('with no workspace root, global and extra hooks run in the home directory', async () => {
    const { exec } = await runOne(printCwd, { options: { timeoutMs: 15000 } })
    expectCompleted(exec)
    expect(fs.realpathSync(exec.contextModification)).toBe(fs.realpathSync(os.homedir()))
  })

  test('the env option reaches the hook, on top of the inherited environment', async () => {
    const { exec } = await runOne(
      `const e = process.env
console.log(JSON.stringify({ contextModification: e.CLINE_TEST_VALUE ?? '<unset>', home: e.HOME, path: e.PATH }))
`,
      { options: { env: { CLINE_TEST_VALUE: 'spaces, $HOME and "quotes" é %PATH% !x! ^&' }, timeoutMs: 15000 } },
    )
    expectCompleted(exec)
    expect(exec.contextModification).toBe('spaces, $HOME and "quotes" é %PATH% !x! ^&')
    expect(exec.output.home).toBe(process.env.HOME)
    expect(exec.output.path).toBe(process.env.PATH)
  })
})

describe('no shell', () => {
  test('paths with spaces, quotes, $(), backticks, ;, &, % and non-ASCII work and never inject a command', async () => {
    const tmp = makeTempDir()
    const tag = `pwned-${process.pid}-${Date.now()}`
    // mkdir is a command of both sh and cmd.exe: an injection would leave a folder behind.
    // Windows forbids `"` and `|` in names: there the names go without them.
    const nasty = fileName(
      `ws 'single' "double" $(mkdir ${tag}-a) \`mkdir ${tag}-b\` ; mkdir ${tag}-c & mkdir ${tag}-f & é漢字 %CD% !x! ^ |x`,
    )
    const ws = makeWorkspace(nasty)
    const extra = path.join(tmp, `extra $(mkdir ${tag}-d); \`mkdir ${tag}-e\` & mkdir ${tag}-g & 'q' ü`)
    const wsHook = writeProgram(
      hooksDirOf(ws),
      'TaskStart',
      `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'))
console.log(JSON.stringify({ contextModification: 'ws', self: __filename, cwd: process.cwd(), roots: input.workspaceRoots }))
`,
    )
    const extraHook = writeProgram(extra, 'TaskStart', printJson({ contextModification: 'extra', self: 'ok' }))

    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [ws], extraHooksDirs: [extra], timeoutMs: 15000 }))
    expect(result.hooks.map((h) => [h.path, h.status])).toEqual([
      [extraHook, 'completed'],
      [wsHook, 'completed'],
    ])
    const wsOut = result.hooks[1].output
    // On Windows the program behind a .cmd hook is kept elsewhere, so its __filename is not
    // the hook's path; there the path above, completed, shows it was started by that path.
    if (!isWindows) expect(wsOut.self).toBe(wsHook)
    expect(wsOut.cwd).toBe(ws)
    expect(wsOut.roots).toEqual([ws])

    const places = [tmp, ws, hooksDirOf(ws), extra, path.dirname(ws), process.cwd(), os.homedir(), '/']
    const injected = []
    for (const place of places) {
      for (const suffix of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
        if (fs.existsSync(path.join(place, `${tag}-${suffix}`))) injected.push(path.join(place, `${tag}-${suffix}`))
      }
    }
    expect(injected).toEqual([])
  })

  testUnix(
    'each hook leads its own process group',
    async () => {
      const { exec } = await runScript(
        `import json, os
print(json.dumps({"pid": os.getpid(), "pgid": os.getpgid(0)}))
`,
        { shebang: 'python3' },
      )
      expectCompleted(exec)
      expect(exec.output.pgid).toBe(exec.output.pid)
      expect(exec.output.pgid).not.toBe(process.pid)
    },
    undefined,
    { reason: 'process groups are a Unix rule (a job object holds the tree on Windows)' },
  )
})

describe('reading the output', () => {
  test('log lines before the final JSON object are fine; unknown fields pass through', async () => {
    const verdict = { cancel: true, contextModification: 'after logs', custom: { nested: [1, 'two', null] } }
    const { exec, result } = await runOne(printing(`starting the check\nprogress: 50%\n${JSON.stringify(verdict)}\n`))
    expectCompleted(exec)
    expect(exec.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(exec.contextModification).toBe('after logs')
    expect(exec.output).toEqual({ cancel: true, contextModification: 'after logs', custom: { nested: [1, 'two', null] } })
  })

  test('a pretty-printed multi-line object (as jq -n prints) counts', async () => {
    // jq's layout: two-space indent, one member per line.
    const pretty = JSON.stringify(
      { cancel: true, contextModification: 'pretty', errorMessage: 'multi\nline', nested: { a: [1, 2, { b: 'c' }] } },
      null,
      2,
    )
    const { exec } = await runOne(printing(`log line\n${pretty}\n`))
    expectCompleted(exec)
    expect(exec.cancel).toBe(true)
    expect(exec.contextModification).toBe('pretty')
    expect(exec.errorMessage).toBe('multi\nline')
    expect(exec.output.nested).toEqual({ a: [1, 2, { b: 'c' }] })
  })

  test('braces inside JSON strings and in log lines never confuse the parser; the final object wins', async () => {
    const last = { cancel: false, contextModification: 'a { b } c }} {', errorMessage: '{"x": 1}' }
    const { exec } = await runOne(
      printing(`log: { not json\nlog } {\n${JSON.stringify({ cancel: true })}\n}\n{ half\n${JSON.stringify(last)}\n`),
    )
    expectCompleted(exec)
    expect(exec.cancel).toBe(false)
    expect(exec.contextModification).toBe('a { b } c }} {')
    expect(exec.errorMessage).toBe('{"x": 1}')
  })

  test('empty stdout is completed with cancel false', async () => {
    const { exec, result } = await runOne(printing(''))
    expectCompleted(exec)
    expect(exec.cancel).toBe(false)
    expect(exec.output).toBeNull()
    expect(exec.failure).toBeUndefined()
    expect(result.cancel).toBe(false)
  })

  test('stdout with no JSON object is completed with cancel false', async () => {
    const { exec } = await runOne(printing('all good\nnothing to report: cancel? no\n'))
    expectCompleted(exec)
    expect(exec.cancel).toBe(false)
    expect(exec.output).toBeNull()
    expect(exec.failure).toBeUndefined()
  })

  test('something that looks like a JSON object but does not parse is failed with a failure sentence', async () => {
    // The last one is invalid JSON before it ends (a raw newline in a string), not merely cut
    // off: like any object that is not JSON, none of it counts.
    for (const broken of ['{"cancel": tru}', '{"cancel": false, "contextModification": "unterminated}', '{"cancel": true, "contextModification": "unterminated}']) {
      const { exec, result } = await runOne(printing(`log\n${broken}\n`))
      expect(exec.status).toBe('failed')
      expect(exec.exitCode).toBe(0)
      expect(exec.failure).toEqual(expect.any(String))
      expect(exec.failure).toMatch(/JSON/)
      expect(result.cancel).toBe(false)
    }
  })

  test('an object cut off after its "cancel": true is failed, and its cancel counts', async () => {
    for (const broken of ['{"cancel": true,', '{"cancel": true, "errorMessage": "blocked", "data": "cut']) {
      const { exec, result } = await runOne(printing(`log\n${broken}`))
      expect(exec.status).toBe('failed')
      expect(exec.failure).toMatch(/"cancel": true that never ends/)
      expect(result.cancel).toBe(true)
    }
  })

  test('fields of the wrong type are failed with a failure sentence naming the field', async () => {
    const cases = [
      [{ cancel: 'yes' }, 'cancel'],
      [{ cancel: 1 }, 'cancel'],
      [{ contextModification: 5 }, 'contextModification'],
      [{ errorMessage: { text: 'x' } }, 'errorMessage'],
      [{ shouldContinue: 'no' }, 'shouldContinue'],
    ]
    for (const [printed, field] of cases) {
      const { exec } = await runOne(printJson(printed))
      expect(exec.status).toBe('failed')
      expect(exec.failure).toEqual(expect.any(String))
      expect(exec.failure).toContain(field)
      expect(exec.cancel).toBe(false)
    }
  })

  test('legacy shouldContinue: false counts as cancel: true, with a warning', async () => {
    const { exec, result } = await runOne(printJson({ shouldContinue: false }))
    expectCompleted(exec)
    expect(exec.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(exec.warnings.some((w) => /shouldContinue/.test(w))).toBe(true)

    const ok = await runOne(printJson({ shouldContinue: true }))
    expect(ok.exec.cancel).toBe(false)
    expectCompleted(ok.exec)
  })

  test("the CLI's context field is read as contextModification when that is absent", async () => {
    const cli = await runOne(printJson({ context: 'from the cli' }))
    expectCompleted(cli.exec)
    expect(cli.exec.contextModification).toBe('from the cli')
    expect(cli.result.contextModification).toBe('from the cli')

    const both = await runOne(printJson({ context: 'cli', contextModification: 'extension' }))
    expect(both.exec.contextModification).toBe('extension')
  })
})

describe('exit codes and signals', () => {
  test('a non-zero exit is failed, with the exit code and a failure sentence', async () => {
    const { exec, result } = await runOne(
      printing(`${JSON.stringify({ contextModification: 'partial' })}\n`, { stderr: 'something broke\n', exitCode: 3 }),
    )
    expect(exec.status).toBe('failed')
    expect(exec.exitCode).toBe(3)
    expect(exec.signal).toBeNull()
    expect(exec.failure).toMatch(/3/)
    expect(exec.cancel).toBe(false)
    expect(result.cancel).toBe(false)
  })

  test('a non-zero exit after an explicit cancel: true still blocks', async () => {
    const { exec, result } = await runOne(printing(`${JSON.stringify({ cancel: true, errorMessage: 'denied by policy' })}\n`, { exitCode: 7 }))
    expect(exec.status).toBe('failed')
    expect(exec.exitCode).toBe(7)
    expect(exec.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('denied by policy')
  })

  testUnix(
    'a hook killed by a signal is failed, exitCode null, the signal named',
    async () => {
      for (const sig of ['KILL', 'TERM', 'SEGV']) {
        const { exec, result } = await runScript(`${echoJson({ cancel: true })}\nkill -${sig} $$\nsleep 5\n`)
        expect(exec.status).toBe('failed')
        expect(exec.exitCode).toBeNull()
        expect(exec.signal).toContain(`SIG${sig}`)
        expect(exec.failure).toContain(`SIG${sig}`)
        // It printed its verdict before it died: the gate still blocks.
        expect(result.cancel).toBe(true)
      }
    },
    undefined,
    { reason: 'POSIX signals' },
  )
})

describe('limits', () => {
  test('contextModification is cut at 50,000 bytes of UTF-8, marker included, on a character boundary, with a warning', async () => {
    const { exec, result } = await runOne(printJson({ contextModification: '字'.repeat(60000) }))
    expectCompleted(exec)
    const ctx = exec.contextModification
    expect(Buffer.byteLength(ctx)).toBeLessThanOrEqual(50000)
    expect(Buffer.byteLength(ctx)).toBeGreaterThan(49500)
    expect(ctx).not.toContain('\uFFFD') // no character was split
    const kept = ctx.match(/^字+/)[0]
    const marker = ctx.slice(kept.length)
    expect(marker).toMatch(/bytes cut by @cline\/hooks/)
    expect(kept.length).toBeGreaterThan(16000)
    expect(exec.warnings).toEqual([expect.stringMatching(/180000 bytes; it was cut to 50000 bytes/)])
    expect(Buffer.byteLength(result.contextModification)).toBeLessThanOrEqual(50000)
  })

  test('a contextModification of exactly 50,000 bytes is kept whole, with no warning', async () => {
    const { exec } = await runOne(printJson({ contextModification: '字'.repeat(16000) + 'a'.repeat(2000) }))
    expectCompleted(exec)
    expect(exec.contextModification).toBe('字'.repeat(16000) + 'a'.repeat(2000))
    expect(exec.warnings).toEqual([])
  })

  test('stderr is kept as a bounded tail', async () => {
    const { exec } = await runOne(
      printing(`${JSON.stringify({ contextModification: 'ok' })}\n`, { stderr: `THE-START\n${'e'.repeat(204800)}THE-END\n` }),
    )
    expectCompleted(exec)
    expect(exec.stderr.trim().endsWith('THE-END')).toBe(true)
    expect(exec.stderr).not.toContain('THE-START')
    expect(Buffer.byteLength(exec.stderr)).toBeLessThanOrEqual(16 * 1024)
    expect(Buffer.byteLength(exec.stderr)).toBeGreaterThan(1024)

    const small = await runOne(printing('', { stderr: 'line one\nline two\n' }))
    expect(small.exec.stderr).toBe('line one\nline two\n')
  })
  // Bounded stdout under a 1 GiB flood: hostile.test.js, case 5.
})

describe('timeouts and background processes', () => {
  test('a hook past timeoutMs is timedOut and its whole process tree is stopped', async () => {
    const tmp = makeTempDir()
    const childPid = path.join(tmp, 'child.pid')
    const hookPid = path.join(tmp, 'hook.pid')
    const started = Date.now()
    // It stays alive as long as its child does (60 s).
    const { exec, result } = await runOne(
      `${startChild(childPid)}require('fs').writeFileSync(${JSON.stringify(hookPid)}, String(process.pid))\n`,
      { options: { timeoutMs: STOP_AFTER_MS } },
    )
    const elapsed = Date.now() - started
    const child = await waitForPid(childPid)
    const hook = await waitForPid(hookPid)
    expect(exec.status).toBe('timedOut')
    expect(exec.failure).toEqual(expect.any(String))
    expect(result.cancel).toBe(false)
    expect(elapsed).toBeGreaterThanOrEqual(STOP_AFTER_MS - 100)
    expect(elapsed).toBeLessThan(STOP_AFTER_MS + SLACK_MS)
    expect(await waitDead(child, GONE_MS)).toBe(true)
    expect(await waitDead(hook, GONE_MS)).toBe(true)
  })

  testUnix(
    'at its timeout a hook is first asked to stop with SIGTERM (it can clean up), and is still timedOut',
    async () => {
      const tmp = makeTempDir()
      const note = path.join(tmp, 'got-term')
      const childPid = path.join(tmp, 'child.pid')
      const { exec } = await runScript(
        `trap 'echo cleaned-up > ${shq(note)}; exit 0' TERM
sleep 60 &
echo $! > ${shq(childPid)}
wait
`,
        { shebang: 'bash', options: { timeoutMs: 800 } },
      )
      const child = await waitForPid(childPid)
      expect(exec.status).toBe('timedOut')
      expect(fs.existsSync(note) && fs.readFileSync(note, 'utf8').trim()).toBe('cleaned-up')
      expect(await waitDead(child, 2000)).toBe(true)
    },
    undefined,
    { reason: 'POSIX signals (Windows terminates the job object, with no signal a hook can catch)' },
  )

  testUnix(
    'a hook that ignores SIGTERM is still stopped at its timeout, with its children',
    async () => {
      const tmp = makeTempDir()
      const childPid = path.join(tmp, 'child.pid')
      const started = Date.now()
      const { exec } = await runScript(
        `trap '' TERM
sleep 60 &
echo $! > ${shq(childPid)}
while :; do wait; done
`,
        { shebang: 'bash', options: { timeoutMs: 800 } },
      )
      const child = await waitForPid(childPid)
      expect(exec.status).toBe('timedOut')
      expect(Date.now() - started).toBeLessThan(6000)
      expect(await waitDead(child, 2000)).toBe(true)
    },
    undefined,
    { reason: 'POSIX signals (Windows terminates the job object, with no signal a hook can ignore)' },
  )

  test("a hook whose background process keeps stdout open: the run ends within 1 s of the hook's exit, its JSON honoured, the background left alone", async () => {
    const tmp = makeTempDir()
    const bgPid = path.join(tmp, 'bg.pid')
    const exitedAt = path.join(tmp, 'exited-at')
    const dir = path.join(tmp, 'hooks')
    // The background child shares the hook's stdout and stderr and outlives it by a minute.
    writeProgram(
      dir,
      'TaskStart',
      `${startChild(bgPid, { background: true })}
process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(exitedAt)}, String(Date.now())))
${printJson({ cancel: true, contextModification: 'async work started' })}`,
    )
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], timeoutMs: 30000 }))
    const ended = Date.now()
    const bg = await waitForPid(bgPid) // tracked: killed after the test
    const [exec] = result.hooks
    expectCompleted(exec)
    expect(exec.cancel).toBe(true)
    expect(exec.contextModification).toBe('async work started')
    expect(ended - Number(fs.readFileSync(exitedAt, 'utf8'))).toBeLessThan(1000)
    expect(isAlive(bg)).toBe(true)
  })
})
