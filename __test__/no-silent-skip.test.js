// No guard is skipped silently (issue 33). Each mistake a new user can make with a hook file is
// set up in a real workspace, then asked of every surface: runHook (its `warnings` and
// `notRun`), diagnoseHooks, and the CLI's `list`, `run` (with --strict) and `doctor`. They must
// agree: the same file, the same problem, reason and fix, and a file the doctor says will not run
// is never listed enabled or run. Then `requireHooks` (and `run --require`) in every branch,
// `run --strict`'s exit statuses, header mistakes, and `enable` on a file that would not run.
const { spawnSync } = require('child_process')
const fs = require('fs')
const path = require('path')
const { addon, isWindows, testIf, makeTempDir, writeFile, cliEnv, echoJson, waitFor, nodeSync } = require('./helpers')

const { runHook, diagnoseHooks, discoverHooks, HookFactory } = addon
// (setHookEnabled and trustHook are called as addon.*.)
const CLI = path.join(__dirname, '..', 'bin', 'cline-hooks.js')

function cli(args, { cwd, input = '{}' }) {
  const r = nodeSync([CLI, ...args], { cwd, input, encoding: 'utf8', timeout: 60000, env: cliEnv({ NO_COLOR: '1' }) })
  if (r.error) throw r.error
  return r
}

/** A blocking hook's text for this platform: a `.cmd` on Windows, a shell script elsewhere. */
const BLOCK = isWindows ? '@echo {"cancel": true, "errorMessage": "blocked"}\r\n' : `#!/bin/sh\n${echoJson({ cancel: true, errorMessage: 'blocked' })}\n`
const ALLOW = isWindows ? '@echo {}\r\n' : '#!/bin/sh\necho {}\n'

/** A fresh workspace, its hooks folder and a policy store outside it. */
function workspace() {
  const tmp = makeTempDir('cline-hooks-skip-')
  const ws = path.join(tmp, 'ws')
  const hooks = path.join(ws, '.clinerules', 'hooks')
  fs.mkdirSync(hooks, { recursive: true })
  return { tmp, ws, hooks, policyFile: path.join(tmp, 'policy.json') }
}

/**
 * The mistakes, each a file meant for PreToolUse that will not run, with the problem every
 * surface must name. `setup` writes it (and may return run options, such as a trust scope).
 */
const MISTAKES = [
  { name: 'a near-miss name', file: isWindows ? 'PreTolUse.ps1' : 'PreTolUse', problem: 'unknownHookName' },
  { name: 'another extension', file: 'PreToolUse.py', problem: 'wrongPlatformName' },
  ...(isWindows
    ? [
        { name: 'no extension on Windows', file: 'PreToolUse', problem: 'wrongPlatformName' },
        {
          // Windows runs one file per hook per folder, a .ps1 first.
          name: 'a second file of the hook, passed over',
          file: 'PreToolUse.cmd',
          problem: 'shadowed',
          also: (hooks) => writeFile(hooks, 'PreToolUse.ps1', "Write-Output '{}'\r\n"),
        },
      ]
    : [
        { name: 'another letter case', file: 'PreTooluse', problem: 'unknownHookName' },
        { name: 'no exec bit', file: 'PreToolUse', problem: 'notExecutable', mode: 0o644 },
        { name: 'a CRLF #! line', file: 'PreToolUse', problem: 'windowsLineEndings', text: '#!/bin/sh\r\necho {}\r\n' },
      ]),
  {
    name: 'not trusted (new)',
    file: isWindows ? 'PreToolUse.cmd' : 'PreToolUse',
    problem: 'notTrusted',
    trust: true,
  },
  {
    name: 'disabled by the user',
    file: isWindows ? 'PreToolUse.cmd' : 'PreToolUse',
    problem: 'disabledByUser',
    disable: true,
  },
]

