'use strict'

// "No cancel is ever dropped": one table of every way a hook can end after printing
// {"cancel": true}, or print it in a shape a careless reader would miss, each run through the
// built addon with a real hook. The run must resolve with `cancel: true`, except when it is
// aborted by its own AbortSignal, which rejects (the caller asked for no verdict at all).
// Then the outputs that used to fail open without a word: each now says what happened.
//
// Every hook is a node program (hook-programs.js: `#!/usr/bin/env node` on macOS/Linux, a
// `.cmd` running node.exe on Windows), so the same table runs on both. The bytes a hook prints
// are what the shell, jq and Python hooks of earlier versions of this file printed.

const fs = require('fs')
const path = require('path')

const { addon, isWindows, makeTempDir, writeProgram, STAY_ALIVE, waitFor, expectCompleted } = require('./helpers')

const { runHook, terminateAll } = addon

// A node hook starts in ~50 ms on Linux and 0.3-0.9 s under Wine. A hook that must print its
// verdict before its timeout gets this long.
const PRINT_THEN_TIME_OUT_MS = isWindows ? 10000 : 2000
jest.setTimeout(60000)

const MiB = 1024 * 1024
const CANCEL = '{"cancel": true, "errorMessage": "blocked by the gate"}\n'

// Snippets of hook programs. Windows writes to a pipe asynchronously: a program that ends on
// its own flushes what it wrote, and one that kills itself does so in the write's callback.

/** Prints `text` as is. */
const print = (text) => `process.stdout.write(${JSON.stringify(text)})\n`
/** Prints `text`, then runs `rest` once it is written. */
const printThen = (text, rest) => `process.stdout.write(${JSON.stringify(text)}, () => {\n${rest}\n})\n`
/** Prints what the JavaScript expression `expr` evaluates to (in the hook). */
const printExpr = (expr) => `process.stdout.write(${expr})\n`
/** Ends the hook at once, abruptly: SIGKILL on macOS/Linux, TerminateProcess on Windows. */
const KILL_SELF = "process.kill(process.pid, 'SIGKILL')\n"
/** `n` bytes of `d`. */
const ds = (n) => `'d'.repeat(${n})`
/** Prints `n` bytes of `c` in 1 MiB writes, waiting for the pipe to drain (no 1 GiB string). */
const flood = (n, c) => `{
  const chunk = Buffer.alloc(1 << 20, ${JSON.stringify(c)})
  let left = ${n}
  const more = () => {
    while (left > 0) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
      left -= piece.length
      if (!process.stdout.write(piece)) return process.stdout.once('drain', more)
    }
  }
  more()
}
`
/** Writes the file `ready`, then never ends. */
const readyThenStay = (ready) => `require('fs').writeFileSync(${JSON.stringify(ready)}, 'yes')\n${STAY_ALIVE}`

/**
 * Every way to end after the verdict: the hook's program (a function of the file it writes when
 * it is ready, for `during`), options, and what to do while it runs. `profile: 'cli'` hooks are
 * `PreToolUse.js`, which that profile runs with the host's own Node on every platform.
 */
