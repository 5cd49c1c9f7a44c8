'use strict'

// examples/vscode-extension: it type-checks against index.d.ts, esbuild bundles it as an
// extension is bundled, and the bundle runs in a worker thread standing in for VS Code's
// extension host, over a workspace with real hook files: a PreToolUse that blocks, context that
// reaches the result, the slowest hook shown, a run and a task cancelled while their hook runs,
// and deactivate() stopping a hook that still runs before the host exits.

const fs = require('fs')
const path = require('path')
const { execFile } = require('child_process')
const { Worker } = require('worker_threads')
const { isWindows, makeTempDir, makeWorkspace, hooksDirOf, writeProgram, waitForPid, waitDead, isAlive } = require('./helpers')

const ROOT = path.join(__dirname, '..')
const EXAMPLE = path.join(ROOT, 'examples', 'vscode-extension')

// The build tools are the repository's devDependencies. The Windows lane copies the package into
// a Wine prefix where only Jest is installed (for win32): no TypeScript, and no esbuild, whose
// JS API needs its win32 binary. There the example cannot be built, so these tests are skipped;
// anywhere else a missing tool fails them ("Cannot find module"). tsc is run as the script its
// .bin link points at, with this node: no shell, and the same on every platform.
function resolvable(id) {
  try {
    require.resolve(id)
    return true
  } catch {
    return false
  }
}
const toolsPresent = resolvable('typescript/bin/tsc') && resolvable('esbuild')
const exampleTest =
  isWindows && !toolsPresent
    ? (title, fn) => test.skip(`${title} (skipped on Windows: the Windows lane installs only Jest, not typescript or esbuild, so the example cannot be built there)`, fn)
    : test

const J = JSON.stringify

afterAll(async () => {
  // esbuild's JS API keeps a service process for later builds: end it with the file.
  if (toolsPresent) await require('esbuild').stop()
})

/** Bundles the example as an extension is bundled: its own code in, `vscode` and `@cline/hooks` left to the host. */
async function bundle(outdir) {
  const outfile = path.join(outdir, 'extension.js')
  const result = await require('esbuild').build({
    absWorkingDir: EXAMPLE,
    entryPoints: [path.join(EXAMPLE, 'src', 'extension.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['vscode', '@cline/hooks'],
    outfile,
    logLevel: 'silent',
  })
  return { outfile, result }
}

exampleTest('tsc --noEmit -p examples/vscode-extension: the example type-checks (strict) against index.d.ts', async () => {
  const tsc = require.resolve('typescript/bin/tsc')
  const { code, stdout, stderr } = await new Promise((resolve) => {
    execFile(process.execPath, [tsc, '--noEmit', '-p', EXAMPLE], { cwd: ROOT }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }),
    )
  })
  expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '', stderr: '' })
}, 60000)

exampleTest('esbuild bundles it with --external:vscode --external:@cline/hooks: the bundle requires those two and nothing else', async () => {
  const { outfile, result } = await bundle(makeTempDir('cline-hooks-vsx-'))
  expect(result.errors).toEqual([])
  expect(result.warnings).toEqual([])
  const source = fs.readFileSync(outfile, 'utf8')
  const required = [...new Set([...source.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]))].sort()
  expect(required).toEqual(['@cline/hooks', 'vscode'])
  // The package's loader (which picks the platform's .node file) stays out of the bundle.
  expect(source).not.toMatch(/\.node\b/)
}, 30000)

// ---------------------------------------------------------------------------------------------
// The extension host: a worker thread (a Node environment of its own, as an extension host's is)
// where `vscode` is a small stand-in that posts what the extension shows to the test.

const VSCODE_STAND_IN = `'use strict'
// A stand-in for the 'vscode' module: what the extension shows is posted to the test.
const path = require('path')
const { parentPort, workerData } = require('worker_threads')
const ui = (event) => parentPort.postMessage({ type: 'ui', ...event })
const commands = new Map()
module.exports = {
  window: {
    createOutputChannel: (name) => ({ appendLine: (line) => ui({ kind: 'output', line }), dispose() {} }),
    createStatusBarItem: () => ({
      text: '',
      tooltip: undefined,
      show() { ui({ kind: 'status', text: this.text, tooltip: this.tooltip }) },
      hide() {},
      dispose() {},
    }),
    showErrorMessage: async (message) => { ui({ kind: 'error', message }); return undefined },
  },
  workspace: {
    workspaceFolders: workerData.folders.map((fsPath, index) => ({ uri: { fsPath }, name: path.basename(fsPath), index })),
    getConfiguration: (section) => ({
      get: (key, fallback) => (workerData.settings[section + '.' + key] ?? fallback),
    }),
  },
  commands: {
    registerCommand: (id, callback) => { commands.set(id, callback); return { dispose: () => commands.delete(id) } },
    executeCommand: async (id, ...args) => commands.get(id)(...args),
  },
}
`

