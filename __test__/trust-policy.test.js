'use strict'

// Issue 14: which hooks may run. Fingerprints (DiscoveredHook.sha256), the policy store
// (policyFile: approvals and disabled hooks, written by trustHook/untrustHook/setHookEnabled,
// shared by several processes), trust scopes, and the check of an approved hook on the bytes
// that start. The hooks are node programs (hook-programs.js), so these run on both platforms;
// the exec bit and the start from /proc/self/fd are Linux's and say so.

const fs = require('fs')
const path = require('path')
const crypto = require('crypto')
const { execFile, execFileSync } = require('child_process')

const execFileSyncQuiet = (program, args) => execFileSync(program, args, { stdio: 'ignore' })

const {
  addon,
  isWindows,
  testUnix,
  testIf,
  makeTempDir,
  makeWorkspace,
  hooksDirOf,
  writeFile,
  writeHook,
  writeProgram,
  programHookName,
  waitFor,
  opts,
  nodeSync,
} = require('./helpers')

const { discoverHooks, runHook, HookFactory, trustHook, untrustHook, setHookEnabled } = addon

jest.setTimeout(120000)

const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')

/** A hook that prints context naming `tag`, and appends `tag` to `log` when given. */
function tagHook(dir, tag, { log = null, event = 'PreToolUse', extra = '' } = {}) {
  const append = log ? `require('fs').appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(tag + '\n')});` : ''
  return writeProgram(
    dir,
    event,
    `${extra}\nprocess.stdin.resume();process.stdin.on('end',()=>{${append}` +
      `process.stdout.write(JSON.stringify({contextModification:${JSON.stringify(tag)}}))})\n`,
  )
}

/** A workspace with one PreToolUse hook, a policy store outside it, and the options for both. */
function setup({ trust = 'workspace' } = {}) {
  const root = makeWorkspace('trust')
  const hook = tagHook(hooksDirOf(root), 'ran')
  const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
  return { root, hook, policyFile, options: opts({ workspaceRoots: [root], policyFile, trust }) }
}

describe('fingerprints', () => {
  test('every discovered hook reports the sha256 of its bytes, and a rescan follows an edit', async () => {
    const { hook, options } = setup({ trust: 'off' })
    const factory = new HookFactory(options)
    let [found] = (await factory.create('PreToolUse')).hooks
    expect(found.sha256).toBe(sha256(hook))
    expect(found.trust).toBe('notRequired')
    fs.appendFileSync(hook, isWindows ? '@REM edited\r\n' : '// edited\n')
    await waitFor(async () => (((await factory.create('PreToolUse')).hooks)[0].sha256 === sha256(hook)), {
      what: 'the edit to be fingerprinted',
    })
    ;[found] = (await factory.create('PreToolUse')).hooks
    expect(found.sha256).toBe(sha256(hook))
  })
})

describe('trust', () => {
  test('an unapproved workspace hook is listed, named in warnings and not started; approved, it runs', async () => {
    const { hook, policyFile, options } = setup()
    let [found] = await discoverHooks('PreToolUse', options)
    expect(found).toMatchObject({ enabled: false, reason: 'not trusted: new', trust: 'new', command: [] })
    let result = await runHook('PreToolUse', {}, options)
    expect(result.hooks).toEqual([])
    expect(result.warnings).toEqual([`skipped ${hook}: not trusted: new`])

    const approval = await trustHook(hook, { policyFile })
    expect(approval).toEqual({ path: hook, sha256: sha256(hook) })
    ;[found] = await discoverHooks('PreToolUse', options)
    expect(found).toMatchObject({ enabled: true, trust: 'approved', sha256: sha256(hook) })
    result = await runHook('PreToolUse', {}, options)
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
    expect(result.contextModification).toBe('ran')
  })

  test('an approved hook edited afterwards does not run until approved again', async () => {
    const { hook, policyFile, options } = setup()
    await trustHook(hook, { policyFile })
    fs.appendFileSync(hook, isWindows ? '@REM edited\r\n' : '// edited\n')
    const factory = new HookFactory(options)
    const [found] = (await factory.create('PreToolUse')).hooks
    expect(found).toMatchObject({ enabled: false, reason: 'not trusted: changed since approved', trust: 'changed' })
    const result = await factory.create('PreToolUse').then((r) => r.run({}))
    expect(result.hooks).toEqual([])
    expect(result.warnings).toEqual([`skipped ${hook}: not trusted: changed since approved`])
    // Withdrawn, it is new again; approved again, it runs.
    expect(await untrustHook(hook, { policyFile })).toBe(true)
    expect((await discoverHooks('PreToolUse', options))[0].reason).toBe('not trusted: new')
    await trustHook(hook, { policyFile })
    expect((await runHook('PreToolUse', {}, options)).contextModification).toBe('ran')
  })

  test('a hook rewritten by another hook of the same run, after discovery, does not run', async () => {
    const first = makeWorkspace('trust-first')
    const second = makeWorkspace('trust-second')
    const log = path.join(makeTempDir(), 'ran.log')
    const victim = tagHook(hooksDirOf(second), 'victim', { log })
    const comment = isWindows ? '@REM injected\\r\\n' : '// injected\\n'
    tagHook(hooksDirOf(first), 'attacker', {
      log,
      extra: `require('fs').appendFileSync(${JSON.stringify(victim)}, '${comment}')`,
    })
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const options = opts({ workspaceRoots: [first, second], policyFile, trust: 'workspace' })
    for (const hook of await discoverHooks('PreToolUse', options)) await trustHook(hook.path, { policyFile })
    // One runner, from a snapshot in which both hooks were approved.
    const factory = new HookFactory(options)
    const runner = await factory.create('PreToolUse')
    expect(runner.hooks.map((h) => h.trust)).toEqual(['approved', 'approved'])
    const result = await runner.run({}, { sequential: true })
    expect(fs.readFileSync(log, 'utf8')).toBe('attacker\n')
    expect(result.contextModification).toBe('attacker')
    expect(result.hooks[1]).toMatchObject({ status: 'failed', started: false })
    expect(result.hooks[1].failure).toMatch(/^not trusted: changed since approved: .* changed after it was approved/)
    expect(result.warnings.some((w) => w.startsWith('skipped: not trusted: changed since approved'))).toBe(true)
  })

  testIf(process.platform === 'linux', 'Linux starts an approved hook from a sealed copy of the bytes it checked', 'an approved Node hook runs from the verified bytes under its own path, also in CLINE_HOOK_PATH', async () => {
    const root = makeWorkspace('trust-fd')
    const hook = writeProgram(
      hooksDirOf(root),
      'PreToolUse',
      `process.stdout.write(JSON.stringify({contextModification: process.argv[1] + ' ' + process.env.CLINE_HOOK_PATH}))\n`,
    )
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    await trustHook(hook, { policyFile })
    const result = await runHook('PreToolUse', {}, opts({ workspaceRoots: [root], policyFile, trust: 'workspace' }))
    // Node runs through the runtime's bootstrap, which keeps the hook's path (approved-bytes.test.js).
    expect(result.contextModification).toBe(`${hook} ${hook}`)
  })

  // Attack on issue 14: hook A rewrote hook B in place after B had passed its check (hooks of
  // one run start together); B's interpreter then read the new bytes. B now runs from a sealed
  // copy of the bytes checked. B waits for A's rewrite, so nothing depends on timing.
  testIf(process.platform === 'linux', 'Linux starts shell scripts from a sealed copy (memfd)', 'a hook rewritten in place by another hook while it runs still runs the approved bytes', async () => {
    for (const profile of ['extension', 'cli']) {
      const dir = makeTempDir('cline-hooks-inplace-')
      const started = path.join(dir, 'b-started')
      const rewritten = path.join(dir, 'rewritten')
      const root = makeWorkspace(`inplace-${profile}`)
      const hooksDir = profile === 'cli' ? path.join(root, '.cline', 'hooks') : hooksDirOf(root)
      fs.mkdirSync(hooksDir, { recursive: true })
      const victim = path.join(hooksDir, profile === 'cli' ? 'PreToolUse.sh' : 'PreToolUse')
      const good = `echo '{"cancel": true, "errorMessage": "approved bytes"}'\n`
      const evil = `echo '{"cancel": false, "errorMessage": "evil bytes!!!"}'\n`
      expect(evil.length).toBe(good.length)
      fs.writeFileSync(
        victim,
        `#!/bin/bash\ncat > /dev/null; touch ${started}; while [ ! -e ${rewritten} ]; do sleep 0.02; done\n${good}`,
        { mode: 0o755 },
      )
      const extra = makeTempDir('cline-hooks-attacker-')
      writeProgram(
        extra,
        'PreToolUse',
        `const fs = require('fs')
        process.stdin.resume()
        const wait = () => fs.existsSync(${JSON.stringify(started)}) ? rewrite() : setTimeout(wait, 10)
        const rewrite = () => {
          const text = fs.readFileSync(${JSON.stringify(victim)}, 'utf8')
          const fd = fs.openSync(${JSON.stringify(victim)}, 'r+')
          fs.writeSync(fd, ${JSON.stringify(evil)}, text.indexOf(${JSON.stringify(good)}))
          fs.closeSync(fd)
          fs.writeFileSync(${JSON.stringify(rewritten)}, '')
          process.stdout.write('{}')
        }
        wait()\n`,
      )
      const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
      const options = opts({ workspaceRoots: [root], extraHooksDirs: [extra], policyFile, trust: 'all', profile })
      for (const hook of await discoverHooks('PreToolUse', options)) await trustHook(hook.path, { policyFile })
      const result = await runHook('PreToolUse', {}, { ...options, timeoutMs: 20000 })
      expect(fs.readFileSync(victim, 'utf8')).toContain('evil bytes')
      expect(result.hooks.map((h) => h.status)).toEqual(['completed', 'completed'])
      expect(result.cancel).toBe(true)
      expect(result.errorMessage).toBe('approved bytes')
    }
  })

  test('trust "all" covers the global and extra folders; "workspace" leaves them alone', async () => {
    const globalDir = makeTempDir('cline-hooks-global-')
    const hook = tagHook(globalDir, 'global')
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const base = { globalHooksDir: globalDir, policyFile }
    expect((await discoverHooks('PreToolUse', { ...base, trust: 'workspace' }))[0]).toMatchObject({ enabled: true, trust: 'notRequired' })
    expect((await discoverHooks('PreToolUse', { ...base, trust: 'all' }))[0]).toMatchObject({ enabled: false, trust: 'new' })
    await trustHook(hook, { policyFile })
    expect((await runHook('PreToolUse', {}, { ...base, trust: 'all' })).contextModification).toBe('global')
  })
})