describe('every surface names a file meant for the hook that will not run, with the same problem', () => {
  for (const m of MISTAKES) {
    test(m.name, async () => {
      const { ws, hooks, policyFile } = workspace()
      const file = writeFile(hooks, m.file, m.text || BLOCK, m.mode ?? 0o755)
      if (m.also) m.also(hooks)
      if (m.disable) expect(cli(['disable', file, '--policy-file', policyFile], { cwd: ws }).status).toBe(0)
      const trust = m.trust ? 'workspace' : 'off'
      const options = { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, policyFile, trust }
      const flags = ['--workspace', ws, '--no-global', '--policy-file', policyFile, '--trust', trust]

      // runHook: nothing of it runs, and the result says which file and why.
      const result = await runHook('PreToolUse', { preToolUse: { tool: 'write_to_file' } }, options)
      expect(result.cancel).toBe(false)
      // A hook that cannot start (Windows line endings) is reported failed, never started.
      expect(result.hooks.filter((h) => h.path === file && (h.started || h.status !== 'failed'))).toEqual([])
      const notRun = result.notRun.find((r) => r.path === file)
      expect(notRun).toEqual(expect.objectContaining({ path: file, hookName: 'PreToolUse', willRun: false, problem: m.problem }))
      expect(result.warnings.some((w) => w.includes(file))).toBe(true)

      // diagnoseHooks: the same report, word for word.
      const diagnosis = await diagnoseHooks(options)
      expect(diagnosis.hooks.find((r) => r.path === file)).toEqual(notRun)

      // discoverHooks never lists it enabled.
      const found = await discoverHooks('PreToolUse', options)
      expect(found.filter((h) => h.path === file && h.enabled)).toEqual([])

      // list: under PreToolUse, not enabled, with the reason.
      const list = cli(['list', 'PreToolUse', ...flags], { cwd: ws })
      expect(list.status).toBe(0)
      const row = list.stdout.split('\n').findIndex((l) => l.includes(path.basename(file)) && l.startsWith('PreToolUse'))
      expect(row).toBeGreaterThanOrEqual(0)
      expect(list.stdout.split('\n')[row]).not.toMatch(/ enabled /)
      expect(list.stdout).toContain(`not run: ${notRun.reason.split('\n')[0].slice(0, 40)}`)

      // run: allowed (exit 0) with a warning naming the file; --strict exits 3.
      const run = cli(['run', 'PreToolUse', ...flags], { cwd: ws })
      expect(run.status).toBe(0)
      expect(run.stdout).toContain('warning:')
      expect(run.stdout).toContain(path.basename(file))
      expect(cli(['run', 'PreToolUse', ...flags, '--strict'], { cwd: ws }).status).toBe(3)

      // doctor: exit 1, the same problem.
      const doctor = cli(['doctor', ...flags], { cwd: ws })
      expect(doctor.status).toBe(1)
      expect(doctor.stdout).toContain(`problem ${m.problem}: `)
    }, 60000)
  }

  test('a workspace where no file looks meant for the hook adds nothing to its run', async () => {
    const { ws, hooks } = workspace()
    writeFile(hooks, 'notes.md', 'notes\n')
    writeFile(hooks, 'helper.sh', ALLOW, 0o755)
    writeFile(hooks, 'PreToolUse.md', 'about the guard\n')
    const result = await runHook('PreToolUse', {}, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })
    expect(result).toEqual(expect.objectContaining({ cancel: false, hooks: [], warnings: [], notRun: [] }))
  })

  test('two misnamed files are never both advised onto one name: the run and the doctor give the same fixes', async () => {
    const { ws, hooks } = workspace()
    const names = isWindows ? ['PreTolUse.ps1', 'PreToolUse.py', 'PreToolUse'] : ['PreTolUse', 'PreToolUse.py', 'PreTooluse']
    for (const name of names) writeFile(hooks, name, BLOCK, 0o755)
    const options = { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null }
    const result = await runHook('PreToolUse', {}, options)
    const diagnosis = await diagnoseHooks(options)
    const fixes = (reports) => Object.fromEntries(reports.filter((r) => names.includes(path.basename(r.path))).map((r) => [path.basename(r.path), r.fix]))
    expect(fixes(result.notRun)).toEqual(fixes(diagnosis.hooks))
    const renames = Object.values(fixes(result.notRun)).filter((fix) => /^(mv |Rename-Item )/.test(fix))
    expect(renames).toHaveLength(1)
    // A file whose stem is the hook's name keeps the rename (the first by name), not the misspelt one.
    expect(renames[0]).toContain(isWindows ? `'${path.join(hooks, 'PreToolUse')}'` : 'PreToolUse.py')
  })
})

