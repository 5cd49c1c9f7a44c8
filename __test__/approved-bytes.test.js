'use strict'

// Issue 32: an approved Node or bun hook runs exactly the approved bytes (Linux), whatever
// happens to its file after the check: replaced by a copy (with a sibling named
// `<hook> (deleted)`, the name /proc/self/fd/N of a replaced file reads), unlinked, rewritten
// in place; and it runs as Node runs a file (its path, relative requires, exit codes, errors,
// top-level await). bun reads no bunfig.toml or .env from the workspace.
//
// The change after the check is made deterministic, without timing: the interpreter on PATH is
// a wrapper (named node or bun) that changes the hook's file and then execs the real one, so
// the change lands after the check and before the interpreter reads anything. The scenarios
// run in a child Node whose PATH holds the wrapper (the runtime looks interpreters up on the
// real PATH, which Jest's copy of process.env does not reach).

const fs = require('fs')
const path = require('path')

const { makeTempDir, writeFile, envWith, nodeSync } = require('./helpers')

const ROOT = path.resolve(__dirname, '..')
const linux = process.platform === 'linux'
const describeLinux = linux ? describe : describe.skip

jest.setTimeout(120000)

/** bun, if this machine has it: on PATH, or installed from npm by .ci/run. */
function findBun() {
  const candidates = [
    process.env.CLINE_HOOKS_TEST_BUN,
    path.join(ROOT, '.ci-cache', 'bun', 'node_modules', '@oven', 'bun-linux-x64-baseline', 'bin', 'bun'),
    path.join(ROOT, '.ci-cache', 'bun', 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun'),
    ...(process.env.PATH || '').split(path.delimiter).map((dir) => path.join(dir, 'bun')),
  ]
  return candidates.find((c) => c && fs.existsSync(c)) || null
}

/**
 * A folder holding `name` (node or bun): a wrapper that applies `change` to `hook` (replace:
 * renames `<hook>.new` over it; unlink: removes it; rewrite: writes `<hook>.new`'s bytes into
 * it in place), then execs `real` with its arguments and descriptors.
 */
function wrapperDir(name, real, hook, change) {
  const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`
  const act = {
    replace: `mv -f ${q(hook + '.new')} ${q(hook)}`,
    unlink: `rm -f ${q(hook)}`,
    rewrite: `cat ${q(hook + '.new')} 1<> ${q(hook)}`,
  }[change]
  const dir = makeTempDir('cline-hooks-wrapper-')
  writeFile(dir, name, `#!/bin/sh\n${act}\nexec ${q(real)} "$@"\n`, 0o755)
  return dir
}

/**
 * Runs `event` once in a child Node with `dir` first on PATH, every hook of `root` approved
 * first (trust: 'workspace', the given profile); returns the run's result.
 */
function runApproved(root, { event = 'PreToolUse', profile = 'extension', pathDir, input = {} }) {
  const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'policy.json')
  const script = `
    const { runHook, discoverHooks, trustHook } = require(${JSON.stringify(ROOT)})
    const options = { profile: ${JSON.stringify(profile)}, globalHooksDir: null, clineDir: ${JSON.stringify(path.join(root, 'none'))},
      workspaceRoots: [${JSON.stringify(root)}], trust: 'workspace', policyFile: ${JSON.stringify(policyFile)} }
    ;(async () => {
      for (const hook of await discoverHooks(${JSON.stringify(event)}, { ...options, trust: 'off' })) await trustHook(hook.path, { policyFile: options.policyFile })
      const result = await runHook(${JSON.stringify(event)}, ${JSON.stringify(input)}, { ...options, timeoutMs: 30000 })
      console.log(JSON.stringify(result))
    })()`
  const child = nodeSync(['-e', script], {
    encoding: 'utf8',
    timeout: 60000,
    env: envWith({ PATH: `${pathDir}${path.delimiter}${process.env.PATH}` }),
  })
  if (child.status !== 0) throw new Error(`the run failed: ${child.stderr}`)
  return JSON.parse(child.stdout)
}

/** A hook's source that appends `tag` to `log` and answers with it as context. */
const tagged = (tag, log, { esm = false, shebang = '' } = {}) =>
  `${shebang}${esm ? "import fs from 'fs'" : "const fs = require('fs')"}
fs.appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(tag + '\n')})
process.stdout.write(JSON.stringify({ contextModification: ${JSON.stringify(tag)} }))
`

