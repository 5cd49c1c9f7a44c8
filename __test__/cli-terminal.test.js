// Issue 18 item 5: terminal injection. An untrusted repository's hooks (their #! lines, stderr,
// context, errorMessage, failures, paths) must never reach the terminal as control characters,
// and must never print a line that passes for one of the CLI's own. Unit tests of the one
// escaping function and the line wrapper, then real runs of hostile hooks (in a pty for the
// wrapping); --json stays exact. The hostile hooks are node programs, so they run on both
// platforms; a #! line, bash and a pty are Unix's.
const { spawnSync } = require('child_process')
const fs = require('fs')
const path = require('path')
const {
  isWindows,
  testUnix,
  testIf,
  makeWorkspace,
  makeTempDir,
  hooksDirOf,
  writeFile,
  writeProgram,
  printJson,
  readInputThen,
  nodeSync,
} = require('./helpers')

const ROOT = path.join(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'cline-hooks.js')
const PTY = path.join(__dirname, 'fixtures', 'cli', 'pty-run.py')

// Everything a terminal may act on, and bidi controls that reorder what it shows. \n and \t are
// checked separately: the CLI's own layout uses newlines, and a hook's multi-line text keeps tabs.
// eslint-disable-next-line no-control-regex
const DANGEROUS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u

/** The C0 controls, DEL, C1 controls and bidi controls, as one string. */
function allControls() {
  let s = ''
  for (let c = 0; c < 0x20; c++) s += String.fromCharCode(c)
  s += '\u007f'
  for (let c = 0x80; c < 0xa0; c++) s += String.fromCharCode(c)
  for (let c = 0x202a; c <= 0x202e; c++) s += String.fromCharCode(c)
  for (let c = 0x2066; c <= 0x2069; c++) s += String.fromCharCode(c)
  return s + '\u2028\u2029'
}

// What a hostile hook prints: set the title, clear the screen, home the cursor, move up and erase
// lines, a C1 CSI, a right-to-left override, a carriage return over a line, then a fake verdict.
const ATTACK = '\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[1A\x1b[2K\u009b31m\u202eevil\u202c\rover\x7f'
const FAKE_VERDICT = '✔ allowed · 1 hook · total 1.0 ms'

