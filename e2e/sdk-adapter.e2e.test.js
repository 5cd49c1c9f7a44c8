// `createFileHooks` (`@cline/hooks/sdk`) in an SDK host: the real @cline/core 0.0.86 running a
// task in-process (no CLI binary) with its own file hooks left out and ours passed in their place,
// so each hook runs exactly once. The same cases as the plugin's, plus the payload: a hook reads
// the same JSON from our runner as from the SDK's own.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const { startModelServer, requestText } = require('./support/model-server')
const { runSdkTask } = require('./support/sdk-host')
const { makeTempDir, removeTempDirs, writeFileHook, shellQuote } = require('./support/workspace')
const { waitForNoProcesses, isAlive, killProcessesOfRun } = require('./support/processes')
const { createFileHooks } = require('../sdk')

afterAll(removeTempDirs)

const COMMAND = 'echo made-by-command > made.txt'
const runCommandsTurn = { toolCall: { name: 'run_commands', arguments: { commands: [COMMAND] } } }

/** A workspace whose `.clinerules/hooks/PreToolUse` appends a line to `ran` and then runs `body`. */
function setup(body) {
  const workspace = makeTempDir('ws')
  const records = makeTempDir('records')
  const ran = path.join(records, 'ran')
  writeFileHook(workspace, 'PreToolUse', `cat > ${shellQuote(path.join(records, 'input.json'))}\necho "$$" >> ${shellQuote(ran)}\n${body}`)
  return { workspace, records, ran }
}

const runs = (ran) => (fs.existsSync(ran) ? fs.readFileSync(ran, 'utf8').trim().split('\n').length : 0)

/**
 * A hook's payload with what differs per run replaced by its kind, without `workspaceInfo` (the
 * SDK host builds it; a host passes it to createFileHooks).
 */
function shape(payload, workspace) {
  const { workspaceInfo, ...rest } = payload
  return JSON.parse(
    JSON.stringify(rest)
      .replaceAll(workspace, '<workspace>')
      .replace(/"(timestamp|startedAt|endedAt)":"[^"]+"/g, '"$1":"<iso>"')
      .replace(/"(executionTimeMs|durationMs)":\d+/g, '"$1":0')
      .replace(/"(taskId|rootSessionId|agent_id|conversationId|id)":"[^"]+"/g, '"$1":"<id>"'),
  )
}

/** createFileHooks for `workspace`, the user's global folders kept out. */
function fileHooks(workspace, extra = {}) {
  return createFileHooks({ workspacePath: workspace, globalHooksDir: null, clineDir: makeTempDir('cline-dir'), ...extra })
}

