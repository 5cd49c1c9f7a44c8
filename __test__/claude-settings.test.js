'use strict'

// Issue 36: Claude Code's hook settings run unchanged (`claudeSettings`, `--claude-settings`).
// Real Claude-format hooks (__test__/fixtures/claude-hooks, written from their documented
// behaviour) are run from real .claude/settings.json files through runHook and the CLI, and each
// gives Claude Code's documented outcome; the three loud cases of the issue (a hook that hangs
// holding stdout, one that never reads stdin, a script path that is wrong); trust of a handler.
// Unix: the handlers run in /bin/sh (on Windows in Git Bash, which the Windows lane has not: its
// case checks the loud refusal instead).

const fs = require('fs')
const path = require('path')
const { execFile } = require('child_process')

const {
  addon,
  isWindows,
  describeUnix,
  testIf,
  makeTempDir,
  makeWorkspace,
  hooksDirOf,
  writeHook,
  waitForPid,
  waitDead,
  isAlive,
  expectCompleted,
  cliEnv,
  opts,
  nodeSync,
  waitForFile,
} = require('./helpers')

const { discoverHooks, runHook, trustHook, HookFactory, terminateAll } = addon

jest.setTimeout(60000)

const FIXTURES = path.join(__dirname, 'fixtures', 'claude-hooks')
const CLI = path.join(__dirname, '..', 'bin', 'cline-hooks.js')

/** A workspace whose .claude holds the fixture hooks and a settings file with `hooks`. */
function claudeWorkspace(hooks, { file = 'settings.json', raw = null } = {}) {
  const root = makeWorkspace()
  const dir = path.join(root, '.claude')
  fs.mkdirSync(path.join(dir, 'hooks'), { recursive: true })
  for (const name of fs.readdirSync(FIXTURES)) {
    fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, 'hooks', name))
    fs.chmodSync(path.join(dir, 'hooks', name), 0o755)
  }
  fs.writeFileSync(path.join(dir, file), raw === null ? JSON.stringify({ hooks }, null, 2) : raw)
  return root
}

const cmd = (command, extra = {}) => ({ type: 'command', command, ...extra })
const withClaude = (root, extra = {}) => opts({ workspaceRoots: [root], claudeSettings: true, policyFile: null, ...extra })
const bash = (command) => ({ preToolUse: { toolName: 'execute_command', parameters: { command } } })
const write = (file, content = 'x') => ({ preToolUse: { toolName: 'write_to_file', parameters: { path: file, content } } })

/** Runs the CLI; resolves { code, stdout, stderr }. */
function cli(args, { cwd, env = {} } = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env: cliEnv(env), timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr })
    })
  })
}

