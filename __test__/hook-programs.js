'use strict'

// A test's hook written once and run on both platforms. A behaviour test describes its hook as
// a small JavaScript program; this module writes it in the form the platform runs:
//   - macOS and Linux: an executable file named after the event, `#!/usr/bin/env node`;
//   - Windows: `<event>.cmd`, one line that runs node.exe on the program, which is kept in a
//     folder of its own outside every hooks folder (a `.js` file in a hooks folder would be a
//     hook of its own wherever PATHEXT lists .JS).
// Hooks whose start-up cost matters (a thousand runs) use `writeQuickHook`: a POSIX shell script
// on Unix, and on Windows a copy of hookbot.exe (scripts/windows/hookbot.c, built by the
// Windows lane), which reads all of its input and prints one given JSON line.

const fs = require('fs')
const path = require('path')

const isWindows = process.platform === 'win32'

/** hookbot.exe from the Windows lane (absent elsewhere): CLINE_HOOKS_TEST_HOOKBOT. */
const HOOKBOT = process.env.CLINE_HOOKS_TEST_HOOKBOT || null

let programsDir = null
let programCount = 0

/**
 * Where Windows keeps the programs behind `.cmd` hooks: one folder per test file, made on first
 * use by `makeDir` (the helpers' temp-dir maker, so it is removed after the test).
 */
function programPath(makeDir) {
  if (!programsDir || !fs.existsSync(programsDir)) programsDir = makeDir('cline-hooks-programs-')
  programCount += 1
  return path.join(programsDir, `program-${programCount}.js`)
}

/** The file name a hook of `event` has on this platform when written by this module. */
function programHookName(event) {
  return isWindows ? `${event}.cmd` : event
}

/** A cmd.exe double-quoted argument (paths here never hold `"`, which Windows forbids). */
function cmdQuote(p) {
  return `"${p}"`
}

/**
 * Writes hook `event` into `dir` (created as needed) as the JavaScript program `source`, and
 * returns the hook's path. `mode` applies on Unix only (0o644 writes a hook that is not
 * executable). `header`: the settings of a `cline-hook:` line written into the hook file (a
 * `//` comment after the `#!` line; `@REM` in the `.cmd` on Windows).
 */
function writeProgram(makeDir, dir, event, source, { mode = 0o755, header } = {}) {
  fs.mkdirSync(dir, { recursive: true })
  const hook = path.join(dir, programHookName(event))
  if (isWindows) {
    const program = programPath(makeDir)
    fs.writeFileSync(program, source)
    // `@` keeps cmd.exe from echoing the line into the hook's stdout; `%*` passes arguments on.
    const headerLine = header ? `@REM cline-hook: ${header}\r\n` : ''
    fs.writeFileSync(hook, `${headerLine}@${cmdQuote(process.execPath)} ${cmdQuote(program)} %*\r\n`)
  } else {
    const headerLine = header ? `// cline-hook: ${header}\n` : ''
    fs.writeFileSync(hook, `#!/usr/bin/env node\n${headerLine}${source}`)
    fs.chmodSync(hook, mode)
  }
  return hook
}

/** Whether `writeQuickHook` can write a hook here (on Windows it needs hookbot.exe). */
const quickHooksAvailable = !isWindows || Boolean(HOOKBOT)

/**
 * Writes the platform's cheapest hook of `event` into `dir`: it reads all of its input and
 * prints `verdict` as one JSON line, each `@ID@` in it replaced by the input's `id` string
 * (so each run can be told apart). Returns the hook's path.
 */
