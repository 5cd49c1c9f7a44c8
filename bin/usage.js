'use strict'

// The `--help` text: synopses, commands and options from their tables, and the exit statuses
// from EXIT_TABLE (with what doctor's and init's mean).

const { OPTIONS } = require('./options')
const { EXIT_TABLE } = require('./exit-codes')
const { PROG } = require('./stdio')

function synopsis(name, COMMANDS) {
  const def = COMMANDS[name]
  const parts = [PROG, name]
  for (const p of def.positionals) parts.push(p.optional ? `[${p.name}]` : `<${p.name}>`)
  const done = new Set()
  for (const key of def.options) {
    if (done.has(key)) continue
    const spec = OPTIONS[key]
    const conflicting = (spec.conflicts || []).filter((k) => def.options.includes(k))
    const group = [key, ...conflicting]
    group.forEach((k) => done.add(k))
    const rendered = group.map((k) => (OPTIONS[k].arg ? `${OPTIONS[k].flag} ${OPTIONS[k].arg}` : OPTIONS[k].flag))
    parts.push(`[${rendered.join(' | ')}]${spec.repeat ? '...' : ''}`)
  }
  return parts.join(' ')
}

/** The help text; `knownHooks` are the addon's KNOWN_HOOKS. */
function usage(COMMANDS, knownHooks) {
  const lines = [`Usage:`]
  for (const name of Object.keys(COMMANDS)) lines.push(`  ${synopsis(name, COMMANDS)}`)
  lines.push('', 'Commands:')
  for (const [name, def] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(8)}${def.summary}`)
  lines.push('', 'Options:')
  const rows = Object.values(OPTIONS).map((spec) => {
    const names = [spec.alias, spec.flag].filter(Boolean).join(', ')
    return [spec.arg ? `${names} ${spec.arg}` : names, spec.help]
  })
  const width = Math.max(...rows.map((r) => r[0].length))
  for (const [left, right] of rows) lines.push(`  ${left.padEnd(width)}  ${right}`)
  lines.push('', 'Without a HookName, list shows every known hook: ' + knownHooks.join(', ') + '.', '', 'Exit status:')
  for (const [code, meaning] of EXIT_TABLE) lines.push(`  ${String(code).padStart(3)}  ${meaning}`)
  lines.push(
    '',
    'doctor exits 0 when every hook file found will run, 1 when one will not (or a folder cannot be read).',
    'enable exits 1, recording nothing, when the file would still not run (misnamed, Windows line endings, ...): it says why and the fix.',
    'init exits 0 once the hook is written, 1 when its file already exists (nothing is overwritten).',
  )
  lines.push(
    '',
    'Output: colour is used when stdout is a terminal and NO_COLOR is not set. Control characters',
    '(C0, DEL, C1) and bidi overrides in hook output, file names and paths are shown escaped (\\x1B,',
    '\\u009B, \\u202E); each line of a hook\'s text is indented under its label; on a terminal, long',
    'lines are wrapped with an indent. --json prints the exact result as JSON, with those characters',
    'written as \\u escapes (JSON.parse reads back the same strings).',
  )
  return lines.join('\n') + '\n'
}

module.exports = { usage, synopsis }