describe('createFileHooks in an SDK host (built-in file hooks left out)', () => {
  let server
  afterEach(() => server?.close())

  async function task(workspace, hooks) {
    server = await startModelServer({ script: [runCommandsTurn], maxRequests: 10, maxSeconds: 150 })
    return runSdkTask({ workspace, prompt: 'Create made.txt please.', server, hooks })
  }

  test('control: a hook that allows runs exactly once, then the command runs and the task completes', async () => {
    const { workspace, ran } = setup(`echo '{"cancel": false}'`)
    const result = await task(workspace, fileHooks(workspace))
    expect(result.error).toBeUndefined()
    expect(result.finishReason).toBe('completed')
    expect(runs(ran)).toBe(1)
    expect(fs.readFileSync(path.join(workspace, 'made.txt'), 'utf8')).toBe('made-by-command\n')
    expect(await waitForNoProcesses(result.runId)).toEqual([])
  })

  test('a PreToolUse hook that cancels: the command never runs, and the run reports the hook\'s reason', async () => {
    const reason = 'e2e: the SDK host\'s hook refused the command'
    const { workspace, ran } = setup(`echo ${shellQuote(JSON.stringify({ cancel: true, errorMessage: reason }))}`)
    const result = await task(workspace, fileHooks(workspace))
    expect(runs(ran)).toBe(1)
    expect(result.finishReason).toBe('aborted')
    expect(result.stopReason).toBe(reason)
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
    expect(server.requests).toHaveLength(1)
  })

  test('context from a PreToolUse hook reaches the model in the next request', async () => {
    const context = 'E2E-CONTEXT-51c2: run the tests with --runInBand'
    const { workspace } = setup(`echo ${shellQuote(JSON.stringify({ context }))}`)
    const result = await task(workspace, fileHooks(workspace))
    expect(result.finishReason).toBe('completed')
    expect(requestText(server.requests[0])).not.toContain(context)
    expect(requestText(server.requests[1])).toContain(context)
  })

  test('overrideInput changes the command that actually runs', async () => {
    const replacement = 'echo replaced-by-hook > replaced.txt'
    const { workspace } = setup(`echo ${shellQuote(JSON.stringify({ overrideInput: { commands: [replacement] } }))}`)
    const result = await task(workspace, fileHooks(workspace))
    expect(result.finishReason).toBe('completed')
    expect(fs.readFileSync(path.join(workspace, 'replaced.txt'), 'utf8')).toBe('replaced-by-hook\n')
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
  })

  test('a hook that hangs with a grandchild holding stdout: decided within the timeout, no process left', async () => {
    const { workspace, records } = setup(
      [`echo '{"cancel": true, "errorMessage": "printed before the hang"}'`, 'sleep 300 &', `echo "$$ $!" > pids`, 'sleep 300'].join('\n'),
    )
    const started = Date.now()
    const result = await task(workspace, fileHooks(workspace, { toolCallTimeoutMs: 2000 }))
    expect(Date.now() - started).toBeLessThan(30000)
    expect(result.finishReason).toBe('aborted')
    expect(result.stopReason).toBe('printed before the hang')
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
    const [hook, grandchild] = fs.readFileSync(path.join(workspace, 'pids'), 'utf8').trim().split(' ').map(Number)
    expect(isAlive(hook)).toBe(false)
    expect(isAlive(grandchild)).toBe(false)
    expect(await waitForNoProcesses(result.runId)).toEqual([])
    expect(fs.existsSync(records)).toBe(true)
  })

  test('with blockingRunStartHooks, a UserPromptSubmit cancel stops the run before the model is asked', async () => {
    const workspace = makeTempDir('ws')
    const record = path.join(makeTempDir('records'), 'prompt.json')
    writeFileHook(workspace, 'UserPromptSubmit', `cat > ${shellQuote(record)}\necho '{"cancel": true, "errorMessage": "prompt refused"}'`)
    const result = await task(workspace, fileHooks(workspace, { blockingRunStartHooks: true }))
    expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toMatchObject({
      hookName: 'prompt_submit',
      userPromptSubmit: { prompt: expect.stringContaining('Create made.txt please.'), attachments: [] },
    })
    expect(result.finishReason).toBe('aborted')
    expect(result.stopReason).toBe('prompt refused')
    expect(server.requests).toHaveLength(0)
  })

  test('with blockingRunStartHooks, UserPromptSubmit and TaskStart context reach the model\'s first request', async () => {
    const workspace = makeTempDir('ws')
    writeFileHook(workspace, 'UserPromptSubmit', `cat > /dev/null\necho '{"contextModification": "PROMPT-CONTEXT-9d1"}'`)
    writeFileHook(workspace, 'TaskStart', `cat > /dev/null\necho '{"contextModification": "START-CONTEXT-4e7"}'`)
    const result = await task(workspace, fileHooks(workspace, { blockingRunStartHooks: true }))
    expect(result.finishReason).toBe('completed')
    expect(requestText(server.requests[0])).toContain('PROMPT-CONTEXT-9d1')
    expect(requestText(server.requests[0])).toContain('START-CONTEXT-4e7')
    // The prompt's context stays with the prompt on the next request too.
    expect(requestText(server.requests[1])).toContain('PROMPT-CONTEXT-9d1')
  })
})

describe('the payload a hook reads: ours and the SDK\'s own runner', () => {
  let server
  afterEach(() => server?.close())

  /** Runs one task in `workspace` with the PreToolUse and PostToolUse hooks recording their input. */
  async function recorded(useOurs) {
    const workspace = makeTempDir('ws')
    const records = makeTempDir('records')
    for (const [event, file] of [['PreToolUse', 'pre.json'], ['PostToolUse', 'post.json']]) {
      writeFileHook(workspace, event, `cat > ${shellQuote(path.join(records, file))}\necho '{}'`)
    }
    server = await startModelServer({ script: [runCommandsTurn], maxRequests: 10, maxSeconds: 150 })
    const result = await runSdkTask({
      workspace,
      prompt: 'Create made.txt please.',
      server,
      ...(useOurs ? { hooks: fileHooks(workspace) } : { configExtensions: ['rules', 'skills', 'workflows', 'hooks'] }),
    })
    server.close()
    expect(result.finishReason).toBe('completed')
    const read = (file) => JSON.parse(fs.readFileSync(path.join(records, file), 'utf8'))
    return { workspace, pre: read('pre.json'), post: read('post.json') }
  }

  test('tool_call and tool_result payloads are the same, field for field and in order', async () => {
    const sdk = await recorded(false)
    const ours = await recorded(true)
    expect(sdk.pre.workspaceInfo).toEqual(expect.any(Object))
    expect(ours.pre).not.toHaveProperty('model')
    for (const event of ['pre', 'post']) {
      const theirs = shape(sdk[event], sdk.workspace)
      const mine = shape(ours[event], ours.workspace)
      expect(Object.keys(mine)).toEqual(Object.keys(theirs))
      expect(mine).toEqual(theirs)
    }
  })
})

