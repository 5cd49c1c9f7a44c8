'use strict'

// One measurement, in its own Node process so that each one starts from a known state (and
// the heavy ones can be given a big heap): `node worker.js '<json task>'`. Progress goes to
// stderr; the result is printed as one `RESULT <json>` line on stdout.

const fs = require('fs')
const path = require('path')
const { monitorEventLoopDelay } = require('perf_hooks')

const addon = require('..')
const floor = require('./lib/floor')
const heap = require('./lib/heap')
const { runWithNode } = require('./lib/node-runner')
const { summarize, callsPerSecond } = require('./lib/stats')

const task = JSON.parse(process.argv[2])
const HOOK = task.hookName
const input = task.input

const now = () => Number(process.hrtime.bigint()) / 1e6
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const log = (msg) => process.stderr.write(`    ${task.name}: ${msg}\n`)

// Every run is checked: the benchmark must measure the real job, not a failure path.
function checkAddon(result, hooks = 1) {
  const ok =
    result.hooks.length === hooks &&
    result.hooks.every((h) => h.status === 'completed' && h.output && h.output.cancel === false) &&
    result.cancel === false
  if (!ok) throw new Error(`runHook did not complete as expected: ${JSON.stringify(result).slice(0, 2000)}`)
  return result
}

function checkNode(result) {
  if (result.exitCode !== 0 || !result.output || result.output.cancel !== false) {
    throw new Error(`Node runner did not complete as expected: ${JSON.stringify(result).slice(0, 2000)}`)
  }
  return result
}

// HookFactory.create() must never reject here. (It once did, "Failed to resolve promise", when
// a weakly cached runner had been collected but not yet finalized; the cache now holds its
// runners strongly.) A rejection is counted and shown in row (f), then the loop goes on.
let createFailures = 0
let createError = null
async function create(factory) {
  try {
    return await factory.create(HOOK)
  } catch (err) {
    createFailures++
    createError = `${err.message} (${err.code})`
    await new Promise(setImmediate)
    return factory.create(HOOK)
  }
}

async function timeRuns(fn, n) {
  const samples = new Array(n)
  for (let i = 0; i < n; i++) {
    const t = now()
    await fn()
    samples[i] = now() - t
  }
  return samples
}

// The addon's own timings of the last runHook calls (run level and hook level), to split the
// time seen from JavaScript into "inside the runtime" and "handing over to/from JavaScript".
const inside = { run: [], hook: [] }

function trivialRunners(withFactory) {
  const options = { extraHooksDirs: [task.dir], globalHooksDir: null }
  const runners = {
    runHook: async () => {
      const result = checkAddon(await addon.runHook(HOOK, input, options))
      inside.run.push(result.durationMs)
      inside.hook.push(result.hooks[0].durationMs)
      return result
    },
    node: async () => checkNode(await runWithNode(task.hook, input)),
  }
  if (withFactory) {
    const factory = new addon.HookFactory(options)
    runners.factory = async () => checkAddon(await (await create(factory)).run(input))
  }
  return runners
}

// ---------------------------------------------------------------------------------------
// (a), (b), (c): latency of a trivial hook, floor and both runners interleaved in rounds so
// that a noisy neighbour hits all of them alike; then event-loop delay while hooks run.

