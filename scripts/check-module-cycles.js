#!/usr/bin/env node
'use strict'

// Fails when modules of this repository's Rust crates import each other in a cycle: the core
// (crates/hooks-core/src) and the napi layer (src/). Each .rs file is one module; its inline
// `mod x { }` blocks count as the file. An edge a -> b says that file a names an item that file b
// defines: through `use crate::`, `use super::` or `use self::`, a path written in the code
// (`super::spawn::spawn_watched(..)`, `crate::policy::TrustState`), a child module's name, or a
// name that its own `use` brought in. A re-export is followed to the file that defines the item,
// so a `mod.rs` that only re-exports its children is nobody's dependency, while a file that
// re-exports another room's item depends on that room. Not edges: a `use` that names a module
// (the paths through it are), a module and its own submodules (they are parts of it), code
// compiled only for tests (`#[cfg(test)]`), and paths into other crates (std, tokio,
// cline_hooks_core): each crate is checked on its own.
//
//   node scripts/check-module-cycles.js           each cycle as `a -> b -> a`, with the file, line
//                                                  and names of each step; exits 1 if there is one
//   node scripts/check-module-cycles.js --edges   also every edge of both crates
//   node scripts/check-module-cycles.js --tests   test code's imports counted too

const fs = require('fs')
const path = require('path')

const ROOT = path.resolve(__dirname, '..')
const CRATES = [
  { name: 'hooks-core', dir: 'crates/hooks-core/src' },
  { name: 'napi', dir: 'src' },
]

// Blanks comments, string literals and char literals (keeping newlines and offsets), so that the
// regular expressions below see only code.
function stripCode(src) {
  const out = src.split('')
  const n = src.length
  const blank = (from, to) => {
    for (let k = from; k < to && k < n; k++) if (out[k] !== '\n') out[k] = ' '
  }
  const isIdent = (c) => c !== undefined && /[A-Za-z0-9_]/.test(c)
  let i = 0
  while (i < n) {
    const c = src[i]
    const next = src[i + 1]
    if (c === '/' && next === '/') {
      let j = src.indexOf('\n', i)
      if (j < 0) j = n
      blank(i, j)
      i = j
    } else if (c === '/' && next === '*') {
      let depth = 1
      let j = i + 2
      while (j < n && depth > 0) {
        if (src[j] === '/' && src[j + 1] === '*') { depth++; j += 2 } else if (src[j] === '*' && src[j + 1] === '/') { depth--; j += 2 } else j++
      }
      blank(i, j)
      i = j
    } else if (!isIdent(src[i - 1]) && /^(?:b|c)?r#*"/.test(src.slice(i, i + 260)) && /^(?:b|c)?r/.test(src.slice(i, i + 2))) {
      // raw string: r"..", r#".."#, br#".."#
      const m = /^(?:b|c)?r(#*)"/.exec(src.slice(i, i + 260))
      const close = '"' + m[1]
      let j = src.indexOf(close, i + m[0].length)
      j = j < 0 ? n : j + close.length
      blank(i, j)
      i = j
    } else if (c === '"' || ((c === 'b' || c === 'c') && next === '"' && !isIdent(src[i - 1]))) {
      let j = c === '"' ? i + 1 : i + 2
      while (j < n && src[j] !== '"') j += src[j] === '\\' ? 2 : 1
      blank(i, j + 1)
      i = j + 1
    } else if (c === '\'' || (c === 'b' && next === '\'' && !isIdent(src[i - 1]))) {
      // a char literal ('a', '\n', '\u{1F600}', b'x'), or else a lifetime ('a, 'static), left alone
      const q = c === '\'' ? i : i + 1
      if (src[q + 1] === '\\') {
        let j = q + 2
        while (j < n && src[j] !== '\'') j++
        blank(i, j + 1)
        i = j + 1
      } else {
        const cp = src.codePointAt(q + 1)
        const width = cp > 0xffff ? 2 : 1
        if (src[q + 1 + width] === '\'') {
          blank(i, q + 2 + width)
          i = q + 2 + width
        } else i = q + 1
      }
    } else i++
  }
  return out.join('')
}

function matchingBrace(code, open) {
  let depth = 0
  for (let k = open; k < code.length; k++) {
    if (code[k] === '{') depth++
    else if (code[k] === '}' && --depth === 0) return k
  }
  return code.length
}

// Splits a use tree (`a::b::{c, d::e as f, g::*}`) into its paths.
function expandUseTree(text) {
  const results = []
  const walk = (s, prefix) => {
    s = s.trim()
    if (!s) return
    const brace = s.indexOf('{')
    if (brace >= 0) {
      const head = s.slice(0, brace).replace(/::\s*$/, '').trim()
      const base = head ? prefix.concat(head.split('::').map((x) => x.trim()).filter(Boolean)) : prefix
      const inner = s.slice(brace + 1, s.lastIndexOf('}'))
      let depth = 0
      let start = 0
      for (let k = 0; k <= inner.length; k++) {
        const ch = inner[k]
        if (ch === '{') depth++
        else if (ch === '}') depth--
        else if ((ch === ',' && depth === 0) || k === inner.length) {
          walk(inner.slice(start, k), base)
          start = k + 1
        }
      }
      return
    }
    const asMatch = /^(.*?)\s+as\s+(\w+)$/.exec(s)
    const pathText = asMatch ? asMatch[1] : s
    let segs = prefix.concat(pathText.split('::').map((x) => x.trim()).filter(Boolean))
    if (segs[0] === '') segs = segs.slice(1)
    const last = segs[segs.length - 1]
    if (last === '*') results.push({ segs: segs.slice(0, -1), glob: true, alias: null })
    else if (last === 'self') {
      const real = segs.slice(0, -1)
      results.push({ segs: real, glob: false, alias: asMatch ? asMatch[2] : real[real.length - 1] })
    } else results.push({ segs, glob: false, alias: asMatch ? asMatch[2] : last })
  }
  walk(text, [])
  return results
}

const ITEM_RE = /\b(?:fn|struct|enum|trait|type|union)\s+([A-Za-z_]\w*)|\b(?:const|static)\s+(?:mut\s+)?([A-Za-z_]\w*)\s*:|\bmacro_rules!\s*([A-Za-z_]\w*)/g
const USE_RE = /(^|[;{}\]\s])(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]+);/g
const PATH_RE = /(?<![\w:$])([A-Za-z_]\w*)((?:\s*::\s*[A-Za-z_]\w*)+)/g

