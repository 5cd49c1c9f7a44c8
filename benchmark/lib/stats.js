'use strict'

// Small statistics and formatting helpers shared by the benchmark's parts.

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
}

/** { n, median, p99, mean, min, max } of a list of numbers (milliseconds). */
function summarize(samples) {
  const sorted = Float64Array.from(samples).sort()
  const sum = sorted.reduce((a, b) => a + b, 0)
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    mean: sum / sorted.length,
    min: sorted[0],
    max: sorted[sorted.length - 1],
  }
}

function ms(v) {
  if (v == null || Number.isNaN(v)) return 'n/a'
  if (v >= 100) return `${v.toFixed(0)} ms`
  if (v >= 10) return `${v.toFixed(1)} ms`
  if (v < 0.1) return `${(v * 1000).toFixed(0)} µs`
  return `${v.toFixed(2)} ms`
}

function ratio(v) {
  if (v == null || !Number.isFinite(v)) return 'n/a'
  return `${v >= 10 ? v.toFixed(1) : v.toFixed(2)}×`
}

function rate(v) {
  if (v == null || !Number.isFinite(v)) return 'n/a'
  if (v >= 1e6) return `${(v / 1e6).toFixed(2)} M/s`
  if (v >= 1e4) return `${(v / 1e3).toFixed(0)} k/s`
  return `${v.toFixed(0)}/s`
}

function mib(bytes) {
  if (bytes == null || Number.isNaN(bytes)) return 'n/a'
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`
}

function gib(bytes) {
  return `${(bytes / 2 ** 30).toFixed(2)} GiB`
}

/** Calls/s of `fn` awaited back to back for `seconds` (after a warm-up), counting whole batches
 * (the clock is read per batch). */
async function callsPerSecond(fn, seconds) {
  const now = () => Number(process.hrtime.bigint()) / 1e6
  for (let i = 0; i < 2000; i++) await fn()
  const batch = 1000
  let calls = 0
  const t = now()
  const until = t + seconds * 1000
  while (now() < until) {
    for (let i = 0; i < batch; i++) await fn()
    calls += batch
  }
  return calls / ((now() - t) / 1000)
}

module.exports = { quantile, summarize, callsPerSecond, ms, ratio, rate, mib, gib }