function writeQuickHook(dir, event, verdict) {
  fs.mkdirSync(dir, { recursive: true })
  const line = JSON.stringify(verdict)
  if (isWindows) {
    if (!HOOKBOT) throw new Error('writeQuickHook needs hookbot.exe: run the Windows lane (npm run test:windows)')
    const hook = path.join(dir, `${event}.exe`)
    fs.copyFileSync(HOOKBOT, hook)
    // hookbot.exe prints the contents of `<its own path>.verdict` (not a PATHEXT kind, so never a hook).
    fs.writeFileSync(`${hook}.verdict`, `${line}\n`)
    return hook
  }
  const hook = path.join(dir, event)
  const [before, ...rest] = line.split('@ID@')
  const printf = rest.length ? `printf '%s' ${[before, ...rest].map(shq).join(' "$id" ')}\necho` : `printf '%s\\n' ${shq(line)}`
  // Builtins only: read the input, cut the id out of it, print.
  const body = rest.length
    ? `IFS= read -r input\nid=\${input#*\\"id\\":\\"}\nid=\${id%%\\"*}\n${printf}\n`
    : `cat >/dev/null\n${printf}\n`
  fs.writeFileSync(hook, `#!/bin/sh\n${body}`)
  fs.chmodSync(hook, 0o755)
  return hook
}

/** A POSIX-shell single-quoted literal of `s`. */
function shq(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`
}

/**
 * Writes the platform's cheapest hook of `event` into `dir` that starts a child, writes one
 * file named after each pid of its tree into `pids` and never ends: a shell script with
 * `sleep &` on Unix (2 processes), hookbot.exe's `tree` mode on Windows (3 processes). Returns
 * how many processes each run of it leaves in `pids`.
 */
function writeQuickTreeHook(dir, event, pids) {
  if (isWindows) {
    writeHookbotHook(dir, event, 'tree', pids)
    return 3
  }
  fs.mkdirSync(dir, { recursive: true })
  const hook = path.join(dir, event)
  fs.writeFileSync(hook, `#!/bin/sh\n: > ${shq(pids)}/$$\nsleep 60 &\n: > ${shq(pids)}/$!\nwait\n`)
  fs.chmodSync(hook, 0o755)
  return 2
}

/**
 * Windows only: writes hook `event` into `dir` as a `.cmd` that runs hookbot.exe in `mode`
 * (see scripts/windows/hookbot.c), writing pid files into `pids` and printing `verdict` first
 * when given. Returns the hook's path.
 */
function writeHookbotHook(dir, event, mode, pids, verdict) {
  if (!HOOKBOT) throw new Error('writeHookbotHook needs hookbot.exe: run the Windows lane (npm run test:windows)')
  fs.mkdirSync(dir, { recursive: true })
  let verdictArg = ''
  if (verdict !== undefined) {
    const file = path.join(pids, `verdict-${event}-${++programCount}.json`)
    fs.writeFileSync(file, `${JSON.stringify(verdict)}\n`)
    verdictArg = ` ${cmdQuote(file)}`
  }
  const hook = path.join(dir, `${event}.cmd`)
  fs.writeFileSync(hook, `@${cmdQuote(HOOKBOT)} ${mode} ${cmdQuote(pids)}${verdictArg}\r\n`)
  return hook
}

// ---------------------------------------------------------------------------------------
// Snippets of hook programs, so a test's hook reads as what it does.

/**
 * Prints `obj` as one JSON line, written before the next statement runs (process.stdout is
 * asynchronous for pipes on Windows, so a hook that exits right after could lose it).
 */
function printJson(obj) {
  return `require('fs').writeSync(1, ${JSON.stringify(JSON.stringify(obj) + '\n')})\n`
}

/** Reads all of stdin into the string `input` (then the rest of the program runs). */
function readInputThen(rest) {
  return `let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (c) => { input += c })
process.stdin.on('end', () => {
${rest}
})
`
}

/** Writes the program's pid to `file`, so a test can watch the process. */
function writePidTo(file) {
  return `require('fs').writeFileSync(${JSON.stringify(file)}, String(process.pid))\n`
}

/** Keeps the program alive until it is killed. */
const STAY_ALIVE = 'setInterval(() => {}, 1 << 30)\n'

module.exports = {
  HOOKBOT,
  programHookName,
  writeProgram,
  quickHooksAvailable,
  writeQuickHook,
  writeHookbotHook,
  writeQuickTreeHook,
  printJson,
  readInputThen,
  writePidTo,
  STAY_ALIVE,
}
