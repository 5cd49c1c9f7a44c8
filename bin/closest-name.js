'use strict'

// The known name a mistyped one most likely means: equal ignoring case, else the nearest within
// two edits (insert, delete, replace, or swap two neighbours), ignoring case, else the one known
// name that begins with it followed by a dash (`--timeout` for `--timeout-ms`). Pure.

/** Edit distance between `a` and `b`, adjacent swaps counting as one edit. */
function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)])
  for (let j = 0; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  }
  return d[a.length][b.length]
}

/** The entry of `known` that `name` most likely means, or null. */
function closestName(name, known) {
  const lower = String(name).slice(0, 128).toLowerCase()
  const same = known.find((k) => k.toLowerCase() === lower)
  if (same !== undefined) return same
  let best = null
  let bestDistance = 3
  for (const k of known) {
    const distance = editDistance(lower, k.toLowerCase())
    if (distance < bestDistance) {
      best = k
      bestDistance = distance
    }
  }
  if (best !== null) return best
  const longer = known.filter((k) => k.toLowerCase().startsWith(`${lower}-`))
  return longer.length === 1 ? longer[0] : null
}

module.exports = { closestName, editDistance }
