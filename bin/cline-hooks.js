#!/usr/bin/env node
'use strict'

// cline-hooks: a small CLI for hook authors over @cline/hooks.
//
//   cline-hooks list [options] [HookName]     every hook found, enabled or why not, and its argv
//   cline-hooks run <HookName> [options]      run the hooks exactly as Cline would and show what they did
//
// The option parser is table driven: an option is one entry in OPTIONS plus its name in the
// `options` list of the commands that take it. `discoveryOptions()` is the one place that turns
// parsed flags into the addon's DiscoveryOptions, so a new discovery flag (for example a future
// `--profile`) touches OPTIONS, COMMANDS and that function only.

const fs = require('fs')
const path = require('path')

const PROG = 'cline-hooks'

// ---------------------------------------------------------------------------------------------
// Errors and exit codes

const EXIT_OK = 0
const EXIT_CANCEL = 1
const EXIT_USAGE = 2
const EXIT_SIGINT = 130
const EXIT_SIGTERM = 143

/** A mistake in how the CLI was called: exit 2 with a one-line hint. */
class UsageError extends Error {
  constructor(message, { hint = true } = {}) {
    super(message)
    this.hint = hint
  }
}

// ---------------------------------------------------------------------------------------------
// Options

function parseTimeout(value, flag) {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} wants a whole number of milliseconds, not '${value}'`)
  const n = Number(value)
  if (n < 1 || n > 86400000) throw new UsageError(`${flag} must be between 1 and 86400000 milliseconds (a day), not ${value}`)
  return n
}

function parseProfile(value, flag) {
  if (value !== 'extension' && value !== 'cli') throw new UsageError(`${flag} is 'extension' or 'cli', not '${value}'`)
  return value
}

function nonEmpty(value, flag) {
  if (value === '') throw new UsageError(`${flag} wants a non-empty value`)
  return value
}

/**
 * Every option the CLI knows. `arg`: the value's placeholder (absent for a boolean flag).
 * `repeat`: may be given more than once (values are collected in order). `parse`: turns the
 * string into the stored value or throws a UsageError. `conflicts`: options that cannot be
 * combined with this one.
 */
const OPTIONS = {
  workspace: {
    flag: '--workspace',
    arg: 'DIR',
    repeat: true,
    parse: nonEmpty,
    help: 'a workspace root; its .clinerules/hooks is searched (repeatable, in order; default: the current directory)',
  },
  'global-dir': {
    flag: '--global-dir',
    arg: 'DIR',
    parse: nonEmpty,
    conflicts: ['no-global'],
    help: 'the global hooks folder (default: Documents/Cline/Hooks)',
  },
  'no-global': {
    flag: '--no-global',
    conflicts: ['global-dir'],
    help: 'do not look in a global hooks folder',
  },
  'hooks-dir': {
    flag: '--hooks-dir',
    arg: 'DIR',
    repeat: true,
    parse: nonEmpty,
    help: 'another hooks folder, searched first (repeatable)',
  },
  profile: {
    flag: '--profile',
    arg: 'extension|cli',
    parse: parseProfile,
    help: "whose conventions: extension (default) or cli (the Cline CLI's: also ~/.cline/hooks and .cline/hooks, files with extensions run by their interpreter, event names such as tool_call)",
  },
  input: {
    flag: '--input',
    arg: 'FILE|-',
    parse: nonEmpty,
    help: "a JSON file with the hook's input, or - for stdin (default: {}; the common fields are filled in)",
  },
  'timeout-ms': {
    flag: '--timeout-ms',
    arg: 'N',
    parse: parseTimeout,
    help: 'per-hook timeout in milliseconds (default: 30000)',
  },
  sequential: {
    flag: '--sequential',
    help: 'run the hooks one after another instead of together',
  },
  json: {
    flag: '--json',
    help: 'print the raw HookRunResult as JSON',
  },
  help: {
    flag: '--help',
    alias: '-h',
    help: 'show this help',
  },
}

const DISCOVERY_OPTIONS = ['workspace', 'global-dir', 'no-global', 'hooks-dir', 'profile']

const COMMANDS = {
  list: {
    summary: 'show every hook found, enabled or why not, its source and its argv',
    positionals: [{ name: 'HookName', optional: true }],
    options: [...DISCOVERY_OPTIONS],
    main: cmdList,
  },
  run: {
    summary: 'run the hooks exactly as Cline would and show what each one did',
    positionals: [{ name: 'HookName' }],
    options: [...DISCOVERY_OPTIONS, 'input', 'timeout-ms', 'sequential', 'json'],
    main: cmdRun,
  },
}

const FLAG_TO_KEY = new Map()
for (const [key, spec] of Object.entries(OPTIONS)) {
  FLAG_TO_KEY.set(spec.flag, key)
  if (spec.alias) FLAG_TO_KEY.set(spec.alias, key)
}

/**
 * Parses `argv` (without node and the script) into `{ command, positionals, opts }`.
 * `opts` is keyed by OPTIONS key; repeatable options hold arrays, flags hold `true`.
 * Throws UsageError on anything it does not understand.
 */
function parseArgs(argv) {
  const positionals = []
  const opts = {}
  let command = null
  let onlyPositionals = false

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]
    if (onlyPositionals || token === '-' || !token.startsWith('-')) {
      if (command === null && !onlyPositionals) {
        if (token === 'help') {
          opts.help = true
          continue
        }
        if (!Object.prototype.hasOwnProperty.call(COMMANDS, token)) {
          throw new UsageError(`unknown command '${token}'`)
        }
        command = token
      } else {
        positionals.push(token)
      }
      continue
    }
    if (token === '--') {
      onlyPositionals = true
      continue
    }

    const eq = token.startsWith('--') ? token.indexOf('=') : -1
    const flag = eq === -1 ? token : token.slice(0, eq)
    const key = FLAG_TO_KEY.get(flag)
    if (key === undefined) throw new UsageError(`unknown option ${flag}`)
    const spec = OPTIONS[key]

    let value = true
    if (spec.arg) {
      if (eq !== -1) {
        value = token.slice(eq + 1)
      } else {
        const next = argv[i + 1]
        const looksLikeFlag = next !== undefined && (next.startsWith('--') || FLAG_TO_KEY.has(next))
        if (next === undefined || looksLikeFlag) {
          throw new UsageError(`option ${flag} needs a value (${spec.arg})`)
        }
        value = next
        i++
      }
      value = spec.parse ? spec.parse(value, flag) : value
    } else if (eq !== -1) {
      throw new UsageError(`option ${flag} takes no value`)
    }

    if (spec.repeat) {
      ;(opts[key] = opts[key] || []).push(value)
    } else {
      if (key in opts && key !== 'help') throw new UsageError(`option ${flag} was given more than once`)
      opts[key] = value
    }
  }

  if (opts.help) return { command, positionals, opts }
  if (command === null) throw new UsageError('missing command: list or run')

  const def = COMMANDS[command]
  for (const key of Object.keys(opts)) {
    if (key !== 'help' && !def.options.includes(key)) {
      throw new UsageError(`option ${OPTIONS[key].flag} does not apply to '${command}'`)
    }
    for (const other of OPTIONS[key].conflicts || []) {
      if (other in opts) throw new UsageError(`${OPTIONS[key].flag} and ${OPTIONS[other].flag} cannot be combined`)
    }
  }
  const required = def.positionals.filter((p) => !p.optional).length
  if (positionals.length < required) {
    throw new UsageError(`'${command}' needs a ${def.positionals[positionals.length].name}, for example PreToolUse`)
  }
  if (positionals.length > def.positionals.length) {
    throw new UsageError(`unexpected argument '${positionals[def.positionals.length]}'`)
  }
  return { command, positionals, opts }
}

function synopsis(name) {
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

function usage() {
  const lines = [`Usage:`]
  for (const name of Object.keys(COMMANDS)) lines.push(`  ${synopsis(name)}`)
  lines.push('', 'Commands:')
  for (const [name, def] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(6)}${def.summary}`)
  lines.push('', 'Options:')
  const rows = Object.values(OPTIONS).map((spec) => {
    const names = [spec.alias, spec.flag].filter(Boolean).join(', ')
    return [spec.arg ? `${names} ${spec.arg}` : names, spec.help]
  })
  const width = Math.max(...rows.map((r) => r[0].length))
  for (const [left, right] of rows) lines.push(`  ${left.padEnd(width)}  ${right}`)
  lines.push(
    '',
    'Without a HookName, list shows every known hook: ' + hooksLib().KNOWN_HOOKS.join(', ') + '.',
    '',
    'Exit status: 0 ok; 1 the hooks cancelled the operation; 2 usage or input error; 130 interrupted.',
    'Colour is used when stdout is a terminal and NO_COLOR is not set.',
  )
  return lines.join('\n') + '\n'
}

