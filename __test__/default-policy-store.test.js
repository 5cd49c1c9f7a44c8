'use strict'

// One default policy store: the API without `policyFile` reads and writes the file the CLI
// does ($CLINE_DIR/hooks-policy.json, else ~/.cline/hooks-policy.json), so an approval made
// with `cline-hooks trust` reaches a host that passes no policyFile, as docs/security.md's
// example does, and the other way round. Each side runs in a process of its own with the same
// environment; nothing touches the real user's store.

const fs = require('fs')
const path = require('path')

const { makeTempDir, makeWorkspace, hooksDirOf, writeProgram, printJson, cliEnv, isWindows, nodeSync } = require('./helpers')

const ROOT = path.join(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'cline-hooks.js')

/** Runs the PreToolUse hooks of `ws` as the docs' editor example does (trust, no policyFile). */
function editorRun(ws, env) {
  const program = `
    const { runHook } = require(process.argv[1])
    runHook('PreToolUse', {}, { workspaceRoots: [process.argv[2]], globalHooksDir: null, managedHooksDir: null, trust: 'workspace' })
      .then((r) => process.stdout.write(JSON.stringify({ ran: r.hooks.map((h) => h.status), context: r.contextModification, notRun: r.notRun.map((f) => f.problem), storeWarnings: r.warnings.filter((w) => w.includes('policy file')) })))
  `
  const out = nodeSync(['-e', program, ROOT, ws], { env, encoding: 'utf8', timeout: 60000 })
  expect(out.stderr).toBe('')
  return JSON.parse(out.stdout)
}

/** A workspace with one PreToolUse hook that adds context, and an environment with its own home. */
function setup(withClineDir) {
  const ws = makeWorkspace()
  writeProgram(hooksDirOf(ws), 'PreToolUse', printJson({ contextModification: 'approved hook ran' }))
  const home = makeTempDir('cline-hooks-home-')
  const clineDir = withClineDir ? path.join(makeTempDir('cline-hooks-dir-'), 'data') : undefined
  const env = cliEnv({ HOME: home, USERPROFILE: home, CLINE_DIR: clineDir })
  const store = path.join(clineDir || path.join(home, '.cline'), 'hooks-policy.json')
  return { ws, env, store }
}

describe('the default policy store is the CLI\'s', () => {
  test.each([
    ['~/.cline/hooks-policy.json', false],
    ['$CLINE_DIR/hooks-policy.json', true],
  ])('cline-hooks trust, then an editor without policyFile runs the hook (%s)', (_, withClineDir) => {
    const { ws, env, store } = setup(withClineDir)
    expect(editorRun(ws, env)).toEqual({ ran: [], context: '', notRun: ['notTrusted'], storeWarnings: [] })
    const trusted = nodeSync([CLI, 'trust', '--workspace', ws, '--no-global', '--yes'], { env, encoding: 'utf8', timeout: 60000 })
    expect(trusted.status).toBe(0)
    expect(fs.existsSync(store)).toBe(true)
    expect(editorRun(ws, env)).toEqual({ ran: ['completed'], context: 'approved hook ran', notRun: [], storeWarnings: [] })
    // And back: untrust from the CLI, and the editor no longer runs it.
    const hook = path.join(hooksDirOf(ws), isWindows ? 'PreToolUse.cmd' : 'PreToolUse')
    const untrusted = nodeSync([CLI, 'untrust', hook], { env, encoding: 'utf8', timeout: 60000 })
    expect(untrusted.status).toBe(0)
    expect(editorRun(ws, env)).toEqual({ ran: [], context: '', notRun: ['notTrusted'], storeWarnings: [] })
  })

  test('policyFile: null is no store: discovery with trust is refused, and a policy call writes nothing', () => {
    const { ws, env, store } = setup(true)
    const hook = path.join(hooksDirOf(ws), isWindows ? 'PreToolUse.cmd' : 'PreToolUse')
    const program = `
      const h = require(process.argv[1])
      const codeOf = (p) => p.then(() => 'resolved', (e) => e.code)
      Promise.all([
        codeOf(h.trustHook(process.argv[2], { policyFile: null })),
        codeOf(h.untrustHook(process.argv[2], { policyFile: null })),
        codeOf(h.setHookEnabled(process.argv[2], false, { policyFile: null })),
        codeOf(h.discoverHooks('PreToolUse', { workspaceRoots: [process.argv[3]], trust: 'workspace', policyFile: null })),
      ]).then((codes) => process.stdout.write(JSON.stringify(codes)))
    `
    const out = nodeSync(['-e', program, ROOT, hook, ws], { env, encoding: 'utf8', timeout: 60000 })
    expect(out.stderr).toBe('')
    expect(JSON.parse(out.stdout)).toEqual(['ERR_INVALID_OPTION', 'ERR_INVALID_OPTION', 'ERR_INVALID_OPTION', 'ERR_INVALID_OPTION'])
    expect(fs.existsSync(store)).toBe(false)
  })

  test('withdrawing an approval there is not changes nothing: no store is created', () => {
    const { ws, env, store } = setup(true)
    const hook = path.join(hooksDirOf(ws), isWindows ? 'PreToolUse.cmd' : 'PreToolUse')
    const untrusted = nodeSync([CLI, 'untrust', hook], { env, encoding: 'utf8', timeout: 60000 })
    expect(untrusted.status).toBe(0)
    expect(untrusted.stdout).toMatch(/was not approved/)
    expect(fs.existsSync(store)).toBe(false)
  })

  test('an approval made through the API without policyFile is what `cline-hooks trust` sees', () => {
    const { ws, env } = setup(true)
    const hook = path.join(hooksDirOf(ws), isWindows ? 'PreToolUse.cmd' : 'PreToolUse')
    const approve = nodeSync(['-e', `require(process.argv[1]).trustHook(process.argv[2]).then(() => {}, (e) => { console.error(e.message); process.exit(1) })`, ROOT, hook], { env, encoding: 'utf8', timeout: 60000 })
    expect(approve.stderr).toBe('')
    const listed = nodeSync([CLI, 'trust', '--workspace', ws, '--no-global'], { env, encoding: 'utf8', timeout: 60000 })
    expect(listed.status).toBe(0)
    expect(listed.stdout).toMatch(/Every hook in scope is approved/)
  })

  test('the default store inside a workspace root is not used, and every run says so: a repository cannot approve its own hooks', () => {
    const { ws } = setup(false)
    // HOME is the workspace root: its .cline/hooks-policy.json is the repository's, not the user's.
    const inside = cliEnv({ HOME: ws, USERPROFILE: ws, CLINE_DIR: undefined })
    fs.mkdirSync(path.join(ws, '.cline'), { recursive: true })
    const hook = path.join(hooksDirOf(ws), isWindows ? 'PreToolUse.cmd' : 'PreToolUse')
    const sha = require('crypto').createHash('sha256').update(fs.readFileSync(hook)).digest('hex')
    fs.writeFileSync(path.join(ws, '.cline', 'hooks-policy.json'), JSON.stringify({ version: 1, approved: { [hook]: sha } }))
    const run = editorRun(ws, inside)
    expect(run).toMatchObject({ ran: [], context: '', notRun: ['notTrusted'] })
    expect(run.storeWarnings).toEqual([expect.stringMatching(/hooks-policy\.json .*inside the workspace root/)])
  })
})
