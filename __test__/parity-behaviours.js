'use strict'

// Hook behaviours for verdict-parity.test.js: a seeded generator of what a hook prints for one
// event and how the event ends, the one hook program that performs them (per event and
// persistent), and the few pure functions the test reads them with. No addon here.
//
// A behaviour:
//   out       the bytes it prints on stdout, in ONE write
//   encoding  'utf8', 'utf16' (UTF-16 LE, no BOM) or 'utf16bom': how `out` was encoded
//   stderr    what it prints on stderr first ('' for nothing)
//   ending    'answer'  persistent: waits for the next event; per event: exits 0
//             'exit'    exits with `code` right after printing (0 or not)
//             'hang'    sleeps until its timeout stops it
//             'terminateAll'  sleeps; the test calls terminateAll() once it has printed
//   events    how many events in a row (a crash loop: `exit` with a non-zero code, 5 events)
//   tools     a `tools=` header, or undefined
//   profile   'extension' or 'cli'

const MiB = 1024 * 1024

// ---------------------------------------------------------------------------------------
// The seed and the PRNG (mulberry32: small, deterministic, good enough to pick cases).

/** The seed: PARITY_SEED (decimal or 0x hex), else one from the clock. */
function seedOf(env = process.env) {
  const given = env.PARITY_SEED
  if (given !== undefined && given !== '') {
    const n = Number(given)
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`PARITY_SEED must be an integer from 0 to 4294967295, got "${given}"`)
    return n
  }
  return (Date.now() ^ (process.pid << 16)) >>> 0
}

class Rng {
  constructor(seed) {
    this.state = seed >>> 0
  }

  next() {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0)
    t = Math.imul(t ^ (t >>> 15), 1 | t)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [0, n). */
  int(n) {
    return Math.floor(this.next() * n)
  }

  /** An integer in [lo, hi]. */
  range(lo, hi) {
    return lo + this.int(hi - lo + 1)
  }

  chance(p) {
    return this.next() < p
  }

  pick(items) {
    return items[this.int(items.length)]
  }

  /** One of `[weight, value]` pairs, by weight. */
  weighted(pairs) {
    let total = 0
    for (const [w] of pairs) total += w
    let x = this.next() * total
    for (const [w, v] of pairs) {
      x -= w
      if (x < 0) return v
    }
    return pairs[pairs.length - 1][1]
  }
}

// ---------------------------------------------------------------------------------------
// Encodings.

/** `text` in `encoding`. */
function encode(text, encoding) {
  if (encoding === 'utf16bom') return Buffer.from(`\ufeff${text}`, 'utf16le')
  if (encoding === 'utf16') return Buffer.from(text, 'utf16le')
  return Buffer.from(text, 'utf8')
}

/** The text a behaviour's bytes hold (a UTF-16 BOM dropped). */
function decode(out, encoding) {
  if (encoding === 'utf8') return out.toString('utf8')
  return out.toString('utf16le').replace(/^\ufeff/, '')
}

// ---------------------------------------------------------------------------------------
// What the persistent protocol can read as an answer.
//
// A per-event hook's output is read when it ends; a persistent hook's answer is a line. Two
// facts about a behaviour's text (in its own encoding) decide which decisions must agree:
//   answersSure   the text ends with a line end and holds a complete line that is a JSON object
//                 holding a verdict field, or `{}` (in the cli profile, behind `HOOK_CONTROL\t`
//                 too): a persistent hook that prints it has answered its event.
//   answersMaybe  some line (split at \n, \r\n or \r) holds a `{`: a reader might take an
//                 object it ends with, or one it opens, for an answer.

const VERDICT_FIELDS = ['cancel', 'shouldContinue', 'review', 'contextModification', 'context', 'errorMessage', 'overrideInput']

