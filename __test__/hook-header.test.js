'use strict'

// The hook header (`cline-hook:` line): what discovery shows of it, `tools=` matching on each
// profile's input shape (a hook that does not apply is `skipped` and never started), the
// per-hook `timeout=` and its `maxTimeoutMs` cap, the per-hook `onFailure=`, and a malformed
// header that warns while its valid keys still count. The hooks are Node programs written with
// their header (see hook-programs.js), so every case runs on Windows too.

const fs = require('fs')
const path = require('path')

const { addon, makeWorkspace, makeTempDir, hooksDirOf, writeProgram, writeFile, printJson, readInputThen, STAY_ALIVE, opts } =
  require('./helpers')

const { runHook, discoverHooks, HookFactory } = addon

/** The header's line in a hook written by writeProgram: after the `#!` line, or first in a `.cmd`. */
const LINE = process.platform === 'win32' ? 1 : 2

/** How long a hook may take to start: a Node program under Wine or under load takes seconds. */
const START_MS = 30000

/** A program that records that it ran (touching `file`) and allows. */
const touchThenAllow = (file) => readInputThen(`require('fs').writeFileSync(${JSON.stringify(file)}, '')\n${printJson({ cancel: false })}`)

/** A workspace with one PreToolUse hook of `header` that touches a file when it runs. */
function toolHook(header, event = 'PreToolUse') {
  const root = makeWorkspace()
  const ran = path.join(makeTempDir(), 'ran')
  const hook = writeProgram(hooksDirOf(root), event, touchThenAllow(ran), { header })
  return { root, ran, hook }
}

describe('what discovery shows of a header', () => {
  test('settings carry every key, warnings name the line and the fix', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', printJson({}), {
      header: 'tools=write_to_file,replace_* timeout=2.5s onFailure=block mode=persistent',
    })
    writeProgram(hooksDirOf(root), 'TaskStart', printJson({}), { header: 'timeout=5 tools=x colour=red onFailure=allow' })
    const [tool] = await discoverHooks('PreToolUse', opts({ workspaceRoots: [root] }))
    expect(tool.settings).toEqual({
      tools: ['write_to_file', 'replace_*'],
      timeoutMs: 2500,
      onFailure: 'block',
      mode: 'persistent',
      line: LINE,
    })
    expect(tool.warnings).toEqual([])
    const [start] = await discoverHooks('TaskStart', opts({ workspaceRoots: [root] }))
    expect(start.enabled).toBe(true)
    expect(start.settings).toEqual({ onFailure: 'allow', mode: 'perEvent', line: LINE })
    expect(start.warnings).toEqual([
      expect.stringMatching(new RegExp(`^line ${LINE}: \`timeout=5\` .* it has no unit; .*timeout=5s`)),
      expect.stringMatching(new RegExp(`^line ${LINE}: unknown key \`colour\``)),
      expect.stringMatching(new RegExp(`^line ${LINE}: tools= .* applies to PreToolUse and PostToolUse hooks only`)),
    ])
    // The run says so too, and the hook still runs with the keys that were valid.
    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [root], timeoutMs: START_MS }))
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
    expect(result.warnings.filter((w) => w.includes('cline-hook: header'))).toHaveLength(3)
  })

  test('a hook without a header has the default settings', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', printJson({}))
    const [hook] = await discoverHooks('PreToolUse', opts({ workspaceRoots: [root] }))
    expect(hook.settings).toEqual({ mode: 'perEvent' })
    expect(hook.warnings).toEqual([])
  })

  test('a header after line 20 is ignored', async () => {
    const root = makeWorkspace()
    const padding = '// padding\n'.repeat(25)
    writeProgram(hooksDirOf(root), 'PreToolUse', `${padding}// cline-hook: mode=persistent\n${printJson({})}`)
    const [hook] = await discoverHooks('PreToolUse', opts({ workspaceRoots: [root] }))
    expect(hook.settings).toEqual({ mode: 'perEvent' })
  })
})

