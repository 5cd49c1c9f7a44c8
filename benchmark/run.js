#!/usr/bin/env node
'use strict'

// `npm run bench`: measures @cline/hooks against in-run baselines (rows a-l) and prints one
// Markdown table; writes it to benchmark/results.md and a chart to benchmark/chart.svg.
//
//   npm run bench                     full run (a few minutes on 2 cores)
//   npm run bench -- --quick          short run; writes nothing unless --write is given
//   npm run bench -- --quick --write  short run that also writes results.md and chart.svg
//   node benchmark/run.js --only h    row (h) alone (JS-thread cost of a run); writes nothing
//   node benchmark/run.js --only i    row (i) alone (discovery at scale); writes nothing
//   node benchmark/run.js --only f    row (f) alone (no hook: calls/s, strace); writes nothing
//   node benchmark/run.js --only j    row (j) alone (a hook skipped by tools=: calls/s, starts); writes nothing
//   node benchmark/run.js --only k    row (k) alone (persistent hooks vs started per call); writes nothing
//   node benchmark/run.js --only l    row (l) alone (8 runs at once on one persistent hook); writes nothing
//
// Each measurement runs in a fresh Node process (benchmark/worker.js; js-thread.js for (h))
// started with --max-old-space-size=8192 --expose-gc, so the big-heap rows can grow it to 1 and
// 3 GiB of real resident memory. Needs the addon built (`npm run build`), rustc for the
// floor (benchmark/floor.rs, compiled into target/benchmark/), and strace (optional) to count
// the system calls of row (f) and the process starts of row (j); python3 (optional) for the
// Python hooks of row (k). Linux (and other Unix) only: the hooks are /bin/sh scripts.

const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawn, spawnSync } = require('child_process')

const floor = require('./lib/floor')
const jsThread = require('./js-thread')
const fixtures = require('./lib/fixtures')
const chart = require('./lib/chart')
const { ms, ratio, rate, mib, gib } = require('./lib/stats')

const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  console.log(fs.readFileSync(__filename, 'utf8').split('\n').slice(3, 22).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'))
  process.exit(0)
}
const QUICK = args.includes('--quick')
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1] : null
const ALONE = ['f', 'h', 'i', 'j', 'k', 'l']
if (ONLY !== null && !ALONE.includes(ONLY)) {
  console.error(`--only takes a row that runs alone: ${ALONE.join(', ')} (not ${ONLY})`)
  process.exit(2)
}
const WRITE = !ONLY && (!QUICK || args.includes('--write'))

const GiB = 2 ** 30
const CONFIG = QUICK
  ? { runs: 150, rounds: 3, eventLoopRuns: 100, eventLoopReps: 1, throughputRuns: 300, parallelRuns: 5, noHookSeconds: 1, traceCalls: 50000, rssRepeats: 1, jsRounds: 4, jsRuns: 100, scaleEntries: 100000, scaleSeconds: 1,
      skipSeconds: 0.5, skipRounds: 1, skipTraceCalls: 20000, persistentCalls: 500, perCallCalls: 40, persistentRounds: 4, concurrentCalls: 1000, concurrentPerCall: 40, concurrentRounds: 2 }
  : { runs: 1000, rounds: 10, eventLoopRuns: 100, eventLoopReps: 3, throughputRuns: 2000, parallelRuns: 20, noHookSeconds: 3, traceCalls: 200000, rssRepeats: 2, jsRounds: 10, jsRuns: 200, scaleEntries: 100000, scaleSeconds: 3,
      skipSeconds: 0.5, skipRounds: 5, skipTraceCalls: 100000, persistentCalls: 2000, perCallCalls: 200, persistentRounds: 10, concurrentCalls: 4000, concurrentPerCall: 200, concurrentRounds: 4 }
const HEAPS = [
  { key: 'small', label: 'host ~50 MB', bytes: 0 },
  { key: 'g1', label: 'host 1 GiB', bytes: 1 * GiB },
  { key: 'g3', label: 'host 3 GiB', bytes: 3 * GiB },
]
const NODE_FLAGS = ['--max-old-space-size=8192', '--expose-gc']
const WORKER = path.join(__dirname, 'worker.js')

function say(msg) {
  process.stderr.write(`${msg}\n`)
}

/** Runs one task in a fresh Node process; resolves with its RESULT. */
function worker(task, prefix = []) {
  return new Promise((resolve, reject) => {
    const argv = [...prefix, process.execPath, ...NODE_FLAGS, WORKER, JSON.stringify(task)]
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '))
      if (code !== 0 || !line) return reject(new Error(`worker ${task.name} exited with ${code}`))
      resolve(JSON.parse(line.slice(7)))
    })
  })
}