function classify(text, profile) {
  const isControl = (s) => /^HOOK_CONTROL\t/.test(s)
  const answersMaybe = text.split(/\r\n|\n|\r/).some((line) => line.includes('{'))
  let answersSure = false
  if (text.endsWith('\n')) {
    for (const line of text.split('\n')) {
      let t = line.replace(/\r$/, '').trim()
      if (isControl(t)) t = t.slice('HOOK_CONTROL\t'.length).trim()
      if (!t.startsWith('{') || !t.endsWith('}')) continue
      try {
        const value = JSON.parse(t)
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          const keys = Object.keys(value)
          if (keys.length === 0 || keys.some((key) => VERDICT_FIELDS.includes(key))) {
            answersSure = true
            break
          }
        }
      } catch {
        // not JSON: a log line
      }
    }
  }
  return { answersSure, answersMaybe }
}

/**
 * Whether the context a run adds must agree between per-event and persistent runs. A cancel
 * must agree always. The context must where both protocols see the same ending: the hook
 * answers and the event completes (`answer`, `exit 0`, its text answering surely), or no
 * answer can have come before its failure (`exit N`, `hang`, `terminateAll`, no line a reader
 * could take for one). Elsewhere the protocols differ by design: a persistent hook that
 * answers and then exits or hangs has answered (a per-event one failed, its context
 * dropped), and one that prints no answer line and waits was never done (a per-event one
 * exits 0 and completes).
 */
function contextMustAgree(behaviour) {
  if (behaviour.tools && !toolMatches(behaviour.tools)) return true // never started: no context anywhere
  const { answersSure, answersMaybe } = classify(decode(behaviour.out, behaviour.encoding), behaviour.profile)
  const completes = behaviour.ending === 'answer' || (behaviour.ending === 'exit' && behaviour.code === 0)
  return completes ? answersSure : !answersMaybe
}

/** The tool every event names. */
const TOOL = 'write_to_file'

