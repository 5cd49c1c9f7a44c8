#!/usr/bin/env node
'use strict'

// `node benchmark/sandbox.js`: what confining a hook (`sandbox: 'workspace'`) costs a run,
// against the same trivial hook unconfined, in one Node process per host size (about 60 MB,
// and grown to 3 GiB of real resident memory as an editor's extension host can be), the two
// kinds alternating round by round so both see the same machine. Prints one Markdown row per
// size: median ms per run of each, and the ratio. Linux only (Landlock).
//
//   node benchmark/sandbox.js             200 runs × 5 rounds of each per size
//   node benchmark/sandbox.js --quick     50 runs × 3 rounds

const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawnSync } = require('child_process')

const QUICK = process.argv.includes('--quick')
const GiB = 2 ** 30

if (process.argv[2] === '--worker') {
  worker(Number(process.argv[3]), JSON.parse(process.argv[4])).then(
    (row) => process.stdout.write(JSON.stringify(row)),
    (e) => {
      process.stderr.write(`${e.stack}\n`)
      process.exit(1)
    },
  )
} else {
  main()
}

function main() {
  if (process.platform !== 'linux') {
    console.error('benchmark/sandbox.js measures Landlock confinement: Linux only')
    process.exit(2)
  }
  const config = QUICK ? { runs: 50, rounds: 3 } : { runs: 200, rounds: 5 }
  console.log('| host | unconfined (ms/run) | confined (ms/run) | confined / unconfined |')
  console.log('|---|---|---|---|')
  for (const [label, bytes] of [['~60 MB', 0], ['3 GiB', 3 * GiB]]) {
    const run = spawnSync(process.execPath, ['--max-old-space-size=8192', '--expose-gc', __filename, '--worker', String(bytes), JSON.stringify(config)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    if (run.status !== 0) process.exit(1)
    const row = JSON.parse(run.stdout)
    console.log(`| ${label} (RSS ${(row.rss / GiB).toFixed(2)} GiB) | ${row.plain.toFixed(2)} | ${row.confined.toFixed(2)} | ${(row.confined / row.plain).toFixed(2)}× |`)
  }
}

async function worker(bytes, { runs, rounds }) {
  const heap = require('./lib/heap')
  const { runHook } = require('..')
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-bench-sandbox-'))
  const dir = path.join(root, '.clinerules', 'hooks')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'PreToolUse'), "#!/bin/sh\nprintf '{}'\n", { mode: 0o755 })
  heap.inflate(bytes)
  const options = { workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null }
  const kinds = { plain: options, confined: { ...options, sandbox: 'workspace' } }
  const medians = { plain: [], confined: [] }
  const once = async (opts) => {
    const result = await runHook('PreToolUse', {}, opts)
    if (result.hooks[0].status !== 'completed') throw new Error(JSON.stringify(result.hooks[0]))
    return result.hooks[0].confined
  }
  if ((await once(kinds.confined)) !== true) throw new Error('the confined hook did not run confined')
  for (let round = 0; round < rounds; round++) {
    for (const [kind, opts] of Object.entries(kinds)) {
      const times = []
      for (let i = 0; i < runs; i++) {
        const started = process.hrtime.bigint()
        await once(opts)
        times.push(Number(process.hrtime.bigint() - started) / 1e6)
      }
      times.sort((a, b) => a - b)
      medians[kind].push(times[times.length >> 1])
    }
  }
  fs.rmSync(root, { recursive: true, force: true })
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]
  return { rss: heap.rss(), plain: median(medians.plain), confined: median(medians.confined) }
}