const WAYS = [
  { way: 'exits with code 1', program: printThen(CANCEL, 'process.exitCode = 1') },
  { way: 'is killed (SIGKILL on macOS/Linux, TerminateProcess on Windows)', program: printThen(CANCEL, KILL_SELF) },
  { way: 'prints junk after it', program: print(`${CANCEL}all done.\n`) },
  { way: 'prints an array after it', program: print(`${CANCEL}[1, 2]\n`) },
  { way: "prints a lone ']' after it", program: print(`${CANCEL}]\n`) },
  { way: 'prints it as a 1,000-line pretty object', program: printExpr(`JSON.stringify({ cancel: true, findings: Array.from({ length: 1000 }, (_, line) => ({ line })) }, null, 2) + '\\n'`) },
  { way: 'prints it after a prefix on the same line', program: print('gate: {"cancel": true}\n') },
  { way: 'prints it after another object on the same line', program: print('{"cancel": false} {"cancel": true}\n') },
  { way: 'prints it after 256 lines that open arrays never closed', program: print(`${'["x",\n'.repeat(256)}${CANCEL}`) },
  { way: 'prints a HOOK_CONTROL log line before it (extension profile)', program: print(`HOOK_CONTROL\t{"cancel": false}\n${CANCEL}`) },
  { way: 'prints it as an indented HOOK_CONTROL line (CLI profile)', program: print('  HOOK_CONTROL\t{"cancel": true}\n{"cancel": false}\n'), profile: 'cli' },
  { way: 'prints a truncated HOOK_CONTROL line after it (CLI profile)', program: print('HOOK_CONTROL\t{"cancel": true}\nHOOK_CONTROL\t{"cancel": tr\n'), profile: 'cli' },
  { way: 'prints it after 100 KB of logs, then 3 MB more', program: printExpr(`'l'.repeat(100000) + '\\n' + ${JSON.stringify(CANCEL)} + 'x'.repeat(3000000)`) },
  {
    way: 'leaves a background child holding stdout',
    program: printThen(CANCEL, `require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'], { stdio: ['ignore', 'inherit', 'ignore'] }).unref()`),
  },
  { way: 'floods 1 GiB of output after it', program: printThen(CANCEL, flood(1024 * MiB, 'x')) },
  { way: 'times out', program: printThen(CANCEL, STAY_ALIVE), options: { timeoutMs: PRINT_THEN_TIME_OUT_MS }, status: 'timedOut' },
  { way: 'is stopped by terminateAll()', program: (ready) => printThen(CANCEL, readyThenStay(ready)), during: 'terminateAll', status: 'aborted' },
  { way: 'is aborted by its AbortSignal (the run rejects)', program: (ready) => printThen(CANCEL, readyThenStay(ready)), during: 'abort' },
  // Issue 18 item 1: JSON that JSON.parse accepts, and what Python's json.dumps prints.
  { way: 'prints it from node with its message cut in the middle of an emoji (a lone surrogate)', program: printExpr(`JSON.stringify({ cancel: true, errorMessage: String.fromCodePoint(0x1f6d1).slice(0, 1) }) + '\\n'`) },
  { way: "prints it as Python's json.dumps does, with a NaN and an Infinity beside it", program: print('{"cancel": true, "score": NaN, "limit": -Infinity}\n') },
  { way: 'prints it beside the number 1e400', program: print('{"cancel": true, "limit": 1e400}\n') },
  { way: 'prints it as a HOOK_CONTROL line holding a NaN (CLI profile)', program: print('HOOK_CONTROL\t{"cancel": true, "score": NaN}\n'), profile: 'cli' },
  // Issue 18 item 2: one verdict object larger than the runner keeps of stdout.
  { way: 'prints it in a 2 MiB compact object', program: printExpr(`'{"cancel":true,"errorMessage":"blocked","data":"' + ${ds(2 * MiB)} + '"}\\n'`) },
  { way: 'prints it last in a 5 MiB pretty object, after the big field', program: printExpr(`'{\\n  "data": "' + ${ds(5 * MiB)} + '",\\n  "errorMessage": "blocked",\\n  "cancel": true\\n}\\n'`) },
  {
    way: 'prints it last in a 6 MB pretty object whose data array holds 100,000 objects saying "cancel": false',
    program: printExpr(`JSON.stringify({ data: Array.from({ length: 100000 }, (_, line) => ({ cancel: false, line })), cancel: true }, null, 2) + '\\n'`),
  },
  { way: 'prints it between two floods of 3 MB of logs', program: printExpr(`${ds(3000000)} + '\\n' + ${JSON.stringify(CANCEL)} + ${ds(3000000)} + '\\n'`) },
  // Issue 18 item 3: a JSON log line after it, and UTF-16.
  { way: 'prints a JSON log line {"status":"logged"} after it', program: print(`${CANCEL}{"status": "logged"}\n`) },
  { way: 'prints it in UTF-16 with a byte-order mark (PowerShell Out-File)', program: printExpr(`Buffer.from(String.fromCharCode(0xfeff) + 'log\\r\\n{"cancel": true}\\r\\n', 'utf16le')`) },
  { way: 'prints it in UTF-16 without a byte-order mark (a NUL beside each character)', program: printExpr(`Buffer.from('{"cancel": true}\\r\\n', 'utf16le')`) },
  // Issue 18, second attack B1: JSON nested deeper than serde_json reads (JSON.parse reads any depth).
  { way: 'prints JSON nested 128 levels deep beside it', program: print(`{"cancel": true, "errorMessage": "blocked", "d": ${'['.repeat(127)}${']'.repeat(127)}}\n`) },
  { way: 'prints it after a field nested 100,000 levels deep', program: printExpr(`'{"d": ' + '['.repeat(100000) + ']'.repeat(100000) + ', "cancel": true}\\n'`) },
  {
    way: 'prints it in a 3 MiB streamed object beside a field nested 200 levels deep',
    program: [
      print('{"cancel":true,"errorMessage":"blocked","d":'),
      printExpr(`'['.repeat(200) + ']'.repeat(200)`),
      print(',"data":"'),
      printExpr(ds(3 * MiB)),
      print('"}\n'),
    ].join(''),
  },
  // B2: UTF-16 that does not start with ASCII.
  { way: 'prints it in UTF-16 with a byte-order mark after a Chinese line', program: printExpr(`Buffer.from(String.fromCharCode(0xfeff) + '检查通过，没有问题。\\r\\n{"cancel":true}\\r\\n', 'utf16le')`) },
  { way: 'prints it in UTF-16 with a byte-order mark after four emoji', program: printExpr(`Buffer.from(String.fromCharCode(0xfeff) + '🛑🛑🛑🛑 blocked\\n{"cancel":true}', 'utf16le')`) },
  { way: 'prints it in UTF-16 without a byte-order mark after a ✓', program: printExpr(`Buffer.from('✓ lint ok\\n{"cancel":true}', 'utf16le')`) },
  { way: 'prints it in UTF-16 without a byte-order mark right after an é', program: printExpr(`Buffer.from('é{"cancel":true}', 'utf16le')`) },
  // B3: stopped while printing the verdict, after its "cancel": true.
  {
    way: 'times out in the middle of its verdict, after "cancel": true',
    program: printExpr(`'{"cancel":true,"errorMessage":"blocked","data":"' + ${ds(100000)}`) + STAY_ALIVE,
    options: { timeoutMs: PRINT_THEN_TIME_OUT_MS },
    status: 'timedOut',
  },
  {
    way: 'is killed (SIGKILL; TerminateProcess on Windows) in the middle of its verdict, after "cancel": true',
    program: `process.stdout.write('{"cancel":true,"errorMessage":"blocked","data":"' + ${ds(100000)}, () => {\n${KILL_SELF}})\n`,
    status: 'failed',
  },
  {
    way: 'prints it in a HOOK_CONTROL line nested 1,000 levels deep (CLI profile)',
    program: print(`HOOK_CONTROL\t{"cancel": true, "d": ${'['.repeat(1000)}${']'.repeat(1000)}}\n{"cancel": false}\n`),
    profile: 'cli',
  },
]

