#!/usr/bin/env node
'use strict'

// cline-hooks: a small CLI for hook authors over @cline/hooks. This file is the entry point:
// the table of commands, and main(), the one place that turns what a command returned or threw
// into output and an exit status (see exit-codes.js). Run `cline-hooks --help`, or
// `cline-hooks <command> --help` for one command's.
//
//   cline-hooks list [options] [HookName]     every hook found, enabled or why not, and its argv
//   cline-hooks run <HookName> [options]      run the hooks exactly as Cline would and show what they did
//   cline-hooks trust [options]               review and approve the hooks not approved for their bytes
//   cline-hooks untrust <path>                withdraw a hook's approval
//   cline-hooks enable|disable <path>         record in the policy store whether a hook runs
//   cline-hooks doctor [options]              every file in the hooks folders: will it run, and if not, why and the fix
//   cline-hooks init <HookName> [options]     write a commented hook template that allows, ready to edit

const { EXIT, EXIT_TABLE } = require('./exit-codes')
const { UsageError } = require('./errors')
const { OPTIONS, parseArgs: parseWith } = require('./options')
const { usage, commandUsage } = require('./usage')
const { PROG, OutputError, installStreamGuards, writeStdout, writeStderr, say } = require('./stdio')
const { escapeTerminal, terminalSafeJson, fitToWidth, wrapLine } = require('./terminal-text')
const { Session } = require('./session')
const { hooksLib } = require('./discovery')
const { cmdList, renderList } = require('./list')
const { cmdRun, renderRun, VALUE_COLUMN } = require('./run')
const { cmdTrust, cmdUntrust, cmdEnable, cmdDisable } = require('./policy')
const { shellQuote, makeStyle } = require('./format')
const { cmdDoctor, renderDoctor } = require('./doctor')
const { cmdInit } = require('./init')

/** The package's version, which `--version` prints. */
const VERSION = require('../package.json').version

const DISCOVERY_OPTIONS = ['workspace', 'global-dir', 'no-global', 'hooks-dir', 'profile', 'claude-settings', 'policy-file', 'trust', 'sandbox', 'sandbox-writable', 'sandbox-network']

/**
 * Each command returns `{ text, code, exact }` (exact: machine-readable, never wrapped). The rest
 * is for the help texts (usage.js): `positionals` with what each is and an example of one, `examples` as [what, command
 * line], `exits`: what its exit statuses mean, after its name.
 */
const COMMANDS = {
  list: {
    summary: 'show every hook found, enabled or why not, its source and its argv',
    positionals: [{ name: 'HookName', optional: true, help: 'list only this hook (default: every known hook)', example: 'PreToolUse' }],
    options: [...DISCOVERY_OPTIONS],
    examples: [["the PreToolUse hooks of the current directory's workspace and the global folder", 'cline-hooks list PreToolUse']],
    main: cmdList,
  },
  run: {
    summary: 'run the hooks exactly as Cline would and show what each one did',
    positionals: [{ name: 'HookName', help: 'the hook to run', example: 'PreToolUse' }],
    options: [...DISCOVERY_OPTIONS, 'input', 'timeout-ms', 'sequential', 'require', 'strict', 'env', 'on-failure', 'json'],
    examples: [
      ['run the PreToolUse hooks on the input in call.json, with API_URL set, as a gate that fails closed', 'cline-hooks run PreToolUse --input call.json --env API_URL=http://localhost:8080 --on-failure block'],
    ],
    exits:
      'exits 0 when the hooks allow the operation, 1 when they cancel it (a hook printed "cancel": true; with --on-failure block, a hook failed; with --require, none started), 3 with --strict when a hook did not complete.',
    main: cmdRun,
  },
  trust: {
    summary: 'list the hooks not approved for their current bytes, with their first lines, and approve them',
    positionals: [],
    options: [...DISCOVERY_OPTIONS, 'yes', 'full'],
    examples: [["review the hooks of the current directory's workspace and approve them once asked", 'cline-hooks trust']],
    exits:
      'exits 0 once every hook listed is approved (or none needed it), 2 when nothing was approved (no terminal and no --yes, or the answer was not yes) or a hook could not be.',
    main: cmdTrust,
  },
  untrust: {
    summary: 'withdraw the approval of the hook file from the policy store: where approval is required (--trust), it no longer runs until approved again',
    positionals: [{ name: 'path', help: 'the hook file', example: '.clinerules/hooks/PreToolUse' }],
    options: ['policy-file'],
    examples: [['withdraw the approval of a workspace hook', 'cline-hooks untrust .clinerules/hooks/PreToolUse']],
    exits: 'exits 0 whether or not the hook was approved (it says which).',
    main: cmdUntrust,
  },
  enable: {
    summary: 'record in the policy store that the hook file runs (sets its exec bit if it lacks it); a file that would still not run is refused, with why (exit 1)',
    positionals: [{ name: 'path', help: 'the hook file', example: '.clinerules/hooks/PreToolUse' }],
    options: ['policy-file', 'profile'],
    examples: [['let a disabled workspace hook run again', 'cline-hooks enable .clinerules/hooks/PreToolUse']],
    exits: 'exits 1, recording nothing, when the file would still not run (misnamed, Windows line endings, ...): it says why and the fix.',
    main: cmdEnable,
  },
  disable: {
    summary: 'record in the policy store that the hook file does not run',
    positionals: [{ name: 'path', help: 'the hook file', example: '.clinerules/hooks/PreToolUse' }],
    options: ['policy-file'],
    examples: [['stop a workspace hook from running, without touching its file', 'cline-hooks disable .clinerules/hooks/PreToolUse']],
    main: cmdDisable,
  },
  doctor: {
    summary: 'explain every file in the hooks folders that will not run, with the fix, and the runtime facts (exit 1 when one will not run)',
    positionals: [],
    options: [...DISCOVERY_OPTIONS, 'json'],
    examples: [["check the hooks folders of the current directory's workspace as the Cline CLI reads them", 'cline-hooks doctor --profile cli']],
    exits: 'exits 0 when every hook file found will run, 1 when one will not (or a folder cannot be read).',
    main: cmdDoctor,
  },
  init: {
    summary: 'write a commented template for a hook (it allows; a blocking example is commented out), executable, never over an existing file',
    positionals: [{ name: 'HookName', help: 'the hook to write (a Cline CLI event name, such as tool_call, stands for its hook)', example: 'PreToolUse' }],
    options: ['global', 'workspace', 'global-dir', 'lang', 'profile'],
    examples: [["write a Python PreToolUse hook into the current directory's workspace", 'cline-hooks init PreToolUse --lang python']],
    exits: 'exits 0 once the hook is written, 1 when its file already exists (nothing is overwritten).',
    main: cmdInit,
  },
}