describe('tools= : a tool hook runs only for the tools it names', () => {
  const cases = [
    ['preToolUse.tool', 'PreToolUse', (tool) => ({ preToolUse: { tool, parameters: {} } })],
    ['preToolUse.toolName', 'PreToolUse', (tool) => ({ preToolUse: { toolName: tool } })],
    ['postToolUse.tool', 'PostToolUse', (tool) => ({ postToolUse: { tool, result: 'ok' } })],
    ['postToolUse.toolName', 'PostToolUse', (tool) => ({ postToolUse: { toolName: tool } })],
  ]
  test.each(cases)('read from %s: a match runs, another tool is skipped without a process', async (_, event, input) => {
    const { root, ran } = toolHook('tools=write_*,apply_patch', event)
    const options = opts({ workspaceRoots: [root], timeoutMs: START_MS })
    const skipped = await runHook(event, input('read_file'), options)
    expect(skipped.hooks).toEqual([
      expect.objectContaining({
        status: 'skipped',
        started: false,
        skipReason: "its cline-hook: header's tools=write_*,apply_patch does not match the tool read_file",
      }),
    ])
    expect(skipped.hooks[0].failure).toBeUndefined()
    expect(skipped.cancel).toBe(false)
    expect(skipped.warnings).toEqual([])
    expect(fs.existsSync(ran)).toBe(false)

    const matched = await runHook(event, input('write_to_file'), options)
    expect(matched.hooks.map((h) => h.status)).toEqual(['completed'])
    expect(fs.existsSync(ran)).toBe(true)
  })

  test('an input that names no tool runs the hook (a guardrail is never skipped on a guess)', async () => {
    const { root, ran } = toolHook('tools=write_to_file')
    const result = await runHook('PreToolUse', { preToolUse: { parameters: {} } }, opts({ workspaceRoots: [root], timeoutMs: START_MS }))
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
    expect(fs.existsSync(ran)).toBe(true)
  })

  test('a skipped hook and a running one in one run: run order is kept, the skipped one is not a failure', async () => {
    const root = makeWorkspace()
    const global = makeTempDir()
    writeProgram(global, 'PreToolUse', readInputThen(printJson({ cancel: true, errorMessage: 'global says no' })))
    writeProgram(hooksDirOf(root), 'PreToolUse', STAY_ALIVE, { header: 'tools=execute_command onFailure=block' })
    const result = await runHook(
      'PreToolUse',
      { preToolUse: { tool: 'read_file' } },
      { workspaceRoots: [root], globalHooksDir: global, timeoutMs: START_MS },
    )
    expect(result.hooks.map((h) => [h.source, h.status])).toEqual([
      ['global', 'completed'],
      ['workspace', 'skipped'],
    ])
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('global says no')
  })

  test('the CLI profile reads tool_call.name and tool_result.name', async () => {
    const root = makeWorkspace()
    const ran = path.join(makeTempDir(), 'ran')
    const cliHooks = path.join(root, '.clinerules', 'hooks')
    const body = `// cline-hook: tools=run_commands\n${touchThenAllow(ran)}`
    writeFile(cliHooks, 'PreToolUse.cjs', body)
    writeFile(cliHooks, 'PostToolUse.cjs', body)
    const options = opts({ profile: 'cli', clineDir: path.join(makeTempDir(), 'none'), workspaceRoots: [root], timeoutMs: START_MS })
    const call = await runHook('tool_call', { tool_call: { name: 'read_files', input: {} } }, options)
    expect(call.hooks.map((h) => h.status)).toEqual(['skipped'])
    const result = await runHook('tool_result', { tool_result: { name: 'read_files' } }, options)
    expect(result.hooks.map((h) => h.status)).toEqual(['skipped'])
    expect(fs.existsSync(ran)).toBe(false)
    const runs = await runHook('tool_call', { tool_call: { name: 'run_commands', input: {} } }, options)
    expect(runs.hooks.map((h) => h.status)).toEqual(['completed'])
    expect(fs.existsSync(ran)).toBe(true)
  })
})