async function latency() {
  const inflated = heap.inflate(task.heapBytes)
  if (task.heapBytes) log(`RSS ${(inflated.rss / 2 ** 30).toFixed(2)} GiB after ${inflated.ms} ms`)
  const runners = trivialRunners(task.withFactory)
  const floors = {
    floor: (n) => floor.measure(task.floorBin, task.hook, n, input),
    // The floor started the way the addon starts hooks: process group, cwd, stderr piped.
    floorLikeAddon: (n) => floor.measure(task.floorBin, task.hook, n, input, require('os').homedir()),
  }
  if (!task.withFactory) delete floors.floorLikeAddon
  const names = [...Object.keys(floors), ...Object.keys(runners)]
  const samples = Object.fromEntries(names.map((n) => [n, []]))
  const warm = Math.min(50, task.runs)
  for (const fn of Object.values(runners)) await timeRuns(fn, warm)
  for (const fn of Object.values(floors)) fn(warm)
  inside.run.length = 0
  inside.hook.length = 0

  const per = Math.ceil(task.runs / task.rounds)
  for (let r = 0; r < task.rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length])
    for (const name of order) {
      if (floors[name]) samples[name].push(...floors[name](per))
      else samples[name].push(...(await timeRuns(runners[name], per)))
    }
  }
  const result = {
    rss: heap.rss(),
    inflateMs: inflated.ms,
    latency: Object.fromEntries(names.map((n) => [n, summarize(samples[n])])),
    inside: { run: summarize(inside.run), hook: summarize(inside.hook) },
  }
  log(
    names.map((n) => `${n} median ${result.latency[n].median.toFixed(2)} ms`).join(', ') +
      ` at RSS ${(result.rss / 2 ** 20).toFixed(0)} MiB`,
  )
  if (task.eventLoopRuns) result.eventLoop = await eventLoop(runners, task.eventLoopRuns, task.eventLoopReps)
  result.createFailures = createFailures
  return result
}

async function eventLoop(runners, n, reps) {
  const measure = async (work) => {
    const h = monitorEventLoopDelay({ resolution: 1 })
    h.enable()
    // The monitor only measures from its first tick: a block right after enable() would be
    // missed, so let it tick first, and tick once more after the work.
    await sleep(20)
    const t = now()
    await work()
    const ms = now() - t
    await sleep(20)
    h.disable()
    return { max: h.max / 1e6, p99: h.percentile(99) / 1e6, ms }
  }
  // One repetition's max is mostly about the neighbours on a shared machine: repeat, and
  // report the median repetition (and the worst).
  const fold = (list) => {
    const med = (k) => summarize(list.map((x) => x[k])).median
    return { max: med('max'), p99: med('p99'), ms: med('ms'), worst: Math.max(...list.map((x) => x.max)), reps: list.length }
  }
  const raw = { idle: [], busy: [], runHook: { sequential: [], burst: [] }, node: { sequential: [], burst: [] } }
  // The CPU-saturation baseline: the same n hook processes, as many at once as runHook allows
  // by default (8 per core), started by an unrelated process; this process does no work at all,
  // so any delay is the machine's cores being busy with the hooks.
  const parallel = 8 * require('os').availableParallelism()
  const busy = () =>
    new Promise((resolve, reject) => {
      // GNU xargs starts each hook with stdin from /dev/null; the hook ignores its argument.
      const script = `seq ${n} | xargs -P${parallel} -n1 "$HOOK" >/dev/null`
      const child = require('child_process').spawn('sh', ['-c', script], { stdio: 'ignore', env: { ...process.env, HOOK: task.hook } })
      child.on('error', reject)
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`xargs baseline exited with ${code}`))))
    })
  for (let rep = 0; rep < reps; rep++) {
    raw.idle.push(await measure(() => sleep(500)))
    raw.busy.push(await measure(busy))
    for (const name of ['runHook', 'node']) {
      const run = runners[name]
      raw[name].sequential.push(
        await measure(async () => {
          for (let i = 0; i < n; i++) await run()
        }),
      )
      raw[name].burst.push(await measure(() => Promise.all(Array.from({ length: n }, () => run()))))
    }
  }
  const out = { idle: fold(raw.idle), busy: fold(raw.busy), sync: {} }
  for (const name of ['runHook', 'node']) {
    out[name] = { sequential: fold(raw[name].sequential), burst: fold(raw[name].burst) }
    // The time the JavaScript thread spends inside the call itself (until it returns its promise).
    const sync = []
    for (let i = 0; i < n; i++) {
      const t = now()
      const p = runners[name]()
      sync.push(now() - t)
      await p
    }
    out.sync[name] = summarize(sync)
    log(
      `${name}: one after another max ${out[name].sequential.max.toFixed(1)} ms, ` +
        `all at once max ${out[name].burst.max.toFixed(1)} ms (idle max ${out.idle.max.toFixed(1)} ms), ` +
        `call returns after ${out.sync[name].median.toFixed(3)} ms`,
    )
  }
  return out
}