const parseArgs = (argv) => parseWith(argv, COMMANDS)

/** Human-readable text for stdout: on a terminal, wrapped before the terminal would wrap it. */
function forTerminal(text) {
  return process.stdout.isTTY ? fitToWidth(text, process.stdout.columns, VALUE_COLUMN) : text
}

/** Runs the command line `argv`; resolves with the exit status. Throws only for internal errors. */
async function main(argv, session = new Session()) {
  try {
    const parsed = parseArgs(argv)
    if (parsed.opts.version) {
      await writeStdout(`${VERSION}\n`)
      return EXIT.OK
    }
    if (parsed.opts.help) {
      const { KNOWN_HOOKS } = hooksLib()
      await writeStdout(forTerminal(parsed.command ? commandUsage(parsed.command, COMMANDS, KNOWN_HOOKS) : usage(COMMANDS, KNOWN_HOOKS)))
      return EXIT.OK
    }
    const { text, code, exact } = await COMMANDS[parsed.command].main(parsed, session)
    if (session.stopping) return code // stop() prints nothing more and exits
    await writeStdout(exact ? text : forTerminal(text))
    return code
  } catch (e) {
    if (session.stopping) return process.exitCode // stop() killed what this was waiting for; it prints nothing more
    if (e instanceof UsageError) {
      await say(`${e.message}${e.hint ? ` (try ${PROG} --help)` : ''}`)
      return EXIT.USAGE
    }
    if (e instanceof OutputError) {
      if (e.closed) return EXIT.OUTPUT_CLOSED // whoever closed the pipe wanted no more
      await say(`${e.message}; check where stdout goes`)
      return EXIT.OUTPUT_FAILED
    }
    throw e
  }
}

/** One sentence for a bug in cline-hooks itself, and how to report it. */
function internalErrorMessage(e) {
  const what = e && e.message ? e.message.split('\n')[0] : String(e)
  return (
    `internal error (${what}): this is a bug in ${PROG}; please report it to the @cline/hooks maintainers ` +
    `with the command you ran and the stack trace that CLINE_HOOKS_DEBUG=1 prints`
  )
}

if (require.main === module) {
  installStreamGuards()
  const session = new Session()
  session.installSignalHandlers()
  let failed = false
  const internalError = async (e) => {
    if (failed) return
    failed = true
    await say(internalErrorMessage(e))
    if (process.env.CLINE_HOOKS_DEBUG) {
      await writeStderr(escapeTerminal(e && e.stack ? e.stack : String(e), { multiline: true }) + '\n')
    }
    session.stop(EXIT.INTERNAL)
  }
  // Whatever escapes main() (an 'error' event nobody listens to, a stray rejection) is a bug:
  // one sentence, the hooks stopped, exit 70; never Node's stack trace.
  process.on('uncaughtException', internalError)
  process.on('unhandledRejection', internalError)
  main(process.argv.slice(2), session).then((code) => {
    if (session.stopping) return // a signal came first: stop() exits with its status
    // A normal end has nothing left running; an output failure goes through stop() all the same.
    if (code === EXIT.OUTPUT_CLOSED || code === EXIT.OUTPUT_FAILED) session.stop(code)
    else process.exitCode = code
  }, internalError)
}

module.exports = {
  parseArgs,
  OPTIONS,
  COMMANDS,
  EXIT,
  EXIT_TABLE,
  main,
  internalErrorMessage,
  // Pure parts, for unit tests (the package test reaches bin/ only through this file).
  escapeTerminal,
  terminalSafeJson,
  wrapLine,
  fitToWidth,
  shellQuote,
  makeStyle,
  renderList,
  renderRun,
  renderDoctor,
  VALUE_COLUMN,
}