describe('header mistakes are named in the run', () => {
  const headerHook = (header) => (isWindows ? `@REM cline-hook: ${header}\r\n@echo {}\r\n` : `#!/bin/sh\n# cline-hook: ${header}\necho {}\n`)
  const file = isWindows ? 'PreToolUse.cmd' : 'PreToolUse'

  test('an unknown key, and a tools= entry that only looks like a tool', async () => {
    const { ws, hooks } = workspace()
    writeFile(hooks, file, headerHook('tool=write_to_file tools=Write_To_File'), 0o755)
    const result = await runHook('PreToolUse', { preToolUse: { tool: 'write_to_file' } }, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })
    const said = result.warnings.join('\n')
    expect(said).toContain('unknown key `tool`')
    expect(said).toContain('`Write_To_File` matches no tool exactly but looks like write_to_file')
    // The look-alike skips the hook for write_to_file: said, not silent.
    expect(result.hooks[0]).toEqual(expect.objectContaining({ status: 'skipped' }))
  })

  test('a cline-hook: line past line 20 is named, and its onFailure=block is not applied', async () => {
    const { ws, hooks } = workspace()
    const filler = isWindows ? '@REM filler\r\n'.repeat(21) : '# filler\n'.repeat(21)
    const body = isWindows ? `${filler}@REM cline-hook: onFailure=block\r\n@exit /b 3\r\n` : `#!/bin/sh\n${filler}# cline-hook: onFailure=block\nexit 3\n`
    writeFile(hooks, file, body, 0o755)
    const result = await runHook('PreToolUse', {}, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })
    expect(result.cancel).toBe(false)
    expect(result.warnings.join('\n')).toMatch(/line 2[23] is a cline-hook: header, but a header is read from the first 20 lines only/)
  })

  test('a UTF-16 header (what Windows PowerShell 5.1 saves by default) is read, not silently dropped', async () => {
    const { ws, hooks } = workspace()
    const text = '# cline-hook: onFailure=block tools=write_to_file\r\nWrite-Output "{}"\r\n'
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    writeFile(hooks, 'PreToolUse.ps1', utf16, 0o755)
    // The extension profile runs .ps1 hooks on Windows; the cli profile, everywhere.
    const profile = isWindows ? 'extension' : 'cli'
    const [hook] = await discoverHooks('PreToolUse', { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, profile })
    expect(hook.warnings).toEqual([])
    expect(hook.settings).toEqual(expect.objectContaining({ onFailure: 'block', tools: ['write_to_file'] }))
  })
})

