'use strict'

// The baseline: the same job done with Node's own child_process, written the way a careful
// Node implementation would do it. Spawn the hook (no shell), write the input line and close
// stdin, read stdout and stderr keeping bounded tails (1 MiB / 16 KiB, like the addon), wait
// for the exit, then parse the final JSON object of stdout (the last line starting with `{`).

const { spawn } = require('child_process')

const STDOUT_KEEP = 1 << 20
const STDERR_KEEP = 16 << 10

/** Keeps the last `cap` bytes of a stream as a list of chunks. */
class Tail {
  constructor(cap) {
    this.cap = cap
    this.chunks = []
    this.size = 0
    this.total = 0
  }

  push(chunk) {
    this.total += chunk.length
    if (chunk.length >= this.cap) {
      this.chunks = [chunk.subarray(chunk.length - this.cap)]
      this.size = this.cap
      return
    }
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.size - this.chunks[0].length >= this.cap) {
      this.size -= this.chunks.shift().length
    }
  }

  text() {
    const all = Buffer.concat(this.chunks)
    return all.subarray(Math.max(0, all.length - this.cap)).toString('utf8')
  }
}

function parseFinalJson(text) {
  const body = text.trimEnd()
  let end = body.length
  while (end > 0) {
    const start = body.lastIndexOf('\n', end - 1) + 1
    if (body[start] === '{') {
      try {
        const value = JSON.parse(body.slice(start))
        return value && typeof value === 'object' && !Array.isArray(value) ? value : null
      } catch {
        // a `{` line that is not the start of the final object: keep looking upwards
      }
    }
    end = start - 1
  }
  return null
}

/**
 * Runs one hook file with `input` (an object) on stdin; resolves with
 * `{ cancel, exitCode, signal, output, stdoutBytes, stderr }`.
 */
function runWithNode(file, input, { cwd, env } = {}) {
  const line = JSON.stringify(input) + '\n'
  return new Promise((resolve, reject) => {
    const child = spawn(file, [], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
    const out = new Tail(STDOUT_KEEP)
    const err = new Tail(STDERR_KEEP)
    child.stdout.on('data', (c) => out.push(c))
    child.stderr.on('data', (c) => err.push(c))
    child.stdin.on('error', () => {}) // a hook may exit without reading its input
    child.on('error', reject)
    child.on('close', (exitCode, signal) => {
      const output = parseFinalJson(out.text())
      resolve({
        cancel: Boolean(output && output.cancel === true),
        exitCode,
        signal,
        output,
        stdoutBytes: out.total,
        stderr: err.text(),
      })
    })
    child.stdin.end(line)
  })
}

module.exports = { runWithNode, parseFinalJson }
