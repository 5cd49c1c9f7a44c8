'use strict'

// Issue 2, sections 3 (HookFactory freshness) and 6 (hook files changed during a run). The
// hooks are node programs (hook-programs.js), so these tests run on macOS/Linux and Windows; a
// disabled hook is a folder named like the hook, disabled on both (exec bits: the chmod test).

const fs = require('fs')
const path = require('path')
const { spawn } = require('child_process')

const {
  addon,
  describeUnix,
  testUnix,
  makeTempDir,
  makeWorkspace,
  hooksDirOf,
  writeFile,
  writeProgram,
  programHookName,
  printJson,
  readInputThen,
  trackPid,
  waitFor,
  opts,
  expectCompleted,
} = require('./helpers')

const { HookFactory, discoverHooks } = addon

// Changes must be seen within one second (the snapshot is trusted for 250 ms).
const FRESHNESS_MS = 1000
// A node hook starts in ~50 ms on Linux and 0.3-0.9 s under Wine.
jest.setTimeout(60000)

/** A hook listed disabled on every platform: a folder named like the hook. */
function disabledHook(dir, event) {
  const folder = path.join(dir, programHookName(event))
  fs.mkdirSync(folder, { recursive: true })
  return folder
}

/** A program that writes `file` (a canary: it ran). */
const touch = (file) => `require('fs').writeFileSync(${JSON.stringify(file)}, 'ran')\n`

describe('HookFactory', () => {
  test('hasHook says whether an enabled hook of that name exists', async () => {
    const ws = makeWorkspace('ws')
    writeProgram(hooksDirOf(ws), 'PreToolUse', printJson({}))
    disabledHook(hooksDirOf(ws), 'TaskStart')
    const factory = new HookFactory(opts({ workspaceRoots: [ws] }))
    expect(await factory.hasHook('PreToolUse')).toBe(true)
    expect(await factory.hasHook('PostToolUse')).toBe(false)
    expect(await factory.hasHook('TaskStart')).toBe(false) // found, but disabled
    expect((await discoverHooks('TaskStart', opts({ workspaceRoots: [ws] }))).map((h) => h.enabled)).toEqual([false])
  })

  test('create returns a runner with hookName and the discovered hooks, and it runs them', async () => {
    const tmp = makeTempDir()
    const ws = makeWorkspace('ws')
    const extra = path.join(tmp, 'extra')
    const a = writeProgram(extra, 'PreToolUse', readInputThen(printJson({ contextModification: 'from extra' })))
    const b = writeProgram(hooksDirOf(ws), 'PreToolUse', printJson({ cancel: true, errorMessage: 'from workspace' }))
    const options = opts({ workspaceRoots: [ws], extraHooksDirs: [extra] })
    const factory = new HookFactory(options)

    const runner = await factory.create('PreToolUse')
    expect(runner.hookName).toBe('PreToolUse')
    expect(runner.hooks.map((h) => [h.path, h.source, h.enabled])).toEqual([
      [a, 'extra', true],
      [b, 'workspace', true],
    ])
    expect(runner.hooks).toEqual(await discoverHooks('PreToolUse', options))

    for (let i = 0; i < 2; i++) {
      const result = await runner.run({ preToolUse: { toolName: 'x' } })
      expect(result.hooks.map((h) => [h.path, h.status])).toEqual([
        [a, 'completed'],
        [b, 'completed'],
      ])
      expect(result.cancel).toBe(true)
      expect(result.contextModification).toBe('from extra')
      expect(result.errorMessage).toBe('from workspace')
    }
  })

  test('a runner for a name with no runnable hook runs nothing', async () => {
    const tmp = makeTempDir()
    const canary = path.join(tmp, 'canary')
    const ws = makeWorkspace('ws')
    writeProgram(hooksDirOf(ws), 'TaskStart', touch(canary))
    disabledHook(hooksDirOf(ws), 'PreToolUse')
    const factory = new HookFactory(opts({ workspaceRoots: [ws] }))

    const runner = await factory.create('PreToolUse')
    expect(runner.hookName).toBe('PreToolUse')
    expect(runner.hooks.map((h) => h.enabled)).toEqual([false])
    const result = await runner.run({})
    expect(result).toMatchObject({ cancel: false, hooks: [], slowest: null, contextModification: '' })

    const nothing = await factory.create('PostToolUse')
    expect(nothing.hooks).toEqual([])
    expect((await nothing.run({})).hooks).toEqual([])
    expect(fs.existsSync(canary)).toBe(false)
  })

  const within = (predicate, what) => waitFor(predicate, { timeoutMs: FRESHNESS_MS, intervalMs: 20, what })

  test('hooks added and removed are seen within one second', async () => {
    const ws = makeWorkspace('ws')
    const factory = new HookFactory(opts({ workspaceRoots: [ws] }))
    // The hooks directory does not exist yet.
    expect(await factory.hasHook('PreToolUse')).toBe(false)
    expect((await factory.create('PreToolUse')).hooks).toEqual([])

    const hook = writeProgram(hooksDirOf(ws), 'PreToolUse', printJson({ contextModification: 'new hook' }))
    await within(() => factory.hasHook('PreToolUse'), 'an added hook')
    const runner = await factory.create('PreToolUse')
    expect(runner.hooks.map((h) => [h.path, h.enabled])).toEqual([[hook, true]])
    expect((await runner.run({})).contextModification).toBe('new hook')

    fs.unlinkSync(hook)
    await within(async () => (await factory.create('PreToolUse')).hooks.length === 0, 'a removed hook')
    expect(await factory.hasHook('PreToolUse')).toBe(false)
  })

  testUnix('a hook chmod-ed -x and +x again is seen within one second', async () => {
    const ws = makeWorkspace('ws')
    const hook = writeProgram(hooksDirOf(ws), 'PreToolUse', printJson({ contextModification: 'new hook' }))
    const factory = new HookFactory(opts({ workspaceRoots: [ws] }))
    expect(await factory.hasHook('PreToolUse')).toBe(true)

    fs.chmodSync(hook, 0o644)
    await within(async () => !(await factory.hasHook('PreToolUse')), 'chmod -x')
    expect((await factory.create('PreToolUse')).hooks.map((h) => h.enabled)).toEqual([false])

    fs.chmodSync(hook, 0o755)
    await within(() => factory.hasHook('PreToolUse'), 'chmod +x')
    expect((await (await factory.create('PreToolUse')).run({})).contextModification).toBe('new hook')
  })
})