function toolMatches(tools) {
  return tools.split(',').some((glob) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`).test(TOOL))
}

// ---------------------------------------------------------------------------------------
// Printing a behaviour (failure messages).

function escapeText(text, max = 360) {
  const quoted = JSON.stringify(text)
  if (quoted.length <= max) return quoted
  return `${quoted.slice(0, max / 2)} ...[${quoted.length - max} characters]... ${quoted.slice(-max / 2)}`
}

/** One line saying what a behaviour does. */
function describeBehaviour(b) {
  const text = decode(b.out, b.encoding)
  const enc = { utf8: 'UTF-8', utf16: 'UTF-16LE without BOM', utf16bom: 'UTF-16LE with BOM' }[b.encoding]
  const ending = b.ending === 'exit' ? `exit ${b.code}` : b.ending
  return [
    `${b.id} [${b.label}]`,
    `profile ${b.profile}`,
    b.tools ? `header tools=${b.tools}` : null,
    `ending: ${ending}${b.events > 1 ? ` on each of ${b.events} events in a row` : ''}`,
    b.stderr ? `stderr ${escapeText(b.stderr, 120)}` : null,
    `stdout ${b.out.length} bytes ${enc}: ${escapeText(text)}`,
  ]
    .filter(Boolean)
    .join('; ')
}

// ---------------------------------------------------------------------------------------
// Outputs.

const CANCEL = '{"cancel": true, "errorMessage": "blocked by the gate"}\n'

/**
 * The outputs of verdicts.test.js's table (every way a hook prints {"cancel": true}, or
 * prints it in a shape a careless reader would miss), as bytes: [label, text or bytes,
 * encoding, profile ('cli' for the HOOK_CONTROL ones, else either)].
 */
function verdictsTableOutputs() {
  const d = (n) => 'd'.repeat(n)
  const u16 = (s) => [s, 'utf16']
  const u16bom = (s) => [s, 'utf16bom']
  return [
    ['cancel, then junk', `${CANCEL}all done.\n`],
    ['cancel, then an array', `${CANCEL}[1, 2]\n`],
    ["cancel, then a lone ']'", `${CANCEL}]\n`],
    ['cancel in a 1,000-line pretty object', `${JSON.stringify({ cancel: true, findings: Array.from({ length: 1000 }, (_, line) => ({ line })) }, null, 2)}\n`],
    ['cancel after a prefix on its line', 'gate: {"cancel": true}\n'],
    ['cancel after another object on its line', '{"cancel": false} {"cancel": true}\n'],
    ['cancel after 256 lines opening arrays', `${'["x",\n'.repeat(256)}${CANCEL}`],
    ['a HOOK_CONTROL log line, then cancel', `HOOK_CONTROL\t{"cancel": false}\n${CANCEL}`],
    ['an indented HOOK_CONTROL cancel, then {"cancel": false}', '  HOOK_CONTROL\t{"cancel": true}\n{"cancel": false}\n', 'utf8', 'cli'],
    ['a HOOK_CONTROL cancel, then a truncated HOOK_CONTROL line', 'HOOK_CONTROL\t{"cancel": true}\nHOOK_CONTROL\t{"cancel": tr\n', 'utf8', 'cli'],
    ['cancel after 100 KB of logs, then 3 MB more (no final newline)', `${'l'.repeat(100000)}\n${CANCEL}${'x'.repeat(3000000)}`],
    ['cancel with a lone surrogate in its message', `${JSON.stringify({ cancel: true, errorMessage: String.fromCodePoint(0x1f6d1).slice(0, 1) })}\n`],
    ['cancel beside NaN and -Infinity (Python)', '{"cancel": true, "score": NaN, "limit": -Infinity}\n'],
    ['cancel beside 1e400', '{"cancel": true, "limit": 1e400}\n'],
    ['a HOOK_CONTROL cancel holding NaN', 'HOOK_CONTROL\t{"cancel": true, "score": NaN}\n', 'utf8', 'cli'],
    ['cancel in a 2 MiB compact object', `{"cancel":true,"errorMessage":"blocked","data":"${d(2 * MiB)}"}\n`],
    ['cancel last in a 5 MiB pretty object, after the big field', `{\n  "data": "${d(5 * MiB)}",\n  "errorMessage": "blocked",\n  "cancel": true\n}\n`],
    [
      'cancel last in a 6 MB pretty object holding 100,000 "cancel": false objects',
      `${JSON.stringify({ data: Array.from({ length: 100000 }, (_, line) => ({ cancel: false, line })), cancel: true }, null, 2)}\n`,
    ],
    ['cancel between two floods of 3 MB of logs', `${d(3000000)}\n${CANCEL}${d(3000000)}\n`],
    ['cancel, then a JSON log line', `${CANCEL}{"status": "logged"}\n`],
    ['cancel in UTF-16 with a BOM after a log line', ...u16bom('log\r\n{"cancel": true}\r\n')],
    ['cancel in UTF-16 without a BOM', ...u16('{"cancel": true}\r\n')],
    ['cancel beside JSON nested 128 deep', `{"cancel": true, "errorMessage": "blocked", "d": ${'['.repeat(127)}${']'.repeat(127)}}\n`],
    ['cancel after a field nested 100,000 deep', `{"d": ${'['.repeat(100000)}${']'.repeat(100000)}, "cancel": true}\n`],
    ['cancel in a 3 MiB object beside a field nested 200 deep', `{"cancel":true,"errorMessage":"blocked","d":${'['.repeat(200)}${']'.repeat(200)},"data":"${d(3 * MiB)}"}\n`],
    ['cancel in UTF-16 with a BOM after a Chinese line', ...u16bom('检查通过，没有问题。\r\n{"cancel":true}\r\n')],
    ['cancel in UTF-16 with a BOM after four emoji (no final newline)', ...u16bom('🛑🛑🛑🛑 blocked\n{"cancel":true}')],
    ['cancel in UTF-16 without a BOM after a ✓ (no final newline)', ...u16('✓ lint ok\n{"cancel":true}')],
    ['cancel in UTF-16 without a BOM right after an é', ...u16('é{"cancel":true}')],
    ['a verdict cut off after "cancel": true', `{"cancel":true,"errorMessage":"blocked","data":"${d(100000)}`],
    ['a HOOK_CONTROL cancel nested 1,000 deep, then {"cancel": false}', `HOOK_CONTROL\t{"cancel": true, "d": ${'['.repeat(1000)}${']'.repeat(1000)}}\n{"cancel": false}\n`, 'utf8', 'cli'],
  ].map(([label, text, encoding = 'utf8', profile]) => ({ label: `verdicts.test.js: ${label}`, text, encoding, profile }))
}