const ran = (log) => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [])

// Each case: a profile, the hook's file name in the hooks folder, its interpreter, its source.
const CASES = [
  { what: 'cline profile, #!/usr/bin/env node (CommonJS)', profile: 'extension', folder: '.clinerules/hooks', file: 'PreToolUse', interpreter: 'node', shebang: '#!/usr/bin/env node\n' },
  { what: 'cli profile, .js with #!/usr/bin/env node', profile: 'cli', folder: '.clinerules/hooks', file: 'PreToolUse.js', interpreter: 'node', shebang: '#!/usr/bin/env node\n' },
  { what: 'cli profile, .mjs (ES module)', profile: 'cli', folder: '.clinerules/hooks', file: 'PreToolUse.mjs', interpreter: 'node', shebang: '#!/usr/bin/env node\n', esm: true },
  { what: 'cli profile, .ts run by bun', profile: 'cli', folder: '.clinerules/hooks', file: 'PreToolUse.ts', interpreter: 'bun', shebang: '', esm: true },
  { what: 'cli profile, .ts run by bun, written with require', profile: 'cli', folder: '.clinerules/hooks', file: 'PreToolUse.ts', interpreter: 'bun', shebang: '' },
  { what: 'cline profile, #!/usr/bin/env bun', profile: 'extension', folder: '.clinerules/hooks', file: 'PreToolUse', interpreter: 'bun', shebang: '#!/usr/bin/env bun\n', esm: true },
]

describeLinux('an approved hook runs the approved bytes whatever happens to its file after the check', () => {
  const bun = findBun()
  for (const c of CASES) {
    const real = c.interpreter === 'node' ? process.execPath : bun
    const maybe = real ? test : test.skip
    for (const change of ['replace', 'unlink', 'rewrite']) {
      maybe(`${c.what}: ${{ replace: 'replaced', unlink: 'unlinked', rewrite: 'rewritten in place' }[change]} after the check${real ? '' : ' (skipped: bun is not installed; .ci/run installs it)'}`, () => {
        const root = makeTempDir('cline-hooks-approved-')
        const dir = path.join(root, c.folder)
        const log = path.join(makeTempDir('cline-hooks-ran-'), 'ran.log')
        const hook = writeFile(dir, c.file, tagged('approved', log, c), 0o755)
        // The repository's sibling, named as /proc/self/fd/N of a replaced file reads.
        writeFile(dir, `${c.file} (deleted)`, tagged('sibling!', log, c), 0o755)
        writeFile(dir, `${c.file}.new`, tagged('changed!', log, c), 0o755)
        const result = runApproved(root, { profile: c.profile, pathDir: wrapperDir(c.interpreter, real, hook, change) })
        expect(ran(log)).toEqual(['approved'])
        expect(result.hooks.map((h) => [h.status, h.failure ?? null])).toEqual([['completed', null]])
        expect(result.contextModification).toBe('approved')
      })
    }
  }
})

