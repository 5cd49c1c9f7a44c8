'use strict'

// Verdict parity: how a hook is run (per event, or as a persistent process) and which entry
// point runs it (runHook, HookFactory, createFileHooks from @cline/hooks/sdk, the CLI plugin
// cline-plugin.js), and whether it runs confined (`sandbox: 'all'`, Linux), changes what it
// costs, never what it decides. A differential test: a seeded
// generator (parity-behaviours.js) makes about 200 hook behaviours (what the hook prints for an
// event, in one write, and how the event ends: it answers and goes on, exits, hangs until its
// timeout, is stopped by terminateAll(), or crashes on 5 events in a row), one hook program
// performs each, and every behaviour is run per event through runHook (the reference) and
// through the other ways. The cancel must be the same everywhere; the context wherever both
// protocols see the same ending (contextMustAgree in parity-behaviours.js says where). The SDK
// adapter and the plugin answer `{ stop, reason }` / `{ appendContext }`: their stop is
// compared with the reference's cancel, their appendContext with the context the SDK reads
// from the reference's result.
//
// The seed is PARITY_SEED (else taken from the clock); every failure names it, with the command
// that runs the same behaviours again. A failure lists each behaviour that decided
// differently (the first 40), the way it was run, and what each way decided. Behaviours an
// earlier seed found diverging run on every seed besides (regressionBehaviours in
// parity-behaviours.js: add one there when a seed fails).
//   PARITY_REPORT=<file>  appends every divergence as a JSON line
//   PARITY_TIMING=<file>  appends each run's duration, and each run made again with more time
//
// Cost: a per-event run is a Node process; persistent behaviours that answer and go on share a
// few warm processes per profile (the hook reads which behaviour to perform from the event),
// each event preceded by a warm-up event, so that a short timeout covers only the answer. These
// run after the runs that start processes of their own: a persistent hook answers in 1 ms when
// nothing else runs, and 150-450 ms later while per-event hooks are being started. A run that
// lasts to its timeout counts only when the hook had printed within half of it (the hook writes
// the time it printed to a file); otherwise it is run again with more time, so a loaded machine
// slows the test down instead of failing it.

const fs = require('fs')
const path = require('path')

const { addon, describeUnix, makeTempDir, waitFor } = require('./helpers')
const P = require('./parity-behaviours')

const { runHook, HookFactory, terminateAll } = addon
const { createFileHooks } = require('@cline/hooks/sdk')
const PLUGIN = require.resolve('@cline/hooks/cline-plugin')

const SEED = P.seedOf()
const CASES = P.generate(SEED)
const RERUN = `PARITY_SEED=${SEED} npx jest __test__/verdict-parity.test.js`

// Timeouts, each a list: a run that reached its timeout before the hook had printed within
// half of it is made again with the next.
/** Hooks that end by themselves: a timeout none reaches. */
const LONG_MS = [30000, 30000, 30000]
/** The plugin's longest per-hook timeout (the CLI gives a plugin call 3 s). */
const PLUGIN_MAX_MS = 2999
/** A warm persistent hook that answers and goes on (printing no answer line, it times out). */
const ANSWER_MS = [600, 1800, 5400]
/** A per-event hook that hangs (its start included), and a warm persistent one. */
const HANG_PER_EVENT_MS = [1500, 4500, 13500]
const HANG_PERSISTENT_MS = [600, 1800, 5400]
/** Runs at once: of those that start a process and end by themselves, and of those that hang. */
const POOL = 2
const HANG_POOL = 3
/** Warm persistent processes per profile, each serving its behaviours one at a time. */
const LANES = 3

jest.setTimeout(600000)

// ---------------------------------------------------------------------------------------
// The ways a hook is run.

