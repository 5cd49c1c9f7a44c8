'use strict'

// The measurements of rows (j), (k) and (l), the "faster hooks" of issue 16, run inside a
// benchmark worker (benchmark/worker.js registers them):
//   (j) skipped        a tool hook whose `tools=` does not match: calls/s beside the no-hook
//                      path of row (f), and the parts one such call is made of;
//   (j) skippedTrace   the same calls under `strace -f` (the orchestrator counts the process
//                      starts between the markers), then a few matching calls as the control;
//   (k) persistent     one persistent hook answering at once vs the same logic started per
//                      call, per hook style (Node `serveHook`, Node readline loop, Python), and
//                      a Node client talking to the same persistent script over its pipes;
//   (l) concurrent     8 runs at once against one persistent hook vs one at a time.
// Every call's result is checked, so a figure never measures a failure path.

const fs = require('fs')
const { spawn } = require('child_process')

const addon = require('../..')
const { summarize, callsPerSecond } = require('./stats')

const now = () => Number(process.hrtime.bigint()) / 1e6

function logger(name) {
  return (msg) => process.stderr.write(`    ${name}: ${msg}\n`)
}

function options(dir) {
  return { extraHooksDirs: [dir], globalHooksDir: null }
}

/** Microseconds per call of a synchronous `fn`, over at least `ms` milliseconds. */
function microsPerCall(fn, ms = 300) {
  for (let i = 0; i < 10000; i++) fn()
  let calls = 0
  const t = now()
  while (now() - t < ms) {
    for (let i = 0; i < 10000; i++) fn()
    calls += 10000
  }
  return ((now() - t) * 1000) / calls
}

const median = (list) => summarize(list).median
const BIG_CONTENT = 64 << 10

function lines(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length
  } catch (err) {
    if (err.code === 'ENOENT') return 0
    throw err
  }
}

// ---------------------------------------------------------------------------------------
// (j)

function skippedCalls(task) {
  const skipOptions = options(task.skip.dir)
  const noHookOptions = { extraHooksDirs: [task.noHook.extra], globalHooksDir: null, workspaceRoots: task.noHook.roots }
  let wrong = null
  const isSkipped = (r) => {
    if (!(r.hooks.length === 1 && r.hooks[0].status === 'skipped' && r.hooks[0].started === false) && !wrong) {
      wrong = `a call that should skip the hook returned ${JSON.stringify(r).slice(0, 1000)}`
    }
    return r
  }
  return { skipOptions, noHookOptions, isSkipped, wrong: () => wrong }
}

async function skipped(task) {
  const log = logger('skipped')
  const { skipOptions, noHookOptions, isSkipped, wrong } = skippedCalls(task)
  const HOOK = task.hookName
  const skipInput = task.skipInput
  const first = isSkipped(await addon.runHook(HOOK, skipInput, skipOptions))
  const noHookFirst = await addon.runHook(HOOK, task.input, noHookOptions)
  if (noHookFirst.hooks.length !== 0) throw new Error('the no-hook fixture has a hook for this name')
  const factory = new addon.HookFactory(skipOptions)
  const runner = await factory.create(HOOK)
  const cached = { run: async () => ({ cancel: false, hooks: [] }) }
  // A write of a 64 KiB file: the input both paths serialise, and the skipped one also reads.
  const big = { ...skipInput, preToolUse: { ...skipInput.preToolUse, parameters: { ...skipInput.preToolUse.parameters, content: 'x'.repeat(BIG_CONTENT) } } }
  const bigNoHook = { ...task.input, preToolUse: { ...task.input.preToolUse, parameters: { ...task.input.preToolUse.parameters, content: 'x'.repeat(BIG_CONTENT) } } }
  const noHookRun = (input) => async () => {
    const r = await addon.runHook(HOOK, input, noHookOptions)
    if (r.hooks.length !== 0) throw new Error('the no-hook fixture has a hook for this name')
  }
  const kinds = {
    runHook: async () => isSkipped(await addon.runHook(HOOK, skipInput, skipOptions)),
    // Row (f)'s `runHook` figure, measured here too so the two sit in the same process and run.
    noHookRunHook: noHookRun(task.input),
    factory: async () => isSkipped(await (await factory.create(HOOK)).run(skipInput)),
    // The run alone: one runner kept, no options read, no snapshot looked up.
    runnerRun: async () => isSkipped(await runner.run(skipInput)),
    jsFloor: async () => (await (async () => cached)()).run(skipInput),
    bigRunHook: async () => isSkipped(await addon.runHook(HOOK, big, skipOptions)),
    bigNoHookRunHook: noHookRun(bigNoHook),
  }
  const samples = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]))
  const names = Object.keys(kinds)
  for (let round = 0; round < task.rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]
      samples[name].push(await callsPerSecond(kinds[name], task.seconds))
    }
  }
  if (wrong()) throw new Error(wrong())
  const rates = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))

  // The parts of one skipped call that can be timed from JavaScript: the input's JSON.stringify
  // (done for every call, hook or not) and the JSON.parse of the result's text (the run's
  // result comes back as JSON text, parsed by the engine's own JSON.parse); the rest is the
  // napi call and the core (reading the input's JSON, matching, writing the report's JSON).
  const resultText = JSON.stringify(first)
  const parts = {
    stringifyUs: microsPerCall(() => JSON.stringify(skipInput)),
    bigStringifyUs: microsPerCall(() => JSON.stringify(big)),
    bigContent: BIG_CONTENT,
    parseResultUs: microsPerCall(() => JSON.parse(resultText)),
    resultBytes: resultText.length,
    inputBytes: JSON.stringify(skipInput).length,
  }
  const starts = lines(task.skip.starts)
  log(
    `skipped runHook ${(rates.runHook / 1000).toFixed(0)}k/s, no hook runHook ${(rates.noHookRunHook / 1000).toFixed(0)}k/s, ` +
      `factory ${(rates.factory / 1000).toFixed(0)}k/s, runner.run ${(rates.runnerRun / 1000).toFixed(0)}k/s, ` +
      `64 KiB input: skipped ${(rates.bigRunHook / 1000).toFixed(1)}k/s, no hook ${(rates.bigNoHookRunHook / 1000).toFixed(1)}k/s, JS floor ${(rates.jsFloor / 1000).toFixed(0)}k/s; ` +
      `stringify ${parts.stringifyUs.toFixed(2)} µs, result parse ${parts.parseResultUs.toFixed(2)} µs; hook started ${starts} times`,
  )
  return { ...rates, samples, rounds: task.rounds, seconds: task.seconds, parts, starts, skipReason: first.hooks[0].skipReason }
}

