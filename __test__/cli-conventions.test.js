// Tests of the conventions of the cline-hooks command line (issue 35 item 7), each as a real
// process over real hooks in temp folders: --version, a command's own help, the closest name for
// a mistyped command or option, `untrust`, and `run --env` and `--on-failure`. HOME and CLINE_DIR
// point into a temp folder, so the user's policy store is never read or written.
const fs = require('fs')
const path = require('path')
const { makeTempDir, makeWorkspace, hooksDirOf, writeProgram, printJson, readInputThen, cliEnv, nodeSync } = require('./helpers')

const ROOT = path.join(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'cline-hooks.js')
const HINT = '(try cline-hooks --help)'
const { COMMANDS, OPTIONS } = require('../bin/cline-hooks.js')

/** A home of its own: the default policy store is `<home>/cline/hooks-policy.json`. */
function makeHome() {
  const home = makeTempDir('cline-hooks-home-')
  return { home, store: path.join(home, 'cline', 'hooks-policy.json') }
}

/** `cline-hooks ...args` in `cwd`, with a temp HOME and CLINE_DIR and no colour; stdin is empty (not a terminal). */
function cli(args, { cwd = ROOT, home = makeHome().home, env = {} } = {}) {
  const r = nodeSync([CLI, ...args], {
    cwd,
    input: '',
    encoding: 'utf8',
    timeout: 60000,
    env: cliEnv({ HOME: home, USERPROFILE: home, CLINE_DIR: path.join(home, 'cline'), NO_COLOR: '1', ...env }),
  })
  if (r.error) throw r.error
  return r
}

/** A workspace with a PreToolUse hook running the JavaScript program `source`; its root and the hook's path. */
function workspaceWith(source) {
  const ws = makeWorkspace()
  const hook = writeProgram(hooksDirOf(ws), 'PreToolUse', readInputThen(source))
  return { ws, hook }
}

/** `run PreToolUse --json ...args` in `ws` (no global folder): `{ status, stderr, result }`. */
function runJson(ws, args, options = {}) {
  const r = cli(['run', 'PreToolUse', '--no-global', '--json', ...args], { cwd: ws, ...options })
  return { status: r.status, stderr: r.stderr, result: r.stdout ? JSON.parse(r.stdout) : null }
}

/** Asserts that `r` is a usage error: exit 2, nothing on stdout, one line on stderr holding every one of `parts`. */
function expectUsageError(r, ...parts) {
  expect(r.stdout).toBe('')
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
  for (const part of parts) expect(r.stderr).toContain(part)
  expect(r.status).toBe(2)
}

describe('--version', () => {
  test.each([['--version'], ['-V']])('%s prints the version of package.json and exits 0', (flag) => {
    const r = cli([flag])
    expect(r.stderr).toBe('')
    // The package the CLI belongs to (in the packed-package test, the installed one).
    const manifest = require(path.join(path.dirname(require.resolve('../bin/cline-hooks.js')), '..', 'package.json'))
    expect(r.stdout).toBe(`${manifest.version}\n`)
    expect(r.status).toBe(0)
  })
})

