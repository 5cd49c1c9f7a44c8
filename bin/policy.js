'use strict'

// `cline-hooks trust`, `enable` and `disable`: the user's decisions about hook files, kept in
// the policy store (--policy-file, default $CLINE_DIR/hooks-policy.json, else
// ~/.cline/hooks-policy.json). `trust` lists the hooks not approved for their current bytes,
// with their first lines, and approves exactly the bytes shown once the user confirms.

const fs = require('fs')
const os = require('os')
const path = require('path')
const readline = require('readline')

const { EXIT } = require('./exit-codes')
const { UsageError } = require('./errors')
const { escapeTerminal } = require('./terminal-text')
const { say } = require('./stdio')
const { makeStyle, useColour, displayPath, plural } = require('./format')
const { hooksLib, asUsageError, discoveryOptions, warnMissingDirs } = require('./discovery')

/** How many lines of a hook `trust` shows before asking. */
const PREVIEW_LINES = 12

/** The policy store the CLI uses: --policy-file, else $CLINE_DIR/hooks-policy.json, else ~/.cline/. */
function policyFileOf(opts) {
  if (opts['policy-file'] !== undefined) return path.resolve(opts['policy-file'])
  const clineDir = process.env.CLINE_DIR ? path.resolve(process.env.CLINE_DIR) : path.join(os.homedir(), '.cline')
  return path.join(clineDir, 'hooks-policy.json')
}

/**
 * Discovery options with the policy store and trust scope added. The default store is left out
 * (with a warning) when it lies inside a workspace root, where the library refuses a store.
 */
function withPolicy(opts, defaultTrust) {
  const options = discoveryOptions(opts)
  const policyFile = policyFileOf(opts)
  const trust = opts.trust || defaultTrust
  const inside = options.workspaceRoots.find((root) => !path.relative(root, policyFile).startsWith('..') && !path.isAbsolute(path.relative(root, policyFile)))
  if (inside !== undefined && opts['policy-file'] === undefined) {
    if (trust !== 'off') {
      throw new UsageError(`the policy store ${displayPath(policyFile)} is inside the workspace ${displayPath(inside)}; pass --policy-file outside it`)
    }
    say(`warning: the policy store ${displayPath(policyFile)} is inside the workspace ${displayPath(inside)}, so it is not used; pass --policy-file`)
    return options
  }
  return { ...options, policyFile, trust }
}

/** The first lines of `file`, escaped, for review; what is wrong if it cannot be read. */
function preview(file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    return [`(cannot be read: ${e.code || e.message})`]
  }
  const lines = text.split(/\r?\n/)
  const shown = lines.slice(0, PREVIEW_LINES).map((l) => escapeTerminal(l))
  if (lines.length > PREVIEW_LINES) shown.push(`… ${lines.length - PREVIEW_LINES} more lines`)
  return shown
}

/** Asks `question` on the terminal; resolves with whether the answer was yes. */
function confirm(question) {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
    rl.question(question, (answer) => {
      rl.close()
      resolve(/^y(es)?$/i.test(answer.trim()))
    })
    rl.on('close', () => resolve(false))
  })
}

async function cmdTrust({ opts }, session) {
  const { discoverHooks, trustHook, KNOWN_HOOKS } = hooksLib(session)
  warnMissingDirs(opts)
  const options = withPolicy(opts, 'workspace')
  if (options.trust === 'off') throw new UsageError("trust --trust off has nothing to approve; use --trust workspace or all")
  const st = makeStyle(useColour())
  const pending = []
  for (const name of KNOWN_HOOKS) {
    let hooks
    try {
      hooks = await discoverHooks(name, options)
    } catch (e) {
      throw asUsageError(e)
    }
    for (const h of hooks) if ((h.trust === 'new' || h.trust === 'changed') && h.sha256) pending.push(h)
  }
  const out = []
  if (pending.length === 0) {
    return { text: `Every hook in scope is approved (store: ${displayPath(options.policyFile)}).\n`, code: EXIT.OK }
  }
  for (const h of pending) {
    out.push(`${st.bold(escapeTerminal(h.hookName))} ${displayPath(h.path)} ${st.yellow(h.trust === 'new' ? '(new)' : '(changed since approved)')}`)
    out.push(st.dim(`  sha256 ${h.sha256}`))
    for (const line of preview(h.path)) out.push(`  ${st.dim('│')} ${line}`)
    out.push('')
  }
  const listing = out.join('\n')
  let approve = Boolean(opts.yes)
  if (!approve) {
    if (!process.stdin.isTTY) {
      return {
        text: `${listing}${plural(pending.length, 'hook')} not approved: nothing was changed. Review them, then run again on a terminal or with --yes.\n`,
        code: EXIT.USAGE,
      }
    }
    process.stdout.write(listing + '\n')
    approve = await confirm(`Approve ${plural(pending.length, 'hook')} as shown? [y/N] `)
    if (!approve) return { text: 'Nothing was approved.\n', code: EXIT.USAGE }
  }
  const done = []
  for (const h of pending) {
    try {
      // Exactly the bytes shown: a file changed since it was listed is refused.
      await trustHook(h.path, { policyFile: options.policyFile, sha256: h.sha256 })
      done.push(`approved ${displayPath(h.path)}`)
    } catch (e) {
      done.push(`not approved ${displayPath(h.path)}: ${escapeTerminal(e.message)}`)
    }
  }
  const failed = done.filter((l) => l.startsWith('not')).length
  const head = opts.yes ? listing : ''
  return { text: `${head}${done.join('\n')}\n`, code: failed > 0 ? EXIT.USAGE : EXIT.OK }
}

function cmdSetEnabled(enabled) {
  return async ({ positionals, opts }, session) => {
    const { setHookEnabled } = hooksLib(session)
    const file = path.resolve(positionals[0])
    try {
      await setHookEnabled(file, enabled, { policyFile: policyFileOf(opts) })
    } catch (e) {
      if (e && (e.code === 'ERR_NOT_A_HOOK' || e.code === 'ERR_HOOK_POLICY_FILE')) throw new UsageError(e.message, { hint: false })
      throw asUsageError(e)
    }
    return { text: `${enabled ? 'enabled' : 'disabled'} ${displayPath(file)} (store: ${displayPath(policyFileOf(opts))})\n`, code: EXIT.OK }
  }
}

module.exports = { cmdTrust, cmdEnable: cmdSetEnabled(true), cmdDisable: cmdSetEnabled(false), withPolicy, policyFileOf }