const PATHS = {
  'rh-pe': { name: 'runHook, per event', mode: 'perEvent', via: 'runHook' },
  'rh-p': { name: 'runHook, persistent', mode: 'persistent', via: 'runHook' },
  'rh-pe-c': { name: 'runHook, per event, confined', mode: 'perEvent', via: 'runHook', sandbox: 'all' },
  'rh-p-c': { name: 'runHook, persistent, confined', mode: 'persistent', via: 'runHook', sandbox: 'all' },
  'hf-pe': { name: 'HookFactory, per event', mode: 'perEvent', via: 'factory' },
  'hf-p': { name: 'HookFactory, persistent', mode: 'persistent', via: 'factory' },
  'sdk-pe': { name: 'createFileHooks beforeTool, per event', mode: 'perEvent', via: 'sdk' },
  'sdk-p': { name: 'createFileHooks beforeTool, persistent', mode: 'persistent', via: 'sdk' },
  'plugin-pe': { name: 'cline-plugin.js hooks.beforeTool, per event', mode: 'perEvent', via: 'plugin' },
  'plugin-p': { name: 'cline-plugin.js hooks.beforeTool, persistent', mode: 'persistent', via: 'plugin' },
}

/** The ways `b` is run; the first is the reference. */
function pathsOf(b) {
  const keys = ['rh-pe', 'rh-p']
  // Confined by Landlock (sandbox.test.js proves what it stops); elsewhere a confined hook does not start.
  if (process.platform === 'linux') keys.push('rh-pe-c', 'rh-p-c')
  if (b.factory) keys.push('hf-pe', 'hf-p')
  if (b.sdk) keys.push('sdk-pe', 'sdk-p', 'plugin-pe', 'plugin-p')
  return keys
}

/** Whether a persistent run of `b` shares the profile's one warm process (it answers and goes on). */
function sharesProcess(b) {
  return b.ending === 'answer' && !b.tools && b.events === 1
}

/** Which of the profile's shared persistent processes serves `b` through `key` (confined ones have their own). */
function laneOf(b, key) {
  return `${Number(b.id.slice(1)) % LANES}${PATHS[key].sandbox ? '-confined' : ''}`
}

/** The run options that say how `key` runs a hook: confined or not. */
function howRun(key) {
  return PATHS[key].sandbox ? { sandbox: PATHS[key].sandbox } : {}
}

/** The state of one test: its folders, and the factories, adapters and plugins it made. */
function makeContext(cases) {
  const root = makeTempDir('cline-parity-')
  const ctx = {
    root,
    specs: path.join(root, 'specs'),
    marks: path.join(root, 'marks'),
    clineDir: path.join(root, 'no-cline-dir'),
    factories: new Map(),
    adapters: new Map(),
    plugins: new Map(),
  }
  fs.mkdirSync(ctx.specs)
  fs.mkdirSync(ctx.marks)
  for (const b of cases) {
    const { json, out } = P.specFiles(b)
    fs.writeFileSync(path.join(ctx.specs, `${b.id}.json`), json)
    fs.writeFileSync(path.join(ctx.specs, `${b.id}.out`), out)
  }
  return ctx
}

/** The hooks folder for `b` run through `key`, its hook file written on first use. */
function hookDir(ctx, b, key) {
  const { mode } = PATHS[key]
  const name =
    mode === 'perEvent' ? (b.tools ? `${b.id}-pe` : `${b.profile}-pe`) : sharesProcess(b) ? `${b.profile}-persistent-${laneOf(b, key)}` : `${b.id}-${key}`
  const dir = path.join(ctx.root, 'hooks', name)
  if (!fs.existsSync(dir)) {
    const header = [mode === 'persistent' ? 'mode=persistent' : null, b.tools ? `tools=${b.tools}` : null].filter(Boolean).join(' ')
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, 'PreToolUse')
    fs.writeFileSync(file, P.hookProgram({ specs: ctx.specs, marks: ctx.marks, header }))
    fs.chmodSync(file, 0o755)
  }
  return dir
}

const inputOf = (tag) => ({ preToolUse: { toolName: P.TOOL, parameters: { parity: tag } } })