describe('no cancel is ever dropped', () => {
  test.each(WAYS)('a gate that printed {"cancel": true} and then $way still blocks', async ({ program, options = {}, profile, during, status }) => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const ready = path.join(tmp, 'ready')
    const source = typeof program === 'function' ? program(ready) : program
    if (profile === 'cli') {
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, 'PreToolUse.js'), source)
    } else {
      writeProgram(dir, 'PreToolUse', source)
    }
    const controller = new AbortController()
    const run = runHook('PreToolUse', { preToolUse: { toolName: 'write_to_file' } }, {
      globalHooksDir: null,
      extraHooksDirs: [dir],
      ...(profile ? { profile, clineDir: path.join(tmp, 'cline') } : {}),
      signal: controller.signal,
      ...options,
    })
    if (during) {
      await waitFor(() => fs.existsSync(ready), { timeoutMs: 30000, what: 'the verdict printed' })
      if (during === 'abort') {
        controller.abort()
        await expect(run).rejects.toMatchObject({ name: 'AbortError' })
        return
      }
      expect(await terminateAll()).toBe(1)
    }
    const result = await run
    expect(result.hooks).toHaveLength(1)
    const [hook] = result.hooks
    // What the hook did, for a failure that shows up only on a loaded CI machine (once under Wine).
    if (!hook.cancel) console.error('no cancel read:', JSON.stringify({ ...hook, output: hook.output }))
    if (status) expect(hook.status).toBe(status)
    expect(hook.cancel).toBe(true)
    expect(result.cancel).toBe(true)
  })
})

/** Runs the node program `source` as a PreToolUse hook; its record. */
async function runOne(source, options = {}) {
  const dir = path.join(makeTempDir(), 'hooks')
  writeProgram(dir, 'PreToolUse', source)
  const result = await runHook('PreToolUse', { preToolUse: { toolName: 'write_to_file' } }, {
    globalHooksDir: null,
    extraHooksDirs: [dir],
    ...options,
  })
  expect(result.hooks).toHaveLength(1)
  return { result, hook: result.hooks[0] }
}

