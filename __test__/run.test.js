'use strict'

// Issue 2, section 4: running one hook (stdin, cwd, env, no shell, output parsing, exit codes,
// signals, limits, timeouts, background processes, stderr).

const fs = require('fs')
const os = require('os')
const path = require('path')

const {
  addon,
  describeUnix,
  makeTempDir,
  makeWorkspace,
  hooksDirOf,
  writeHook,
  shq,
  echoJson,
  waitForPid,
  isAlive,
  waitDead,
  opts,
} = require('./helpers')

const { runHook } = addon

/** Writes one hook `TaskStart` into a fresh dir and runs it; returns { result, exec, dir }. */
async function runOne(body, { shebang = 'sh', input = {}, options = {}, name = 'TaskStart' } = {}) {
  const dir = path.join(makeTempDir(), 'hooks')
  writeHook(dir, name, body, { shebang })
  const result = await runHook(name, input, opts({ extraHooksDirs: [dir], ...options }))
  expect(result.hooks).toHaveLength(1)
  return { result, exec: result.hooks[0], dir }
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

describeUnix('stdin', () => {
  test('the input is one JSON object on stdin, with hookName, timestamp, workspaceRoots and model filled in', async () => {
    const tmp = makeTempDir()
    const ws = makeWorkspace('ws')
    const seen = path.join(tmp, 'seen.json')
    writeHook(
      hooksDirOf(ws),
      'PreToolUse',
      `import json, sys
raw = sys.stdin.read()          # reads to EOF: stdin must be closed after the object
obj = json.loads(raw)           # fails on anything but exactly one JSON value
open(${JSON.stringify(seen)}, "w").write(json.dumps({"raw": raw, "obj": obj}))
`,
      { shebang: 'python3' },
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
    writeHook(hooksDirOf(ws), 'PreToolUse', `cat > ${shq(seen)}\n`)
    const input = {
      hookName: 'tool_call',
      timestamp: '2026-01-15T10:30:00Z',
      workspaceRoots: [],
      model: { provider: 'anthropic', slug: 'claude-sonnet' },
      extra: null,
    }
    const result = await runHook('PreToolUse', input, opts({ workspaceRoots: [ws] }))
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
    expect(JSON.parse(fs.readFileSync(seen, 'utf8'))).toEqual(input)

    const withNullModel = { model: null }
    await runHook('PreToolUse', withNullModel, opts({ workspaceRoots: [ws] }))
    expect(JSON.parse(fs.readFileSync(seen, 'utf8')).model).toBeNull()
  })

  test('a 10 MiB input reaches a hook that reads it all', async () => {
    const blob = 'x'.repeat(10 * 1024 * 1024)
    const { exec } = await runOne(
      `import json, sys
obj = json.loads(sys.stdin.buffer.read())
print(json.dumps({"contextModification": str(len(obj["blob"]))}))
`,
      { shebang: 'python3', input: { blob }, options: { timeoutMs: 20000 } },
    )
    expect(exec.status).toBe('completed')
    expect(exec.contextModification).toBe(String(blob.length))
  }, 30000)

  test('stdin is written while stdout is read: a hook echoing a 10 MiB input back does not deadlock', async () => {
    const blob = 'y'.repeat(10 * 1024 * 1024)
    const { exec } = await runOne(`cat\n${echoJson({ contextModification: 'echoed it all' })}\n`, {
      input: { blob },
      options: { timeoutMs: 20000 },
    })
    expect(exec.status).toBe('completed')
    expect(exec.contextModification).toBe('echoed it all')
  }, 30000)

  test('a hook that exits without reading stdin (broken pipe) is completed', async () => {
    const blob = 'z'.repeat(4 * 1024 * 1024) // far more than a pipe buffer: the write must hit EPIPE
    const { exec } = await runOne(`${echoJson({ contextModification: 'did not read' })}\nexit 0\n`, {
      input: { blob },
    })
    expect(exec.status).toBe('completed')
    expect(exec.failure).toBeUndefined()
    expect(exec.exitCode).toBe(0)
    expect(exec.contextModification).toBe('did not read')
  })
})

describeUnix('working directory and environment', () => {
  const printCwd = 'process.stdout.write(JSON.stringify({ contextModification: process.cwd() }))\n'

  test('a workspace hook runs in its own root; global and extra hooks in the first root', async () => {
    const tmp = makeTempDir()
    const ws1 = makeWorkspace('ws one')
    const ws2 = makeWorkspace('ws two')
    const extra = path.join(tmp, 'extra')
    const globalDir = path.join(tmp, 'global')
    for (const dir of [extra, globalDir, hooksDirOf(ws1), hooksDirOf(ws2)]) {
      writeHook(dir, 'TaskStart', printCwd, { shebang: 'node' })
    }
    const result = await runHook('TaskStart', {}, {
      extraHooksDirs: [extra],
      globalHooksDir: globalDir,
      workspaceRoots: [ws1, ws2],
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
    const { exec } = await runOne(printCwd, { shebang: 'node' })
    expect(exec.status).toBe('completed')
    expect(fs.realpathSync(exec.contextModification)).toBe(fs.realpathSync(os.homedir()))
  })

  test('the env option reaches the hook, on top of the inherited environment', async () => {
    const { exec } = await runOne(
      `const e = process.env
console.log(JSON.stringify({ contextModification: e.CLINE_TEST_VALUE ?? '<unset>', home: e.HOME, path: e.PATH }))
`,
      { shebang: 'node', options: { env: { CLINE_TEST_VALUE: 'spaces, $HOME and "quotes" é' } } },
    )
    expect(exec.status).toBe('completed')
    expect(exec.contextModification).toBe('spaces, $HOME and "quotes" é')
    expect(exec.output.home).toBe(process.env.HOME)
    expect(exec.output.path).toBe(process.env.PATH)
  })
})

describeUnix('no shell', () => {
  test('paths with spaces, quotes, $(), backticks, ; and non-ASCII work and never inject a command', async () => {
    const tmp = makeTempDir()
    const tag = `pwned-${process.pid}-${Date.now()}`
    const nasty = `ws 'single' "double" $(touch ${tag}-a) \`touch ${tag}-b\` ; touch ${tag}-c & é漢字 |x`
    const ws = makeWorkspace(nasty)
    const extra = path.join(tmp, `extra $(touch ${tag}-d); \`touch ${tag}-e\` 'q' ü`)
    const wsHook = writeHook(
      hooksDirOf(ws),
      'TaskStart',
      `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'))
console.log(JSON.stringify({ contextModification: 'ws', self: __filename, cwd: process.cwd(), roots: input.workspaceRoots }))
`,
      { shebang: 'node' },
    )
    const extraHook = writeHook(extra, 'TaskStart', `printf '{"contextModification": "extra", "self": "%s"}\\n' "ok"\n`)

    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [ws], extraHooksDirs: [extra] }))
    expect(result.hooks.map((h) => [h.path, h.status])).toEqual([
      [extraHook, 'completed'],
      [wsHook, 'completed'],
    ])
    const wsOut = result.hooks[1].output
    expect(wsOut.self).toBe(wsHook)
    expect(wsOut.cwd).toBe(ws)
    expect(wsOut.roots).toEqual([ws])

    const places = [tmp, ws, hooksDirOf(ws), extra, path.dirname(ws), process.cwd(), os.homedir(), '/']
    const injected = []
    for (const place of places) {
      for (const suffix of ['a', 'b', 'c', 'd', 'e']) {
        if (fs.existsSync(path.join(place, `${tag}-${suffix}`))) injected.push(path.join(place, `${tag}-${suffix}`))
      }
    }
    expect(injected).toEqual([])
  })

  test('each hook leads its own process group', async () => {
    const { exec } = await runOne(
      `import json, os
print(json.dumps({"pid": os.getpid(), "pgid": os.getpgid(0)}))
`,
      { shebang: 'python3' },
    )
    expect(exec.status).toBe('completed')
    expect(exec.output.pgid).toBe(exec.output.pid)
    expect(exec.output.pgid).not.toBe(process.pid)
  })
})

describeUnix('reading the output', () => {
  test('log lines before the final JSON object are fine; unknown fields pass through', async () => {
    const { exec, result } = await runOne(
      `echo "starting the check"
echo "progress: 50%"
${echoJson({ cancel: true, contextModification: 'after logs', custom: { nested: [1, 'two', null] } })}
`,
    )
    expect(exec.status).toBe('completed')
    expect(exec.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(exec.contextModification).toBe('after logs')
    expect(exec.output).toEqual({ cancel: true, contextModification: 'after logs', custom: { nested: [1, 'two', null] } })
  })

  test('a pretty-printed multi-line object (as jq -n prints) counts', async () => {
    const { exec } = await runOne(
      `echo "log line"
jq -n '{cancel: true, contextModification: "pretty", errorMessage: "multi\\nline", nested: {a: [1, 2, {b: "c"}]}}'
`,
      { shebang: 'bash' },
    )
    expect(exec.status).toBe('completed')
    expect(exec.cancel).toBe(true)
    expect(exec.contextModification).toBe('pretty')
    expect(exec.errorMessage).toBe('multi\nline')
    expect(exec.output.nested).toEqual({ a: [1, 2, { b: 'c' }] })
  })

  test('braces inside JSON strings and in log lines never confuse the parser; the final object wins', async () => {
    const { exec } = await runOne(
      `echo "log: { not json"
echo "log } {"
${echoJson({ cancel: true })}
echo "}"
echo "{ half"
${echoJson({ cancel: false, contextModification: 'a { b } c }} {', errorMessage: '{"x": 1}' })}
`,
    )
    expect(exec.status).toBe('completed')
    expect(exec.cancel).toBe(false)
    expect(exec.contextModification).toBe('a { b } c }} {')
    expect(exec.errorMessage).toBe('{"x": 1}')
  })

  test('empty stdout is completed with cancel false', async () => {
    const { exec, result } = await runOne('exit 0\n')
    expect(exec.status).toBe('completed')
    expect(exec.cancel).toBe(false)
    expect(exec.output).toBeNull()
    expect(exec.failure).toBeUndefined()
    expect(result.cancel).toBe(false)
  })

  test('stdout with no JSON object is completed with cancel false', async () => {
    const { exec } = await runOne('echo "all good"\necho "nothing to report: cancel? no"\n')
    expect(exec.status).toBe('completed')
    expect(exec.cancel).toBe(false)
    expect(exec.output).toBeNull()
    expect(exec.failure).toBeUndefined()
  })

  test('something that looks like a JSON object but does not parse is failed with a failure sentence', async () => {
    // The last one is invalid JSON before it ends (a raw newline in a string), not merely cut
    // off: like any object that is not JSON, none of it counts.
    for (const broken of ['{"cancel": tru}', '{"cancel": false, "contextModification": "unterminated}', '{"cancel": true, "contextModification": "unterminated}']) {
      const { exec, result } = await runOne(`echo "log"\nprintf '%s\\n' ${shq(broken)}\n`)
      expect(exec.status).toBe('failed')
      expect(exec.exitCode).toBe(0)
      expect(exec.failure).toEqual(expect.any(String))
      expect(exec.failure).toMatch(/JSON/)
      expect(result.cancel).toBe(false)
    }
  })

  test('an object cut off after its "cancel": true is failed, and its cancel counts', async () => {
    for (const broken of ['{"cancel": true,', '{"cancel": true, "errorMessage": "blocked", "data": "cut']) {
      const { exec, result } = await runOne(`echo "log"\nprintf '%s' ${shq(broken)}\n`)
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
      const { exec } = await runOne(`${echoJson(printed)}\n`)
      expect(exec.status).toBe('failed')
      expect(exec.failure).toEqual(expect.any(String))
      expect(exec.failure).toContain(field)
      expect(exec.cancel).toBe(false)
    }
  })

  test('legacy shouldContinue: false counts as cancel: true, with a warning', async () => {
    const { exec, result } = await runOne(`${echoJson({ shouldContinue: false })}\n`)
    expect(exec.status).toBe('completed')
    expect(exec.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(exec.warnings.some((w) => /shouldContinue/.test(w))).toBe(true)

    const ok = await runOne(`${echoJson({ shouldContinue: true })}\n`)
    expect(ok.exec.cancel).toBe(false)
    expect(ok.exec.status).toBe('completed')
  })

  test("the CLI's context field is read as contextModification when that is absent", async () => {
    const cli = await runOne(`${echoJson({ context: 'from the cli' })}\n`)
    expect(cli.exec.status).toBe('completed')
    expect(cli.exec.contextModification).toBe('from the cli')
    expect(cli.result.contextModification).toBe('from the cli')

    const both = await runOne(`${echoJson({ context: 'cli', contextModification: 'extension' })}\n`)
    expect(both.exec.contextModification).toBe('extension')
  })
})

describeUnix('exit codes and signals', () => {
  test('a non-zero exit is failed, with the exit code and a failure sentence', async () => {
    const { exec, result } = await runOne(`echo "something broke" >&2\n${echoJson({ contextModification: 'partial' })}\nexit 3\n`)
    expect(exec.status).toBe('failed')
    expect(exec.exitCode).toBe(3)
    expect(exec.signal).toBeNull()
    expect(exec.failure).toMatch(/3/)
    expect(exec.cancel).toBe(false)
    expect(result.cancel).toBe(false)
  })

  test('a non-zero exit after an explicit cancel: true still blocks', async () => {
    const { exec, result } = await runOne(`${echoJson({ cancel: true, errorMessage: 'denied by policy' })}\nexit 7\n`)
    expect(exec.status).toBe('failed')
    expect(exec.exitCode).toBe(7)
    expect(exec.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('denied by policy')
  })

  test('a hook killed by a signal is failed, exitCode null, the signal named', async () => {
    for (const sig of ['KILL', 'TERM', 'SEGV']) {
      const { exec, result } = await runOne(`${echoJson({ cancel: true })}\nkill -${sig} $$\nsleep 5\n`)
      expect(exec.status).toBe('failed')
      expect(exec.exitCode).toBeNull()
      expect(exec.signal).toContain(`SIG${sig}`)
      expect(exec.failure).toContain(`SIG${sig}`)
      // It printed its verdict before it died: the gate still blocks.
      expect(result.cancel).toBe(true)
    }
  })
})

describeUnix('limits', () => {
  test('contextModification is cut at 50,000 bytes of UTF-8, marker included, on a character boundary, with a warning', async () => {
    const { exec, result } = await runOne(
      `import json
print(json.dumps({"contextModification": "字" * 60000}))
`,
      { shebang: 'python3' },
    )
    expect(exec.status).toBe('completed')
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
    const { exec } = await runOne(
      `import json
print(json.dumps({"contextModification": "字" * 16000 + "a" * 2000}))
`,
      { shebang: 'python3' },
    )
    expect(exec.status).toBe('completed')
    expect(exec.contextModification).toBe('字'.repeat(16000) + 'a'.repeat(2000))
    expect(exec.warnings).toEqual([])
  })

  test('stderr is kept as a bounded tail', async () => {
    const { exec } = await runOne(
      `echo "THE-START" >&2
head -c 204800 /dev/zero | tr '\\0' e >&2
echo "THE-END" >&2
${echoJson({ contextModification: 'ok' })}
`,
    )
    expect(exec.status).toBe('completed')
    expect(exec.stderr.trim().endsWith('THE-END')).toBe(true)
    expect(exec.stderr).not.toContain('THE-START')
    expect(Buffer.byteLength(exec.stderr)).toBeLessThanOrEqual(16 * 1024)
    expect(Buffer.byteLength(exec.stderr)).toBeGreaterThan(1024)

    const small = await runOne(`echo "line one" >&2\necho "line two" >&2\n`)
    expect(small.exec.stderr).toBe('line one\nline two\n')
  })
  // Bounded stdout under a 1 GiB flood: hostile.test.js, case 5.
})

describeUnix('timeouts and background processes', () => {
  test('a hook past timeoutMs is timedOut and its whole process tree is stopped', async () => {
    const tmp = makeTempDir()
    const childPid = path.join(tmp, 'child.pid')
    const hookPid = path.join(tmp, 'hook.pid')
    const started = Date.now()
    const { exec, result } = await runOne(
      `sleep 60 &
echo $! > ${shq(childPid)}
echo $$ > ${shq(hookPid)}
wait
`,
      { shebang: 'bash', options: { timeoutMs: 1000 } },
    )
    const elapsed = Date.now() - started
    const child = await waitForPid(childPid)
    const hook = await waitForPid(hookPid)
    expect(exec.status).toBe('timedOut')
    expect(exec.failure).toEqual(expect.any(String))
    expect(result.cancel).toBe(false)
    expect(elapsed).toBeGreaterThanOrEqual(900)
    expect(elapsed).toBeLessThan(6000)
    expect(await waitDead(child, 2000)).toBe(true)
    expect(await waitDead(hook, 2000)).toBe(true)
  })

  test('at its timeout a hook is first asked to stop with SIGTERM (it can clean up), and is still timedOut', async () => {
    const tmp = makeTempDir()
    const note = path.join(tmp, 'got-term')
    const childPid = path.join(tmp, 'child.pid')
    const { exec } = await runOne(
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
  })

  test('a hook that ignores SIGTERM is still stopped at its timeout, with its children', async () => {
    const tmp = makeTempDir()
    const childPid = path.join(tmp, 'child.pid')
    const started = Date.now()
    const { exec } = await runOne(
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
  })

  test('a hook whose background process keeps stdout open finishes within 1 s, its JSON honoured, the background left alone', async () => {
    const tmp = makeTempDir()
    const bgPid = path.join(tmp, 'bg.pid')
    const dir = path.join(tmp, 'hooks')
    writeHook(
      dir,
      'TaskStart',
      `sleep 60 &
echo $! > ${shq(bgPid)}
${echoJson({ cancel: true, contextModification: 'async work started' })}
`,
    )
    const started = Date.now()
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: [dir] }))
    const elapsed = Date.now() - started
    const bg = await waitForPid(bgPid) // tracked: killed after the test
    const [exec] = result.hooks
    expect(exec.status).toBe('completed')
    expect(exec.cancel).toBe(true)
    expect(exec.contextModification).toBe('async work started')
    expect(elapsed).toBeLessThan(1000)
    expect(isAlive(bg)).toBe(true)
  })
})