// ---------------------------------------------------------------------------------------
// (d): four hooks sleeping 100 ms, one per kind of folder.

async function parallel() {
  const s = task.sleepy
  const four = { extraHooksDirs: [s.extra], globalHooksDir: s.global, workspaceRoots: s.roots }
  const one = { extraHooksDirs: [s.extra], globalHooksDir: null }
  const kinds = {
    parallel: async () => checkAddon(await addon.runHook(HOOK, input, four), 4),
    sequential: async () => checkAddon(await addon.runHook(HOOK, input, { ...four, sequential: true }), 4),
    single: async () => checkAddon(await addon.runHook(HOOK, input, one), 1),
  }
  const first = await kinds.parallel()
  const sources = first.hooks.map((h) => h.source).join(', ')
  for (const fn of Object.values(kinds)) await fn()
  const samples = { parallel: [], sequential: [], single: [] }
  for (let r = 0; r < task.runs; r++) {
    for (const name of Object.keys(kinds)) samples[name].push(...(await timeRuns(kinds[name], 1)))
  }
  const result = { sources, ...Object.fromEntries(Object.keys(kinds).map((k) => [k, summarize(samples[k])])) }
  log(`parallel ${result.parallel.median.toFixed(1)} ms, one hook ${result.single.median.toFixed(1)} ms`)
  return result
}

// ---------------------------------------------------------------------------------------
// (e): throughput at a given concurrency.

async function throughput() {
  const runners = trivialRunners(false)
  for (const fn of Object.values(runners)) await timeRuns(fn, 20)
  const result = {}
  for (const c of task.concurrencies) {
    result[c] = {}
    const order = c % 2 ? ['runHook', 'node'] : ['node', 'runHook']
    for (const name of order) {
      let next = 0
      const t = now()
      await Promise.all(
        Array.from({ length: c }, async () => {
          while (next++ < task.runs) await runners[name]()
        }),
      )
      const seconds = (now() - t) / 1000
      result[c][name] = task.runs / seconds
    }
    log(`concurrency ${c}: runHook ${result[c].runHook.toFixed(0)}/s, Node ${result[c].node.toFixed(0)}/s`)
  }
  return result
}

// ---------------------------------------------------------------------------------------
// (f): the common case, no hook for this tool call.

function noHookSetup() {
  const options = { extraHooksDirs: [task.noHook.extra], globalHooksDir: null, workspaceRoots: task.noHook.roots }
  const factory = new addon.HookFactory(options)
  return { options, factory }
}

async function noHook() {
  const { options, factory } = noHookSetup()
  const first = await (await factory.create(HOOK)).run(input)
  if (first.hooks.length !== 0) throw new Error('the no-hook fixture has a hook for this name')
  const dirs = [task.noHook.extra, ...task.noHook.roots.map((r) => `${r}/.clinerules/hooks`)]

  const cached = { run: async () => ({ cancel: false, hooks: [] }) }
  const kinds = {
    factory: async () => (await create(factory)).run(input),
    runHook: () => addon.runHook(HOOK, input, options),
    // The floor: the same two awaits in plain JavaScript, nothing looked up.
    jsFloor: async () => (await (async () => cached)()).run(input),
    // What a Node runner without a cache does: look for the hook file in each folder.
    nodeStat: async () => {
      for (const d of dirs) fs.statSync(`${d}/${HOOK}`, { throwIfNoEntry: false })
      return cached.run(input)
    },
  }
  const result = {}
  for (const [name, fn] of Object.entries(kinds)) {
    result[name] = await callsPerSecond(fn, task.seconds)
    log(`${name}: ${(result[name] / 1000).toFixed(0)}k calls/s`)
  }
  result.createFailures = createFailures
  result.createError = createError
  return result
}

