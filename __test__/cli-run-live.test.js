// Issue 15 item 8: `cline-hooks run` for humans. While the hooks run it streams each hook's
// stderr (escaped, indented under a line naming the hook) and says which hooks are past the slow
// threshold (2 s): on a terminal as live lines redrawn in place, with colour; through a pipe as
// plain lines without a single escape sequence. The report ends with a summary table, the
// slowest hook marked. Exit status: 1 when the hooks cancel, 0 when they allow, 2 for a bad call;
// --json prints exactly the result. The hooks are node programs, so they run on both platforms;
// the pseudo-terminal (pty-run.py) is Unix's.
const { spawnSync } = require('child_process')
const path = require('path')
const { testUnix, makeWorkspace, makeTempDir, hooksDirOf, writeProgram, printJson, readInputThen, nodeSync } = require('./helpers')

const ROOT = path.join(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'cline-hooks.js')
const PTY = path.join(__dirname, 'fixtures', 'cli', 'pty-run.py')

// What a hostile hook prints on stderr: set the title, clear the screen, a C1 CSI, a carriage
// return over the line, a bidi override.
const ATTACK = '\x1b]0;pwned\x07\x1b[2J\u009b31m\rover\u202eevil'
// eslint-disable-next-line no-control-regex
const DANGEROUS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u

/** A workspace hook that logs two lines (one hostile) on stderr, runs `ms`, and prints `verdict`. */
function slowHook(dir, ms, verdict, tag) {
  return writeProgram(
    dir,
    'PreToolUse',
    readInputThen(`const fs = require('fs')
fs.writeSync(2, ${JSON.stringify(`${tag}: checking\n${tag}: ${ATTACK}\n`)})
setTimeout(() => {
  fs.writeSync(2, ${JSON.stringify(`${tag}: done\n`)})
  ${printJson(verdict)}
}, ${ms})`),
  )
}

/** A workspace with a slow hook (3 s) and a global folder with a quick one. */
function twoHooks(slowVerdict, quickVerdict) {
  const ws = makeWorkspace('run-live')
  const global = makeTempDir('run-live-global-')
  const slow = slowHook(hooksDirOf(ws), 3000, slowVerdict, 'slow')
  const quick = slowHook(global, 10, quickVerdict, 'quick')
  return { ws, global, slow, quick }
}

const cli = (args, opts = {}) => nodeSync([CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60000, ...opts })

