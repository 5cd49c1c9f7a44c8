'use strict'

// "No cancel is ever dropped": one table of every way a hook can end after printing
// {"cancel": true}, or print it in a shape a careless reader would miss, each run through the
// built addon with a real hook. The run must resolve with `cancel: true`, except when it is
// aborted by its own AbortSignal, which rejects (the caller asked for no verdict at all).
// Then the outputs that used to fail open without a word: each now says what happened.

const fs = require('fs')
const path = require('path')

const { addon, describeUnix, makeTempDir, writeHook, waitFor } = require('./helpers')

const { runHook, terminateAll } = addon

const CANCEL = `echo '{"cancel": true, "errorMessage": "blocked by the gate"}'`
const MiB = 1024 * 1024

/** Bytes of `d`, as a shell pipeline: `n` of them, no newline. */
const ds = (n) => `head -c ${n} /dev/zero | tr '\\0' d`

/** A node hook printing `expr` (evaluated in the hook) to stdout as is. */
const nodeWrites = (expr) => ({ shebang: 'node', body: `process.stdout.write(${expr})\n` })

/** Every way to end after the verdict: the hook body, options, and what to do while it runs. */
const WAYS = [
  { way: 'exits with code 1', body: `${CANCEL}\nexit 1` },
  { way: 'is killed by SIGKILL', body: `${CANCEL}\nkill -9 $$` },
  { way: 'prints junk after it', body: `${CANCEL}\necho 'all done.'` },
  { way: 'prints an array after it', body: `${CANCEL}\necho '[1, 2]'` },
  { way: "prints a lone ']' after it", body: `${CANCEL}\necho ']'` },
  { way: 'prints it as a 1,000-line pretty object', body: `jq -n '{cancel: true, findings: [range(1000) | {line: .}]}'` },
  { way: 'prints it after a prefix on the same line', body: `printf 'gate: {"cancel": true}\\n'` },
  { way: 'prints it after another object on the same line', body: `echo '{"cancel": false} {"cancel": true}'` },
  { way: 'prints it after 256 lines that open arrays never closed', body: `for i in $(seq 256); do echo '["x",'; done\n${CANCEL}` },
  { way: 'prints a HOOK_CONTROL log line before it (extension profile)', body: `printf 'HOOK_CONTROL\\t{"cancel": false}\\n'\n${CANCEL}` },
  { way: 'prints it as an indented HOOK_CONTROL line (CLI profile)', body: `printf '  HOOK_CONTROL\\t{"cancel": true}\\n'\necho '{"cancel": false}'`, profile: 'cli' },
  { way: 'prints a truncated HOOK_CONTROL line after it (CLI profile)', body: `printf 'HOOK_CONTROL\\t{"cancel": true}\\nHOOK_CONTROL\\t{"cancel": tr\\n'`, profile: 'cli' },
  { way: 'prints it after 100 KB of logs, then 3 MB more', body: `head -c 100000 /dev/zero | tr '\\0' l\necho\n${CANCEL}\nhead -c 3000000 /dev/zero | tr '\\0' x` },
  { way: 'leaves a background child holding stdout', body: `${CANCEL}\nsleep 5 &` },
  { way: 'floods 1 GiB of output after it', body: `${CANCEL}\nhead -c 1073741824 /dev/zero | tr '\\0' x` },
  { way: 'times out', body: `${CANCEL}\nsleep 30`, options: { timeoutMs: 1000 }, status: 'timedOut' },
  { way: 'is stopped by terminateAll()', body: `${CANCEL}\ntouch ready\nsleep 30`, during: 'terminateAll', status: 'aborted' },
  { way: 'is aborted by its AbortSignal (the run rejects)', body: `${CANCEL}\ntouch ready\nsleep 30`, during: 'abort' },
  // Issue 18 item 1: JSON that JSON.parse accepts, and what Python's json.dumps prints.
  { way: 'prints it from node with its message cut in the middle of an emoji (a lone surrogate)', ...nodeWrites(`JSON.stringify({ cancel: true, errorMessage: String.fromCodePoint(0x1f6d1).slice(0, 1) }) + '\\n'`) },
  { way: 'prints it from python3 with a NaN and an Infinity beside it (json.dumps default)', shebang: 'python3', body: `import json\nprint(json.dumps({"cancel": True, "score": float("nan"), "limit": float("-inf")}))\n` },
  { way: 'prints it beside the number 1e400', body: `echo '{"cancel": true, "limit": 1e400}'` },
  { way: 'prints it as a HOOK_CONTROL line holding a NaN (CLI profile)', body: `printf 'HOOK_CONTROL\\t{"cancel": true, "score": NaN}\\n'`, profile: 'cli' },
  // Issue 18 item 2: one verdict object larger than the runner keeps of stdout.
  { way: 'prints it in a 2 MiB compact object', body: `printf '{"cancel":true,"errorMessage":"blocked","data":"'; ${ds(2 * MiB)}; printf '"}\\n'` },
  { way: 'prints it last in a 5 MiB pretty object, after the big field', body: `printf '{\\n  "data": "'; ${ds(5 * MiB)}; printf '",\\n  "errorMessage": "blocked",\\n  "cancel": true\\n}\\n'` },
  { way: 'prints it last in a 6 MB pretty object whose data array holds 100,000 objects saying "cancel": false', shebang: 'python3', body: `import json\nprint(json.dumps({"data": [{"cancel": False, "line": i} for i in range(100000)], "cancel": True}, indent=2))\n` },
  { way: 'prints it between two floods of 3 MB of logs', body: `${ds(3000000)}; echo\n${CANCEL}\n${ds(3000000)}; echo` },
  // Issue 18 item 3: a JSON log line after it, and UTF-16.
  { way: 'prints a JSON log line {"status":"logged"} after it', body: `${CANCEL}\necho '{"status": "logged"}'` },
  { way: 'prints it in UTF-16 with a byte-order mark (PowerShell Out-File)', ...nodeWrites(`Buffer.from(String.fromCharCode(0xfeff) + 'log\\r\\n{"cancel": true}\\r\\n', 'utf16le')`) },
  { way: 'prints it in UTF-16 without a byte-order mark (a NUL beside each character)', ...nodeWrites(`Buffer.from('{"cancel": true}\\r\\n', 'utf16le')`) },
  // Issue 18, second attack B1: JSON nested deeper than serde_json reads (JSON.parse reads any depth).
  { way: 'prints JSON nested 128 levels deep beside it (python3)', shebang: 'python3', body: `print("{\\"cancel\\": true, \\"errorMessage\\": \\"blocked\\", \\"d\\": " + "["*127 + "]"*127 + "}")\n` },
  { way: 'prints it after a field nested 100,000 levels deep', shebang: 'python3', body: `print("{\\"d\\": " + "["*100000 + "]"*100000 + ", \\"cancel\\": true}")\n` },
  { way: 'prints it in a 3 MiB streamed object beside a field nested 200 levels deep', body: `printf '{"cancel":true,"errorMessage":"blocked","d":'; python3 -c 'print("["*200 + "]"*200, end="")'; printf ',"data":"'; ${ds(3 * MiB)}; printf '"}\\n'` },
  // B2: UTF-16 that does not start with ASCII.
  { way: 'prints it in UTF-16 with a byte-order mark after a Chinese line', ...nodeWrites(`Buffer.from(String.fromCharCode(0xfeff) + '检查通过，没有问题。\\r\\n{"cancel":true}\\r\\n', 'utf16le')`) },
  { way: 'prints it in UTF-16 with a byte-order mark after four emoji', ...nodeWrites(`Buffer.from(String.fromCharCode(0xfeff) + '🛑🛑🛑🛑 blocked\\n{"cancel":true}', 'utf16le')`) },
  { way: 'prints it in UTF-16 without a byte-order mark after a ✓', ...nodeWrites(`Buffer.from('✓ lint ok\\n{"cancel":true}', 'utf16le')`) },
  { way: 'prints it in UTF-16 without a byte-order mark right after an é', ...nodeWrites(`Buffer.from('é{"cancel":true}', 'utf16le')`) },
  // B3: stopped while printing the verdict, after its "cancel": true.
  { way: 'times out in the middle of its verdict, after "cancel": true', body: `printf '{"cancel":true,"errorMessage":"blocked","data":"'; ${ds(100000)}; sleep 30`, options: { timeoutMs: 1000 }, status: 'timedOut' },
  { way: 'is killed by SIGKILL in the middle of its verdict, after "cancel": true', body: `printf '{"cancel":true,"errorMessage":"blocked","data":"'; ${ds(100000)}; kill -9 $$`, status: 'failed' },
  { way: 'prints it in a HOOK_CONTROL line nested 1,000 levels deep (CLI profile)', body: `python3 -c 'print("HOOK_CONTROL\\t{\\"cancel\\": true, \\"d\\": " + "["*1000 + "]"*1000 + "}")'\necho '{"cancel": false}'`, profile: 'cli' },
]

