'use strict'

// `@cline/hooks/serve`: `serveHook(handler)` turns a function into a hook that answers in both
// of the runtime's modes. With `CLINE_HOOK_MODE=persistent` (a hook whose header says
// `mode=persistent`) the process stays up: each line of stdin is one event, each answer one line
// of stdout, in order, until EOF. Otherwise (per-event) stdin holds one JSON object, then EOF,
// and the one answer is printed. The line splitting and the verdict rule are pure functions
// below; the process I/O (stdin, stdout, the redirect of logs, the exit on a failure) is in
// `serveHook` and the two modes. It needs nothing but Node: no addon, no dependency.

const { once } = require('node:events')
const util = require('node:util')

/** The modes, as `CLINE_HOOK_MODE` and `options.mode` name them. */
const MODES = ['persistent', 'per-event']
const OPTIONS = ['mode']

/** How much of a line a failure message quotes: enough to recognise it, not a whole file's content. */
const QUOTE_CHARS = 80

let serving = false
let failing = false

/**
 * Splits text that arrives in pieces into lines. `push(text)` returns the lines it completed
 * (without `\n` or a `\r` before it), `end()` what is left after the last `\n` (or null). Only
 * the new piece is searched for `\n`, so a line of many megabytes arriving in 64 KiB pieces is
 * not rescanned piece after piece.
 */
class LineSplitter {
  constructor() {
    this.pieces = []
  }

  push(text) {
    const lines = []
    let start = 0
    let newline = text.indexOf('\n')
    while (newline !== -1) {
      this.pieces.push(text.slice(start, newline))
      lines.push(stripCr(this.pieces.join('')))
      this.pieces = []
      start = newline + 1
      newline = text.indexOf('\n', start)
    }
    if (start < text.length) this.pieces.push(text.slice(start))
    return lines
  }

  end() {
    if (this.pieces.length === 0) return null
    const rest = stripCr(this.pieces.join(''))
    this.pieces = []
    return rest
  }
}

