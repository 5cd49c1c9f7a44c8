// The `cli` profile against the real @cline/core 0.0.86 file-hook runner, field by field (issue
// 34): the same hook files, in the same folders, run once by the SDK's `createHookConfigFileHooks`
// and once by our `createFileHooks`, each in a Node process of its own started with the same
// environment (e2e/support/file-hook-runners.cjs). Each case compares what the hooks decided and
// what they were given: the run order (whose `overrideInput` wins, the order contexts are joined
// in), `CLINE_BUILD_ENV`, the payload's fields, and output written after the hook's own process
// exited (the SDK's 1 s grace).
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { makeTempDir, removeTempDirs, shellQuote } = require('./support/workspace')
const { assertClineInstalled } = require('./support/install')
const { MARKER_VAR, newRunId, killProcessesOfRun } = require('./support/processes')

const DRIVER = path.join(__dirname, 'support', 'file-hook-runners.cjs')
const RUNNERS = ['sdk', 'ours']

beforeAll(assertClineInstalled)
afterAll(removeTempDirs)

/** The environment both runners start with: a temp HOME and CLINE_DIR, none of the user's Cline settings. */
function baseEnv(home, extra = {}) {
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('CLINE_') && !key.startsWith('XDG_') && key !== 'NODE_ENV') env[key] = value
  }
  Object.assign(env, { HOME: home, CLINE_DIR: path.join(home, '.cline'), CLINE_SESSION_BACKEND_MODE: 'local', CLINE_NO_AUTO_UPDATE: '1' })
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

/**
 * Lays out `files` ({ 'home:Documents/Cline/Hooks/PreToolUse.sh': body, 'ws:.clinerules/hooks/x': body })
 * under a new HOME and workspace, runs `calls` through `runner`, and returns what each call
 * resolved to and the records the hooks wrote (`$RECORDS`).
 */
function run(runner, files, calls, { env = {}, nodeArgs = [], audit = false } = {}) {
  const home = makeTempDir('home')
  const workspace = makeTempDir('ws')
  const records = makeTempDir('records')
  for (const [where, body] of Object.entries(files)) {
    const [root, rel] = where.split(':')
    const file = path.join(root === 'home' ? home : workspace, rel)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, body, { mode: 0o755 })
  }
  const runId = newRunId()
  const child = spawnSync(process.execPath, [...nodeArgs, DRIVER, JSON.stringify({ runner, workspace, calls: calls(workspace), audit })], {
    encoding: 'utf8',
    cwd: workspace,
    timeout: 90000,
    env: baseEnv(home, { RECORDS: records, [MARKER_VAR]: runId, ...(typeof env === 'function' ? env({ home, workspace }) : env) }),
  })
  killProcessesOfRun(runId)
  if (child.status !== 0) throw new Error(`${runner} runner failed (${child.status} ${child.signal}): ${child.stderr}`)
  const read = (name) => {
    const file = path.join(records, name)
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined
  }
  return { results: JSON.parse(child.stdout), read, home, workspace }
}

const snapshot = { agentId: 'agent-1', conversationId: 'conv-1', runId: 'run-1', iteration: 1, parentAgentId: null }
const toolCall = (input = { commands: ['ls'] }) => ({ snapshot, toolCall: { toolCallId: 'call-1', toolName: 'run_commands' }, input })
const toolResult = () => ({
  ...toolCall(),
  result: { output: 'listed', isError: false },
  durationMs: 12,
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:00:00.012Z',
})

/** A bash hook that appends `label` to $RECORDS/order and answers `answer`. */
const bashHook = (label, answer) =>
  `#!/usr/bin/env bash\ncat > /dev/null\necho ${shellQuote(label)} >> "$RECORDS/order"\necho ${shellQuote(JSON.stringify(answer))}\n`
/** The same as a Node hook (no #! line: the .js extension picks Node in both runners). */
const nodeHook = (label, answer) =>
  `const fs = require('fs'); fs.readFileSync(0); fs.appendFileSync(process.env.RECORDS + '/order', ${JSON.stringify(label)} + '\\n'); console.log(${JSON.stringify(JSON.stringify(answer))})\n`

