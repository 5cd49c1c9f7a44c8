'use strict'

// Issue 13: `@cline/hooks/sdk`. `createFileHooks` returns the Cline SDK's runtime hooks for file
// hooks: these tests call them as the SDK's agent loop does (with its context objects), run real
// hook files, and check the payloads the hooks read and the results the SDK gets. The same
// adapter inside the real SDK and the real CLI is tested by `npm run test:e2e`.

const fs = require('fs')
const path = require('path')

const { makeTempDir, writeFile, waitFor, waitForFile, opts, trackPid, isAlive, waitDead, nodeSync } = require('./helpers')
const { createFileHooks } = require('../sdk')

const ROOT = path.resolve(__dirname, '..')
const HOOKS = path.join('.clinerules', 'hooks')

/** A workspace with no user folders leaking in; `hooks` maps file names to program sources. */
function workspace(hooks = {}) {
  const root = makeTempDir('cline-sdk-ws-')
  for (const [name, source] of Object.entries(hooks)) writeFile(path.join(root, HOOKS), name, source)
  return root
}

/** createFileHooks for `root` with the user's own folders kept out. */
function fileHooks(root, extra = {}) {
  return createFileHooks({
    workspacePath: root,
    ...opts({ clineDir: path.join(makeTempDir(), 'no-cline-dir'), extraHooksDirs: [] }),
    ...extra,
  })
}

/** A `.cjs` hook that saves its input to `record` (when given) and prints `verdict`. */
function program({ verdict, record, exitCode = 0 }) {
  return `
let input = ''
process.stdin.on('data', (chunk) => (input += chunk))
process.stdin.on('end', () => {
  ${record ? `require('fs').writeFileSync(${JSON.stringify(record)}, input)` : ''}
  ${verdict === undefined ? '' : `process.stdout.write(${JSON.stringify(JSON.stringify(verdict))})`}
  process.exitCode = ${exitCode}
})
`
}

const snapshot = { agentId: 'agent-1', conversationId: 'conv-1', parentAgentId: null, iteration: 2, runId: 'run-1' }
const toolContext = {
  snapshot,
  toolCall: { toolCallId: 'call-1', toolName: 'run_commands' },
  input: { commands: ['ls'], timeout: 5 },
}