function stripCr(line) {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

/** A failure that ends the hook: its message goes to stderr and the process exits 1. */
class HookFailure extends Error {
  constructor(message, cause) {
    super(message)
    this.name = 'HookFailure'
    this.detail = cause
  }
}

/** Where an event came from, for messages: "event 3 (line 3 of stdin)" or "the event on stdin". */
function whichEvent(where) {
  return where.line === undefined ? 'the event on stdin' : `event ${where.event} (line ${where.line} of stdin)`
}

function quote(text) {
  const shown = text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text
  return `${JSON.stringify(shown)} (${text.length} characters)`
}

/** The event a line or the whole input holds: a JSON object, a leading BOM allowed. */
function parseEvent(text, where) {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  let event
  try {
    event = JSON.parse(source)
  } catch (error) {
    throw new HookFailure(
      `serveHook: ${whichEvent(where)} is not JSON (${error.message}): ${quote(source)}. ` +
        'A hook gets one JSON object per event: a line of its own in persistent mode, all of stdin otherwise.',
    )
  }
  if (!isPlainObject(event)) {
    throw new HookFailure(`serveHook: ${whichEvent(where)} is ${describe(event)}, not a JSON object: ${quote(source)}.`)
  }
  return event
}

function isPlainObject(value) {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return `an instance of ${value.constructor?.name || 'a class'}`
  return `a ${typeof value} (${util.inspect(value)})`
}

/**
 * The line to print for what the handler returned: `undefined` is `{}` (go ahead); anything
 * but a plain object is the author's mistake, and guessing (an array? a string?) would let a
 * gate's bug pass for "allow".
 */
function answerLine(verdict, where, eventId) {
  if (verdict === undefined) return withEventId('{}', eventId)
  if (!isPlainObject(verdict)) {
    throw new HookFailure(
      `serveHook: the handler returned ${describe(verdict)} for ${whichEvent(where)}, not a verdict object. ` +
        "Return an object such as { cancel: true, errorMessage: 'why' }, or nothing to let the operation go ahead.",
    )
  }
  let text
  try {
    text = JSON.stringify(verdict)
  } catch (error) {
    throw new HookFailure(`serveHook: the handler's verdict for ${whichEvent(where)} cannot be written as JSON (${error.message}).`)
  }
  // A `toJSON` can turn the object into a string, a number or nothing: not an answer.
  if (typeof text !== 'string' || !text.startsWith('{')) {
    throw new HookFailure(
      `serveHook: the handler's verdict for ${whichEvent(where)} is written by its toJSON as ${text === undefined ? 'nothing' : text.slice(0, 80)}, not a JSON object. ` +
        'Return a plain object without a toJSON that changes what it is.',
    )
  }
  return withEventId(text, eventId, verdict)
}

/**
 * `text` (a JSON object) as one answer line, echoing the event's `hookEventId` (persistent
 * mode): the runtime then tells this answer from a late or extra one, so no answer can be
 * taken for another event's. A verdict that sets the field itself keeps its own.
 */
function withEventId(text, eventId, verdict = {}) {
  if (typeof eventId !== 'string' || Object.prototype.hasOwnProperty.call(verdict, 'hookEventId')) return `${text}\n`
  const field = `"hookEventId":${JSON.stringify(eventId)}`
  return text === '{}' ? `{${field}}\n` : `${text.slice(0, -1)},${field}}\n`
}

/**
 * Takes stdout for the answers and sends everything else written to it to stderr: while the
 * hook serves, `console.log` (and `info`, `debug`, `dir`, `table`, `time*`, `count`, `group`:
 * the global console writes through `process.stdout.write`) and direct `process.stdout.write`
 * calls go to stderr, so a log line can never be read as an answer and shift every answer after
 * it by one. Returns the real write for the answers and a function that undoes the redirect.
 */
function takeStdout() {
  const stdout = process.stdout
  const stderr = process.stderr
  const own = Object.prototype.hasOwnProperty.call(stdout, 'write')
  const previous = stdout.write
  const write = previous.bind(stdout)
  stdout.write = function writeToStderr(chunk, encoding, callback) {
    return stderr.write(chunk, encoding, callback)
  }
  const restore = () => {
    if (own) stdout.write = previous
    else delete stdout.write
  }
  return { write, restore }
}

/**
 * Ends the process after a failure: the message (with the stack) on stderr, the answers already
 * written flushed, then exit code 1, which the runtime reports as the event failing (the hook's
 * failure policy decides), as it does for a per-event hook that throws.
 */
function failAndExit(error, out) {
  // A stdout that fails reports it twice (its 'error' event and the answer waiting on it): say it once.
  if (failing) return
  failing = true
  const text =
    error instanceof HookFailure
      ? `${error.message}${error.detail === undefined ? '' : `\n${util.inspect(error.detail)}`}\n`
      : `serveHook: ${util.inspect(error)}\n`
  process.stdin.pause()
  let waiting = 2
  const done = () => {
    waiting -= 1
    if (waiting === 0) process.exit(1)
  }
  // A reader that never reads must not keep a failed hook alive: exit anyway after 2 s.
  setTimeout(() => process.exit(1), 2000)
  process.stderr.write(text, done)
  out.write('', done)
}

/** Calls the handler; whatever it throws or rejects with ends the hook, stack and all. */
async function callHandler(handler, event, where) {
  try {
    return await handler(event)
  } catch (error) {
    throw new HookFailure(
      `serveHook: the handler threw while answering ${whichEvent(where)}; the hook exits with code 1 ` +
        'so the runtime reports the event as failed (a persistent hook is started again for the next event):',
      error,
    )
  }
}

/**
 * Writes one answer. When stdout's buffer is full (the runtime reads slowly), the next event
 * waits for it to drain, so answers never pile up in this process.
 */
async function writeAnswer(out, line) {
  if (!out.write(line)) await once(process.stdout, 'drain')
}

/** Resolves when everything written to stdout before it has been handed to the system. */
function flushed(out) {
  return new Promise((resolve) => out.write('', () => resolve()))
}

/** Events read ahead before stdin is paused: this many lines, or this many characters. */
const QUEUE_LINES = 64
const QUEUE_CHARS = 1 << 20

/** Persistent mode: one event per line, in order, one at a time, until EOF. */
async function servePersistent(handler, out) {
  const input = process.stdin
  const splitter = new LineSplitter()
  const queue = []
  let ended = false
  let failed = null
  let wake = null
  const notify = () => {
    if (wake) {
      const resolve = wake
      wake = null
      resolve()
    }
  }
  let queued = 0 // characters of the lines in `queue`
  input.setEncoding('utf8')
  input.on('data', (text) => {
    for (const line of splitter.push(text)) {
      queue.push(line)
      queued += line.length
    }
    // Read no further while many events wait: a host that writes faster than the hook
    // answers fills the pipe and waits, instead of this process buffering without bound. (Not
    // at every event: stopping and restarting the read costs two system calls per event.)
    if (queue.length > QUEUE_LINES || queued > QUEUE_CHARS) input.pause()
    notify()
  })
  input.on('end', () => {
    const rest = splitter.end()
    if (rest !== null) queue.push(rest)
    ended = true
    notify()
  })
  input.on('error', (error) => {
    failed = new HookFailure('serveHook: reading stdin failed:', error)
    notify()
  })

  let events = 0
  let lines = 0
  for (;;) {
    if (failed) throw failed
    if (queue.length === 0) {
      if (ended) break
      if (input.isPaused()) input.resume()
      await new Promise((resolve) => {
        wake = resolve
      })
      continue
    }
    const line = queue.shift()
    queued -= line.length
    lines += 1
    if (line.trim() === '') continue
    events += 1
    const where = { event: events, line: lines }
    const event = parseEvent(line, where)
    const verdict = await callHandler(handler, event, where)
    await writeAnswer(out, answerLine(verdict, where, event.hookEventId))
  }
  await flushed(out)
  return events
}

/** Per-event mode: all of stdin is one event; one answer. */
async function servePerEvent(handler, out) {
  const input = process.stdin
  input.setEncoding('utf8')
  let text = ''
  try {
    for await (const piece of input) text += piece
  } catch (error) {
    throw new HookFailure('serveHook: reading stdin failed:', error)
  }
  const where = {}
  if (text.trim() === '') {
    throw new HookFailure('serveHook: stdin is empty; a hook gets its event as one JSON object on stdin.')
  }
  const event = parseEvent(text, where)
  const verdict = await callHandler(handler, event, where)
  await writeAnswer(out, answerLine(verdict, where))
  await flushed(out)
  return 1
}

/**
 * Serves `handler` on this process's stdin and stdout in the mode the runtime started it in
 * (`CLINE_HOOK_MODE`, or `options.mode`). Resolves when stdin has ended and every answer is
 * written, with `{ mode, events }`; a failure (the handler throws or rejects, returns something
 * that is not an object, or an event is not JSON) prints the error with its stack to stderr and
 * exits the process with code 1, so the returned promise then never settles.
 */
function serveHook(handler, options = {}) {
  if (typeof handler !== 'function') {
    throw new TypeError(`serveHook(handler): handler must be a function (event) => verdict, not ${describe(handler)}`)
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`serveHook(handler, options): options must be an object, not ${describe(options)}`)
  }
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) throw new TypeError(`serveHook: unknown option '${key}'; the options are ${OPTIONS.join(', ')}`)
  }
  if (options.mode !== undefined && !MODES.includes(options.mode)) {
    throw new TypeError(`serveHook: options.mode must be 'persistent' or 'per-event', not ${util.inspect(options.mode)}`)
  }
  if (serving) throw new Error('serveHook: this process already serves a hook on its stdin; call serveHook once')
  serving = true

  const mode = options.mode ?? (process.env.CLINE_HOOK_MODE === 'persistent' ? 'persistent' : 'per-event')
  const out = takeStdout()
  const onStdoutError = (error) => failAndExit(new HookFailure('serveHook: stdout failed (did the runtime close it?):', error), out)
  process.stdout.on('error', onStdoutError)
  const serve = mode === 'persistent' ? servePersistent : servePerEvent
  return serve(handler, out).then(
    (events) => {
      process.stdout.off('error', onStdoutError)
      out.restore()
      return { mode, events }
    },
    (error) => {
      failAndExit(error, out)
      // The process is exiting: the caller's promise stays pending rather than reporting a
      // rejection nobody can act on (and that Node would print a second time).
      return new Promise(() => {})
    },
  )
}

module.exports = { serveHook }
