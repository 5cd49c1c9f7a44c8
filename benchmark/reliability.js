#!/usr/bin/env node
'use strict'

// `npm run reliability`: the load figures of the README's Reliability section, measured on
// real hook processes (Linux: it reads /proc):
//   1. 1,000 overlapping runHook calls with 4 hooks each: wall time, calls in flight, peak hook
//      processes at once (each hook counts the others), open fds and live children before and
//      after;
//   2. RSS growth of this process while one hook prints 1 GiB to stdout and 200 MiB to stderr.
// The same behaviours are asserted, with generous bounds, in __test__/hostile.test.js.

const fs = require('fs')
const os = require('os')
const path = require('path')

const { runHook } = require('..')

const MiB = 2 ** 20

function openFds() {
  return fs.readdirSync('/proc/self/fd').length
}

function liveChildren() {
  let n = 0
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(ppid) === process.pid && state !== 'Z') n++
    } catch {
      // gone meanwhile
    }
  }
  return n
}

function writeHook(dir, body) {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, 'TaskStart')
  fs.writeFileSync(file, `#!/usr/bin/env bash\n${body}`, { mode: 0o755 })
}

async function load(tmp) {
  const live = path.join(tmp, 'live')
  fs.mkdirSync(live)
  const dirs = ['a', 'b', 'c', 'd'].map((name) => {
    const dir = path.join(tmp, name)
    writeHook(
      dir,
      `: > '${live}'/$$
shopt -s nullglob
running=('${live}'/*)
rm -f '${live}'/$$
printf '{"peak": %d}\\n' "\${#running[@]}"
`,
    )
    return dir
  })
  const options = { globalHooksDir: null, extraHooksDirs: dirs, timeoutMs: 120000 }
  await runHook('TaskStart', {}, options) // warm: runtime threads and discovery cache
  const fdsBefore = openFds()
  const childrenBefore = liveChildren()
  let inFlight = 0
  let maxInFlight = 0
  const started = process.hrtime.bigint()
  const results = await Promise.all(
    Array.from({ length: 1000 }, () => {
      maxInFlight = Math.max(maxInFlight, ++inFlight)
      return runHook('TaskStart', {}, options).finally(() => inFlight--)
    }),
  )
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const executions = results.flatMap((r) => r.hooks)
  return {
    calls: results.length,
    maxInFlight,
    executions: executions.length,
    completed: executions.filter((h) => h.status === 'completed').length,
    peak: Math.max(...executions.map((h) => (h.output ? h.output.peak : 0))),
    limit: 8 * os.availableParallelism(),
    seconds,
    fdsBefore,
    fdsAfter: openFds(),
    childrenBefore,
    childrenAfter: liveChildren(),
  }
}

async function flood(tmp) {
  const dir = path.join(tmp, 'flood')
  writeHook(
    dir,
    `yes 'log line that is not JSON {' | head -c ${1024 * MiB} &
yes 'stderr noise' | head -c ${200 * MiB} >&2
wait
echo
echo '{"cancel": true}'
`,
  )
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2)
  const started = process.hrtime.bigint()
  const result = await runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [dir], timeoutMs: 120000 })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  return { status: result.hooks[0].status, cancel: result.cancel, growthMiB: (peak - before) / MiB, seconds, stderrKept: Buffer.byteLength(result.hooks[0].stderr) }
}

async function main() {
  if (process.platform !== 'linux') throw new Error('npm run reliability reads /proc: run it on Linux')
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-reliability-'))
  try {
    const l = await load(tmp)
    const f = await flood(tmp)
    const rows = [
      ['1,000 overlapping `runHook` calls × 4 hooks', `${l.completed}/${l.executions} completed in ${l.seconds.toFixed(1)} s; ${l.maxInFlight} calls in flight at once`],
      ['hook processes at once (peak, counted by the hooks)', `${l.peak} (limit ${l.limit} = 8 × ${os.availableParallelism()} cores)`],
      ['open fds before → after', `${l.fdsBefore} → ${l.fdsAfter}`],
      ['live child processes before → after', `${l.childrenBefore} → ${l.childrenAfter}`],
      ['1 GiB stdout + 200 MiB stderr: host RSS growth', `${f.growthMiB.toFixed(1)} MiB (${f.status}, cancel ${f.cancel}, ${f.seconds.toFixed(1)} s, stderr tail kept ${(f.stderrKept / 1024).toFixed(0)} KiB)`],
    ]
    console.log(`Measured ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}\n`)
    console.log('| case | figure |\n|---|---|')
    for (const [k, v] of rows) console.log(`| ${k} | ${v} |`)
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