// Run under `strace -f` by the orchestrator: markers delimit the skipped loop and the control.
async function skippedTrace(task) {
  const { skipOptions, isSkipped, wrong } = skippedCalls(task)
  const HOOK = task.hookName
  const mark = (what) => {
    try {
      fs.accessSync(`/nonexistent/cline-hooks-bench-${what}`)
    } catch {}
  }
  for (let i = 0; i < 2000; i++) isSkipped(await addon.runHook(HOOK, task.skipInput, skipOptions))
  const before = lines(task.skip.starts)
  const t = now()
  mark('start')
  for (let i = 0; i < task.calls; i++) isSkipped(await addon.runHook(HOOK, task.skipInput, skipOptions))
  mark('end')
  const ms = now() - t
  const afterSkip = lines(task.skip.starts)
  // The control: the same hook for a tool its `tools=` names, so the trace must show its starts.
  mark('control-start')
  for (let i = 0; i < task.controlCalls; i++) {
    const r = await addon.runHook(HOOK, task.input, skipOptions)
    if (r.hooks.length !== 1 || r.hooks[0].status !== 'completed') throw new Error(`the control call did not run the hook: ${JSON.stringify(r).slice(0, 1000)}`)
  }
  mark('control-end')
  if (wrong()) throw new Error(wrong())
  return {
    calls: task.calls,
    ms,
    controlCalls: task.controlCalls,
    logStarts: afterSkip - before,
    controlLogStarts: lines(task.skip.starts) - afterSkip,
  }
}

// ---------------------------------------------------------------------------------------
// (k), (l)

/** Checks a run of the fast hooks; returns the pid that answered. */
function answered(r, what) {
  const h = r.hooks[0]
  if (r.hooks.length !== 1 || h.status !== 'completed' || !h.output || h.output.cancel !== false || r.cancel !== false) {
    throw new Error(`${what} did not complete as expected: ${JSON.stringify(r).slice(0, 2000)}`)
  }
  return h.output.pid
}

/**
 * The hook side alone: a Node client that starts the persistent script itself
 * (`CLINE_HOOK_MODE=persistent`) and writes each event line and reads the answer line over
 * plain pipes, the smallest thing any runtime could do.
 */
function pipeClient(file) {
  const child = spawn(file, [], { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, CLINE_HOOK_MODE: 'persistent' } })
  let buffered = ''
  let waiting = null
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (text) => {
    buffered += text
    let nl
    while ((nl = buffered.indexOf('\n')) >= 0 && waiting) {
      const line = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      const resolve = waiting
      waiting = null
      resolve(line)
    }
  })
  return {
    call(line) {
      return new Promise((resolve) => {
        waiting = resolve
        child.stdin.write(line)
      })
    },
    close() {
      child.stdin.end()
      return new Promise((resolve) => child.on('close', resolve))
    },
  }
}

async function timeCalls(fn, n, samples) {
  for (let i = 0; i < n; i++) {
    const t = now()
    await fn()
    samples.push(now() - t)
  }
}

