'use strict'

// Text from outside the CLI (hook output, file names, paths, the addon's messages) made safe for
// a terminal, and lines hard-wrapped so that none of it can start a line where the CLI's own
// lines start. Pure functions only: no I/O, no globals.

/**
 * Escapes every character that can steer a terminal or fake the layout of the CLI's output:
 * C0 controls (U+0000–U+001F), DEL (U+007F), C1 controls (U+0080–U+009F, CSI and OSC among them),
 * the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069: they reorder what
 * is shown) and the Unicode line and paragraph separators (U+2028, U+2029).
 *
 * `\n`, `\t` and `\r` become those two-character escapes; other C0 controls and DEL become
 * `\xHH`; the rest `\uHHHH` (the same spelling bash's `$'…'` reads). With `multiline`, a newline
 * (or CRLF) stays a newline and a tab stays a tab: the caller prints every line indented under
 * its label, so a newline cannot start a line of the CLI's own, and a tab only moves right. A lone
 * `\r` is always escaped: it would move back over what is already on the line. Backslashes are
 * left alone, so `\x1B` on screen is either an escaped ESC or those four characters; `--json`
 * tells them apart.
 */
function escapeTerminal(text, { multiline = false } = {}) {
  let s = String(text)
  if (multiline) s = s.replace(/\r\n/g, '\n')
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g, (c) => {
    if (multiline && (c === '\n' || c === '\t')) return c
    if (c === '\n') return '\\n'
    if (c === '\t') return '\\t'
    if (c === '\r') return '\\r'
    const code = c.charCodeAt(0)
    const hex = code.toString(16).toUpperCase()
    return code < 0x80 ? `\\x${hex.padStart(2, '0')}` : `\\u${hex.padStart(4, '0')}`
  })
}

/**
 * A file's text as escaped lines for review before it is approved (the trust preview): what
 * escapeTerminal escapes, and also what a shell or interpreter reads but a terminal does not
 * show, each written as an escape where it is:
 * - a carriage return anywhere (`sh` reads a heredoc terminator `A\r` as another word than `A`);
 * - Unicode format characters (zero-width spaces and joiners, bidi marks, a byte order mark, tag
 *   characters), spaces other than U+0020 (a shell splits no words at a no-break space) and the
 *   Hangul fillers (blank letters in JavaScript names);
 * - spaces and tabs at the end of a line (`A ` does not end a heredoc either).
 * The one exception: when every line ends with CR LF and there is no other CR (Windows line
 * endings), those CRs are left out and `crlf` is true, for the caller to say once.
 */
function reviewLines(text) {
  let s = String(text)
  const count = (re) => (s.match(re) || []).length
  const crlf = count(/\r\n/g) > 0 && count(/\r\n/g) === count(/\n/g) && count(/\r\n/g) === count(/\r/g)
  if (crlf) s = s.replace(/\r\n/g, '\n')
  const lines = s.split('\n')
  if (s.endsWith('\n')) lines.pop() // the last line's newline starts no line
  return {
    crlf,
    lines: lines.map((line) =>
      escapeTerminal(line, { multiline: true })
        .replace(/(?! )[\p{Cf}\p{Zs}\u115f\u1160\u3164\uffa0]/gu, (c) => {
          const hex = c.codePointAt(0).toString(16).toUpperCase()
          return hex.length <= 4 ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`
        })
        .replace(/[ \t]+$/, (tail) => tail.replace(/ /g, '\\x20').replace(/\t/g, '\\t')),
    ),
  }
}

/**
 * `value` as JSON text (two-space indent) that is the same JSON value as JSON.stringify's (JSON.parse
 * gives back exactly the same), with every character a terminal may act on written as a `\uXXXX`
 * escape. JSON.stringify escapes C0 controls but writes DEL, C1 controls (U+009B is a CSI), the
 * bidi controls and U+2028/U+2029 raw; those can only occur inside JSON strings, where the escape
 * stands for the character itself. Always, not only on a terminal: `--json` piped to a pager or
 * `cat` reaches a terminal too.
 */
function terminalSafeJson(value) {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** Whether `escapeTerminal` would change `text` (a newline or a tab counts). */
function needsEscape(text) {
  return escapeTerminal(text) !== String(text)
}

// The CLI's own colour codes: the only escape sequences left in text that went through
// escapeTerminal (which turns every ESC into `\x1B`).
// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/y

/**
 * The most columns a terminal may give one code point: 1 for printable ASCII, 8 for a tab (a full
 * tab stop), 2 for everything else (wide East Asian characters and emoji take 2; counting 2 for
 * narrow ones only wraps a line early). An upper bound, never an underestimate: a line we think
 * fits then really fits, so the terminal never wraps it on its own.
 */
function maxColumns(codePoint) {
  if (codePoint >= 0x20 && codePoint < 0x7f) return 1
  if (codePoint === 0x09) return 8
  return 2
}

/**
 * Cuts one line (no newline in it; escaped, plus the CLI's colour codes) into pieces that each
 * fit in `columns`, the second and later ones indented by `indent` spaces. A terminal wraps an
 * over-long line at column 0, where a hook's text could then pass for a line of the CLI's own;
 * these pieces never reach the edge, so every row that starts at column 0 is one the CLI started.
 */
function wrapLine(line, columns, indent) {
  const pad = Math.max(0, Math.min(indent, Math.floor(columns / 2)))
  const pieces = []
  let piece = ''
  let width = 0
  let empty = true // nothing but the indent in `piece` yet: a character wider than a row still goes in
  let i = 0
  while (i < line.length) {
    SGR.lastIndex = i
    const sgr = SGR.exec(line)
    if (sgr) {
      piece += sgr[0]
      i += sgr[0].length
      continue
    }
    const cp = line.codePointAt(i)
    const ch = String.fromCodePoint(cp)
    const w = maxColumns(cp)
    if (width + w > columns && !empty) {
      pieces.push(piece)
      piece = ' '.repeat(pad)
      width = pad
    }
    piece += ch
    width += w
    empty = false
    i += ch.length
  }
  pieces.push(piece)
  return pieces
}

/** Every line of `text` wrapped by `wrapLine`; `columns` not a positive number: `text` as is. */
function fitToWidth(text, columns, indent) {
  if (!(columns > 0)) return text
  return text
    .split('\n')
    .map((line) => wrapLine(line, columns, indent).join('\n'))
    .join('\n')
}

module.exports = { escapeTerminal, reviewLines, needsEscape, terminalSafeJson, wrapLine, fitToWidth, maxColumns }
