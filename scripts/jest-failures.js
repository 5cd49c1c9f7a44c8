#!/usr/bin/env node
'use strict'

// Prints each failed test of a Jest `--json` results file with the start of its failure
// message, so the last lines of a long run's log say what failed and why (a CI log is often
// read from its end).
//
//   node scripts/jest-failures.js <results.json> [lines per failure, default 30]

const fs = require('fs')

const [file, perFailure = '30'] = process.argv.slice(2)
if (!file) {
  console.error('usage: node scripts/jest-failures.js <results.json> [lines per failure]')
  process.exit(2)
}

let results
try {
  results = JSON.parse(fs.readFileSync(file, 'utf8'))
} catch (err) {
  console.error(`jest-failures: cannot read ${file}: ${err.message}`)
  process.exit(2)
}

// eslint-disable-next-line no-control-regex
const plain = (text) => text.replace(/\u001b\[[0-9;]*m/g, '')
let failed = 0
for (const suite of results.testResults || []) {
  const name = suite.name.replace(/^.*[\\/]__test__[\\/]/, '__test__/')
  const tests = (suite.assertionResults || []).filter((t) => t.status === 'failed')
  if (tests.length === 0 && suite.status === 'failed') {
    failed += 1
    console.log(`✕ ${name}: the file failed to run`)
    console.log(plain(suite.message || '').split('\n').slice(0, Number(perFailure)).join('\n'))
  }
  for (const test of tests) {
    failed += 1
    console.log(`✕ ${name} › ${[...test.ancestorTitles, test.title].join(' › ')}`)
    // Jest's own frames say nothing of the failure and would push the diff out of the lines shown.
    const message = plain((test.failureMessages || []).join('\n'))
      .split('\n')
      .filter((line) => !/^\s*at .*node_modules[\\/]/.test(line))
    console.log(message.slice(0, Number(perFailure)).map((line) => `    ${line}`).join('\n'))
  }
}
console.log(failed === 0 ? 'no failed tests' : `${failed} failed`)