describe('requireHooks', () => {
  const input = { preToolUse: { tool: 'write_to_file' } }

  test('none exists: the run is cancelled, and says the hook and why', async () => {
    const { ws } = workspace()
    const result = await runHook('PreToolUse', input, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, requireHooks: ['PreToolUse'] })
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('the PreToolUse hook is required here (requireHooks) and none ran, so this is blocked: no file of it was found in the hooks folders searched')
    // A hook that is not listed is not required.
    const other = await runHook('PostToolUse', input, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, requireHooks: ['PreToolUse'] })
    expect(other.cancel).toBe(false)
  })

  test('misnamed, disabled, untrusted: cancelled, naming the file and why', async () => {
    const { ws, hooks, policyFile } = workspace()
    const base = { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, requireHooks: ['PreToolUse'] }
    writeFile(hooks, 'PreToolUse.py', BLOCK, 0o755)
    let result = await runHook('PreToolUse', input, base)
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toContain(`${path.join(hooks, 'PreToolUse.py')} will not run: `)

    const file = writeFile(hooks, isWindows ? 'PreToolUse.cmd' : 'PreToolUse', ALLOW, 0o755)
    result = await runHook('PreToolUse', input, { ...base, policyFile, trust: 'workspace' })
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toContain(`${file} is not run: not trusted: new`)

    expect(cli(['disable', file, '--policy-file', policyFile], { cwd: ws }).status).toBe(0)
    result = await runHook('PreToolUse', input, { ...base, policyFile })
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toContain(`${file} is not run: `)

    // Enabled again (by another process: seen at the next revalidation), it runs, and the
    // requirement is met.
    expect(cli(['enable', file, '--policy-file', policyFile], { cwd: ws }).status).toBe(0)
    await waitFor(async () => (await runHook('PreToolUse', input, { ...base, policyFile })).hooks.length === 1, { what: 'the enabled hook to run' })
    result = await runHook('PreToolUse', input, { ...base, policyFile })
    expect(result).toEqual(expect.objectContaining({ cancel: false, errorMessage: '' }))
  })

  test('a hook skipped by its tools= line counts as present; a CLI event name is required as its hook', async () => {
    const { ws, hooks } = workspace()
    const text = isWindows ? '@REM cline-hook: tools=execute_command\r\n@echo {}\r\n' : '#!/bin/sh\n# cline-hook: tools=execute_command\necho {}\n'
    writeFile(hooks, isWindows ? 'PreToolUse.cmd' : 'PreToolUse', text, 0o755)
    const result = await runHook('PreToolUse', input, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, requireHooks: ['tool_call'] })
    expect(result.hooks.map((h) => h.status)).toEqual(['skipped'])
    expect(result.cancel).toBe(false)
  })

  testIf(!isWindows, 'a #! line naming no program: it could not start, and the run says so', 'a hook that cannot start: cancelled with its start failure', async () => {
    const { ws, hooks } = workspace()
    writeFile(hooks, 'PreToolUse', '#!/no/such/interpreter\necho {}\n', 0o755)
    const result = await runHook('PreToolUse', input, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, requireHooks: ['PreToolUse'] })
    expect(result.hooks.map((h) => [h.status, h.started])).toEqual([['failed', false]])
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toContain(`${path.join(hooks, 'PreToolUse')} could not start: `)
  })

  test('a HookFactory takes it, on the fast path of a cached snapshot too; a bad name is refused', async () => {
    const { ws } = workspace()
    const factory = new HookFactory({ workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, requireHooks: ['PreToolUse'] })
    for (let i = 0; i < 3; i++) {
      const runner = await factory.create('PreToolUse')
      const result = await runner.run(input)
      expect(result.cancel).toBe(true)
    }
    for (let i = 0; i < 3; i++) {
      const result = await runHook('PreToolUse', input, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, requireHooks: ['PreToolUse'] })
      expect(result.cancel).toBe(true)
    }
    await expect(runHook('PreToolUse', input, { requireHooks: ['Pre Tool'] })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION', message: expect.stringContaining('requireHooks[0]') })
    await expect(runHook('PreToolUse', input, { requireHooks: 'PreToolUse' })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' })
  })

  test('run --require: exit 1 with the sentence; a hook that runs: exit 0', () => {
    const { ws, hooks } = workspace()
    const flags = ['--workspace', ws, '--no-global']
    const missing = cli(['run', 'PreToolUse', ...flags, '--require'], { cwd: ws })
    expect(missing.status).toBe(1)
    expect(missing.stdout).toContain('blocked: the PreToolUse hook is required here (requireHooks) and none ran')
    writeFile(hooks, isWindows ? 'PreToolUse.cmd' : 'PreToolUse', ALLOW, 0o755)
    expect(cli(['run', 'PreToolUse', ...flags, '--require'], { cwd: ws }).status).toBe(0)
  })
})