const toolContext = (tag) => ({
  snapshot: { agentId: 'agent-1', conversationId: 'conv-1', parentAgentId: null, iteration: 1, runId: 'run-1' },
  toolCall: { toolCallId: 'call-1', toolName: P.TOOL },
  input: { parity: tag },
})

function discovery(ctx, profile, dir) {
  return { profile, globalHooksDir: null, extraHooksDirs: [dir], ...(profile === 'cli' ? { clineDir: ctx.clineDir } : {}) }
}

/** The plugin module loaded as the CLI loads it, with its folder and timeout from the environment. */
function loadPlugin(dir, timeoutMs) {
  const set = { CLINE_HOOKS_DIR: dir, CLINE_HOOKS_PLUGIN_TIMEOUT_MS: String(timeoutMs), CLINE_HOOKS_PLUGIN_FOLDERS: undefined, CLINE_HOOKS_PACKAGE: undefined }
  const saved = {}
  for (const [name, value] of Object.entries(set)) {
    saved[name] = process.env[name]
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  let plugin
  try {
    jest.isolateModules(() => {
      plugin = require(PLUGIN)
    })
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
  return plugin
}

function cached(map, key, make) {
  if (!map.has(key)) map.set(key, make())
  return map.get(key)
}

/** What the run decided, as runHook answers it. */
function core(result) {
  const [hook] = result.hooks
  return {
    cancel: result.cancel,
    context: result.contextModification,
    status: result.hooks.map((h) => h.status).join(',') || 'no hook',
    ...(hook && hook.failure ? { failure: hook.failure } : {}),
    sdk: sdkView(result),
  }
}

/** What createFileHooks would resolve with for this result, were the stop the run's cancel. */
function sdkView(result) {
  const printed = (e, field) => e.output !== null && typeof e.output[field] === 'string'
  const contextOf = (e) => (printed(e, 'context') || printed(e, 'contextModification') ? e.contextModification : e.errorMessage)
  const appendContext = result.hooks
    .filter((e) => e.status === 'completed')
    .map(contextOf)
    .filter((text) => typeof text === 'string' && text.trim())
    .join('\n')
  return { stop: result.cancel, appendContext: result.cancel || !appendContext ? undefined : appendContext }
}

/** One run of behaviour `b` through `key`, with the tag `tag` and timeout `timeoutMs`. */
async function runOnce(ctx, b, key, dir, tag, timeoutMs) {
  const { via } = PATHS[key]
  if (via === 'runHook') {
    const result = await runHook('PreToolUse', inputOf(tag), { ...discovery(ctx, b.profile, dir), ...howRun(key), timeoutMs })
    const unconfined = result.hooks.find((h) => h.started && h.confined !== Boolean(PATHS[key].sandbox))
    if (unconfined) throw new Error(`${P.describeBehaviour(b)}: through ${PATHS[key].name} the hook ran with confined: ${unconfined.confined}`)
    return core(result)
  }
  if (via === 'factory') {
    const factory = cached(ctx.factories, `${b.profile}\n${dir}`, () => new HookFactory(discovery(ctx, b.profile, dir)))
    return core(await (await factory.create('PreToolUse')).run(inputOf(tag), { timeoutMs }))
  }
  let hooks
  if (via === 'sdk') {
    hooks = cached(ctx.adapters, `${dir}\n${timeoutMs}`, () =>
      createFileHooks({ workspacePath: ctx.root, workspaceRoots: [], globalHooksDir: null, clineDir: ctx.clineDir, extraHooksDirs: [dir], timeoutMs }),
    )
  } else {
    hooks = cached(ctx.plugins, `${dir}\n${timeoutMs}`, () => loadPlugin(dir, timeoutMs)).hooks
  }
  const control = await hooks.beforeTool(toolContext(tag))
  return { stop: Boolean(control && control.stop), appendContext: control ? control.appendContext : undefined, ...(control && control.reason ? { reason: control.reason } : {}) }
}

/** When the hook printed for `tag` (ms since the epoch), or null. */
function printedAt(ctx, tag) {
  const [id, run] = tag.split(' ')
  try {
    return Number(fs.readFileSync(path.join(ctx.marks, `${id}.${run}`), 'utf8'))
  } catch {
    return null
  }
}

let runCounter = 0

/**
 * A persistent hook's process running, idle and in step: a warm-up event answered with its own
 * answer. A behaviour can leave a line unfinished, or lines the runtime has not yet read; the
 * warm-up's answer starts with a line end, and the warm-ups go on until one is answered as
 * itself (a timed-out one takes its process with it; the next starts a fresh one).
 */
async function warmUp(ctx, b, key, dir) {
  for (const timeoutMs of [3000, 3000, 10000, 30000, 30000]) {
    const tag = `warm ${++runCounter}`
    // Started as the runs it warms up for are: a process of another sandbox is never reused.
    const result = await runHook('PreToolUse', inputOf(tag), { ...discovery(ctx, b.profile, dir), ...howRun(key), timeoutMs })
    if (result.hooks.length === 1 && result.hooks[0].status === 'completed' && result.contextModification === tag) return
  }
  throw new Error(`the persistent hook in ${dir} did not answer a warm-up event five times (seed ${SEED}; ${RERUN})`)
}

/**
 * Runs `b` through `key` once and returns what it decided. A run that lasted to its timeout
 * counts only when the hook had printed within half of it; otherwise it is run again with the
 * next, longer timeout.
 */
async function decided(ctx, b, key, eventIndex = 0) {
  const { mode, via } = PATHS[key]
  const dir = hookDir(ctx, b, key)
  const warm = mode === 'persistent' && (sharesProcess(b) || b.ending === 'hang')
  let timeouts = LONG_MS
  if (b.ending === 'hang') timeouts = mode === 'perEvent' ? HANG_PER_EVENT_MS : HANG_PERSISTENT_MS
  else if (warm) timeouts = ANSWER_MS
  if (via === 'plugin') timeouts = timeouts.map((ms) => Math.min(ms, PLUGIN_MAX_MS))
  for (const timeoutMs of timeouts) {
    if (warm) await warmUp(ctx, b, key, dir)
    const tag = `${b.id} ${key}-e${eventIndex}-r${++runCounter}`
    const started = Date.now()
    const value = b.ending === 'terminateAll' ? await underTerminateAll(ctx, b, key, dir, tag, timeoutMs) : await runOnce(ctx, b, key, dir, tag, timeoutMs)
    if (value === undefined) continue
    // Ended by itself: what it decided is its own doing. (The runtime's clock for its timeout
    // starts after `started`, so a run stopped at its timeout lasts at least `timeoutMs`.)
    if (Date.now() - started < timeoutMs || (value.status !== undefined && !value.status.split(',').includes('timedOut'))) return value
    const at = printedAt(ctx, tag)
    if (at !== null && at - started <= timeoutMs / 2) return value
    if (process.env.PARITY_TIMING) fs.appendFileSync(process.env.PARITY_TIMING, `# retry ${tag} T=${timeoutMs} elapsed=${Date.now() - started} printed=${at === null ? null : at - started} ${JSON.stringify(value)}\n`)
  }
  throw new Error(
    `${P.describeBehaviour(b)}: through ${PATHS[key].name} the hook had not printed within half of its timeout (${timeouts.join(', ')} ms): the machine is too loaded for this test (seed ${SEED}; ${RERUN})`,
  )
}

/**
 * Starts the run, waits until the hook has printed, calls terminateAll(), and returns what the
 * run decided; undefined when the run ended (its timeout) before the hook printed.
 */
async function underTerminateAll(ctx, b, key, dir, tag, timeoutMs) {
  let settled = false
  const run = runOnce(ctx, b, key, dir, tag, timeoutMs).finally(() => {
    settled = true
  })
  await waitFor(() => settled || printedAt(ctx, tag) !== null, { timeoutMs: 120000, what: `${b.id} to print through ${PATHS[key].name}` })
  if (printedAt(ctx, tag) === null) {
    // Ended first: between its print and its mark, or by its timeout before it printed.
    try {
      await waitFor(() => printedAt(ctx, tag) !== null, { timeoutMs: 5000, what: 'the mark' })
    } catch {
      await run
      return undefined
    }
  }
  await terminateAll()
  return run
}

// ---------------------------------------------------------------------------------------
// Comparing.

const short = (text, max = 160) => (typeof text === 'string' && text.length > max ? `${text.slice(0, max)}...[${text.length} chars]` : text)

function shown(value) {
  const { sdk, ...rest } = value
  return JSON.stringify({ ...rest, context: short(rest.context), appendContext: short(rest.appendContext), failure: short(rest.failure, 240), reason: short(rest.reason) })
}

/** How `value` (through `key`) differs from the reference `ref`, or null. */
function difference(b, key, ref, value) {
  const compareContext = P.contextMustAgree(b)
  const { via } = PATHS[key]
  const diffs = []
  if (via === 'sdk' || via === 'plugin') {
    if (value.stop !== ref.sdk.stop) diffs.push(`stop is ${value.stop} where the reference's cancel is ${ref.cancel}`)
    else if (compareContext && !ref.sdk.stop && value.appendContext !== ref.sdk.appendContext) {
      diffs.push(`appendContext ${JSON.stringify(short(value.appendContext))} where the reference's context (as the SDK reads it) is ${JSON.stringify(short(ref.sdk.appendContext))}`)
    }
  } else {
    if (value.cancel !== ref.cancel) diffs.push(`cancel ${value.cancel} where the reference's is ${ref.cancel}`)
    if (compareContext && value.context !== ref.context) diffs.push(`context ${JSON.stringify(short(value.context))} where the reference's is ${JSON.stringify(short(ref.context))}`)
  }
  return diffs.length ? diffs.join('; ') : null
}

/** Runs every behaviour through its ways; the divergences, as text, for the failure message. */
async function runParity(cases, { exclusive = false } = {}) {
  const ctx = makeContext(cases)
  const results = new Map(cases.map((b) => [b.id, {}]))
  const record = (b, key, i, value) => {
    const byPath = results.get(b.id)
    ;(byPath[key] = byPath[key] || [])[i] = value
  }
  const runAll = async (b, key) => {
    for (let i = 0; i < b.events; i++) {
      const t0 = Date.now()
      record(b, key, i, await decided(ctx, b, key, i))
      if (process.env.PARITY_TIMING) fs.appendFileSync(process.env.PARITY_TIMING, `${Date.now() - t0}\t${b.id}\t${key}\t${b.ending}\t${b.out.length}\t${b.label}\n`)
    }
  }
  // Phase 1, the runs that start a process of their own; phase 2, the warm persistent ones
  // with short timeouts (a persistent hook answers 1 ms after its event when nothing else runs,
  // but 150-450 ms after it while per-event hooks are being started).
  const lanes = new Map() // one shared persistent process each, its events one at a time
  const own = []
  const hangingPerEvent = []
  const hangingPersistent = []
  for (const b of cases) {
    for (const key of pathsOf(b)) {
      const job = () => runAll(b, key)
      const persistent = PATHS[key].mode === 'persistent'
      if (persistent && sharesProcess(b)) {
        const lane = `${b.profile} ${laneOf(b, key)}`
        lanes.set(lane, [...(lanes.get(lane) || []), job])
      } else if (b.ending === 'hang') (persistent ? hangingPersistent : hangingPerEvent).push(job)
      else own.push(job)
    }
  }
  if (exclusive) {
    // terminateAll() stops every hook: one run at a time.
    await pool([...own, ...hangingPerEvent, ...hangingPersistent, ...[...lanes.values()].flat()], 1)
  } else {
    const t0 = Date.now()
    await all([pool(own, POOL), pool(hangingPerEvent, HANG_POOL)])
    const t1 = Date.now()
    await all([pool(hangingPersistent, HANG_POOL), ...[...lanes.values()].map((jobs) => pool(jobs, 1))])
    if (process.env.PARITY_TIMING) fs.appendFileSync(process.env.PARITY_TIMING, `# phases ${t1 - t0} ${Date.now() - t1} own=${own.length} hangPE=${hangingPerEvent.length} hangP=${hangingPersistent.length} lanes=${[...lanes.values()].map((l) => l.length)}\n`)
  }

  const divergent = []
  for (const b of cases) {
    const byPath = results.get(b.id)
    const ref = byPath['rh-pe']
    const lines = []
    for (const key of pathsOf(b).slice(1)) {
      for (let i = 0; i < b.events; i++) {
        const why = difference(b, key, ref[i], byPath[key][i])
        if (!why) continue
        const event = b.events > 1 ? ` (event ${i + 1} of ${b.events})` : ''
        if (process.env.PARITY_REPORT) {
          fs.appendFileSync(process.env.PARITY_REPORT, `${JSON.stringify({ seed: SEED, id: b.id, path: key, event: i, why, behaviour: P.describeBehaviour(b), reference: ref[i], result: byPath[key][i] })}\n`)
        }
        lines.push(`    ${PATHS[key].name}${event}: ${why}\n      reference (runHook, per event): ${shown(ref[i])}\n      ${PATHS[key].name}: ${shown(byPath[key][i])}`)
      }
    }
    if (lines.length) divergent.push({ b, text: `  ${P.describeBehaviour(b)}\n${lines.join('\n')}` })
  }
  return { divergent, total: cases.length }
}

/** Runs `jobs`, `size` at a time; after a failure, starts no more, and throws it once the others have ended. */
async function pool(jobs, size) {
  let next = 0
  let failure = null
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]
      try {
        await job()
      } catch (error) {
        failure = failure || error
        next = jobs.length
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(size, jobs.length) }, worker))
  if (failure) throw failure
}