describeUnix('no cancel is ever dropped', () => {
  test.each(WAYS)('a gate that printed {"cancel": true} and then $way still blocks', async ({ body, shebang, options = {}, profile, during, status }) => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const name = profile === 'cli' ? 'PreToolUse.sh' : 'PreToolUse'
    writeHook(dir, name, shebang ? body : `cd ${JSON.stringify(tmp)}\n${body}`, { shebang: shebang || 'sh' })
    const controller = new AbortController()
    const run = runHook('PreToolUse', { preToolUse: { toolName: 'write_to_file' } }, {
      globalHooksDir: null,
      extraHooksDirs: [dir],
      ...(profile ? { profile, clineDir: path.join(tmp, 'cline') } : {}),
      signal: controller.signal,
      ...options,
    })
    if (during) {
      await waitFor(() => fs.existsSync(path.join(tmp, 'ready')), { what: 'the verdict printed' })
      if (during === 'abort') {
        controller.abort()
        await expect(run).rejects.toMatchObject({ name: 'AbortError' })
        return
      }
      expect(await terminateAll()).toBe(1)
    }
    const result = await run
    expect(result.hooks).toHaveLength(1)
    if (status) expect(result.hooks[0].status).toBe(status)
    expect(result.hooks[0].cancel).toBe(true)
    expect(result.cancel).toBe(true)
  }, 30000)
})

