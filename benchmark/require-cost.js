#!/usr/bin/env node
'use strict'

// `node benchmark/require-cost.js [runs]`: what the entry point's checks add to
// `require('@cline/hooks')`. Lays the package out as npm installs it (node_modules/@cline/hooks
// and the host's platform package, in a temp folder), then times `require` in fresh Node
// processes, alternating between the entry point (index.js: checks, then loads the binary by its
// path) and napi's generated loader alone (binding.js, from the source tree: not shipped), and
// prints the medians and their difference.

const fs = require('fs')
const os = require('os')
const path = require('path')
const { execFileSync } = require('child_process')

const ROOT = path.resolve(__dirname, '..')
const runs = Number(process.argv[2]) || 30
const manifest = require('../package.json')
require('..')
const binary = Object.keys(require.cache).find((file) => file.endsWith('.node'))
const platform = path.basename(binary).slice(manifest.napi.binaryName.length + 1, -'.node'.length)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-require-'))
try {
  const root = path.join(dir, 'node_modules', manifest.name)
  const native = path.join(dir, 'node_modules', `${manifest.name}-${platform}`)
  fs.mkdirSync(root, { recursive: true })
  fs.mkdirSync(native, { recursive: true })
  for (const entry of ['package.json', 'binding.js', ...manifest.files]) fs.cpSync(path.join(ROOT, entry), path.join(root, entry), { recursive: true })
  fs.copyFileSync(binary, path.join(native, path.basename(binary)))
  const size = fs.statSync(binary).size
  fs.writeFileSync(path.join(native, 'package.json'), JSON.stringify({ name: `${manifest.name}-${platform}`, version: manifest.version, main: path.basename(binary), clineHooksBinary: { size } }))

  const time = (target) =>
    Number(execFileSync(process.execPath, ['-e', `const t = process.hrtime.bigint(); require(${JSON.stringify(target)}); console.log(Number(process.hrtime.bigint() - t) / 1e6)`], { cwd: dir, encoding: 'utf8' }))
  const entry = []
  const loader = []
  for (let i = 0; i < runs; i++) {
    entry.push(time(manifest.name))
    loader.push(time(path.join(root, 'binding.js')))
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const [e, l] = [median(entry), median(loader)]
  console.log(`require('${manifest.name}') in a fresh process, median of ${runs} (${platform}, Node ${process.version}):`)
  console.log(`  entry point (checks, then the binary by path)    ${e.toFixed(2)} ms`)
  console.log(`  the generated loader alone                       ${l.toFixed(2)} ms`)
  console.log(`  the checks add                                    ${(e - l).toFixed(2)} ms`)
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