describe('createFileHooks: beforeTool', () => {
  test('the hook reads the SDK\'s tool_call payload', async () => {
    const record = path.join(makeTempDir(), 'input.json')
    const root = workspace({ 'PreToolUse.cjs': program({ verdict: {}, record }) })
    await fileHooks(root, { rootSessionId: 'root-1' }).beforeTool(toolContext)
    const input = JSON.parse(fs.readFileSync(record, 'utf8'))
    expect(input).toMatchObject({
      hookName: 'tool_call',
      taskId: 'conv-1',
      sessionContext: { rootSessionId: 'root-1' },
      workspaceRoots: [root],
      agent_id: 'agent-1',
      parent_agent_id: null,
      iteration: 2,
      tool_call: { id: 'call-1', name: 'run_commands', input: { commands: ['ls'], timeout: 5 } },
      preToolUse: { toolName: 'run_commands', parameters: { commands: '["ls"]', timeout: '5' } },
    })
    expect(input.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(typeof input.userId).toBe('string')
    expect(typeof input.clineVersion).toBe('string')
  })

  test('a cancel stops with the errorMessage as the reason; context, overrideInput and review reach the SDK', async () => {
    const cancel = workspace({ 'PreToolUse.cjs': program({ verdict: { cancel: true, errorMessage: 'No ls here.', context: 'ignored' } }) })
    expect(await fileHooks(cancel).beforeTool(toolContext)).toEqual({ stop: true, reason: 'No ls here.' })

    const onlyContext = workspace({ 'PreToolUse.cjs': program({ verdict: { cancel: true, contextModification: 'Because.' } }) })
    expect(await fileHooks(onlyContext).beforeTool(toolContext)).toEqual({ stop: true, reason: 'Because.' })

    const silent = workspace({ 'PreToolUse.cjs': program({ verdict: { cancel: true } }) })
    expect(await fileHooks(silent).beforeTool(toolContext)).toEqual({
      stop: true,
      reason: 'Blocked by the tool_call hook PreToolUse.cjs.',
    })

    const rich = workspace({
      'PreToolUse.cjs': program({
        verdict: { context: 'Mind the cwd.', contextModification: 'loses to context', overrideInput: { commands: ['ls -a'] }, review: true },
      }),
    })
    expect(await fileHooks(rich).beforeTool(toolContext)).toEqual({
      appendContext: 'Mind the cwd.',
      input: { commands: ['ls -a'] },
      review: true,
    })
  })

  test('without a context, an errorMessage is the context (as the SDK reads it); nothing to say is undefined', async () => {
    const root = workspace({ 'PreToolUse.cjs': program({ verdict: { errorMessage: 'just so you know' } }) })
    expect(await fileHooks(root).beforeTool(toolContext)).toEqual({ appendContext: 'just so you know' })
    const quiet = workspace({ 'PreToolUse.cjs': program({ verdict: { cancel: false } }) })
    expect(await fileHooks(quiet).beforeTool(toolContext)).toBeUndefined()
  })

  test('a cancel printed before the hook failed still stops (the SDK\'s runner drops it)', async () => {
    const root = workspace({
      'PreToolUse.cjs': program({ verdict: { cancel: true, errorMessage: 'Stop first.' }, exitCode: 3 }),
    })
    const logged = []
    const hooks = fileHooks(root, { logger: { log: (message, meta) => logged.push([message, meta]) } })
    expect(await hooks.beforeTool(toolContext)).toEqual({ stop: true, reason: 'Stop first.' })
    expect(logged.some(([message, meta]) => /PreToolUse\.cjs failed/.test(message) && meta.severity === 'warn')).toBe(true)
  })

  test('a hook file added after createFileHooks runs on the next call (the SDK returns no hooks at all then)', async () => {
    const root = workspace()
    const hooks = fileHooks(root)
    expect(await hooks.beforeTool(toolContext)).toBeUndefined()
    writeFile(path.join(root, HOOKS), 'PreToolUse.cjs', program({ verdict: { cancel: true, errorMessage: 'new rule' } }))
    // The discovery snapshot is revalidated after 250 ms.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await hooks.beforeTool(toolContext)).toEqual({ stop: true, reason: 'new rule' })
  })

  test('hooks of CLINE_HOOKS_DIR (the CLI\'s --hooks-dir) run too', async () => {
    const dir = makeTempDir()
    writeFile(dir, 'PreToolUse.cjs', program({ verdict: { cancel: true, errorMessage: 'from --hooks-dir' } }))
    const previous = process.env.CLINE_HOOKS_DIR
    process.env.CLINE_HOOKS_DIR = dir
    try {
      const hooks = createFileHooks({ workspacePath: workspace(), globalHooksDir: null, clineDir: makeTempDir() })
      expect(await hooks.beforeTool(toolContext)).toEqual({ stop: true, reason: 'from --hooks-dir' })
    } finally {
      if (previous === undefined) delete process.env.CLINE_HOOKS_DIR
      else process.env.CLINE_HOOKS_DIR = previous
    }
  })
})

describe('createFileHooks: afterTool', () => {
  test('the hook reads the SDK\'s tool_result payload; its context is appended, no input', async () => {
    const record = path.join(makeTempDir(), 'input.json')
    const root = workspace({
      'PostToolUse.cjs': program({ verdict: { contextModification: 'Saw it.', overrideInput: { x: 1 } }, record }),
    })
    const startedAt = new Date('2026-11-24T01:02:03.004Z')
    const endedAt = new Date('2026-11-24T01:02:04.004Z')
    const control = await fileHooks(root).afterTool({
      ...toolContext,
      result: { output: { stdout: 'a\nb' }, isError: false },
      startedAt,
      endedAt,
      durationMs: 1000,
    })
    expect(control).toEqual({ appendContext: 'Saw it.' })
    const input = JSON.parse(fs.readFileSync(record, 'utf8'))
    expect(input).toMatchObject({
      hookName: 'tool_result',
      tool_result: {
        id: 'call-1',
        name: 'run_commands',
        output: { stdout: 'a\nb' },
        durationMs: 1000,
        startedAt: '2026-11-24T01:02:03.004Z',
        endedAt: '2026-11-24T01:02:04.004Z',
      },
      postToolUse: { toolName: 'run_commands', result: '{"stdout":"a\\nb"}', success: true, executionTimeMs: 1000 },
    })
    expect('error' in input.tool_result).toBe(false)
  })
})

describe('createFileHooks: lifecycle events', () => {
  test('agent_end is started and left running (detached); its hook gets the SDK payload', async () => {
    const record = path.join(makeTempDir(), 'input.json')
    const gate = path.join(makeTempDir(), 'gate')
    // The hook waits for the test's gate file before it saves its input: the run must resolve first.
    const root = workspace({
      'TaskComplete.cjs': `
const fs = require('fs')
let input = ''
process.stdin.on('data', (c) => (input += c))
process.stdin.on('end', () => {
  const wait = setInterval(() => {
    if (fs.existsSync(${JSON.stringify(gate)})) { clearInterval(wait); fs.writeFileSync(${JSON.stringify(record)}, input) }
  }, 10)
})
`,
    })
    await fileHooks(root).afterRun({ snapshot, result: { status: 'completed', iterations: 3, outputText: 'Done.' } })
    expect(fs.existsSync(record)).toBe(false)
    fs.writeFileSync(gate, '')
    const input = JSON.parse(await waitForFile(record, 20000))
    expect(input).toMatchObject({
      hookName: 'agent_end',
      iteration: 3,
      turn: { outputText: 'Done.', status: 'completed' },
      taskComplete: { taskMetadata: {} },
    })
  })

  test('an aborted run fires agent_abort then session_shutdown; detachAsyncHooks: false awaits them and reports their runtime', async () => {
    const dir = makeTempDir()
    const root = workspace({
      'TaskCancel.cjs': program({ verdict: {}, record: path.join(dir, 'abort.json') }),
      'SessionShutdown.cjs': program({ verdict: {}, record: path.join(dir, 'shutdown.json') }),
      'TaskError.cjs': program({ verdict: {}, record: path.join(dir, 'error.json') }),
    })
    const runtimes = []
    const hooks = fileHooks(root, { detachAsyncHooks: false, onHookRuntime: (event) => runtimes.push(event) })
    await hooks.afterRun({ snapshot, result: { status: 'aborted', iterations: 1, outputText: '', error: { name: 'Error', message: 'user cancelled' } } })
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'abort.json'), 'utf8'))).toMatchObject({
      hookName: 'agent_abort',
      reason: 'user cancelled',
      taskCancel: { taskMetadata: {} },
    })
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'shutdown.json'), 'utf8'))).toMatchObject({
      hookName: 'session_shutdown',
      reason: 'user cancelled',
    })
    expect(fs.existsSync(path.join(dir, 'error.json'))).toBe(false)
    expect(runtimes.map((event) => [event.hookName, event.exitCode, event.exited])).toEqual([
      ['agent_abort', 0, true],
      ['session_shutdown', 0, true],
    ])
  })

  test('a run stopped by a hook fires session_shutdown only: agent_abort is for a cancel (the SDK\'s rule)', async () => {
    const dir = makeTempDir()
    const root = workspace({
      'TaskCancel.cjs': program({ verdict: {}, record: path.join(dir, 'abort.json') }),
      'SessionShutdown.cjs': program({ verdict: {}, record: path.join(dir, 'shutdown.json') }),
    })
    await fileHooks(root, { detachAsyncHooks: false }).afterRun({
      snapshot,
      result: { status: 'aborted', iterations: 1, outputText: '', error: { name: 'ControlledStopError', message: 'No ls here.' } },
    })
    expect(fs.existsSync(path.join(dir, 'abort.json'))).toBe(false)
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'shutdown.json'), 'utf8')).reason).toBe('No ls here.')
  })

  test('a failed run fires agent_error with the error', async () => {
    const record = path.join(makeTempDir(), 'error.json')
    const root = workspace({ 'TaskError.cjs': program({ verdict: {}, record }) })
    await fileHooks(root, { detachAsyncHooks: false }).afterRun({
      snapshot,
      result: { status: 'failed', iterations: 2, outputText: '', error: { name: 'TypeError', message: 'boom', stack: 'at x' } },
    })
    expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toMatchObject({
      hookName: 'agent_error',
      iteration: 2,
      error: { name: 'TypeError', message: 'boom', stack: 'at x' },
    })
  })

  test('by default a TaskStart cancel cannot stop the run (as the SDK); with blockingRunStartHooks it does, and its context is appended', async () => {
    const stopping = workspace({ 'TaskStart.cjs': program({ verdict: { cancel: true, errorMessage: 'Not today.' } }) })
    expect(await fileHooks(stopping, { detachAsyncHooks: false }).beforeRun({ snapshot })).toBeUndefined()
    expect(await fileHooks(stopping, { blockingRunStartHooks: true }).beforeRun({ snapshot })).toEqual({
      stop: true,
      reason: 'Not today.',
    })
    const adding = workspace({ 'TaskStart.cjs': program({ verdict: { contextModification: 'Branch: main' } }) })
    expect(await fileHooks(adding, { blockingRunStartHooks: true }).beforeRun({ snapshot })).toEqual({
      appendContext: 'Branch: main',
    })
  })

  test('with blockingRunStartHooks, a UserPromptSubmit cancel stops the next model call, and its context follows the prompt on every request', async () => {
    const record = path.join(makeTempDir(), 'prompt.json')
    const prompt = { id: 'msg-1', role: 'user', content: [{ type: 'text', text: 'rm -rf /' }], createdAt: 1 }
    const event = { type: 'message-added', snapshot, message: prompt }

    const stopping = workspace({ 'UserPromptSubmit.cjs': program({ verdict: { cancel: true, errorMessage: 'No.' }, record }) })
    const hooks = fileHooks(stopping, { blockingRunStartHooks: true })
    await hooks.onEvent(event)
    expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toMatchObject({
      hookName: 'prompt_submit',
      userPromptSubmit: { prompt: 'rm -rf /', attachments: [] },
    })
    expect(await hooks.beforeModel({ request: { messages: [prompt] } })).toEqual({ stop: true, reason: 'No.' })

    const adding = workspace({ 'UserPromptSubmit.cjs': program({ verdict: { context: 'Use the staging DB.' } }) })
    const contextHooks = fileHooks(adding, { blockingRunStartHooks: true })
    await contextHooks.onEvent(event)
    const reply = { id: 'msg-2', role: 'assistant', content: [], createdAt: 2 }
    for (const messages of [[prompt], [prompt, reply]]) {
      const control = await contextHooks.beforeModel({ request: { messages } })
      expect(control.messages.map((message) => message.id)).toEqual([
        'msg-1',
        'msg-1:hook_context',
        ...messages.slice(1).map((message) => message.id),
      ])
      expect(control.messages[1].content[0].text).toBe('<hook_context source="UserPromptSubmit">\nUse the staging DB.\n</hook_context>')
    }
  })

  test('a run\'s own prompt (last in the conversation at beforeRun) fires prompt_submit once, unwrapped; history does not', async () => {
    const dir = makeTempDir()
    const root = workspace({ 'UserPromptSubmit.cjs': program({ verdict: { cancel: true, errorMessage: 'Not that.' }, record: path.join(dir, 'prompt.json') }) })
    const history = { id: 'old', role: 'user', content: [{ type: 'text', text: 'earlier' }], createdAt: 1 }
    const prompt = { id: 'new', role: 'user', content: [{ type: 'text', text: '<user_input mode="act">Delete prod</user_input>' }], createdAt: 2 }
    const run = { snapshot: { ...snapshot, messages: [history, prompt] } }

    const blocking = fileHooks(root, { blockingRunStartHooks: true })
    expect(await blocking.beforeRun(run)).toEqual({ stop: true, reason: 'Not that.' })
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'prompt.json'), 'utf8')).userPromptSubmit).toEqual({ prompt: 'Delete prod', attachments: [] })
    // Seen once: a later event or run for the same message fires nothing.
    fs.rmSync(path.join(dir, 'prompt.json'))
    await blocking.onEvent({ type: 'message-added', snapshot, message: prompt })
    expect(await blocking.beforeRun(run)).toBeUndefined()
    expect(fs.existsSync(path.join(dir, 'prompt.json'))).toBe(false)

    // Not blocking: the hook runs, its cancel cannot stop the run (as the SDK's runner).
    expect(await fileHooks(root, { detachAsyncHooks: false }).beforeRun(run)).toBeUndefined()
    expect(fs.existsSync(path.join(dir, 'prompt.json'))).toBe(true)
  })

  test('messages the SDK itself adds (displayRole system) fire no prompt_submit', async () => {
    const record = path.join(makeTempDir(), 'prompt.json')
    const root = workspace({ 'UserPromptSubmit.cjs': program({ verdict: {}, record }) })
    const hooks = fileHooks(root, { detachAsyncHooks: false })
    await hooks.onEvent({
      type: 'message-added',
      snapshot,
      message: { id: 'm', role: 'user', content: [{ type: 'text', text: 'ctx' }], metadata: { displayRole: 'system' } },
    })
    expect(fs.existsSync(record)).toBe(false)
  })
})