describe('cline-hooks run, through a pipe: plain lines', () => {
  test('stderr streamed escaped and indented, the slow hook named once, then the blocks and the summary table; exit 1 on a cancel', () => {
    const { ws, global, slow, quick } = twoHooks({ cancel: true, errorMessage: 'blocked' }, { cancel: false })
    const r = cli(['run', 'PreToolUse', '--workspace', ws, '--global-dir', global])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(1)
    // Not a single escape sequence: no colour, no redraw, nothing of the hook's raw.
    expect(r.stdout).not.toMatch(DANGEROUS)
    const lines = r.stdout.split('\n')
    const at = (pattern) => lines.findIndex((l) => pattern.test(l))
    const slowTitle = `PreToolUse ❯ ${slow} (workspace)`
    const quickTitle = `PreToolUse ❯ ${quick} (global)`
    // Each hook's lines under its own heading, in the order they came.
    expect(lines).toContain(`▸ ${quickTitle}`)
    expect(lines).toContain(`▸ ${slowTitle}`)
    expect(lines).toContain('  stderr    │ slow: checking')
    // Its second line continues under its heading, or, when the quick hook's lines came between
    // the two (the hooks run together), under the heading printed again.
    const hostile = 'slow: \\x1B]0;pwned\\x07\\x1B[2J\\u009B31m\\rover\\u202Eevil'
    expect(lines.filter((l) => l === `            │ ${hostile}` || l === `  stderr    │ ${hostile}`)).toHaveLength(1)
    expect(at(/slow: checking/)).toBeLessThan(at(/slow: \\x1B/))
    // Past 2 s, one line says the slow hook is still running; the quick one never gets one.
    // (The quick one is named only if a loaded machine took 2 s to start it.)
    const still = lines.filter((l) => l.startsWith('⏱ ') && l.includes(slowTitle))
    expect(still).toHaveLength(1)
    expect(still[0]).toMatch(new RegExp(`^⏱ ${escapeRe(slowTitle)} still running after 2\\.\\d\\d s$`))
    expect(at(/^⏱ /)).toBeLessThan(at(/slow: done/))
    // Then the report: its blocks do not repeat what was shown as it came.
    const report = at(/^┃ /)
    expect(report).toBeGreaterThan(at(/slow: done/))
    expect(lines.filter((l) => l === '  stderr    shown above as it came')).toHaveLength(2)
    // The summary table: one row per hook, the slowest marked, the file last.
    const header = at(/^ {2}STATUS +DURATION +CANCEL +SOURCE +HOOK$/)
    expect(header).toBeGreaterThan(report)
    expect(lines[header + 1]).toMatch(new RegExp(`^ {2}completed +\\d+(\\.\\d+)? m?s +false +global +${escapeRe(quick)}$`))
    expect(lines[header + 2]).toMatch(new RegExp(`^ {2}completed +\\d+\\.\\d+ s +true +workspace +${escapeRe(slow)} +◀ slowest$`))
    expect(r.stdout.trimEnd().split('\n').pop()).toMatch(/^✘ cancelled · 2 hooks · slowest /)
  }, 60000)

  test('a quick run shows its stderr and no slow line; exit 0 when the hooks allow', () => {
    const ws = makeWorkspace('run-live-quick')
    slowHook(hooksDirOf(ws), 10, { cancel: false }, 'quick')
    const r = cli(['run', 'PreToolUse', '--no-global', '--workspace', ws])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).not.toMatch(DANGEROUS)
    expect(r.stdout).toContain('  stderr    │ quick: checking\n')
    expect(r.stdout).toContain('            │ quick: done\n')
    // One hook: the table has its row, and nothing to call the slowest. Under 2 s (as it is
    // unless the machine is very loaded), no line says it is still running.
    expect(r.stdout).toMatch(/^ {2}completed +\d+(\.\d+)? m?s +false +workspace +/m)
    if (/^ {2}completed +\d+(\.\d)? ms /m.test(r.stdout)) expect(r.stdout).not.toMatch(/^⏱/m)
    expect(r.stdout).not.toContain('◀ slowest')
    expect(r.stdout.trimEnd().split('\n').pop()).toMatch(/^✔ allowed · 1 hook/)
  }, 60000)

  test('--json prints exactly the result, nothing live; a bad call exits 2 with one line on stderr', () => {
    const ws = makeWorkspace('run-live-json')
    slowHook(hooksDirOf(ws), 10, { cancel: true }, 'json')
    const r = cli(['run', 'PreToolUse', '--no-global', '--workspace', ws, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(1)
    const result = JSON.parse(r.stdout)
    expect(result.cancel).toBe(true)
    expect(result.hooks[0].stderr).toContain('json: checking')
    expect(r.stdout.startsWith('{')).toBe(true)

    const bad = cli(['run', 'PreToolUse', '--no-global', '--workspace', ws, '--timeout-ms', 'soon'])
    expect(bad.status).toBe(2)
    expect(bad.stdout).toBe('')
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1)
  }, 60000)
})

describe('cline-hooks run on a terminal: colour and live lines redrawn in place', () => {
  testUnix('the slow hook\'s live line is redrawn with its elapsed time and erased before the report; the hook\'s stderr stays escaped', () => {
    const { ws, global, slow } = twoHooks({ cancel: false }, { cancel: false })
    const r = spawnSync('python3', [PTY, '100', process.execPath, CLI, 'run', 'PreToolUse', '--workspace', ws, '--global-dir', global], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60000,
      env: { ...process.env, NO_COLOR: '' },
    })
    expect(r.status).toBe(0)
    const out = r.stdout
    // The CLI's own sequences: colour, and the live line erased (cursor up, clear below).
    expect(out).toContain('\x1b[33m⏱ running 2.')
    expect(out).toMatch(/\x1b\[1A\r\x1b\[J/)
    // Redrawn at least once with a later time before the hook ended (every 250 ms).
    const times = [...out.matchAll(/⏱ running (\d\.\d\d) s/g)].map((m) => Number(m[1]))
    expect(times.length).toBeGreaterThan(1)
    expect(Math.max(...times)).toBeGreaterThan(Math.min(...times))
    // Nothing of the hook's reached the terminal raw: once the CLI's colour codes and its
    // erase sequence are taken out, no control character is left but newlines and CRs the
    // pty adds.
    const visible = out.replace(/\x1b\[[0-9;]*m/g, '').replace(/\x1b\[1A\r\x1b\[J/g, '').replace(/\r\n/g, '\n')
    expect(visible).not.toMatch(DANGEROUS)
    expect(visible).toContain('│ slow: \\x1B]0;pwned\\x07\\x1B[2J\\u009B31m\\rover\\u202Eevil')
    // The live line was erased for good: the report follows, with the table.
    const afterLast = visible.slice(visible.lastIndexOf('⏱ running'))
    expect(afterLast).toMatch(/STATUS +DURATION +CANCEL +SOURCE +HOOK/)
    expect(visible).toContain(slow)
    expect(visible.slice(visible.lastIndexOf('─'))).toMatch(/2 hooks/)
  }, 60000)
})

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
