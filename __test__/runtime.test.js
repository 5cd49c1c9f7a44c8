'use strict'

// Issue 11: the runtime's idle workers are SCHED_BATCH on Linux (so a call's wake-up does not
// preempt the JavaScript thread), but the hooks they start are normal processes: every hook,
// run one at a time or many at once, reports the normal policy (SCHED_OTHER, 0).

const fs = require('fs')
const { addon, testIf, makeTempDir, writeHook, opts, waitFor } = require('./helpers')

const LINUX = process.platform === 'linux'

// Jest does not list the tests of a file in which every test is skipped; this one case keeps the
// skipped cases (and their reason) visible in the report on the other platforms.
if (!LINUX) {
  test(`the scheduling cases in this file are skipped on ${process.platform} (each title says why): SCHED_BATCH and /proc are Linux's`, () => {
    expect(LINUX).toBe(false)
  })
}

/** A hook that prints its own scheduling policy as its contextModification. */
function policyHook() {
  const dir = makeTempDir()
  writeHook(
    dir,
    'PreToolUse',
    `cat >/dev/null
policy=$(sed -n 's/^policy *: *//p' /proc/$$/sched)
printf '{"contextModification":"%s"}\\n' "$policy"`,
  )
  return dir
}

testIf(LINUX, 'Linux only: a policy is read from /proc/<pid>/sched', 'hooks run with the normal scheduling policy, one at a time and 50 at once', async () => {
  const dir = policyHook()
  const run = () => addon.runHook('PreToolUse', {}, opts({ extraHooksDirs: [dir] }))
  const policies = new Set()
  for (let i = 0; i < 100; i++) policies.add((await run()).contextModification)
  for (const r of await Promise.all(Array.from({ length: 50 }, run))) policies.add(r.contextModification)
  expect([...policies]).toEqual(['0'])
}, 120_000)

testIf(LINUX, 'Linux only: SCHED_BATCH, and the threads are read from /proc/<pid>/task', 'the runtime workers idle as SCHED_BATCH (3), never an idle or real-time policy', async () => {
  const dir = policyHook()
  await addon.runHook('PreToolUse', {}, opts({ extraHooksDirs: [dir] }))
  const workers = () => fs.readdirSync(`/proc/${process.pid}/task`)
    .map((tid) => {
      try {
        const comm = fs.readFileSync(`/proc/${process.pid}/task/${tid}/comm`, 'utf8').trim()
        const policy = /^policy\s*:\s*(\d+)/m.exec(fs.readFileSync(`/proc/${process.pid}/task/${tid}/sched`, 'utf8'))
        return { comm, policy: policy && policy[1] }
      } catch {
        return null // the thread ended meanwhile
      }
    })
    .filter((t) => t && t.comm.startsWith('tokio-rt-worker'))
  expect(workers().length).toBeGreaterThan(0)
  // A worker still finishing the run is normal until it parks.
  await waitFor(() => workers().some((w) => w.policy === '3'), { what: 'an idle worker in SCHED_BATCH' })
  for (const w of workers()) expect(['0', '3']).toContain(w.policy)
})
