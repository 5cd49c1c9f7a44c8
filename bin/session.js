'use strict'

// One CLI invocation's lifetime: what it has started (a hook run, the process reading its input)
// and the one way out when it must stop early (SIGHUP, SIGINT, SIGTERM, a closed stdout, an
// internal error): stop all of it, wait until the hook trees are gone, then exit with the cause's
// status. Every early exit goes through stop(), so none leaves a hook tree running.

const { SIGNAL_EXITS } = require('./exit-codes')
const { say, stderrFlushed } = require('./stdio')

/** Kills `child` and resolves once it is reaped (at most 1 s: SIGKILL cannot end a process stuck in the kernel). */
function reap(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGKILL')
  })
}

class Session {
  constructor() {
    /** Aborting it makes a run in flight kill its hooks' process trees and reject. */
    this.controller = new AbortController()
    /** The hook name while runHook is in flight, else null. */
    this.running = null
    /** Helper processes to kill on the way out (the reader of a FIFO or device input). */
    this.children = new Set()
    /** The addon once loaded: stop() calls its terminateAll(). */
    this.addon = null
    this.stopping = false
  }

  /**
   * Starts a helper process through `spawnIt()` and registers it for stop(); null when stopping
   * has begun (a helper started then would outlive the exit, blocked on its FIFO).
   */
  spawnHelper(spawnIt) {
    if (this.stopping) return null
    const child = spawnIt()
    this.children.add(child)
    child.once('exit', () => this.children.delete(child))
    return child
  }

  /** Each of SIGHUP, SIGINT, SIGTERM stops everything and exits with 128 + its number. */
  installSignalHandlers() {
    for (const [name, code] of Object.entries(SIGNAL_EXITS)) {
      process.on(name, () => {
        this.stop(code, { signal: name })
      })
    }
  }

  /**
   * Kills the helper processes, aborts a run in flight, waits for terminateAll() (every hook
   * tree this process started is gone when it resolves), then exits with `code`. A second call
   * (a second Ctrl-C) exits at once; the addon's exit hook still kills what is left.
   */
  async stop(code, { signal = null } = {}) {
    process.exitCode = code
    if (this.stopping) process.exit(code)
    this.stopping = true
    const reaped = [...this.children].map(reap)
    const running = this.running
    this.controller.abort()
    if (this.addon) {
      try {
        await this.addon.terminateAll()
      } catch {
        // Nothing more can be done from here; the addon's exit hook kills what is left.
      }
    }
    await Promise.all(reaped)
    if (signal && running !== null) say(`interrupted by ${signal}; the ${running} hooks were stopped`)
    // A stderr nobody drains (a full pipe, a terminal paused with Ctrl-S) must not hold the exit.
    await Promise.race([stderrFlushed(), new Promise((resolve) => setTimeout(resolve, 1000))])
    process.exit(code)
  }
}

module.exports = { Session }