/**
 * Behaviours every run holds whatever the seed: the shapes the persistent reader is known to
 * get wrong, each with the ending that shows it. [label, text, encoding, ending, code, profile].
 */
function pinnedBehaviours() {
  const ctx = '{"cancel": false, "contextModification": "keep the tests green"}'
  return [
    ['two JSON lines in one write', '{"status":"checking"}\n{"cancel":true}\n', 'utf8', 'answer', 0, 'extension'],
    ['two JSON lines in one write, the second with context', `{"status":"checking"}\n${ctx}\n`, 'utf8', 'answer', 0, 'extension'],
    ['a JSON log line, then a HOOK_CONTROL cancel', '{"level":"info","msg":"checking"}\nHOOK_CONTROL\t{"cancel":true}\n', 'utf8', 'answer', 0, 'cli'],
    ['an answer over 2 MiB, cancel after the big field', `{"data":"${'d'.repeat(2 * MiB + 4096)}","cancel":true,"contextModification":"too big to miss"}\n`, 'utf8', 'answer', 0, 'extension'],
    ['an answer of just under 1 MiB with context', `{"data":"${'d'.repeat(MiB - 100)}","contextModification":"near a mebibyte"}\n`, 'utf8', 'answer', 0, 'cli'],
    ['cancel in UTF-16 with a BOM', '{"cancel": true, "contextModification": "utf-16"}\r\n', 'utf16bom', 'answer', 0, 'extension'],
    ['cancel in UTF-16 without a BOM', '{"cancel": true}\r\n', 'utf16', 'answer', 0, 'cli'],
    ['context ending in CRLF', `${ctx}\r\n`, 'utf8', 'answer', 0, 'extension'],
    ['context ending in a bare CR', `${ctx}\r`, 'utf8', 'exit', 0, 'extension'],
    ['cancel with no final newline, then exit 0', '{"cancel": true}', 'utf8', 'exit', 0, 'extension'],
    ['cancel with no final newline, then exit 1', '{"cancel": true}', 'utf8', 'exit', 1, 'cli'],
    ['cancel with no final newline, then hang', '{"cancel": true}', 'utf8', 'hang', 0, 'extension'],
    ['cancel with no final newline, then terminateAll', '{"cancel": true}', 'utf8', 'terminateAll', 0, 'extension'],
    ['cancel in a line that is not the answer, then hang', 'gate: {"cancel": true}\n', 'utf8', 'hang', 0, 'cli'],
  ].map(([label, text, encoding, ending, code, profile]) => ({ label: `pinned: ${label}`, text, encoding, ending, code, profile }))
}

// Regressions: behaviours a random seed once made decide differently, run on every seed. They
// are added last and draw nothing from the generator, so every seed's other behaviours keep
// their ids and bytes (a reported seed still reproduces its case).
function regressionBehaviours() {
  // latin1: each character is one byte, so \xc3 is written as the lone byte a locator piece is.
  const bytes = (text) => Buffer.from(text, 'latin1')
  return [
    // seed 5015, c153: a NUL byte in a line after the answer's kept the encoding undecided.
    ['seed 5015 c153', bytes('-1e309\r\n{"contextModification":"from a piece"}\n-\r\n\0{ "status": {  } \r\n'), 'extension'],
    // seed 1360605944, c186: a NUL byte just past the first line end, behind an invalid byte.
    [
      'seed 1360605944 c186',
      bytes('\xc3true\n\0[{"contextModification":"\t\\u12\\"","contextModification":-12},[{}]]\n{"status":"logged"}\r\ntrue\xc301\n {"contextModification":"from a piece"}\r\n'),
      'cli',
    ],
  ].map(([label, out, profile]) => ({ label: `regression: ${label}`, out, encoding: 'utf8', profile, ending: 'answer', stderr: 'checking...\n', factory: true, sdk: profile === 'cli' }))
}

