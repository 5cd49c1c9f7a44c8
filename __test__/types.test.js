'use strict'

// The typed contract of index.d.ts, checked with the TypeScript compiler (tsc's options
// `--strict --exactOptionalPropertyTypes --noEmit`; index.d.ts itself is checked too):
// - __test__/types/accepts.ts must compile: every hook's runHook call, a factory's runners,
//   KNOWN_HOOKS, HookError narrowing, HookOutput;
// - __test__/types/refuses.ts must compile too, and each of its `@ts-expect-error` lines must
//   really be an error (tsc reports an unused one): misspelt hook names, KNOWN_HOOKS.push, another
//   hook's input, an unknown error code;
// - every ```ts (or ```typescript) block of README.md and docs/**/*.md, each its own module,
//   must compile; a failure is reported as `file:line`. A canary block that misspells a hook
//   name is compiled with them and must fail, at its own line: so the harness can fail.
// And, without tsc: the name unions agree with the runtime and the Rust sources, every error
// code the sources throw is in HookErrorCode, and `__napiBindingTarget` is not declared.
// Two compilations in all (accepts + refuses; the snippets + the canary), in this process, the
// second reusing the files the first parsed: a few seconds.

const fs = require('fs')
const os = require('os')
const path = require('path')
const { isWindows } = require('./helpers')

const ROOT = path.join(__dirname, '..')
const TYPES = path.join(__dirname, 'types')

function resolvable(id) {
  try {
    require.resolve(id)
    return true
  } catch {
    return false
  }
}
// As in vscode-extension.test.js: the Windows lane installs only Jest; anywhere else a missing
// TypeScript fails these tests.
const tscPresent = resolvable('typescript')
const tscTest =
  isWindows && !tscPresent
    ? (title, fn) => test.skip(`${title} (skipped: the Windows lane installs no typescript)`, fn)
    : test

/** The first of `candidates` (paths relative to ROOT) that exists, absolute. */
function firstExisting(...candidates) {
  const found = candidates.map((c) => path.join(ROOT, c)).find((p) => fs.existsSync(p))
  return found || path.join(ROOT, candidates[0])
}
// In the repo, its own files; in scripts/test-package.sh's temp project (index.d.ts copied to
// its root), the installed package's subpath types.
const INDEX_DTS = firstExisting('index.d.ts')

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-types-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

// index.d.ts, copied as a module (.ts): compiled in full, like the code that uses it, while the
// declaration files it relies on (@types/node) are not checked again (`skipLibCheck`, which would
// skip index.d.ts itself too, and an unknown type there would quietly be `any`).
const INDEX_COPY = path.join(tmp, 'cline-hooks-index.ts')
fs.writeFileSync(INDEX_COPY, fs.readFileSync(INDEX_DTS))
const PATHS = {
  '@cline/hooks': [INDEX_COPY],
  '@cline/hooks/sdk': [firstExisting('sdk/index.d.ts', 'node_modules/@cline/hooks/sdk/index.d.ts')],
  '@cline/hooks/serve': [firstExisting('serve.d.ts', 'node_modules/@cline/hooks/serve.d.ts')],
}
const TYPE_ROOTS = [path.join(ROOT, 'node_modules', '@types')]

const COMPILER_OPTIONS = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noEmit: true,
  skipLibCheck: true,
  target: 'ES2022',
  lib: ['ES2022'],
  module: 'ESNext',
  moduleResolution: 'Bundler',
  types: ['node'],
  typeRoots: TYPE_ROOTS,
  paths: PATHS,
}

/**
 * Compiles `files` (absolute) with COMPILER_OPTIONS, with the TypeScript compiler's API (the
 * compiler tsc runs, in this process), and returns every diagnostic. Not the tsc command: it
 * reports only the syntax errors when there are any, so one snippet that does not parse would
 * hide every type error of the others (and the canary's). `reuse` is an earlier program whose
 * parsed files (the standard library, @types/node, index.d.ts) are reused.
 */
function compile(files, reuse) {
  const ts = require('typescript')
  const { options, errors } = ts.convertCompilerOptionsFromJson(COMPILER_OPTIONS, tmp)
  if (errors.length) throw new Error(ts.formatDiagnostics(errors, formatHost(ts)))
  const program = ts.createProgram({ rootNames: files, options, oldProgram: reuse && reuse.program })
  const all = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getSemanticDiagnostics(),
  ]
  const diagnostics = all
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
      if (!d.file || d.start === undefined) return { file: '', line: 0, column: 0, code: `TS${d.code}`, message }
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start)
      return { file: path.resolve(d.file.fileName), line: line + 1, column: character + 1, code: `TS${d.code}`, message }
    })
  return { program, diagnostics }
}