describeUnix('Claude Code settings hooks', () => {
  test('off by default: a .claude/settings.json is not read unless claudeSettings is set', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('exit 2')] }] })
    expect(await discoverHooks('PreToolUse', opts({ workspaceRoots: [root], policyFile: null }))).toEqual([])
    const hooks = await discoverHooks('PreToolUse', withClaude(root))
    expect(hooks).toHaveLength(1)
    expect(hooks[0]).toMatchObject({
      path: path.join(root, '.claude', 'settings.json') + '#hooks.PreToolUse[0].hooks[0]',
      source: 'claudeProject',
      enabled: true,
      command: ['/bin/sh', '-c', 'exit 2'],
      claude: { event: 'PreToolUse', command: 'exit 2', file: path.join(root, '.claude', 'settings.json'), position: 'hooks.PreToolUse[0].hooks[0]' },
    })
    expect(hooks[0].claude.matcher).toBeUndefined()
  })

  test("the published Bash command validator blocks grep with its stderr as the reason (exit 2), lets rg through, and is skipped for other tools", async () => {
    const root = claudeWorkspace({
      PreToolUse: [{ matcher: 'Bash', hooks: [cmd('python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/bash_command_validator.py')] }],
    })
    const blocked = await runHook('PreToolUse', bash('grep -r TODO src'), withClaude(root))
    expect(blocked.cancel).toBe(true)
    expect(blocked.errorMessage).toContain("Use 'rg' (ripgrep) instead of 'grep'")
    expect(blocked.hooks[0]).toMatchObject({ status: 'completed', exitCode: 2, cancel: true })

    const allowed = await runHook('PreToolUse', bash('rg TODO src'), withClaude(root))
    expect(allowed.cancel).toBe(false)
    // The example exits 1 for a call it does not check: a non-blocking error, as in Claude Code.
    expect(allowed.hooks[0].status).toBe('completed')

    const other = await runHook('PreToolUse', write('a.txt'), withClaude(root))
    expect(other.cancel).toBe(false)
    expect(other.hooks[0]).toMatchObject({ status: 'skipped', started: false })
    expect(other.hooks[0].skipReason).toMatch(/matcher "Bash" does not match Write/)
  })

  test('a JSON permissionDecision "deny" guard blocks a Write of .env with its reason; other files go ahead', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ matcher: 'Write|Edit', hooks: [cmd('node .claude/hooks/protect_files.js')] }] })
    const denied = await runHook('PreToolUse', write('.env'), withClaude(root))
    expect(denied.cancel).toBe(true)
    expect(denied.errorMessage).toBe(`${path.join(root, '.env')} is protected: edit it by hand`)
    expectCompleted(denied.hooks[0])
    const fine = await runHook('PreToolUse', write('src/a.ts'), withClaude(root))
    expect(fine.cancel).toBe(false)
    expectCompleted(fine.hooks[0])
  })

  test('a PostToolUse formatter formats the written file in place and changes no verdict', async () => {
    const root = claudeWorkspace({ PostToolUse: [{ matcher: 'Write|Edit', hooks: [cmd('.claude/hooks/format_after_edit.sh')] }] })
    const file = path.join(root, 'src.txt')
    fs.writeFileSync(file, 'a   \nb\t\n')
    const r = await runHook(
      'PostToolUse',
      { postToolUse: { toolName: 'write_to_file', parameters: { path: 'src.txt', content: 'a   \nb\t\n' }, result: 'ok', success: true, executionTimeMs: 3 } },
      withClaude(root),
    )
    expectCompleted(r.hooks[0])
    expect(r.cancel).toBe(false)
    expect(fs.readFileSync(file, 'utf8')).toBe('a\nb\n')
  })

  test('a UserPromptSubmit hook adds its plain stdout as context', async () => {
    const root = claudeWorkspace({ UserPromptSubmit: [{ hooks: [cmd('.claude/hooks/prompt_context.sh')] }] })
    const r = await runHook('UserPromptSubmit', { userPromptSubmit: { prompt: 'fix the bug' } }, withClaude(root))
    expectCompleted(r.hooks[0])
    expect(r.cancel).toBe(false)
    expect(r.contextModification).toBe('Project conventions: tabs, no semicolons.')
  })

  test('a SessionStart hook (matcher "startup") gives its additionalContext on TaskStart and is skipped on TaskResume', async () => {
    const root = claudeWorkspace({ SessionStart: [{ matcher: 'startup', hooks: [cmd('node .claude/hooks/session_context.js')] }] })
    const start = await runHook('TaskStart', { taskId: 't-42', taskStart: { taskMetadata: { taskId: 't-42' } } }, withClaude(root))
    expectCompleted(start.hooks[0])
    expect(start.contextModification).toBe(`Session t-42 started (startup) in ${root}`)
    const resume = await runHook('TaskResume', { taskId: 't-42', taskResume: {} }, withClaude(root))
    expect(resume.hooks[0]).toMatchObject({ status: 'skipped' })
    expect(resume.contextModification).toBe('')
  })

  test("the hook reads Claude's input on stdin and CLAUDE_PROJECT_DIR in its environment, running in the project", async () => {
    const root = claudeWorkspace({
      PreToolUse: [{ matcher: '*', hooks: [cmd('cat > "$CLAUDE_PROJECT_DIR/stdin.json"; pwd > "$CLAUDE_PROJECT_DIR/cwd.txt"')] }],
    })
    const r = await runHook('PreToolUse', { taskId: 'task-1', ...write('src/x.ts', 'hello') }, withClaude(root))
    expectCompleted(r.hooks[0])
    const input = JSON.parse(fs.readFileSync(path.join(root, 'stdin.json'), 'utf8'))
    expect(input).toMatchObject({
      session_id: 'task-1',
      cwd: root,
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: path.join(root, 'src', 'x.ts'), content: 'hello' },
    })
    expect(input).not.toHaveProperty('transcript_path')
    expect(fs.readFileSync(path.join(root, 'cwd.txt'), 'utf8').trim()).toBe(root)
  })

  test('a printed block is kept when the hook then crashes, times out or is stopped by terminateAll()', async () => {
    const deny = JSON.stringify({ decision: 'block', reason: 'not today' })
    const root = claudeWorkspace({
      PreToolUse: [
        { matcher: 'Bash', hooks: [cmd(`echo '${deny}'; exit 1`)] },
        { matcher: 'Write', hooks: [cmd(`echo '${deny}'; exec sleep 600`, { timeout: 1 })] },
        { matcher: 'Edit', hooks: [cmd(`echo '${deny}'; echo $$ > "$CLAUDE_PROJECT_DIR/pid"; exec sleep 600`)] },
      ],
    })
    const crashed = await runHook('PreToolUse', bash('ls'), withClaude(root))
    expect(crashed.cancel).toBe(true)
    expect(crashed.errorMessage).toBe('not today')
    expect(crashed.hooks[0]).toMatchObject({ status: 'failed', exitCode: 1 })

    const timedOut = await runHook('PreToolUse', write('a'), withClaude(root))
    expect(timedOut.cancel).toBe(true)
    expect(timedOut.hooks[1]).toMatchObject({ status: 'timedOut', timeoutMs: 1000 })

    const running = runHook('PreToolUse', { preToolUse: { toolName: 'replace_in_file', parameters: { path: 'a', diff: '' } } }, withClaude(root))
    const pid = await waitForPid(path.join(root, 'pid'))
    await terminateAll()
    const stopped = await running
    expect(stopped.cancel).toBe(true)
    expect(stopped.hooks[2]).toMatchObject({ status: 'aborted' })
    expect(await waitDead(pid)).toBe(true)
  })

  test('a hook that hangs with a child holding stdout times out at its timeout, its whole tree stopped', async () => {
    const root = claudeWorkspace({
      PreToolUse: [{ hooks: [cmd('(sleep 600; echo late) & echo $! > "$CLAUDE_PROJECT_DIR/child.pid"; exec sleep 600', { timeout: 1 })] }],
    })
    const started = Date.now()
    const r = await runHook('PreToolUse', bash('ls'), withClaude(root))
    const child = await waitForPid(path.join(root, 'child.pid'))
    expect(r.hooks[0]).toMatchObject({ status: 'timedOut', failureKind: 'timedOut', timeoutMs: 1000 })
    expect(r.hooks[0].failure).toMatch(/did not finish within 1000 ms, so its process tree was stopped/)
    expect(Date.now() - started).toBeLessThan(15000)
    expect(r.cancel).toBe(false)
    expect(await waitDead(child)).toBe(true)
  })

  test('a hook that never reads stdin, given a large input, times out instead of wedging the run', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('exec sleep 600', { timeout: 1 })] }] })
    const big = 'x'.repeat(4 << 20)
    const started = Date.now()
    const r = await runHook('PreToolUse', write('big.txt', big), withClaude(root))
    expect(r.hooks[0]).toMatchObject({ status: 'timedOut', failureKind: 'timedOut' })
    expect(Date.now() - started).toBeLessThan(15000)
  })

  test("a wrong script path is a discovery warning, and the run fails loudly with exit 127's cause, never silently", async () => {
    const root = claudeWorkspace({ PreToolUse: [{ matcher: 'Bash', hooks: [cmd('"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-such-guard.sh')] }] })
    const [hook] = await discoverHooks('PreToolUse', withClaude(root))
    const missing = path.join(root, '.claude', 'hooks', 'no-such-guard.sh')
    // The script it runs first; then every file of .claude/hooks, which an approval covers too.
    expect(hook.claude.scripts[0]).toBe(missing)
    expect(hook.warnings.join('\n')).toContain(`its command names ${missing}, which is not a readable file`)
    const r = await runHook('PreToolUse', bash('ls'), withClaude(root))
    expect(r.hooks[0]).toMatchObject({ status: 'failed', failureKind: 'startFailure', exitCode: 127 })
    expect(r.hooks[0].failure).toMatch(/exited 127: its shell could not find a program or script its command names/)
    expect(r.hooks[0].failure).toContain('hooks.PreToolUse[0].hooks[0]')
    expect(r.warnings.join('\n')).toContain('no-such-guard.sh, which is not a readable file')
    // onFailure: 'block' turns it into a block, as for any hook that cannot start.
    const strict = await runHook('PreToolUse', bash('ls'), withClaude(root, { onFailure: 'block' }))
    expect(strict.cancel).toBe(true)
  })

  test('what cannot run is listed and said: another handler type, a settings file that is not JSON, an event typo, a matcher naming no tool', async () => {
    const root = claudeWorkspace({
      PreToolUse: [
        { matcher: 'Bsh', hooks: [cmd('exit 2'), { type: 'http', url: 'http://localhost:1/hook' }] },
        { matcher: '[unclosed', hooks: [cmd('exit 2')] },
      ],
      PreToolUs: [{ hooks: [cmd('exit 2')] }],
    })
    const hooks = await discoverHooks('PreToolUse', withClaude(root))
    expect(hooks.map((h) => h.enabled)).toEqual([true, false, false])
    expect(hooks[0].warnings.join('\n')).toMatch(/its matcher names Bsh, which is no tool's name \(did you mean Bash\?\)/)
    expect(hooks[1].reason).toMatch(/its type is "http": only "command" handlers run here/)
    expect(hooks[2].reason).toMatch(/\[unclosed/)
    const r = await runHook('PreToolUse', bash('ls'), withClaude(root))
    const warnings = r.warnings.join('\n')
    expect(warnings).toMatch(/its settings file has handlers under "PreToolUs", which is not a Claude Code event \(did you mean PreToolUse\?\)/)
    expect(warnings).toMatch(/its type is "http"/)

    const broken = claudeWorkspace(null, { raw: '{\n  "hooks": {\n    "PreToolUse": [\n  }\n}\n' })
    const listed = await discoverHooks('TaskStart', withClaude(broken))
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ enabled: false, path: path.join(broken, '.claude', 'settings.json') })
    expect(listed[0].reason).toMatch(/not valid JSON: .* at line 4 column 3/)
    const run = await runHook('PreToolUse', bash('ls'), withClaude(broken))
    expect(run.warnings.join('\n')).toMatch(/settings\.json: this Claude settings file: it is not valid JSON/)

    // `list` says it too: the matcher's typo under its handler, and the broken file once, for
    // every hook, not once per hook name.
    const list = await cli(['list', '--claude-settings', '--no-global', '--workspace', root], { cwd: root })
    expect(list.stdout).toMatch(/enabled .*\n\s+↳ warning: its matcher names Bsh, which is no tool's name/)
    const brokenList = await cli(['list', '--claude-settings', '--no-global', '--workspace', broken], { cwd: broken })
    expect(brokenList.stdout.match(/not valid JSON/g)).toHaveLength(1)
    expect(brokenList.stdout).toMatch(/^every hook\s+disabled\s+-\s+claudeProject\s/m)
  })

  test("settings.json, then settings.local.json, then the user's (CLAUDE_CONFIG_DIR) come after the hook files, each with its source", async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('echo project >> "$CLAUDE_PROJECT_DIR/order"')] }] })
    fs.writeFileSync(
      path.join(root, '.claude', 'settings.local.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [cmd('echo local >> "$CLAUDE_PROJECT_DIR/order"')] }] } }),
    )
    writeHook(hooksDirOf(root), 'PreToolUse', 'cat >/dev/null; echo file >> order')
    // Without the user's folder (globalHooksDir: null turns it off too).
    const hooks = await discoverHooks('PreToolUse', withClaude(root))
    expect(hooks.map((h) => h.source)).toEqual(['workspace', 'claudeProject', 'claudeLocal'])
    // The user's folder is found from the environment (CLAUDE_CONFIG_DIR): a process of its own.
    const user = makeTempDir()
    fs.writeFileSync(path.join(user, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [cmd('echo user >> "$CLAUDE_PROJECT_DIR/order"')] }] } }))
    const input = path.join(root, 'input.json')
    fs.writeFileSync(input, JSON.stringify(bash('ls')))
    const args = ['run', 'PreToolUse', '--claude-settings', '--global-dir', makeTempDir(), '--workspace', root, '--input', input, '--sequential', '--json']
    const run = await cli(args, { cwd: root, env: { CLAUDE_CONFIG_DIR: user, CLINE_DIR: makeTempDir() } })
    expect(run.code).toBe(0)
    const result = JSON.parse(run.stdout)
    expect(result.hooks.map((h) => h.source)).toEqual(['workspace', 'claudeUser', 'claudeProject', 'claudeLocal'])
    result.hooks.forEach(expectCompleted)
    expect(fs.readFileSync(path.join(root, 'order'), 'utf8').split('\n').filter(Boolean)).toEqual(['file', 'user', 'project', 'local'])
  })

  test("a handler's timeout is in seconds and capped by maxTimeoutMs, with a warning", async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('cat >/dev/null', { timeout: 5 })] }] })
    const r = await runHook('PreToolUse', bash('ls'), withClaude(root))
    expect(r.hooks[0].timeoutMs).toBe(5000)
    const capped = await runHook('PreToolUse', bash('ls'), withClaude(root, { maxTimeoutMs: 2000 }))
    expect(capped.hooks[0].timeoutMs).toBe(2000)
    expect(capped.hooks[0].warnings.join('\n')).toMatch(/its Claude settings ask for "timeout": 5; it ran with the host's maximum, 2000 ms/)
  })

  test('ask: a review in the cli profile, a cancel with the reason in the extension profile', async () => {
    const ask = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'check with a human' } })
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd(`cat >/dev/null; echo '${ask}'`)] }] })
    const ext = await runHook('PreToolUse', bash('ls'), withClaude(root))
    expect(ext).toMatchObject({ cancel: true, errorMessage: 'check with a human' })
    const cliProfile = await runHook('tool_call', { tool_call: { name: 'run_commands', input: { commands: ['ls'] } } }, withClaude(root, { profile: 'cli' }))
    expect(cliProfile).toMatchObject({ cancel: false, review: true })
  })

  test('updatedInput becomes overrideInput', async () => {
    const out = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'ls -la' } } })
    const root = claudeWorkspace({ PreToolUse: [{ matcher: 'Bash', hooks: [cmd(`cat >/dev/null; echo '${out}'`)] }] })
    const r = await runHook('PreToolUse', bash('ls'), withClaude(root))
    expect(r.cancel).toBe(false)
    expect(r.overrideInput).toEqual({ command: 'ls -la' })
  })

  test("updatedInput in Claude's field names goes back under the Cline tool's own", async () => {
    const redirect = "node -e 'let d=\"\";process.stdin.on(\"data\",c=>d+=c).on(\"end\",()=>{const i=JSON.parse(d).tool_input;console.log(JSON.stringify({hookSpecificOutput:{hookEventName:\"PreToolUse\",permissionDecision:\"allow\",updatedInput:{...i,file_path:i.file_path.replace(/a\\.txt$/,\"b.txt\")}}}))})'"
    const root = claudeWorkspace({ PreToolUse: [{ matcher: 'Write', hooks: [cmd(redirect)] }] })
    const r = await runHook('PreToolUse', write('src/a.txt', 'hi'), withClaude(root))
    expectCompleted(r.hooks[0])
    expect(r.overrideInput).toEqual({ path: 'src/b.txt', content: 'hi' })
  })

  test('under trust, a project handler runs only once approved; editing its script withdraws the approval', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ matcher: 'Bash', hooks: [cmd('sh .claude/hooks/guard.sh')] }] })
    const guard = path.join(root, '.claude', 'hooks', 'guard.sh')
    fs.writeFileSync(guard, 'cat >/dev/null; echo nope >&2; exit 2\n')
    const policyFile = path.join(makeTempDir(), 'policy.json')
    const options = withClaude(root, { trust: 'workspace', policyFile })
    const [fresh] = await discoverHooks('PreToolUse', options)
    expect(fresh).toMatchObject({ enabled: false, trust: 'new', reason: 'not trusted: new' })
    expect(fresh.claude.scripts[0]).toBe(guard)
    const untrusted = await runHook('PreToolUse', bash('ls'), options)
    expect(untrusted.cancel).toBe(false)
    expect(untrusted.hooks).toEqual([])

    const approval = await trustHook(fresh.path, { policyFile, sha256: fresh.sha256 })
    expect(approval.sha256).toBe(fresh.sha256)
    const approved = await runHook('PreToolUse', bash('ls'), options)
    expect(approved).toMatchObject({ cancel: true, errorMessage: 'nope' })

    fs.writeFileSync(guard, 'cat >/dev/null; exit 0\n')
    const [edited] = await discoverHooks('PreToolUse', options)
    expect(edited).toMatchObject({ enabled: false, trust: 'changed' })
  })

  test('a cd, a subshell, reserved words and a continued line: the file that really runs is covered, so editing it withdraws the approval', async () => {
    // Each command and the file its shell runs (a cd in a subshell ends with it).
    const cases = [
      ['(cd scripts); sh x.sh', 'x.sh'],
      ['(cd scripts && true); sh x.sh', 'x.sh'],
      ['cd -- scripts && sh x.sh', 'scripts/x.sh'],
      ['cd -P scripts && sh x.sh', 'scripts/x.sh'],
      ['if true; then sh scripts/x.sh; fi', 'scripts/x.sh'],
      ['{ sh x.sh; }', 'x.sh'],
      ['cd scripts &&\\\n sh x.sh', 'scripts/x.sh'],
    ]
    for (const [command, runs] of cases) {
      const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd(command)] }] })
      fs.mkdirSync(path.join(root, 'scripts'))
      for (const file of ['x.sh', 'scripts/x.sh']) fs.writeFileSync(path.join(root, file), 'cat >/dev/null; exit 0\n')
      const policyFile = path.join(makeTempDir(), 'policy.json')
      const options = withClaude(root, { trust: 'workspace', policyFile })
      const [fresh] = await discoverHooks('PreToolUse', options)
      expect(fresh.claude.scripts).toContain(path.join(root, runs))
      await trustHook(fresh.path, { policyFile, sha256: fresh.sha256 })
      expectCompleted((await runHook('PreToolUse', bash('ls'), options)).hooks[0])
      fs.writeFileSync(path.join(root, runs), 'cat >/dev/null; echo unreviewed >&2; exit 2\n')
      // Checked again at its start: not started, whatever discovery still holds.
      const r = await runHook('PreToolUse', bash('ls'), options)
      expect([command, r.cancel, r.errorMessage]).toEqual([command, false, ''])
      if (r.hooks.length > 0) expect(r.hooks[0].failure).toMatch(/not trusted: changed since approved/)
      // A script outside .claude/hooks is seen changed by the discovery's revalidation by age.
      await new Promise((resolve) => setTimeout(resolve, 400))
      const [edited] = await discoverHooks('PreToolUse', options)
      expect([command, edited.trust, edited.reason]).toEqual([command, 'changed', 'not trusted: changed since approved'])
    }
  })

  test('a command an approval cannot follow says so; a wrapper\'s option with an argument is not its program', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('cd $(echo scripts) && sh x.sh'), cmd('timeout -s KILL 5 sh scripts/x.sh')] }] })
    fs.mkdirSync(path.join(root, 'scripts'))
    fs.writeFileSync(path.join(root, 'scripts', 'x.sh'), 'cat >/dev/null; exit 0\n')
    const policyFile = path.join(makeTempDir(), 'policy.json')
    const options = withClaude(root, { trust: 'workspace', policyFile })
    const [unfollowed, wrapped] = await discoverHooks('PreToolUse', options)
    const said = unfollowed.warnings.join('\n')
    expect(said).toContain('its command runs files in a way an approval cannot follow (`$(...)`, a `cd` to a folder given by a variable)')
    expect(said).toContain('keep the scripts it runs in .claude/hooks')
    // After a cd to a folder not known, x.sh is no missing script.
    expect(said).not.toContain('which is not a readable file')
    expect(wrapped.warnings.join('\n')).not.toContain('cannot follow')
    const script = path.join(root, 'scripts', 'x.sh')
    expect(wrapped.claude.scripts[0]).toBe(script)
    await trustHook(wrapped.path, { policyFile, sha256: wrapped.sha256 })
    expect((await discoverHooks('PreToolUse', options))[1].trust).toBe('approved')
    fs.writeFileSync(script, 'cat >/dev/null; echo unreviewed >&2; exit 2\n')
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect((await discoverHooks('PreToolUse', options))[1]).toMatchObject({ enabled: false, trust: 'changed' })
  })

  test("a missing script is said wherever it is: the user's settings (~ from HOME), a path outside the project; $HOME is never read as the project's", async () => {
    const home = makeTempDir()
    const user = path.join(home, '.claude')
    fs.mkdirSync(path.join(user, 'hooks'), { recursive: true })
    fs.mkdirSync(path.join(home, 'bin'))
    fs.writeFileSync(path.join(home, 'bin', 'guard.sh'), 'cat >/dev/null; exit 0\n')
    fs.chmodSync(path.join(home, 'bin', 'guard.sh'), 0o755)
    fs.writeFileSync(path.join(user, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [cmd('~/.claude/hooks/missing.sh')] }] } }))
    const root = claudeWorkspace({
      PreToolUse: [{ hooks: [cmd('$HOME/bin/guard.sh'), cmd('${HOME}/bin/guard.sh'), cmd('/nonexistent/x.sh'), cmd('python3 .claude/hooks/nope.py')] }],
    })
    const env = { HOME: home, CLAUDE_CONFIG_DIR: user, CLINE_DIR: makeTempDir() }
    const input = path.join(root, 'input.json')
    fs.writeFileSync(input, JSON.stringify(bash('ls')))
    const list = await cli(['list', 'PreToolUse', '--claude-settings', '--global-dir', makeTempDir(), '--workspace', root], { cwd: root, env })
    expect(list.code).toBe(0)
    const said = list.stdout + list.stderr
    expect(said).toContain(`its command names ${path.join(user, 'hooks', 'missing.sh')}, which is not a readable file, so this handler cannot do its job`)
    expect(said).toContain('its command names /nonexistent/x.sh, which is not a readable file')
    expect(said).toMatch(/nope\.py, which is not a readable file, .*python3 exit 2, which blocks/)
    expect(said).not.toContain('guard.sh, which is not')
    // It starts and fails (or blocks): `will fail`, not `will not run`.
    expect(list.stdout).toMatch(/PreToolUse\s+will fail\s+-\s+claudeProject\s+\/bin\/sh -c 'python3 \.claude\/hooks\/nope\.py'\n\s+↳ fails: its command names/)
    expect(list.stdout).not.toContain('will not run')
    const run = await cli(['run', 'PreToolUse', '--claude-settings', '--global-dir', makeTempDir(), '--workspace', root, '--input', input, '--json'], { cwd: root, env })
    const result = JSON.parse(run.stdout)
    expect(result.warnings.join('\n')).toContain(`${path.join(user, 'hooks', 'missing.sh')}, which is not a readable file`)
    expect(result.warnings.join('\n')).not.toContain('guard.sh, which is not')
  })

  test('an approved handler whose script changes after discovery is not started (checked again at its start)', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('sh .claude/hooks/guard.sh')] }] })
    const guard = path.join(root, '.claude', 'hooks', 'guard.sh')
    fs.writeFileSync(guard, 'cat >/dev/null; exit 0\n')
    const policyFile = path.join(makeTempDir(), 'policy.json')
    const options = withClaude(root, { trust: 'workspace', policyFile })
    const [hook] = await discoverHooks('PreToolUse', options)
    await trustHook(hook.path, { policyFile })
    const factory = new HookFactory(options)
    const runner = await factory.create('PreToolUse')
    expectCompleted((await runner.run(bash('ls'))).hooks[0])
    // Rewritten in place (same size class, same mtime second): the start's check sees it.
    fs.writeFileSync(guard, 'cat >/dev/null; echo swapped > "$CLAUDE_PROJECT_DIR/ran"\n')
    const r = await runner.run(bash('ls'))
    if (r.hooks.length > 0 && r.hooks[0].started === false) {
      expect(r.hooks[0].failure).toMatch(/not trusted: changed since approved/)
    } else {
      // The watch saw the change first: rediscovered as changed, not run at all.
      expect(r.hooks).toEqual([])
    }
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false)
    await factory.dispose()
  })

  test('requireHooks counts a started handler (and one its matcher skips); the doctor reports a handler that will not run', async () => {
    const root = claudeWorkspace({
      PreToolUse: [
        { matcher: 'Write', hooks: [cmd('cat >/dev/null')] },
        { matcher: 'Bash', hooks: [cmd('.claude/hooks/gone.sh'), { type: 'prompt', prompt: 'is this safe?' }] },
      ],
    })
    const required = withClaude(root, { requireHooks: ['PreToolUse'] })
    expect((await runHook('PreToolUse', write('a'), required)).cancel).toBe(false)
    const doctor = await cli(['doctor', '--claude-settings', '--no-global', '--workspace', root, '--json'], { cwd: root })
    const report = JSON.parse(doctor.stdout)
    const handlers = report.hooks.filter((h) => h.source === 'claudeProject')
    expect(handlers.map((h) => [h.path.slice(root.length), h.willRun, h.problem])).toEqual([
      ['/.claude/settings.json#hooks.PreToolUse[0].hooks[0]', true, undefined],
      ['/.claude/settings.json#hooks.PreToolUse[1].hooks[0]', false, 'missingScript'],
      ['/.claude/settings.json#hooks.PreToolUse[1].hooks[1]', false, 'cannotRun'],
    ])
    expect(handlers[1].reason).toMatch(/gone\.sh, which is not a readable file/)
    expect(handlers[1].fix).toBe(`edit ${path.join(root, '.claude', 'settings.json')} at hooks.PreToolUse[1].hooks[0]`)
    expect(handlers[2].reason).toMatch(/its type is "prompt"/)
  })

  test('setHookEnabled turns one handler off and on again by its path', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('cat >/dev/null; exit 2')] }] })
    const policyFile = path.join(makeTempDir(), 'policy.json')
    const options = withClaude(root, { policyFile })
    const [hook] = await discoverHooks('PreToolUse', options)
    await addon.setHookEnabled(hook.path, false, { policyFile })
    const [off] = await discoverHooks('PreToolUse', options)
    expect(off).toMatchObject({ enabled: false, reason: 'disabled' })
    expect((await runHook('PreToolUse', bash('ls'), options)).cancel).toBe(false)
    await addon.setHookEnabled(hook.path, true, { policyFile })
    expect((await runHook('PreToolUse', bash('ls'), options)).cancel).toBe(true)
    await expect(addon.setHookEnabled(path.join(root, 'nowhere', 'settings.json#hooks.PreToolUse[0].hooks[0]'), false, { policyFile })).rejects.toMatchObject({
      code: 'ERR_NOT_A_HOOK',
    })
  })

  // Attack on issue 36, break 1: an approval covers what the command runs, however spelt.
  test.each([
    ['/bin/sh .claude/hooks/g.sh'],
    ['cd .claude/hooks && ./g.sh'],
    ['timeout 20 sh .claude/hooks/g.sh'],
    ['/usr/bin/env bash .claude/hooks/g.sh'],
    ['cat .claude/hooks/g.sh | sh'],
  ])('an approval of %s is withdrawn when the script it runs changes', async (command) => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd(command)] }] })
    const guard = path.join(root, '.claude', 'hooks', 'g.sh')
    fs.writeFileSync(guard, 'cat >/dev/null; echo nope >&2; exit 2\n', { mode: 0o755 })
    const policyFile = path.join(makeTempDir(), 'policy.json')
    const options = withClaude(root, { trust: 'workspace', policyFile })
    const [hook] = await discoverHooks('PreToolUse', options)
    expect(hook.claude.scripts).toContain(guard)
    await trustHook(hook.path, { policyFile, sha256: hook.sha256 })
    expect(await runHook('PreToolUse', bash('ls'), options)).toMatchObject({ cancel: true, errorMessage: 'nope' })
    fs.writeFileSync(guard, 'cat >/dev/null; touch "$CLAUDE_PROJECT_DIR/PWNED"\n')
    const [edited] = await discoverHooks('PreToolUse', options)
    expect(edited).toMatchObject({ enabled: false, trust: 'changed' })
    await runHook('PreToolUse', bash('ls'), options)
    expect(fs.existsSync(path.join(root, 'PWNED'))).toBe(false)
  })

  // Attack on issue 36, break 2: a block is not dropped when stdout is larger than is kept.
  test('a block printed before or after more than 2 MiB of output still blocks, and the hook says why it failed', async () => {
    const block = JSON.stringify({ decision: 'block', reason: 'flooded' })
    const flood = 'head -c 3000000 /dev/zero | tr "\\0" x'
    const root = claudeWorkspace({
      PreToolUse: [
        { matcher: 'Bash', hooks: [cmd(`cat >/dev/null; echo '${block}'; ${flood}`)] },
        { matcher: 'Write', hooks: [cmd(`cat >/dev/null; ${flood}; echo; echo '${block}'`)] },
        // Second attack: in the middle of the flood, and in no line of its own.
        { matcher: 'Read', hooks: [cmd(`cat >/dev/null; ${flood}; printf '%s' '${block}'; ${flood}`)] },
      ],
    })
    const read = { preToolUse: { toolName: 'read_file', parameters: { path: 'a' } } }
    for (const input of [bash('ls'), write('a'), read]) {
      const r = await runHook('PreToolUse', input, withClaude(root))
      const ran = r.hooks.find((h) => h.status !== 'skipped')
      expect(r.cancel).toBe(true)
      expect(ran).toMatchObject({ status: 'failed', failureKind: 'invalidOutput' })
      expect(ran.failure).toMatch(/printed \d+ bytes on stdout, more than a Claude hook's answer is read whole from \(2 MiB\): all of it was searched for a block, which was found and blocks/)
    }
  })

  // Second attack on issue 36: what an approval cannot cover makes a handler unapprovable.
  test('a script over 64 MiB, a link in .claude/hooks retargeted, and a .claude/hooks of more than 256 files: never a stale approval', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('cat .claude/hooks/x.sh | sh')] }] })
    const hooksDir = path.join(root, '.claude', 'hooks')
    const tools = path.join(root, 'tools')
    fs.mkdirSync(tools)
    fs.writeFileSync(path.join(tools, 'run.sh'), 'cat >/dev/null; echo nope >&2; exit 2\n')
    fs.writeFileSync(path.join(tools, 'other.sh'), 'cat >/dev/null; touch "$CLAUDE_PROJECT_DIR/PWNED"\n')
    fs.symlinkSync(path.join('..', '..', 'tools', 'run.sh'), path.join(hooksDir, 'x.sh'))
    const policyFile = path.join(makeTempDir(), 'policy.json')
    const options = withClaude(root, { trust: 'workspace', policyFile })
    const [hook] = await discoverHooks('PreToolUse', options)
    expect(hook.claude.scripts).toContain(path.join(hooksDir, 'x.sh'))
    await trustHook(hook.path, { policyFile, sha256: hook.sha256 })
    expect((await runHook('PreToolUse', bash('ls'), options)).cancel).toBe(true)
    // The link retargeted: what it leads to is what runs, so the approval no longer holds.
    fs.rmSync(path.join(hooksDir, 'x.sh'))
    fs.symlinkSync(path.join('..', '..', 'tools', 'other.sh'), path.join(hooksDir, 'x.sh'))
    expect((await discoverHooks('PreToolUse', options))[0]).toMatchObject({ enabled: false, trust: 'changed' })
    await runHook('PreToolUse', bash('ls'), options)
    expect(fs.existsSync(path.join(root, 'PWNED'))).toBe(false)

    // Over 64 MiB (sparse): no sha256, so it cannot be approved, and it says why.
    const big = path.join(hooksDir, 'big.sh')
    fs.writeFileSync(big, '')
    fs.truncateSync(big, 65 * 1024 * 1024)
    const [unapprovable] = await discoverHooks('PreToolUse', options)
    expect(unapprovable).toMatchObject({ enabled: false })
    expect(unapprovable.sha256).toBeUndefined()
    expect(unapprovable.warnings.join('\n')).toMatch(/big\.sh cannot be covered by an approval \(it is larger than 64 MiB/)
    await expect(trustHook(unapprovable.path, { policyFile })).rejects.toMatchObject({ message: expect.stringMatching(/big\.sh cannot be covered by an approval/) })
    fs.rmSync(big)

    // More files than an approval covers.
    for (let i = 0; i < 260; i++) fs.writeFileSync(path.join(hooksDir, `f${i}.txt`), String(i))
    const [crowded] = await discoverHooks('PreToolUse', options)
    expect(crowded.sha256).toBeUndefined()
    expect(crowded.warnings.join('\n')).toMatch(/holds more than 256 files, more than an approval can cover/)
    // Without trust it runs all the same: nothing to approve.
    expect((await runHook('PreToolUse', bash('ls'), withClaude(root))).cancel).toBe(false)
  })

  // Attack on issue 36, breaks 4 and 5, and what was silent.
  test('a FIFO, a folder or a non-object as settings.json, a NUL in a command and disableAllHooks are all said, and other guards still run', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ hooks: [cmd('exit 2')] }] })
    writeHook(hooksDirOf(root), 'PreToolUse', 'cat >/dev/null; echo \'{"cancel": true, "errorMessage": "file guard"}\'')
    const settings = path.join(root, '.claude', 'settings.json')
    fs.rmSync(settings)
    require('child_process').execFileSync('mkfifo', [settings])
    const started = Date.now()
    const r = await runHook('PreToolUse', bash('ls'), withClaude(root, { timeoutMs: 5000 }))
    expect(Date.now() - started).toBeLessThan(4000)
    expect(r).toMatchObject({ cancel: true, errorMessage: 'file guard' })
    expect(r.warnings.join('\n')).toMatch(/settings\.json: this Claude settings file: it is not a regular file/)
    fs.rmSync(settings)
    fs.mkdirSync(settings)
    expect((await discoverHooks('PreToolUse', withClaude(root)))[1].reason).toMatch(/it is not a regular file/)
    fs.rmdirSync(settings)
    fs.writeFileSync(settings, '[1, 2]')
    expect((await discoverHooks('PreToolUse', withClaude(root)))[1].reason).toMatch(/holds a list, not a JSON object/)
    fs.writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ hooks: [cmd('exit 2\u0000')] }] } }))
    expect((await discoverHooks('PreToolUse', withClaude(root)))[1]).toMatchObject({ enabled: false, reason: expect.stringMatching(/NUL character/) })
    fs.writeFileSync(settings, JSON.stringify({ disableAllHooks: true, hooks: { PreToolUse: [{ hooks: [cmd('exit 2')] }] } }))
    expect((await discoverHooks('PreToolUse', withClaude(root)))[1]).toMatchObject({ enabled: false, reason: expect.stringMatching(/"disableAllHooks": true/) })
  })

  // Second attack on issue 36: the SDK adapter read a Claude handler's context as a hook file's.
  test("the SDK adapter appends a Claude handler's context (additionalContext, a PostToolUse exit 2's stderr), not its systemMessage", async () => {
    const { createFileHooks } = require('../sdk')
    const context = JSON.stringify({ systemMessage: 'for the user', hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'for the model' } })
    const root = claudeWorkspace({
      PreToolUse: [{ hooks: [cmd(`cat >/dev/null; echo '${context}'`)] }],
      PostToolUse: [{ hooks: [cmd('cat >/dev/null; echo lint failed >&2; exit 2')] }],
    })
    const hooks = createFileHooks({ workspacePath: root, ...opts({ clineDir: makeTempDir(), extraHooksDirs: [], claudeSettings: true, policyFile: null }) })
    const snapshot = { agentId: 'a', conversationId: 'c', parentAgentId: null, iteration: 1, runId: 'r' }
    const toolCall = { toolCallId: 't', toolName: 'run_commands' }
    expect(await hooks.beforeTool({ snapshot, toolCall, input: { commands: ['ls'] } })).toEqual({ appendContext: 'for the model' })
    const after = await hooks.afterTool({ snapshot, toolCall, input: { commands: ['ls'] }, result: { output: 'ok' }, startedAt: new Date(0), endedAt: new Date(1) })
    expect(after).toEqual({ appendContext: 'lint failed' })
  })

  test('the SDK adapter passes claudeSettings on: a Claude handler blocks the tool call with the same verdict', async () => {
    const { createFileHooks } = require('../sdk')
    const root = claudeWorkspace({ PreToolUse: [{ matcher: 'Bash', hooks: [cmd('python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/bash_command_validator.py')] }] })
    const hooks = createFileHooks({ workspacePath: root, ...opts({ clineDir: makeTempDir(), extraHooksDirs: [], claudeSettings: true, policyFile: null }) })
    const snapshot = { agentId: 'a', conversationId: 'c', parentAgentId: null, iteration: 1, runId: 'r' }
    const result = await hooks.beforeTool({ snapshot, toolCall: { toolCallId: 't', toolName: 'run_commands' }, input: { commands: ['grep -r x .'] } })
    expect(result).toMatchObject({ stop: true })
    expect(result.reason).toContain("instead of 'grep'")
  })

  // One verdict on every path: the same Claude behaviours through every entry point of each
  // profile give the same verdict.
  test('each Claude behaviour gives one verdict through runHook, a factory runner, the CLI and (cli profile) the SDK adapter', async () => {
    const j = (o) => `'${JSON.stringify(o)}'`
    const behaviours = [
      ['exit 2', 'cat >/dev/null; echo two >&2; exit 2', { cancel: true, review: false, message: 'two' }],
      ['deny', `cat >/dev/null; echo ${j({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } })}`, { cancel: true, review: false, message: 'no' }],
      ['continue false', `cat >/dev/null; echo ${j({ continue: false, stopReason: 'halt' })}`, { cancel: true, review: false, message: 'halt' }],
      ['block then crash', `cat >/dev/null; echo ${j({ decision: 'block', reason: 'b' })}; exit 1`, { cancel: true, review: false, message: 'b' }],
      ['block then hang', `cat >/dev/null; echo ${j({ decision: 'block', reason: 'h' })}; exec sleep 600`, { cancel: true, review: false, message: 'h' }],
      ['allow', `cat >/dev/null; echo ${j({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } })}`, { cancel: false, review: false }],
      ['exit 1', 'cat >/dev/null; echo oops >&2; exit 1', { cancel: false, review: false }],
      ['ask', `cat >/dev/null; echo ${j({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'sure?' } })}`, { extension: { cancel: true, review: false, message: 'sure?' }, cli: { cancel: false, review: true } }],
    ]
    const { createFileHooks } = require('../sdk')
    const snapshot = { agentId: 'a', conversationId: 'c', parentAgentId: null, iteration: 1, runId: 'r' }
    for (const [name, command, expected] of behaviours) {
      const root = claudeWorkspace({ PreToolUse: [{ matcher: 'Bash', hooks: [cmd(command, { timeout: 1 })] }] })
      const input = path.join(root, 'input.json')
      const seen = (r) => ({ cancel: r.cancel, review: r.review, ...(r.cancel ? { message: r.errorMessage } : {}) })
      for (const profile of ['extension', 'cli']) {
        const want = expected[profile] || expected
        const options = withClaude(root, { profile })
        const event = profile === 'cli' ? 'tool_call' : 'PreToolUse'
        const call = profile === 'cli' ? { tool_call: { name: 'run_commands', input: { commands: ['ls'] } } } : bash('ls')
        fs.writeFileSync(input, JSON.stringify(call))
        const factory = new HookFactory(options)
        const runner = await factory.create(event)
        const cliRun = await cli(['run', event, '--claude-settings', '--no-global', '--profile', profile, '--workspace', root, '--input', input, '--json'], { cwd: root })
        const verdicts = {
          runHook: seen(await runHook(event, call, options)),
          runner: seen(await runner.run(call)),
          cli: seen(JSON.parse(cliRun.stdout)),
        }
        // Confined (Linux: Landlock) the handler starts another way; what it decides is the same.
        if (process.platform === 'linux') verdicts.confined = seen(await runHook(event, call, { ...options, sandbox: 'workspace' }))
        await factory.dispose()
        if (profile === 'cli') {
          const hooks = createFileHooks({ workspacePath: root, ...opts({ clineDir: makeTempDir(), extraHooksDirs: [], claudeSettings: true, policyFile: null }) })
          const control = (await hooks.beforeTool({ snapshot, toolCall: { toolCallId: 't', toolName: 'run_commands' }, input: { commands: ['ls'] } })) || {}
          verdicts.sdk = { cancel: Boolean(control.stop), review: Boolean(control.review), ...(control.stop ? { message: control.reason } : {}) }
        }
        for (const [entry, verdict] of Object.entries(verdicts)) {
          expect({ name, profile, entry, ...verdict }).toEqual({ name, profile, entry, ...want })
        }
      }
    }
  }, 120000)

  test('scrubEnv, the audit log, hook logs, live events, sandbox and detached runs cover a handler as they cover a hook file', async () => {
    const outside = fs.mkdtempSync('/var/tmp/cline-claude-outside-')
    try {
      const root = claudeWorkspace({
        // Says what it was given, tries to write outside the workspace, and blocks.
        PreToolUse: [{ matcher: 'Bash', hooks: [cmd('cat >/dev/null; echo "token=${GITHUB_TOKEN:-none} dir=$CLAUDE_PROJECT_DIR"; (echo x > "$OUTSIDE/w") 2>/dev/null && echo wrote || echo refused; echo no >&2; exit 2')] }],
        Stop: [{ hooks: [cmd('cat > "$CLAUDE_PROJECT_DIR/stop.tmp" && mv "$CLAUDE_PROJECT_DIR/stop.tmp" "$CLAUDE_PROJECT_DIR/stop-input.json"')] }],
      })
      // scrubEnv: the host (a process of its own: the addon reads its real environment) has a
      // token; the handler sees it only when scrubEnv is off. Each run also writes the audit log.
      const auditLog = path.join(makeTempDir(), 'audit.jsonl')
      const host = path.join(makeTempDir(), 'host.js')
      fs.writeFileSync(
        host,
        `const events = []
require(${JSON.stringify(path.join(__dirname, '..'))}).runHook('PreToolUse', ${JSON.stringify(bash('ls'))}, { globalHooksDir: null, policyFile: null, workspaceRoots: [${JSON.stringify(root)}], claudeSettings: true, auditLog: ${JSON.stringify(auditLog)}, hookLogs: true, env: { OUTSIDE: ${JSON.stringify(outside)} }, onEvent: (e) => events.push([e.type, e.path, e.source, e.line]), ...JSON.parse(process.argv[2]) })
  .then((r) => process.stdout.write(JSON.stringify({ result: r, events })), (e) => process.stdout.write(JSON.stringify({ error: e.message })))\n`,
      )
      const runFrom = (options) => {
        const out = nodeSync([host, JSON.stringify(options)], { env: cliEnv({ GITHUB_TOKEN: 'gh-secret' }), encoding: 'utf8', timeout: 60000 })
        expect(out.stderr).toBe('')
        const { result, events, error } = JSON.parse(out.stdout)
        expect(error).toBeUndefined()
        expect(result.cancel).toBe(true)
        expect(result.errorMessage).toBe('no')
        expectCompleted(result.hooks[0])
        // What it printed on stdout, as its live events carried it.
        const said = events.filter(([type]) => type === 'stdout').map(([, , , line]) => line).join(' ')
        return { result, events, said }
      }
      const handler = `${path.join(root, '.claude', 'settings.json')}#hooks.PreToolUse[0].hooks[0]`
      const plain = runFrom({})
      expect(plain.said).toBe(`token=gh-secret dir=${root} wrote`)
      expect(plain.result.hooks[0].confined).toBe(false)
      // Live events: its start, each line, its end, under the handler's path and source.
      // (The two streams are read apart, so only each stream's own order is fixed.)
      const types = plain.events.map(([type]) => type)
      expect([types[0], types[types.length - 1]]).toEqual(['start', 'end'])
      expect(types.slice(1, -1).sort()).toEqual(['stderr', 'stdout', 'stdout'])
      expect(plain.events.every(([, file, source]) => file === handler && source === 'claudeProject')).toBe(true)
      expect(plain.events.filter(([type]) => type === 'stderr').map(([, , , line]) => line)).toEqual(['no'])
      const scrubbed = runFrom({ scrubEnv: true })
      expect(scrubbed.said).toBe(`token=none dir=${root} wrote`)
      if (process.platform === 'linux') {
        // Confined as a repository's hook: the write outside is refused, the block still counts.
        const confined = runFrom({ sandbox: 'workspace' })
        expect(confined.said).toBe(`token=gh-secret dir=${root} refused`)
        expect(confined.result.hooks[0].confined).toBe(true)
      }
      // The audit log has each execution under the handler's path and source.
      const audit = fs.readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
      expect(audit.length).toBe(process.platform === 'linux' ? 3 : 2)
      for (const entry of audit) expect(entry).toMatchObject({ hookName: 'PreToolUse', path: handler, source: 'claudeProject', status: 'completed', exitCode: 2, cancel: true })
      expect(audit.map((entry) => entry.confined)).toEqual(process.platform === 'linux' ? [false, false, true] : [false, false])
      // Hook logs: the project's .claude/logs/<Cline hook>.log, one entry per execution.
      const log = fs.readFileSync(path.join(root, '.claude', 'logs', 'PreToolUse.log'), 'utf8')
      expect(log.split(handler).length - 1).toBe(audit.length)
      expect(log).toContain('token=gh-secret')
      // A detached run starts the handler and returns; it gets Claude's Stop input all the same.
      const detached = await runHook('TaskComplete', { taskComplete: { taskMetadata: { taskId: 't1' } } }, withClaude(root, { detached: true }))
      expect(detached.hooks.map((h) => h.status)).toEqual(['started'])
      const stop = JSON.parse(await waitForFile(path.join(root, 'stop-input.json'), 30000))
      expect(stop).toMatchObject({ hook_event_name: 'Stop', cwd: root, stop_hook_active: false })
    } finally {
      fs.rmSync(outside, { recursive: true, force: true })
    }
  }, 120000)

  test('the CLI: run --claude-settings blocks with the reason (exit 1); list shows the handler', async () => {
    const root = claudeWorkspace({
      PreToolUse: [{ matcher: 'Bash', hooks: [cmd('python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/bash_command_validator.py')] }],
    })
    const input = path.join(root, 'input.json')
    fs.writeFileSync(input, JSON.stringify(bash('grep -r x .')))
    const run = await cli(['run', 'PreToolUse', '--claude-settings', '--no-global', '--workspace', root, '--input', input, '--json'], { cwd: root })
    expect(run.code).toBe(1)
    const result = JSON.parse(run.stdout)
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toContain("instead of 'grep'")
    // A handler its matcher skips did not fail: the summary says allowed, nothing incomplete.
    fs.writeFileSync(input, JSON.stringify(write('a.txt')))
    const skipped = await cli(['run', 'PreToolUse', '--claude-settings', '--no-global', '--workspace', root, '--input', input], { cwd: root })
    expect(skipped.code).toBe(0)
    expect(skipped.stdout).toMatch(/✔ allowed · 1 hook/)
    expect(skipped.stdout).not.toMatch(/did not complete/)
    const list = await cli(['list', '--claude-settings', '--no-global', '--workspace', root], { cwd: root })
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(/PreToolUse\s+enabled\s+-\s+claudeProject\s+\/bin\/sh -c 'python3 "\$CLAUDE_PROJECT_DIR"/)
    expect(list.stdout).toContain('.claude/settings.json and settings.local.json (claude)')
    const without = await cli(['list', '--no-global', '--workspace', root], { cwd: root })
    expect(without.stdout).not.toContain('claudeProject')
  })

  test('a batch runs a Claude handler once per item: the .env guard blocks read_files of [a.txt, .env] (cli profile, runHook and the SDK adapter)', async () => {
    const root = claudeWorkspace({ PreToolUse: [{ matcher: 'Read', hooks: [cmd('node .claude/hooks/protect_files.js')] }] })
    const files = [{ path: 'a.txt' }, { path: '.env' }]
    const denied = `${path.join(root, '.env')} is protected: edit it by hand`
    const events = []
    const r = await runHook('tool_call', { tool_call: { id: 't', name: 'read_files', input: { files } } }, withClaude(root, { profile: 'cli', onEvent: (e) => events.push(e) }))
    expect(r.cancel).toBe(true)
    expect(r.errorMessage).toBe(denied)
    // Live events: each item's run starts and ends, its end carrying its record as reported.
    const ends = events.filter((e) => e.type === 'end')
    expect(events.filter((e) => e.type === 'start')).toHaveLength(2)
    expect(ends.map((e) => e.execution.warnings[0]).sort()).toEqual(r.hooks.map((h) => h.warnings[0]).sort())
    // One record per item, the handler's path in each, its first warning naming the item.
    expect(r.hooks).toHaveLength(2)
    expect(r.hooks[0].path).toBe(r.hooks[1].path)
    expect(r.hooks[0].warnings[0]).toBe("ran for item 1 of 2 of read_files' files: a.txt")
    expect(r.hooks[1].warnings[0]).toBe("ran for item 2 of 2 of read_files' files: .env")
    for (const h of r.hooks) expectCompleted(h)
    // Every path in any field the SDK may read runs (fail closed): shapes the SDK reads .env
    // from while the field the mapping shows holds something else, or nothing.
    const f64 = Array.from({ length: 64 }, (_, i) => `f${i}.txt`)
    const hidden = {
      'range-only entry + decoy paths': { files: [{ path: '.env' }, { start_line: 1 }], paths: ['a.txt'] },
      'string + range-only entry': { files: ['.env', { start_line: 1, end_line: 2 }] },
      'range-only entry mid-list': { files: [{ path: 'a.txt' }, { start_line: 2 }, { path: '.env' }] },
      'start_line "0x1" + decoy path': { files: [{ path: '.env', start_line: '0x1' }], path: 'a.txt' },
      'start_line [1] + decoy path': { files: [{ path: '.env', start_line: [1] }], path: 'a.txt' },
      'start_line "\uFEFF1" + decoy path': { files: [{ path: '.env', start_line: '\uFEFF1' }], path: 'a.txt' },
      'end_line 1e20 on decoy, top path': { files: [{ path: 'a.txt', end_line: 1e20 }], path: '.env' },
      '66 items, one range-only': { files: f64.concat('.env', { start_line: 1 }) },
    }
    for (const [name, input] of Object.entries(hidden)) {
      const h = await runHook('tool_call', { tool_call: { id: 't', name: 'read_files', input } }, withClaude(root, { profile: 'cli' }))
      expect([name, h.cancel]).toEqual([name, true])
      if (!name.startsWith('66')) expect([name, h.errorMessage]).toEqual([name, denied])
    }
    const decoy = await runHook('tool_call', { tool_call: { id: 't', name: 'read_files', input: hidden['start_line [1] + decoy path'] } }, withClaude(root, { profile: 'cli' }))
    expect(decoy.hooks.map((h) => h.warnings[0])).toEqual(["ran for item 1 of 2 of read_files' path: a.txt", 'ran for files[0] (a field the SDK may also read): .env'])
    // A batch of one safe file: one record, as for any call.
    const one = await runHook('tool_call', { tool_call: { id: 't', name: 'read_files', input: { files: [{ path: 'a.txt' }] } } }, withClaude(root, { profile: 'cli' }))
    expect(one.cancel).toBe(false)
    expect(one.hooks).toHaveLength(1)
    const { createFileHooks } = require('../sdk')
    const snapshot = { agentId: 'a', conversationId: 'c', parentAgentId: null, iteration: 1, runId: 'r' }
    const hooks = createFileHooks({ workspacePath: root, ...opts({ clineDir: makeTempDir(), extraHooksDirs: [], claudeSettings: true, policyFile: null }) })
    const control = (await hooks.beforeTool({ snapshot, toolCall: { toolCallId: 't', toolName: 'read_files' }, input: { files } })) || {}
    expect(control.stop).toBeTruthy()
    expect(control.reason).toBe(denied)
    // sequential: true runs the item runs one after another too.
    const log = path.join(root, 'order.log')
    const seq = claudeWorkspace({ PreToolUse: [{ matcher: 'Read', hooks: [cmd(`cat >/dev/null; echo start >> ${log}; sleep 0.2; echo end >> ${log}`)] }] })
    const sequential = await runHook('tool_call', { tool_call: { id: 't', name: 'read_files', input: { files: [...files, { path: 'b.txt' }] } } }, withClaude(seq, { profile: 'cli', sequential: true }))
    expect(sequential.hooks.map((h) => h.status)).toEqual(['completed', 'completed', 'completed'])
    expect(fs.readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(['start', 'end', 'start', 'end', 'start', 'end'])
    // More items than are run one by one: blocked before the tool runs, the handler not
    // started, saying to split the call.
    const many = Array.from({ length: 65 }, (_, i) => ({ path: `f${i}.txt` }))
    const tooMany = await runHook('tool_call', { tool_call: { id: 't', name: 'read_files', input: { files: many } } }, withClaude(root, { profile: 'cli' }))
    expect(tooMany.cancel).toBe(true)
    expect(tooMany.hooks).toHaveLength(1)
    expect(tooMany.hooks[0]).toMatchObject({ status: 'failed', started: false })
    expect(tooMany.errorMessage).toMatch(/read_files holds 65 items, more than the 64 .*; split the call into smaller ones/)
  }, 60000)
})