// A file or folder name holding as much of the attack as the platform allows (Windows forbids
// U+0001-U+001F in names, not DEL, C1 or bidi controls), and how its start looks escaped.
const NAME_ATTACK = isWindows ? ATTACK.replace(/[\u0000-\u001f]/g, '') : ATTACK.replace(/\//g, '')
const NAME_ATTACK_SHOWN = isWindows ? ']0;pwned[2J[H[1A[2K\\u009B31m\\u202Eevil' : '\\x1B]0;pwned'

let cliExports
function lib() {
  if (!cliExports) cliExports = require('../bin/cline-hooks.js')
  return cliExports
}

describe('escapeTerminal (pure)', () => {
  test('every C0, DEL, C1 and bidi control, and U+2028/U+2029, is escaped; the result holds none of them', () => {
    const { escapeTerminal } = lib()
    const out = escapeTerminal(allControls())
    expect(out).not.toMatch(DANGEROUS)
    expect(out).not.toMatch(/[\n\t]/)
    expect(out.startsWith('\\x00\\x01\\x02')).toBe(true)
    expect(out).toContain('\\x08\\t\\n\\x0B\\x0C\\r\\x0E')
    expect(out).toContain('\\x1B\\x1C')
    expect(out).toContain('\\x1F\\x7F\\u0080\\u0081')
    expect(out).toContain('\\u009B')
    expect(out).toContain('\\u009F\\u202A\\u202B\\u202C\\u202D\\u202E\\u2066\\u2067\\u2068\\u2069\\u2028\\u2029')
  })

  test('each character is checked alone: every code point from U+0000 to U+FFFF comes out safe', () => {
    const { escapeTerminal } = lib()
    const wrong = []
    for (let c = 0; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue
      const ch = String.fromCharCode(c)
      const out = escapeTerminal(ch)
      const escaped = DANGEROUS.test(ch) || ch === '\n' || ch === '\t'
      if (escaped ? !/^\\(x[0-9A-F]{2}|u[0-9A-F]{4}|[ntr])$/.test(out) : out !== ch) wrong.push([c.toString(16), out])
    }
    expect(wrong).toEqual([])
  })

  test('printable text is left alone: ASCII, accents, CJK, emoji, backslashes, quotes', () => {
    const { escapeTerminal } = lib()
    const text = 'a-Z 0 ~ é ü 日本語 🎉 \\x1B "quoted" C:\\Users\\me ‎ok'
    expect(escapeTerminal(text)).toBe(text)
  })

  // Issue 18 (second attack, J): JSON.stringify writes DEL, C1, bidi controls and U+2028/9 raw.
  test('terminalSafeJson is the same JSON value as JSON.stringify, with nothing a terminal acts on', () => {
    const { terminalSafeJson } = lib()
    const value = {
      all: allControls(),
      [`key${ATTACK}`]: [ATTACK, `\\${'\u009b'}`, '\\u009b', '\ud83d lone', '日本語 🎉 é'],
      n: 1.5,
      ok: true,
      none: null,
    }
    const text = terminalSafeJson(value)
    expect(text).not.toMatch(DANGEROUS)
    expect(JSON.parse(text)).toEqual(value)
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
    expect(text).toContain('\\u009b31m\\u202eevil\\u202c')
    // Nothing else changes: with those escapes (not a literal backslash's text) turned back into
    // their characters, it is JSON.stringify's text.
    const unescaped = text.replace(/(?<!\\)((?:\\\\)*)\\u(007f|00[89][0-9a-f]|202[89a-e]|206[6-9])/g, (m, backslashes, hex) =>
      backslashes + String.fromCharCode(parseInt(hex, 16)),
    )
    expect(unescaped).toBe(JSON.stringify(value, null, 2))
  })

  test('multiline keeps newlines and tabs, turns CRLF into a newline and still escapes a lone CR', () => {
    const { escapeTerminal } = lib()
    expect(escapeTerminal('a\r\n\tb\rc\n\x1b[2Kd', { multiline: true })).toBe('a\n\tb\\rc\n\\x1B[2Kd')
    expect(escapeTerminal('a\r\n\tb')).toBe('a\\r\\n\\tb')
  })

  testUnix("shellQuote uses $'…' for control characters, and bash reads it back as the same argument", () => {
    const { shellQuote } = lib()
    const args = ['/usr/bin/env', "it's", 'sp ace', `x${ATTACK}\\y'z\n`]
    const quoted = args.map(shellQuote)
    expect(quoted[0]).toBe('/usr/bin/env')
    expect(quoted[1]).toBe(`'it'\\''s'`)
    expect(quoted[3].startsWith("$'x\\x1B]0;pwned\\x07")).toBe(true)
    for (const q of quoted) expect(q).not.toMatch(DANGEROUS)
    const r = spawnSync('bash', ['-c', `printf '%s\\0' ${quoted.join(' ')}`], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } })
    expect(r.stdout.split('\0').slice(0, -1)).toEqual(args)
  }, undefined, { reason: 'the quoting is read back by bash' })
})

