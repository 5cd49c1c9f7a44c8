'use strict'

// The command line: every option in one table (OPTIONS) and the parser that reads argv against
// it and a table of commands. An option is one entry here plus its name in the `options` list of
// the commands that take it (GLOBAL_OPTIONS apply to every command and to none).

const { UsageError } = require('./errors')
const { INPUT_LIMIT_TEXT } = require('./read-input')
const { closestName } = require('./closest-name')

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

function parseTrust(value, flag) {
  if (!['workspace', 'all', 'off'].includes(value)) throw new UsageError(`${flag} is 'workspace', 'all' or 'off', not '${value}'`)
  return value
}

function parseSandbox(value, flag) {
  if (!['workspace', 'all', 'off'].includes(value)) throw new UsageError(`${flag} is 'workspace', 'all' or 'off', not '${value}'`)
  return value
}

function parseLang(value, flag) {
  if (!['bash', 'python', 'node', 'powershell'].includes(value)) throw new UsageError(`${flag} is bash, python, node or powershell, not '${value}'`)
  return value
}

/** `KEY=VALUE` → [KEY, VALUE] (VALUE may be empty; it is cut at the first `=`). */
function parseEnv(value, flag) {
  const eq = value.indexOf('=')
  if (eq === -1) throw new UsageError(`${flag} wants KEY=VALUE, not '${value}' (no '=')`)
  if (eq === 0) throw new UsageError(`${flag} wants KEY=VALUE, not '${value}' (the KEY is empty)`)
  return [value.slice(0, eq), value.slice(eq + 1)]
}