// The host's side: 'vscode' and '@cline/hooks' are resolved by the host, as VS Code's extension
// host resolves 'vscode' for the extensions it loads; then activate, and do what the test asks.
const HOST = `'use strict'
const Module = require('module')
const { parentPort, workerData } = require('worker_threads')
const resolveFilename = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  if (request === 'vscode') return workerData.vscodeStandIn
  if (request === '@cline/hooks') return workerData.hooksPackage
  return resolveFilename.call(this, request, ...rest)
}
const extension = require(workerData.bundle)
const vscode = require('vscode')
const context = { subscriptions: [], extension: { packageJSON: { version: workerData.version } } }
const api = extension.activate(context)
const tasks = new Map()
const controllers = new Map()
const pending = new Set()
function settle(id, promise) {
  const settled = promise.then(
    (result) => parentPort.postMessage({ type: 'settled', id, result }),
    (error) => parentPort.postMessage({ type: 'settled', id, error: { name: error.name, code: error.code, message: error.message } }),
  )
  pending.add(settled)
  settled.finally(() => pending.delete(settled))
}
parentPort.on('message', async (m) => {
  if (m.op === 'startTask') tasks.set(m.taskId, api.startTask(m.taskId))
  if (m.op === 'run') {
    // A run that can be aborted on its own: the extension's "cancel hook" button.
    const controller = m.abortable ? new AbortController() : null
    if (controller) controllers.set(m.id, controller)
    settle(m.id, tasks.get(m.taskId).run(m.hookName, m.data, controller ? { signal: controller.signal } : {}))
  }
  if (m.op === 'abortRun') controllers.get(m.runId).abort()
  if (m.op === 'cancelTask') settle(m.id, tasks.get(m.taskId).cancel(m.data))
  if (m.op === 'command') settle(m.id, vscode.commands.executeCommand(m.command))
  if (m.op === 'deactivate') {
    // As VS Code does: await deactivate(), then dispose the subscriptions.
    await extension.deactivate()
    parentPort.postMessage({ type: 'deactivated' })
    await Promise.all(pending)
    for (const disposable of context.subscriptions) disposable.dispose()
    // Nothing left for this thread to do: it exits once nothing else holds its event loop.
    parentPort.unref()
  }
})
parentPort.postMessage({ type: 'activated', api: Object.keys(api) })
`

