'use strict'

// What `cline-hooks run` shows while the hooks run, from the addon's live events (onEvent):
// each hook's stderr as it comes, under a line naming the hook, and, once a hook passes the
// slow threshold, a line saying it is still running. On a terminal those lines stay at the
// bottom and their elapsed time is redrawn in place; elsewhere each is printed once, plainly.
// Everything a hook controls is escaped and indented to the value column, as in the report.

const { escapeTerminal, fitToWidth, wrapLine } = require('./terminal-text')
const { displayPath, formatMs } = require('./format')

// The addon's line in place of a hook's output past its limit (see HookEvent.line).
const TRUNCATED_LINE = "[truncated: the rest of this hook's output is not sent as events]"
const LABEL_WIDTH = 9
const REDRAW_MS = 250

/** The shown identity of a hook: its name, file and source, escaped. */
function hookTitle(e) {
  return `${escapeTerminal(e.hookName)} ❯ ${displayPath(e.path)} (${escapeTerminal(e.source)})`
}

class LiveView {
  /**
   * `write(text)` puts text on the terminal (or pipe) in order; `tty`: redraw in place,
   * `columns` wide; `st`: the report's styles.
   */
  constructor({ write, tty, columns, st, valueColumn }) {
    this.write = write
    this.tty = tty
    this.columns = columns > 0 ? columns : 80
    this.st = st
    this.valueColumn = valueColumn
    /** Running hooks by path: { event, origin (Date.now() when its turn began), slow }. */
    this.running = new Map()
    /** Paths whose every stderr line was shown (none cut short by the event limit). */
    this.shown = new Set()
    this.truncated = new Set()
    /** The hook whose line was shown last: another hook's line gets its own heading. */
    this.speaker = null
    this.liveRows = 0
    this.timer = null
    /** Whether anything was printed (the report then starts after a blank line). */
    this.printed = false
    this.onEvent = (e) => this.take(e)
  }

  take(e) {
    const origin = Date.now() - (e.elapsedMs || 0)
    switch (e.type) {
      case 'start':
        this.running.set(e.path, { event: e, origin, slow: (this.running.get(e.path) || {}).slow || false })
        break
      case 'slow': {
        const hook = this.running.get(e.path) || { event: e, origin }
        hook.slow = true
        this.running.set(e.path, hook)
        if (this.tty) this.redraw()
        else this.print(`⏱ ${hookTitle(e)} still running after ${formatMs(e.elapsedMs)}`)
        break
      }
      case 'stdout':
      case 'stderr':
        this.line(e)
        break
      case 'end':
        this.running.delete(e.path)
        if (this.tty) this.redraw()
        break
      default:
    }
  }

  line(e) {
    if (e.line === TRUNCATED_LINE) {
      if (this.truncated.has(e.path)) return
      this.truncated.add(e.path)
      this.shown.delete(e.path)
      this.heading(e)
      this.print(`  ${''.padEnd(LABEL_WIDTH)} ${this.st.dim('… more output than is shown live; the end of its stderr is in the report below')}`)
      return
    }
    if (e.type !== 'stderr' || this.truncated.has(e.path)) return
    const first = this.heading(e)
    if (!this.truncated.has(e.path)) this.shown.add(e.path)
    const label = first ? 'stderr' : ''
    this.print(`  ${this.st.dim(label.padEnd(LABEL_WIDTH))} ${this.st.dim('│')} ${escapeTerminal(e.line, { multiline: true })}`)
  }

  /** Names the hook before its lines when another hook spoke last; whether it did. */
  heading(e) {
    if (this.speaker === e.path) return false
    this.speaker = e.path
    this.print(`${this.st.cyan('▸')} ${hookTitle(e)}`)
    return true
  }

  /** A line of its own, above the live lines. */
  print(text) {
    this.printed = true
    if (!this.tty) {
      this.write(`${text}\n`)
      return
    }
    const clear = this.clearing()
    this.liveRows = 0
    this.write(`${clear}${fitToWidth(text, this.columns, this.valueColumn)}\n${this.liveText()}`)
  }

  /** The escape sequence that erases the live lines drawn last (the cursor is below them). */
  clearing() {
    return this.liveRows > 0 ? `\x1b[${this.liveRows}A\r\x1b[J` : ''
  }

  /** The live lines: one per slow hook still running, each cut to one row. */
  liveText() {
    const now = Date.now()
    const rows = []
    for (const { event, origin, slow } of this.running.values()) {
      if (!slow) continue
      // The time first: a narrow terminal cuts the end of the row.
      const text = `${this.st.yellow(`⏱ running ${formatMs(now - origin)}`)} ${hookTitle(event)} ${this.st.dim('· Ctrl-C stops it')}`
      rows.push(wrapLine(text, this.columns - 1, 0)[0] + (this.st.enabled ? '\x1b[0m' : ''))
    }
    this.liveRows = rows.length
    if (rows.length > 0 && this.timer === null) {
      this.timer = setInterval(() => this.redraw(), REDRAW_MS)
      this.timer.unref()
    } else if (rows.length === 0 && this.timer !== null) {
      clearInterval(this.timer)
      this.timer = null
    }
    return rows.map((r) => `${r}\n`).join('')
  }

  redraw() {
    const clear = this.clearing()
    const live = this.liveText()
    if (clear || live) this.write(clear + live)
  }

  /** Erases the live lines and stops redrawing: the report comes next. */
  finish() {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    this.running.clear()
    if (this.tty && this.liveRows > 0) this.write(this.clearing())
    this.liveRows = 0
  }
}

module.exports = { LiveView, TRUNCATED_LINE }
