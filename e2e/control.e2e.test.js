// Control cases for the end-to-end harness: what the real Cline CLI (3.0.65) does with its own
// built-in file hooks, and what an SDK host does with a runtime hooks object and no file hooks. The
// plugin and SDK-adapter cases build on these; if one of these fails, the harness or Cline changed.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const { startModelServer } = require('./support/model-server')
const { runCline, finishReason, hookStopReason, toolCalls } = require('./support/cline-cli')
const { runSdkTask } = require('./support/sdk-host')
const { makeTempDir, removeTempDirs, writeFileHook, shellQuote } = require('./support/workspace')
const { waitForNoProcesses, waitForGroupGone, isAlive } = require('./support/processes')

afterAll(removeTempDirs)

// The model asks once for `run_commands` with this command, then answers with a final text.
const COMMAND = 'echo made-by-command > made.txt'
const runCommandsTurn = (commands = [COMMAND]) => ({ toolCall: { name: 'run_commands', arguments: { commands } } })

// A PreToolUse hook that records its input and its pid and process group, then prints `verdict`.
function recordingHook(workspace, records, verdict) {
  return writeFileHook(
    workspace,
    'PreToolUse',
    [
      `cat > ${shellQuote(path.join(records, 'hook-input.json'))}`,
      // Field 5 of /proc/PID/stat is the process group (bash's comm has no spaces).
      `read -r _ _ _ _ pgid _ < /proc/$$/stat`,
      `echo "$$ $pgid" > ${shellQuote(path.join(records, 'hook-pid'))}`,
      `printf '%s\\n' ${shellQuote(JSON.stringify(verdict))}`,
    ].join('\n'),
  )
}

function readHookRecord(records) {
  const [pid, pgid] = fs.readFileSync(path.join(records, 'hook-pid'), 'utf8').trim().split(' ').map(Number)
  return { input: JSON.parse(fs.readFileSync(path.join(records, 'hook-input.json'), 'utf8')), pid, pgid }
}

// Nothing the run started is alive: no marked process, nothing in the CLI's group or the hook's.
async function expectNoProcessLeft(result, hook) {
  expect(await waitForNoProcesses(result.runId)).toEqual([])
  if (result.pgid) expect(await waitForGroupGone(result.pgid)).toEqual([])
  if (hook) {
    expect(isAlive(hook.pid)).toBe(false)
    expect(await waitForGroupGone(hook.pgid)).toEqual([])
  }
}

describe('the real CLI runs its built-in file hooks', () => {
  let server
  afterEach(() => server?.close())

  test('a PreToolUse hook that allows: it runs, then the command runs, and the run completes', async () => {
    const workspace = makeTempDir('ws')
    const records = makeTempDir('records')
    recordingHook(workspace, records, { cancel: false })
    server = await startModelServer({ script: [runCommandsTurn()], maxRequests: 10, maxSeconds: 150 })

    const result = await runCline({ workspace, prompt: 'Create made.txt.', server })

    expect(result.timedOut).toBe(false)
    expect(result.exitCode).toBe(0)
    expect(finishReason(result)).toBe('completed')
    expect(fs.readFileSync(path.join(workspace, 'made.txt'), 'utf8')).toBe('made-by-command\n')
    const hook = readHookRecord(records)
    expect(hook.input).toMatchObject({ hookName: 'tool_call', tool_call: { name: 'run_commands', input: { commands: [COMMAND] } } })
    expect(toolCalls(result)).toEqual([expect.objectContaining({ toolName: 'run_commands', input: { commands: [COMMAND] } })])
    // The command's result went back to the model, which then finished.
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1].messages.some((m) => m.role === 'tool')).toBe(true)
    expect(hookStopReason(result)).toBeUndefined()
    await expectNoProcessLeft(result, hook)
  })

  test('a PreToolUse hook that cancels: the command never runs; the reason is only in the log', async () => {
    const workspace = makeTempDir('ws')
    const records = makeTempDir('records')
    const reason = 'e2e: PreToolUse refused the command'
    recordingHook(workspace, records, { cancel: true, errorMessage: reason })
    server = await startModelServer({ script: [runCommandsTurn()], maxRequests: 10, maxSeconds: 150 })

    const result = await runCline({ workspace, prompt: 'Create made.txt.', server })

    expect(result.timedOut).toBe(false)
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
    const hook = readHookRecord(records)
    expect(hook.input).toMatchObject({ hookName: 'tool_call', tool_call: { name: 'run_commands' } })
    // The built-in runner's behaviour: the run stops (no further model request), the CLI exits 0
    // with finishReason "aborted", its JSON output calls it an external abort, and the hook's reason
    // appears only in ~/.cline/data/logs/cline.log as the ControlledStopError's message.
    expect(result.exitCode).toBe(0)
    expect(finishReason(result)).toBe('aborted')
    expect(server.requests).toHaveLength(1)
    expect(toolCalls(result)).toEqual([])
    expect(result.events).toContainEqual(expect.objectContaining({ type: 'run_aborted', reason: 'external_abort' }))
    expect(result.stdout).not.toContain(reason)
    expect(hookStopReason(result)).toBe(reason)
    await expectNoProcessLeft(result, hook)
  })
})