// ---------------------------------------------------------------------------------------------
// The addon (loaded lazily so that usage errors never depend on the native binary)

let lib = null
function hooksLib() {
  if (lib === null) lib = require('../index.js')
  return lib
}

/** Parsed flags → the addon's DiscoveryOptions. */
function discoveryOptions(opts) {
  const workspaces = opts.workspace && opts.workspace.length > 0 ? opts.workspace : ['.']
  const out = { workspaceRoots: workspaces.map((w) => path.resolve(w)) }
  if (opts['no-global']) out.globalHooksDir = null
  else if (opts['global-dir'] !== undefined) out.globalHooksDir = path.resolve(opts['global-dir'])
  if (opts['hooks-dir']) out.extraHooksDirs = opts['hooks-dir'].map((d) => path.resolve(d))
  if (opts.profile) out.profile = opts.profile
  return out
}

/** Warn (on stderr) about folders the user named that do not exist: most likely a typo. */
function warnMissingDirs(opts) {
  const named = [
    ...(opts.workspace || []).map((d) => ['--workspace', d]),
    ...(opts['hooks-dir'] || []).map((d) => ['--hooks-dir', d]),
    ...(opts['global-dir'] !== undefined ? [['--global-dir', opts['global-dir']]] : []),
  ]
  for (const [flag, dir] of named) {
    let ok = false
    try {
      ok = fs.statSync(dir).isDirectory()
    } catch (_) {}
    if (!ok) process.stderr.write(`${PROG}: warning: ${flag} ${dir}: no such directory\n`)
  }
}