describe('the cli profile and the SDK\'s own file-hook runner (@cline/core 0.0.86), field by field', () => {
  test('run order: every file of every folder by full path as localeCompare sorts, so the same overrideInput wins and contexts join in the same order', () => {
    const hooks = {
      'home:Documents/Cline/Hooks/PreToolUse.sh': 'global',
      'home:.cline/hooks/pretooluse.js': 'cline-dir',
      'ws:.clinerules/hooks/PreToolUse': 'rules-plain',
      'ws:.clinerules/hooks/pretooluse.js': 'rules-lower-js',
      'ws:.clinerules/hooks/PreToolUse.sh': 'rules-upper-sh',
      'ws:.cline/hooks/PRETOOLUSE.sh': 'cline-upper',
    }
    const files = {}
    for (const [where, label] of Object.entries(hooks)) {
      const answer = { context: `from ${label}`, overrideInput: { commands: [`echo ${label}`] } }
      files[where] = where.endsWith('.js') ? nodeHook(label, answer) : bashHook(label, answer)
    }
    const [sdk, ours] = RUNNERS.map((runner) => run(runner, files, () => [{ kind: 'beforeTool', context: toolCall() }]))
    // The SDK runs them one after another: its log is its run order.
    const sdkOrder = sdk.read('order').trim().split('\n')
    expect(sdkOrder).toHaveLength(6)
    // Ours run at once and combine in run order: the context's order is the run order.
    expect(ours.results[0].control.appendContext.split('\n').map((line) => line.replace('from ', ''))).toEqual(sdkOrder)
    expect(ours.results[0].control).toEqual(sdk.results[0].control)
    expect(ours.results[0].control.input).toEqual({ commands: [`echo ${sdkOrder[5]}`] })
    // Letters before case: pretooluse.js runs before PreToolUse.sh (byte order says the reverse).
    expect(sdkOrder.indexOf('rules-lower-js')).toBeLessThan(sdkOrder.indexOf('rules-upper-sh'))
  })

  test('folders: HOME and CLINE_DIR read as the SDK reads them (trimmed), and Documents in HOME even where the desktop names it otherwise', () => {
    const files = {
      'home:Documents/Cline/Hooks/PreToolUse.sh': bashHook('documents', { context: 'documents' }),
      // A desktop in German: the SDK still reads ~/Documents.
      'home:.config/user-dirs.dirs': 'XDG_DOCUMENTS_DIR="$HOME/Dokumente"\n',
      'home:Dokumente/Cline/Hooks/PreToolUse.sh': bashHook('dokumente', { context: 'dokumente' }),
      'home:alt/hooks/PreToolUse.sh': bashHook('cline-dir', { context: 'cline-dir' }),
    }
    const env = ({ home }) => ({ HOME: ` ${home} `, CLINE_DIR: `\t${path.join(home, 'alt')} ` })
    const [sdk, ours] = RUNNERS.map((runner) => run(runner, files, () => [{ kind: 'beforeTool', context: toolCall() }], { env }))
    expect(sdk.read('order').trim().split('\n').sort()).toEqual(['cline-dir', 'documents'])
    expect(ours.results[0].control).toEqual(sdk.results[0].control)
  })

  test('#! lines: one after a byte-order mark, and a shell named in capitals, start as the SDK starts them', () => {
    const files = {
      'ws:.clinerules/hooks/PreToolUse': '\ufeff#!/usr/bin/env python3\nimport json, sys\nsys.stdin.read()\nprint(json.dumps({"context": "python ran"}))\n',
      'ws:.cline/hooks/PreToolUse.sh': '#! /bin/BASH\ncat > /dev/null\necho "{\\"context\\": \\"bash ${BASH_VERSION:+ran}\\"}"\n',
    }
    const [sdk, ours] = RUNNERS.map((runner) => run(runner, files, () => [{ kind: 'beforeTool', context: toolCall() }]))
    expect(sdk.results[0].control).toEqual({ appendContext: 'bash ran\npython ran' })
    expect(ours.results[0].control).toEqual(sdk.results[0].control)
  })

  describe('CLINE_BUILD_ENV, set for every hook by the SDK\'s rule', () => {
    const files = { 'ws:.clinerules/hooks/PreToolUse': '#!/usr/bin/env bash\ncat > /dev/null\necho "{\\"context\\": \\"[${CLINE_BUILD_ENV-unset}]\\"}"\n' }
    for (const [label, env, nodeArgs] of [
      ['nothing set: production', {}, []],
      ['NODE_ENV=development', { NODE_ENV: 'development' }, []],
      ['NODE_ENV=test and the host started with --conditions=development', { NODE_ENV: 'test' }, ['--conditions=development']],
      ['the host\'s own value, kept as written when it names a build', { CLINE_BUILD_ENV: ' Development ' }, []],
      ['a value that names no build is replaced', { CLINE_BUILD_ENV: 'staging', NODE_ENV: 'production' }, ['--conditions=development']],
      ['values trimmed as JavaScript trims (a byte-order mark is a blank, U+0085 is not)', { CLINE_BUILD_ENV: 'development\u0085', NODE_ENV: '\ufeffdevelopment' }, []],
    ]) {
      test(label, () => {
        const [sdk, ours] = RUNNERS.map((runner) => run(runner, files, () => [{ kind: 'beforeTool', context: toolCall() }], { env, nodeArgs }))
        expect(sdk.results[0].control.appendContext).toMatch(/^\[.+\]$/)
        expect(ours.results[0].control).toEqual(sdk.results[0].control)
      })
    }
  })

  test('payloads: tool_call and tool_result carry the same fields in the same order, and no model', () => {
    const record = (name) => `#!/usr/bin/env bash\ncat > "$RECORDS/${name}.json"\necho '{}'\n`
    const files = { 'ws:.clinerules/hooks/PreToolUse': record('pre'), 'ws:.clinerules/hooks/PostToolUse': record('post') }
    const calls = () => [{ kind: 'beforeTool', context: toolCall({ path: 'a.txt', recursive: true }) }, { kind: 'afterTool', context: toolResult() }]
    const [sdk, ours] = RUNNERS.map((runner) => run(runner, files, calls))
    const shape = (text, { workspace }) =>
      JSON.parse(text.replaceAll(workspace, '<workspace>').replace(/"timestamp":"[^"]+"/, '"timestamp":"<iso>"'))
    for (const name of ['pre.json', 'post.json']) {
      const theirs = shape(sdk.read(name), sdk)
      const mine = shape(ours.read(name), ours)
      expect(Object.keys(mine)).toEqual(Object.keys(theirs))
      expect(mine).toEqual(theirs)
      expect(mine).not.toHaveProperty('model')
    }
  })

  describe('output written after the hook\'s own process exited', () => {
    // The hook exits at once, leaving a child that holds its stdout: the child waits for the hook
    // to be gone (no timing guess), then `pause` seconds, then prints a cancel.
    const late = (pause) => ({
      'ws:.clinerules/hooks/PreToolUse': [
        '#!/usr/bin/env bash',
        'cat > /dev/null',
        `( while kill -0 $$ 2>/dev/null; do sleep 0.02; done; sleep ${pause}; echo '{"cancel": true, "errorMessage": "printed after the exit"}' ) &`,
        'exit 0',
      ].join('\n'),
    })

    test('within the SDK\'s 1 s grace (0.4 s after the exit, when the pipes had long been quiet): the cancel counts in both', () => {
      const [sdk, ours] = RUNNERS.map((runner) => run(runner, late(0.4), () => [{ kind: 'beforeTool', context: toolCall() }]))
      expect(sdk.results[0].control).toEqual({ stop: true, reason: 'printed after the exit' })
      expect(ours.results[0].control).toEqual(sdk.results[0].control)
    })

    test('after it: neither waits for it, and the tool goes ahead in both', () => {
      const [sdk, ours] = RUNNERS.map((runner) => run(runner, late(4), () => [{ kind: 'beforeTool', context: toolCall() }]))
      expect(sdk.results[0].control).toBeNull()
      expect(ours.results[0].control).toBeNull()
      // Generous: the 4 s print was not waited for (the grace is 1 s).
      expect(ours.results[0].ms).toBeLessThan(3500)
    })
  })

  test('a host that passes createFileHooks as its runtime hooks keeps the SDK\'s hooks.jsonl audit by merging createHookAuditHooks', () => {
    const files = { 'ws:.clinerules/hooks/PreToolUse': bashHook('audited', {}) }
    for (const runner of RUNNERS) {
      const logs = makeTempDir('audit')
      const auditLog = path.join(logs, 'hooks.jsonl')
      const { results, read } = run(runner, files, () => [{ kind: 'beforeTool', context: toolCall() }], { audit: true, env: { CLINE_HOOKS_LOG_PATH: auditLog } })
      expect(results[0].control).toBeNull()
      expect(read('order')).toBe('audited\n')
      const lines = fs.readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
      expect(lines.map((line) => line.hookName)).toEqual(['tool_call'])
    }
  })
})
