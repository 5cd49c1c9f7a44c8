'use strict'

// Writing to stdout and stderr without ever crashing: a failed stdout write becomes an
// OutputError the caller turns into an exit status (a closed pipe is not an error worth a
// message); stderr carries one escaped sentence per message, and a stderr nobody reads is ignored.

const { escapeTerminal, fitToWidth } = require('./terminal-text')

const PROG = 'cline-hooks'

/** stdout could not be written: `closed` when its reader went away (EPIPE). */
class OutputError extends Error {
  constructor(cause) {
    // Node says "ENOSPC: no space left on device, write"; the middle part is the reason.
    const why = String(cause && cause.message ? cause.message : cause).replace(/^[A-Z0-9_]+: (.*?)(, \w+)?$/, '$1')
    super(`cannot write the output (${why})`)
    this.code = cause && cause.code
    this.closed = this.code === 'EPIPE'
  }
}

let installed = false
let stderrPending = Promise.resolve()

/**
 * Listens for the streams' 'error' events, which Node otherwise turns into an uncaught exception
 * with a stack trace. Called once by the CLI's entry point (not on require: tests load the module).
 */
function installStreamGuards() {
  if (installed) return
  installed = true
  process.stdout.on('error', () => {}) // each write's callback reports its own error
  process.stderr.on('error', () => {}) // nothing left to tell anyone
}

/** Writes `text` to stdout; resolves once it is handed to the OS, rejects with an OutputError. */
function writeStdout(text) {
  return new Promise((resolve, reject) => {
    if (process.stdout.destroyed) {
      reject(new OutputError(Object.assign(new Error('stdout is closed'), { code: 'EPIPE' })))
      return
    }
    process.stdout.write(text, (err) => (err ? reject(new OutputError(err)) : resolve()))
  })
}

/** Writes raw text to stderr; never fails. */
function writeStderr(text) {
  stderrPending = stderrPending.then(
    () =>
      new Promise((resolve) => {
        if (process.stderr.destroyed) return resolve()
        try {
          process.stderr.write(text, () => resolve())
        } catch {
          resolve()
        }
      }),
  )
  return stderrPending
}

/**
 * `cline-hooks: <message>` on stderr, the message escaped onto one line (on a terminal, wrapped
 * with an indent before the terminal would wrap it, as stdout is).
 */
function say(message) {
  const line = `${PROG}: ${escapeTerminal(message)}`
  const text = process.stderr.isTTY ? fitToWidth(line, process.stderr.columns, PROG.length + 2) : line
  return writeStderr(`${text}\n`)
}

/** Resolves once every stderr write so far has been handed to the OS (or failed). */
function stderrFlushed() {
  return stderrPending
}

module.exports = { PROG, OutputError, installStreamGuards, writeStdout, writeStderr, say, stderrFlushed }