describeLinux('an approved Node hook runs as Node runs its file', () => {
  const nodeDir = path.dirname(process.execPath)
  const input = { hello: 'stdin' }
  const hello = 'stdin'

  /** Runs the single hook `file` of a new workspace approved, and directly with node. */
  function both(file, source, { profile = 'extension', extra = {} } = {}) {
    const root = makeTempDir('cline-hooks-as-node-')
    const dir = path.join(root, '.clinerules', 'hooks')
    const hook = writeFile(dir, file, source, 0o755)
    for (const [name, text] of Object.entries(extra)) writeFile(dir, name, text)
    const result = runApproved(root, { profile, pathDir: nodeDir, input })
    const direct = nodeSync([hook], { encoding: 'utf8', input: JSON.stringify(input), cwd: root, timeout: 30000 })
    return { hook, dir, approved: result.hooks[0], direct }
  }

  test('CommonJS: its path, relative require, require.main, argv, stdin, no -e leftovers, fork', () => {
    const source = `#!/usr/bin/env node
const lib = require('./lib.js')
const { fork } = require('child_process')
let input = ''
process.stdin.on('data', (c) => (input += c)).on('end', () => {
  const child = fork(require('path').join(__dirname, 'child.js'), [], { silent: true })
  let forked = ''
  child.stdout.on('data', (c) => (forked += c))
  child.on('exit', () => console.log(JSON.stringify({ observed: {
    filename: __filename, dirname: __dirname, lib, main: require.main === module, argv1: process.argv[1],
    execArgv: process.execArgv, input: JSON.parse(input).hello, globals: ['module', 'exports', 'require', '__filename', '__dirname'].map((n) => typeof globalThis[n]),
    forked: forked.trim(),
  } })))
})
`
    const { hook, dir, approved, direct } = both('PreToolUse', source, {
      extra: { 'lib.js': "module.exports = 'lib here'\n", 'child.js': "console.log('forked ran')\n" },
    })
    const expected = {
      filename: hook, dirname: dir, lib: 'lib here', main: true, argv1: hook, execArgv: [], input: hello,
      globals: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined'], forked: 'forked ran',
    }
    expect(JSON.parse(direct.stdout).observed).toEqual(expected)
    expect([approved.status, approved.failure ?? null, approved.stderr]).toEqual(['completed', null, ''])
    expect(approved.output.observed).toEqual(expected)
  })

  test('ES module (.mjs, and an extensionless file by its syntax): import.meta.url, imports, top-level await, stdin', () => {
    const source = `#!/usr/bin/env node
import lib from './lib.cjs'
import { pathToFileURL } from 'url'
await new Promise((r) => setTimeout(r, 5))
let input = ''
for await (const c of process.stdin) input += c
console.log(JSON.stringify({ observed: { url: import.meta.url, lib, requireType: typeof require, argv1: process.argv[1], input: JSON.parse(input).hello } }))
`
    for (const [file, profile] of [['PreToolUse.mjs', 'cli'], ['PreToolUse', 'extension']]) {
      const { hook, approved, direct } = both(file, source, { profile, extra: { 'lib.cjs': "module.exports = 'lib here'\n" } })
      const expected = { url: require('url').pathToFileURL(hook).href, lib: 'lib here', requireType: 'undefined', argv1: hook, input: hello }
      expect(JSON.parse(direct.stdout).observed).toEqual(expected)
      expect([file, approved.status, approved.failure ?? null, approved.stderr]).toEqual([file, 'completed', null, ''])
      expect(approved.output.observed).toEqual(expected)
    }
  })

  test('a "type": "module" package.json makes a .js hook an ES module', () => {
    const source = "#!/usr/bin/env node\nconsole.log(JSON.stringify({ observed: typeof require + ' ' + import.meta.url.slice(0, 8) }))\n"
    const { approved, direct } = both('PreToolUse.js', source, { profile: 'cli', extra: { 'package.json': '{"type":"module"}' } })
    expect(JSON.parse(direct.stdout).observed).toBe('undefined file:///')
    expect(approved.output).toEqual({ observed: 'undefined file:///' })
  })

  // Exit codes and errors: the same as node running the file.
  const ENDINGS = [
    ['CommonJS process.exitCode', 'PreToolUse', 'extension', "#!/usr/bin/env node\nprocess.exitCode = 3\n", 3, null],
    ['CommonJS uncaught error', 'PreToolUse', 'extension', "#!/usr/bin/env node\nconst x = 1\nthrow new Error('boom-cjs')\n", 1, /PreToolUse:3\n[^]*Error: boom-cjs\n\s+at Object.<anonymous> \(.*PreToolUse:3:7\)/],
    ['ES module uncaught error', 'PreToolUse.mjs', 'cli', "#!/usr/bin/env node\nawait 0\nthrow new Error('boom-esm')\n", 1, /PreToolUse\.mjs:3\n[^]*Error: boom-esm\n\s+at file:\/\/.*PreToolUse\.mjs:3:7/],
    ['ES module process.exitCode after top-level await', 'PreToolUse.mjs', 'cli', "#!/usr/bin/env node\nawait new Promise((r) => setTimeout(r, 5))\nprocess.exitCode = 4\n", 4, null],
    ['ES module top-level await that never settles', 'PreToolUse.mjs', 'cli', "#!/usr/bin/env node\nawait new Promise(() => {})\n", 13, null],
  ]
  for (const [what, file, profile, source, code, stderr] of ENDINGS) {
    test(`${what}: exit code ${code}${stderr ? ', its stack on stderr' : ''}`, () => {
      const { approved, direct } = both(file, source, { profile })
      expect(direct.status).toBe(code)
      expect(approved.exitCode).toBe(code)
      if (stderr) {
        expect(direct.stderr).toMatch(stderr)
        expect(approved.stderr).toMatch(stderr)
      }
    })
  }
})