describe('enabled state', () => {
  test('setHookEnabled disables a hook for discovery and runs, and this process sees it at its very next call', async () => {
    const { hook, policyFile } = setup()
    const options = opts({ workspaceRoots: [path.dirname(path.dirname(path.dirname(hook)))], policyFile })
    const factory = new HookFactory(options)
    expect(await factory.hasHook('PreToolUse')).toBe(true)
    await setHookEnabled(hook, false, { policyFile })
    // No wait: the snapshot is stale the moment this process changed the store.
    expect(await factory.hasHook('PreToolUse')).toBe(false)
    const [found] = (await factory.create('PreToolUse')).hooks
    expect(found).toMatchObject({ enabled: false, reason: 'disabled' })
    const result = await runHook('PreToolUse', {}, options)
    expect(result.hooks).toEqual([])
    expect(result.warnings).toEqual([`skipped ${hook}: disabled`])
    await setHookEnabled(hook, true, { policyFile })
    expect(await factory.hasHook('PreToolUse')).toBe(true)
    expect((await runHook('PreToolUse', {}, options)).contextModification).toBe('ran')
  })

  test("another process's change is seen at the next revalidation", async () => {
    const { hook, policyFile } = setup()
    const options = opts({ workspaceRoots: [path.dirname(path.dirname(path.dirname(hook)))], policyFile })
    const factory = new HookFactory(options)
    expect(await factory.hasHook('PreToolUse')).toBe(true)
    await new Promise((resolve, reject) =>
      execFile(
        process.execPath,
        ['-e', `require(${JSON.stringify(path.join(__dirname, '..'))}).setHookEnabled(process.argv[1], false, { policyFile: process.argv[2] })`, hook, policyFile],
        (err) => (err ? reject(err) : resolve()),
      ),
    )
    await waitFor(async () => !(await factory.hasHook('PreToolUse')), { timeoutMs: 10000, what: 'the other process’s change' })
  })

  testUnix('a hook disabled through a linked folder is disabled through its real folder too', async () => {
    const { root, hook, policyFile } = setup()
    const alias = path.join(makeTempDir('cline-hooks-alias-'), 'ws')
    fs.symlinkSync(root, alias)
    await setHookEnabled(path.join(alias, '.clinerules', 'hooks', 'PreToolUse'), false, { policyFile })
    for (const workspace of [root, alias]) {
      const [found] = await discoverHooks('PreToolUse', opts({ workspaceRoots: [workspace], policyFile }))
      expect(found).toMatchObject({ enabled: false, reason: 'disabled' })
    }
    await setHookEnabled(hook, true, { policyFile })
    expect((await discoverHooks('PreToolUse', opts({ workspaceRoots: [alias], policyFile })))[0].enabled).toBe(true)
  })

  test('a runner made before a revocation or a disable does not run the hook', async () => {
    const { hook, policyFile, options } = setup()
    await trustHook(hook, { policyFile })
    const runner = await new HookFactory(options).create('PreToolUse')
    expect((await runner.run({})).contextModification).toBe('ran')
    await untrustHook(hook, { policyFile })
    let result = await runner.run({})
    expect(result.hooks).toEqual([])
    expect(result.warnings).toEqual([`skipped ${hook}: not trusted: new`])
    await trustHook(hook, { policyFile })
    const again = await new HookFactory(options).create('PreToolUse')
    await setHookEnabled(hook, false, { policyFile })
    result = await again.run({})
    expect(result.hooks).toEqual([])
    expect(result.warnings).toEqual([`skipped ${hook}: disabled`])
  })

  testUnix('a hook without the exec bit stays disabled with its reason; enabling it sets the bit', async () => {
    const root = makeWorkspace('no-exec')
    const hook = writeProgram(hooksDirOf(root), 'PreToolUse', 'process.stdout.write("{}")\n', { mode: 0o644 })
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const options = opts({ workspaceRoots: [root], policyFile })
    const [before] = await discoverHooks('PreToolUse', options)
    expect(before.enabled).toBe(false)
    expect(before.reason).toMatch(/executable/)
    await setHookEnabled(hook, true, { policyFile })
    expect(fs.statSync(hook).mode & 0o111).not.toBe(0)
    expect((await discoverHooks('PreToolUse', options))[0].enabled).toBe(true)
    // The exec-bit toggle still works as documented.
    fs.chmodSync(hook, 0o644)
    await waitFor(async () => !(await discoverHooks('PreToolUse', options))[0].enabled, { what: 'chmod -x to be seen' })
  })
})