describe('lifecycle events: ours and the SDK\'s own runner (found by the attack on issue 13)', () => {
  let server
  afterEach(() => server?.close())
  const EVENTS = ['TaskStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'TaskComplete', 'TaskError', 'TaskCancel', 'SessionShutdown']

  /** Runs one task with every event's hook recording its input; returns `{ event: [payload] }`. */
  async function fired(useOurs, preToolUse) {
    const workspace = makeTempDir('ws')
    const records = makeTempDir('records')
    for (const event of EVENTS) {
      const answer = event === 'PreToolUse' ? `echo ${shellQuote(JSON.stringify(preToolUse))}` : `echo '{}'`
      writeFileHook(workspace, event, `cat > ${shellQuote(records)}/${event}.$(date +%s%N).json\n${answer}`)
    }
    const server = await startModelServer({ script: [runCommandsTurn], maxRequests: 10, maxSeconds: 150 })
    const result = await runSdkTask({
      workspace,
      prompt: 'Create made.txt please.',
      server,
      ...(useOurs
        ? { hooks: fileHooks(workspace, { detachAsyncHooks: false }) }
        : { configExtensions: ['rules', 'skills', 'workflows', 'hooks'] }),
    })
    server.close()
    // The SDK's runner leaves its lifecycle hooks running: wait for them to have written.
    await waitForNoProcesses(result.runId)
    const out = {}
    for (const file of fs.readdirSync(records).sort()) {
      ;(out[file.split('.')[0]] ??= []).push(JSON.parse(fs.readFileSync(path.join(records, file), 'utf8')))
    }
    return { out, workspace }
  }

  for (const [label, verdict] of [
    ['a task that completes', {}],
    ['a task a PreToolUse hook stops (no TaskCancel: that is for a cancel)', { cancel: true, errorMessage: 'blocked' }],
  ]) {
    test(`${label}: the same events with the same payloads, plus UserPromptSubmit for the task's prompt`, async () => {
      const sdk = await fired(false, verdict)
      const ours = await fired(true, verdict)
      const { UserPromptSubmit, ...ourOthers } = ours.out
      expect(UserPromptSubmit).toHaveLength(1)
      expect(sdk.out.UserPromptSubmit).toBeUndefined()
      expect(Object.keys(ourOthers).sort()).toEqual(Object.keys(sdk.out).sort())
      for (const event of Object.keys(sdk.out)) {
        expect(ourOthers[event].map((p) => shape(p, ours.workspace))).toEqual(sdk.out[event].map((p) => shape(p, sdk.workspace)))
      }
    })
  }

  test('16 long-running TaskStart hooks do not starve the PreToolUse guardrail', async () => {
    const workspace = makeTempDir('ws')
    const dir = path.join(workspace, '.clinerules', 'hooks')
    fs.mkdirSync(dir, { recursive: true })
    // 16 TaskStart hooks (names differing in case) that take 20 s: uploads, a slow `git fetch`.
    for (let mask = 1; mask <= 16; mask++) {
      const name = [...'taskstart'].map((c, i) => ((mask >> i) & 1 ? c.toUpperCase() : c)).join('')
      fs.writeFileSync(path.join(dir, `${name}.sh`), 'cat > /dev/null\nsleep 20\n')
    }
    fs.writeFileSync(path.join(dir, 'PreToolUse.sh'), `cat > /dev/null\necho '{"cancel": true, "errorMessage": "GUARD"}'\n`)
    server = await startModelServer({ script: [runCommandsTurn], maxRequests: 10, maxSeconds: 150 })
    const result = await runSdkTask({
      workspace,
      prompt: 'Create made.txt please.',
      server,
      hooks: fileHooks(workspace, { maxConcurrentHooks: 16, toolCallTimeoutMs: 10000 }),
    })
    killProcessesOfRun(result.runId)
    expect(result.stopReason).toBe('GUARD')
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
  })
})
