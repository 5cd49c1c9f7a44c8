'use strict'

// Grows this process's resident memory to a target, the way an editor's extension host is
// big: real, touched memory, a quarter in Buffers (off the V8 heap, like file contents and
// caches; BENCH_BUFFER_SHARE changes the share) and the rest in small JavaScript objects on
// the V8 heap. Buffers come first: V8 runs a full GC as external memory grows, which stays
// cheap while the V8 heap is small. Needs --max-old-space-size above the target, --expose-gc.

const kept = []
const BUFFER_SHARE = Number(process.env.BENCH_BUFFER_SHARE || 0.25)

function rss() {
  return process.memoryUsage().rss
}

/** Inflates RSS to about `targetBytes`; returns { rss, ms }. */
function inflate(targetBytes) {
  const started = Date.now()
  if (targetBytes <= rss()) return { rss: rss(), ms: 0 }
  const buffersUntil = rss() + (targetBytes - rss()) * BUFFER_SHARE
  let i = 0
  while (rss() < buffersUntil) {
    const b = Buffer.allocUnsafe(8 << 20)
    b.fill(i++ & 0xff)
    kept.push(b)
  }
  while (rss() < targetBytes) {
    const batch = new Array(10000)
    for (let j = 0; j < batch.length; j++) {
      batch[j] = { id: j, name: `item-${i}-${j}`, tags: [j, i], value: j * 0.5 }
    }
    kept.push(batch)
    i++
  }
  if (global.gc) global.gc()
  return { rss: rss(), ms: Date.now() - started }
}

module.exports = { inflate, rss }
