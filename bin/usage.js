'use strict'

// The help texts, from the tables of commands and options: the overview (`--help`: synopses,
// commands, options, and the exit statuses from EXIT_TABLE with what each command's own mean) and
// one command's help (`<command> --help`, `help <command>`: its synopsis, arguments, options with
// their defaults, an example and its exit statuses).

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

/** `rows` of [left, right] as lines, the right column aligned. */
function columns(rows) {
  const width = Math.max(...rows.map((r) => r[0].length))
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`)
}

/** The option rows of `keys`; `command`: leave out the "<command>: " that says which command an option is for. */
function optionRows(keys, command) {
  return keys.map((key) => {
    const spec = OPTIONS[key]
    const names = [spec.alias, spec.flag].filter(Boolean).join(', ')
    const help = command && spec.help.startsWith(`${command}: `) ? spec.help.slice(command.length + 2) : spec.help
    return [spec.arg ? `${names} ${spec.arg}` : names, help]
  })
}

/** The sentence saying what the exit statuses of command `name` mean, or null. */
function exitsOf(name, def) {
  return def.exits ? `${name} ${def.exits}` : null
}

/** The overview; `knownHooks` are the addon's KNOWN_HOOKS. */
function usage(COMMANDS, knownHooks) {
  const lines = [`Usage:`]
  for (const name of Object.keys(COMMANDS)) lines.push(`  ${synopsis(name, COMMANDS)}`)
  lines.push('', 'Commands:')
  for (const [name, def] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(8)}${def.summary}`)
  lines.push(
    '',
    `${PROG} <command> --help (or ${PROG} help <command>) shows one command's options and an example; ${PROG} --version prints the version.`,
  )
  lines.push('', 'Options:', ...columns(optionRows(Object.keys(OPTIONS))))
  lines.push('', 'Without a HookName, list shows every known hook: ' + knownHooks.join(', ') + '.', '', 'Exit status:')
  for (const [code, meaning] of EXIT_TABLE) lines.push(`  ${String(code).padStart(3)}  ${meaning}`)
  lines.push('', ...Object.entries(COMMANDS).map(([name, def]) => exitsOf(name, def)).filter(Boolean))
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

/** The help of command `name`: what `cline-hooks <name> --help` prints. */
function commandUsage(name, COMMANDS, knownHooks) {
  const def = COMMANDS[name]
  const lines = [`Usage: ${synopsis(name, COMMANDS)}`, '', `${def.summary[0].toUpperCase()}${def.summary.slice(1)}.`]
  if (def.positionals.length > 0) {
    const rows = def.positionals.map((p) => {
      const known = p.name === 'HookName' ? `; one of: ${knownHooks.join(', ')}` : ''
      return [p.optional ? `[${p.name}]` : `<${p.name}>`, `${p.help}${known}`]
    })
    lines.push('', 'Arguments:', ...columns(rows))
  }
  lines.push('', 'Options:', ...columns(optionRows([...def.options, 'help'], name)))
  lines.push('', def.examples.length > 1 ? 'Examples:' : 'Example:')
  for (const [what, commandLine] of def.examples) lines.push(`  # ${what}`, `  ${commandLine}`)
  const exits = exitsOf(name, def)
  lines.push('', ...(exits ? [exits] : []), `Every exit status, and how output is shown: ${PROG} --help.`)
  return lines.join('\n') + '\n'
}

module.exports = { usage, commandUsage, synopsis }