/** Starts the host; `message(match)` resolves with the first message (from the start) that matches. */
function startHost(workerData) {
  const worker = new Worker(HOST, { eval: true, workerData })
  const messages = []
  const waiters = new Set()
  let failure = null
  const check = () => {
    for (const waiter of waiters) {
      const found = messages.find(waiter.match)
      if (found) {
        waiters.delete(waiter)
        clearTimeout(waiter.timer)
        waiter.resolve(found)
      } else if (failure) {
        waiters.delete(waiter)
        clearTimeout(waiter.timer)
        waiter.reject(failure)
      }
    }
  }
  worker.on('message', (m) => {
    messages.push(m)
    check()
  })
  worker.on('error', (error) => {
    failure = error
    check()
  })
  const exited = new Promise((resolve) => worker.on('exit', resolve))
  exited.then((code) => {
    failure = failure || new Error(`the host exited (code ${code})`)
    check()
  })
  let nextId = 0
  const host = {
    worker,
    messages,
    exited,
    message(match, what, timeoutMs = 15000) {
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve, reject }
        waiter.timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; messages: ${J(messages)}`))
        }, timeoutMs)
        waiters.add(waiter)
        check()
      })
    },
    send(m) {
      worker.postMessage(m)
    },
    /** Sends an operation and returns its id and a promise of its outcome ({ result } or { error }). */
    start(m) {
      const id = ++nextId
      worker.postMessage({ ...m, id })
      return { id, settled: host.message((x) => x.type === 'settled' && x.id === id, `${m.op} ${id} to settle`) }
    },
  }
  return host
}

// How much longer than the global hook the slow workspace hook takes: it answers this long
// after the global hook said it was done, so it is the slowest of its run whatever the load.
const SLOW_MS = 400

/** A hook program that reads its input, then runs `body` with `input` parsed and `say(verdict)`. */
function program(body) {
  return `const fs = require('fs')
const path = require('path')
const say = (verdict) => fs.writeSync(1, JSON.stringify(verdict) + '\\n')
let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (c) => { text += c })
process.stdin.on('end', () => {
  const input = JSON.parse(text)
${body}
})
`
}

exampleTest('in an extension host (a worker): blocks, passes context, reports the slowest hook, cancels runs and tasks, and deactivate() stops what still runs', async () => {
  const out = makeTempDir('cline-hooks-vsx-')
  const { outfile } = await bundle(out)
  const vscodeStandIn = path.join(out, 'vscode-stand-in.js')
  fs.writeFileSync(vscodeStandIn, VSCODE_STAND_IN)

  const globalDir = makeTempDir('cline-hooks-vsx-global-')
  const rootA = makeWorkspace()
  const rootB = makeWorkspace()
  const pids = makeTempDir('cline-hooks-vsx-pids-')
  const done = makeTempDir('cline-hooks-vsx-done-')
  // Says it is done (a file named after the tool) as it answers.
  writeProgram(
    globalDir,
    'PreToolUse',
    program(`  say({ cancel: false, contextModification: 'global: ' + input.preToolUse.tool + ' checked for ' + input.taskId })
  fs.writeFileSync(path.join(${J(done)}, input.preToolUse.tool), '')`),
  )
  // Blocks .js files at once; otherwise answers (or fails) SLOW_MS after the global hook is done.
  const preToolUseA = writeProgram(
    hooksDirOf(rootA),
    'PreToolUse',
    program(`  const { tool, parameters } = input.preToolUse
  if (tool === 'write_to_file' && parameters.path.endsWith('.js')) return say({ cancel: true, errorMessage: 'Use .ts: ' + parameters.path })
  const poll = setInterval(() => {
    if (!fs.existsSync(path.join(${J(done)}, tool))) return
    clearInterval(poll)
    setTimeout(() => {
      if (tool === 'broken') process.exit(3)
      say({ cancel: false, contextModification: 'workspace: task=' + input.taskId + ' version=' + input.clineVersion + ' roots=' + input.workspaceRoots.join('|') })
    }, ${SLOW_MS})
  }, 10)`),
  )
  // Runs until it is stopped, its pid in a file named after the prompt.
  writeProgram(
    hooksDirOf(rootA),
    'UserPromptSubmit',
    program(`  fs.writeFileSync(path.join(${J(pids)}, input.userPromptSubmit.prompt), String(process.pid))
  setInterval(() => {}, 1 << 30)`),
  )
  const taskCancelB = writeProgram(
    hooksDirOf(rootB),
    'TaskCancel',
    program(`  say({ contextModification: 'cleanup for ' + input.taskId + ': ' + input.taskCancel.task })`),
  )

  const host = startHost({
    bundle: outfile,
    vscodeStandIn,
    // The package as a consumer resolves it: this repo (self-reference), or the installed copy.
    hooksPackage: require.resolve('@cline/hooks'),
    version: '9.9.9-example',
    folders: [rootA, rootB],
    settings: { 'clineHooksExample.globalHooksDir': globalDir, 'clineHooksExample.slowHookMs': 250 },
  })
  const ui = (kind, match, what) => host.message((m) => m.type === 'ui' && m.kind === kind && match(m), what)
  const prompt = (taskId, name, extra) =>
    host.start({ op: 'run', taskId, hookName: 'UserPromptSubmit', data: { userPromptSubmit: { prompt: name } }, ...extra })
  const stoppedPids = []
  try {
    expect(await host.message((m) => m.type === 'activated', 'activate')).toEqual({ type: 'activated', api: ['startTask'] })
    host.send({ op: 'startTask', taskId: 'task-1' })
    const preToolUse = (tool, parameters) =>
      host.start({ op: 'run', taskId: 'task-1', hookName: 'PreToolUse', data: { preToolUse: { tool, parameters } } }).settled

    // A PreToolUse that cancels blocks the tool, with its errorMessage, shown to the user.
    const blocked = await preToolUse('write_to_file', { path: 'src/a.js', content: '' })
    expect(blocked.error).toBeUndefined()
    expect(blocked.result).toMatchObject({ cancel: true, errorMessage: 'Use .ts: src/a.js' })
    await ui('output', (m) => m.line === 'PreToolUse: blocked: Use .ts: src/a.js', 'the blocked line')

    // Context from the global hook, then the workspace's, which got the task's id, the
    // extension's version and the task's workspace roots; the slow one is reported.
    const allowed = await preToolUse('read_file', { path: 'src/a.ts' })
    expect(allowed.error).toBeUndefined()
    const { slowest } = allowed.result
    expect(allowed.result).toEqual({
      cancel: false,
      contextModification: `global: read_file checked for task-1\n\nworkspace: task=task-1 version=9.9.9-example roots=${rootA}|${rootB}`,
      errorMessage: '',
      slowest: { hookName: 'PreToolUse', path: preToolUseA, durationMs: expect.any(Number), status: 'completed' },
    })
    expect(slowest.durationMs).toBeGreaterThanOrEqual(SLOW_MS)
    const ms = Math.round(slowest.durationMs)
    await ui('status', (m) => m.text === `$(watch) PreToolUse hook: ${ms} ms`, 'the status bar item')
    const statusItem = host.messages.find((m) => m.kind === 'status' && m.text === `$(watch) PreToolUse hook: ${ms} ms`)
    expect(statusItem.tooltip).toBe(`PreToolUse hook ${preToolUseA} took ${ms} ms`)
    await ui('output', (m) => m.line === `  slowest: PreToolUse hook ${preToolUseA} took ${ms} ms`, 'the slowest hook line')

    // The slowest hook failed: the UI says why, and the other hook's context still counts.
    const broken = await preToolUse('broken', {})
    expect(broken.result).toMatchObject({
      cancel: false,
      contextModification: 'global: broken checked for task-1',
      slowest: { path: preToolUseA, status: 'failed', failure: expect.stringContaining('exited with code 3') },
    })
    const failed = broken.result.slowest
    await ui(
      'output',
      (m) => m.line === `  slowest: PreToolUse hook ${preToolUseA} took ${Math.round(failed.durationMs)} ms (failed: ${failed.failure})`,
      'the failed slowest hook line',
    )

    // One run aborted on its own (a "cancel hook" button): its hook's process is gone, the run
    // rejects with an AbortError, and the task goes on.
    const one = prompt('task-1', 'run-abort', { abortable: true })
    const oneHook = await waitForPid(path.join(pids, 'run-abort'), 15000)
    host.send({ op: 'abortRun', runId: one.id })
    expect((await one.settled).error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' })
    expect(await waitDead(oneHook, 5000)).toBe(true)
    stoppedPids.push(oneHook)

    // The task cancelled while its hook runs: the hook's process is gone, the run rejects with
    // an AbortError, and the task's TaskCancel hooks run after (the second root's, here).
    const running = prompt('task-1', 'task-cancel')
    const runningHook = await waitForPid(path.join(pids, 'task-cancel'), 15000)
    const cancel = host.start({ op: 'cancelTask', taskId: 'task-1', data: { taskCancel: { task: 'Fix the tests' } } })
    expect((await running.settled).error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' })
    expect(await waitDead(runningHook, 5000)).toBe(true)
    stoppedPids.push(runningHook)
    expect((await cancel.settled).result).toMatchObject({
      cancel: false,
      contextModification: 'cleanup for task-1: Fix the tests',
      slowest: { hookName: 'TaskCancel', path: taskCancelB, status: 'completed' },
    })
    // A cancelled task runs no more hooks.
    const late = await prompt('task-1', 'after-cancel').settled
    expect(late.error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' })

    // The command a user runs: a task of its own, and a blocked tool shown as an error.
    const command = await host.start({ op: 'command', command: 'clineHooksExample.tryPreToolUse' }).settled
    expect(command.result).toMatchObject({ cancel: true, errorMessage: 'Use .ts: src/example.js' })
    await ui('error', (m) => m.message === 'PreToolUse blocked the tool: Use .ts: src/example.js', 'the error message')

    // deactivate() while a hook of another task still runs: it resolves once terminateAll()
    // has stopped it (its process is gone by then), and that run reports it aborted.
    host.send({ op: 'startTask', taskId: 'task-2' })
    const last = prompt('task-2', 'deactivate')
    const lastHook = await waitForPid(path.join(pids, 'deactivate'), 15000)
    host.send({ op: 'deactivate' })
    await host.message((m) => m.type === 'deactivated', 'deactivate() to resolve')
    expect(isAlive(lastHook)).toBe(false)
    stoppedPids.push(lastHook)
    expect(host.messages).toContainEqual({ type: 'ui', kind: 'output', line: 'deactivate: stopped 1 running hook(s)' })
    expect((await last.settled).result).toMatchObject({ cancel: false, slowest: { status: 'aborted' } })

    // Nothing holds the host: it exits on its own, with code 0, no hook left running.
    let timer
    const code = await Promise.race([host.exited, new Promise((resolve) => (timer = setTimeout(resolve, 15000, 'still running')))])
    clearTimeout(timer)
    expect(code).toBe(0)
    for (const pid of stoppedPids) expect(isAlive(pid)).toBe(false)
  } finally {
    await host.worker.terminate()
  }
}, 60000)