describe('a policy store that cannot be used', () => {
  testUnix('a FIFO in its place: nothing hangs, it counts as empty, writes fail at once', async () => {
    const { hook, policyFile, options } = setup()
    execFileSyncQuiet('mkfifo', [policyFile])
    const started = Date.now()
    const [found] = await discoverHooks('PreToolUse', options)
    expect(found.reason).toBe('not trusted: new')
    const result = await runHook('PreToolUse', {}, options)
    expect(result.warnings[0]).toContain('is not a regular file')
    const err = await trustHook(hook, { policyFile }).catch((e) => e)
    expect(err.code).toBe('ERR_HOOK_POLICY_FILE')
    // A second writer is not held up by a lock the first left behind.
    expect((await setHookEnabled(hook, false, { policyFile }).catch((e) => e)).message).toContain('is not a regular file')
    expect(Date.now() - started).toBeLessThan(5000)
  })

  testUnix('a store inside a workspace reached through a symbolic link counts as empty', async () => {
    const { root, hook } = setup()
    const outside = makeTempDir('cline-hooks-outside-')
    fs.mkdirSync(path.join(root, '.cline'))
    fs.symlinkSync(path.join(root, '.cline'), path.join(outside, 'store'))
    const policyFile = path.join(outside, 'store', 'hooks-policy.json')
    fs.writeFileSync(policyFile, JSON.stringify({ approved: { [hook]: sha256(hook) } }))
    const options = opts({ workspaceRoots: [root], policyFile, trust: 'workspace' })
    const result = await runHook('PreToolUse', {}, options)
    expect(result.hooks).toEqual([])
    expect(result.warnings[0]).toContain('once symbolic links are followed')
  })

  const corruptions = {
    'not JSON': (file) => fs.writeFileSync(file, '{"approved": '),
    'the wrong shape': (file) => fs.writeFileSync(file, '{"approved": ["a"]}'),
    'a directory': (file) => fs.mkdirSync(file),
  }
  for (const [what, corrupt] of Object.entries(corruptions)) {
    test(`${what}: enables nothing, is named in warnings, and is never overwritten`, async () => {
      const { hook, policyFile, options } = setup()
      await trustHook(hook, { policyFile })
      fs.rmSync(policyFile)
      corrupt(policyFile)
      const before = fs.statSync(policyFile).isDirectory() ? null : fs.readFileSync(policyFile, 'utf8')
      const result = await runHook('PreToolUse', {}, options)
      expect(result.hooks).toEqual([])
      expect(result.warnings[0]).toContain(`the hooks policy file ${policyFile}`)
      expect(result.warnings[0]).toContain('counts as empty')
      expect(result.warnings).toContain(`skipped ${hook}: not trusted: new`)
      const err = await trustHook(hook, { policyFile }).catch((e) => e)
      expect(err.code).toBe('ERR_HOOK_POLICY_FILE')
      expect(err.message).toContain('nothing was changed')
      if (before !== null) expect(fs.readFileSync(policyFile, 'utf8')).toBe(before)
    })
  }

  test('8 processes approving at once: each gets its approval and the store stays whole', async () => {
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const hooks = Array.from({ length: 8 }, (_, i) => tagHook(hooksDirOf(makeWorkspace(`many-${i}`)), `h${i}`))
    const script = `
      const { trustHook, setHookEnabled } = require(${JSON.stringify(path.join(__dirname, '..'))})
      const [hook, policyFile] = process.argv.slice(1)
      ;(async () => {
        for (let i = 0; i < 10; i++) {
          await trustHook(hook, { policyFile })
          await setHookEnabled(hook, i % 2 === 1, { policyFile })
        }
      })().catch((e) => { console.error(e.code, e.message); process.exit(1) })`
    await Promise.all(
      hooks.map(
        (hook) =>
          new Promise((resolve, reject) =>
            execFile(process.execPath, ['-e', script, hook, policyFile], (err, _out, stderr) => (err ? reject(new Error(stderr)) : resolve())),
          ),
      ),
    )
    const store = JSON.parse(fs.readFileSync(policyFile, 'utf8'))
    // Keyed by the real path (links resolved; lower case on Windows).
    const key = (p) => (isWindows ? fs.realpathSync.native(p).toLowerCase() : fs.realpathSync(p))
    expect(Object.keys(store.approved).sort()).toEqual(hooks.map(key).sort())
    for (const hook of hooks) expect(store.approved[key(hook)]).toBe(sha256(hook))
    expect(store.disabled).toEqual([])
    expect(fs.readdirSync(path.dirname(policyFile)).filter((n) => n.endsWith('.tmp'))).toEqual([])
  })
})