describe('run --strict', () => {
  test('0 when every hook completed and every file runs; 3 for a failure, a timeout, a file that will not run; 1 still wins', () => {
    const { ws, hooks } = workspace()
    const flags = ['--workspace', ws, '--no-global']
    const file = isWindows ? 'PreToolUse.cmd' : 'PreToolUse'
    writeFile(hooks, file, ALLOW, 0o755)
    expect(cli(['run', 'PreToolUse', ...flags, '--strict'], { cwd: ws }).status).toBe(0)
    writeFile(hooks, file, isWindows ? '@exit /b 3\r\n' : '#!/bin/sh\nexit 3\n', 0o755)
    expect(cli(['run', 'PreToolUse', ...flags], { cwd: ws }).status).toBe(0)
    expect(cli(['run', 'PreToolUse', ...flags, '--strict'], { cwd: ws }).status).toBe(3)
    writeFile(hooks, file, isWindows ? '@node -e "setTimeout(() => {}, 30000)"\r\n' : '#!/bin/sh\nsleep 30\n', 0o755)
    expect(cli(['run', 'PreToolUse', ...flags, '--strict', '--timeout-ms', '300'], { cwd: ws }).status).toBe(3)
    writeFile(hooks, file, BLOCK, 0o755)
    writeFile(hooks, 'PreToolUse.py', BLOCK, 0o755)
    expect(cli(['run', 'PreToolUse', ...flags, '--strict'], { cwd: ws }).status).toBe(1)
    const help = cli(['--help'], { cwd: ws }).stdout
    expect(help).toContain('--strict')
    expect(help).toMatch(/\n\s+3 {2}run --strict: /)
  }, 90000)
})

describe('enable on a file that will not run', () => {
  test('says why with the fix and exits 1, recording nothing', () => {
    const { ws, hooks, policyFile } = workspace()
    // A Node hook: the extension profile never runs it, the cli profile runs it with node.
    const file = writeFile(hooks, 'PreToolUse.js', "console.log('{}')\n", 0o755)
    const r = cli(['enable', file, '--policy-file', policyFile], { cwd: ws })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('not enabled: ')
    expect(r.stderr).toContain('will not run even if enabled: ')
    expect(fs.existsSync(policyFile)).toBe(false)
    // The cli profile runs PreToolUse.js: there it is enabled.
    expect(cli(['enable', file, '--policy-file', policyFile, '--profile', 'cli'], { cwd: ws }).status).toBe(0)
  })
})