function machine() {
  const cpus = os.cpus()
  const model = (cpus[0] && cpus[0].model.trim()) || 'unknown CPU'
  return {
    cpu: model,
    cores: cpus.length,
    mem: gib(os.totalmem()),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    load: os.loadavg()[0].toFixed(2),
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  }
}

function haveStrace() {
  const r = spawnSync('strace', ['-V'], { stdio: 'ignore' })
  return r.status === 0
}

/** Counts the system calls between the two markers of an `strace -f -o` trace. */
function countSyscalls(file, dir) {
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  const start = lines.findIndex((l) => l.includes('cline-hooks-bench-start'))
  const end = lines.findIndex((l) => l.includes('cline-hooks-bench-end'))
  if (start < 0 || end < 0) throw new Error('strace markers not found')
  const jsThread = lines[start].split(/\s+/)[0]
  const byName = {}
  let total = 0
  let js = 0
  let rescans = 0
  for (const line of lines.slice(start + 1, end)) {
    if (line.includes(`"${dir}"`) && line.includes('O_DIRECTORY')) rescans++
    const m = /^(\d+)\s+([a-z0-9_]+)\(/.exec(line)
    if (!m) continue
    total++
    if (m[1] === jsThread) js++
    byName[m[2]] = (byName[m[2]] || 0) + 1
  }
  const top = Object.entries(byName)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([n, c]) => `${n} ${c}`)
    .join(', ')
  return { total, js, top, rescans }
}

/**
 * The processes started between two markers of an `strace -f -o` trace: `execve` calls, and
 * `clone`/`clone3`/`fork`/`vfork` calls that make a process (no CLONE_THREAD); thread clones
 * are counted apart.
 */