// Run under `strace -f` by the orchestrator: markers delimit the measured loop.
async function noHookTrace() {
  const { factory } = noHookSetup()
  const cached = { run: async () => ({ cancel: false, hooks: [] }) }
  const call =
    task.loop === 'jsFloor'
      ? async () => (await (async () => cached)()).run(input)
      : async () => (await create(factory)).run(input)
  for (let i = 0; i < 2000; i++) await call()
  const mark = (what) => {
    try {
      fs.accessSync(`/nonexistent/cline-hooks-bench-${what}`)
    } catch {}
  }
  const t = now()
  mark('start')
  for (let i = 0; i < task.calls; i++) await call()
  mark('end')
  return { calls: task.calls, ms: now() - t, createFailures, createError }
}

// ---------------------------------------------------------------------------------------
// (g): peak RSS growth while a hook prints 256 MiB.

function hwm() {
  const m = fs.readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+) kB/)
  return m ? Number(m[1]) * 1024 : null
}

async function rss() {
  const runner =
    task.runner === 'runHook'
      ? (dir) => addon.runHook(HOOK, input, { extraHooksDirs: [dir], globalHooksDir: null })
      : (dir) => runWithNode(`${dir}/${HOOK}`, input)
  // Warm: threads started, code loaded, one ordinary run done.
  await runner(task.trivialDir)
  await runner(task.trivialDir)
  global.gc()
  await sleep(200)
  const before = heap.rss()
  let peak = before
  let canReset = true
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5') // resets VmHWM to the current RSS
  } catch {
    canReset = false
  }
  const timer = setInterval(() => {
    peak = Math.max(peak, heap.rss())
  }, 1)
  const t = now()
  const result = await runner(task.chattyDir)
  const ms = now() - t
  clearInterval(timer)
  peak = Math.max(peak, heap.rss())
  const high = canReset ? hwm() : null
  let ok
  let detail
  if (task.runner === 'runHook') {
    const h = result.hooks[0]
    ok = h.status === 'completed' && h.output && h.output.cancel === false
    detail = h.warnings.join(' | ')
  } else {
    ok = result.exitCode === 0 && result.output && result.output.cancel === false
    detail = `${result.stdoutBytes} bytes read`
  }
  if (!ok) throw new Error(`the 256 MiB hook did not complete: ${JSON.stringify(result).slice(0, 2000)}`)
  const growth = Math.max(peak, high || 0) - before
  log(`${task.runner}: +${(growth / 2 ** 20).toFixed(1)} MiB over ${(before / 2 ** 20).toFixed(0)} MiB, ${ms.toFixed(0)} ms`)
  return { before, peakSampled: peak, hwm: high, growth, ms, detail }
}

