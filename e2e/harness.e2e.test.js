// Tests of the end-to-end harness itself (e2e/support/): the scripted model's wire format, records
// and bounds; the CLI runner's time limit and its view of processes a run leaves behind; the
// settings-file shortcut for `cline auth`; the SDK host's time limit. The control and hook cases'
// assertions ("no process left", "the reason is reported") are only as good as these.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const NodeModule = require('node:module')

const { startModelServer, requestText } = require('./support/model-server')
const { runCline, finishReason, writeProviderSettings, clineEnv } = require('./support/cline-cli')
const { runSdkTask } = require('./support/sdk-host')
const { makeTempDir, removeTempDirs, writeFileHook, shellQuote } = require('./support/workspace')
const { processesOfRun, killProcessesOfRun, waitForNoProcesses, isAlive, waitForGroupGone } = require('./support/processes')
const { CLINE_WRAPPER } = require('./support/install')

afterAll(removeTempDirs)

// Reads a server-sent-events body into its `data:` payloads.
function sseData(text) {
  return text.split('\n\n').filter(Boolean).map((block) => block.replace(/^data: /, ''))
}

describe('the scripted model server', () => {
  test('streams a tool call, then answers plain JSON, and records both request bodies', async () => {
    const server = await startModelServer({
      script: [{ toolCall: { name: 'run_commands', arguments: { commands: ['true'] } } }],
      finalText: 'finished',
    })
    try {
      const post = (body) => fetch(`${server.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

      const streamed = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'first request' }] })
      expect(streamed.headers.get('content-type')).toBe('text/event-stream')
      const data = sseData(await streamed.text())
      expect(data.at(-1)).toBe('[DONE]')
      const chunks = data.slice(0, -1).map((d) => JSON.parse(d))
      const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta))
      const call = deltas.flatMap((d) => d.tool_calls ?? [])
      expect(call[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'run_commands' } })
      expect(JSON.parse(call.map((c) => c.function.arguments).join(''))).toEqual({ commands: ['true'] })
      expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['tool_calls'])

      const plain = await post({ model: 'm', messages: [{ role: 'user', content: 'second request' }] })
      const json = await plain.json()
      expect(json.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'finished' }, finish_reason: 'stop' })

      expect(server.requests.map(requestText)).toEqual(['first request', 'second request'])
      const models = await (await fetch(`${server.url}/models`)).json()
      expect(models.data[0].id).toBe('e2e-model')
    } finally {
      await server.close()
    }
  })

  test('a function script sees each request and its index', async () => {
    const seen = []
    const server = await startModelServer({
      script: (body, index) => {
        seen.push([index, requestText(body)])
        return index === 0 ? { text: 'one' } : null
      },
      finalText: 'two',
    })
    try {
      const ask = async (content) => {
        const res = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content }] }) })
        return (await res.json()).choices[0].message.content
      }
      expect([await ask('a'), await ask('b')]).toEqual(['one', 'two'])
      expect(seen).toEqual([[0, 'a'], [1, 'b']])
    } finally {
      await server.close()
    }
  })

  test('closes itself after maxRequests, and after maxSeconds', async () => {
    const byCount = await startModelServer({ maxRequests: 1 })
    await fetch(`${byCount.url}/chat/completions`, { method: 'POST', body: '{"messages":[]}' })
    await byCount.closed
    expect(byCount.closedBecause).toBe('maxRequests')
    await expect(fetch(`${byCount.url}/chat/completions`, { method: 'POST', body: '{}' })).rejects.toThrow()

    const byTime = await startModelServer({ maxSeconds: 0.2 })
    await byTime.closed
    expect(byTime.closedBecause).toBe('maxSeconds')
  })

  test('does not keep a Node process alive', async () => {
    // A process whose only work is an idle server with a long time cap must still exit at once.
    const script = `require(${JSON.stringify(require.resolve('./support/model-server'))}).startModelServer({ maxSeconds: 600 }).then((s) => console.log(s.port))`
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    const started = Date.now()
    const code = await new Promise((resolve) => child.on('exit', resolve))
    expect(code).toBe(0)
    expect(Date.now() - started).toBeLessThan(30000)
  })
})

describe('the CLI runner', () => {
  let server
  afterEach(() => server?.close())
  const runCommandsTurn = { toolCall: { name: 'run_commands', arguments: { commands: ['echo x > made.txt'] } } }

  test('a run over its time limit is killed with all its processes', async () => {
    const workspace = makeTempDir('ws')
    const records = makeTempDir('records')
    // The PreToolUse hook hangs (the CLI waits up to 120 s for it).
    writeFileHook(workspace, 'PreToolUse', `echo $$ > ${shellQuote(path.join(records, 'hook-pid'))}\nexec sleep 300`)
    server = await startModelServer({ script: [runCommandsTurn], maxSeconds: 150 })

    const result = await runCline({ workspace, prompt: 'Create made.txt.', server, auth: 'file', timeoutMs: 15000 })

    expect(result.timedOut).toBe(true)
    expect(result.signal).toBe('SIGKILL')
    // Killed with the hook still running: no verdict, no tool run, no result.
    expect(finishReason(result)).toBeUndefined()
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
    const hookPid = Number(fs.readFileSync(path.join(records, 'hook-pid'), 'utf8'))
    expect(isAlive(hookPid)).toBe(false)
    expect(await waitForGroupGone(result.pgid)).toEqual([])
    expect(await waitForNoProcesses(result.runId, { timeoutMs: 2000 })).toEqual([])
  })

  test('the leftover check sees a process that left the CLI\'s group, and the cleanup kills it', async () => {
    const workspace = makeTempDir('ws')
    const records = makeTempDir('records')
    // The hook starts a process in a session of its own, then allows the tool.
    writeFileHook(
      workspace,
      'PreToolUse',
      `cat > /dev/null\nsetsid sleep 300 </dev/null >/dev/null 2>&1 &\necho $! > ${shellQuote(path.join(records, 'orphan-pid'))}\necho '{"cancel":false}'`,
    )
    server = await startModelServer({ script: [runCommandsTurn], maxSeconds: 150 })

    const result = await runCline({ workspace, prompt: 'Create made.txt.', server, auth: 'file' })
    const orphan = Number(fs.readFileSync(path.join(records, 'orphan-pid'), 'utf8'))
    try {
      expect(finishReason(result)).toBe('completed')
      expect(await waitForGroupGone(result.pgid)).toEqual([])
      expect(processesOfRun(result.runId).map((p) => p.pid)).toEqual([orphan])
      expect(await waitForNoProcesses(result.runId, { timeoutMs: 300 })).toEqual([expect.objectContaining({ pid: orphan })])
    } finally {
      killProcessesOfRun(result.runId)
    }
    expect(await waitForNoProcesses(result.runId, { timeoutMs: 5000 })).toEqual([])
    expect(isAlive(orphan)).toBe(false)
  })

  test("auth: 'file' writes what `cline auth` writes", async () => {
    const home = makeTempDir('home')
    const url = 'http://127.0.0.1:9/v1'
    const child = spawn(process.execPath, [CLINE_WRAPPER, 'auth', '-p', 'openai-compatible', '-k', 'sk-e2e', '-m', 'e2e-model', '-b', url], {
      cwd: home,
      env: clineEnv({ home, runId: 'auth-compare' }),
      stdio: 'ignore',
      detached: true,
    })
    const code = await new Promise((resolve) => child.on('exit', resolve))
    expect(code).toBe(0)
    const file = path.join(home, '.cline', 'data', 'settings', 'providers.json')
    const real = JSON.parse(fs.readFileSync(file, 'utf8'))
    const realMode = fs.statSync(file).mode & 0o777
    const files = fs.readdirSync(path.join(home, '.cline'), { recursive: true })

    const ours = makeTempDir('home')
    writeProviderSettings(ours, url)
    const written = JSON.parse(fs.readFileSync(file.replace(home, ours), 'utf8'))
    const withoutTime = (s) => ({ ...s, providers: { 'openai-compatible': { ...s.providers['openai-compatible'], updatedAt: 'T' } } })
    expect(withoutTime(written)).toEqual(withoutTime(real))
    expect(fs.statSync(file.replace(home, ours)).mode & 0o777).toBe(realMode)
    expect(fs.readdirSync(path.join(ours, '.cline'), { recursive: true }).sort()).toEqual(files.sort())
  })
})

describe('the SDK host', () => {
  // A runtime hook that never settles wedges a Cline SDK run: abort() returns, but the run, stop()
  // and dispose() stay pending. The host gives up after its time limit plus a grace, reports it,
  // and puts the process environment back.
  test('a task whose hook never settles ends with timedOut and wedged, and the environment is put back', async () => {
    const realEnv = NodeModule._load(require.resolve('./support/real-realm.cjs'), null, false).env
    const homeBefore = realEnv.HOME
    const workspace = makeTempDir('ws')
    const server = await startModelServer({ script: [{ toolCall: { name: 'run_commands', arguments: { commands: ['echo x > made.txt'] } } }] })
    try {
      const result = await runSdkTask({
        workspace,
        prompt: 'Create made.txt.',
        server,
        // A hook that never answers.
        hooks: { beforeTool: () => new Promise(() => {}) },
        timeoutMs: 3000,
      })
      expect(result.timedOut).toBe(true)
      expect(result.wedged).toBe(true)
      expect(result.error.message).toMatch(/did not settle/)
      expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
      expect(realEnv.HOME).toBe(homeBefore)
      expect(realEnv.CLINE_E2E_RUN).toBeUndefined()
      expect(await waitForNoProcesses(result.runId)).toEqual([])
    } finally {
      await server.close()
    }
  })
})