function countProcesses(file, from, to) {
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  const start = lines.findIndex((l) => l.includes(`cline-hooks-bench-${from}"`))
  const end = lines.findIndex((l) => l.includes(`cline-hooks-bench-${to}"`))
  if (start < 0 || end < 0) throw new Error(`strace markers ${from}/${to} not found`)
  let execve = 0
  let forks = 0
  let threads = 0
  let total = 0
  for (const line of lines.slice(start + 1, end)) {
    const m = /^\d+\s+([a-z0-9_]+)\(/.exec(line)
    if (!m) continue
    total++
    if (m[1] === 'execve' || m[1] === 'execveat') execve++
    else if (/^(clone3?|v?fork)$/.test(m[1])) {
      if (line.includes('CLONE_THREAD')) threads++
      else forks++
    }
  }
  return { execve, forks, threads, total }
}

const MET = '✅ met'
const MISSED = '❌ missed'
const mark = (ok) => (ok ? MET : MISSED)

const us = (v) => (v == null || Number.isNaN(v) ? 'n/a' : `${v.toFixed(v < 100 ? 1 : 0)} µs`)

/** The rows of (h), what a run costs the JavaScript thread. */
function jsThreadRows(row, j) {
  for (const key of ['small', 'g3']) {
    const x = j[key]
    if (!x) continue
    const host = key === 'small' ? `host ${mib(x.rss)}` : `host ${gib(x.rss)}`
    row('h', `JS-thread time per \`runHook\` of a trivial hook, awaited one after another (event-loop active time, median of ${x.rounds} rounds), ${host}`,
      `runHook ${us(x.runHook.us)}`,
      `\`fs.promises.stat\` ${us(x.stat.us)} · no hook: warm \`create()\` + \`run()\` ${us(x.noHook.us)}, \`runHook\` ${us(x.noHookRunHook.us)}`,
      `${ratio(x.ratio)} stat`, '≤ 2× stat', mark(x.ratio <= 2))
    if (x.afterIdle) {
      row('h', `the same, each operation alone after 1 ms of idle event loop (like for like: a run idles the loop while its hook runs), ${host}`,
        `runHook ${us(x.afterIdle.runHook)}`, `\`fs.promises.stat\` ${us(x.afterIdle.stat)}`,
        `${ratio(x.afterIdle.ratio)} stat`, '≤ 2× stat', mark(x.afterIdle.ratio <= 2))
    }
    if (x.nodeRunner) {
      row('h', `the same runs with Node's own \`child_process\` runner (what the thread pays without the addon), ${host}`,
        `runHook ${us(x.runHook.us)}`, `Node runner ${us(x.nodeRunner.us)}`,
        `Node ${ratio(x.nodeRunner.us / x.runHook.us)} more`, '(info)', '')
    }
    if (x.fixedWorkAfter) {
      const w = x.fixedWorkAfter
      row('h', `one fixed piece of JavaScript (3 JSON round trips of the input) timed right after an operation settled: how fast the thread runs then, ${host}`,
        `after a run ${us(w.runHook)}`, `after a stat ${us(w.stat)} · after 1 ms of idle loop ${us(w.idle)}`,
        `${ratio(w.runHook / w.idle)} after idle · ${ratio(w.runHook / w.stat)} after a stat`, '(info)', '')
    }
  }
}

/** The rows of (i), discovery at scale. */
function scaleRows(row, h) {
  const n = h.entries.toLocaleString('en')
  const pct = (share) => `${(share * 100).toFixed(1)}% of a core`
  const cpuWall = (s) => `${ms(s.cpu.median)} CPU / ${ms(s.wall.median)} wall`
  row('i', `first scan of a hooks folder of ${n} other files beside the hook (a fresh \`HookFactory\`), median of ${h.first.cpu.n}`,
    cpuWall(h.first), `Node \`fs.readdirSync\` of the folder ${cpuWall(h.readdir)}`,
    `${ratio(h.first.cpu.median / h.readdir.cpu.median)} Node readdir`, '< 50 ms CPU', mark(h.first.cpu.median < 50))
  row('i', `rescan of that folder, unchanged (\`create()\` on a stale snapshot), median / max of ${h.rescan.cpu.n}`,
    `${ms(h.rescan.cpu.median)} / ${ms(h.rescan.cpu.max)} CPU · ${ms(h.rescan.wall.median)} / ${ms(h.rescan.wall.max)} wall`,
    `first scan ${ms(h.first.cpu.median)} CPU`, `${ratio(h.rescan.cpu.median / h.first.cpu.median)} first scan`, '< 50 ms', mark(h.rescan.wall.max < 50))
  const loopRate = (l) => `${(l.runs / (l.wall / 1000)).toFixed(0)} runs/s, ${pct(l.cpu / l.wall)}`
  row('i', `\`runHook\` loop over that folder, CPU beyond the same runs beside no other file (${2 * h.loop.seconds} s each)`,
    `${pct(h.loop.extraShare)} (${loopRate(h.loop.crowded)})`, `hook alone: ${loopRate(h.loop.alone)}`, '', '< 10% of a core', mark(h.loop.extraShare < 0.1))
  row('i', '16 calls at once on a stale snapshot of that folder', `${ms(h.burst.wall)} wall, ${ms(h.burst.cpu)} CPU`,
    `one rescan ${ms(h.rescan.wall.median)}`, '', 'one rescan for all', mark(h.burst.wall < 16 * Math.max(h.rescan.wall.max, 1)))
}

const STYLES = { serve: 'Node (`serveHook`)', readline: 'Node (plain readline loop)', python: 'Python (`for line in sys.stdin.buffer`)' }

/** Row (j): a tool hook whose `tools=` does not match. */
function skippedRows(row, r) {
  const j = r.skipped
  const f = r.noHook ? ` · row (f)'s \`runHook\` in its own process ${rate(r.noHook.runHook)}` : ''
  row('j', `a tool hook whose \`tools=\` does not match the call's tool (reported \`skipped\`, never started): \`runHook\` calls/s, median of ${j.rounds} × ${j.seconds} s`,
    `runHook ${rate(j.runHook)}`,
    `no hook at all (row (f)'s path, same process) ${rate(j.noHookRunHook)}${f} · skipped, warm \`create()\` + \`run()\` ${rate(j.factory)} · JS-only floor ${rate(j.jsFloor)}`,
    `${ratio(j.runHook / j.noHookRunHook)} no hook`, '≥ 100,000/s', mark(j.runHook >= 100000))
  const t = r.skippedTrace
  if (t) {
    const none = t.skip.execve === 0 && t.skip.forks === 0 && t.logStarts === 0 && j.starts === 0
    row('j', `processes those calls start (\`strace -f\`: \`execve\` and process-making \`clone\`/\`fork\` between markers; ${t.calls.toLocaleString('en')} calls in ${ms(t.ms)} under strace), and the hook's own start log`,
      `${t.skip.execve} execve, ${t.skip.forks} process clones (${t.skip.threads} thread clones, ${t.skip.total} system calls in all); start log: ${t.logStarts} here, ${j.starts} in the calls/s loops`,
      `control, the same hook for a tool it names, ${t.controlCalls} calls: ${t.control.execve} execve, ${t.control.forks} process clones; start log ${t.controlLogStarts}`,
      '', '0 processes', mark(none && t.control.execve >= t.controlCalls))
  } else {
    row('j', 'processes those calls start', `start log: ${j.starts} in the calls/s loops`, 'strace not found (apt-get install strace): no OS-level count', '', '0 processes', mark(j.starts === 0))
  }
  const p = j.parts
  const perCall = 1e6 / j.runHook
  const noHook = 1e6 / j.noHookRunHook
  const run = 1e6 / j.runnerRun
  row('j', 'where a skipped call\'s time goes (µs per call, JavaScript thread)', `skipped \`runHook\` ${us(perCall)}`,
    `no hook ${us(noHook)} · the skipped run alone (a kept runner's \`run()\`, no options read) ${us(run)} · timed apart: input \`JSON.stringify\` ${us(p.stringifyUs)} (${p.inputBytes} B, paid by the no-hook call too), result \`JSON.parse\` ${us(p.parseResultUs)} (${p.resultBytes} B)`,
    `skipped − no hook ${us(perCall - noHook)}; options + snapshot lookup ${us(perCall - run)}; in the run, beside stringify and parse: ${us(run - p.stringifyUs - p.parseResultUs)} (input JSON into the core, matching, the result's JSON, the promise)`, '(info)', '')
  row('j', `the same with a ${p.bigContent >> 10} KiB \`content\` in the input (a file write), calls/s`, `skipped \`runHook\` ${rate(j.bigRunHook)} (${us(1e6 / j.bigRunHook)})`,
    `no hook ${rate(j.bigNoHookRunHook)} (${us(1e6 / j.bigNoHookRunHook)}) · input \`JSON.stringify\` alone ${us(p.bigStringifyUs)}`,
    `${ratio(j.bigRunHook / j.bigNoHookRunHook)} no hook`, '(info)', '')
}

/** Row (k): a persistent hook answering at once vs the same logic started per call. */
function persistentRows(row, r) {
  for (const [style, k] of Object.entries(r.persistent)) {
    const speedup = k.perCall.median / k.persistent.median
    const headline = style !== 'readline'
    row('k', `persistent ${STYLES[style]} hook answering at once, \`runHook\` median / p99 (${k.persistent.n.toLocaleString('en')} calls; processes that answered: ${k.processes.persistent})`,
      `${ms(k.persistent.median)} / ${ms(k.persistent.p99)}`,
      `same logic started per call ${ms(k.perCall.median)} / ${ms(k.perCall.p99)} (${k.perCall.n} calls, ${k.processes.perCall} processes)`,
      `per call / persistent ${ratio(speedup)}`,
      headline ? '≤ 0.3 ms; ≥ 100×' : '(info)',
      headline ? `${mark(k.persistent.median <= 0.3)}; ${mark(speedup >= 100)}` : '')
    row('k', `where it goes, ${STYLES[style]} (medians)`,
      `in the runtime: hook ${ms(k.inside.hook.median)}, run ${ms(k.inside.run.median)} · seen from JS ${ms(k.persistent.median)}`,
      `the same script over plain pipes from a Node client (no runtime) ${ms(k.direct.median)} / p99 ${ms(k.direct.p99)} · first call (starts the process) ${ms(k.firstMs)}`,
      `runHook − plain pipes ${ms(k.persistent.median - k.direct.median)}`, '(info)', '')
  }
}

/** Row (l): 8 runs at once against one persistent hook. */
function concurrentRows(row, r) {
  const c = r.concurrent
  row('l', `${c.lanes} runs at once against one persistent Node (\`serveHook\`) hook: throughput (${c.many.calls.toLocaleString('en')} runs; processes that answered: ${c.processes})`,
    `${rate(c.many.throughput)}`,
    `one at a time ${rate(c.single.throughput)} · same logic started per call, ${c.lanes} at once ${rate(c.perCall.throughput)}`,
    `${ratio(c.many.throughput / c.single.throughput)} one at a time · ${ratio(c.many.throughput / c.perCall.throughput)} per call`, '(info)', '')
  row('l', `the queueing: latency of each run at ${c.lanes} at once, median / p99`,
    `${ms(c.many.latency.median)} / ${ms(c.many.latency.p99)} (in the runtime, hook ${ms(c.many.hook.median)} / ${ms(c.many.hook.p99)})`,
    `one at a time ${ms(c.single.latency.median)} / ${ms(c.single.latency.p99)} · same logic started per call, ${c.lanes} at once ${ms(c.perCall.latency.median)} / ${ms(c.perCall.latency.p99)}`,
    `${ratio(c.many.latency.median / c.single.latency.median)} one at a time · mean ${ms(c.many.latency.mean)}, as one queue predicts (Little's law: ${c.lanes} in flight ÷ ${rate(c.many.throughput)} = ${ms((c.lanes / c.many.throughput) * 1000)})`, '(info)', '')
}

function table(m, r) {
  const rows = []
  const row = (...cells) => rows.push(`| ${cells.join(' | ')} |`)
  const FASTER = { j: skippedRows, k: persistentRows, l: concurrentRows }
  if (FASTER[ONLY]) {
    FASTER[ONLY](row, r)
    return tableText(m, r, rows)
  }
  if (ONLY === 'h') {
    jsThreadRows(row, r.jsThread)
    return tableText(m, r, rows)
  }
  if (ONLY === 'i') {
    scaleRows(row, r.scale)
    return tableText(m, r, rows)
  }
  const L = (key) => r.latency[key].latency
  const small = L('small')
  const fl = small.floor

  // (a)
  const aRatio = small.runHook.median / fl.median
  row('a', `trivial hook, median (host ${mib(r.latency.small.rss)})`, `runHook ${ms(small.runHook.median)}`,
    `floor ${ms(fl.median)} · Node ${ms(small.node.median)}`,
    `${ratio(aRatio)} floor · Node/runHook ${ratio(small.node.median / small.runHook.median)}`, '≤ 1.15× floor', mark(aRatio <= 1.15))
  row('a', 'trivial hook, p99', `runHook ${ms(small.runHook.p99)}`, `floor ${ms(fl.p99)} · Node ${ms(small.node.p99)}`,
    `${ratio(small.runHook.p99 / fl.p99)} floor`, '—', '')
  if (small.floorLikeAddon) {
    const inside = r.latency.small.inside
    row('a', 'where `runHook`\'s time goes (medians)',
      `hook in the runtime ${ms(inside.hook.median)} · whole run in the runtime ${ms(inside.run.median)} · seen from JS ${ms(small.runHook.median)}`,
      `floor started like the addon (process group, cwd, stderr piped) ${ms(small.floorLikeAddon.median)}`,
      `runtime − floor ${ms(inside.hook.median - fl.median)} · JS hand-over ${ms(small.runHook.median - inside.run.median)}`, '(info)', '')
  }
  if (small.factory) {
    row('a', 'same, `HookFactory` runner reused, median / p99', `${ms(small.factory.median)} / ${ms(small.factory.p99)}`,
      `floor ${ms(fl.median)} / ${ms(fl.p99)}`, `${ratio(small.factory.median / fl.median)} floor`, '(info)', '')
  }

  // (b)
  for (const h of ['g1', 'g3']) {
    const x = L(h)
    const label = `host ${gib(r.latency[h].rss)} RSS`
    const grow = x.runHook.median / small.runHook.median
    const nodeOver = x.node.median / x.runHook.median
    row('b', `trivial hook at ${label}, median / p99`, `runHook ${ms(x.runHook.median)} / ${ms(x.runHook.p99)}`,
      `Node ${ms(x.node.median)} / ${ms(x.node.p99)} · floor ${ms(x.floor.median)} · runHook at ~50 MB ${ms(small.runHook.median)}`,
      `${ratio(grow)} runHook at ~50 MB · Node/runHook ${ratio(nodeOver)}`,
      h === 'g3' ? '≤ 1.2× at ~50 MB; Node/runHook ≥ 3' : '(info)',
      h === 'g3' ? `${mark(grow <= 1.2)}; ${mark(nodeOver >= 3)}` : '')
  }

  // (c)
  const el = r.latency.g3.eventLoop
  const reps = el.idle.reps > 1 ? `, median of ${el.idle.reps} repetitions (worst)` : ''
  const worst = (x) => (x.reps > 1 ? ` (${ms(x.worst)})` : '')
  for (const [kind, label] of [['sequential', 'one after another'], ['burst', 'all started at once']]) {
    const a = el.runHook[kind]
    const b = el.node[kind]
    row('c', `event-loop delay at host ${gib(r.latency.g3.rss)}, 100 hooks ${label}: max / p99${reps}`,
      `runHook ${ms(a.max)}${worst(a)} / ${ms(a.p99)}, ${ms(a.ms)} for all`,
      `Node ${ms(b.max)}${worst(b)} / ${ms(b.p99)}, ${ms(b.ms)} for all · idle loop ${ms(el.idle.max)}${worst(el.idle)} / ${ms(el.idle.p99)}` +
        (kind === 'burst' ? ` · no JS at all, the same hooks run by xargs -P${8 * os.cpus().length}: ${ms(el.busy.max)}${worst(el.busy)} / ${ms(el.busy.p99)}` : ''),
      `Node/runHook max ${ratio(b.max / a.max)}` + (kind === 'burst' ? ` · runHook/no-JS ${ratio(a.max / el.busy.max)}` : ''),
      'runHook max ≤ 5 ms', mark(a.max <= 5))
  }
  row('c', `JS-thread time inside one call (until it returns its promise), median / p99, host ${gib(r.latency.g3.rss)}`,
    `runHook ${ms(el.sync.runHook.median)} / ${ms(el.sync.runHook.p99)}`, `Node ${ms(el.sync.node.median)} / ${ms(el.sync.node.p99)}`,
    `Node/runHook ${ratio(el.sync.node.median / el.sync.runHook.median)}`, '(info)', '')

  // (d)
  const d = r.parallel
  const dRatio = d.parallel.median / d.single.median
  row('d', `4 hooks (${d.sources}) sleeping 100 ms, parallel, median`, `${ms(d.parallel.median)}`,
    `one hook alone ${ms(d.single.median)} · sequential ${ms(d.sequential.median)}`,
    `${ratio(dRatio)} one hook · sequential/parallel ${ratio(d.sequential.median / d.parallel.median)}`, '≤ 1.3× one hook', mark(dRatio <= 1.3))

  // (e)
  for (const c of Object.keys(r.throughput)) {
    const t = r.throughput[c]
    row('e', `throughput, ${CONFIG.throughputRuns.toLocaleString('en')} runs at concurrency ${c}`, `runHook ${rate(t.runHook)}`,
      `Node ${rate(t.node)}`, `${ratio(t.runHook / t.node)} Node`, c === '64' ? '≥ 1× Node' : '(info)', c === '64' ? mark(t.runHook >= t.node) : '')
  }

  // (f)
  const f = r.noHook
  row('f', 'no hook for this call: warm `create()` + `run()`', `${rate(f.factory)}`,
    `JS-only floor ${rate(f.jsFloor)} · Node stat per folder ${rate(f.nodeStat)} · \`runHook\` ${rate(f.runHook)}`,
    `${ratio(f.factory / f.jsFloor)} JS floor`, '≥ 200,000/s', mark(f.factory >= 200000))
  const failures = f.createFailures + (r.latency.small.createFailures || 0) + (r.trace && r.trace.factory ? r.trace.factory.createFailures : 0)
  if (failures) {
    const why = f.createError || (r.trace && r.trace.factory && r.trace.factory.createError) || 'see the raw figures'
    row('f', '`create()` rejections during these loops', `${failures}: ${why}`, 'none expected', '', 'none', MISSED)
  }
  if (r.trace && r.trace.factory) {
    const t = r.trace.factory
    const b = r.trace.jsFloor
    const perCall = t.total / t.calls
    row('f', `system calls per call (\`strace -f\`, ${t.calls.toLocaleString('en')} calls in ${ms(t.ms)}, ${t.rescans} rescans of the hooks folders)`,
      `${perCall.toFixed(5)} (all threads), ${(t.js / t.calls).toFixed(5)} on the JS thread; ${t.total} in all: ${t.top}`,
      `JS-only floor loop: ${(b.total / b.calls).toFixed(5)} (${b.total} in all: ${b.top || 'none'})`,
      `${ratio(perCall / Math.max(b.total / b.calls, 1e-9))} JS floor`, 'none per call', mark(perCall < 0.01))
  } else {
    row('f', 'system calls per call', 'not measured', 'strace not found (apt-get install strace)', '', 'none per call', '—')
  }

  // (g)
  const g = r.rss
  row('g', 'peak RSS growth, hook printing 256 MiB', `runHook ${mib(g.runHook.growth)} (${ms(g.runHook.ms)})`,
    `Node, 1 MiB tail kept ${mib(g.node.growth)} (${ms(g.node.ms)})`, `host RSS before ${mib(g.runHook.before)}`, '≤ 32 MiB', mark(g.runHook.growth <= 32 * 2 ** 20))

  // (h)
  jsThreadRows(row, r.jsThread)

  // (i)
  scaleRows(row, r.scale)

  // (j), (k), (l)
  for (const fn of Object.values(FASTER)) fn(row, r)
  return tableText(m, r, rows)
}

function tableText(m, r, rows) {
  const head = [
    `**@cline/hooks benchmark** · ${m.date} · ${m.cpu}, ${m.cores} cores, ${m.mem} · ${m.os} · Node ${m.node} · ` +
      `load average ${m.load} at start · ${ONLY ? `row ${ONLY} alone` : QUICK ? 'quick' : 'full'} run, ${r.elapsed}`,
    '',
    '| Row | Measure | @cline/hooks | In-run baselines | Ratio | Target | Met |',
    '|---|---|---|---|---|---|---|',
  ]
  const legend = [
    '',
    '`runHook`: the one-shot `runHook(name, input, options)`, same options every call (its shared factory keeps the discovery snapshot). ' +
      'Node: `benchmark/lib/node-runner.js`, `child_process.spawn` + stdin + bounded stdout/stderr tails + final-JSON parse. ' +
      'Floor: `benchmark/floor.rs`, `std::process::Command` (posix_spawn) in a loop from a small Rust process. ' +
      'Latencies interleave the runners in rounds; each row runs in a fresh Node process grown to the stated RSS. ' +
      'Event-loop figures are `monitorEventLoopDelay({ resolution: 1 })` values, which include the 1 ms sampling interval. ' +
      '(h): `performance.eventLoopUtilization()` active time of the event loop per operation (JavaScript, native callbacks, promise jobs and the GC they cause, ' +
      'and any time the thread waited for a core), each operation awaited before the next, in a fresh Node process per host size (`benchmark/js-thread.js`); ' +
      'the no-hook path is a folder with hooks, none for the name. ' +
      '(i): a hooks folder of empty files named as a busy folder names them, a third shaped like hooks (`Log1`, `f2.sh`, `Note3.txt`), beside the trivial hook, measured once the folder has not changed for 4 s; ' +
      'CPU is `process.cpuUsage()` of the measuring Node process (all its threads; the hooks are other processes). ' +
      '(j): the hook\'s header says `tools=write_to_file,replace_in_file`, the input\'s `preToolUse.toolName` is `read_file`; the hook appends to a log when it starts. ' +
      '(k), (l): each hook reads the event, parses its JSON and answers `{"cancel": false, "pid": …}` at once (the pid counts the processes that answered); ' +
      '"per call" is the same script without `mode=persistent`, started by `runHook` for each call; "plain pipes" is a Node client writing the event line to the persistent script and reading its answer line, with no runtime in between; ' +
      'interpreters are named by absolute path in the `#!` line, so no version-manager shim runs; the per-call and persistent calls interleave in rounds. ' +
      '✅/❌ compare the figures of this one run; on a shared machine, maxima and p99s also measure the neighbours (see the idle loop).',
  ]
  return [...head, ...rows, ...legend].join('\n')
}

async function main() {
  if (process.platform === 'win32') {
    say('The benchmark runs /bin/sh hooks and reads /proc: run it on Linux (or another Unix).')
    process.exit(1)
  }
  try {
    require('..')
  } catch (err) {
    say(`The addon is not built (${err.message.split('\n')[0]}). Run \`npm run build\` first.`)
    process.exit(1)
  }
  const started = Date.now()
  const m = machine()
  say(`@cline/hooks benchmark (${ONLY ? `row ${ONLY}` : QUICK ? 'quick' : 'full'}) on ${m.cpu}, ${m.cores} cores, Node ${m.node}`)

  let floorBin = null
  if (!ONLY) {
    say('building the floor program (rustc -O benchmark/floor.rs)')
    floorBin = floor.build()
  }

  const fx = fixtures.create()
  const cleanup = () => fx.remove()
  process.on('SIGINT', () => {
    cleanup()
    process.exit(130)
  })
  const input = fixtures.input()
  const base = { hookName: fx.hookName, input, floorBin, dir: fx.trivialDir, hook: fx.trivialHook }
  const r = { latency: {} }
  const jsThreadCost = () => {
    say('(h) what a run costs the JavaScript thread')
    return jsThread.measure({ fx, input, rounds: CONFIG.jsRounds, runs: CONFIG.jsRuns, log: say })
  }
  const scale = () => {
    say(`(i) discovery at scale: ${CONFIG.scaleEntries.toLocaleString('en')} other files beside the hook`)
    return worker({ ...base, name: 'scale', root: fx.root, entries: CONFIG.scaleEntries, seconds: CONFIG.scaleSeconds })
  }
  const noHookRow = async () => {
    say('(f) no hook for this call')
    r.noHook = await worker({ ...base, name: 'noHook', seconds: CONFIG.noHookSeconds, noHook: fx.noHook })
    if (haveStrace()) {
      r.trace = {}
      for (const loop of ['factory', 'jsFloor']) {
        const file = path.join(fx.root, `strace-${loop}.txt`)
        const res = await worker({ ...base, name: 'noHookTrace', loop, calls: CONFIG.traceCalls, noHook: fx.noHook }, ['strace', '-f', '-qq', '-o', file])
        const t = (r.trace[loop] = { ...res, ...countSyscalls(file, fx.noHook.extra) })
        say(`    strace, ${loop} loop: ${t.total} system calls in ${res.calls} calls (${t.js} on the JS thread): ${t.top}`)
      }
    }
  }
  const fast = { ...base, skip: fx.skip, noHook: fx.noHook, fast: fx.fast, skipInput: fixtures.skipInput(input) }
  const fasterRuns = {
    j: async () => {
      say('(j) a tool hook whose tools= does not match the call')
      r.skipped = await worker({ ...fast, name: 'skipped', seconds: CONFIG.skipSeconds, rounds: CONFIG.skipRounds })
      if (haveStrace()) {
        const file = path.join(fx.root, 'strace-skipped.txt')
        const res = await worker({ ...fast, name: 'skippedTrace', calls: CONFIG.skipTraceCalls, controlCalls: 10 }, ['strace', '-f', '-qq', '-o', file])
        const t = (r.skippedTrace = { ...res, skip: countProcesses(file, 'start', 'end'), control: countProcesses(file, 'control-start', 'control-end') })
        say(`    strace: ${t.skip.execve} execve, ${t.skip.forks} process clones in ${t.calls} skipped calls; control: ${t.control.execve} execve in ${t.controlCalls} calls`)
      }
    },
    k: async () => {
      say('(k) a persistent hook vs the same logic started per call')
      if (!fx.fast.python) say('    python3 not found: the Python rows are left out')
      r.persistent = await worker({ ...fast, name: 'persistent', calls: CONFIG.persistentCalls, perCallCalls: CONFIG.perCallCalls, rounds: CONFIG.persistentRounds })
    },
    l: async () => {
      say('(l) 8 runs at once against one persistent hook')
      r.concurrent = await worker({ ...fast, name: 'concurrent', lanes: 8, calls: CONFIG.concurrentCalls, perCallCalls: CONFIG.concurrentPerCall, rounds: CONFIG.concurrentRounds })
    },
  }
  try {
    if (ONLY === 'f') {
      await noHookRow()
      console.log(JSON.stringify({ noHook: r.noHook, trace: r.trace }, null, 1))
      return
    }
    if (fasterRuns[ONLY]) {
      await fasterRuns[ONLY]()
      return finish(m, r, started)
    }
    if (!ONLY) {
      for (const h of HEAPS) {
        say(`(a/b${h.key === 'g3' ? '/c' : ''}) trivial hook latency, ${h.label}`)
        r.latency[h.key] = await worker({
          ...base,
          name: 'latency',
          heapBytes: h.bytes,
          runs: CONFIG.runs,
          rounds: CONFIG.rounds,
          withFactory: h.key === 'small',
          eventLoopRuns: h.key === 'g3' ? CONFIG.eventLoopRuns : 0,
          eventLoopReps: CONFIG.eventLoopReps,
        })
      }

      say('(d) four hooks sleeping 100 ms')
      r.parallel = await worker({ ...base, name: 'parallel', runs: CONFIG.parallelRuns, sleepy: fx.sleepy })

      say('(e) throughput')
      r.throughput = await worker({ ...base, name: 'throughput', runs: CONFIG.throughputRuns, concurrencies: [1, 8, 64] })

      await noHookRow()

      say('(g) peak RSS growth, hook printing 256 MiB')
      r.rss = {}
      for (const runner of ['runHook', 'node']) {
        let worst = null
        for (let i = 0; i < CONFIG.rssRepeats; i++) {
          const res = await worker({ ...base, name: 'rss', runner, trivialDir: fx.trivialDir, chattyDir: fx.chattyDir })
          if (!worst || res.growth > worst.growth) worst = res
        }
        r.rss[runner] = worst
      }

    }
    if (ONLY !== 'i') r.jsThread = await jsThreadCost()
    if (ONLY !== 'h') r.scale = await scale()
    if (!ONLY) for (const run of Object.values(fasterRuns)) await run()
  } finally {
    cleanup()
  }
  finish(m, r, started)
}

function finish(m, r, started) {
  const secs = Math.round((Date.now() - started) / 1000)
  r.elapsed = `${Math.floor(secs / 60)} min ${secs % 60} s`
  const md = table(m, r)
  console.log(md)

  if (WRITE) {
    const svg = chart.render({
      title: '@cline/hooks: trivial hook latency as the host grows',
      subtitle: `${m.cpu}, ${m.cores} cores · Node ${m.node} · ${m.date}`,
      groups: HEAPS.map((h) => ({ label: `${h.label.replace('host ', 'host ')} (RSS ${gib(r.latency[h.key].rss)})`, ...r.latency[h.key].latency })),
      eventLoop: { label: `host ${gib(r.latency.g3.rss)}`, ...r.latency.g3.eventLoop },
    })
    fs.writeFileSync(path.join(__dirname, 'chart.svg'), svg)
    const doc = [
      '# @cline/hooks benchmark results',
      '',
      `Produced by \`npm run bench\` (\`benchmark/run.js\`). Chart: [chart.svg](chart.svg).`,
      '',
      md,
      '',
      '![Trivial hook latency per runner and host size; event-loop delay](chart.svg)',
      '',
      '<details><summary>Raw figures (JSON)</summary>',
      '',
      '```json',
      JSON.stringify({ machine: m, config: CONFIG, quick: QUICK, results: r }, null, 1),
      '```',
      '',
      '</details>',
      '',
    ].join('\n')
    fs.writeFileSync(path.join(__dirname, 'results.md'), doc)
    say('wrote benchmark/results.md and benchmark/chart.svg')
  }
}

main().catch((err) => {
  say(err && err.stack ? err.stack : String(err))
  process.exit(1)
})