function formatHost(ts) {
  return { getCanonicalFileName: (f) => f, getCurrentDirectory: () => tmp, getNewLine: () => '\n' }
}

/** `file:line:column TSn message`, the copy of index.d.ts named as index.d.ts. */
function show(d) {
  const file = d.file === INDEX_COPY ? INDEX_DTS : d.file
  return `${file ? path.relative(ROOT, file) : '(tsc)'}:${d.line}:${d.column} ${d.code} ${d.message}`
}

// ---- snippets ---------------------------------------------------------------------------------

function markdownFiles() {
  const files = []
  if (fs.existsSync(path.join(ROOT, 'README.md'))) files.push(path.join(ROOT, 'README.md'))
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.md')) files.push(full)
    }
  }
  if (fs.existsSync(path.join(ROOT, 'docs'))) walk(path.join(ROOT, 'docs'))
  return files
}

/**
 * The ```ts and ```typescript blocks of a Markdown text: `{ line, indent, code }`, `line` the
 * 1-based line of the opening fence. A fence indented (in a list) has that indentation removed
 * from its lines.
 */
function tsBlocks(text) {
  const blocks = []
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const open = /^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`]*)/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, lang] = open
    let end = i + 1
    const closer = new RegExp(`^[ \\t]*${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`)
    while (end < lines.length && !closer.test(lines[end])) end++
    if (lang === 'ts' || lang === 'typescript') {
      const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()))
      blocks.push({ line: i + 1, indent: indent.length, code: body.join('\n') })
    }
    i = end
  }
  return blocks
}

// A block that must fail to compile at its third line (the misspelt name), in a Markdown file
// of its own: it shows that a wrong snippet is caught and reported at its Markdown line.
const CANARY_MD = path.join(tmp, 'canary.md')
const CANARY = ['# canary', '', '```ts', "import { runHook } from '@cline/hooks'", '', "await runHook('PreToolUser', {})", '```', ''].join('\n')
const CANARY_LINE = 6

function writeSnippets() {
  fs.writeFileSync(CANARY_MD, CANARY)
  const dir = path.join(tmp, 'snippets')
  fs.mkdirSync(dir)
  const origin = new Map()
  for (const md of [...markdownFiles(), CANARY_MD]) {
    const rel = path.relative(ROOT, md)
    for (const block of tsBlocks(fs.readFileSync(md, 'utf8'))) {
      const file = path.join(dir, `${rel.replace(/[^A-Za-z0-9]+/g, '_')}_L${block.line}.ts`)
      // Each block is a module of its own (its names do not clash with another block's).
      fs.writeFileSync(file, `${block.code}\nexport {}\n`)
      origin.set(file, { md, ...block })
    }
  }
  return origin
}

// ---- the two compilations ---------------------------------------------------------------------

// Each compiled once, when a test first needs it.
let contract
let snippets
let origin
const contractRun = () => (contract ??= compile([path.join(TYPES, 'accepts.ts'), path.join(TYPES, 'refuses.ts')]))
const snippetRun = () => {
  if (!snippets) {
    origin = writeSnippets()
    snippets = compile([...origin.keys()], contract)
  }
  return snippets
}
const fromCanary = (d) => origin.get(d.file) !== undefined && origin.get(d.file).md === CANARY_MD

describe('tsc --strict --exactOptionalPropertyTypes against index.d.ts', () => {
  tscTest('accepts.ts compiles: every hook input, factory runners, KNOWN_HOOKS, HookError narrowing, HookOutput', () => {
    const { diagnostics } = contractRun()
    expect(diagnostics.filter((d) => !d.file.endsWith('refuses.ts')).map(show)).toEqual([])
  }, 60000)

  tscTest("refuses.ts compiles: each `@ts-expect-error` (misspelt names, KNOWN_HOOKS.push, another hook's input, unknown codes) is an error", () => {
    const { diagnostics } = contractRun()
    expect(diagnostics.filter((d) => d.file.endsWith('refuses.ts')).map(show)).toEqual([])
  }, 60000)

  tscTest('the canary snippet that misspells a hook name fails to compile, reported at its Markdown line', () => {
    const canary = snippetRun().diagnostics.filter(fromCanary)
    expect(canary.map((d) => [origin.get(d.file).line + d.line, d.code])).toEqual([[CANARY_LINE, 'TS2345']])
    expect(canary[0].message).toContain('PreToolUser')
  }, 60000)

  tscTest('every ```ts block of README.md and docs/**/*.md compiles (each as its own module)', () => {
    const failures = snippetRun()
      .diagnostics.filter((d) => !fromCanary(d))
      .map((d) => {
        const from = origin.get(d.file)
        if (!from) return { at: [show(d), 0], text: show(d) }
        const [file, line] = [path.relative(ROOT, from.md), from.line + d.line]
        return { at: [file, line], text: `${file}:${line}:${from.indent + d.column} ${d.code} ${d.message}` }
      })
      .sort((a, b) => (a.at[0] === b.at[0] ? a.at[1] - b.at[1] : a.at[0] < b.at[0] ? -1 : 1))
      .map((f) => f.text)
    expect(failures).toEqual([])
  }, 60000)
})