// What the attack on this issue found, each now a test.
describe('attack on issue 33', () => {
  const { createFileHooks } = require('../sdk')
  const toolContext = {
    snapshot: { conversationId: 'conv-1', runId: 'run-1', agentId: 'agent-1', parentAgentId: null, iteration: 1 },
    toolCall: { toolCallId: 'call-1', toolName: 'run_commands' },
    input: { commands: ['ls'] },
  }
  const sdkHooks = (ws, extra = {}) =>
    createFileHooks({ workspacePath: ws, globalHooksDir: null, managedHooksDir: null, clineDir: path.join(makeTempDir(), 'no-cline-dir'), extraHooksDirs: [], ...extra })

  test('the SDK adapter blocks a required hook with no file, or only a misnamed one, and warns of the misnamed one once', async () => {
    const { ws, hooks } = workspace()
    const logged = []
    const logger = { log: (message, meta) => logged.push([message, meta && meta.severity]) }
    const stop = await sdkHooks(ws, { requireHooks: ['tool_call'], logger }).beforeTool(toolContext)
    expect(stop).toEqual({ stop: true, reason: expect.stringContaining('the PreToolUse hook is required here (requireHooks) and none ran') })
    writeFile(hooks, 'PreTolUse.sh', BLOCK, 0o755)
    const adapter = sdkHooks(ws, { requireHooks: ['tool_call'], logger })
    for (let i = 0; i < 3; i++) {
      expect(await adapter.beforeTool(toolContext)).toEqual({ stop: true, reason: expect.stringContaining('PreTolUse.sh will not run: ') })
    }
    expect(logged.filter(([m, severity]) => severity === 'warn' && m.includes('PreTolUse.sh will not run: '))).toHaveLength(1)
    // Not required: a misnamed file alone lets the tool run, and is said.
    expect(await sdkHooks(ws).beforeTool(toolContext)).toBeUndefined()
  })

  testIf(!isWindows, 'Windows line endings are a Unix mistake', 'enable refuses a disabled file whose #! line has Windows line endings: the store is left as it was', () => {
    const { ws, hooks, policyFile } = workspace()
    const file = writeFile(hooks, 'PreToolUse', '#!/bin/sh\r\necho {}\r\n', 0o755)
    expect(cli(['disable', file, '--policy-file', policyFile], { cwd: ws }).status).toBe(0)
    const before = fs.readFileSync(policyFile, 'utf8')
    const r = cli(['enable', file, '--policy-file', policyFile], { cwd: ws })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('carriage return')
    expect(fs.readFileSync(policyFile, 'utf8')).toBe(before)
  })

  testIf(!isWindows, 'FIFOs are a Unix thing', 'a FIFO named like a hook is refused at once by setHookEnabled and trustHook, not waited on', async () => {
    const { ws, hooks, policyFile } = workspace()
    const fifo = path.join(hooks, 'PreToolUse')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    await expect(addon.setHookEnabled(fifo, false, { policyFile })).rejects.toMatchObject({ code: 'ERR_NOT_A_HOOK', message: expect.stringContaining('not a regular file') })
    await expect(addon.trustHook(fifo, { policyFile })).rejects.toMatchObject({ code: 'ERR_NOT_A_HOOK' })
    expect(cli(['disable', fifo, '--policy-file', policyFile], { cwd: ws }).status).toBe(2)
  })

  test('a required name one slip from a hook Cline fires is refused; in the cli profile the requirement ignores case, as its files do', async () => {
    await expect(runHook('PreToolUse', {}, { requireHooks: ['PreTooluse'] })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      message: expect.stringContaining('requireHooks[0]: "PreTooluse" is not a hook Cline fires; did you mean PreToolUse?'),
    })
    const { ws } = workspace()
    const cli = { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null, clineDir: path.join(ws, 'no-cline-dir'), profile: 'cli', requireHooks: ['PreToolUse'] }
    expect((await runHook('PreTooluse', {}, cli)).cancel).toBe(true)
  })

  test('a folder of more look-alikes than a run lists says how many it left out', async () => {
    const { ws, hooks } = workspace()
    for (let i = 0; i < 20; i++) writeFile(hooks, `PreToolUse.${i}.py`, BLOCK, 0o755)
    const result = await runHook('PreToolUse', {}, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })
    expect(result.notRun).toHaveLength(16)
    expect(result.warnings).toContain(`4 more files in ${hooks} look meant for PreToolUse and will not run; cline-hooks doctor lists them all`)
    expect((await diagnoseHooks({ workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })).mistakes).toBe(20)
  })

  test('a tools= entry that only looks like a tool is not said to skip a tool another entry names', async () => {
    const { ws, hooks } = workspace()
    const text = isWindows ? '@REM cline-hook: tools=write_to_file,Write_To_File\r\n@echo {}\r\n' : '#!/bin/sh\n# cline-hook: tools=write_to_file,Write_To_File\necho {}\n'
    writeFile(hooks, isWindows ? 'PreToolUse.cmd' : 'PreToolUse', text, 0o755)
    const result = await runHook('PreToolUse', { preToolUse: { tool: 'write_to_file' } }, { workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })
    expect(result.warnings).toEqual([])
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
  })
})
