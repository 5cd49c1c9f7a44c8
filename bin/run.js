'use strict'

// `cline-hooks run <HookName>`: runs the hooks exactly as Cline would and shows what each one
// did: live while they run (their stderr as it comes, a line for each hook past the slow
// threshold; see run-live.js), then a block per hook (with the end of its stdout when that held
// no verdict, or it failed) and a summary table. Everything a hook controls (its stdout, stderr,
// context, errorMessage, failure quotes, warnings, paths) is escaped, and each of its lines is
// printed indented under its field's label, so a hook cannot write a line that starts where the
// CLI's own lines start. --json prints the result as the same JSON value, with the characters a
// terminal acts on written as \uXXXX escapes.

const { EXIT } = require('./exit-codes')
const { escapeTerminal, terminalSafeJson } = require('./terminal-text')
const { writeStdout } = require('./stdio')
const { makeStyle, useColour, smartTerminal, displayPath, formatMs, plural, clip } = require('./format')
const { LiveView } = require('./run-live')
const { summaryTable } = require('./run-summary')
const { hooksLib, asUsageError, warnMissingDirs, checkHookName, describeSearch } = require('./discovery')
const { readInput } = require('./read-input')
const { withPolicy } = require('./policy')

const STATUS_STYLE = { completed: 'green', failed: 'red', timedOut: 'yellow', aborted: 'red' }
const STATUS_MARK = { completed: '✔', failed: '✘', timedOut: '⏱', aborted: '✘' }

// A field's label column; its value (and every continuation line of it) starts at column 12.
const LABEL_WIDTH = 9
const VALUE_COLUMN = 2 + LABEL_WIDTH + 1

function hookBlock(h, st, shownLive) {
  const out = []
  const colour = st[STATUS_STYLE[h.status]] || ((s) => s)
  const esc = (s) => escapeTerminal(s)
  out.push(`${st.cyan('┃')} ${st.bold(esc(h.hookName))} ${st.dim('❯')} ${displayPath(h.path)} ${st.dim(`(${esc(h.source)})`)}`)

  const field = (label, value) => out.push(`  ${st.dim(label.padEnd(LABEL_WIDTH))} ${value}`)
  const multiline = (label, text, style, clipOpts) => {
    const { lines, note } = clip(text, clipOpts)
    lines.forEach((l, i) => field(i === 0 ? label : '', style(l)))
    if (note) field('', st.dim(note))
  }

  let status = `${STATUS_MARK[h.status] || '?'} ${esc(h.status)}`
  const how = h.exitCode !== null && h.exitCode !== undefined ? `exit ${h.exitCode}` : h.signal ? `killed by ${esc(h.signal)}` : null
  if (how) status += ` (${how})`
  field('status', `${colour(status)}  ${st.dim(formatMs(h.durationMs))}`)
  field('cancel', h.cancel ? st.red(st.bold('true')) : 'false')
  if (h.review) field('review', st.yellow('true'))
  if (h.contextModification) multiline('context', h.contextModification, (s) => s, { maxLines: 20, what: 'context' })
  if (h.errorMessage) multiline('error', h.errorMessage, st.red, { maxLines: 20, what: 'errorMessage' })
  if (h.overrideInput) multiline('override', JSON.stringify(h.overrideInput, null, 2), (s) => s, { maxLines: 20, what: 'overrideInput' })
  if (h.failure) field('failure', st.red(esc(h.failure)))
  for (const w of h.warnings || []) field('warning', st.yellow(esc(w)))
  // A verdict's fields are shown above; stdout that gave none (or a failed hook's) is shown so
  // its author sees what was read instead of an answer.
  const noVerdict = h.output === null || h.output === undefined || h.status !== 'completed'
  if (noVerdict && h.stdout && h.stdout.trim()) {
    multiline('stdout', h.stdout, (l) => `${st.dim('│')} ${l}`, { maxLines: 10, fromEnd: true, what: 'stdout' })
  }
  if (h.stderr && h.stderr.trim() && shownLive.has(h.path)) {
    field('stderr', st.dim('shown above as it came'))
  } else if (h.stderr && h.stderr.trim()) {
    multiline('stderr', h.stderr, (l) => `${st.dim('│')} ${l}`, { maxLines: 10, fromEnd: true, what: 'stderr' })
  }
  return out.join('\n')
}