describe('timeout= : a hook of its own timeout, capped by maxTimeoutMs', () => {
  test("the header's timeout replaces the run's", async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'TaskStart', STAY_ALIVE, { header: 'timeout=1500ms' })
    const started = Date.now()
    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [root], timeoutMs: 120000 }))
    expect(result.hooks[0]).toEqual(expect.objectContaining({ status: 'timedOut', timeoutMs: 1500, failureKind: 'timedOut' }))
    expect(result.hooks[0].failure).toMatch(/did not finish within 1500 ms/)
    // Far below the run's two minutes (generous: a loaded machine is slow to stop a tree).
    expect(Date.now() - started).toBeLessThan(60000)
  })

  test('a longer header timeout is capped at maxTimeoutMs, with a warning', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'TaskStart', STAY_ALIVE, { header: 'timeout=3600s' })
    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [root], timeoutMs: 120000, maxTimeoutMs: 1500 }))
    expect(result.hooks[0]).toEqual(expect.objectContaining({ status: 'timedOut', timeoutMs: 1500 }))
    expect(result.hooks[0].warnings).toEqual([
      'its cline-hook: header asks for timeout=3600000 ms; it ran with the host\'s maximum, 1500 ms (maxTimeoutMs)',
    ])
  })

  test("a HookFactory's maxTimeoutMs applies to its runners, and a run's own replaces it", async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'TaskStart', STAY_ALIVE, { header: 'timeout=3600s' })
    const runner = await new HookFactory(opts({ workspaceRoots: [root], maxTimeoutMs: 1500 })).create('TaskStart')
    const capped = await runner.run({}, { timeoutMs: 120000 })
    expect(capped.hooks[0]).toEqual(expect.objectContaining({ status: 'timedOut', timeoutMs: 1500 }))
    const own = await runner.run({}, { timeoutMs: 120000, maxTimeoutMs: 1000 })
    expect(own.hooks[0]).toEqual(expect.objectContaining({ status: 'timedOut', timeoutMs: 1000 }))
  })

  test('executions report the timeout they ran with', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'TaskStart', readInputThen(printJson({})))
    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [root], timeoutMs: 45000 }))
    expect(result.hooks[0]).toEqual(expect.objectContaining({ status: 'completed', timeoutMs: 45000 }))
  })

  test.each([0, -1, NaN, 86400001, '5s'])('maxTimeoutMs %p is refused with a clear error', async (bad) => {
    await expect(runHook('TaskStart', {}, opts({ maxTimeoutMs: bad }))).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      message: expect.stringMatching(/maxTimeoutMs/),
    })
    expect(() => new HookFactory(opts({ maxTimeoutMs: bad }))).toThrow(/maxTimeoutMs/)
  })

  test.each([-1, NaN, Infinity, 'soon'])('persistentIdleMs %p is refused with a clear error', async (bad) => {
    await expect(runHook('TaskStart', {}, opts({ persistentIdleMs: bad }))).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      message: expect.stringMatching(/persistentIdleMs/),
    })
  })
})

describe('onFailure= : a hook of its own failure policy', () => {
  test('onFailure=block makes its crash a cancel, with the sentence that says so', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', 'process.exit(3)\n', { header: 'onFailure=block' })
    const result = await runHook('PreToolUse', { preToolUse: { tool: 'x' } }, opts({ workspaceRoots: [root], timeoutMs: START_MS }))
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('PreToolUse (workspace) exited with code 3; blocking because onFailure.crash is "block"')
  })

  test("onFailure=allow keeps its crash from blocking although the run's policy blocks", async () => {
    const root = makeWorkspace()
    const global = makeTempDir()
    writeProgram(hooksDirOf(root), 'PreToolUse', 'process.exit(3)\n', { header: 'onFailure=allow' })
    writeProgram(global, 'PreToolUse', 'process.exit(4)\n')
    const result = await runHook('PreToolUse', {}, { workspaceRoots: [root], globalHooksDir: global, timeoutMs: START_MS, onFailure: 'block' })
    expect(result.cancel).toBe(true)
    // Only the global hook, which has no header, blocks.
    expect(result.errorMessage).toBe('PreToolUse (global) exited with code 4; blocking because onFailure.crash is "block"')
  })

  test('onFailure=block with timeout= : its timeout blocks and the sentence names its own timeout', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', STAY_ALIVE, { header: 'timeout=1500ms onFailure=block' })
    const result = await runHook('PreToolUse', {}, opts({ workspaceRoots: [root], timeoutMs: 120000 }))
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('PreToolUse (workspace) timed out after 1.5 s; blocking because onFailure.timedOut is "block"')
  })
})