describe('hook files changed while a run is in flight', () => {
  test('a hook deleting, editing and adding hook files cannot break the run: it runs the list discovered at its start', async () => {
    const tmp = makeTempDir()
    const canary = path.join(tmp, 'added-hook-ran')
    const ws = makeWorkspace('ws')
    const [d0, d1, d2] = ['d0', 'd1', 'd2'].map((d) => path.join(tmp, d))
    // The files the mutator writes: hooks in this platform's form, made beside and read back.
    const staged = (name, source) => fs.readFileSync(writeProgram(path.join(tmp, 'staging', name), 'TaskStart', source), 'utf8')
    const editedText = staged('edited', printJson({ contextModification: 'edited' }))
    const addedText = staged('added', touch(canary))
    const victim = path.join(d1, programHookName('TaskStart'))
    const edited = path.join(d2, programHookName('TaskStart'))
    const added = path.join(hooksDirOf(ws), programHookName('TaskStart'))
    const mutator = writeProgram(
      d0,
      'TaskStart',
      `const fs = require('fs')
fs.unlinkSync(${JSON.stringify(victim)})
fs.writeFileSync(${JSON.stringify(edited + '.tmp')}, ${JSON.stringify(editedText)}, { mode: 0o755 })
fs.renameSync(${JSON.stringify(edited + '.tmp')}, ${JSON.stringify(edited)})
fs.mkdirSync(${JSON.stringify(hooksDirOf(ws))}, { recursive: true })
fs.writeFileSync(${JSON.stringify(added)}, ${JSON.stringify(addedText)}, { mode: 0o755 })
${printJson({ contextModification: 'mutator' })}`,
    )
    writeProgram(d1, 'TaskStart', printJson({ contextModification: 'victim' }))
    writeProgram(d2, 'TaskStart', printJson({ contextModification: 'original' }))
    const factory = new HookFactory(opts({ extraHooksDirs: [d0, d1, d2], workspaceRoots: [ws] }))
    const runner = await factory.create('TaskStart')
    const listed = runner.hooks.map((h) => h.path)
    expect(listed).toEqual([mutator, victim, edited])

    const result = await runner.run({}, { sequential: true })
    expect(result.hooks.map((h) => h.path)).toEqual(listed)
    const [m, v, e] = result.hooks
    expectCompleted(m)
    expect(v.status).toBe('failed') // deleted before it could start
    expect(v.failure).toEqual(expect.any(String))
    expectCompleted(e)
    expect(['edited', 'original']).toContain(e.contextModification)
    expect(fs.existsSync(canary)).toBe(false) // the hook added mid-run did not join it
    expect(runner.hooks.map((h) => h.path)).toEqual(listed)

    // The next runner sees the new state.
    await waitFor(async () => (await factory.create('TaskStart')).hooks.some((h) => h.path === added), {
      timeoutMs: FRESHNESS_MS,
      what: 'the added hook',
    })
  })

  test('hooks running together while one of them deletes the others still give one result per discovered hook', async () => {
    const tmp = makeTempDir()
    const dirs = ['d0', 'd1', 'd2', 'd3'].map((d) => path.join(tmp, d))
    const others = dirs.slice(1).map((d) => path.join(d, programHookName('TaskStart')))
    // Like `rm -f`: a file already gone (or, on Windows, still open) is passed over.
    writeProgram(
      dirs[0],
      'TaskStart',
      `const fs = require('fs')
for (const file of ${JSON.stringify(others)}) { try { fs.unlinkSync(file) } catch {} }
try { fs.rmdirSync(${JSON.stringify(dirs[3])}) } catch {}
fs.mkdirSync(${JSON.stringify(dirs[3])}, { recursive: true })
${printJson({ cancel: true })}`,
    )
    for (const dir of dirs.slice(1)) writeProgram(dir, 'TaskStart', printJson({ contextModification: dir }))
    const factory = new HookFactory(opts({ extraHooksDirs: dirs }))
    const runner = await factory.create('TaskStart')
    const result = await runner.run({})
    expect(result.hooks.map((h) => h.path)).toEqual(runner.hooks.map((h) => h.path))
    expect(result.hooks).toHaveLength(4)
    for (const h of result.hooks) {
      expect(['completed', 'failed']).toContain(h.status)
      if (h.status === 'failed') expect(h.failure).toEqual(expect.any(String))
    }
    expectCompleted(result.hooks[0])
    expect(result.cancel).toBe(true)
  })
})

