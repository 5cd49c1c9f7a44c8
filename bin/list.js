'use strict'

// `cline-hooks list [HookName]`: every hook found, enabled or why not, its source and its argv,
// as a table (a disabled hook's file where it has no argv), and under each hook the files meant
// for it that will not run, with why and the fix: the doctor's own reports (diagnoseHooks), so
// list, run and doctor agree on every file. Names, paths, argv and reasons come from the
// repository and are escaped.

const { EXIT } = require('./exit-codes')
const { escapeTerminal } = require('./terminal-text')
const { makeStyle, useColour, visibleLength, pad, shellQuote } = require('./format')
const { hooksLib, asUsageError, warnMissingDirs, checkHookName, describeSearch } = require('./discovery')
const { withPolicy } = require('./policy')

/** The TRUST column: where a hook stands with the approvals ('-': none needed). */
const TRUST_TEXT = { approved: 'approved', new: 'new', changed: 'changed', notRequired: '-' }

/** The text `list` prints for `found` hooks, `none` hook names without one, and what was searched. */
function renderList({ found, none, named, searched }, st) {
  const out = []
  if (found.length > 0) {
    const rows = found.map((h) => [
      st.bold(escapeTerminal(h.hookName)),
      h.willFail ? st.red('will fail') : h.willNotRun ? st.red('will not run') : h.enabled ? st.green('enabled') : st.yellow('disabled'),
      h.trust === 'approved' ? st.green('approved') : h.trust === 'new' || h.trust === 'changed' ? st.yellow(TRUST_TEXT[h.trust]) : st.dim(TRUST_TEXT[h.trust] || '-'),
      escapeTerminal(h.source),
      // A disabled hook has no argv: its file is shown instead, so the row says which one.
      h.command.length > 0 ? h.command.map(shellQuote).join(' ') : shellQuote(h.path),
    ])
    const header = ['HOOK', 'STATE', 'TRUST', 'SOURCE', 'ARGV'].map((s) => st.dim(s))
    const widths = [0, 1, 2, 3].map((c) => Math.max(...[header, ...rows].map((r) => visibleLength(r[c]))))
    const line = (r) => r.slice(0, 4).map((cell, c) => pad(cell, widths[c])).join('  ') + '  ' + r[4]
    out.push(line(header))
    const indent = ' '.repeat(widths[0] + widths[1] + widths[2] + widths[3] + 8)
    found.forEach((h, i) => {
      out.push(line(rows[i]))
      if (h.forHooks) out.push(indent + st.dim(`↳ for: ${h.forHooks.map((n) => escapeTerminal(n)).join(', ')}`))
      const reason = escapeTerminal(h.reason || '')
      if (h.willFail) out.push(indent + st.yellow(`↳ fails: ${reason}`))
      else if (!h.enabled || h.willNotRun) out.push(indent + st.yellow(`↳ not run: ${reason || 'disabled'}`))
      else if (reason) out.push(indent + st.yellow(`↳ warning: ${reason}`))
      // What discovery said of a hook that runs (a matcher naming no tool, a header's typo),
      // unless the reason above already says it.
      for (const warning of h.warnings || []) {
        if (!h.reason || !warning.startsWith(h.reason)) out.push(indent + st.yellow(`↳ warning: ${escapeTerminal(warning)}`))
      }
      if (h.fix) out.push(indent + `↳ fix: ${escapeTerminal(h.fix)}`)
    })
  }
  if (named !== null && found.length === 0) {
    out.push(`No ${escapeTerminal(named)} hook found.`)
  } else if (none.length > 0) {
    if (out.length > 0) out.push('')
    out.push(st.dim(`No hooks for: ${none.map((n) => escapeTerminal(n)).join(', ')}`))
  }
  out.push(st.dim(`Searched: ${searched}`))
  return out.join('\n') + '\n'
}

/**
 * The rows of hook `name`: its `hooks` as discovery found them, each marked `willNotRun` (with the
 * doctor's reason and fix) where the doctor says it will not run, then the other files the
 * doctor says are meant for it and will not run (misnamed, passed over), as rows of their own.
 */
function withDiagnosis(name, hooks, reports) {
  const mine = reports.filter((r) => r.hookName === name && !r.willRun && r.problem !== 'notAHook')
  const rows = hooks.map((h) => {
    const report = mine.find((r) => r.path === h.path)
    if (!report) return h
    // The doctor's words, so list and doctor say the same of every file.
    // A handler whose script is missing runs, and fails (or blocks) every time: not "will not run".
    if (h.enabled && report.problem === 'missingScript') return { ...h, willFail: true, reason: report.reason, fix: report.fix }
    return { ...h, willNotRun: h.enabled, reason: report.reason, fix: report.fix }
  })
  for (const r of mine) {
    if (hooks.some((h) => h.path === r.path)) continue
    rows.push({ hookName: name, path: r.path, source: r.source, enabled: false, willNotRun: true, trust: 'notRequired', command: [], reason: r.reason, fix: r.fix })
  }
  return rows
}

/**
 * `found` with the rows that say the same of the same file under several hook names (a Claude
 * settings file that is not JSON is listed under every hook) as one row: `every hook` when it
 * is all of `names`, else `<n> hooks`, named on a line of its own.
 */
function mergeRepeats(found, names) {
  const key = (h) => JSON.stringify([h.path, h.enabled, Boolean(h.willNotRun), h.reason || '', h.fix || ''])
  const byKey = new Map()
  for (const h of found) {
    if (h.enabled && !h.willNotRun) continue
    byKey.set(key(h), [...(byKey.get(key(h)) || []), h.hookName])
  }
  const shown = new Set()
  const merged = []
  for (const h of found) {
    const hookNames = h.enabled && !h.willNotRun ? [h.hookName] : byKey.get(key(h))
    if (hookNames.length === 1) {
      merged.push(h)
      continue
    }
    if (shown.has(key(h))) continue
    shown.add(key(h))
    const every = hookNames.length === names.length
    merged.push({ ...h, hookName: every ? 'every hook' : `${hookNames.length} hooks`, forHooks: every ? null : hookNames })
  }
  return merged
}

async function cmdList({ positionals, opts }, session) {
  const { discoverHooks, diagnoseHooks, KNOWN_HOOKS } = hooksLib(session)
  const named = positionals.length > 0 ? positionals[0] : null
  const names = named !== null ? [named] : KNOWN_HOOKS
  if (named !== null) await checkHookName(named, session)
  warnMissingDirs(opts)
  const options = withPolicy(opts, 'off')

  let diagnosis
  try {
    diagnosis = await diagnoseHooks(options)
  } catch (e) {
    throw asUsageError(e)
  }
  const found = []
  const none = []
  for (const name of names) {
    let hooks
    try {
      hooks = await discoverHooks(name, options)
    } catch (e) {
      throw asUsageError(e)
    }
    const rows = withDiagnosis(name, hooks, diagnosis.hooks)
    if (rows.length === 0) none.push(name)
    for (const h of rows) found.push(h)
  }
  const text = renderList({ found: mergeRepeats(found, names), none, named, searched: describeSearch(options) }, makeStyle(useColour()))
  return { text, code: EXIT.OK }
}

module.exports = { cmdList, renderList }
