'use strict'

// Building blocks of the human-readable output: colours, column padding, shell quoting, paths,
// durations, and clipping long multi-line text. Everything that may carry outside text goes
// through escapeTerminal here or in the caller before it is styled.

const path = require('path')
const { escapeTerminal, needsEscape } = require('./terminal-text')

function makeStyle(enabled) {
  const wrap = (open, close) => (s) => (enabled ? `\x1b[${open}m${s}\x1b[${close}m` : String(s))
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  }
}

/** Colour when stdout is a terminal that is not `TERM=dumb` and NO_COLOR (https://no-color.org) is unset or empty. */
function useColour() {
  return smartTerminal() && !process.env.NO_COLOR
}

// The CLI's own colour codes; outside text cannot contain an ESC once escaped.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g
const visibleLength = (s) => s.replace(ANSI, '').length
const pad = (s, width) => s + ' '.repeat(Math.max(0, width - visibleLength(s)))

/**
 * One argv element as you would type it in a POSIX shell: bare when safe, else in single quotes,
 * or as bash's $'…' when it holds a control character, so the terminal never sees the raw byte
 * and the text still pastes back as the same argument.
 */
function shellQuote(arg) {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg
  if (needsEscape(arg)) return `$'${escapeTerminal(arg.replace(/\\/g, '\\\\').replace(/'/g, "\\'"))}'`
  return `'${arg.replace(/'/g, `'\\''`)}'`
}

/** A path relative to the current directory when it lies below it, else the path; escaped. */
/** Whether `p` is `dir` or inside it (by the names, as given: resolve links first where they matter). */
function isInside(dir, p) {
  const rel = path.relative(dir, p)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

function displayPath(p) {
  const rel = path.relative(process.cwd(), p)
  return escapeTerminal(rel && isInside(process.cwd(), p) ? rel : p)
}

function formatMs(ms) {
  if (ms >= 10000) return `${(ms / 1000).toFixed(1)} s`
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`
  if (ms >= 10) return `${Math.round(ms)} ms`
  return `${ms.toFixed(1)} ms`
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * The lines of outside `text`, escaped (newlines split it, tabs stay), at most `maxLines` of them
 * (the first or the last ones), with a note saying what was left out (and, for the first ones,
 * `more`: where to see the rest). `lines` instead of `text`: lines already escaped.
 */
function clip(text, { lines = escapeTerminal(text.replace(/\s+$/, ''), { multiline: true }).split('\n'), maxLines, fromEnd, what, more = '(see --json)' }) {
  if (lines.length <= maxLines) return { lines, note: null }
  const left = lines.length - maxLines
  return fromEnd
    ? { lines: lines.slice(-maxLines), note: `… ${plural(left, 'earlier line')} of ${what} not shown` }
    : { lines: lines.slice(0, maxLines), note: `… ${plural(left, 'more line')} of ${what} ${more}` }
}

/** A terminal that can move the cursor and colour: stdout is one, and not `TERM=dumb` (Emacs shell mode). */
function smartTerminal() {
  return Boolean(process.stdout.isTTY) && process.env.TERM !== 'dumb'
}

module.exports = { makeStyle, useColour, smartTerminal, visibleLength, pad, shellQuote, isInside, displayPath, formatMs, plural, clip }