describe('createFileHooks: a hook its header skips', () => {
  // `tools=write_to_file`: the hook is not for a read_file call. The runtime reports it
  // `skipped` (`started: false`, with a `skipReason`); that is not a guardrail that failed to run.
  const onlyWrites = (verdict) => `// cline-hook: tools=write_to_file\n${program({ verdict })}`
  const call = (toolName) => ({ ...toolContext, toolCall: { toolCallId: 'call-1', toolName }, input: { path: 'a.txt' } })
  const result = (toolName) => ({
    ...call(toolName),
    result: { output: 'text', isError: false },
    startedAt: new Date(0),
    endedAt: new Date(1),
    durationMs: 1,
  })

  test('a tool_call hook skipped for another tool never stops it; for its own tool it still does', async () => {
    const root = workspace({ 'PreToolUse.cjs': onlyWrites({ cancel: true, errorMessage: 'no writes' }) })
    const hooks = fileHooks(root)
    expect(await hooks.beforeTool(call('read_file'))).toBeUndefined()
    expect(await hooks.beforeTool(call('write_to_file'))).toEqual({ stop: true, reason: 'no writes' })
  })

  test('a tool_result hook skipped for another tool never stops it; for its own tool it still does', async () => {
    const root = workspace({ 'PostToolUse.cjs': onlyWrites({ cancel: true, errorMessage: 'bad write' }) })
    const hooks = fileHooks(root)
    expect(await hooks.afterTool(result('read_file'))).toBeUndefined()
    expect(await hooks.afterTool(result('write_to_file'))).toEqual({ stop: true, reason: 'bad write' })
  })

  test('a skipped hook beside one that ran: the one that ran decides', async () => {
    const root = workspace({
      'PreToolUse .cjs': onlyWrites({ cancel: true, errorMessage: 'no writes' }),
      'PreToolUse  .cjs': program({ verdict: { context: 'reads are fine' } }),
    })
    expect(await fileHooks(root).beforeTool(call('read_file'))).toEqual({ appendContext: 'reads are fine' })
  })
})

