'use strict'

// `cline-hooks trust`, `untrust`, `enable` and `disable`: the user's decisions about hook files,
// kept in the policy store (--policy-file, default $CLINE_DIR/hooks-policy.json, else
// ~/.cline/hooks-policy.json). `trust` lists the hooks not approved for their current bytes,
// with their first lines (all of them with --full), and approves exactly the bytes shown once
// the user confirms.

const crypto = require('crypto')
const fs = require('fs')
const os = require('os')
const path = require('path')
const readline = require('readline')

const { EXIT, SIGNAL_EXITS } = require('./exit-codes')
const { UsageError } = require('./errors')
const { escapeTerminal, reviewLines } = require('./terminal-text')
const { say } = require('./stdio')
const { makeStyle, useColour, isInside, displayPath, plural, clip } = require('./format')
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
  const inside = options.workspaceRoots.find((root) => isInside(root, policyFile))
  if (inside !== undefined && opts['policy-file'] === undefined) {
    if (trust !== 'off') {
      throw new UsageError(`the policy store ${displayPath(policyFile)} is inside the workspace ${displayPath(inside)}; pass --policy-file outside it`)
    }
    say(`warning: the policy store ${displayPath(policyFile)} is inside the workspace ${displayPath(inside)}, so it is not used; pass --policy-file`)
    return options
  }
  return { ...options, policyFile, trust }
}

/** The most a hook file can hold and still be approved: the core's fingerprint limit (64 MiB). */
const REVIEW_LIMIT = 64 * 1024 * 1024

/**
 * One read of the hook file at `file`: its bytes and their sha256, so that what is shown and
 * what is approved are the same bytes (a second read could see another file). `{ problem }`
 * when it cannot be reviewed. O_NONBLOCK: a file swapped for a FIFO since discovery does not
 * hang the open.
 */
/**
 * A Claude settings handler for review: its event, matcher and command, then each script its
 * command names, as one text; its approval is of discovery's sha256 (of those parts), which
 * trustHook checks again against the file and scripts as they are then.
 */
function readHandlerForReview(h) {
  const c = h.claude
  const parts = [`event: ${c.event}`, `matcher: ${c.matcher === undefined ? '(none: every one)' : c.matcher}`, `command: ${c.command}`]
  for (const script of c.scripts) {
    const read = readForReview(script)
    parts.push(`--- ${script} ---`)
    parts.push(read.problem ? `(${read.problem})` : read.bytes.toString('utf8'))
  }
  return { bytes: Buffer.from(parts.join('\n') + '\n'), sha256: h.sha256 }
}