// The structured generator: a verdict with log lines around it, line endings, encodings, sizes.

const WORDS = ['lint', 'tests', 'secrets', 'format', 'deploy', 'review', 'policy', 'scan']

function contextText(r) {
  const word = r.pick(WORDS)
  return r.weighted([
    [6, `check ${word} ${r.int(1000)}`],
    [1, `mind the ${word}: é中🛑`],
    [1, `two lines\nof ${word}`],
    [1, `tab\tand "quotes" in ${word}`],
    [0.3, `${word} `.repeat(12000)], // over the 50,000-byte limit: cut
  ])
}

function verdictObject(r, profile) {
  const v = {}
  const cancel = r.weighted([[4, true], [2, false], [4, undefined], [0.3, null]])
  if (cancel !== undefined) v.cancel = cancel
  if (r.chance(0.55)) v.contextModification = r.chance(0.03) ? 42 : contextText(r)
  if (r.chance(profile === 'cli' ? 0.3 : 0.1)) v.context = contextText(r)
  if (r.chance(0.3)) v.errorMessage = `refused by the ${r.pick(WORDS)} gate`
  if (r.chance(0.1)) v.review = true
  if (Object.keys(v).length === 0 || r.chance(0.05)) v.status = 'checking'
  return v
}

const LOGS = ['checking src/app.ts', 'all done.', 'ok', '[1, 2]', ']', 'log: {', '✓ lint ok', '检查通过']

function logLine(r, profile, allowObjects) {
  const pairs = [[5, () => r.pick(LOGS)]]
  if (allowObjects) {
    pairs.push([3, () => JSON.stringify({ level: 30, msg: `checking ${r.pick(WORDS)}` })])
    pairs.push([2, () => `gate: ${JSON.stringify(verdictObject(r, profile))}`])
    pairs.push([2, () => JSON.stringify(verdictObject(r, profile))])
    pairs.push([2, () => `HOOK_CONTROL\t${JSON.stringify(verdictObject(r, profile))}`])
    pairs.push([1, () => '{"status": "logged"}'])
  }
  return r.weighted(pairs)()
}

/** Sizes around the runner's limits: 1 MiB kept of each end of stdout, 2 MiB answer lines. */
const BIG = [MiB - 200, MiB + 200, 2 * MiB - 300, 2 * MiB + 300, 2 * MiB + 64 * 1024]

/**
 * A verdict with lines around it. Up to 4 KiB (what one write hands a reader in one piece), any
 * lines; bigger (a size around 1 and 2 MiB, or a context over its 50,000-byte limit), only text
 * logs before the verdict and nothing after it: a reader gets a big write in pieces, and a
 * JSON line or text read apart from the verdict could then be read before it arrives, or after.
 */
function structuredBehaviour(r, profile) {
  for (;;) {
    const bigSize = r.chance(0.08) ? r.pick(BIG) : 0
    const v = verdictObject(r, profile)
    let verdictLines
    if (bigSize) {
      const padding = 'd'.repeat(Math.max(0, bigSize - JSON.stringify(v).length - 12))
      const fields = r.chance(0.5) ? { data: padding, ...v } : { ...v, data: padding }
      verdictLines = [JSON.stringify(fields)]
    } else {
      const form = r.weighted([[6, 'compact'], [1, 'pretty'], [profile === 'cli' ? 2 : 0.5, 'control']])
      if (form === 'pretty') verdictLines = JSON.stringify(v, null, 2).split('\n')
      else if (form === 'control') verdictLines = [`${r.chance(0.2) ? '  ' : ''}HOOK_CONTROL\t${JSON.stringify(v)}`]
      else verdictLines = [JSON.stringify(v)]
    }
    const big = bigSize > 0 || verdictLines.join('\n').length > 1500
    const before = Array.from({ length: r.weighted([[4, 0], [3, 1], [2, 2], [1, 3]]) }, () => logLine(r, profile, !big))
    const after = big ? [] : Array.from({ length: r.weighted([[6, 0], [3, 1], [1, 2]]) }, () => logLine(r, profile, true))
    const lines = [...before, ...verdictLines, ...after]
    const style = r.weighted([[10, 'lf'], [3, 'crlf'], [1, 'cr'], [2, 'noFinal'], [1, 'bareCr']])
    let text
    if (style === 'crlf') text = `${lines.join('\r\n')}\r\n`
    else if (style === 'cr') text = `${lines.join('\r')}\r`
    else if (style === 'noFinal') text = lines.join('\n')
    else if (style === 'bareCr') text = `${lines.join('\n')}\r`
    else text = `${lines.join('\n')}\n`
    const encoding = big ? 'utf8' : r.weighted([[16, 'utf8'], [2, 'utf16bom'], [2, 'utf16']])
    if (!big && encode(text, encoding).length > 4096) continue
    return { label: `generated: ${style}${bigSize ? `, ${bigSize} bytes` : ''}`, text, encoding }
  }
}