describe('wrapLine (pure)', () => {
  const width = (s) => [...s.replace(/\x1b\[[0-9;]*m/g, '')].reduce((w, ch) => w + lib_maxColumns(ch), 0)
  const lib_maxColumns = (ch) => {
    const cp = ch.codePointAt(0)
    return cp >= 0x20 && cp < 0x7f ? 1 : cp === 9 ? 8 : 2
  }

  test('every piece fits the width, later pieces start with the indent, and nothing is lost', () => {
    const { wrapLine } = lib()
    const line = '  error     x' + ' '.repeat(147) + '✔ allowed · 日本語 \x1b[31mred\x1b[39m 🎉 end'
    for (const columns of [20, 40, 79, 80, 132]) {
      const pieces = wrapLine(line, columns, 12)
      expect(pieces.length).toBeGreaterThan(1)
      for (const p of pieces) expect(width(p)).toBeLessThanOrEqual(columns)
      pieces.slice(1).forEach((p) => expect(p.startsWith(' '.repeat(Math.min(12, columns / 2)))).toBe(true))
      const pad = Math.min(12, Math.floor(columns / 2))
      expect(pieces[0] + pieces.slice(1).map((p) => p.slice(pad)).join('')).toBe(line)
    }
  })

  test('a line that fits is one piece; a character wider than the row does not loop forever', () => {
    const { wrapLine, fitToWidth } = lib()
    expect(wrapLine('short', 80, 12)).toEqual(['short'])
    expect(wrapLine('日日日', 1, 12)).toEqual(['日', '日', '日'])
    expect(fitToWidth('a\nb', undefined, 12)).toBe('a\nb')
  })
})

describe('the rendered report (pure): no field lets a hook start a line of its own', () => {
  test('every hook-controlled field of a run result is escaped and indented', () => {
    const { renderRun, makeStyle, VALUE_COLUMN } = lib()
    const evil = `${ATTACK}\n${FAKE_VERDICT}`
    const hook = {
      hookName: `PreToolUse${ATTACK}`,
      path: `/repo/${ATTACK}\n${FAKE_VERDICT}/PreToolUse`,
      source: 'workspace',
      status: 'failed',
      cancel: true,
      contextModification: evil,
      errorMessage: evil,
      review: true,
      overrideInput: { cmd: evil },
      exitCode: null,
      signal: `SIGKILL${ATTACK}`,
      durationMs: 1,
      stderr: evil,
      failure: evil,
      warnings: [evil],
    }
    const result = {
      cancel: true,
      review: true,
      overrideInput: hook.overrideInput,
      hooks: [hook],
      slowest: hook,
      durationMs: 1,
      warnings: [evil],
    }
    for (const colour of [false, true]) {
      const text = renderRun(result, 'PreToolUse', 'somewhere', makeStyle(colour))
      const plain = text.replace(/\x1b\[[0-9;]*m/g, '')
      expect(plain).not.toMatch(DANGEROUS)
      const lines = plain.trimEnd().split('\n')
      expect(lines[lines.length - 1]).toMatch(/^✘ cancelled · 1 hook/)
      // The fake verdict exists only where a hook's text goes: in the value column, indented.
      for (const line of lines.filter((l) => l.includes(FAKE_VERDICT))) {
        expect(line.startsWith(' '.repeat(VALUE_COLUMN)) || !line.startsWith(FAKE_VERDICT)).toBe(true)
      }
      expect(lines.filter((l) => l.startsWith('✔') || l.startsWith('✘'))).toHaveLength(1)
    }
  })
})

describe('hostile hooks, run for real', () => {
  /** A workspace whose hooks attack the terminal. */
  function hostileWorkspace() {
    const ws = makeWorkspace()
    const dir = hooksDirOf(ws)
    // A #! line naming an interpreter that does not exist, full of escape sequences: discovery
    // quotes it in the hook's reason, which list prints. (Windows has no #! lines.)
    if (!isWindows) writeFile(dir, 'PostToolUse', `#!/nonexistent/${ATTACK}\n`, 0o755)
    const message = { cancel: true, errorMessage: `blocked\n${ATTACK}\n${FAKE_VERDICT}`, contextModification: `ctx${ATTACK}\n${FAKE_VERDICT}` }
    writeProgram(
      dir,
      'PreToolUse',
      `const msg = ${JSON.stringify(JSON.stringify(message))}\n` +
        `process.stderr.write(${JSON.stringify(`log ${ATTACK}\n\tindented\n${FAKE_VERDICT}\n`)})\n` +
        'process.stdout.write(msg + "\\n")\n',
    )
    // A "cancel" that is a string: the failure sentence quotes it.
    writeProgram(dir, 'TaskStart', readInputThen(printJson({ cancel: `\x1b[2J\u009b\n${FAKE_VERDICT.slice(0, 20)}` })))
    return ws
  }

  const cli = (args, opts = {}) =>
    nodeSync([CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60000, ...opts })

  testUnix('list prints the #! line of an untrusted hook escaped, never raw', () => {
    const ws = hostileWorkspace()
    const r = cli(['list', '--no-global', '--workspace', ws])
    expect(r.status).toBe(0)
    expect(r.stdout + r.stderr).not.toMatch(DANGEROUS)
    expect(r.stdout).toContain('/nonexistent/\\x1B]0;pwned\\x07\\x1B[2J\\x1B[H')
    expect(r.stdout).toContain('\\x1B[1A\\x1B[2K\\u009B31m\\u202Eevil\\u202C')
  }, undefined, { reason: '#! lines are a Unix rule' })

  test("run prints the hooks' stderr, context, errorMessage, failure and (no verdict) stdout escaped, each line indented", () => {
    const ws = hostileWorkspace()
    for (const name of ['PreToolUse', 'TaskStart']) {
      const r = cli(['run', name, '--no-global', '--workspace', ws])
      expect(r.stdout + r.stderr).not.toMatch(DANGEROUS)
      const lines = r.stdout.trimEnd().split('\n')
      // Only the CLI's own lines start at column 0 or 2: the forged verdict is indented.
      for (const line of lines.filter((l) => l.includes(FAKE_VERDICT))) expect(line).toMatch(/^ {12}/)
      expect(lines.filter((l) => /^[✔✘]/.test(l))).toHaveLength(1)
      expect(lines[lines.length - 1]).toMatch(name === 'PreToolUse' ? /^✘ cancelled · 1 hook/ : /^✔ allowed \(1 of 1 hook did not complete/)
    }
    const pre = cli(['run', 'PreToolUse', '--no-global', '--workspace', ws]).stdout
    expect(pre).toMatch(/^ {2}error {5}blocked$/m)
    expect(pre).toContain('\\x1B]0;pwned\\x07')
    expect(pre).toMatch(/│ \tindented/) // a tab in stderr stays a tab
    expect(pre).toMatch(/^ {2}stderr {4}│ log \\x1B\]0;pwned/m)
    const task = cli(['run', 'TaskStart', '--no-global', '--workspace', ws]).stdout
    expect(task).toMatch(/^ {2}failure {3}.*the string "\\x1B\[2J\\u009B\\n✔ allowed/m)
    // It failed, so what it printed is shown: the raw C1 CSI its JSON text holds escaped.
    expect(task).toMatch(/^ {2}stdout {4}│ \{"cancel":"\\u001b\[2J\\u009B\\n✔ allowed/m)
  })

  test('paths and warnings are escaped too: a workspace folder whose name holds escape sequences', () => {
    const parent = makeTempDir()
    const ws = path.join(parent, `ws${NAME_ATTACK}`)
    fs.mkdirSync(ws)
    writeProgram(hooksDirOf(ws), 'PreToolUse', readInputThen(printJson({ cancel: true })))
    const missing = path.join(parent, `gone${NAME_ATTACK}`)
    for (const args of [
      ['list', '--no-global', '--workspace', ws, '--workspace', missing],
      ['run', 'PreToolUse', '--no-global', '--workspace', ws, '--workspace', missing],
    ]) {
      const r = cli(args)
      expect(r.stdout).toContain(`ws${NAME_ATTACK_SHOWN}`)
      expect(r.stderr).toContain(`gone${NAME_ATTACK_SHOWN}`)
      expect(r.stdout + r.stderr).not.toMatch(DANGEROUS)
    }
  })

  test('messages about the input are escaped: a bad JSON snippet, a hookName, a file name', () => {
    const dir = makeTempDir()
    const bad = path.join(dir, `in${NAME_ATTACK}.json`)
    fs.writeFileSync(bad, `{"a": ${ATTACK}}`)
    const r1 = cli(['run', 'TaskStart', '--no-global', '--input', bad])
    expect(r1.status).toBe(2)
    expect(r1.stderr).not.toMatch(DANGEROUS)
    expect(r1.stderr.trimEnd().split('\n')).toHaveLength(1)
    const r2 = cli(['run', 'TaskStart', '--no-global', '--input', '-'], { input: JSON.stringify({ hookName: `X${ATTACK}\n${FAKE_VERDICT}` }) })
    expect(r2.status).toBe(0)
    expect(r2.stderr).toContain('warning: the input says hookName "X\\x1B]0;pwned')
    expect(r2.stderr).not.toMatch(DANGEROUS)
    expect(r2.stderr.trimEnd().split('\n')).toHaveLength(1)
    const r3 = cli([`--bogus${ATTACK}`])
    expect(r3.status).toBe(2)
    expect(r3.stderr).not.toMatch(DANGEROUS)
  })

  test('--json stays exact: the strings come back byte for byte after JSON.parse', () => {
    const ws = hostileWorkspace()
    const r = cli(['run', 'PreToolUse', '--no-global', '--workspace', ws, '--json'])
    expect(r.status).toBe(1)
    const result = JSON.parse(r.stdout)
    expect(result.hooks[0].errorMessage).toBe(`blocked\n${ATTACK}\n${FAKE_VERDICT}`)
    expect(result.hooks[0].stderr).toBe(`log ${ATTACK}\n\tindented\n${FAKE_VERDICT}\n`)
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/) // JSON escapes C0 (the newlines are its own layout)
  })

  // Issue 18 (second attack, J): before, DEL, the C1 CSI U+009B and the bidi override reached
  // stdout raw, since JSON.stringify does not escape them.
  test('--json writes DEL, C1, bidi controls and U+2028/U+2029 as \\u escapes, piped or not; JSON.parse reads the same strings', () => {
    const ws = hostileWorkspace()
    for (const name of ['PreToolUse', 'TaskStart']) {
      const r = cli(['run', name, '--no-global', '--workspace', ws, '--json'])
      expect(r.stdout).not.toMatch(DANGEROUS)
      expect(r.stdout.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f]/)
      const result = JSON.parse(r.stdout)
      if (name === 'PreToolUse') {
        expect(r.stdout).toContain('\\u009b31m\\u202eevil\\u202c\\rover\\u007f')
        expect(result.hooks[0].errorMessage).toBe(`blocked\n${ATTACK}\n${FAKE_VERDICT}`)
        expect(result.contextModification).toContain(`ctx${ATTACK}\n${FAKE_VERDICT}`)
      } else {
        expect(result.hooks[0].failure).toContain('\x1b[2J\u009b\n')
      }
    }
  })

  testIf(
    !isWindows && spawnSync('python3', ['-c', 'import pty']).status === 0,
    isWindows ? 'a pty (python3 pty module) is a Unix device' : 'python3 with the pty module is not installed',
    'on a terminal, a long line is wrapped before the edge, so a hook cannot push text to column 0',
    () => {
      const ws = makeWorkspace()
      // "  error     x" is 13 columns; 147 spaces put the fake verdict at column 0 of the third
      // row of an 80-column terminal that wraps on its own.
      const message = { cancel: true, errorMessage: `x${' '.repeat(147)}${FAKE_VERDICT}` }
      writeProgram(hooksDirOf(ws), 'PreToolUse', readInputThen(printJson(message)))
      const r = spawnSync('python3', [PTY, '80', process.execPath, CLI, 'run', 'PreToolUse', '--no-global', '--workspace', ws], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30000,
        env: { ...process.env, NO_COLOR: '1' },
      })
      expect(r.status).toBe(1)
      // What an 80-column terminal shows: every line cut into rows of 80 characters (the CLI's
      // box-drawing and check marks are one column wide on a terminal).
      const rows = []
      for (const line of r.stdout.replace(/\r\n/g, '\n').split('\n')) {
        const chars = [...line]
        for (let i = 0; i === 0 || i < chars.length; i += 80) rows.push(chars.slice(i, i + 80).join(''))
      }
      const verdictRows = rows.filter((row) => /^[✔✘]/.test(row))
      expect(verdictRows).toHaveLength(1)
      expect(verdictRows[0]).toMatch(/^✘ cancelled/)
      expect(rows.some((row) => row.trim().startsWith(FAKE_VERDICT.slice(0, 9)))).toBe(true)
    },
  )
})