// Issue 32: a store only the user can change, approvals that stay in the workspace they were
// given in, and an enable that never changes a file outside the hook's workspace.
describe('issue 32: who can change a store, where an approval holds, what enabling may chmod', () => {
  const isRoot = !isWindows && process.getuid() === 0
  // A change of mode or owner is no write by this process: runs see it at the next
  // revalidation (250 ms), so wait for a run that shows it.
  const runUntil = (options, shows, what) => {
    let last
    return waitFor(
      async () => {
        last = await runHook('PreToolUse', {}, options)
        return shows(last)
      },
      { timeoutMs: 20000, intervalMs: 50, what },
    ).then(() => last)
  }
  const ran = (result) => result.contextModification === 'ran' && result.warnings.length === 0

  testUnix('a store file that is itself a symbolic link into a workspace counts as empty', async () => {
    const { root, hook } = setup()
    fs.mkdirSync(path.join(root, '.cline'))
    const inside = path.join(root, '.cline', 'policy.json')
    fs.writeFileSync(inside, JSON.stringify({ approved: { [hook]: sha256(hook) } }))
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    fs.symlinkSync(inside, policyFile)
    const options = opts({ workspaceRoots: [root], policyFile, trust: 'workspace' })
    const result = await runHook('PreToolUse', {}, options)
    expect(result.hooks).toEqual([])
    expect(result.warnings[0]).toContain('once symbolic links are followed')
    expect(result.warnings[0]).toContain(`inside the workspace root ${root}`)
    expect(result.warnings).toContain(`skipped ${hook}: not trusted: new`)
  })

  testUnix('a store whose folder others can write counts as empty; a sticky folder such as /tmp does not', async () => {
    const { hook, policyFile, options } = setup()
    await trustHook(hook, { policyFile })
    const folder = path.dirname(policyFile)
    fs.chmodSync(folder, 0o777)
    let result = await runHook('PreToolUse', {}, options)
    expect(result.hooks).toEqual([])
    expect(result.warnings[0]).toContain(`is in the folder ${folder}, where another user could replace it`)
    expect(result.warnings[0]).toContain('chmod o-w')
    const err = await trustHook(hook, { policyFile }).catch((e) => e)
    expect(err.code).toBe('ERR_HOOK_POLICY_FILE')
    fs.chmodSync(folder, 0o1777)
    await runUntil(options, ran, 'the sticky folder to be accepted')
  })

  testIf(isRoot, 'chown and chgrp to other ids need root (CI runs as root)', 'a store another user can write through its group or folder counts as empty; the owner\'s own group may write it', async () => {
    const { hook, policyFile, options } = setup()
    await trustHook(hook, { policyFile })
    fs.chmodSync(policyFile, 0o660)
    // users (gid 100): a group other accounts share, not root's private group.
    fs.chownSync(policyFile, 0, 100)
    let result = await runHook('PreToolUse', {}, options)
    expect(result.hooks).toEqual([])
    expect(result.warnings[0]).toContain('can be written by the members of its group (gid 100')
    expect((await trustHook(hook, { policyFile }).catch((e) => e)).code).toBe('ERR_HOOK_POLICY_FILE')
    // Root's own group (root:x:0: lists nobody): nobody else can write it.
    fs.chownSync(policyFile, 0, 0)
    await runUntil(options, ran, "the owner's own group to be accepted")
    // A folder the group users can write.
    const folder = path.dirname(policyFile)
    fs.chownSync(folder, 0, 100)
    fs.chmodSync(folder, 0o770)
    result = await runUntil(options, (r) => r.hooks.length === 0, 'the group-writable folder to be refused')
    expect(result.warnings[0]).toContain(`is in the folder ${folder}, where another user could replace it`)
    expect(result.warnings[0]).toContain('can be written by the members of its group (gid 100')
    fs.chmodSync(folder, 0o750)
    await runUntil(options, ran, 'the folder without group write to be accepted')
    // A folder another user owns: they could replace the store.
    fs.chownSync(folder, 65534, 65534)
    result = await runUntil(options, (r) => r.hooks.length === 0, 'the folder of another user to be refused')
    expect(result.warnings[0]).toContain('belongs to another user (uid 65534')
  })

  testUnix("a clone whose hooks folder links to another project's approved hooks does not run them until approved there", async () => {
    const { root: project, hook, policyFile } = setup()
    await trustHook(hook, { policyFile })
    const inProject = opts({ workspaceRoots: [project], policyFile, trust: 'workspace' })
    const clone = makeWorkspace('clone')
    fs.mkdirSync(path.join(clone, '.clinerules'))
    fs.symlinkSync(hooksDirOf(project), hooksDirOf(clone))
    // `.clinerules` itself a link, relative as a repository carries it.
    const other = makeWorkspace('clone-rules')
    fs.symlinkSync(path.relative(other, path.join(project, '.clinerules')), path.join(other, '.clinerules'))
    for (const workspace of [clone, other]) {
      const options = opts({ workspaceRoots: [workspace], policyFile, trust: 'workspace' })
      const [found] = await discoverHooks('PreToolUse', options)
      expect(found).toMatchObject({ trust: 'new', enabled: false, reason: 'not trusted: new' })
      const result = await runHook('PreToolUse', {}, options)
      expect(result.hooks).toEqual([])
      expect(result.warnings).toEqual([`skipped ${found.path}: not trusted: new`])
    }
    // Still approved where it was approved.
    expect((await runHook('PreToolUse', {}, inProject)).contextModification).toBe('ran')
    // Approved in the clone: it runs there, through any spelling of the clone's root.
    const inClone = opts({ workspaceRoots: [clone], policyFile, trust: 'workspace' })
    const [found] = await discoverHooks('PreToolUse', inClone)
    await trustHook(found.path, { policyFile, sha256: found.sha256 })
    expect((await runHook('PreToolUse', {}, inClone)).contextModification).toBe('ran')
    const alias = path.join(makeTempDir('cline-hooks-alias-'), 'clone')
    fs.symlinkSync(clone, alias)
    expect((await discoverHooks('PreToolUse', opts({ workspaceRoots: [alias], policyFile, trust: 'workspace' })))[0].trust).toBe('approved')
    // The approval in the clone is the clone's: the other clone still needs its own.
    expect((await discoverHooks('PreToolUse', opts({ workspaceRoots: [other], policyFile, trust: 'workspace' })))[0].trust).toBe('new')
    // The store keeps the old format: path -> sha256, the clone's under its own root.
    const store = JSON.parse(fs.readFileSync(policyFile, 'utf8'))
    expect(store.approved[path.join(clone, '.clinerules', 'hooks', 'PreToolUse')]).toBe(sha256(hook))
  })

  testUnix('enabling never sets the exec bit through a link leading out of the workspace; inside it, it does', async () => {
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const outside = makeTempDir('cline-hooks-outside-')
    const target = path.join(outside, 'PreToolUse')
    fs.writeFileSync(target, '#!/bin/sh\necho {}\n')
    fs.chmodSync(target, 0o644)
    // The hook file a link out of the workspace.
    const root = makeWorkspace('enable-link')
    fs.mkdirSync(hooksDirOf(root), { recursive: true })
    const link = path.join(hooksDirOf(root), 'PreToolUse')
    fs.symlinkSync(target, link)
    // The hooks folder a link out of the workspace.
    const linkedDir = makeWorkspace('enable-dir-link')
    fs.mkdirSync(path.join(linkedDir, '.clinerules'))
    fs.symlinkSync(outside, hooksDirOf(linkedDir))
    for (const hook of [link, path.join(hooksDirOf(linkedDir), 'PreToolUse')]) {
      const err = await setHookEnabled(hook, true, { policyFile }).catch((e) => e)
      expect(err.code).toBe('ERR_NOT_A_HOOK')
      expect(err.message).toContain(`${hook} is not a hook: it is a symbolic link`)
      expect(err.message).toContain(`leading to ${target}, outside`)
      expect(fs.statSync(target).mode & 0o777).toBe(0o644)
    }
    // The CLI says the same and changes nothing.
    const r = nodeSync([path.join(__dirname, '..', 'bin', 'cline-hooks.js'), 'enable', link, '--policy-file', policyFile], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('outside')
    expect(fs.statSync(target).mode & 0o777).toBe(0o644)
    // A link to a file inside the same workspace is enabled, and its file made executable.
    const inner = path.join(root, 'scripts', 'TaskStart')
    fs.mkdirSync(path.dirname(inner))
    fs.writeFileSync(inner, '#!/bin/sh\necho {}\n')
    fs.chmodSync(inner, 0o644)
    fs.symlinkSync(inner, path.join(hooksDirOf(root), 'TaskStart'))
    await setHookEnabled(path.join(hooksDirOf(root), 'TaskStart'), true, { policyFile })
    expect(fs.statSync(inner).mode & 0o777).toBe(0o755)
  })
})

// Attack 32a: ways another user or the repository kept a store believed. As root (CI): real
// accounts, ACLs, owners. Accounts have fixed names and are made once (other runs may use them
// at the same time), never removed.
describe('issue 32: a store written through an ACL, a primary group, a shared folder or a flipped link', () => {
  const isRootLinux = process.platform === 'linux' && process.getuid() === 0
  const reason = 'real accounts, ACLs and owners need root on Linux (CI runs as root)'
  const haveUser = (name) => spawnSyncQuiet('id', ['-u', name]).status === 0
  /** The account `name` (made with `args` if missing; another run may be making it too). */
  const user = (name, args) => {
    if (!haveUser(name)) spawnSyncQuiet('useradd', ['-M', '-s', '/usr/sbin/nologin', ...args, name])
    const id = spawnSyncQuiet('id', ['-u', name])
    if (id.status !== 0) throw new Error(`the test account ${name} could not be made`)
    return Number(String(id.stdout).trim())
  }
  const { spawnSync } = require('child_process')
  const spawnSyncQuiet = (program, args, options = {}) => spawnSync(program, args, { encoding: 'utf8', ...options })
  /** Gives user `uid` rw (rwx on a folder) on `file` through its POSIX ACL, as setfacl -m u:uid:rw would. */
  const grantByAcl = (file, uid) => {
    const script = `import os, struct, stat, sys
f, uid = sys.argv[1], int(sys.argv[2]); m = os.stat(f).st_mode
extra = 7 if stat.S_ISDIR(m) else 6
u, g, o = (m >> 6) & 7, (m >> 3) & 7, m & 7
ents = [(1, u, 0xffffffff), (2, extra, uid), (4, g, 0xffffffff), (0x10, g | extra, 0xffffffff), (0x20, o, 0xffffffff)]
os.setxattr(f, 'system.posix_acl_access', struct.pack('<I', 2) + b''.join(struct.pack('<HHI', *e) for e in ents))`
    const r = spawnSyncQuiet('python3', ['-c', script, file, String(uid)])
    if (r.status !== 0) throw new Error(`setting the ACL failed: ${r.stderr}`)
  }
  const approvedStore = (hook) => JSON.stringify({ approved: { [fs.realpathSync(hook)]: sha256(hook) } })

  testIf(isRootLinux, reason, "a POSIX ACL letting another user write the store, or its folder, makes it count as empty", async () => {
    const other = user('clh32acl', [])
    const { hook, policyFile, options } = setup()
    fs.writeFileSync(policyFile, approvedStore(hook))
    fs.chmodSync(policyFile, 0o640)
    expect((await runHook('PreToolUse', {}, options)).contextModification).toBe('ran')
    grantByAcl(policyFile, other)
    // An ACL change is no write of this process's: seen at the next revalidation (250 ms).
    let result
    await waitFor(async () => (result = await runHook('PreToolUse', {}, options)).hooks.length === 0, { timeoutMs: 20000, what: 'the ACL to be seen' })
    expect(result.hooks).toEqual([])
    expect(result.warnings[0]).toContain(`can be written by the user uid ${other} through its POSIX ACL`)
    expect(result.warnings[0]).toContain(`setfacl -x u:${other}`)
    expect((await trustHook(hook, { policyFile }).catch((e) => e)).code).toBe('ERR_HOOK_POLICY_FILE')
    // The folder's ACL: they could replace the store.
    const second = setup()
    fs.writeFileSync(second.policyFile, approvedStore(second.hook))
    const folder = path.dirname(second.policyFile)
    fs.chmodSync(folder, 0o755)
    grantByAcl(folder, other)
    result = await runHook('PreToolUse', {}, second.options)
    expect(result.hooks).toEqual([])
    expect(result.warnings[0]).toContain(`is in the folder ${folder}, where another user could replace it`)
    expect(result.warnings[0]).toContain(`uid ${other} through its POSIX ACL`)
  })

  testIf(isRootLinux, reason, "the owner's group is no private group when another account has it as its primary group", () => {
    // solo: a private group of its own; owner: a group that `sneaky` has as its primary group
    // (useradd -g owner sneaky), which /etc/group does not list as a member.
    user('clh32solo', ['-U'])
    user('clh32owner', ['-U'])
    user('clh32sneaky', ['-g', 'clh32owner'])
    const check = (account) => {
      const { root, hook, policyFile } = setup()
      fs.writeFileSync(policyFile, approvedStore(hook))
      fs.chmodSync(policyFile, 0o660)
      for (const dir of [path.dirname(root), path.dirname(policyFile)]) spawnSyncQuiet('chown', ['-R', `${account}:${account}`, dir])
      const script = `const { discoverHooks, runHook } = require(${JSON.stringify(path.join(__dirname, '..'))})
        const options = { workspaceRoots: [process.argv[1]], policyFile: process.argv[2], trust: 'workspace', globalHooksDir: null }
        ;(async () => {
          const [found] = await discoverHooks('PreToolUse', options)
          const { warnings } = await runHook('UserPromptSubmit', {}, options)
          console.log(JSON.stringify({ trust: found.trust, warnings }))
        })()`
      const r = spawnSyncQuiet('runuser', ['-u', account, '--', process.execPath, '-e', script, root, policyFile])
      if (r.status !== 0) throw new Error(r.stderr)
      return JSON.parse(r.stdout)
    }
    expect(check('clh32solo')).toEqual({ trust: 'approved', warnings: [] })
    const sneaky = check('clh32owner')
    expect(sneaky.trust).toBe('new')
    expect(sneaky.warnings[0]).toContain('can be written by the members of its group')
    expect(sneaky.warnings[0]).toContain('chmod g-w')
  })

  testUnix('a store that is a link into a folder others can write counts as empty', async () => {
    const { hook, options } = setup()
    const shared = makeTempDir('cline-hooks-shared-')
    fs.writeFileSync(path.join(shared, 'p.json'), approvedStore(hook))
    fs.chmodSync(path.join(shared, 'p.json'), 0o600)
    fs.chmodSync(shared, 0o777)
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    fs.symlinkSync(path.join(shared, 'p.json'), policyFile)
    const linked = { ...options, policyFile }
    const result = await runHook('PreToolUse', {}, linked)
    expect(result.hooks).toEqual([])
    expect(result.warnings[0]).toContain(`is in the folder ${shared}, where another user could replace it`)
    fs.chmodSync(shared, 0o700)
    // A change of mode is seen at the next revalidation (250 ms).
    await waitFor(async () => (await runHook('PreToolUse', {}, linked)).contextModification === 'ran', {
      timeoutMs: 20000,
      intervalMs: 50,
      what: 'the store in a folder of the user\'s own to be read',
    })
  })

  testUnix('a store reached through a link inside the workspace counts as empty, even when it ends outside', async () => {
    const { root, hook, options } = setup()
    const outside = makeTempDir('cline-hooks-outside-')
    fs.writeFileSync(path.join(outside, 'hooks-policy.json'), approvedStore(hook))
    // ~/.cline -> <repo>/.cline-config -> a folder outside: the repository owns the middle link.
    fs.symlinkSync(outside, path.join(root, '.cline-config'))
    const home = makeTempDir('cline-hooks-home-')
    fs.symlinkSync(path.join(root, '.cline-config'), path.join(home, '.cline'))
    const policyFile = path.join(home, '.cline', 'hooks-policy.json')
    const result = await runHook('PreToolUse', {}, { ...options, policyFile })
    expect(result.hooks).toEqual([])
    expect(result.warnings[0]).toContain(`is reached through the symbolic link ${path.join(root, '.cline-config')}, inside the workspace root ${root}`)
    // The same store, given by its real path: read.
    expect((await runHook('PreToolUse', {}, { ...options, policyFile: path.join(outside, 'hooks-policy.json') })).contextModification).toBe('ran')
  })

  testIf(process.platform === 'linux', 'renameat2 RENAME_EXCHANGE is Linux', 'a folder flipped to a link into the workspace while stores are read never approves a hook', async () => {
    const { root, hook, options } = setup()
    fs.mkdirSync(path.join(root, 'cfg-real'))
    fs.writeFileSync(path.join(root, 'cfg-real', 'hooks-policy.json'), approvedStore(hook))
    const home = makeTempDir('cline-hooks-home-')
    fs.mkdirSync(path.join(home, 'cfg'))
    fs.writeFileSync(path.join(home, 'cfg', 'hooks-policy.json'), '{}')
    fs.symlinkSync(path.join(root, 'cfg-real'), path.join(home, 'swap'))
    const policyFile = path.join(home, 'cfg', 'hooks-policy.json')
    // The racer swaps <home>/cfg (a folder of the user's) and a link into the workspace, atomically.
    const racer = require('child_process').spawn('python3', ['-c', `import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
end = time.time() + float(sys.argv[3])
while time.time() < end:
    libc.renameat2(-100, a, -100, b, 2)
`, path.join(home, 'cfg'), path.join(home, 'swap'), '4'], { stdio: 'ignore' })
    const exited = new Promise((resolve) => racer.on('exit', resolve))
    const seen = { approved: 0, new: 0 }
    const started = Date.now()
    try {
      while (Date.now() - started < 3000) {
        const [found] = await discoverHooks('PreToolUse', { ...options, policyFile })
        seen[found.trust === 'approved' ? 'approved' : 'new']++
      }
    } finally {
      racer.kill('SIGKILL')
      await exited
    }
    expect(seen.new).toBeGreaterThan(10)
    expect(seen.approved).toBe(0)
  })
})

describe('bad input', () => {
  test('each mistake is a clear error', async () => {
    const { root, hook, policyFile } = setup()
    const notAHook = path.join(root, 'notes.txt')
    fs.writeFileSync(notAHook, 'x')
    const cases = [
      [() => trustHook(notAHook, { policyFile }), 'ERR_NOT_A_HOOK', /not a hook: its name is not a hook's/],
      [() => trustHook(path.join(root, isWindows ? 'PreToolUse.cmd' : 'PreToolUse'), { policyFile }), 'ERR_NOT_A_HOOK', /does not exist/],
      [() => trustHook(hooksDirOf(root), { policyFile }), 'ERR_NOT_A_HOOK', /not a hook/],
      [() => trustHook(hook, { policyFile: 42 }), 'ERR_INVALID_OPTION', /policyFile/],
      [() => trustHook(hook, { policyFile, sha256: 'abc' }), 'ERR_INVALID_OPTION', /not a sha256/],
      [() => trustHook(hook, { policyFile, sha256: '0'.repeat(64) }), 'ERR_HOOK_POLICY_FILE', /changed since it was reviewed/],
      [() => trustHook(hook, { policyFile, polcyFile: 1 }), 'ERR_INVALID_OPTION', /policyFile/],
      [() => trustHook(42, { policyFile }), 'ERR_INVALID_OPTION', /hook file's path/],
      [() => setHookEnabled(hook, 'yes', { policyFile }), 'ERR_INVALID_OPTION', /true to enable/],
      [() => discoverHooks('PreToolUse', { trust: 'workspace', policyFile: null }), 'ERR_INVALID_OPTION', /needs a policy store/],
      [() => discoverHooks('PreToolUse', { trust: 'some', policyFile }), 'ERR_INVALID_OPTION', /not a trust scope/],
      [
        () => runHook('PreToolUse', {}, { workspaceRoots: [root], policyFile: path.join(root, '.cline', 'p.json') }),
        'ERR_INVALID_OPTION',
        /inside the workspace root/,
      ],
    ]
    for (const [call, code, message] of cases) {
      const err = await call().then(
        () => null,
        (e) => e,
      )
      expect(err).not.toBeNull()
      expect(err.code).toBe(code)
      expect(err.message).toMatch(message)
    }
    expect(fs.existsSync(policyFile)).toBe(false)
  })
})

describe('cline-hooks trust, enable, disable', () => {
  const CLI = path.join(__dirname, '..', 'bin', 'cline-hooks.js')
  const EXAMPLES = path.join(__dirname, '..', 'examples', 'workspace')
  const cli = (...args) => nodeSync([CLI, ...args], { encoding: 'utf8', input: '', env: { ...process.env, NO_COLOR: '1' } })

  testIf(!isWindows, 'the examples are macOS/Linux hooks (extensionless executables)', 'trust lists the unapproved example hooks with their first lines, approves them with --yes, and list shows it', () => {
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const scope = ['--workspace', EXAMPLES, '--no-global', '--policy-file', policyFile]
    const examples = fs.readdirSync(path.join(EXAMPLES, '.clinerules', 'hooks')).filter((n) => !n.startsWith('.'))
    // Without a terminal or --yes: listed, nothing approved.
    let r = cli('trust', ...scope)
    expect(r.status).toBe(2)
    expect(r.stdout).toContain('nothing was changed')
    expect(fs.existsSync(policyFile)).toBe(false)
    r = cli('trust', ...scope, '--yes')
    expect(r.status).toBe(0)
    const approved = r.stdout.split('\n').filter((l) => l.startsWith('approved '))
    expect(approved.length).toBeGreaterThan(0)
    expect(approved.length).toBeLessThanOrEqual(examples.length)
    const store = JSON.parse(fs.readFileSync(policyFile, 'utf8'))
    for (const [file, digest] of Object.entries(store.approved)) expect(sha256(file)).toBe(digest)
    r = cli('list', ...scope, '--trust', 'workspace')
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^PreToolUse\s+enabled\s+approved\s+workspace/m)
    expect(r.stdout).not.toMatch(/\bnew\b.*workspace/)
    // Nothing left to approve.
    expect(cli('trust', ...scope).stdout).toContain('Every hook in scope is approved')
  })

  testUnix("trust in a clone linked to another project's hooks asks again there, approves there, and list agrees", () => {
    const { root: project, hook, policyFile } = setup()
    const clone = makeWorkspace('cli-clone')
    fs.mkdirSync(path.join(clone, '.clinerules'))
    fs.symlinkSync(hooksDirOf(project), hooksDirOf(clone))
    expect(cli('trust', '--workspace', project, '--no-global', '--policy-file', policyFile, '--yes').status).toBe(0)
    expect(JSON.parse(fs.readFileSync(policyFile, 'utf8')).approved[hook]).toBe(sha256(hook))
    const scope = ['--workspace', clone, '--no-global', '--policy-file', policyFile]
    let r = cli('trust', ...scope)
    expect(r.status).toBe(2)
    expect(r.stdout).toContain('(new)')
    r = cli('trust', ...scope, '--yes')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain(`approved ${path.join(hooksDirOf(clone), 'PreToolUse')}`)
    expect(cli('trust', ...scope).stdout).toContain('Every hook in scope is approved')
    r = cli('list', 'PreToolUse', ...scope, '--trust', 'workspace')
    expect(r.stdout).toMatch(/^PreToolUse\s+enabled\s+approved\s+workspace/m)
  })

  // Issue 32 item 7: the question on a terminal (a real pty, as a user has it), the one read that
  // is both shown and approved, and the preview's length.
  const PTY = path.join(__dirname, 'fixtures', 'cli', 'pty-run.py')
  const { spawn } = require('child_process')

  /**
   * `cline-hooks trust ...args` on a pseudo-terminal 200 columns wide; once the question is on
   * screen, `atPrompt(output)` runs and what it returns is typed. Resolves with `{ status, output }`.
   */
  function trustOnTerminal(args, atPrompt) {
    return new Promise((resolve, reject) => {
      const child = spawn('python3', [PTY, '200', process.execPath, CLI, 'trust', ...args], {
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['pipe', 'pipe', 'inherit'],
      })
      let output = ''
      let asked = false
      // A bound for a hung CLI only: a run takes about a second.
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error(`trust did not finish in 30 s; it printed:\n${output}`))
      }, 30000)
      child.stdout.setEncoding('utf8')
      child.stdout.on('data', (chunk) => {
        output += chunk
        if (!asked && output.includes('[y/N]')) {
          asked = true
          child.stdin.end(atPrompt(output))
        }
      })
      child.on('error', reject)
      child.on('close', (status) => {
        clearTimeout(timer)
        resolve({ status, output: output.replace(/\r\n/g, '\n') })
      })
    })
  }

  /** A workspace whose PreToolUse hook is `body` (a shell script), and the scope of a CLI call on it. */
  function shellHookWorkspace(body) {
    const root = makeWorkspace('trust-tty')
    const hook = writeHook(hooksDirOf(root), 'PreToolUse', body)
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    return { root, hook, policyFile, scope: ['--workspace', root, '--no-global', '--policy-file', policyFile] }
  }
  const approvals = (policyFile) => (fs.existsSync(policyFile) ? Object.values(JSON.parse(fs.readFileSync(policyFile, 'utf8')).approved) : [])

  testUnix('on a terminal, y or yes approves the bytes shown; another answer approves nothing', async () => {
    for (const [answer, approved] of [['n\r', false], ['\r', false], ['y\r', true], ['yes\r', true], ['YES\r', true]]) {
      const { hook, policyFile, scope } = shellHookWorkspace('echo \'{"cancel": false}\' # tty-hook\n')
      const r = await trustOnTerminal(scope, (shown) => {
        expect(shown).toContain('# tty-hook')
        expect(shown).toContain(`sha256 ${sha256(hook)}`)
        return answer
      })
      if (approved) {
        expect({ answer, status: r.status }).toEqual({ answer, status: 0 })
        expect(r.output).toContain(`approved ${hook}`)
        expect(approvals(policyFile)).toEqual([sha256(hook)])
      } else {
        expect({ answer, status: r.status }).toEqual({ answer, status: 2 })
        expect(r.output).toContain('Nothing was approved.')
        expect(approvals(policyFile)).toEqual([])
      }
    }
  })

  testUnix('a hook swapped while the question is on screen is not approved: it stays changed, the old approval kept', async () => {
    const { root, hook, policyFile, scope } = shellHookWorkspace('echo \'{"cancel": false}\' # first\n')
    expect(cli('trust', ...scope, '--yes').status).toBe(0)
    const first = sha256(hook)
    writeHook(hooksDirOf(root), 'PreToolUse', 'echo \'{"cancel": false}\' # second, reviewed\n')
    const reviewed = sha256(hook)
    const r = await trustOnTerminal(scope, (shown) => {
      expect(shown).toContain('# second, reviewed')
      expect(shown).toContain(`sha256 ${reviewed}`)
      // Replaced (a new file renamed over it) after it was shown, before the answer.
      const swap = path.join(root, 'swap')
      writeHook(swap, 'PreToolUse', 'echo \'{"cancel": false}\' # third, never shown\n')
      fs.renameSync(path.join(swap, 'PreToolUse'), hook)
      return 'y\r'
    })
    expect(r.status).toBe(2)
    expect(r.output).toMatch(/not approved .*PreToolUse: .*changed since it was reviewed/)
    expect(approvals(policyFile)).toEqual([first])
    expect(cli('list', ...scope, '--trust', 'workspace').stdout).toMatch(/^PreToolUse\s+disabled\s+changed\s+workspace/m)
  })

  testUnix('Ctrl-C at the question exits 130 (SIGINT), approving nothing', async () => {
    const { policyFile, scope } = shellHookWorkspace('echo \'{"cancel": false}\'\n')
    const r = await trustOnTerminal(scope, () => '\x03')
    expect(r.status).toBe(130)
    expect(approvals(policyFile)).toEqual([])
  })

  test('the preview shows the first 12 lines and says how many more there are; --full shows every line', () => {
    // 49 lines, each ended by a newline (CRLF on Windows), in the form this platform runs.
    const comment = isWindows ? '@REM' : '#'
    const body = Array.from({ length: 49 }, (_, i) => `${comment} line ${i + 1}${isWindows ? '\r\n' : '\n'}`).join('')
    const root = makeWorkspace('trust-preview')
    writeFile(hooksDirOf(root), programHookName('PreToolUse'), body, 0o755)
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const total = 49
    const scope = ['--workspace', root, '--no-global', '--policy-file', policyFile]
    let r = cli('trust', ...scope)
    expect(r.status).toBe(2)
    const shown = r.stdout.split('\n').filter((l) => l.startsWith('  │ '))
    expect(shown).toHaveLength(13)
    expect(shown[12]).toBe(`  │ … ${total - 12} more lines of the file not shown (--full shows them)`)
    r = cli('trust', ...scope, '--full')
    expect(r.status).toBe(2)
    const all = r.stdout.split('\n').filter((l) => l.startsWith('  │ '))
    expect(all).toHaveLength(total)
    expect(all[total - 1]).toBe(`  │ ${comment} line 49`)
    expect(r.stdout).not.toContain('not shown')
    expect(fs.existsSync(policyFile)).toBe(false)
  })

  // Issue 32: the preview must show every character that changes what runs. A CR before a
  // newline was shown as a plain line break, so a heredoc terminator `A\r` (which `sh` does not
  // read as `A`) looked like the end of the heredoc, and the code after it looked inert.
  /** The preview lines `cline-hooks trust --full` shows for a PreToolUse hook holding exactly `bytes`. */
  function previewOf(bytes) {
    const root = makeWorkspace('trust-preview-bytes')
    // A batch file on Windows, where a hook needs an extension: the preview shows any bytes.
    const hook = writeFile(hooksDirOf(root), isWindows ? 'PreToolUse.cmd' : 'PreToolUse', bytes, 0o755)
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    const r = cli('trust', '--workspace', root, '--no-global', '--policy-file', policyFile, '--full')
    expect(r.status).toBe(2)
    return { hook, stdout: r.stdout, shown: r.stdout.split('\n').filter((l) => l.startsWith('  │ ')).map((l) => l.slice(4)) }
  }

  testUnix('a CR at a line end is shown as \\r: a heredoc terminator `A\\r` does not pass for `A`', () => {
    const marker = path.join(makeTempDir('cline-hooks-crlf-'), 'ran')
    const body =
      "#!/bin/sh\n: <<'A'\nThis hook only logs.\nA\r\n: <<'B'\nA\n" + `echo ran > '${marker}'\n` + "B\necho '{\"cancel\":false}'\n"
    const { hook, shown } = previewOf(body)
    // What sh makes of it: the line after the second `A` runs.
    execFileSync('sh', [hook], { stdio: 'ignore' })
    expect(fs.existsSync(marker)).toBe(true)
    expect(shown).toEqual(["#!/bin/sh", ": <<'A'", 'This hook only logs.', 'A\\r', ": <<'B'", 'A', `echo ran > '${marker}'`, 'B', `echo '{"cancel":false}'`])
  })

  test('the preview shows a lone CR, controls, invisible and non-ASCII spaces and trailing blanks, each where it is', () => {
    const { shown } = previewOf(
      [
        '#!/bin/sh',
        'echo safe\r rm -rf ~', // a lone CR: the terminal would print the rest over `echo safe`
        'echo a\bb \0 \f \v', // backspace, NUL, form feed, vertical tab
        'r\u200bm x; l\u200ds', // a zero-width space and joiner inside command names
        'echo\u00a0one\u2003word', // a no-break and an em space: no word splitting in sh
        '\ufeffecho bom', // a byte order mark
        'echo \u202eabc\u200f \u{E0041}', // bidi override, RTL mark, a tag character
        'const \u3164 = 1', // a Hangul filler: a blank JavaScript name
        'A ', // a trailing space: not the heredoc terminator A
        'B\t',
        '',
      ].join('\n'),
    )
    expect(shown).toEqual([
      '#!/bin/sh',
      'echo safe\\r rm -rf ~',
      'echo a\\x08b \\x00 \\x0C \\x0B',
      'r\\u200Bm x; l\\u200Ds',
      'echo\\u00A0one\\u2003word',
      '\\uFEFFecho bom',
      'echo \\u202Eabc\\u200F \\U000E0041',
      'const \\u3164 = 1',
      'A\\x20',
      'B\\t',
    ])
  })

  test('Windows line endings on every line are said once; in a mixed file each CR is shown', () => {
    const uniform = previewOf('@echo off\r\necho {"cancel":false}\r\n')
    expect(uniform.shown).toEqual(['@echo off', 'echo {"cancel":false}'])
    expect(uniform.stdout).toContain('every line ends with CR LF (Windows line endings), not marked below')
    const mixed = previewOf('@echo off\r\necho one\necho {"cancel":false}\r\n')
    expect(mixed.shown).toEqual(['@echo off\\r', 'echo one', 'echo {"cancel":false}\\r'])
    expect(mixed.stdout).not.toContain('CR LF')
  })

  test('disable and enable record the state; list and run follow it', () => {
    const { root, hook, policyFile } = setup()
    const scope = ['--workspace', root, '--no-global', '--policy-file', policyFile]
    let r = cli('disable', hook, '--policy-file', policyFile)
    expect(r.status).toBe(0)
    r = cli('list', 'PreToolUse', ...scope)
    expect(r.stdout).toMatch(/^PreToolUse\s+disabled\s+-\s+workspace/m)
    expect(r.stdout).toContain('not run: disabled')
    r = cli('run', 'PreToolUse', ...scope)
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/PreToolUse(\.cmd)?: disabled/)
    expect(r.stdout).toContain('no PreToolUse hook ran')
    expect(cli('enable', hook, '--policy-file', policyFile).status).toBe(0)
    r = cli('run', 'PreToolUse', ...scope)
    expect(r.stdout).toMatch(/context\s+ran/)
    r = cli('disable', path.join(root, 'nothing-here'), '--policy-file', policyFile)
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('is not a hook')
  })
})