// Shapes of the Rust output locator's property test (crates/hooks-core/src/verdict/locate.rs):
// pieces of noise, a text (junk, JSON valid or cut, a verdict, HOOK_CONTROL) and an end.

function jsonString(r) {
  const pieces = ['a', 'é中', '\\"', '\\\\', '\\n', '\\u00e9', '\\ud83d\\ude00', '\\ud83d', '\\x', '\\u12', '\t', '{"cancel":true}']
  return `"${Array.from({ length: r.int(4) }, () => r.pick(pieces)).join('')}"`
}

function locatorKey(r) {
  return r.weighted([[3, () => jsonString(r)], [2, () => '"cancel"'], [1, () => '"errorMessage"'], [1, () => '"contextModification"'], [1, () => '"c\\u0061ncel"'], [1, () => '"status"']])()
}

function locatorJson(r, sep, depth = 0) {
  const leaf = () =>
    r.weighted([
      [6, () => jsonString(r)],
      [5, () => r.pick(['0', '-12', '3.5', '1e3', '1e999', '-1e309', '01', '1.', '-'])],
      [3, () => 'true'],
      [1, () => 'false'],
      [1, () => 'null'],
      [1, () => r.pick(['tru', 'NaN', 'Infinity', '-Infinity', 'nan', '-Inf'])],
    ])()
  if (depth >= 3 || r.chance(0.4)) return leaf()
  if (r.chance(0.4)) return `[${Array.from({ length: r.int(4) }, () => locatorJson(r, sep, depth + 1)).join(`,${sep}`)}]`
  const members = Array.from({ length: r.int(4) }, () => `${locatorKey(r)}:${sep}${locatorJson(r, sep, depth + 1)}`)
  return `{${sep}${members.join(`,${sep}`)}${sep}}`
}

function locatorPiece(r) {
  const noise = r.weighted([[8, ''], [1, '\0'], [1, '\ufeff'], [1, '\xff'], [1, '\xc3'], [1, ' ']])
  const text = r.weighted([
    [4, () => Array.from({ length: r.int(17) }, () => r.pick('abcxyz "{}[]:,\\1'.split(''))).join('')],
    [4, () => locatorJson(r, '')],
    [3, () => locatorJson(r, '\n  ')],
    [2, () => {
      const s = locatorJson(r, ' ')
      return s.slice(0, r.int(s.length + 1))
    }],
    [3, () => r.pick(['{"cancel":true}', '{"cancel": false}', '{"status":"logged"}', '{"cancel":true,"score":NaN,"e":"\\ud83d"}', '{"contextModification":"from a piece"}'])],
    [1, () => 'HOOK_CONTROL\t{"cancel":false}'],
    [1, () => 'log: '],
  ])()
  const end = r.weighted([[4, '\n'], [2, '\r\n'], [2, ''], [1, ' ']])
  return { noise, text, end }
}

