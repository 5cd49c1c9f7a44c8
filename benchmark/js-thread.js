#!/usr/bin/env node
'use strict'

// What one run costs the JavaScript thread (issue 11, bench row (h)): event-loop active time
// per operation, from `performance.eventLoopUtilization()`, for a `runHook` of a trivial hook, a
// `fs.promises.stat` in the same process (the yardstick: one thread-pool round trip) and the
// warm no-hook path, each awaited one after another, at a ~50 MB host and a 3 GiB one.
//
//   node --expose-gc benchmark/js-thread.js            both hosts, prints a table (~30 s)
//   node benchmark/js-thread.js --quick                fewer rounds
//   node benchmark/js-thread.js --heap small|g3        one host only
//
// A run leaves the event loop idle while its hook runs (about a millisecond), and waking a loop
// that has idled costs more than waking one that has not (on a VM, the idle vCPU is halted and
// its caches are cold), which a `fs.promises.stat` awaited back to back never pays. So each
// operation is also measured alone after 1 ms of idle loop (a timer), like for like: the active
// time from just before the call to just after its promise settled, summed over the batch.
// And the same fixed JavaScript (three JSON round trips of the input) is timed right after a
// run, a stat and a 1 ms timer settled: how fast any code runs on the thread at that moment.
// Node's own child_process runner (benchmark/lib/node-runner.js) is the other yardstick: what
// the editor's thread would pay without the addon.
//
// Each host is a fresh Node process (--max-old-space-size=8192 --expose-gc) grown with
// benchmark/lib/heap.js like rows (b) and (c). The operations run in interleaved rounds, so a
// noisy neighbour hits all of them alike; each figure is the median over rounds of the active
// time of a round divided by its operations. Active time is the event loop's time outside
// its poll for I/O: JavaScript, native callbacks, promise jobs and the GC they cause.

const { spawn } = require('child_process')
const { performance } = require('perf_hooks')

const GiB = 2 ** 30
const HEAPS = {
  small: { label: 'host ~50 MB', bytes: 0 },
  g3: { label: 'host 3 GiB', bytes: 3 * GiB },
}
const NODE_FLAGS = ['--max-old-space-size=8192', '--expose-gc']
// The operations also measured one at a time after the loop idled (see above).
const LIKE_FOR_LIKE = ['runHook', 'stat']