testIf(isWindows, 'Windows only', 'on Windows without Git Bash a handler is listed with a launch error saying what to install, and its run fails loudly', async () => {
  const root = makeWorkspace()
  fs.mkdirSync(path.join(root, '.claude'))
  fs.writeFileSync(path.join(root, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [cmd('exit 2')] }] } }))
  const input = path.join(root, 'input.json')
  fs.writeFileSync(input, JSON.stringify(bash('dir')))
  // The addon reads the variable from its process's environment: a process of its own.
  const env = { CLAUDE_CODE_GIT_BASH_PATH: path.join(root, 'no-bash.exe') }
  const run = await cli(['run', 'PreToolUse', '--claude-settings', '--no-global', '--workspace', root, '--input', input, '--json'], { cwd: root, env })
  const result = JSON.parse(run.stdout)
  expect(result.cancel).toBe(false)
  expect(result.hooks[0]).toMatchObject({ status: 'failed', started: false, failureKind: 'startFailure' })
  expect(result.hooks[0].failure).toMatch(/CLAUDE_CODE_GIT_BASH_PATH names .*no-bash\.exe, which does not exist/)
  const list = await cli(['list', '--claude-settings', '--no-global', '--workspace', root], { cwd: root, env })
  expect(list.stdout).toMatch(/CLAUDE_CODE_GIT_BASH_PATH names/)
})
