'use strict'

// benchmark/chart.svg, drawn by hand: the trivial hook's latency per runner and host size
// (rows a and b), median as a bar and p99 as a whisker; and the largest event-loop delay
// while 100 hooks run at the biggest host size (row c), on a log scale.

const COLORS = { floor: '#9aa5b1', runHook: '#2b7bb9', node: '#d9822b', idle: '#c5ccd3' }
const LABELS = { floor: 'floor (Rust, posix_spawn)', runHook: 'runHook (@cline/hooks)', node: 'Node child_process' }

function esc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function niceMax(v) {
  const p = 10 ** Math.floor(Math.log10(v))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p
  return 10 * p
}

function fmt(v) {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)
}

/**
 * groups: [{ label, floor: {median,p99}, runHook: {...}, node: {...} }]
 * eventLoop: { label, idle, runHook: {sequential, burst}, node: {sequential, burst} } | null
 */
function render({ title, subtitle, groups, eventLoop }) {
  const W = 960
  const H = 440
  const out = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  )
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`)
  out.push(`<text x="20" y="28" font-size="16" font-weight="bold">${esc(title)}</text>`)
  out.push(`<text x="20" y="46" fill="#555">${esc(subtitle)}</text>`)

  // --- left panel: latency ---
  const L = { x: 70, y: 80, w: 520, h: 280 }
  const series = ['floor', 'runHook', 'node']
  const top = niceMax(Math.max(...groups.flatMap((g) => series.map((s) => (g[s] ? g[s].p99 : 0)))) * 1.08)
  const yOf = (v) => L.y + L.h - (v / top) * L.h
  out.push(`<text x="${L.x}" y="${L.y - 14}" font-weight="bold">Trivial hook, one run (ms): bar = median, whisker = p99</text>`)
  for (let i = 0; i <= 5; i++) {
    const v = (top / 5) * i
    const y = yOf(v)
    out.push(`<line x1="${L.x}" x2="${L.x + L.w}" y1="${y}" y2="${y}" stroke="#e3e7eb"/>`)
    out.push(`<text x="${L.x - 6}" y="${y + 4}" text-anchor="end" fill="#555">${fmt(v)}</text>`)
  }
  const gw = L.w / groups.length
  const bw = Math.min(40, (gw - 30) / series.length)
  groups.forEach((g, gi) => {
    const gx = L.x + gi * gw + (gw - bw * series.length) / 2
    series.forEach((s, si) => {
      if (!g[s]) return
      const x = gx + si * bw
      const y = yOf(g[s].median)
      out.push(`<rect x="${x + 2}" y="${y}" width="${bw - 4}" height="${L.y + L.h - y}" fill="${COLORS[s]}"/>`)
      const yp = yOf(g[s].p99)
      const cx = x + bw / 2
      out.push(`<line x1="${cx}" x2="${cx}" y1="${y}" y2="${yp}" stroke="#333"/>`)
      out.push(`<line x1="${cx - 5}" x2="${cx + 5}" y1="${yp}" y2="${yp}" stroke="#333"/>`)
      out.push(`<text x="${cx}" y="${Math.min(y, yp) - 4}" text-anchor="middle" font-size="10">${fmt(g[s].median)}</text>`)
    })
    out.push(`<text x="${L.x + gi * gw + gw / 2}" y="${L.y + L.h + 18}" text-anchor="middle">${esc(g.label)}</text>`)
  })
  out.push(`<line x1="${L.x}" x2="${L.x + L.w}" y1="${L.y + L.h}" y2="${L.y + L.h}" stroke="#333"/>`)
  series.forEach((s, i) => {
    const x = L.x + i * 180
    out.push(`<rect x="${x}" y="${H - 40}" width="12" height="12" fill="${COLORS[s]}"/>`)
    out.push(`<text x="${x + 18}" y="${H - 30}">${esc(LABELS[s])}</text>`)
  })

  // --- right panel: event-loop delay (log scale) ---
  if (eventLoop) {
    const R = { x: 680, y: 80, w: 250, h: 280 }
    out.push(`<text x="${R.x - 40}" y="${R.y - 14}" font-weight="bold">Event-loop max delay, 100 hooks, ${esc(eventLoop.label)}</text>`)
    const bars = [
      ['idle', 'idle', eventLoop.idle.max],
      ...(eventLoop.busy ? [['idle', 'no JS\n(xargs)', eventLoop.busy.max]] : []),
      ['runHook', 'runHook\n1 by 1', eventLoop.runHook.sequential.max],
      ['runHook', 'runHook\nall at once', eventLoop.runHook.burst.max],
      ['node', 'Node\n1 by 1', eventLoop.node.sequential.max],
      ['node', 'Node\nall at once', eventLoop.node.burst.max],
    ]
    const lo = 0.5
    const hi = 10 ** Math.ceil(Math.log10(Math.max(...bars.map((b) => b[2]), 10)))
    const yOfLog = (v) => R.y + R.h - ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * R.h
    for (let v = 1; v <= hi; v *= 10) {
      const y = yOfLog(v)
      out.push(`<line x1="${R.x}" x2="${R.x + R.w}" y1="${y}" y2="${y}" stroke="#e3e7eb"/>`)
      out.push(`<text x="${R.x - 6}" y="${y + 4}" text-anchor="end" fill="#555">${v} ms</text>`)
    }
    const y5 = yOfLog(5)
    out.push(`<line x1="${R.x}" x2="${R.x + R.w}" y1="${y5}" y2="${y5}" stroke="#c0392b" stroke-dasharray="4 3"/>`)
    out.push(`<text x="${R.x + R.w}" y="${y5 - 4}" text-anchor="end" fill="#c0392b" font-size="10">target 5 ms</text>`)
    const bw2 = R.w / bars.length
    bars.forEach(([kind, label, v], i) => {
      const x = R.x + i * bw2
      const y = yOfLog(v)
      out.push(`<rect x="${x + 6}" y="${y}" width="${bw2 - 12}" height="${R.y + R.h - y}" fill="${COLORS[kind]}"/>`)
      out.push(`<text x="${x + bw2 / 2}" y="${y - 4}" text-anchor="middle" font-size="10">${fmt(v)}</text>`)
      label.split('\n').forEach((part, li) => {
        out.push(`<text x="${x + bw2 / 2}" y="${R.y + R.h + 16 + li * 13}" text-anchor="middle" font-size="10">${esc(part)}</text>`)
      })
    })
    out.push(`<line x1="${R.x}" x2="${R.x + R.w}" y1="${R.y + R.h}" y2="${R.y + R.h}" stroke="#333"/>`)
  }
  out.push('</svg>')
  return out.join('\n') + '\n'
}

module.exports = { render }