function parseOnFailure(value, flag) {
  if (value !== 'allow' && value !== 'block') throw new UsageError(`${flag} is 'allow' or 'block', not '${value}'`)
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
  'claude-settings': {
    flag: '--claude-settings',
    help: "also run the hooks of Claude Code's settings: ~/.claude/settings.json and each workspace's .claude/settings.json and settings.local.json (see docs/claude-code.md)",
  },
  sandbox: {
    flag: '--sandbox',
    arg: 'workspace|all|off',
    parse: parseSandbox,
    help: "run hooks confined in an OS sandbox: workspace (the hooks a repository brings), all (every hook but the managed ones) or off (default); a confined hook writes only in its workspace, the temp folder and --sandbox-writable, opens no TCP connection, and cannot trace or signal other processes (Linux Landlock, macOS; see docs/security.md)",
  },
  'sandbox-writable': {
    flag: '--sandbox-writable',
    arg: 'DIR',
    repeat: true,
    parse: nonEmpty,
    help: 'another folder a confined hook may write in (repeatable)',
  },
  'sandbox-network': {
    flag: '--sandbox-network',
    help: 'let confined hooks open TCP connections and listen',
  },
  input: {
    flag: '--input',
    arg: 'FILE|-',
    parse: nonEmpty,
    help: `a file holding the hook's input as one JSON object (a FIFO or <(...) works too), or - for stdin; at most ${INPUT_LIMIT_TEXT} (default: {}; the common fields are filled in)`,
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
  require: {
    flag: '--require',
    help: 'run: the hook is required: when none of its hooks starts (none exists, all are disabled, untrusted or misnamed, none could start), the run is cancelled (exit 1) and says why',
  },
  strict: {
    flag: '--strict',
    help: 'run: exit 3 when a hook did not complete (failed, timed out, did not start) or a file meant for the hook will not run, for CI',
  },
  env: {
    flag: '--env',
    arg: 'KEY=VALUE',
    repeat: true,
    parse: parseEnv,
    help: "run: set the variable KEY to VALUE in the hooks' environment, over the inherited one (repeatable; VALUE may be empty; of one KEY the last wins; the runtime's own CLINE_HOOK_* and CLINE_WORKSPACE_ROOT stay)",
  },
  'on-failure': {
    flag: '--on-failure',
    arg: 'allow|block',
    parse: parseOnFailure,
    help: "run: what a hook that fails, times out, cannot start or prints unusable output means: allow (default: it never blocks) or block (it cancels the operation, exit 1); a hook's own cline-hook: onFailure= line wins",
  },
  'policy-file': {
    flag: '--policy-file',
    arg: 'FILE',
    parse: nonEmpty,
    help: 'the hooks policy store of approvals and disabled hooks (default: $CLINE_DIR/hooks-policy.json, else ~/.cline/hooks-policy.json)',
  },
  trust: {
    flag: '--trust',
    arg: 'workspace|all|off',
    parse: parseTrust,
    help: 'which hooks must be approved to run: workspace hooks, all but managed ones, or none (default: off for list and run, as Cline; workspace for trust)',
  },
  yes: {
    flag: '--yes',
    help: 'trust: approve every hook listed without asking',
  },
  full: {
    flag: '--full',
    help: 'trust: show every line of each hook, not only the first ones',
  },
  json: {
    flag: '--json',
    help: 'print the raw result as JSON (run: the HookRunResult; doctor: the HookDiagnosis)',
  },
  global: {
    flag: '--global',
    conflicts: ['workspace'],
    help: 'init: write the hook into the global hooks folder (--global-dir, else Documents/Cline/Hooks) instead of a workspace',
  },
  lang: {
    flag: '--lang',
    arg: 'bash|python|node|powershell',
    parse: parseLang,
    help: 'init: the language of the template (default: bash on macOS/Linux, powershell on Windows)',
  },
  help: {
    flag: '--help',
    alias: '-h',
    help: "show this help (after a command: that command's help)",
  },
  version: {
    flag: '--version',
    alias: '-V',
    help: 'print the version of cline-hooks',
  },
}

/** The options every command takes, and the command line without one: they print and exit. */
const GLOBAL_OPTIONS = ['help', 'version']

const FLAG_TO_KEY = new Map()
for (const [key, spec] of Object.entries(OPTIONS)) {
  FLAG_TO_KEY.set(spec.flag, key)
  if (spec.alias) FLAG_TO_KEY.set(spec.alias, key)
}

/**
 * Parses `argv` (without node and the script) against `COMMANDS` into `{ command, positionals, opts }`.
 * `opts` is keyed by OPTIONS key; repeatable options hold arrays, flags hold `true`.
 * Throws UsageError on anything it does not understand.
 */
function parseArgs(argv, COMMANDS) {
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
          const closest = closestName(token, [...Object.keys(COMMANDS), 'help'])
          throw new UsageError(`unknown command '${token}'${closest ? `. Did you mean '${closest}'?` : ''}`)
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
    if (key === undefined) {
      // The command's own options once it is known; before it, any option.
      const keys = command === null ? Object.keys(OPTIONS) : [...COMMANDS[command].options, ...GLOBAL_OPTIONS]
      const closest = closestName(flag, keys.flatMap((k) => [OPTIONS[k].flag, OPTIONS[k].alias].filter(Boolean)))
      throw new UsageError(`unknown option ${flag}${closest ? `. Did you mean ${closest}?` : ''}`)
    }
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
      if (key in opts && !GLOBAL_OPTIONS.includes(key)) throw new UsageError(`option ${flag} was given more than once`)
      opts[key] = value
    }
  }

  if (opts.help || opts.version) return { command, positionals, opts }
  if (command === null) throw new UsageError(`missing command: ${Object.keys(COMMANDS).join(', ')}`)

  const def = COMMANDS[command]
  for (const key of Object.keys(opts)) {
    if (!GLOBAL_OPTIONS.includes(key) && !def.options.includes(key)) {
      throw new UsageError(`option ${OPTIONS[key].flag} does not apply to '${command}'`)
    }
    for (const other of OPTIONS[key].conflicts || []) {
      if (other in opts) throw new UsageError(`${OPTIONS[key].flag} and ${OPTIONS[other].flag} cannot be combined`)
    }
  }
  const required = def.positionals.filter((p) => !p.optional).length
  if (positionals.length < required) {
    const missing = def.positionals[positionals.length]
    throw new UsageError(`'${command}' needs a ${missing.name}, for example ${missing.example}`)
  }
  if (positionals.length > def.positionals.length) {
    throw new UsageError(`unexpected argument '${positionals[def.positionals.length]}'`)
  }
  return { command, positionals, opts }
}

module.exports = { OPTIONS, GLOBAL_OPTIONS, parseArgs }