// Issue 18 item 8: a child process deletes and recreates a hook file as fast as it can while
// two factories scan the folder and run the hook. Every message either factory gives must be
// true of what happened: the hook is always a complete, executable #!/bin/sh script when it
// is there at all, so it may be missing (not listed, or not there when started) and nothing
// else. Before, a hook deleted between the listing and its stat was called "a symbolic link
// to a file that does not exist", and one deleted at its start and recreated before the
// explanation "its #! line names /bin/sh, which does not exist".
describeUnix('messages while hook files are deleted and recreated (churn)', () => {
  test('no message claims something false, whatever the timing', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const BODY = `#!/bin/sh\nprintf '%s\\n' '{"contextModification":"ran"}'\n`
    const hook = writeFile(dir, 'TaskStart', BODY, 0o755)
    const started = path.join(tmp, 'churn-started')
    const CYCLES = 10000
    // Each cycle: delete the hook, write the new one under another name, rename it into place.
    const churn = `
      const fs = require('fs')
      const [hook, started, body, cycles] = process.argv.slice(1)
      fs.writeFileSync(started, 'yes')
      for (let i = 0; i < Number(cycles); i++) {
        fs.unlinkSync(hook)
        fs.writeFileSync(hook + '.tmp', body, { mode: 0o755 })
        fs.renameSync(hook + '.tmp', hook)
      }`
    const child = spawn(process.execPath, ['-e', churn, hook, started, BODY, String(CYCLES)], { stdio: 'ignore' })
    trackPid(child.pid)
    let churning = true
    const ended = new Promise((resolve) => child.on('exit', (code) => resolve(code))).finally(() => (churning = false))
    await waitFor(() => fs.existsSync(started), { what: 'the churn to start' })

    const TRUE_FAILURES = [
      // ENOENT at the start with the hook and /bin/sh both there now: either was missing then.
      new RegExp(`^could not start: the system reported 'not found' for ${hook} or for a program it names \\(its #! program /bin/sh exists; if /bin/sh is itself a script, check its own #! line\\)$`),
      // Deleted after the kernel started /bin/sh, before /bin/sh opened it.
      /^exited with code (2|127) \(stderr: .*(No such file|cannot open|can't open).*\)$/,
      new RegExp(`^could not start: ${hook} no longer exists \\(it was deleted or renamed after discovery(; its #! program /bin/sh exists)?\\)$`),
    ]
    const TRUE_REASONS = [/^it was replaced again and again while it was being inspected/]
    const seen = { listed: 0, gone: 0, completed: 0, failed: 0 }
    const wrong = []
    const check = (what, message, allowed) => {
      if (!allowed.some((re) => re.test(message))) wrong.push(`${what}: ${message}`)
    }

    // Each loop goes on while the churn lasts (bounded, should the child hang).
    let iterations = 0
    const factoryLoop = async () => {
      for (let i = 0; churning && i < 5000; i++) {
        iterations++
        // A new factory scans afresh every time: as many listings as possible meet the churn.
        const runner = await new HookFactory(opts({ extraHooksDirs: [dir] })).create('TaskStart')
        if (runner.hooks.length === 0) seen.gone++
        for (const h of runner.hooks) {
          seen.listed++
          if (h.reason !== undefined) check('listed', h.reason, TRUE_REASONS)
        }
        const result = await runner.run({})
        for (const w of result.warnings) check('warning', w, [])
        for (const h of result.hooks) {
          seen[h.status === 'completed' ? 'completed' : 'failed']++
          if (h.status === 'completed') expect(h.contextModification).toBe('ran')
          else check(`run (${h.status})`, h.failure, TRUE_FAILURES)
          for (const w of h.warnings) check('hook warning', w, [])
        }
      }
    }
    await Promise.all([factoryLoop(), factoryLoop()])
    expect(await ended).toBe(0) // all CYCLES done, none failed
    expect(iterations).toBeGreaterThan(50) // the factories met the churn many times
    expect(seen.listed + seen.gone).toBe(iterations)
    expect(wrong).toEqual([])
  }, 120000)
}, { reason: 'the true messages it allows name the #! program /bin/sh, and it unlinks the hook while it runs, as POSIX allows' })
