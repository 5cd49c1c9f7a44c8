'use strict'

// `cline-hooks doctor`: every file in every folder Cline searches, whether it will run, and when
// not, why and the fix (the addon's diagnoseHooks), then the runtime facts behind it. Exit 0 when
// every hook file found runs, 1 when one will not run or a folder cannot be read. Paths, names
// and reasons come from the repository and the system and are escaped.

const path = require('path')

const { EXIT } = require('./exit-codes')
const { escapeTerminal, terminalSafeJson } = require('./terminal-text')
const { makeStyle, useColour, displayPath, plural } = require('./format')
const { hooksLib, asUsageError, warnMissingDirs } = require('./discovery')
const { withPolicy } = require('./policy')

// The label column of a file's detail lines; its value starts two columns after it.
const LABEL_WIDTH = 7

/** One line per searched folder: its source, its path, and whether it is there. */
function folderLines(folders, st) {
  const width = folders.reduce((w, f) => Math.max(w, f.source.length), 0)
  return folders.map((f) => {
    const where = `${st.dim(escapeTerminal(f.source).padEnd(width))}  ${displayPath(f.path)}`
    if (f.problem) return `  ${st.red('✘')} ${where}\n      ${st.red(escapeTerminal(f.problem))}`
    return f.exists ? `  ${st.green('✔')} ${where}` : `  ${st.dim('·')} ${where} ${st.dim('(not there)')}`
  })
}

/** A file's lines: a mark, the hook (or the file's name), its path, then why not and the fix. */
function fileLines(files, st) {
  // The file's name: a misnamed file's hook is in its reason.
  const name = (h) => escapeTerminal(path.basename(h.path))
  // Long names would push every row off the screen: past 40 columns they are not padded for.
  const width = Math.min(40, files.reduce((w, h) => Math.max(w, name(h).length), 0))
  const out = []
  const detail = (label, text, style) => out.push(`      ${st.dim(label.padEnd(LABEL_WIDTH))} ${style(escapeTerminal(text))}`)
  for (const h of files) {
    const mark = h.willRun ? st.green('✔') : h.problem === 'notAHook' ? st.dim('·') : st.red('✘')
    const label = h.willRun ? st.bold(name(h).padEnd(width)) : name(h).padEnd(width)
    out.push(`  ${mark} ${label}  ${displayPath(h.path)} ${st.dim(`(${escapeTerminal(h.source)})`)}`)
    if (h.willRun) continue
    if (h.problem === 'notAHook') {
      detail('ignored', h.reason, st.dim)
      continue
    }
    detail('problem', `${h.problem}: ${h.reason}`, st.yellow)
    if (h.fix) detail('fix', h.fix, (s) => s)
  }
  return out
}

/** The runtime facts, one per line. */
function runtimeLines(rt, st) {
  const windows = rt.platform === 'win32'
  const rows = [
    ['platform', `${rt.platform}, ${rt.profile} profile`],
    ['global folder', rt.globalHooksDir ? displayPath(rt.globalHooksDir) : 'off'],
  ]
  if (rt.profile === 'cli') rows.push(['CLINE_DIR', rt.clineDir ? displayPath(rt.clineDir) : 'not found'])
  rows.push(['managed folder', rt.managedHooksDir ? displayPath(rt.managedHooksDir) : 'off'])
  rows.push(['PowerShell', rt.powershell ? displayPath(rt.powershell) : `not found${windows ? '' : ' (pwsh: only .ps1 hooks need it)'}`])
  rows.push(['PATHEXT', windows ? escapeTerminal(rt.pathext === undefined ? '(unset: the default)' : rt.pathext) : '(Windows only)'])
  rows.push(['policy store', rt.policyFile ? `${displayPath(rt.policyFile)} (trust ${escapeTerminal(rt.trust)})` : 'none'])
  if (rt.sandbox) {
    const support = rt.sandbox.supported ? escapeTerminal(rt.sandbox.detail) : `unavailable: ${escapeTerminal(rt.sandbox.detail)}`
    rows.push(['sandbox', `${escapeTerminal(rt.sandbox.mode)}; ${support}`])
  }
  const width = rows.reduce((w, r) => Math.max(w, r[0].length), 0)
  return rows.map(([k, v]) => `  ${st.dim(k.padEnd(width))}  ${v}`)
}

/** The last line: nothing wrong, or how many mistakes of which kind. */
function verdictLine(report, st) {
  const files = report.hooks.filter((h) => !h.willRun && h.problem !== 'notAHook').length
  const folders = report.folders.filter((f) => f.problem).length
  const running = report.hooks.filter((h) => h.willRun).length
  if (report.mistakes === 0) {
    const what = running === 0 ? 'no hook files found' : `${plural(running, 'hook file')} found, every one will run`
    return st.green(`✔ ${what}`)
  }
  const parts = []
  if (files > 0) parts.push(`${plural(files, 'file')} will not run`)
  if (folders > 0) parts.push(`${plural(folders, 'folder')} cannot be read`)
  return st.red(st.bold(`✘ ${parts.join(', ')}`)) + (running > 0 ? st.dim(` (${plural(running, 'hook file')} will run)`) : '')
}

/** The human-readable report of a HookDiagnosis. */
function renderDoctor(report, st) {
  // concat, not push(...lines): a folder of 100,000 files would pass the call stack's limit.
  let out = [st.bold('Folders searched, in order')].concat(folderLines(report.folders, st))
  out.push('', st.bold('Files'))
  if (report.hooks.length === 0) out.push(st.dim('  none'))
  out = out.concat(fileLines(report.hooks, st))
  out.push('', st.bold('Runtime'))
  out = out.concat(runtimeLines(report.runtime, st))
  for (const w of report.warnings) out.push('', st.yellow(`warning: ${escapeTerminal(w)}`))
  out.push('', verdictLine(report, st))
  return out.join('\n') + '\n'
}

async function cmdDoctor({ opts }, session) {
  const { diagnoseHooks } = hooksLib(session)
  warnMissingDirs(opts)
  const options = withPolicy(opts, 'off')
  let report
  try {
    report = await diagnoseHooks(options)
  } catch (e) {
    throw asUsageError(e)
  }
  const code = report.mistakes > 0 ? EXIT.WILL_NOT_RUN : EXIT.OK
  if (opts.json) return { text: terminalSafeJson(report) + '\n', code, exact: true }
  return { text: renderDoctor(report, makeStyle(useColour())), code }
}

module.exports = { cmdDoctor, renderDoctor }