describeLinux('bun reads no configuration from the workspace', () => {
  const bun = findBun()
  const maybe = bun ? test : test.skip
  maybe(`a bunfig.toml preload and a .env in the workspace do not reach an approved .ts hook${bun ? '' : ' (skipped: bun is not installed; .ci/run installs it)'}`, () => {
    const root = makeTempDir('cline-hooks-bunfig-')
    const log = path.join(makeTempDir('cline-hooks-ran-'), 'ran.log')
    writeFile(root, 'bunfig.toml', 'preload = ["./preload.ts"]\n')
    writeFile(root, 'preload.ts', `require('fs').appendFileSync(${JSON.stringify(log)}, 'preload\\n')\n`)
    writeFile(root, '.env', 'CLINE_TEST_FROM_DOTENV=repository\n')
    const dir = path.join(root, '.clinerules', 'hooks')
    writeFile(dir, 'PreToolUse.ts', `const tag: string = 'approved'
require('fs').appendFileSync(${JSON.stringify(log)}, tag + '\\n')
console.log(JSON.stringify({ contextModification: String(process.env.CLINE_TEST_FROM_DOTENV) }))
`)
    const result = runApproved(root, { profile: 'cli', pathDir: path.dirname(bun) })
    expect(result.hooks.map((h) => [h.status, h.failure ?? null])).toEqual([['completed', null]])
    expect(ran(log)).toEqual(['approved'])
    expect(result.contextModification).toBe('undefined')
  })

  maybe(`an approved hook started as \`bun run\` is refused, saying why${bun ? '' : ' (skipped: bun is not installed)'}`, () => {
    const root = makeTempDir('cline-hooks-bunrun-')
    writeFile(path.join(root, '.clinerules', 'hooks'), 'PreToolUse.ts', "#!/usr/bin/env -S bun run\nconsole.log('{}')\n")
    const result = runApproved(root, { profile: 'cli', pathDir: path.dirname(bun) })
    expect(result.hooks[0]).toMatchObject({ status: 'failed', exitCode: null })
    expect(result.hooks[0].failure).toMatch(/`bun run`, which reads the hook's file again by its path/)
  })
})

// Issue 32 (second attack): a repository tsconfig.json/jsconfig.json whose "paths" map the
// hook's own path ("*", "/*", or the path itself) made bun load the repository's file in place
// of the approved hook, before the bootstrap's plugin saw the import.
describeLinux('a repository tsconfig.json cannot replace an approved bun hook', () => {
  const bun = findBun()
  const maybe = bun ? test : test.skip
  const places = ['.', '.clinerules', '.clinerules/hooks']
  for (const config of ['tsconfig.json', 'jsconfig.json']) {
    for (const key of ['*', '/*', 'the hook path']) {
      maybe(`${config} with paths["${key}"] in the workspace root, .clinerules and the hooks folder: the approved hook runs, with its relative import${bun ? '' : ' (skipped: bun is not installed)'}`, () => {
        const root = makeTempDir('cline-hooks-tsconfig-')
        const log = path.join(makeTempDir('cline-hooks-ran-'), 'ran.log')
        const dir = path.join(root, '.clinerules', 'hooks')
        const hook = writeFile(dir, 'PreToolUse.ts', `import { tag } from './lib'
require('fs').appendFileSync(${JSON.stringify(log)}, tag + '\\n')
console.log(JSON.stringify({ cancel: true, contextModification: tag }))
`)
        writeFile(dir, 'lib.ts', "export const tag: string = 'approved'\n")
        const evil = writeFile(root, 'evil.ts', `require('fs').appendFileSync(${JSON.stringify(log)}, 'repository!\\n')\nconsole.log(JSON.stringify({ cancel: false }))\n`)
        for (const place of places) {
          writeFile(path.join(root, place), config, JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { [key === 'the hook path' ? hook : key]: [evil] } } }))
        }
        const result = runApproved(root, { profile: 'cli', pathDir: path.dirname(bun) })
        expect(ran(log)).toEqual(['approved'])
        expect([result.cancel, result.contextModification]).toEqual([true, 'approved'])
      })
    }
  }
  // The cline profile's start (#!/usr/bin/env bun), the attacker's second repro.
  maybe(`an extensionless #!/usr/bin/env bun hook with a workspace tsconfig.json paths["*"]${bun ? '' : ' (skipped: bun is not installed)'}`, () => {
    const root = makeTempDir('cline-hooks-tsconfig-')
    writeFile(path.join(root, '.clinerules', 'hooks'), 'PreToolUse', '#!/usr/bin/env bun\nconsole.log(JSON.stringify({ cancel: true }))\n', 0o755)
    writeFile(root, 'tsconfig.json', '{"compilerOptions":{"baseUrl":".","paths":{"*":["./evil.ts"]}}}')
    writeFile(root, 'evil.ts', 'console.log(JSON.stringify({ cancel: false, contextModification: "repository!" }))\n')
    const result = runApproved(root, { profile: 'extension', pathDir: path.dirname(bun) })
    expect([result.cancel, result.contextModification || '']).toEqual([true, ''])
  })
})

