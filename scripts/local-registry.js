#!/usr/bin/env node
'use strict'
// Runs the release rehearsal's registry (verdaccio) so that it cannot outlive the rehearsal:
//
//   node scripts/local-registry.js <lifetime-seconds> <run-folder> <verdaccio-bin> <args...>
//
// Stopped (SIGTERM, then SIGKILL 5 s later) when this process is signalled, when its lifetime is
// over, or when the shell that started it is gone without stopping it (killed with SIGKILL: this
// process is then re-parented, so its parent pid changes). In that last case nothing else will
// clean up, so it also removes the run's folder, which holds the registry's storage and token.

const fs = require('fs')
const { spawn } = require('child_process')

const [lifetime, runFolder, bin, ...args] = process.argv.slice(2)
if (!(Number(lifetime) > 0) || !runFolder || !bin) {
  console.error('usage: node scripts/local-registry.js <lifetime-seconds> <run-folder> <verdaccio-bin> <args...>')
  process.exit(2)
}

const parent = process.ppid
const registry = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'inherit', 'inherit'] })
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
// Node has no parent-death signal: the parent pid is polled (a cheap system call).
const watch = setInterval(() => {
  if (process.ppid !== parent) {
    removeRunFolder = true
    clearInterval(watch)
    stop('the rehearsal that started it is gone')
  }
}, 500)