async function persistent(task) {
  const log = logger('persistent')
  const HOOK = task.hookName
  const input = task.input
  const out = {}
  for (const [style, fast] of Object.entries(task.fast)) {
    const pOptions = options(fast.persistent.dir)
    const cOptions = options(fast.perCall.dir)
    const pids = { persistent: new Set(), perCall: new Set() }
    const inside = { run: [], hook: [] }
    const samples = { persistent: [], perCall: [], direct: [] }
    const runners = {
      persistent: async () => {
        const r = await addon.runHook(HOOK, input, pOptions)
        pids.persistent.add(answered(r, `the persistent ${style} hook`))
        inside.run.push(r.durationMs)
        inside.hook.push(r.hooks[0].durationMs)
      },
      perCall: async () => {
        const r = await addon.runHook(HOOK, input, cOptions)
        pids.perCall.add(answered(r, `the per-call ${style} hook`))
      },
    }
    const t = now()
    await runners.persistent()
    const firstMs = now() - t
    const client = pipeClient(fast.persistent.hook)
    const line = JSON.stringify(input) + '\n'
    runners.direct = async () => {
      const answer = JSON.parse(await client.call(line))
      if (answer.cancel !== false) throw new Error(`the ${style} hook over plain pipes answered ${JSON.stringify(answer)}`)
    }
    await timeCalls(runners.persistent, 200, [])
    await timeCalls(runners.direct, 200, [])
    await timeCalls(runners.perCall, 5, [])
    pids.perCall.clear()
    inside.run.length = 0
    inside.hook.length = 0
    const counts = { persistent: task.calls, direct: task.calls, perCall: task.perCallCalls }
    const names = Object.keys(counts)
    for (let round = 0; round < task.rounds; round++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + round) % names.length]
        await timeCalls(runners[name], Math.ceil(counts[name] / task.rounds), samples[name])
      }
    }
    await client.close()
    await addon.terminateAll()
    const s = Object.fromEntries(names.map((n) => [n, summarize(samples[n])]))
    out[style] = {
      ...s,
      firstMs,
      inside: { run: summarize(inside.run), hook: summarize(inside.hook) },
      processes: { persistent: pids.persistent.size, perCall: pids.perCall.size, perCallCalls: samples.perCall.length },
    }
    log(
      `${style}: persistent median ${s.persistent.median.toFixed(3)} ms / p99 ${s.persistent.p99.toFixed(3)} ms ` +
        `(${pids.persistent.size} process), per call ${s.perCall.median.toFixed(2)} ms (${(s.perCall.median / s.persistent.median).toFixed(0)}×), ` +
        `plain pipes ${s.direct.median.toFixed(3)} ms, first call ${firstMs.toFixed(0)} ms`,
    )
  }
  return out
}

/** `calls` runs over `lanes` concurrent loops; each run's latency and the wall time. */
async function lanesOf(fn, lanes, calls) {
  const latencies = []
  let next = 0
  const t = now()
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next++ < calls) {
        const s = now()
        await fn()
        latencies.push(now() - s)
      }
    }),
  )
  return { latencies, wall: now() - t, calls }
}

async function concurrent(task) {
  const log = logger('concurrent')
  const HOOK = task.hookName
  const fast = task.fast.serve
  const pOptions = options(fast.persistent.dir)
  const cOptions = options(fast.perCall.dir)
  const pids = new Set()
  const inside = { 1: [], [task.lanes]: [] }
  let lanes = 1
  const persistentRun = async () => {
    const r = await addon.runHook(HOOK, task.input, pOptions)
    pids.add(answered(r, 'the persistent Node hook'))
    inside[lanes].push(r.hooks[0].durationMs)
  }
  const perCallRun = async () => answered(await addon.runHook(HOOK, task.input, cOptions), 'the per-call Node hook')
  for (let i = 0; i < 200; i++) await persistentRun()
  await perCallRun()
  inside[1].length = 0
  const acc = { 1: { latencies: [], wall: 0, calls: 0 }, [task.lanes]: { latencies: [], wall: 0, calls: 0 } }
  const add = (key, res) => {
    acc[key].latencies.push(...res.latencies)
    acc[key].wall += res.wall
    acc[key].calls += res.calls
  }
  const per = Math.ceil(task.calls / task.rounds)
  for (let round = 0; round < task.rounds; round++) {
    for (const n of round % 2 ? [task.lanes, 1] : [1, task.lanes]) {
      lanes = n
      add(n, await lanesOf(persistentRun, n, per))
    }
  }
  // The baseline: the same logic started per call, as many at once.
  const perCall = await lanesOf(perCallRun, task.lanes, task.perCallCalls)
  await addon.terminateAll()
  const fold = (a, hookMs) => ({ throughput: a.calls / (a.wall / 1000), latency: summarize(a.latencies), hook: summarize(hookMs), calls: a.calls })
  const result = {
    lanes: task.lanes,
    single: fold(acc[1], inside[1]),
    many: fold(acc[task.lanes], inside[task.lanes]),
    perCall: { throughput: perCall.calls / (perCall.wall / 1000), latency: summarize(perCall.latencies), calls: perCall.calls },
    processes: pids.size,
  }
  log(
    `one at a time ${result.single.throughput.toFixed(0)}/s (median ${result.single.latency.median.toFixed(3)} ms), ` +
      `${task.lanes} at once ${result.many.throughput.toFixed(0)}/s (median ${result.many.latency.median.toFixed(3)} ms, p99 ${result.many.latency.p99.toFixed(3)} ms), ` +
      `per call ${task.lanes} at once ${result.perCall.throughput.toFixed(0)}/s; ${pids.size} process answered`,
  )
  return result
}

module.exports = { skipped, skippedTrace, persistent, concurrent }