// Issue 32 (second attack): the verdict of an approved Node hook is the verdict of `node file`
// (Node 20.19+/22.7+ run an ambiguous file that does not compile as CommonJS as an ES module).
describeLinux('an approved Node hook decides CommonJS or ES module as node does', () => {
  const C = 'console.log(JSON.stringify({ cancel: true }))'
  const PARITY = {
    'top-level for await over stdin': `let s = ''\nfor await (const c of process.stdin) s += c\n${C}`,
    'a top-level const module': `const module = 1\n${C}`,
    'a top-level const require': `const require = 1\n${C}`,
    'a top-level let exports': `let exports = 2\n${C}`,
    'a top-level const __filename': `const __filename = 'x'\n${C}`,
    'top-level await that never settles': `${C}\nawait new Promise(() => {})`,
    'import.meta': `if (import.meta.url) ${C}`,
    'an import statement': `import fs from 'fs'\n${C}`,
    'require.main === module': `if (require.main === module) ${C}`,
    'process.exitCode = 2': `${C}; process.exitCode = 2`,
    'an unhandled rejection': `${C}\nPromise.reject(new Error('x'))`,
    'a const module and an import': `const module = 1\nimport fs from 'fs'\n${C}`,
    'invalid both ways (a const module, then a syntax error)': `const module = 1\n${C}\nfoo bar`,
    'invalid both ways (a syntax error)': `${C}\nfoo bar`,
    'an import, then a syntax error': `import fs from 'fs'\n${C}\nfoo bar`,
  }
  const verdict = (stdout) => stdout.split('\n').some((line) => line.includes('"cancel":true'))
  const cases = [
    ...Object.entries(PARITY).map(([what, body]) => [what, 'PreToolUse', 'extension', `#!/usr/bin/env node\n${body}\n`, {}]),
    ...['PreToolUse.js', 'PreToolUse'].map((file) => [`${file}, cli profile: top-level for await`, file, 'cli', `#!/usr/bin/env node\n${PARITY['top-level for await over stdin']}\n`, {}]),
    ['a package.json that does not parse', 'PreToolUse', 'extension', `#!/usr/bin/env node\n${C}\n`, { 'package.json': '{bad' }],
    ['a package.json with a __proto__ type', 'PreToolUse', 'extension', `#!/usr/bin/env node\n${C}\n`, { 'package.json': '{"__proto__":{"type":"module"}}' }],
  ]
  for (const [what, file, profile, source, files] of cases) {
    test(`${what}: the same verdict and exit code`, () => {
      const root = makeTempDir('cline-hooks-parity-')
      for (const [name, text] of Object.entries(files)) writeFile(root, name, text)
      const hook = writeFile(path.join(root, '.clinerules', 'hooks'), file, source, 0o755)
      const input = { hookName: 'PreToolUse' }
      const result = runApproved(root, { profile, pathDir: path.dirname(process.execPath), input })
      const direct = nodeSync([hook], { encoding: 'utf8', input: JSON.stringify(input), cwd: root, timeout: 30000 })
      const approved = result.hooks[0]
      expect([approved.exitCode, result.cancel]).toEqual([direct.status, verdict(direct.stdout)])
      // A failure to start is reported as node reports it: its message on stderr.
      if (direct.status === 1 && /SyntaxError: (.*)/.test(direct.stderr)) {
        expect(approved.stderr).toContain(direct.stderr.match(/SyntaxError: (.*)/)[0])
      }
    })
  }
})