describe('issue 18: outputs that used to fail open without a word say what happened', () => {
  test('1. a lone surrogate, NaN and 1e400 are read as JSON.parse and Python mean them, each named in a warning', async () => {
    let { hook } = await runOne(`process.stdout.write(JSON.stringify({ cancel: true, errorMessage: 'stop ' + String.fromCodePoint(0x1f6d1).slice(0, 1) }))\n`)
    expectCompleted(hook)
    expect(hook.errorMessage).toBe('stop \ufffd')
    expect(hook.warnings.join(' ')).toMatch(/lone UTF-16 surrogate escape \\ud83d in "errorMessage"/)
    // What Python's json.dumps({"cancel": True, "score": float("nan")}) prints.
    ;({ hook } = await runOne(print('{"cancel": true, "score": NaN}\n')))
    expectCompleted(hook)
    expect(hook.cancel).toBe(true)
    expect(hook.output).toEqual({ cancel: true, score: null })
    expect(hook.warnings.join(' ')).toMatch(/printed NaN in "score", which is not JSON \(Python's json.dumps/)
    ;({ hook } = await runOne(print('{"cancel": true, "limit": 1e400}\n')))
    expectCompleted(hook)
    expect(hook.output).toEqual({ cancel: true, limit: null })
    expect(hook.warnings.join(' ')).toMatch(/the number 1e400 in "limit", beyond the range of a 64-bit float/)
  })

  test('2. a verdict object larger than the kept stdout blocks, and the warning says output holds only its verdict fields', async () => {
    const { hook } = await runOne(printExpr(`'{\\n  "data": "' + ${ds(5 * MiB)} + '",\\n  "errorMessage": "blocked",\\n  "cancel": true\\n}\\n'`))
    expectCompleted(hook)
    expect(hook.cancel).toBe(true)
    expect(hook.errorMessage).toBe('blocked')
    expect(hook.output).toEqual({ cancel: true, errorMessage: 'blocked' })
    expect(hook.warnings.join(' ')).toMatch(/printed a verdict object of 5242\d{3} bytes that the runner could not keep whole/)
  })

  test('3a. a verdict printed to stderr does not block (Cline reads stdout) but is named in a warning', async () => {
    const { hook, result } = await runOne(`process.stderr.write('checking\\n')\nprocess.stderr.write('{"cancel": true, "errorMessage": "no"}\\n')\n`)
    expectCompleted(hook)
    expect(result.cancel).toBe(false)
    expect(hook.warnings).toEqual([
      'printed {"cancel":true,"errorMessage":"no"} on stderr, where verdicts are not read, and no verdict on stdout, so it did not block: print the verdict on stdout and keep stderr for logs',
    ])
  })

  test('3b. {"cancel": null} and other null verdict fields make the hook failed, as the README says', async () => {
    let { hook } = await runOne(print('{"cancel": null}\n'))
    expect(hook.status).toBe('failed')
    expect(hook.failure).toBe('printed a verdict with a field of the wrong type: "cancel" must be true or false, but the hook printed null, so it did not block')
    ;({ hook } = await runOne(print('{"cancel": true, "errorMessage": null}\n')))
    expect(hook.status).toBe('failed')
    expect(hook.cancel).toBe(true)
    expect(hook.failure).toMatch(/"errorMessage" must be a string, not null/)
  })

  test('3c. a JSON log line after the verdict is not taken as the verdict, and is named', async () => {
    const { hook, result } = await runOne(print(`${CANCEL}{"status": "logged"}\n`))
    expectCompleted(hook)
    expect(result.cancel).toBe(true)
    expect(hook.errorMessage).toBe('blocked by the gate')
    expect(hook.warnings).toEqual([
      'printed {"status": "logged"} after its verdict; holding none of the verdict fields (cancel, contextModification, errorMessage), it was ignored and the verdict before counts: print the verdict last, and logs to stderr',
    ])
  })

  test('B3. a verdict cut off after its "cancel": true blocks, and the hook says its object never ended', async () => {
    let { hook } = await runOne(printExpr(`'{"cancel":true,"errorMessage":"blocked","data":"' + ${ds(100000)}`))
    expect(hook.status).toBe('failed')
    expect(hook.cancel).toBe(true)
    expect(hook.errorMessage).toBe('')
    expect(hook.failure).toBe('printed a JSON object with "cancel": true that never ends (truncated output?): the one opened at line 1 column 1 has no closing brace; its cancel was applied and nothing else of it: print the whole object, last on stdout')
    ;({ hook } = await runOne(printExpr(`'{"log": {"cancel":true,"data":"' + ${ds(1000)}`)))
    expect(hook.status).toBe('failed')
    expect(hook.cancel).toBe(false)
  })

  test('B2. UTF-16 printed after UTF-8 output fails the hook, naming UTF-16', async () => {
    const { hook } = await runOne(`process.stdout.write('checking...\\n'.repeat(100))\nprocess.stdout.write(Buffer.from('{"cancel": true}\\r\\n', 'utf16le'))\n`)
    expect(hook.status).toBe('failed')
    expect(hook.failure).toMatch(/^printed UTF-16 text after UTF-8 output \(from byte 1200, a NUL byte beside each character\), which the runner reads as UTF-8/)
  })

  test('3d. UTF-16 output is decoded, its verdict read, and the encoding named', async () => {
    const { hook } = await runOne(`process.stdout.write(Buffer.from(String.fromCharCode(0xfeff) + '{"cancel": true, "errorMessage": "nein"}\\r\\n', 'utf16le'))\n`)
    expectCompleted(hook)
    expect(hook.cancel).toBe(true)
    expect(hook.errorMessage).toBe('nein')
    expect(hook.warnings[0]).toMatch(/^printed UTF-16 \(little-endian, with a byte-order mark\), as Windows PowerShell's Out-File and > write it; .*must print UTF-8/)
  })
})
