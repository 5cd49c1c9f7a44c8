// The plugin for the shipped CLI (`@cline/hooks/cline-plugin`) inside the real Cline CLI 3.0.65:
// copied into the workspace's `.cline/plugins/`, the package named by CLINE_HOOKS_PACKAGE, hooks
// in the `--hooks-dir` folder, which the CLI's built-in runner ignores. The workspace's own
// node_modules holds a fake runtime, which the plugin must never load. Each case runs a real task
// against the scripted model and checks what happened to the command the model asked for.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const { startModelServer, requestText } = require('./support/model-server')
const { runCline, finishReason, hookStopReason } = require('./support/cline-cli')
const { makeTempDir, removeTempDirs, shellQuote } = require('./support/workspace')
const { waitForNoProcesses, waitForGroupGone, isAlive } = require('./support/processes')

afterAll(removeTempDirs)

const REPO = path.resolve(__dirname, '..')
const COMMAND = 'echo made-by-command > made.txt'
const runCommandsTurn = { toolCall: { name: 'run_commands', arguments: { commands: [COMMAND] } } }

/**
 * A workspace with the plugin copied into `.cline/plugins/` and, in its node_modules, a fake
 * @cline/hooks that writes `fake` when loaded; and a `--hooks-dir` folder holding `PreToolUse.sh`
 * with `body` (bash; it appends a line to `ran` each time it runs).
 */
function setup(body) {
  const workspace = makeTempDir('ws')
  const plugins = path.join(workspace, '.cline', 'plugins')
  fs.mkdirSync(plugins, { recursive: true })
  fs.copyFileSync(path.join(REPO, 'cline-plugin.js'), path.join(plugins, 'cline-hooks.js'))
  const fake = path.join(makeTempDir('records'), 'fake-runtime-loaded')
  const fakePackage = path.join(workspace, 'node_modules', '@cline', 'hooks')
  fs.mkdirSync(path.join(fakePackage, 'sdk'), { recursive: true })
  fs.writeFileSync(path.join(fakePackage, 'package.json'), JSON.stringify({ name: '@cline/hooks', exports: { './sdk': './sdk/index.js' } }))
  fs.writeFileSync(
    path.join(fakePackage, 'sdk', 'index.js'),
    `require('fs').writeFileSync(${JSON.stringify(fake)}, 'loaded')\nmodule.exports = { createFileHooks: () => ({}) }\n`,
  )
  const hooksDir = makeTempDir('hooks-dir')
  const ran = path.join(makeTempDir('records'), 'ran')
  fs.writeFileSync(
    path.join(hooksDir, 'PreToolUse.sh'),
    `#!/usr/bin/env bash\ncat > /dev/null\necho "$$" >> ${shellQuote(ran)}\n${body}\n`,
    { mode: 0o755 },
  )
  return { workspace, hooksDir, ran, fake }
}

function runs(ran) {
  return fs.existsSync(ran) ? fs.readFileSync(ran, 'utf8').trim().split('\n').length : 0
}

describe('the plugin in the real CLI, running the --hooks-dir folder', () => {
  let server
  afterEach(() => server?.close())

  async function task(hooksDir, workspace, env = {}) {
    server = await startModelServer({ script: [runCommandsTurn], maxRequests: 10, maxSeconds: 150 })
    return runCline({
      workspace,
      prompt: 'Create made.txt please.',
      server,
      args: ['--hooks-dir', hooksDir],
      env: { CLINE_HOOKS_PACKAGE: REPO, ...env },
      auth: 'file',
    })
  }

  test('control: a hook that allows runs once, then the command runs and the task completes', async () => {
    const { workspace, hooksDir, ran, fake } = setup(`echo '{"cancel": false}'`)
    const result = await task(hooksDir, workspace)
    expect(result.timedOut).toBe(false)
    expect(finishReason(result)).toBe('completed')
    expect(runs(ran)).toBe(1)
    expect(fs.existsSync(fake)).toBe(false)
    expect(fs.readFileSync(path.join(workspace, 'made.txt'), 'utf8')).toBe('made-by-command\n')
    expect(await waitForNoProcesses(result.runId)).toEqual([])
  })

  test('a PreToolUse hook that cancels: the command never runs, and the run reports the hook\'s reason', async () => {
    const reason = 'e2e: the plugin\'s hook refused the command'
    const { workspace, hooksDir, ran } = setup(`echo ${shellQuote(JSON.stringify({ cancel: true, errorMessage: reason }))}`)
    const result = await task(hooksDir, workspace)
    expect(result.timedOut).toBe(false)
    expect(runs(ran)).toBe(1)
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
    expect(finishReason(result)).toBe('aborted')
    expect(hookStopReason(result)).toBe(reason)
    expect(server.requests).toHaveLength(1)
    expect(await waitForNoProcesses(result.runId)).toEqual([])
  })

  test('context from a PreToolUse hook reaches the model in the next request', async () => {
    const context = 'E2E-CONTEXT-7f3a: the staging database is read-only'
    const { workspace, hooksDir } = setup(`echo ${shellQuote(JSON.stringify({ contextModification: context }))}`)
    const result = await task(hooksDir, workspace)
    expect(finishReason(result)).toBe('completed')
    expect(server.requests).toHaveLength(2)
    expect(requestText(server.requests[0])).not.toContain(context)
    expect(requestText(server.requests[1])).toContain(context)
  })

  test('overrideInput changes the command that actually runs', async () => {
    const replacement = 'echo replaced-by-hook > replaced.txt'
    const { workspace, hooksDir } = setup(`echo ${shellQuote(JSON.stringify({ overrideInput: { commands: [replacement] } }))}`)
    const result = await task(hooksDir, workspace)
    expect(finishReason(result)).toBe('completed')
    expect(fs.readFileSync(path.join(workspace, 'replaced.txt'), 'utf8')).toBe('replaced-by-hook\n')
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
  })

  test('a hook that hangs with a grandchild holding stdout: decided within the plugin\'s timeout, the run goes on, no process left', async () => {
    const pids = path.join(makeTempDir('records'), 'pids')
    // It prints a cancel, then hangs; its grandchild keeps stdout open after it.
    const { workspace, hooksDir } = setup(
      [
        `echo '{"cancel": true, "errorMessage": "printed before the hang"}'`,
        `sleep 300 &`,
        `echo "$$ $!" > ${shellQuote(pids)}`,
        `sleep 300`,
      ].join('\n'),
    )
    // The plugin's default timeout (2.5 s): it must answer inside the CLI's 3 s per call.
    const result = await task(hooksDir, workspace)
    expect(result.timedOut).toBe(false)
    // The plugin answered inside the CLI's 3 s (otherwise the whole run fails): the cancel printed
    // before the hang was kept, and the run stopped with it.
    expect(finishReason(result)).toBe('aborted')
    expect(hookStopReason(result)).toBe('printed before the hang')
    expect(fs.existsSync(path.join(workspace, 'made.txt'))).toBe(false)
    const [hook, grandchild] = fs.readFileSync(pids, 'utf8').trim().split(' ').map(Number)
    expect(isAlive(hook)).toBe(false)
    expect(isAlive(grandchild)).toBe(false)
    expect(await waitForNoProcesses(result.runId)).toEqual([])
    if (result.pgid) expect(await waitForGroupGone(result.pgid)).toEqual([])
  })
})