/** Awaits every one of `runs`, then throws the first failure. */
async function all(runs) {
  const settled = await Promise.allSettled(runs)
  const failed = settled.find((s) => s.status === 'rejected')
  if (failed) throw failed.reason
}

function report({ divergent, total }, what) {
  if (divergent.length === 0) return
  const listed = divergent.slice(0, 40).map((d) => d.text)
  const more = divergent.length > listed.length ? `\n  ... and ${divergent.length - listed.length} more (PARITY_REPORT=<file> writes them all)` : ''
  throw new Error(
    `verdict parity (seed ${SEED}; rerun: ${RERUN}): ${divergent.length} of ${total} behaviours ${what} decide differently depending on how or through what they are run:\n${listed.join('\n')}${more}`,
  )
}

// ---------------------------------------------------------------------------------------

const isLoop = (b) => b.events > 1
const byGroup = {
  extension: CASES.filter((b) => b.profile === 'extension' && !isLoop(b) && b.ending !== 'terminateAll'),
  cli: CASES.filter((b) => b.profile === 'cli' && !isLoop(b) && b.ending !== 'terminateAll'),
  loops: CASES.filter(isLoop),
  terminateAll: CASES.filter((b) => b.ending === 'terminateAll'),
}

describeUnix(
  'verdict parity: per event and persistent, confined or not, through every entry point, a hook decides the same',
  () => {
    afterAll(async () => {
      await terminateAll()
    })

    test('extension profile: runHook and HookFactory, per event and persistent', async () => {
      report(await runParity(byGroup.extension), 'of the extension profile')
    })

    test('cli profile: runHook, HookFactory, createFileHooks and the CLI plugin, per event and persistent', async () => {
      report(await runParity(byGroup.cli), 'of the cli profile')
    })

    test('crash loops: a hook that exits non-zero on every one of 5 events in a row', async () => {
      report(await runParity(byGroup.loops), 'that crash on every event')
    })

    test('terminateAll() while the hook hangs after printing', async () => {
      report(await runParity(byGroup.terminateAll, { exclusive: true }), 'stopped by terminateAll()')
    })
  },
  { reason: 'the one hook program is a #! Node script' },
)