function readForReview(file) {
  let fd
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK || 0))
  } catch (e) {
    return { problem: `cannot be read: ${e.code || e.message}` }
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return { problem: 'cannot be read: no longer a regular file' }
    const chunks = []
    let total = 0
    for (;;) {
      const chunk = Buffer.allocUnsafe(65536)
      const n = fs.readSync(fd, chunk, 0, chunk.length, null)
      if (n === 0) break
      total += n
      if (total > REVIEW_LIMIT) return { problem: `cannot be reviewed: larger than ${REVIEW_LIMIT / 1024 / 1024} MiB` }
      chunks.push(chunk.subarray(0, n))
    }
    const bytes = Buffer.concat(chunks, total)
    return { bytes, sha256: crypto.createHash('sha256').update(bytes).digest('hex') }
  } catch (e) {
    return { problem: `cannot be read: ${e.code || e.message}` }
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The lines of `bytes` to show, escaped for review (reviewLines: every CR, invisible character and
 * trailing space shown): the first PREVIEW_LINES (every one when `full`), then how many were left
 * out; `crlf`: every line ends with CR LF, which the lines leave out.
 */
function preview(bytes, full) {
  const { lines: all, crlf } = reviewLines(bytes.toString('utf8'))
  const { lines, note } = clip(null, {
    lines: all,
    maxLines: full ? Infinity : PREVIEW_LINES,
    what: 'the file',
    more: 'not shown (--full shows them)',
  })
  return { lines: note ? [...lines, note] : lines, crlf }
}

/**
 * Asks `question` on the terminal; resolves with whether the answer was yes. Ctrl-C there (the
 * terminal is in raw mode, so it is a key, not a signal) stops the session as SIGINT does anywhere
 * else in the CLI: exit 130, nothing approved.
 */
function confirm(question, session) {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
    let interrupted = false
    rl.question(question, (answer) => {
      // Before close(): close() emits 'close' at once, which would settle it as a no.
      resolve(/^y(es)?$/i.test(answer.trim()))
      rl.close()
    })
    rl.on('close', () => {
      if (!interrupted) resolve(false) // Ctrl-D
    })
    rl.on('SIGINT', () => {
      interrupted = true
      rl.close() // gives the terminal back its cooked mode
      session.stop(SIGNAL_EXITS.SIGINT, { signal: 'SIGINT' })
    })
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
  // What each hook was shown as: its approval is of these bytes' sha256, not discovery's.
  const reviewed = pending.map((h) => ({ hook: h, ...(h.claude ? readHandlerForReview(h) : readForReview(h.path)) }))
  for (const { hook: h, bytes, sha256, problem } of reviewed) {
    out.push(`${st.bold(escapeTerminal(h.hookName))} ${displayPath(h.path)} ${st.yellow(h.trust === 'new' ? '(new)' : '(changed since approved)')}`)
    if (problem) {
      out.push(`  ${problem}; it will not be approved`)
    } else {
      out.push(st.dim(`  sha256 ${sha256}`))
      const { lines, crlf } = preview(bytes, Boolean(opts.full))
      if (crlf) out.push(st.dim('  every line ends with CR LF (Windows line endings), not marked below; any other CR is shown as \\r'))
      for (const line of lines) out.push(`  ${st.dim('│')} ${line}`)
    }
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
    approve = await confirm(`Approve ${plural(pending.length, 'hook')} as shown? [y/N] `, session)
    if (!approve) return { text: 'Nothing was approved.\n', code: EXIT.USAGE }
  }
  const done = []
  for (const { hook: h, sha256, problem } of reviewed) {
    if (problem) {
      done.push(`not approved ${displayPath(h.path)}: it ${problem}`)
      continue
    }
    try {
      // Exactly the bytes shown: a file changed since it was read for the listing is refused.
      await trustHook(h.path, { policyFile: options.policyFile, sha256 })
      done.push(`approved ${displayPath(h.path)}`)
    } catch (e) {
      done.push(`not approved ${displayPath(h.path)}: ${escapeTerminal(e.message)}`)
    }
  }
  const failed = done.filter((l) => l.startsWith('not')).length
  const head = opts.yes ? listing : ''
  return { text: `${head}${done.join('\n')}\n`, code: failed > 0 ? EXIT.USAGE : EXIT.OK }
}

/** `untrust <path>`: withdraws the approval of the hook file, and says whether there was one. */
async function cmdUntrust({ positionals, opts }, session) {
  const { untrustHook } = hooksLib(session)
  const file = path.resolve(positionals[0])
  const policyFile = policyFileOf(opts)
  let withdrawn
  try {
    withdrawn = await untrustHook(file, { policyFile })
  } catch (e) {
    if (e && e.code === 'ERR_HOOK_POLICY_FILE') throw new UsageError(e.message, { hint: false })
    throw asUsageError(e)
  }
  const store = `(store: ${displayPath(policyFile)})`
  return { text: withdrawn ? `untrusted ${displayPath(file)} ${store}\n` : `${displayPath(file)} was not approved ${store}\n`, code: EXIT.OK }
}

/** Problems `enable` itself fixes: any other means the file still would not run. */
const ENABLE_FIXES = new Set(['notExecutable'])

/**
 * Why the hook file `file` would not run even once enabled, as the doctor says it (its folder
 * diagnosed under `profile`, without the policy store, whose disabling would hide what else is
 * wrong with the file), with the fix; null when it would run or is no file the doctor reports.
 */
async function stillWillNotRun(file, profile, { diagnoseHooks }) {
  let diagnosis
  try {
    diagnosis = await diagnoseHooks({
      workspaceRoots: [],
      extraHooksDirs: [path.dirname(file)],
      globalHooksDir: null,
      managedHooksDir: null,
      profile,
    })
  } catch {
    // The store's own checks below say what is wrong with the path.
    return null
  }
  const report = diagnosis.hooks.find((h) => h.path === file)
  if (!report || report.willRun || ENABLE_FIXES.has(report.problem)) return null
  const fix = report.fix ? `; fix: ${escapeTerminal(report.fix)}` : ''
  return `${displayPath(file)} will not run even if enabled: ${escapeTerminal(report.reason)}${fix}`
}

function cmdSetEnabled(enabled) {
  return async ({ positionals, opts }, session) => {
    const lib = hooksLib(session)
    const { setHookEnabled } = lib
    const file = path.resolve(positionals[0])
    if (enabled) {
      const why = await stillWillNotRun(file, opts.profile || 'extension', lib)
      if (why) {
        await say(`not enabled: ${why}`)
        return { text: '', code: EXIT.WILL_NOT_RUN }
      }
    }
    try {
      await setHookEnabled(file, enabled, { policyFile: policyFileOf(opts) })
    } catch (e) {
      if (e && (e.code === 'ERR_NOT_A_HOOK' || e.code === 'ERR_HOOK_POLICY_FILE')) throw new UsageError(e.message, { hint: false })
      throw asUsageError(e)
    }
    return { text: `${enabled ? 'enabled' : 'disabled'} ${displayPath(file)} (store: ${displayPath(policyFileOf(opts))})\n`, code: EXIT.OK }
  }
}

module.exports = { cmdTrust, cmdUntrust, cmdEnable: cmdSetEnabled(true), cmdDisable: cmdSetEnabled(false), withPolicy, policyFileOf }