/** Runs `body` (a shell script, or in `shebang`'s language) as a PreToolUse hook; its record. */
async function runOne(body, { shebang = 'sh', ...options } = {}) {
  const dir = path.join(makeTempDir(), 'hooks')
  writeHook(dir, 'PreToolUse', body, { shebang })
  const result = await runHook('PreToolUse', { preToolUse: { toolName: 'write_to_file' } }, {
    globalHooksDir: null,
    extraHooksDirs: [dir],
    ...options,
  })
  expect(result.hooks).toHaveLength(1)
  return { result, hook: result.hooks[0] }
}

describeUnix('issue 18: outputs that used to fail open without a word say what happened', () => {
  test('1. a lone surrogate, NaN and 1e400 are read as JSON.parse and Python mean them, each named in a warning', async () => {
    let { hook } = await runOne(`process.stdout.write(JSON.stringify({ cancel: true, errorMessage: 'stop ' + String.fromCodePoint(0x1f6d1).slice(0, 1) }))\n`, { shebang: 'node' })
    expect(hook.status).toBe('completed')
    expect(hook.errorMessage).toBe('stop \ufffd')
    expect(hook.warnings.join(' ')).toMatch(/lone UTF-16 surrogate escape \\ud83d in "errorMessage"/)
    ;({ hook } = await runOne(`import json\nprint(json.dumps({"cancel": True, "score": float("nan")}))\n`, { shebang: 'python3' }))
    expect(hook.status).toBe('completed')
    expect(hook.cancel).toBe(true)
    expect(hook.output).toEqual({ cancel: true, score: null })
    expect(hook.warnings.join(' ')).toMatch(/printed NaN in "score", which is not JSON \(Python's json.dumps/)
    ;({ hook } = await runOne(`echo '{"cancel": true, "limit": 1e400}'`))
    expect(hook.status).toBe('completed')
    expect(hook.output).toEqual({ cancel: true, limit: null })
    expect(hook.warnings.join(' ')).toMatch(/the number 1e400 in "limit", beyond the range of a 64-bit float/)
  })

  test('2. a verdict object larger than the kept stdout blocks, and the warning says output holds only its verdict fields', async () => {
    const { hook } = await runOne(`printf '{\\n  "data": "'; ${ds(5 * MiB)}; printf '",\\n  "errorMessage": "blocked",\\n  "cancel": true\\n}\\n'`)
    expect(hook.status).toBe('completed')
    expect(hook.cancel).toBe(true)
    expect(hook.errorMessage).toBe('blocked')
    expect(hook.output).toEqual({ cancel: true, errorMessage: 'blocked' })
    expect(hook.warnings.join(' ')).toMatch(/printed a verdict object of 5242\d{3} bytes that the runner could not keep whole/)
  }, 30000)

  test('3a. a verdict printed to stderr does not block (Cline reads stdout) but is named in a warning', async () => {
    const { hook, result } = await runOne(`echo 'checking' >&2\necho '{"cancel": true, "errorMessage": "no"}' >&2`)
    expect(hook.status).toBe('completed')
    expect(result.cancel).toBe(false)
    expect(hook.warnings).toEqual([
      'printed {"cancel":true,"errorMessage":"no"} on stderr, where verdicts are not read, and no verdict on stdout, so it did not block: print the verdict on stdout and keep stderr for logs',
    ])
  })

  test('3b. {"cancel": null} and other null verdict fields make the hook failed, as the README says', async () => {
    let { hook } = await runOne(`echo '{"cancel": null}'`)
    expect(hook.status).toBe('failed')
    expect(hook.failure).toBe('printed a verdict with a field of the wrong type: "cancel" must be true or false, but the hook printed null, so it did not block')
    ;({ hook } = await runOne(`echo '{"cancel": true, "errorMessage": null}'`))
    expect(hook.status).toBe('failed')
    expect(hook.cancel).toBe(true)
    expect(hook.failure).toMatch(/"errorMessage" must be a string, not null/)
  })

  test('3c. a JSON log line after the verdict is not taken as the verdict, and is named', async () => {
    const { hook, result } = await runOne(`${CANCEL}\necho '{"status": "logged"}'`)
    expect(hook.status).toBe('completed')
    expect(result.cancel).toBe(true)
    expect(hook.errorMessage).toBe('blocked by the gate')
    expect(hook.warnings).toEqual([
      'printed {"status": "logged"} after its verdict; holding none of the verdict fields (cancel, contextModification, errorMessage), it was ignored and the verdict before counts: print the verdict last, and logs to stderr',
    ])
  })

  test('B3. a verdict cut off after its "cancel": true blocks, and the hook says its object never ended', async () => {
    let { hook } = await runOne(`printf '{"cancel":true,"errorMessage":"blocked","data":"'; ${ds(100000)}; exit 0`)
    expect(hook.status).toBe('failed')
    expect(hook.cancel).toBe(true)
    expect(hook.errorMessage).toBe('')
    expect(hook.failure).toBe('printed a JSON object with "cancel": true that never ends (truncated output?): the one opened at line 1 column 1 has no closing brace; its cancel was applied and nothing else of it: print the whole object, last on stdout')
    ;({ hook } = await runOne(`printf '{"log": {"cancel":true,"data":"'; ${ds(1000)}; exit 0`))
    expect(hook.status).toBe('failed')
    expect(hook.cancel).toBe(false)
  })

  test('B2. UTF-16 printed after UTF-8 output fails the hook, naming UTF-16', async () => {
    const { hook } = await runOne(`process.stdout.write('checking...\\n'.repeat(100))\nprocess.stdout.write(Buffer.from('{"cancel": true}\\r\\n', 'utf16le'))\n`, { shebang: 'node' })
    expect(hook.status).toBe('failed')
    expect(hook.failure).toMatch(/^printed UTF-16 text after UTF-8 output \(from byte 1200, a NUL byte beside each character\), which the runner reads as UTF-8/)
  })

  test('3d. UTF-16 output is decoded, its verdict read, and the encoding named', async () => {
    const { hook } = await runOne(`process.stdout.write(Buffer.from(String.fromCharCode(0xfeff) + '{"cancel": true, "errorMessage": "nein"}\\r\\n', 'utf16le'))\n`, { shebang: 'node' })
    expect(hook.status).toBe('completed')
    expect(hook.cancel).toBe(true)
    expect(hook.errorMessage).toBe('nein')
    expect(hook.warnings[0]).toMatch(/^printed UTF-16 \(little-endian, with a byte-order mark\), as Windows PowerShell's Out-File and > write it; .*must print UTF-8/)
  })
})