describe('createFileHooks: maxTimeoutMs', () => {
  test('caps a header\'s timeout=: a hook asking for 20 s that hangs is stopped at the cap, with its whole tree', async () => {
    const dir = makeTempDir()
    const pids = { hook: path.join(dir, 'hook.pid'), child: path.join(dir, 'child.pid') }
    const root = workspace({
      'PreToolUse.cjs': `// cline-hook: timeout=20s
const fs = require('fs')
fs.writeFileSync(${JSON.stringify(pids.hook)}, String(process.pid))
const child = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
fs.writeFileSync(${JSON.stringify(pids.child)}, String(child.pid))
setInterval(() => {}, 1000)
`,
    })
    const debug = []
    const warned = []
    const hooks = fileHooks(root, {
      maxTimeoutMs: 1000,
      logger: { log: (message) => warned.push(message), debug: (message) => debug.push(message) },
    })
    const started = Date.now()
    expect(await hooks.beforeTool(toolContext)).toBeUndefined()
    // Stopped near the cap (1 s, then a 250 ms grace), nowhere near its own 20 s.
    expect(Date.now() - started).toBeLessThan(5000)
    expect(warned.join('\n')).toMatch(/PreToolUse\.cjs timedOut/)
    expect(debug.join('\n')).toMatch(/timeout=20000 ms; it ran with the host's maximum, 1000 ms \(maxTimeoutMs\)/)
    for (const file of [pids.hook, pids.child]) {
      const pid = trackPid(Number(fs.readFileSync(file, 'utf8')))
      await waitDead(pid, 5000)
      expect(isAlive(pid)).toBe(false)
    }
  })
})

describe('createFileHooks: process slots', () => {
  test('hooks left running (a TaskStart that starts a watcher) never hold the slots of a guardrail', async () => {
    const pids = makeTempDir()
    const hooks = {}
    // Three long-running TaskStart hooks, more than the limit of 2.
    for (const n of [1, 2, 3]) {
      hooks[`TaskStart${' '.repeat(n)}.cjs`] = `require('fs').writeFileSync(${JSON.stringify(path.join(pids, String(n)))}, String(process.pid)); setTimeout(() => {}, 60000)\n`
    }
    hooks['PreToolUse.cjs'] = program({ verdict: { cancel: true, errorMessage: 'guard' } })
    const root = workspace(hooks)
    const fileHooksWithLimit = fileHooks(root, { maxConcurrentHooks: 2, timeoutMs: 20000 })
    const started = Date.now()
    await fileHooksWithLimit.beforeRun({ snapshot: { ...snapshot, messages: [] } })
    // Not awaited, as the SDK's runner: beforeRun returned while a hook still waits for a slot.
    expect(Date.now() - started).toBeLessThan(5000)
    // Two of them hold both slots of the observation-only hooks; the third waits.
    await waitFor(() => fs.readdirSync(pids).length === 2, { timeoutMs: 20000, what: 'two TaskStart hooks running' })
    expect(await fileHooksWithLimit.beforeTool(toolContext)).toEqual({ stop: true, reason: 'guard' })
    expect(Date.now() - started).toBeLessThan(15000)
    const { terminateAll } = require('..')
    await terminateAll()
  })

  test('a guardrail that never started (no slot before its timeout) stops the operation, saying so', async () => {
    // Two hooks that hold their slot to the deadline, and a limit of 1: whichever starts first,
    // the other waits for a slot until the shared deadline and never starts.
    const sleeper = `process.stdin.resume(); setTimeout(() => {}, 60000)\n`
    const root = workspace({ 'PreToolUse .cjs': sleeper, 'PreToolUse  .cjs': sleeper })
    const control = await fileHooks(root, { maxConcurrentHooks: 1, timeoutMs: 3000 }).beforeTool(toolContext)
    expect(control.stop).toBe(true)
    expect(control.reason).toMatch(/^The tool_call hooks did not all run \(PreToolUse +\.cjs: .*never started/)
  })
})

describe('createFileHooks: trust and failure policy', () => {
  test('with trust, an unapproved hook does not run until approved; onFailure blocks a crashed guardrail', async () => {
    const { trustHook } = require('..')
    const root = workspace({ 'PreToolUse.cjs': program({ verdict: { cancel: true, errorMessage: 'gate' } }) })
    const policyFile = path.join(makeTempDir(), 'hooks-policy.json')
    const quiet = { logger: { log() {} } }
    const hooks = () => fileHooks(root, { policyFile, trust: 'workspace', ...quiet })
    expect(await hooks().beforeTool(toolContext)).toBeUndefined()
    await trustHook(path.join(root, HOOKS, 'PreToolUse.cjs'), { policyFile })
    expect(await hooks().beforeTool(toolContext)).toMatchObject({ stop: true, reason: 'gate' })

    const crashing = workspace({ 'PreToolUse.cjs': program({ exitCode: 3 }) })
    expect(await fileHooks(crashing, quiet).beforeTool(toolContext)).toBeUndefined()
    const blocked = await fileHooks(crashing, { onFailure: { crash: 'block' }, ...quiet }).beforeTool(toolContext)
    expect(blocked.stop).toBe(true)
    expect(blocked.reason).toMatch(/exited with code 3; blocking because onFailure\.crash is "block"/)
  })
})

describe('createFileHooks: options', () => {
  test('bad options throw at once with ERR_INVALID_OPTION, naming the option', () => {
    const cases = [
      [undefined, /options must be an object/],
      [{}, /workspacePath must be/],
      [{ workspacePath: '/w', workspaceRoot: ['/w'] }, /unknown option "workspaceRoot"/],
      [{ workspacePath: '/w', toolCallTimeoutMs: 5, timeoutMs: 6 }, /name the same per-hook timeout/],
      [{ workspacePath: '/w', logger: console.log }, /logger must be an object with a log/],
      [{ workspacePath: '/w', maxConcurrentHooks: 0 }, /maxConcurrentHooks/],
      [{ workspacePath: '/w', timeoutMs: -5 }, /timeoutMs must be a number of milliseconds from 1 to 86400000/],
      [{ workspacePath: '/w', toolCallTimeoutMs: NaN }, /toolCallTimeoutMs must be a number of milliseconds/],
      [{ workspacePath: '/w', maxTimeoutMs: 0 }, /maxTimeoutMs must be a number of milliseconds from 1 to 86400000/],
      [{ workspacePath: '/w', maxTimeoutMs: Infinity }, /maxTimeoutMs must be a number of milliseconds/],
      [{ workspacePath: '/w', env: 5 }, /env must be a plain object/],
      [{ workspacePath: '/w', env: { A: null } }, /env\.A must be a string without NUL/],
      [{ workspacePath: '/w', signal: {} }, /signal must be an AbortSignal/],
      [{ workspacePath: '/w', sequential: 'yes' }, /sequential must be true or false/],
      [{ workspacePath: '/w', blockingRunStartHooks: 'true' }, /blockingRunStartHooks must be true or false/],
      [{ workspacePath: '/w', rootSessionId: 5 }, /rootSessionId must be a string/],
      [{ workspacePath: '/w', logger: { log() {}, debug: 5 } }, /logger must be an object with a log/],
      [{ workspacePath: '/w', onFailure: 'deny' }, /onFailure must be "allow", "block"/],
      [{ workspacePath: '/w', onFailure: { timout: 'block' } }, /onFailure\.timout is not a kind of failure/],
      [{ workspacePath: '/w', scrubEnv: ['A=B'] }, /scrubEnv must be/],
      [{ workspacePath: '/w', trust: 'workspace', policyFile: null }, /needs a policy store/],
    ]
    for (const [options, message] of cases) {
      let error
      try {
        createFileHooks(options)
      } catch (caught) {
        error = caught
      }
      expect(error.name).toBe('TypeError')
      expect(error.code).toBe('ERR_INVALID_OPTION')
      expect(error.message).toMatch(message)
    }
  })

  test('an aborted signal: a blocking event stops with a reason that says the hooks could not run', async () => {
    const root = workspace({ 'PreToolUse.cjs': program({ verdict: {} }) })
    const logged = []
    const hooks = fileHooks(root, { signal: AbortSignal.abort(), logger: { log: (message) => logged.push(message) } })
    const control = await hooks.beforeTool(toolContext)
    expect(control.stop).toBe(true)
    expect(control.reason).toMatch(/^The tool_call hooks could not run \(ABORT_ERR\)/)
    expect(logged.join('\n')).toMatch(/tool_call hooks could not run/)
  })

  test('the ES module entry and the package name export the same function', () => {
    const check = `
      import { createFileHooks } from '@cline/hooks/sdk'
      import { createRequire } from 'node:module'
      const cjs = createRequire(import.meta.url)('@cline/hooks/sdk')
      if (createFileHooks !== cjs.createFileHooks) throw new Error('two copies')
      console.log(typeof createFileHooks)`
    const out = nodeSync(['--input-type=module', '-e', check], { cwd: ROOT, encoding: 'utf8' })
    expect(out.stderr).toBe('')
    expect(out.stdout.trim()).toBe('function')
  })
})