function locatorBehaviour(r) {
  const pieces = Array.from({ length: r.range(1, 6) }, () => locatorPiece(r))
  // Noise bytes that are not UTF-8 (\xff, a cut \xc3) are written as such.
  const bytes = []
  for (const { noise, text, end } of pieces) {
    if (noise === '\xff' || noise === '\xc3') bytes.push(Buffer.from([noise.charCodeAt(0)]))
    else bytes.push(Buffer.from(noise, 'utf8'))
    bytes.push(Buffer.from(text + end, 'utf8'))
  }
  if (r.chance(0.15)) {
    const open = r.range(110, 134)
    const close = r.range(110, 134)
    bytes.splice(r.int(bytes.length + 1), 0, Buffer.from(`${'['.repeat(open)}{}${']'.repeat(close)}`))
  }
  return { label: 'locator shape', out: Buffer.concat(bytes), encoding: 'utf8' }
}

// ---------------------------------------------------------------------------------------
// Endings and stderr.

function stderrOf(r) {
  return r.weighted([
    [8, ''],
    [2, 'checking...\n'],
    [1, '{"cancel": true, "errorMessage": "on stderr"}\n'],
    [1, `${'e'.repeat(20000)}\n`],
  ])
}

function endingOf(r, budget) {
  for (;;) {
    const [ending, code] = r.weighted([
      [9, ['answer', 0]],
      [3, ['exit', 0]],
      [4, ['exit', r.pick([1, 2, 3, 70])]],
      [2, ['hang', 0]],
      [1, ['terminateAll', 0]],
    ])
    if (budget[ending] === undefined || budget[ending] > 0) {
      if (budget[ending] !== undefined) budget[ending] -= 1
      return { ending, code }
    }
  }
}

// ---------------------------------------------------------------------------------------
// The cases of one run.

/**
 * Every behaviour of the run for `seed`, in a fixed order, each with the entry points it is
 * run through besides runHook per event and persistent (`factory`, `sdk`: createFileHooks and
 * the plugin, cli profile only).
 */
function generate(seed, { generated = 100, locator = 50 } = {}) {
  const r = new Rng(seed)
  const budget = { hang: 8, terminateAll: 6 }
  const cases = []
  const add = (b) => {
    const behaviour = {
      id: `c${String(cases.length + 1).padStart(3, '0')}`,
      stderr: '',
      events: 1,
      code: 0,
      ...b,
    }
    if (!behaviour.out) behaviour.out = encode(behaviour.text, behaviour.encoding)
    delete behaviour.text
    behaviour.factory = b.factory ?? r.chance(0.1)
    behaviour.sdk = behaviour.profile === 'cli' && (b.sdk ?? r.chance(0.25))
    cases.push(behaviour)
  }
  for (const p of pinnedBehaviours()) add({ ...p, sdk: p.profile === 'cli' ? true : undefined })
  for (const t of verdictsTableOutputs()) {
    add({ ...t, profile: t.profile || r.pick(['extension', 'cli']), stderr: stderrOf(r), ...endingOf(r, budget) })
  }
  for (let i = 0; i < generated; i++) {
    const profile = r.pick(['extension', 'cli'])
    add({ ...structuredBehaviour(r, profile), profile, stderr: stderrOf(r), ...endingOf(r, budget) })
  }
  for (let i = 0; i < locator; i++) {
    add({ ...locatorBehaviour(r), profile: r.pick(['extension', 'cli']), stderr: stderrOf(r), ...endingOf(r, budget) })
  }
  // tools=: a hook the header skips for this tool, and one it runs for.
  for (const tools of ['read_file', 'read_*,list_files', 'write_to_file', 'write_*']) {
    const profile = r.pick(['extension', 'cli'])
    add({ label: `tools=${tools}`, text: '{"cancel": true, "contextModification": "ran"}\n', encoding: 'utf8', profile, tools, ending: 'answer', sdk: true })
  }
  // Crash loops: exits non-zero on each of 5 events, with and without a printed cancel.
  // (cli: runHook, createFileHooks and the plugin alike.)
  for (const text of ['{"cancel": true, "errorMessage": "no"}\n', 'cannot reach the linter daemon\n', '{"cancel": true}', '{"contextModification": "half done"}\n']) {
    add({ label: 'crash loop', text, encoding: 'utf8', profile: 'cli', ending: 'exit', code: r.pick([1, 3]), events: 5, stderr: 'crashed\n', sdk: true })
  }
  for (const b of regressionBehaviours()) add(b)
  return cases
}