/** The measurements at one heap size, in this (child) process. */
async function measureHere(task) {
  const fs = require('fs')
  const addon = require('..')
  const heap = require('./lib/heap')
  const { summarize } = require('./lib/stats')
  const { runWithNode } = require('./lib/node-runner')
  const input = task.input
  const HOOK = task.hookName

  const inflated = heap.inflate(task.heapBytes)
  const trivial = { extraHooksDirs: [task.dir], globalHooksDir: null }
  const noHook = { extraHooksDirs: [task.noHook.extra], globalHooksDir: null, workspaceRoots: task.noHook.roots }
  const ops = {
    runHook: async () => {
      const r = await addon.runHook(HOOK, input, trivial)
      if (r.hooks.length !== 1 || r.hooks[0].status !== 'completed' || !r.hooks[0].output || r.hooks[0].output.cancel !== false) {
        throw new Error(`runHook did not complete as expected: ${JSON.stringify(r).slice(0, 2000)}`)
      }
    },
    stat: async () => {
      const s = await fs.promises.stat(task.hook)
      if (!s.isFile()) throw new Error('the hook is not a file')
    },
    // The warm no-hook path: hooks exist, none for this name (row (f)'s loop).
    noHook: async () => {
      const r = await (await factory.create(HOOK)).run(input)
      if (r.hooks.length !== 0) throw new Error('the no-hook fixture has a hook for this name')
    },
    noHookRunHook: async () => {
      const r = await addon.runHook(HOOK, input, noHook)
      if (r.hooks.length !== 0) throw new Error('the no-hook fixture has a hook for this name')
    },
    // What the editor would pay without the addon: Node's own child_process runner.
    nodeRunner: async () => {
      const r = await runWithNode(task.hook, input)
      if (!r.output || r.output.cancel !== false) throw new Error(`the Node runner did not get the verdict: ${JSON.stringify(r).slice(0, 2000)}`)
    },
  }
  // The same fixed JavaScript, timed right after an operation settled: how fast the thread
  // runs when it comes back from that operation (caches, an idle vCPU's wake-up), which is
  // the same for the addon's own work at that moment.
  const AFTER = {
    runHook: () => addon.runHook(HOOK, input, trivial),
    stat: () => fs.promises.stat(task.hook),
    idle: () => new Promise((resolve) => setTimeout(resolve, 1)),
  }
  const fixedWork = () => {
    const t = performance.now()
    for (let k = 0; k < 3; k++) JSON.parse(JSON.stringify(input))
    return performance.now() - t
  }
  const workAfter = async (name) => {
    let spent = 0
    for (let i = 0; i < task.runs / 2; i++) {
      await AFTER[name]()
      spent += fixedWork()
    }
    return (spent * 1000) / (task.runs / 2)
  }
  const factory = new addon.HookFactory(noHook)
  // Node's own child_process forks the host on this thread: a few runs say enough.
  const sizes = { runHook: task.runs, stat: task.runs, noHook: task.runs * 20, noHookRunHook: task.runs * 20, nodeRunner: Math.max(5, task.runs / 20) }

  const idleFirst = async (name) => {
    const op = ops[name]
    const n = sizes[name]
    let active = 0
    for (let i = 0; i < n; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1))
      const before = performance.eventLoopUtilization()
      await op()
      active += performance.eventLoopUtilization(before).active
    }
    return (active * 1000) / n
  }
  const batch = async (name) => {
    const op = ops[name]
    const n = sizes[name]
    const start = performance.eventLoopUtilization()
    const t = performance.now()
    for (let i = 0; i < n; i++) await op()
    const used = performance.eventLoopUtilization(start)
    return { active: (used.active * 1000) / n, wall: ((performance.now() - t) * 1000) / n }
  }
  // Warm: the addon's threads started, the discovery snapshots taken, the code optimised.
  for (const name of Object.keys(ops)) for (let i = 0; i < Math.min(50, sizes[name]); i++) await ops[name]()
  for (const name of Object.keys(AFTER)) await workAfter(name)
  if (global.gc) global.gc()

  const samples = Object.fromEntries(Object.keys(ops).map((n) => [n, { active: [], wall: [] }]))
  const idle = Object.fromEntries(LIKE_FOR_LIKE.map((n) => [n, []]))
  const after = Object.fromEntries(Object.keys(AFTER).map((n) => [n, []]))
  const names = Object.keys(ops)
  for (let r = 0; r < task.rounds; r++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length]
      const b = await batch(name)
      samples[name].active.push(b.active)
      samples[name].wall.push(b.wall)
    }
    for (const name of LIKE_FOR_LIKE) idle[name].push(await idleFirst(name))
    for (const name of Object.keys(AFTER)) after[name].push(await workAfter(name))
  }
  const out = { rss: heap.rss(), heapUsed: process.memoryUsage().heapUsed, inflateMs: inflated.ms, rounds: task.rounds }
  for (const name of names) {
    out[name] = { us: summarize(samples[name].active).median, wallUs: summarize(samples[name].wall).median, per: sizes[name], rounds: samples[name].active }
  }
  out.ratio = out.runHook.us / out.stat.us
  out.afterIdle = Object.fromEntries(LIKE_FOR_LIKE.map((n) => [n, summarize(idle[n]).median]))
  out.afterIdle.ratio = out.afterIdle.runHook / out.afterIdle.stat
  out.fixedWorkAfter = Object.fromEntries(Object.keys(AFTER).map((n) => [n, summarize(after[n]).median]))
  return out
}

/** Runs the measurement at heap `key` in a fresh Node process; resolves with its result. */
function measureIn(key, base) {
  const task = { ...base, heap: key, heapBytes: HEAPS[key].bytes }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, __filename, '--child', JSON.stringify(task)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '))
      if (code !== 0 || !line) return reject(new Error(`the js-thread measurement at ${key} exited with ${code}`))
      resolve(JSON.parse(line.slice(7)))
    })
  })
}

