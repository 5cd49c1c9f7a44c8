// Finding and ending the processes an end-to-end run started (Linux /proc). Every run puts a unique
// marker in the environment it starts the CLI or the SDK's commands with; children inherit it
// (hooks, `run_commands` shells, plugin hosts), including those that moved to a process group or
// session of their own, so "no process left" is checked by the marker, not by the parent's group.
'use strict'

const fs = require('node:fs')
const crypto = require('node:crypto')

const MARKER_VAR = 'CLINE_E2E_RUN'

function newRunId() {
  return `${process.pid}-${crypto.randomBytes(6).toString('hex')}`
}

// /proc/PID/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces and parentheses.
function readStat(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const close = stat.lastIndexOf(')')
  const fields = stat.slice(close + 2).split(' ')
  return { comm: stat.slice(stat.indexOf('(') + 1, close), state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]) }
}

/**
 * The live (not zombie) processes of this user, with their group, session and command line.
 * `environ` is read only when `withEnviron` (it is the environment the process was started with).
 */
function listProcesses({ withEnviron = false } = {}) {
  if (process.platform !== 'linux') throw new Error('e2e/support/processes.js reads /proc: Linux only')
  const out = []
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const pid = Number(name)
    try {
      const stat = readStat(pid)
      if (stat.state === 'Z' || stat.state === 'X') continue
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
      const entry = { pid, ...stat, cmd }
      if (withEnviron) entry.environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
      out.push(entry)
    } catch {
      // Gone between readdir and read, or not ours to read: neither is a process of the run.
    }
  }
  return out
}

/** @cline/hooks's watchdog of this process: it lives as long as its host, by design. */
const isOwnWatchdog = (p) => p.ppid === process.pid && p.cmd.includes('cline-hooks-watchdog')

/**
 * Live processes started with `CLINE_E2E_RUN=<runId>`, this process itself and its @cline/hooks
 * watchdog excluded (an in-process SDK host starts it during its first run, with the run's env).
 */
function processesOfRun(runId) {
  const needle = `${MARKER_VAR}=${runId}`
  return listProcesses({ withEnviron: true })
    .filter((p) => p.pid !== process.pid && !isOwnWatchdog(p) && p.environ.includes(needle))
    .map(({ environ, ...rest }) => rest)
}

/** Live members of process group `pgid`. */
function processGroupMembers(pgid) {
  return listProcesses().filter((p) => p.pgid === pgid)
}

/** Whether `pid` is a live (not zombie) process. */
function isAlive(pid) {
  try {
    const { state } = readStat(pid)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

/** Polls `list()` until it is empty or `timeoutMs` passed; returns what is left ([] when none). */
async function waitUntilEmpty(list, { timeoutMs = 10000, intervalMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left = list()
    if (left.length === 0 || Date.now() >= deadline) return left
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

/**
 * Waits until no process of the run is left (fire-and-forget hooks may outlive the CLI by a moment)
 * and returns those still alive at `timeoutMs` ([] when all are gone). No event tells a test that
 * an unrelated process ended, so this polls /proc.
 */
function waitForNoProcesses(runId, options) {
  return waitUntilEmpty(() => processesOfRun(runId), options)
}

/**
 * Waits until process group `pgid` has no member left and returns those still alive at
 * `timeoutMs`: a member SIGKILLed a moment ago can still be tearing down (state D) in /proc.
 */
function waitForGroupGone(pgid, options) {
  return waitUntilEmpty(() => processGroupMembers(pgid), options)
}

/** SIGKILLs every process of the run and the groups they lead; returns what it signalled. */
function killProcessesOfRun(runId) {
  const left = processesOfRun(runId)
  for (const p of left) {
    try {
      if (p.pgid === p.pid) process.kill(-p.pgid, 'SIGKILL')
    } catch {}
    try {
      process.kill(p.pid, 'SIGKILL')
    } catch {}
  }
  return left
}

module.exports = {
  waitForGroupGone,
  MARKER_VAR,
  newRunId,
  listProcesses,
  processesOfRun,
  processGroupMembers,
  isAlive,
  waitForNoProcesses,
  killProcessesOfRun,
}