describe("a command's own help", () => {
  test('run --help, run -h and help run print the same text: run alone, with its options, defaults and an example', () => {
    const texts = [['run', '--help'], ['run', '-h'], ['help', 'run']].map((args) => {
      const r = cli(args)
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      return r.stdout
    })
    expect(texts[1]).toBe(texts[0])
    expect(texts[2]).toBe(texts[0])
    const text = texts[0]
    expect(text).toMatch(/^Usage: cline-hooks run <HookName> /)
    expect(text).toContain('Run the hooks exactly as Cline would')
    expect(text).toMatch(/^ {2}--on-failure allow\|block +what a hook that fails.*allow \(default: it never blocks\)/m)
    expect(text).toMatch(/^ {2}--env KEY=VALUE +set the variable KEY/m)
    expect(text).toMatch(/^ {2}--timeout-ms N +per-hook timeout in milliseconds \(default: 30000\)/m)
    expect(text).toMatch(/^Example:\n {2}# .+\n {2}cline-hooks run PreToolUse /m)
    // No other command's synopsis, and no option run does not take.
    expect(text).not.toContain('Commands:')
    expect(text).not.toContain('cline-hooks list')
    expect(text).not.toContain('--yes')
    // The overview stays the overview.
    const overview = cli(['--help']).stdout
    expect(overview).toMatch(/^Usage:\n/)
    expect(overview).toContain('Commands:')
    expect(overview).toContain("cline-hooks <command> --help (or cline-hooks help <command>) shows one command's options")
  })

  test.each(Object.keys(COMMANDS))('%s --help lists exactly its own options, and an example of it', (name) => {
    const r = cli([name, '--help'])
    expect(r.status).toBe(0)
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: cline-hooks ${name}( |$)`))
    const options = r.stdout.slice(r.stdout.indexOf('\nOptions:\n'), r.stdout.indexOf('\nExample'))
    for (const [key, spec] of Object.entries(OPTIONS)) {
      const listed = new RegExp(`^ {2}(-\\w, )?${spec.flag}( |$)`, 'm').test(options)
      expect([key, listed]).toEqual([key, COMMANDS[name].options.includes(key) || key === 'help'])
    }
    expect(r.stdout).toMatch(new RegExp(`\\nExamples?:\\n {2}# .+\\n {2}cline-hooks ${name}\\b`))
  })
})

describe('a mistyped name', () => {
  test('an unknown command is a usage error naming the closest command', () => {
    expect(cli(['rnu'])).toMatchObject({ status: 2, stdout: '', stderr: `cline-hooks: unknown command 'rnu'. Did you mean 'run'? ${HINT}\n` })
    expectUsageError(cli(['untrsut', 'x']), "unknown command 'untrsut'. Did you mean 'untrust'?")
    expectUsageError(cli(['help', 'doctr']), "unknown command 'doctr'. Did you mean 'doctor'?")
    // Nothing close: no guess.
    expect(cli(['frobnicate']).stderr).toBe(`cline-hooks: unknown command 'frobnicate' ${HINT}\n`)
  })

  test("an unknown option is a usage error naming the closest option of that command, only one it takes", () => {
    expectUsageError(cli(['run', 'PreToolUse', '--no-global', '--tiemout-ms', '5']), 'unknown option --tiemout-ms. Did you mean --timeout-ms?')
    expectUsageError(cli(['run', 'PreToolUse', '--no-global', '--on-failur=block']), 'unknown option --on-failur. Did you mean --on-failure?')
    expectUsageError(cli(['doctor', '--no-global', '--jsno']), 'unknown option --jsno. Did you mean --json?')
    // The option's first word alone: the one option it begins.
    expectUsageError(cli(['run', 'PreToolUse', '--no-global', '--timeout', '5']), 'unknown option --timeout. Did you mean --timeout-ms?')
    // list takes no --json: nothing is suggested rather than an option list refuses.
    const r = cli(['list', '--no-global', '--jsno'])
    expect(r.stderr).toBe(`cline-hooks: unknown option --jsno ${HINT}\n`)
    expect(r.status).toBe(2)
  })
})

describe('run --env', () => {
  const SHOW_ENV = `
const show = (name) => (name in process.env ? JSON.stringify(process.env[name]) : 'unset')
require('fs').writeSync(1, JSON.stringify({ cancel: false, contextModification: 'GREETING=' + show('GREETING') + ' EMPTY=' + show('EMPTY') }) + '\\n')
`

  test("each KEY=VALUE is set in the hook's environment, over the inherited value; the last of one KEY wins", () => {
    const { ws } = workspaceWith(SHOW_ENV)
    const env = { GREETING: 'inherited', EMPTY: undefined }
    let r = runJson(ws, [], { env })
    expect(r.status).toBe(0)
    expect(r.result.contextModification).toBe('GREETING="inherited" EMPTY=unset')
    r = runJson(ws, ['--env', 'GREETING=hello', '--env=GREETING=hi=there', '--env', 'EMPTY='], { env })
    expect(r.status).toBe(0)
    expect(r.result.hooks).toHaveLength(1)
    expect(r.result.contextModification).toBe('GREETING="hi=there" EMPTY=""')
  })

  test.each([
    ['NOEQUALS', "--env wants KEY=VALUE, not 'NOEQUALS'"],
    ['=value', "--env wants KEY=VALUE, not '=value'"],
  ])('--env %s is a usage error naming the value, and no hook runs', (value, message) => {
    const ran = path.join(makeTempDir(), 'ran')
    const { ws } = workspaceWith(`require('fs').writeFileSync(${JSON.stringify(ran)}, '')\n`)
    expectUsageError(cli(['run', 'PreToolUse', '--no-global', '--env', value], { cwd: ws }), message, HINT)
    expect(fs.existsSync(ran)).toBe(false)
  })
})

describe('run --on-failure', () => {
  const FAILS = `process.stderr.write('broken\\n')\nprocess.exit(1)\n`

  test('block: a hook that exits 1 cancels the run, exit 1; allow (and the default): it does not, exit 0', () => {
    const { ws } = workspaceWith(FAILS)
    const blocked = runJson(ws, ['--on-failure', 'block'])
    expect(blocked.result.hooks[0].status).toBe('failed')
    expect(blocked.result.cancel).toBe(true)
    expect(blocked.result.errorMessage).toContain('PreToolUse')
    expect(blocked.status).toBe(1)
    for (const args of [['--on-failure', 'allow'], []]) {
      const allowed = runJson(ws, args)
      expect(allowed.result.hooks[0].status).toBe('failed')
      expect(allowed.result.cancel).toBe(false)
      expect(allowed.status).toBe(0)
    }
    // The report says why the run was blocked.
    const report = cli(['run', 'PreToolUse', '--no-global', '--on-failure', 'block'], { cwd: ws })
    expect(report.status).toBe(1)
    expect(report.stdout).toContain('✘ cancelled')
  })

  test('any other value is a usage error naming it and the allowed ones', () => {
    const { ws } = workspaceWith(FAILS)
    expectUsageError(cli(['run', 'PreToolUse', '--no-global', '--on-failure', 'deny'], { cwd: ws }), "--on-failure is 'allow' or 'block', not 'deny'", HINT)
  })
})

describe('untrust', () => {
  test('withdraws an approval from the default store, after which trust lists the hook as not approved again', () => {
    const { home, store } = makeHome()
    const { ws, hook } = workspaceWith(printJson({ cancel: false }))
    const shown = path.relative(ws, hook)
    const scope = ['--no-global']
    let r = cli(['trust', ...scope, '--yes'], { cwd: ws, home })
    expect(r.stdout).toContain(`approved ${shown}`)
    expect(r.status).toBe(0)
    // The store keys a path as the file system compares it: without case on Windows.
    const keyOf = (file) => (process.platform === 'win32' ? file.toLowerCase() : file)
    expect(Object.keys(JSON.parse(fs.readFileSync(store, 'utf8')).approved)).toEqual([keyOf(hook)])
    expect(cli(['trust', ...scope], { cwd: ws, home }).stdout).toContain('Every hook in scope is approved')

    r = cli(['untrust', shown], { cwd: ws, home })
    expect(r).toMatchObject({ status: 0, stderr: '', stdout: `untrusted ${shown} (store: ${store})\n` })
    expect(JSON.parse(fs.readFileSync(store, 'utf8')).approved).toEqual({})

    // Not approved any more: trust lists it as new, and approves nothing without --yes.
    r = cli(['trust', ...scope], { cwd: ws, home })
    expect(r.stdout).toContain(`${shown} (new)`)
    expect(r.stdout).toContain('1 hook not approved: nothing was changed')
    expect(r.status).toBe(2)

    // A second untrust finds nothing to withdraw.
    r = cli(['untrust', shown], { cwd: ws, home })
    expect(r).toMatchObject({ status: 0, stderr: '', stdout: `${shown} was not approved (store: ${store})\n` })
  })

  test('--policy-file names the store, as for trust', () => {
    const { home, store } = makeHome()
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const { ws, hook } = workspaceWith(printJson({ cancel: false }))
    expect(cli(['trust', '--no-global', '--yes', '--policy-file', policyFile], { cwd: ws, home }).status).toBe(0)
    // The default store holds no approval of it.
    expect(cli(['untrust', hook], { cwd: ws, home }).stdout).toBe(`${path.relative(ws, hook)} was not approved (store: ${store})\n`)
    const r = cli(['untrust', hook, '--policy-file', policyFile], { cwd: ws, home })
    expect(r).toMatchObject({ status: 0, stdout: `untrusted ${path.relative(ws, hook)} (store: ${policyFile})\n` })
    expect(JSON.parse(fs.readFileSync(policyFile, 'utf8')).approved).toEqual({})
  })

  test('without a path it is a usage error', () => {
    expectUsageError(cli(['untrust']), "'untrust' needs a path, for example .clinerules/hooks/PreToolUse", HINT)
  })
})