/**
 * Both hosts (or `heaps`), with the fixtures of benchmark/lib/fixtures.js; resolves with
 * `{ small, g3 }`, each `{ runHook, stat, noHook, noHookRunHook: { us, wallUs }, ratio, rss }`.
 */
async function measure({ fx, input, rounds = 10, runs = 200, heaps = Object.keys(HEAPS), log = () => {} }) {
  const base = { hookName: fx.hookName, input, dir: fx.trivialDir, hook: fx.trivialHook, noHook: fx.noHook, rounds, runs }
  const result = {}
  for (const key of heaps) {
    log(`JS-thread cost per operation, ${HEAPS[key].label}`)
    result[key] = await measureIn(key, base)
    const r = result[key]
    log(
      `    ${HEAPS[key].label} (RSS ${(r.rss / 2 ** 20).toFixed(0)} MiB, V8 heap ${(r.heapUsed / 2 ** 20).toFixed(0)} MiB): ` +
        `runHook ${r.runHook.us.toFixed(1)} µs, stat ${r.stat.us.toFixed(1)} µs (${r.ratio.toFixed(2)}×), ` +
        `no hook ${r.noHook.us.toFixed(2)} µs (runHook ${r.noHookRunHook.us.toFixed(2)} µs); ` +
        `after 1 ms idle: runHook ${r.afterIdle.runHook.toFixed(1)} µs, stat ${r.afterIdle.stat.toFixed(1)} µs (${r.afterIdle.ratio.toFixed(2)}×); ` +
        `Node's child_process runner ${r.nodeRunner.us.toFixed(0)} µs; the same JavaScript right after a run / a stat / 1 ms idle: ` +
        `${r.fixedWorkAfter.runHook.toFixed(1)} / ${r.fixedWorkAfter.stat.toFixed(1)} / ${r.fixedWorkAfter.idle.toFixed(1)} µs`,
    )
  }
  return result
}

async function main() {
  const args = process.argv.slice(2)
  if (args[0] === '--child') {
    const result = await measureHere(JSON.parse(args[1]))
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
    return
  }
  const fixtures = require('./lib/fixtures')
  const quick = args.includes('--quick')
  const heaps = args.includes('--heap') ? [args[args.indexOf('--heap') + 1]] : Object.keys(HEAPS)
  if (!heaps.every((h) => HEAPS[h])) throw new Error(`--heap takes ${Object.keys(HEAPS).join(' or ')}`)
  const fx = fixtures.create()
  try {
    const r = await measure({
      fx,
      input: fixtures.input(),
      rounds: quick ? 4 : 10,
      runs: quick ? 100 : 200,
      heaps,
      log: (m) => process.stderr.write(`${m}\n`),
    })
    console.log('| Host | runHook µs/op | fs.promises.stat µs/op | runHook / stat | after 1 ms idle: runHook / stat µs | ratio | no hook: create()+run() / runHook µs/op | Node child_process runner µs/op | same JS right after a run / stat / idle µs | runHook wall µs/op |')
    console.log('|---|---|---|---|---|---|---|---|---|---|')
    for (const key of heaps) {
      const x = r[key]
      console.log(
        `| ${HEAPS[key].label} (RSS ${(x.rss / 2 ** 20).toFixed(0)} MiB) | ${x.runHook.us.toFixed(1)} | ${x.stat.us.toFixed(1)} | ` +
          `${x.ratio.toFixed(2)}× | ${x.afterIdle.runHook.toFixed(1)} / ${x.afterIdle.stat.toFixed(1)} | ${x.afterIdle.ratio.toFixed(2)}× | ` +
          `${x.noHook.us.toFixed(2)} / ${x.noHookRunHook.us.toFixed(2)} | ${x.nodeRunner.us.toFixed(0)} | ` +
          `${x.fixedWorkAfter.runHook.toFixed(1)} / ${x.fixedWorkAfter.stat.toFixed(1)} / ${x.fixedWorkAfter.idle.toFixed(1)} | ${x.runHook.wallUs.toFixed(0)} |`,
      )
    }
  } finally {
    fx.remove()
  }
}

module.exports = { measure, HEAPS }

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err && err.stack ? err.stack : err}\n`)
    process.exit(1)
  })
}
