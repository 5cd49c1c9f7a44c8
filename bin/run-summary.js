'use strict'

// The table that ends `cline-hooks run`'s report: one row per hook that ran (status, duration,
// cancel, source, the hook file), the slowest marked. The file, the only text a hook's folder
// controls, comes last and escaped, so no row can start with it.

const { pad, displayPath, formatMs } = require('./format')

const STATUS_STYLE = { completed: 'green', failed: 'red', timedOut: 'yellow', aborted: 'red', started: 'cyan' }

/** The table's lines (none when no hook ran). */
function summaryTable(result, st) {
  const hooks = result.hooks || []
  if (hooks.length === 0) return []
  const header = ['STATUS', 'DURATION', 'CANCEL', 'SOURCE', 'HOOK']
  const rows = hooks.map((h) => {
    const colour = st[STATUS_STYLE[h.status]] || ((s) => s)
    const marked = hooks.length > 1 && h === result.slowest ? `  ${st.yellow('◀ slowest')}` : ''
    return [colour(h.status), formatMs(h.durationMs), h.cancel ? st.red('true') : 'false', h.source, displayPath(h.path) + marked]
  })
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((r) => r[i].replace(/\x1b\[[0-9;]*m/g, '').length)))
  const line = (cells) => `  ${cells.map((c, i) => (i === cells.length - 1 ? c : i === 1 ? ' '.repeat(widths[i] - c.length) + c : pad(c, widths[i]))).join('  ')}`
  return [st.dim(line(header)), ...rows.map(line)]
}

module.exports = { summaryTable }