/** Rejects early with a usage error when the addon says the hook name is invalid. */
async function checkHookName(name) {
  try {
    await hooksLib().discoverHooks(name, { workspaceRoots: [], globalHooksDir: null })
  } catch (e) {
    if (e && e.code === 'ERR_INVALID_HOOK_NAME') throw new UsageError(e.message)
    throw e
  }
}

// ---------------------------------------------------------------------------------------------
// Output helpers

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

function useColour() {
  // https://no-color.org: NO_COLOR present and non-empty disables colour.
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g
const visibleLength = (s) => s.replace(ANSI, '').length
const pad = (s, width) => s + ' '.repeat(Math.max(0, width - visibleLength(s)))

/** One argv element as you would type it in a POSIX shell. */
function shellQuote(arg) {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg
  return `'${arg.replace(/'/g, `'\\''`)}'`
}

/** A path relative to the current directory when it lies below it, else the path unchanged. */
function displayPath(p) {
  const rel = path.relative(process.cwd(), p)
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p
}

function formatMs(ms) {
  if (ms >= 10000) return `${(ms / 1000).toFixed(1)} s`
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`
  if (ms >= 10) return `${Math.round(ms)} ms`
  return `${ms.toFixed(1)} ms`
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`

/** At most `maxLines` lines (the first or the last ones) of `text`, with a note saying what was left out. */
function clip(text, { maxLines, fromEnd, what }) {
  const lines = text.replace(/\s+$/, '').split(/\r?\n/)
  if (lines.length <= maxLines) return { lines, note: null }
  const left = lines.length - maxLines
  return fromEnd
    ? { lines: lines.slice(-maxLines), note: `… ${plural(left, 'earlier line')} of ${what} not shown` }
    : { lines: lines.slice(0, maxLines), note: `… ${plural(left, 'more line')} of ${what} (see --json)` }
}

// ---------------------------------------------------------------------------------------------
// list

async function cmdList({ positionals, opts }) {
  const { discoverHooks, KNOWN_HOOKS } = hooksLib()
  const names = positionals.length > 0 ? positionals : KNOWN_HOOKS
  if (positionals.length > 0) await checkHookName(positionals[0])
  warnMissingDirs(opts)
  const options = discoveryOptions(opts)
  const st = makeStyle(useColour())

  const found = []
  const none = []
  for (const name of names) {
    let hooks
    try {
      hooks = await discoverHooks(name, options)
    } catch (e) {
      if (e && e.code === 'ERR_INVALID_HOOK_NAME') throw new UsageError(e.message)
      throw e
    }
    if (hooks.length === 0) none.push(name)
    for (const h of hooks) found.push(h)
  }

  const out = []
  if (found.length > 0) {
    const rows = found.map((h) => [
      st.bold(h.hookName),
      h.enabled ? st.green('enabled') : st.yellow('disabled'),
      h.source,
      h.command.map(shellQuote).join(' '),
    ])
    const header = ['HOOK', 'STATE', 'SOURCE', 'ARGV'].map((s) => st.dim(s))
    const widths = [0, 1, 2].map((c) => Math.max(...[header, ...rows].map((r) => visibleLength(r[c]))))
    const line = (r) => r.slice(0, 3).map((cell, c) => pad(cell, widths[c])).join('  ') + '  ' + r[3]
    out.push(line(header))
    const indent = ' '.repeat(widths[0] + widths[1] + widths[2] + 6)
    found.forEach((h, i) => {
      out.push(line(rows[i]))
      if (!h.enabled) out.push(indent + st.yellow(`↳ not run: ${h.reason || 'disabled'}`))
      else if (h.reason) out.push(indent + st.yellow(`↳ warning: ${h.reason}`))
    })
  }
  if (positionals.length > 0 && found.length === 0) {
    out.push(`No ${names[0]} hook found.`)
  } else if (none.length > 0) {
    if (out.length > 0) out.push('')
    out.push(st.dim(`No hooks for: ${none.join(', ')}`))
  }
  out.push(st.dim(`Searched: ${describeSearch(options)}`))
  process.stdout.write(out.join('\n') + '\n')
  return EXIT_OK
}

function describeSearch(options) {
  const parts = []
  for (const d of options.extraHooksDirs || []) parts.push(`${displayPath(d)} (extra)`)
  if (options.globalHooksDir === undefined) parts.push('Documents/Cline/Hooks (global)')
  else if (options.globalHooksDir !== null) parts.push(`${displayPath(options.globalHooksDir)} (global)`)
  if (options.profile === 'cli' && options.globalHooksDir !== null) parts.push(`${process.env.CLINE_DIR ? displayPath(path.join(process.env.CLINE_DIR, 'hooks')) : '~/.cline/hooks'} (global)`)
  const subdirs = options.profile === 'cli' ? ['.clinerules', '.cline'] : ['.clinerules']
  for (const w of options.workspaceRoots) {
    for (const sub of subdirs) parts.push(`${displayPath(path.join(w, sub, 'hooks'))} (workspace)`)
  }
  return parts.join(', ') || 'nothing'
}

// ---------------------------------------------------------------------------------------------
// run

async function readInput(spec, hookName) {
  if (spec === undefined) return {}
  let text
  let where
  if (spec === '-') {
    where = 'stdin'
    if (process.stdin.isTTY) process.stderr.write(`${PROG}: reading the ${hookName} input from stdin (end with Ctrl-D)\n`)
    const chunks = []
    for await (const chunk of process.stdin) chunks.push(chunk)
    text = Buffer.concat(chunks).toString('utf8')
  } else {
    where = spec
    try {
      text = fs.readFileSync(spec, 'utf8')
    } catch (e) {
      const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'it is a directory' : e.message
      throw new UsageError(`cannot read input file ${spec}: ${why}`, { hint: false })
    }
  }
  let value
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (e) {
    throw new UsageError(`the input from ${where} is not valid JSON: ${e.message}`, { hint: false })
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
    throw new UsageError(`the input from ${where} must be a JSON object, not ${kind}`, { hint: false })
  }
  if (typeof value.hookName === 'string' && value.hookName !== hookName) {
    process.stderr.write(
      `${PROG}: warning: the input says hookName ${JSON.stringify(value.hookName)} but the hooks run are ${hookName}\n`,
    )
  }
  return value
}

const STATUS_STYLE = { completed: 'green', failed: 'red', timedOut: 'yellow', aborted: 'red' }
const STATUS_MARK = { completed: '✔', failed: '✘', timedOut: '⏱', aborted: '✘' }

function hookBlock(h, st) {
  const out = []
  const colour = st[STATUS_STYLE[h.status]] || ((s) => s)
  out.push(`${st.cyan('┃')} ${st.bold(h.hookName)} ${st.dim('❯')} ${displayPath(h.path)} ${st.dim(`(${h.source})`)}`)

  const field = (label, value) => out.push(`  ${st.dim(label.padEnd(9))} ${value}`)
  const multiline = (label, text, style, clipOpts) => {
    const { lines, note } = clip(text, clipOpts)
    lines.forEach((l, i) => field(i === 0 ? label : '', style(l)))
    if (note) field('', st.dim(note))
  }

  let status = `${STATUS_MARK[h.status] || '?'} ${h.status}`
  const how = h.exitCode !== null && h.exitCode !== undefined ? `exit ${h.exitCode}` : h.signal ? `killed by ${h.signal}` : null
  if (how) status += ` (${how})`
  field('status', `${colour(status)}  ${st.dim(formatMs(h.durationMs))}`)
  field('cancel', h.cancel ? st.red(st.bold('true')) : 'false')
  if (h.review) field('review', st.yellow('true'))
  if (h.contextModification) multiline('context', h.contextModification, (s) => s, { maxLines: 20, what: 'context' })
  if (h.errorMessage) multiline('error', h.errorMessage, st.red, { maxLines: 20, what: 'errorMessage' })
  if (h.overrideInput) multiline('override', JSON.stringify(h.overrideInput, null, 2), (s) => s, { maxLines: 20, what: 'overrideInput' })
  if (h.failure) field('failure', st.red(h.failure))
  for (const w of h.warnings || []) field('warning', st.yellow(w))
  if (h.stderr && h.stderr.trim()) {
    multiline('stderr', h.stderr, (l) => `${st.dim('│')} ${l}`, { maxLines: 10, fromEnd: true, what: 'stderr' })
  }
  return out.join('\n')
}

function summaryLine(result, hookName, st) {
  const n = result.hooks.length
  const failed = result.hooks.filter((h) => h.status !== 'completed').length
  let verdict
  if (result.cancel) verdict = st.red(st.bold('✘ cancelled'))
  else if (n === 0) verdict = st.dim(`no ${hookName} hook ran`)
  else if (failed > 0) verdict = st.yellow(`✔ allowed (${failed} of ${plural(n, 'hook')} did not complete; failures never block)`)
  else verdict = st.green(st.bold('✔ allowed'))
  const parts = n === 0 ? [verdict] : [verdict, plural(n, 'hook')]
  if (result.review) parts.push(st.yellow('review requested'))
  if (result.overrideInput) parts.push(st.yellow('input overridden'))
  if (result.slowest) parts.push(`slowest ${displayPath(result.slowest.path)} ${formatMs(result.slowest.durationMs)}`)
  parts.push(`total ${formatMs(result.durationMs)}`)
  return parts.join(st.dim(' · '))
}

async function cmdRun({ positionals, opts }, signals) {
  const { runHook, terminateAll } = hooksLib()
  const hookName = positionals[0]
  await checkHookName(hookName)
  warnMissingDirs(opts)
  const input = await readInput(opts.input, hookName)

  const runOptions = { ...discoveryOptions(opts), signal: signals.controller.signal }
  if (opts['timeout-ms'] !== undefined) runOptions.timeoutMs = opts['timeout-ms']
  if (opts.sequential) runOptions.sequential = true

  let slowNotice = null
  if (!opts.json && process.stderr.isTTY) {
    slowNotice = setTimeout(() => {
      process.stderr.write(`${PROG}: ${hookName} hooks still running… (Ctrl-C stops them)\n`)
    }, 2000)
  }

  let result
  try {
    signals.running = true
    result = await runHook(hookName, input, runOptions)
  } catch (e) {
    if (e && e.name === 'AbortError') {
      await terminateAll().catch(() => 0) // belt and braces: nothing of ours may outlive us
      process.stderr.write(`${PROG}: interrupted; the ${hookName} hooks were stopped\n`)
      return signals.exitCode
    }
    if (e && typeof e.code === 'string' && e.code.startsWith('ERR_INVALID_')) throw new UsageError(e.message)
    throw e
  } finally {
    signals.running = false
    if (slowNotice) clearTimeout(slowNotice)
  }

  const exitCode = result.cancel ? EXIT_CANCEL : EXIT_OK
  if (opts.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n')
    return exitCode
  }

  const st = makeStyle(useColour())
  const blocks = result.hooks.map((h) => hookBlock(h, st))
  const out = []
  if (blocks.length > 0) out.push(blocks.join('\n\n'), '')
  for (const w of result.warnings || []) out.push(st.yellow(`warning: ${w}`))
  if (result.hooks.length === 0 && (result.warnings || []).length === 0) {
    out.push(st.dim(`No enabled ${hookName} hook found (searched: ${describeSearch(runOptions)}).`))
  }
  out.push(st.dim('─'.repeat(40)))
  out.push(summaryLine(result, hookName, st))
  process.stdout.write(out.join('\n') + '\n')
  return exitCode
}

// ---------------------------------------------------------------------------------------------
// main

async function main(argv) {
  // Signals: abort a run in flight (the addon kills every hook's process tree), then exit
  // 130/143. Before or after a run there is nothing to clean up, so exit at once. A second
  // Ctrl-C exits immediately.
  const signals = { controller: new AbortController(), running: false, exitCode: EXIT_SIGINT, received: false }
  const onSignal = (name, code) => () => {
    if (signals.received || !signals.running) process.exit(code)
    signals.received = true
    signals.exitCode = code
    signals.controller.abort()
  }
  process.on('SIGINT', onSignal('SIGINT', EXIT_SIGINT))
  process.on('SIGTERM', onSignal('SIGTERM', EXIT_SIGTERM))

  let parsed
  try {
    parsed = parseArgs(argv)
    if (parsed.opts.help) {
      process.stdout.write(usage())
      return EXIT_OK
    }
    return await COMMANDS[parsed.command].main(parsed, signals)
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${PROG}: ${e.message}${e.hint ? ` (try ${PROG} --help)` : ''}\n`)
      return EXIT_USAGE
    }
    throw e
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code
    },
    (e) => {
      process.stderr.write(`${PROG}: ${e && e.stack ? e.stack : e}\n`)
      process.exitCode = 70
    },
  )
}

module.exports = { parseArgs, OPTIONS, COMMANDS, main }
