'use strict'

// The hook input of `run --input FILE|-`: read without ever blocking the JavaScript thread or
// holding a libuv worker in a call that may never return, so SIGINT/SIGTERM/SIGHUP are handled
// and the process can exit while it waits, and never more than INPUT_LIMIT bytes.
//
// A regular file is read directly. Anything else (a FIFO, /dev/stdin, a device, bash's <(…)) is
// read by a `cat` child through a pipe: opening a FIFO blocks until a writer comes, and a worker
// thread stuck in open() would make process.exit() wait forever for it; a child can be killed.
// `--input -` is read by Node itself when stdin is a pipe, socket, terminal or regular file, and
// by `cat` otherwise: Node reads a device such as /dev/kmsg with a worker thread, whose read()
// may never return.

const fs = require('fs')
const tty = require('tty')
const { spawn } = require('child_process')
const { UsageError } = require('./errors')
const { say } = require('./stdio')

/**
 * The most input bytes read. The addon takes any object JSON.stringify can serialise, up to V8's
 * longest string (2^29 - 24 UTF-16 units, about 512 MiB), so any limit below that is one it
 * accepts. This CLI holds the input several times (bytes, text, parsed object, the addon's JSON
 * text) and a parsed object can take far more memory than its text: 16 MiB keeps the worst case
 * bounded (16 MiB of `[{},{},…]`: 0.7 GB, 3 s) while being far larger than any real hook input.
 */
const INPUT_LIMIT = 16 * 1024 * 1024
const INPUT_LIMIT_TEXT = '16 MiB'

function tooLarge(where) {
  return new UsageError(
    `the input from ${where} is larger than ${INPUT_LIMIT_TEXT}, the most cline-hooks reads; pass a smaller JSON object`,
    { hint: false },
  )
}

function unreadable(spec, why) {
  const what = spec === '-' ? 'the input from stdin' : `input file ${spec}`
  return new UsageError(`cannot read ${what}: ${why}`, { hint: false })
}

/** An fs error as a few words for the message. */
function describeFsError(e) {
  switch (e && e.code) {
    case 'ENOENT':
      return 'no such file'
    case 'EISDIR':
      return 'it is a directory'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'ENOTDIR':
      return 'a part of its path is not a directory'
    case 'ELOOP':
      return 'too many symbolic links'
    case 'ENAMETOOLONG':
      return 'its name is too long'
    default:
      return e && e.message ? e.message : String(e)
  }
}

/** Every byte of `stream`, or a UsageError once more than INPUT_LIMIT arrive (the stream is destroyed). */
async function readLimited(stream, where) {
  const chunks = []
  let size = 0
  for await (const chunk of stream) {
    size += chunk.length
    if (size > INPUT_LIMIT) {
      stream.destroy()
      throw tooLarge(where)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size)
}

/**
 * Reads a non-regular file (`-`: the CLI's own stdin) through `cat`, registered with the session
 * so stop() can kill it.
 */
async function readThroughCat(spec, session) {
  // stdin is inherited so that /dev/stdin, and `cat` without a file, read the CLI's own stdin.
  const args = spec === '-' ? [] : ['--', spec]
  const where = spec === '-' ? 'stdin' : spec
  const child = session.spawnHelper(() => spawn('cat', args, { stdio: ['inherit', 'pipe', 'pipe'] }))
  if (child === null) throw unreadable(spec, 'cline-hooks is stopping') // never printed: stop() exits first
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (d) => {
    if (stderr.length < 4096) stderr += d
  })
  const exited = new Promise((resolve) => {
    child.on('error', (e) => resolve({ error: e }))
    child.on('close', (code, signal) => resolve({ code, signal }))
  })
  try {
    const bytes = await readLimited(child.stdout, where)
    const end = await exited
    if (end.error) {
      const why = end.error.code === 'ENOENT' ? 'there is no cat on PATH' : describeFsError(end.error)
      throw unreadable(spec, `a FIFO or device is read with cat, and ${why}; pipe it to --input - instead`)
    }
    if (end.code !== 0) {
      // cat says "cat: FILE: Permission denied"; its last part is the reason.
      const why = stderr.trim().split('\n').pop().split(': ').pop() || `cat exited with ${end.code ?? end.signal}`
      throw unreadable(spec, why.charAt(0).toLowerCase() + why.slice(1))
    }
    return bytes
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

/**
 * Whether stdin must be read through `cat`: it is open and is not a pipe, socket, terminal or
 * regular file (a device such as /dev/kmsg), which Node would read with a worker thread.
 */
function stdinNeedsCat() {
  if (process.platform === 'win32') return false
  let stat
  try {
    stat = fs.fstatSync(0)
  } catch {
    return false // closed: Node's own stream says so
  }
  return !(stat.isFIFO() || stat.isSocket() || stat.isFile() || tty.isatty(0))
}

async function readFileBytes(spec, session) {
  let stat
  try {
    stat = await fs.promises.stat(spec)
  } catch (e) {
    throw unreadable(spec, describeFsError(e))
  }
  if (stat.isDirectory()) throw unreadable(spec, 'it is a directory')
  if (stat.isFile() || process.platform === 'win32') {
    if (stat.size > INPUT_LIMIT) throw tooLarge(spec)
    try {
      // O_NONBLOCK: should the file become a FIFO after the stat, open() still returns at once.
      const flags = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK || 0)
      return await readLimited(fs.createReadStream(spec, { flags }), spec)
    } catch (e) {
      if (e instanceof UsageError) throw e
      throw unreadable(spec, describeFsError(e))
    }
  }
  return readThroughCat(spec, session)
}

/** The input object for `run`: `{}` without --input, else the JSON object read from `spec`. */
async function readInput(spec, hookName, session) {
  if (spec === undefined) return {}
  let bytes
  let where
  if (spec === '-') {
    where = 'stdin'
    if (process.stdin.isTTY) say(`reading the ${hookName} input from stdin (end with Ctrl-D)`)
    bytes = stdinNeedsCat() ? await readThroughCat('-', session) : await readLimited(process.stdin, where)
  } else {
    where = spec
    bytes = await readFileBytes(spec, session)
  }
  let value
  try {
    value = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''))
  } catch (e) {
    throw new UsageError(`the input from ${where} is not valid JSON (${e.message}); pass one JSON object`, {
      hint: false,
    })
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
    throw new UsageError(`the input from ${where} must be a JSON object, not ${kind}`, { hint: false })
  }
  if (typeof value.hookName === 'string' && value.hookName !== hookName) {
    say(`warning: the input says hookName "${value.hookName}" but the hooks run are ${hookName}`)
  }
  return value
}

module.exports = { readInput, INPUT_LIMIT, INPUT_LIMIT_TEXT }