// ---------------------------------------------------------------------------------------
// The hook program: one file, both modes. It reads the behaviour named by the event's
// `preToolUse.parameters.parity` ("<case id> <run tag>") from `<specs>/<id>.json` and
// `<id>.out`, prints it in one write, writes `<marks>/<id>.<run tag>` with the time it printed,
// and ends as the behaviour says. An event without a behaviour (a warm-up) gets an empty line,
// then `{"contextModification": "<its tag>"}`.

function hookProgram({ specs, marks, header }) {
  return `#!/usr/bin/env node
${header ? `// cline-hook: ${header}\n` : ''}'use strict'
const fs = require('fs')
const path = require('path')
const SPECS = ${JSON.stringify(specs)}
const MARKS = ${JSON.stringify(marks)}
const persistent = process.env.CLINE_HOOK_MODE === 'persistent'
let stopped = false

// One fs.writeSync; the loop only in case the pipe takes part of it.
function writeAll(fd, buf) {
  let at = 0
  while (at < buf.length) {
    try {
      at += fs.writeSync(fd, buf, at, buf.length - at)
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1)
    }
  }
}

function perform(line) {
  let event = null
  try {
    event = JSON.parse(line)
  } catch {}
  const tag = event && event.preToolUse && event.preToolUse.parameters && event.preToolUse.parameters.parity
  if (typeof tag !== 'string' || !tag.includes(' ') || tag.startsWith('warm ')) {
    // A warm-up: its answer names it, after a line end that closes any line left unfinished.
    writeAll(1, Buffer.from('\\n' + JSON.stringify({ contextModification: String(tag) }) + '\\n'))
    if (!persistent) process.exit(0)
    return
  }
  const [id, run] = tag.split(' ')
  const spec = JSON.parse(fs.readFileSync(path.join(SPECS, id + '.json'), 'utf8'))
  if (spec.stderr) writeAll(2, Buffer.from(spec.stderr))
  writeAll(1, fs.readFileSync(path.join(SPECS, id + '.out')))
  const mark = path.join(MARKS, id + '.' + run)
  fs.writeFileSync(mark + '.tmp', String(Date.now()))
  fs.renameSync(mark + '.tmp', mark)
  if (spec.ending === 'exit') process.exit(spec.code)
  if (spec.ending === 'answer') {
    if (!persistent) process.exit(0)
    return
  }
  // hang, terminateAll: read nothing more, never end.
  stopped = true
  process.stdin.pause()
  setInterval(() => {}, 1 << 30)
}

if (persistent) {
  let pending = Buffer.alloc(0)
  process.stdin.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk])
    let nl
    while (!stopped && (nl = pending.indexOf(10)) >= 0) {
      const line = pending.subarray(0, nl).toString('utf8')
      pending = pending.subarray(nl + 1)
      if (line.trim()) perform(line)
    }
  })
  process.stdin.on('end', () => {
    if (!stopped) process.exit(0)
  })
} else {
  const chunks = []
  process.stdin.on('data', (chunk) => chunks.push(chunk))
  process.stdin.on('end', () => perform(Buffer.concat(chunks).toString('utf8')))
}
`
}

/** What the hook program reads for `behaviour`: the spec (JSON) and the bytes. */
function specFiles(behaviour) {
  return {
    json: JSON.stringify({ ending: behaviour.ending, code: behaviour.code, stderr: behaviour.stderr }),
    out: behaviour.out,
  }
}

module.exports = {
  MiB,
  TOOL,
  Rng,
  seedOf,
  generate,
  encode,
  decode,
  classify,
  contextMustAgree,
  toolMatches,
  describeBehaviour,
  escapeText,
  hookProgram,
  specFiles,
}