// (i) Discovery at scale: a hooks folder holding `task.entries` other files beside the hook
// (names a crowded folder holds, a third of them shaped like hooks: `Log123`, `f124.sh`,
// `Note125.txt`). Figures are process CPU time
// (`process.cpuUsage()`, every thread of this process; hooks are other processes) and wall time.
async function scale() {
  const cpuMs = (since) => {
    const used = process.cpuUsage(since)
    return (used.user + used.system) / 1000
  }
  const measure = async (fn) => {
    const cpu = process.cpuUsage()
    const t = now()
    const value = await fn()
    return { cpu: cpuMs(cpu), wall: now() - t, value }
  }
  const stats = (samples) => ({ cpu: summarize(samples.map((s) => s.cpu)), wall: summarize(samples.map((s) => s.wall)) })
  const options = (dir) => ({ extraHooksDirs: [dir], globalHooksDir: null })

  const crowded = path.join(task.root, 'crowded')
  fs.mkdirSync(crowded, { recursive: true })
  const built = now()
  const names = [(i) => `Log${i}`, (i) => `f${i}.sh`, (i) => `Note${i}.txt`]
  for (let i = 0; i < task.entries; i++) {
    fs.closeSync(fs.openSync(path.join(crowded, names[i % 3](i)), 'w'))
  }
  fs.copyFileSync(task.hook, path.join(crowded, HOOK))
  fs.chmodSync(path.join(crowded, HOOK), 0o755)
  log(`${task.entries.toLocaleString('en')} files written in ${(now() - built).toFixed(0)} ms`)

  // What reading the folder at all costs, done by Node.
  const readdir = []
  for (let i = 0; i < 5; i++) readdir.push(await measure(() => fs.readdirSync(crowded).length))

  // A fresh factory lists the folder: the first scan.
  const first = []
  for (let i = 0; i < 5; i++) {
    const factory = new addon.HookFactory(options(crowded))
    const sample = await measure(() => factory.create(HOOK))
    if (sample.value.hooks.length !== 1 || !sample.value.hooks[0].enabled) throw new Error('the crowded folder\'s hook was not found')
    first.push(sample)
  }

  // A folder changed within the last seconds is listed again on every rescan (timestamps are
  // coarse); the steady state starts once it has settled.
  while (fs.statSync(crowded).ctimeMs > Date.now() - 4000) await sleep(200)

  // Rescans of the unchanged folder: each create() after the snapshot's 250 ms awaits one.
  const factory = new addon.HookFactory(options(crowded))
  await factory.create(HOOK)
  const rescans = []
  for (let i = 0; i < 10; i++) {
    await sleep(300)
    rescans.push(await measure(() => factory.create(HOOK)))
  }

  // runHook loops: beside no other file, then in the crowded folder, twice each.
  const loop = async (dir) => {
    let runs = 0
    const sample = await measure(async () => {
      const end = now() + task.seconds * 1000
      while (now() < end) {
        checkAddon(await addon.runHook(HOOK, input, options(dir)))
        runs++
      }
    })
    return { ...sample, runs }
  }
  await loop(task.dir)
  await loop(crowded)
  const loops = { alone: [], crowded: [] }
  for (let i = 0; i < 2; i++) {
    loops.alone.push(await loop(task.dir))
    loops.crowded.push(await loop(crowded))
  }
  const total = (list) => list.reduce((a, l) => ({ cpu: a.cpu + l.cpu, wall: a.wall + l.wall, runs: a.runs + l.runs }), { cpu: 0, wall: 0, runs: 0 })
  const alone = total(loops.alone)
  const big = total(loops.crowded)
  const extraShare = (big.cpu - (alone.cpu / alone.runs) * big.runs) / big.wall

  // 16 calls at once on a stale snapshot.
  const shared = new addon.HookFactory(options(crowded))
  await shared.create(HOOK)
  await sleep(300)
  const burst = await measure(() => Promise.all(Array.from({ length: 16 }, () => shared.hasHook(HOOK))))
  if (!burst.value.every(Boolean)) throw new Error('a call of the burst did not find the hook')

  log(`first scan ${stats(first).cpu.median.toFixed(1)} ms CPU, rescan ${stats(rescans).cpu.median.toFixed(2)} ms CPU, loop extra ${(extraShare * 100).toFixed(1)}% of a core, 16 stale calls ${burst.wall.toFixed(1)} ms`)
  return {
    entries: task.entries,
    readdir: stats(readdir),
    first: stats(first),
    rescan: stats(rescans),
    loop: { alone, crowded: big, extraShare, seconds: task.seconds },
    burst: { cpu: burst.cpu, wall: burst.wall },
  }
}

// (j), (k), (l): the hook header's tools= and persistent hooks (benchmark/lib/faster-hooks.js).
const faster = require('./lib/faster-hooks')

const TASKS = {
  latency,
  parallel,
  throughput,
  noHook,
  noHookTrace,
  rss,
  scale,
  skipped: () => faster.skipped(task),
  skippedTrace: () => faster.skippedTrace(task),
  persistent: () => faster.persistent(task),
  concurrent: () => faster.concurrent(task),
}

TASKS[task.name]()
  .then((result) => {
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
    process.exit(0)
  })
  .catch((err) => {
    process.stderr.write(`${task.name} failed: ${err && err.stack ? err.stack : err}\n`)
    process.exit(1)
  })
