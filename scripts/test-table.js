#!/usr/bin/env node
'use strict'

// The README's table of where each test file's tests run, from two Jest JSON reports:
//
//   npx jest --json --outputFile=/tmp/linux.json
//   npm run test:windows        # writes .ci-cache/windows/jest-results.json
//   node scripts/test-table.js /tmp/linux.json .ci-cache/windows/jest-results.json
//
// Columns: the tests of each file; how many pass on Linux; how many pass on the Windows build
// under Wine; and how many run on a real Windows runner: those that pass under Wine plus the
// ones skipped there for Wine alone (their titles say why), which the workflow runs. Then the
// share of the tests not tied to one platform's rules that pass under Wine (issue 12's bar);
// VERBOSE=1 lists the tests counted in that share that did not run.

const fs = require('fs')
const path = require('path')

/** { file: [{ title, status }] } from a Jest --json report. */
function byFile(report) {
  const out = {}
  for (const suite of report.testResults) {
    const file = path.basename(suite.name.replace(/\\/g, '/'))
    out[file] = suite.assertionResults.map((a) => ({ title: a.fullName || a.title, status: a.status }))
  }
  return out
}

// Why a test is skipped on Windows, read from the reason its title gives.
/** Skipped under Wine alone: Wine's stubs and missing tools the workflow's runners have. */
const WINE_ONLY = /Wine's|Python 3 is not on PATH/
/** Tied to a rule of one platform: Unix's (exec bits, #!, signals, /proc ...) or Windows' own. */
const PLATFORM_RULE =
  /exec bit|shebang|#!|symlink|symbolic link|POSIX|process group|signal|\/proc|FIFO|\/dev\/|bash|zombie|SIGCHLD|pidfd|cgroup|Linux|XDG|PATH_MAX|pty|permission|chmod|follows HOME|strace|extensionless|Unix|Windows (does not|always)/i

const wineOnly = (title) => WINE_ONLY.test(title)
const platformRule = (title) => !wineOnly(title) && !/is not on PATH/.test(title) && PLATFORM_RULE.test(title)

function main([linuxFile, wineFile]) {
  if (!linuxFile || !wineFile) {
    console.error('usage: node scripts/test-table.js <linux jest --json> <wine jest --json>')
    process.exit(2)
  }
  const linux = byFile(JSON.parse(fs.readFileSync(linuxFile, 'utf8')))
  const wine = byFile(JSON.parse(fs.readFileSync(wineFile, 'utf8')))
  const rows = []
  const notRun = []
  const total = { tests: 0, linux: 0, wine: 0, real: 0, portable: 0 }
  for (const file of Object.keys({ ...linux, ...wine }).sort()) {
    const w = wine[file] || []
    const l = linux[file] || []
    // Files with tests only one platform declares (a note on the other): the larger list.
    const tests = Math.max(w.length, l.length)
    const linuxPass = l.filter((t) => t.status === 'passed').length
    const winePass = w.filter((t) => t.status === 'passed').length
    const real = winePass + w.filter((t) => t.status === 'pending' && wineOnly(t.title)).length
    const portable = w.filter((t) => !(t.status === 'pending' && platformRule(t.title))).length
    for (const t of w) if (t.status === 'pending' && !platformRule(t.title)) notRun.push(`${file} :: ${t.title}`)
    rows.push(`| \`${file}\` | ${tests} | ${linuxPass} | ${winePass} | ${real} |`)
    total.tests += tests
    total.linux += linuxPass
    total.wine += winePass
    total.real += real
    total.portable += portable
  }
  console.log('| test file | tests | pass on Linux | pass on Windows under Wine | run on real Windows (workflow) |')
  console.log('|---|---|---|---|---|')
  for (const row of rows) console.log(row)
  console.log(`| **all** | **${total.tests}** | **${total.linux}** | **${total.wine}** | **${total.real}** |`)
  const share = ((100 * total.wine) / total.portable).toFixed(1)
  console.log(`\nUnder Wine, ${total.wine} of the ${total.portable} tests not tied to one platform's rules pass (${share}%).`)
  if (process.env.VERBOSE) console.error(`not run under Wine, though tied to no platform rule:\n  ${notRun.join('\n  ')}`)
}

main(process.argv.slice(2))