// ---- without tsc ------------------------------------------------------------------------------

const dts = fs.readFileSync(INDEX_DTS, 'utf8')

/** The string literals of `export type <name> = | 'a' | 'b'` in index.d.ts. */
function union(name) {
  const m = new RegExp(`^export type ${name} =([\\s\\S]*?)\\n\\s*\\n`, 'm').exec(dts)
  if (!m) throw new Error(`index.d.ts declares no type ${name}`)
  return [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1])
}

const NAMES_RS = path.join(ROOT, 'crates', 'hooks-core', 'src', 'discovery', 'names.rs')
const withSources = fs.existsSync(NAMES_RS) ? test : test.skip

describe('the declarations agree with the runtime', () => {
  test('index.d.ts does not declare __napiBindingTarget (index.js does not export it)', () => {
    expect(dts).not.toMatch(/__napiBindingTarget/)
  })

  test('HookName is KNOWN_HOOKS, in its order, and KNOWN_HOOKS is typed readonly HookName[]', () => {
    expect(union('HookName')).toEqual([...require('..').KNOWN_HOOKS])
    expect(dts).toMatch(/^export declare const KNOWN_HOOKS: readonly HookName\[\]$/m)
  })

  withSources("HookName and CliEventName are the Rust core's KNOWN_HOOKS and CLI_EVENTS; HookInputs has a key for each", () => {
    const rs = fs.readFileSync(NAMES_RS, 'utf8')
    const known = /KNOWN_HOOKS: \[&str; \d+\] = \[([\s\S]*?)\];/.exec(rs)[1]
    const events = /CLI_EVENTS: \[\(&str, &str\); \d+\] = \[([\s\S]*?)\];/.exec(rs)[1]
    expect(union('HookName')).toEqual([...known.matchAll(/"([^"]+)"/g)].map((m) => m[1]))
    expect(union('CliEventName')).toEqual([...events.matchAll(/\("([^"]+)", "[^"]+"\)/g)].map((m) => m[1]))
    const inputs = /^export interface HookInputs \{([\s\S]*?)^\}/m.exec(dts)[1]
    expect([...inputs.matchAll(/^\s+(\w+): \w+$/gm)].map((m) => m[1])).toEqual([...union('HookName'), ...union('CliEventName')])
  })

  withSources('HookErrorCode holds every code the sources give an error (src/, the core, index.js, platform-package.js)', () => {
    const codes = new Set(['ERR_HOOK_FACTORY_DISPOSED', 'ERR_HOOK_NO_CONSTRUCTOR', 'ABORT_ERR'])
    const scan = (file) => {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/['"]((?:ERR_[A-Z0-9_]+)|ABORT_ERR)['"]/g)) codes.add(m[1])
    }
    const walk = (dir) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(full)
        else if (/\.(rs|js)$/.test(entry.name)) scan(full)
      }
    }
    walk(path.join(ROOT, 'src'))
    walk(path.join(ROOT, 'crates', 'hooks-core', 'src'))
    scan(path.join(ROOT, 'index.js'))
    scan(path.join(ROOT, 'platform-package.js'))
    const declared = new Set(union('HookErrorCode'))
    expect([...codes].filter((c) => !declared.has(c)).sort()).toEqual([])
  })
})