function summaryLine(result, hookName, st) {
  const n = result.hooks.length
  // A hook skipped by its tools= or matcher did not fail: it did not apply.
  const failed = result.hooks.filter((h) => h.status !== 'completed' && h.status !== 'skipped').length
  let verdict
  if (result.cancel) verdict = st.red(st.bold('✘ cancelled'))
  else if (n === 0) verdict = st.dim(`no ${escapeTerminal(hookName)} hook ran`)
  else if (failed > 0) verdict = st.yellow(`✔ allowed (${failed} of ${plural(n, 'hook')} did not complete; failures never block)`)
  else verdict = st.green(st.bold('✔ allowed'))
  const parts = n === 0 ? [verdict] : [verdict, plural(n, 'hook')]
  if (result.review) parts.push(st.yellow('review requested'))
  if (result.overrideInput) parts.push(st.yellow('input overridden'))
  if (result.slowest) parts.push(`slowest ${displayPath(result.slowest.path)} ${formatMs(result.slowest.durationMs)}`)
  parts.push(`total ${formatMs(result.durationMs)}`)
  return parts.join(st.dim(' · '))
}

/**
 * The human-readable report of a HookRunResult. `shownLive`: the paths of the hooks whose
 * whole stderr was already shown as it came (their blocks say so instead of repeating it).
 */
function renderRun(result, hookName, searched, st, { shownLive = new Set() } = {}) {
  const blocks = result.hooks.map((h) => hookBlock(h, st, shownLive))
  const out = []
  if (blocks.length > 0) out.push(blocks.join('\n\n'), '', ...summaryTable(result, st), '')
  for (const w of result.warnings || []) out.push(st.yellow(`warning: ${escapeTerminal(w)}`))
  // What no hook's block shows: a required hook that did not run (requireHooks, --require).
  const own = new Set(result.hooks.flatMap((h) => (h.errorMessage || '').split('\n')))
  for (const line of (result.errorMessage || '').split('\n')) {
    if (line && !own.has(line)) out.push(st.red(`blocked: ${escapeTerminal(line)}`))
  }
  if (result.hooks.length === 0 && (result.warnings || []).length === 0) {
    out.push(st.dim(`No enabled ${escapeTerminal(hookName)} hook found (searched: ${searched}).`))
  }
  out.push(st.dim('─'.repeat(40)))
  out.push(summaryLine(result, hookName, st))
  return out.join('\n') + '\n'
}

/** Whether every hook of `result` completed (or was skipped by its `tools=`) and every file meant for the hook runs: what --strict asks. */
function clean(result) {
  return result.hooks.every((h) => h.status === 'completed' || h.status === 'skipped') && result.notRun.length === 0
}

async function cmdRun({ positionals, opts }, session) {
  const { runHook } = hooksLib(session)
  const hookName = positionals[0]
  await checkHookName(hookName, session)
  warnMissingDirs(opts)
  const input = await readInput(opts.input, hookName, session)

  const runOptions = { ...withPolicy(opts, 'off'), signal: session.controller.signal }
  if (opts['timeout-ms'] !== undefined) runOptions.timeoutMs = opts['timeout-ms']
  if (opts.sequential) runOptions.sequential = true
  if (opts.require) runOptions.requireHooks = [hookName]
  if (opts.env) runOptions.env = Object.fromEntries(opts.env)
  if (opts['on-failure'] !== undefined) runOptions.onFailure = opts['on-failure']

  // The live view writes to stdout in order with the report; the first failed write is
  // reported as the report's own would be.
  const st = makeStyle(useColour())
  let written = Promise.resolve()
  let outputError = null
  const write = (text) => {
    written = written.then(() => writeStdout(text)).catch((e) => {
      outputError = outputError || e
    })
  }
  let live = null
  if (!opts.json) {
    live = new LiveView({ write, tty: smartTerminal(), columns: process.stdout.columns, st, valueColumn: VALUE_COLUMN })
    runOptions.onEvent = live.onEvent
  }

  let result
  try {
    session.running = hookName
    result = await runHook(hookName, input, runOptions)
  } catch (e) {
    // Aborted only by session.stop(), which stops the hooks and exits with the signal's status.
    if (e && e.name === 'AbortError') return { text: '', code: process.exitCode }
    throw asUsageError(e)
  } finally {
    session.running = null
    if (live) live.finish()
  }
  await written
  if (outputError) throw outputError

  const code = result.cancel ? EXIT.CANCEL : opts.strict && !clean(result) ? EXIT.STRICT : EXIT.OK
  if (opts.json) return { text: terminalSafeJson(result) + '\n', code, exact: true }
  const shownLive = live ? live.shown : new Set()
  const report = renderRun(result, hookName, describeSearch(runOptions), st, { shownLive })
  return { text: (live && live.printed ? '\n' : '') + report, code }
}

module.exports = { cmdRun, renderRun, VALUE_COLUMN }