function loadCrate({ name, dir }) {
  const srcDir = path.join(ROOT, dir)
  const files = new Map() // node name -> { rel, code }
  const modules = []
  const root = { name: '', parent: null, children: new Map(), items: new Set(), uses: [], refs: [] }

  // A file's node name: its path under src/, without .rs; mod.rs and lib.rs name their folder.
  const nodeOf = (rel) => {
    const noExt = rel.replace(/\.rs$/, '')
    if (noExt === 'lib' || noExt === 'main') return 'crate'
    return noExt.replace(/\/mod$/, '')
  }

  const loadFile = (mod, rel) => {
    const abs = path.join(srcDir, rel)
    const raw = fs.readFileSync(abs, 'utf8')
    const code = stripCode(raw)
    const node = nodeOf(rel)
    files.set(node, { rel: path.join(dir, rel), code })
    fill(mod, node, rel, code, 0, code.length)
  }

  // Fills a module (a file's or an inline block's) from code[start, end): its inline and file
  // children, its items, its uses and its paths.
  const fill = (mod, node, rel, code, start, end) => {
    mod.node = node
    modules.push(mod)
    const holes = [] // inline child blocks, read as their own modules
    const modRe = /\bmod\s+([A-Za-z_]\w*)\s*(;|\{)/g
    modRe.lastIndex = start
    let m
    while ((m = modRe.exec(code)) && m.index < end) {
      if (holes.some(([a, b]) => m.index > a && m.index < b)) continue
      const child = { name: m[1], parent: mod, children: new Map(), items: new Set(), uses: [], refs: [] }
      child.testOnly = mod.testOnly || isTestOnly(code, m.index)
      mod.children.set(m[1], child)
      if (m[2] === '{') {
        const open = m.index + m[0].length - 1
        const close = matchingBrace(code, open)
        holes.push([open, close])
        child.inline = true
        fill(child, node, rel, code, open + 1, close)
        modRe.lastIndex = close
      } else {
        // `mod x;` in a/b.rs or a/b/mod.rs is a/b/x.rs or a/b/x/mod.rs
        const base = /(^|\/)(mod|lib|main)\.rs$/.test(rel) ? path.posix.dirname(rel) : rel.replace(/\.rs$/, '')
        const prefix = base === '.' ? '' : base + '/'
        const candidates = [`${prefix}${m[1]}.rs`, `${prefix}${m[1]}/mod.rs`]
        const found = candidates.find((c) => fs.existsSync(path.join(srcDir, c)))
        if (found) loadFile(child, found)
        else child.external = true
      }
    }
    const inHole = (k) => holes.some(([a, b]) => k > a && k < b)
    mod.testRanges = testRanges(code, start, end)
    const useSpans = []
    const useRe = new RegExp(USE_RE.source, 'g')
    useRe.lastIndex = start
    while ((m = useRe.exec(code)) && m.index < end) {
      const at = m.index + m[1].length
      if (inHole(at)) continue
      useSpans.push([at, m.index + m[0].length])
      const isPub = Boolean(m[2])
      const testOnly = mod.testOnly || mod.testRanges.some(([a, b]) => at >= a && at < b)
      for (const u of expandUseTree(m[3])) mod.uses.push({ ...u, isPub, at, testOnly })
    }
    const itemRe = new RegExp(ITEM_RE.source, 'g')
    itemRe.lastIndex = start
    while ((m = itemRe.exec(code)) && m.index < end) {
      if (!inHole(m.index)) mod.items.add(m[1] || m[2] || m[3])
    }
    const pathRe = new RegExp(PATH_RE.source, 'g')
    pathRe.lastIndex = start
    while ((m = pathRe.exec(code)) && m.index < end) {
      if (inHole(m.index) || useSpans.some(([a, b]) => m.index >= a && m.index < b)) continue
      const segs = [m[1]].concat(m[2].split('::').map((x) => x.trim()).filter(Boolean))
      const testOnly = mod.testOnly || mod.testRanges.some(([a, b]) => m.index >= a && m.index < b)
      mod.refs.push({ segs, at: m.index, testOnly })
    }
  }

  const rootRel = fs.existsSync(path.join(srcDir, 'lib.rs')) ? 'lib.rs' : 'main.rs'
  loadFile(root, rootRel)
  return { name, dir, root, modules, files }
}

// Whether the item starting at `at` carries `#[cfg(test)]` among the attributes before it.
function isTestOnly(code, at) {
  const before = code.slice(Math.max(0, at - 400), at)
  const attrs = /((?:#\[[^\]]*\]\s*)*)(?:pub(?:\s*\([^)]*\))?\s+)?$/.exec(before)
  return Boolean(attrs && /#\[cfg\((?:all\(\s*)?test\b/.test(attrs[1]))
}

// The ranges of code[start, end) that only tests compile: what follows `#[cfg(test)]` (or
// `#[cfg(all(test, ..))]`): an item (to its `;` or its closing brace), a block, or a field, a
// statement or an argument (to its `,` or `;`).
function testRanges(code, start, end) {
  const ranges = []
  const re = /#\[cfg\((?:all\(\s*)?test\b[^\]]*\]/g
  re.lastIndex = start
  let m
  while ((m = re.exec(code)) && m.index < end) {
    let k = m.index + m[0].length
    for (let attr; (attr = /^\s*#\[[^\]]*\]/.exec(code.slice(k, k + 400)));) k += attr[0].length
    while (/\s/.test(code[k])) k++
    const isItem = /^(?:pub(?:\s*\([^)]*\))?\s+)?(?:fn|async|unsafe|const|static|use|mod|impl|struct|enum|trait|type|extern|macro_rules!)\b/.test(code.slice(k, k + 80))
    let stop = k
    if (code[k] === '{') stop = matchingBrace(code, k) + 1
    else {
      // to the end of the item, or (not an item) of the field, statement or argument
      let depth = 0
      for (; stop < end; stop++) {
        const c = code[stop]
        if (c === '(' || c === '[') depth++
        else if (c === ')' || c === ']') depth--
        else if (c === '{' && depth === 0 && isItem) { stop = matchingBrace(code, stop) + 1; break }
        else if (c === '{') depth++
        else if (c === '}') { if (depth === 0) break; depth-- }
        else if (depth === 0 && (c === ';' || (c === ',' && !isItem))) { stop++; break }
      }
    }
    ranges.push([m.index, stop])
    re.lastIndex = stop
  }
  return ranges
}

// The module that defines what `segs` names, seen from `mod`; null for another crate's path.
// `found.module` tells whether the path names that module itself rather than an item of it.
function resolve(crate, mod, segs, seen = new Set(), found = {}) {
  const key = `${crate.modules.indexOf(mod)}|${segs.join('::')}`
  if (seen.has(key) || seen.size > 200) return null
  seen.add(key)
  found.module = false
  let cur = mod
  let k = 0
  const first = segs[0]
  if (first === 'crate') { cur = crate.root; k = 1 } else if (first === 'self') k = 1
  else if (first === 'super') { /* walked below */ } else if (first === 'Self' || first === '$crate') return null
  else if (!cur.children.has(first) && !cur.items.has(first)) {
    // a relative first segment: a name brought in by a `use` (or a glob's), else another crate's
    const use = cur.uses.find((u) => !u.glob && u.alias === first)
    if (use) {
      const local = ['crate', 'super', 'self'].includes(use.segs[0]) || cur.children.has(use.segs[0])
      return local ? resolve(crate, cur, use.segs.concat(segs.slice(1)), seen, found) : null
    }
    for (const glob of cur.uses.filter((u) => u.glob)) {
      const base = resolve(crate, cur, glob.segs, seen)
      if (base && base !== cur && definesName(crate, base, first, seen)) return resolve(crate, base, ['self'].concat(segs), seen, found)
    }
    return null
  }
  for (; k < segs.length; k++) {
    const s = segs[k]
    if (s === 'super') {
      if (!cur.parent) return null
      cur = cur.parent
      continue
    }
    if (s === 'self') continue
    const child = cur.children.get(s)
    if (child) {
      if (child.external) return cur
      cur = child
      continue
    }
    if (cur.items.has(s)) return cur
    const use = cur.uses.find((u) => !u.glob && u.alias === s && u.segs.join('::') !== segs.slice(0, k + 1).join('::'))
    if (use) return resolve(crate, cur, use.segs.concat(segs.slice(k + 1)), seen, found) || cur
    for (const glob of cur.uses.filter((u) => u.glob)) {
      const base = resolve(crate, cur, glob.segs, seen)
      if (base && base !== cur && definesName(crate, base, s, seen)) return resolve(crate, base, ['self'].concat(segs.slice(k)), seen, found) || base
    }
    return cur // an enum variant, a method, a macro: read as an item of the module reached
  }
  found.module = true
  return cur
}

function definesName(crate, mod, name, seen) {
  if (mod.items.has(name) || mod.children.has(name)) return true
  if (mod.uses.some((u) => !u.glob && u.alias === name)) return true
  return mod.uses.some((u) => {
    if (!u.glob) return false
    const key = `glob|${crate.modules.indexOf(mod)}|${u.segs.join('::')}|${name}`
    if (seen.has(key)) return false
    seen.add(key)
    const base = resolve(crate, mod, u.segs, seen)
    return base && base !== mod && definesName(crate, base, name, seen)
  })
}

function fileModule(mod) {
  while (mod.inline) mod = mod.parent
  return mod
}

function isWithin(mod, ancestor) {
  for (let m = mod; m; m = m.parent) if (m === ancestor) return true
  return false
}

function lineOf(code, at) {
  let line = 1
  for (let k = 0; k < at; k++) if (code[k] === '\n') line++
  return line
}

function edgesOf(crate) {
  const edges = new Map() // from -> Map(to -> evidence)
  const add = (mod, target, segs, at) => {
    if (!target) return
    const from = fileModule(mod)
    const to = fileModule(target)
    if (from === to) return
    if (isWithin(from, to) || isWithin(to, from)) return // a module and its own submodules
    if (!edges.has(from.node)) edges.set(from.node, new Map())
    const out = edges.get(from.node)
    if (!out.has(to.node)) {
      const file = crate.files.get(from.node)
      out.set(to.node, { where: `${file.rel}:${lineOf(file.code, at)}`, names: new Set() })
    }
    out.get(to.node).names.add(segs.filter((x) => !['crate', 'super', 'self'].includes(x)).join('::') || segs.join('::'))
  }
  for (const mod of crate.modules) {
    for (const u of mod.uses) {
      if (u.testOnly && !withTests) continue
      const found = {}
      const target = resolve(crate, mod, u.segs.length ? u.segs : ['self'], new Set(), found)
      if (!target) continue
      // `use crate::policy;` names a module: the paths through it (`policy::apply`) are the edges.
      if (found.module && !u.glob) continue
      // A module's public face (a `pub use` of its own descendants) is not a dependency of it.
      if (u.isPub && isWithin(target, fileModule(mod))) continue
      add(mod, target, u.segs, u.at)
    }
    for (const r of mod.refs) if (!r.testOnly || withTests) add(mod, resolve(crate, mod, r.segs), r.segs, r.at)
  }
  return edges
}

// Tarjan's strongly connected components, then one shortest cycle through each edge inside one.
function cyclesOf(edges) {
  const nodes = new Set(edges.keys())
  for (const out of edges.values()) for (const to of out.keys()) nodes.add(to)
  const index = new Map()
  const low = new Map()
  const onStack = new Set()
  const stack = []
  const sccs = []
  let counter = 0
  const strong = (v) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of (edges.get(v) || new Map()).keys()) {
      if (!index.has(w)) { strong(w); low.set(v, Math.min(low.get(v), low.get(w))) } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
    }
    if (low.get(v) === index.get(v)) {
      const scc = []
      let w
      do { w = stack.pop(); onStack.delete(w); scc.push(w) } while (w !== v)
      if (scc.length > 1) sccs.push(new Set(scc))
    }
  }
  for (const v of [...nodes].sort()) if (!index.has(v)) strong(v)
  const cycles = new Map()
  for (const scc of sccs) {
    for (const a of [...scc].sort()) {
      for (const b of [...(edges.get(a) || new Map()).keys()].sort()) {
        if (!scc.has(b)) continue
        // shortest path b -> a inside the component
        const prev = new Map([[b, null]])
        const queue = [b]
        while (queue.length && !prev.has(a)) {
          const v = queue.shift()
          for (const w of [...(edges.get(v) || new Map()).keys()].sort()) {
            if (scc.has(w) && !prev.has(w)) { prev.set(w, v); queue.push(w) }
          }
        }
        const pathBack = []
        for (let v = a; v !== null; v = prev.get(v)) pathBack.unshift(v)
        const cycle = [a].concat(pathBack) // a -> b -> ... -> a
        const ring = cycle.slice(0, -1)
        const startAt = ring.indexOf([...ring].sort()[0])
        const canon = ring.slice(startAt).concat(ring.slice(0, startAt))
        cycles.set(canon.join(' -> '), canon.concat(canon[0]))
      }
    }
  }
  return [...cycles.values()]
}

// An edge's evidence: the first place it is made, and the paths it names.
const describe = (why) => `${why.where}: ${[...why.names].sort().join(', ')}`

const showEdges = process.argv.includes('--edges')
const withTests = process.argv.includes('--tests')
let found = 0
for (const spec of CRATES) {
  const crate = loadCrate(spec)
  const edges = edgesOf(crate)
  if (showEdges) {
    console.log(`${spec.name} (${spec.dir}): edges`)
    for (const from of [...edges.keys()].sort()) {
      for (const [to, why] of [...edges.get(from)].sort()) console.log(`  ${from} -> ${to}    (${describe(why)})`)
    }
  }
  const cycles = cyclesOf(edges)
  found += cycles.length
  if (cycles.length === 0) {
    console.log(`${spec.name} (${spec.dir}): no module cycles among ${crate.files.size} files`)
    continue
  }
  console.log(`${spec.name} (${spec.dir}): ${cycles.length} module cycle${cycles.length === 1 ? '' : 's'}`)
  for (const cycle of cycles) {
    console.log(`  ${cycle.join(' -> ')}`)
    for (let k = 0; k + 1 < cycle.length; k++) console.log(`      ${cycle[k]} -> ${cycle[k + 1]}: ${describe(edges.get(cycle[k]).get(cycle[k + 1]))}`)
  }
}
process.exit(found ? 1 : 0)
