#!/usr/bin/env node
'use strict'
// Runs the release rehearsal's registry (verdaccio) so that it cannot outlive the rehearsal:
//
//   node scripts/local-registry.js <parent-pid> <lifetime-seconds> <run-folder> <verdaccio-bin> <args...>
//
// Stopped (SIGTERM, then SIGKILL 5 s later) when this process is signalled, when its lifetime is
// over, or when the shell that started it (<parent-pid>) is gone without stopping it (killed with
// SIGKILL: this process is then re-parented, so its parent pid is no longer that one). In that
// last case nothing else will clean up, so it also removes the run's folder, which holds the
// registry's storage and token. If this process itself is SIGKILLed, coreutils' `timeout` (where
// there is one; --foreground keeps it in this process group, so a kill of the group ends it too)
// still ends the registry 10 s after its lifetime.

const fs = require('fs')
const { spawn, spawnSync } = require('child_process')

const [parentArg, lifetime, runFolder, bin, ...args] = process.argv.slice(2)
const parent = Number(parentArg)
// At most a day: Node's timers hold 2^31 ms at most.
if (!(parent > 1) || !(Number(lifetime) > 0 && Number(lifetime) <= 86400) || !runFolder || !bin) {
  console.error('usage: node scripts/local-registry.js <parent-pid> <lifetime-seconds, 1-86400> <run-folder> <verdaccio-bin> <args...>')
  process.exit(2)
}

const timeout = spawnSync('timeout', ['--version'], { stdio: 'ignore' }).status === 0
const command = timeout
  ? ['timeout', ['--foreground', '--signal=TERM', '--kill-after=5', String(Number(lifetime) + 10), process.execPath, bin, ...args]]
  : [process.execPath, [bin, ...args]]
const registry = spawn(command[0], command[1], { stdio: ['ignore', 'inherit', 'inherit'] })
let removeRunFolder = false

registry.on('exit', (code, signal) => {
  if (removeRunFolder) fs.rmSync(runFolder, { recursive: true, force: true })
  process.exit(code === null ? (signal === 'SIGTERM' ? 0 : 1) : code)
})
registry.on('error', (error) => {
  console.error(`local-registry: cannot start ${bin}: ${error.message}`)
  process.exit(1)
})

let stopping = false
function stop(why) {
  if (stopping) return
  stopping = true
  console.error(`local-registry: stopping the registry (${why})`)
  registry.kill('SIGTERM')
  setTimeout(() => registry.kill('SIGKILL'), 5000).unref()
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => stop(signal))
setTimeout(() => stop(`its ${lifetime} s are over`), Number(lifetime) * 1000).unref()
// Node has no parent-death signal: the parent pid is polled (a cheap system call). Compared with
// the pid the shell passed, so a shell that died before this process started is seen too.
const watch = setInterval(() => {
  if (process.ppid !== parent) {
    removeRunFolder = true
    clearInterval(watch)
    stop('the rehearsal that started it is gone')
  }
}, 500)
