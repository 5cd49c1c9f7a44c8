'use strict'

// The floor of row (a): benchmark/floor.rs, compiled once with `rustc -O` into
// target/benchmark/ (keyed by the source's hash), run as its own small process.

const crypto = require('crypto')
const fs = require('fs')
const path = require('path')
const { execFileSync } = require('child_process')

const SOURCE = path.join(__dirname, '..', 'floor.rs')
const CACHE = path.join(__dirname, '..', '..', 'target', 'benchmark')

/** Path of the compiled floor program; throws with the reason when it cannot be built. */
function build() {
  const source = fs.readFileSync(SOURCE)
  const hash = crypto.createHash('sha256').update(source).digest('hex').slice(0, 12)
  const bin = path.join(CACHE, `floor-${hash}`)
  if (fs.existsSync(bin)) return bin
  fs.mkdirSync(CACHE, { recursive: true })
  const rustc = process.env.RUSTC || 'rustc'
  execFileSync(rustc, ['-O', '--edition', '2021', '-o', bin, SOURCE], { stdio: ['ignore', 'ignore', 'inherit'] })
  return bin
}

/**
 * Runs the hook `runs` times from the floor program; returns the samples in milliseconds.
 * With `likeAddonCwd`, starts it the way the addon does (process group, cwd, stderr piped).
 */
function measure(bin, hook, runs, input, likeAddonCwd) {
  const extra = likeAddonCwd ? [likeAddonCwd] : []
  const out = execFileSync(bin, [hook, String(runs), JSON.stringify(input), ...extra], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  })
  return JSON.parse(out).samplesMs
}

module.exports = { build, measure }