describe('an SDK host with a runtime hooks object and no file hooks', () => {
  let server
  afterEach(() => server?.close())

  // A file hook that would leave a marker (outside the workspace) if Cline ran it.
  function markerFileHook(workspace) {
    const marker = path.join(makeTempDir('records'), 'file-hook-ran')
    writeFileHook(workspace, 'PreToolUse', `cat > /dev/null\ntouch ${shellQuote(marker)}\necho '{"cancel":false}'`)
    return marker
  }

  test('the passed beforeTool is called and the built-in file hooks are left out', async () => {
    const workspace = makeTempDir('ws')
    const marker = markerFileHook(workspace)
    const calls = []
    const hooks = {
      beforeTool: async (ctx) => {
        calls.push({ toolName: ctx.toolCall.toolName, input: ctx.input })
        return undefined
      },
    }
    server = await startModelServer({ script: [runCommandsTurn()], maxRequests: 10, maxSeconds: 150 })

    const result = await runSdkTask({ workspace, prompt: 'Create made.txt.', hooks, server })

    expect(result.error).toBeUndefined()
    expect(result.finishReason).toBe('completed')
    expect(calls).toEqual([{ toolName: 'run_commands', input: { commands: [COMMAND] } }])
    expect(fs.readFileSync(path.join(workspace, 'made.txt'), 'utf8')).toBe('made-by-command\n')
    expect(fs.existsSync(marker)).toBe(false)
    expect(await waitForNoProcesses(result.runId)).toEqual([])
  })

  test('control: with "hooks" in configExtensions the same file hook does run', async () => {
    const workspace = makeTempDir('ws')
    const marker = markerFileHook(workspace)
    server = await startModelServer({ script: [runCommandsTurn()], maxRequests: 10, maxSeconds: 150 })

    const result = await runSdkTask({
      workspace,
      prompt: 'Create made.txt.',
      server,
      hooks: { beforeTool: async () => undefined },
      configExtensions: ['rules', 'skills', 'workflows', 'hooks'],
    })

    expect(result.finishReason).toBe('completed')
    expect(fs.existsSync(marker)).toBe(true)
    expect(await waitForNoProcesses(result.runId)).toEqual([])
  })

  test('beforeTool returning { stop: true, reason }: the command never runs, the reason is reported', async () => {
    const workspace = makeTempDir('ws')
    const reason = 'e2e: beforeTool stopped the run'
    server = await startModelServer({ script: [runCommandsTurn()], maxRequests: 10, maxSeconds: 150 })

    const result = await runSdkTask({
      workspace,
      prompt: 'Create made.txt.',
      server,
      hooks: { beforeTool: async () => ({ stop: true, reason }) },
    })

    expect(result.error).toBeUndefined()
    expect(result.finishReason).toBe('aborted')
    expect(result.stopReason).toBe(reason)
    expect(result.result.toolCalls).toEqual([])
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
    expect(server.requests).toHaveLength(1)
    expect(await waitForNoProcesses(result.runId)).toEqual([])
  })

  test('beforeTool returning { input }: the replacement command runs instead', async () => {
    const workspace = makeTempDir('ws')
    // It also shows that commands run with the run's marker (what the leftover check looks for) and
    // its temp HOME.
    const replacement = 'printf "%s %s\\n" "$CLINE_E2E_RUN" "$HOME" > replaced.txt'
    server = await startModelServer({ script: [runCommandsTurn()], maxRequests: 10, maxSeconds: 150 })

    const result = await runSdkTask({
      workspace,
      prompt: 'Create made.txt.',
      server,
      hooks: { beforeTool: async () => ({ input: { commands: [replacement] } }) },
    })

    expect(result.error).toBeUndefined()
    expect(result.finishReason).toBe('completed')
    expect(fs.readFileSync(path.join(workspace, 'replaced.txt'), 'utf8')).toBe(`${result.runId} ${result.home}\n`)
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
    expect(result.result.toolCalls).toEqual([expect.objectContaining({ name: 'run_commands', input: { commands: [replacement] } })])
    // The model saw the replacement's result, not the command it asked for.
    const toolMessage = server.requests[1].messages.find((m) => m.role === 'tool')
    expect(JSON.parse(toolMessage.content)).toEqual([expect.objectContaining({ query: replacement, success: true })])
    expect(await waitForNoProcesses(result.runId)).toEqual([])
  })
})
