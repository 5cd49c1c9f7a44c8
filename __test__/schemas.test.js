'use strict'

// Tests of the JSON Schemas in schemas/ (draft 2020-12), for hook authors: every schema compiles
// under ajv in strict mode and documents every property; what the runtime really writes on a
// hook's stdin validates, captured by a real hook script that copies its stdin to a file, for
// every hook, in both profiles (the cli profile both by hook name and by the Cline SDK's event
// payloads); the shipped examples and `cline-hooks init` templates, run as real hooks, print
// outputs that validate; and the schemas refuse a missing required field, a wrong type and
// `"cancel": "yes"`, as the runtime's verdict reader does.

const fs = require('fs')
const path = require('path')
const Ajv2020 = require('ajv/dist/2020')
const { addon, describeUnix, testIf, makeTempDir, makeWorkspace, hooksDirOf, writeHook, writeFile, shq, expectCompleted } = require('./helpers')
const payloads = require('../sdk/payloads')
const { HOOKS: FIELDS, CLI_EVENTS, inputKey, sampleInput } = require('../bin/hook-fields')
const { template, EXAMPLE_START, EXAMPLE_END } = require('../bin/templates')

const ROOT = path.join(__dirname, '..')
const SCHEMAS = path.join(ROOT, 'schemas')
const EXAMPLES = path.join(ROOT, 'examples')
const BASE = 'https://github.com/cline/hooks/schemas/'
const DRAFT = 'https://json-schema.org/draft/2020-12/schema'
const OUTPUT = 'hook-output.schema.json'
const KNOWN = addon.KNOWN_HOOKS
/** The Cline CLI's event of each hook that has one. */
const EVENT_OF = Object.fromEntries(Object.entries(CLI_EVENTS).map(([event, hook]) => [hook, event]))

const schemaFiles = fs.readdirSync(SCHEMAS).filter((f) => f.endsWith('.json')).sort()
const schemaOf = (file) => JSON.parse(fs.readFileSync(path.join(SCHEMAS, file), 'utf8'))
const inputFile = (hook) => `${hook}.input.schema.json`

/** A strict ajv holding every schema of schemas/, so their `$ref`s to each other resolve. */
function strictAjv() {
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  for (const file of schemaFiles) ajv.addSchema(schemaOf(file))
  return ajv
}

const ajv = strictAjv()
const validators = new Map()
/** The validator of `file` (`#/$defs/...` fragment optional). */
function validatorOf(file, fragment = '') {
  const uri = BASE + file + fragment
  if (!validators.has(uri)) validators.set(uri, fragment ? ajv.compile({ $ref: uri }) : ajv.getSchema(uri))
  return validators.get(uri)
}
function errorsOf(file, data, fragment) {
  const validate = validatorOf(file, fragment)
  return validate(data) ? null : ajv.errorsText(validate.errors, { separator: '\n' })
}
function expectValid(file, data, fragment) {
  const errors = errorsOf(file, data, fragment)
  if (errors) throw new Error(`${file}${fragment || ''} refused ${JSON.stringify(data)}:\n${errors}`)
}
function expectInvalid(file, data, fragment) {
  if (!errorsOf(file, data, fragment)) throw new Error(`${file}${fragment || ''} accepted ${JSON.stringify(data)}`)
}
const EXT = '#/$defs/extension'
const CLI = '#/$defs/cli'

/** Every schema object in `node` with its JSON pointer (boolean schemas are skipped). */
function* walk(node, pointer = '') {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* walk(node[i], `${pointer}/${i}`)
    return
  }
  if (!node || typeof node !== 'object') return
  yield [node, pointer]
  for (const [key, value] of Object.entries(node)) {
    if (key === 'examples' || key === 'enum' || key === 'const') continue
    if (key === 'properties' || key === '$defs') {
      for (const [name, sub] of Object.entries(value)) yield* walk(sub, `${pointer}/${key}/${name}`)
    } else if (value && typeof value === 'object') {
      yield* walk(value, `${pointer}/${key}`)
    }
  }
}

/** The schema a `$ref` in `file` points to (only refs within schemas/ exist). */
function resolveRef(file, ref) {
  const [target, fragment = ''] = ref.split('#')
  let node = schemaOf(target || file)
  for (const part of fragment.split('/').filter(Boolean)) node = node[part]
  return node
}

describe('the schemas', () => {
  test('one input schema per known hook, a common schema and the output schema; nothing else', () => {
    expect(KNOWN).toHaveLength(11)
    expect(schemaFiles).toEqual([...KNOWN.map(inputFile), 'common.schema.json', OUTPUT].sort())
  })

  test.each(schemaFiles)('%s compiles under ajv (draft 2020-12) in strict mode, on its own terms', (file) => {
    const schema = schemaOf(file)
    expect(schema.$schema).toBe(DRAFT)
    expect(schema.$id).toBe(BASE + file)
    expect(typeof schema.title).toBe('string')
    expect(schema.description.length).toBeGreaterThan(80)
    // A fresh strict instance per file: `$ref`s resolve only through the schemas added.
    const fresh = strictAjv()
    expect(typeof fresh.getSchema(BASE + file)).toBe('function')
    // A file alone fails to compile when it refers to a schema that is not there: it refers to
    // nothing but the files of schemas/.
    for (const [node] of walk(schema)) {
      if (node.$ref && !node.$ref.startsWith('#')) expect(schemaFiles).toContain(node.$ref.split('#')[0])
    }
  })

  test.each(schemaFiles)('%s: every property says what it is, for a hook author', (file) => {
    const missing = []
    for (const [node, pointer] of walk(schemaOf(file))) {
      for (const [name, sub] of Object.entries(node.properties || {})) {
        if (sub === true) continue // `{properties: {tool: true}, required: ['tool']}`: a presence test
        const described = sub.description || (sub.$ref && resolveRef(file, sub.$ref).description)
        if (!described) missing.push(`${pointer}/properties/${name}`)
      }
    }
    expect(missing).toEqual([])
  })

  test('inputs allow fields they do not know at every level (Cline may add some); the output refuses them (misspellings)', () => {
    for (const file of schemaFiles.filter((f) => f !== OUTPUT)) {
      for (const [node, pointer] of walk(schemaOf(file))) {
        expect([file, pointer, node.additionalProperties]).toEqual([file, pointer, undefined])
        expect([file, pointer, node.unevaluatedProperties]).toEqual([file, pointer, undefined])
      }
    }
    expect(schemaOf(OUTPUT).additionalProperties).toBe(false)
    expectValid(inputFile('PreToolUse'), {
      hookName: 'PreToolUse',
      timestamp: '1736654400000',
      workspaceRoots: [],
      model: { provider: 'p', slug: 's', version: 2 },
      preToolUse: { tool: 'x', parameters: {}, futureField: 1 },
      futureTopLevel: true,
    })
    expectInvalid(OUTPUT, { cancle: true })
  })

  test('every example a schema gives validates against the part that gives it', () => {
    let checked = 0
    for (const file of schemaFiles) {
      for (const [node, pointer] of walk(schemaOf(file))) {
        for (const example of node.examples || []) {
          expectValid(file, example, `#${pointer}`)
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(15)
  })

  test('each hook\'s schema names its hook (and its CLI event, where the CLI has one) and no other', () => {
    for (const hook of KNOWN) {
      const names = schemaOf(inputFile(hook)).$defs.hookName.enum
      expect(names).toEqual(EVENT_OF[hook] ? [hook, EVENT_OF[hook]] : [hook])
      expect(schemaOf(inputFile(hook)).$defs[inputKey(hook)]).toBeDefined()
    }
  })
})

// ---------------------------------------------------------------------------------------
// What the runtime writes on stdin, captured by real hooks.

/** Options that search only `ws` (and empty global, CLI and policy places). */
function runOptions(ws, profile, extra = {}) {
  const empty = makeTempDir('cline-hooks-schemas-empty-')
  return {
    workspaceRoots: [ws],
    globalHooksDir: empty,
    managedHooksDir: null,
    policyFile: path.join(empty, 'hooks-policy.json'),
    ...(profile === 'cli' ? { profile: 'cli', clineDir: empty } : {}),
    ...extra,
  }
}

/**
 * Runs `runName` (a hook or CLI event name) with `input` through the real API, in a workspace
 * whose only hook is a shell script that copies its stdin to a file; returns what it read.
 */
async function captureStdin(hook, runName, input, profile) {
  const ws = makeWorkspace()
  const out = path.join(makeTempDir('cline-hooks-schemas-out-'), 'stdin.json')
  writeHook(hooksDirOf(ws), hook, `cat > ${shq(out)}\necho '{"cancel": false}'\n`, { shebang: 'sh' })
  const result = await addon.runHook(runName, input, runOptions(ws, profile))
  expect(result.hooks).toHaveLength(1)
  expectCompleted(result.hooks[0])
  expect(result.cancel).toBe(false)
  const text = fs.readFileSync(out, 'utf8')
  expect(text.endsWith('\n') && text.indexOf('\n') === text.length - 1).toBe(true) // one line
  return JSON.parse(text)
}

const readJson = (...parts) => JSON.parse(fs.readFileSync(path.join(EXAMPLES, ...parts), 'utf8'))

/** The Cline SDK's payload for `hook`, built by the SDK adapter's own payload code. */
function sdkPayloads(hook, ws) {
  const snapshot = { agentId: 'agent-1', conversationId: 'conv-1', iteration: 2 }
  const settings = { workspacePath: ws, rootSessionId: 'root-1', workspaceInfo: { name: 'demo', git: { branch: 'main' } } }
  const env = { CLINE_VERSION: '3.0.65', CLINE_USER_ID: 'user-1' }
  const now = new Date()
  const call = { toolCallId: 'call-1', toolName: 'editor' }
  const input = { filePath: 'src/a.ts', edits: [{ old: 'a', new: 'b' }], dryRun: false }
  const later = new Date(now.getTime() + 12)
  const end = (result) => payloads.runEnd(snapshot, result, settings, env, now)
  const all = {
    TaskStart: [payloads.runStart('agent_start', snapshot, settings, env, now)],
    TaskResume: [payloads.runStart('agent_resume', snapshot, settings, env, now)],
    UserPromptSubmit: [payloads.promptSubmit(snapshot, 'Add a login page', settings, env, now)],
    PreToolUse: [payloads.toolCall({ snapshot, toolCall: call, input }, settings, env, now)],
    PostToolUse: [
      payloads.toolResult(
        { snapshot, toolCall: call, input, result: { output: { written: true }, isError: false }, durationMs: 12, startedAt: now, endedAt: later },
        settings,
        env,
        now,
      ),
      payloads.toolResult(
        { snapshot, toolCall: call, input, result: { output: 'ENOENT: no such file', isError: true }, durationMs: 3, startedAt: now, endedAt: later },
        settings,
        env,
        now,
      ),
      // A tool that returned nothing: the SDK's postToolUse then has no `result`.
      payloads.toolResult({ snapshot, toolCall: call, input, result: { isError: false }, durationMs: 1, startedAt: now, endedAt: later }, settings, env, now),
    ],
    TaskComplete: end({ status: 'completed', iterations: 3, outputText: 'Done.' }),
    TaskError: end({ status: 'failed', iterations: 1, error: new Error('quota exceeded') }),
    TaskCancel: end({ status: 'aborted', error: { message: 'the user cancelled the task' } }).filter((p) => p.hookName === 'agent_abort'),
    SessionShutdown: [
      ...end({ status: 'aborted', error: { message: 'the user cancelled the task' } }),
      ...end({ status: 'aborted', error: { message: 'a hook stopped the run' } }),
    ].filter((p) => p.hookName === 'session_shutdown'),
  }
  return (all[hook] || []).map(payloads.asJson)
}

describeUnix('what the runtime writes on a hook\'s stdin validates (a real hook copies it to a file)', () => {
  describe.each(KNOWN)('%s', (hook) => {
    test('extension profile: the init sample input and the shipped example input', async () => {
      for (const input of [sampleInput(hook), readJson('inputs', `${hook}.json`)]) {
        const got = await captureStdin(hook, hook, input, 'extension')
        expect(got).toMatchObject({ hookName: hook, model: { provider: 'unknown', slug: 'unknown' } })
        expect(got.timestamp).toMatch(/^\d+$/)
        expectValid(inputFile(hook), got)
        expectValid(inputFile(hook), got, EXT)
        expectInvalid(inputFile(hook), got, CLI) // a timestamp in milliseconds is not the cli profile's
      }
    })

    test('cli profile, run under the hook\'s name with the same inputs: no model, an ISO timestamp', async () => {
      for (const input of [sampleInput(hook), readJson('inputs', `${hook}.json`)]) {
        const got = await captureStdin(hook, hook, input, 'cli')
        expect(got.hookName).toBe(hook)
        expect(got).not.toHaveProperty('model')
        expect(got.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        expectValid(inputFile(hook), got)
        expectValid(inputFile(hook), got, CLI)
        expectInvalid(inputFile(hook), got, EXT) // no model
      }
    })

    if (EVENT_OF[hook]) {
      test(`cli profile, run under its event "${EVENT_OF[hook]}" with the Cline SDK's own payload`, async () => {
        const ws = makeWorkspace()
        const sent = sdkPayloads(hook, ws)
        expect(sent.length).toBeGreaterThan(0)
        if (hook === 'PostToolUse') expect(sent.filter((p) => !('result' in p.postToolUse))).toHaveLength(1)
        for (const payload of sent) {
          expect(payload.hookName).toBe(EVENT_OF[hook])
          const got = await captureStdin(hook, payload.hookName, payload, 'cli')
          expect(got).toEqual(payload) // the SDK sets every common field: the runtime adds nothing
          expectValid(inputFile(hook), got)
          expectValid(inputFile(hook), got, CLI)
        }
      })
    }
  })

  test('cli profile: the shipped examples/cli-inputs, run under their event names', async () => {
    const files = fs.readdirSync(path.join(EXAMPLES, 'cli-inputs')).filter((f) => f.endsWith('.json'))
    expect(files.length).toBeGreaterThanOrEqual(6)
    for (const file of files) {
      const input = readJson('cli-inputs', file)
      const hook = CLI_EVENTS[input.hookName]
      const got = await captureStdin(hook, input.hookName, input, 'cli')
      expectValid(inputFile(hook), got, CLI)
      expect(got.workspaceRoots).toHaveLength(1) // filled in
    }
  })

  test('an event name in the extension profile is the hookName the hook reads, and valid', async () => {
    const got = await captureStdin('PreToolUse', 'tool_call', sampleInput('PreToolUse'), 'extension')
    expect(got.hookName).toBe('tool_call')
    expectValid(inputFile('PreToolUse'), got, EXT)
  })
})

// ---------------------------------------------------------------------------------------
// What hooks print: the shipped examples and init templates, run as real hooks.

/** Runs `runName` in `ws`; returns the executions, each with the verdict object it printed. */
async function runIn(ws, runName, input, profile, extra) {
  const result = await addon.runHook(runName, input, runOptions(ws, profile, extra))
  expect(result.hooks.length).toBeGreaterThan(0)
  return result
}

/** `text` with its example (between the marker lines) uncommented, as an author would. */
function uncommentExample(text) {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.includes(EXAMPLE_START))
  const open = lines.findIndex((l, i) => i >= start && l.trimEnd().endsWith('---'))
  const end = lines.findIndex((l) => l.includes(EXAMPLE_END))
  expect(start >= 0 && open >= start && end > open).toBe(true)
  for (let i = open + 1; i < end; i++) lines[i] = lines[i].replace(/^(\s*)(# |\/\/ )/, '$1')
  return lines.join('\n')
}

/** A sample input whose member the template's blocking example checks holds its value. */
function blockingInput(hook) {
  const [member, value] = FIELDS[hook].check
  const input = sampleInput(hook)
  input[inputKey(hook)] = { ...input[inputKey(hook)], [member]: value }
  return input
}

function onPath(name) {
  return (process.env.PATH || '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, name)))
}

/** The hook's environment with this node first on PATH (templates and examples run `node`). */
const nodeFirst = () => ({ env: { PATH: [path.dirname(process.execPath), process.env.PATH].join(path.delimiter) } })

describeUnix('what the shipped hooks print validates against hook-output.schema.json', () => {
  test.each(KNOWN)('the bash template `cline-hooks init %s` writes: as written (allows) and with its example on (blocks)', async (hook) => {
    const text = template(hook, 'bash', { file: hook, shebang: true })
    for (const [body, input, cancel] of [
      [text, sampleInput(hook), false],
      [uncommentExample(text), blockingInput(hook), true],
    ]) {
      const ws = makeWorkspace()
      writeFile(hooksDirOf(ws), hook, body, 0o755)
      const result = await runIn(ws, hook, input, 'extension')
      const [run] = result.hooks
      expectCompleted(run)
      expect(run.cancel).toBe(cancel)
      expect(run.output).not.toBeNull()
      expectValid(OUTPUT, run.output)
    }
  })

  for (const lang of ['node', 'python']) {
    testIf(lang === 'node' || onPath('python3'), 'python3 is not on PATH', `the ${lang} template of PreToolUse: allows and blocks with valid verdicts`, async () => {
      const text = template('PreToolUse', lang, { file: 'PreToolUse', shebang: true })
      for (const [body, input, cancel] of [
        [text, sampleInput('PreToolUse'), false],
        [uncommentExample(text), blockingInput('PreToolUse'), true],
      ]) {
        const ws = makeWorkspace()
        writeFile(hooksDirOf(ws), 'PreToolUse', body, 0o755)
        const [run] = (await runIn(ws, 'PreToolUse', input, 'extension', nodeFirst())).hooks
        expectCompleted(run)
        expect(run.cancel).toBe(cancel)
        expectValid(OUTPUT, run.output)
      }
    })
  }

  test('examples/workspace: its hooks on the example inputs (PreToolUse allows and blocks, TaskStart, PostToolUse)', async () => {
    const ws = path.join(EXAMPLES, 'workspace')
    const cases = [
      ['PreToolUse', 'PreToolUse.json', false],
      ['PreToolUse', 'PreToolUse-write-js.json', true],
      ['TaskStart', 'TaskStart.json', false],
      ['PostToolUse', 'PostToolUse.json', false],
    ]
    for (const [hook, file, cancel] of cases) {
      if (hook === 'TaskStart' && !onPath('python3')) continue
      const [run] = (await runIn(ws, hook, readJson('inputs', file), 'extension', nodeFirst())).hooks
      expectCompleted(run)
      expect([file, run.cancel]).toEqual([file, cancel])
      expectValid(OUTPUT, run.output)
    }
  })

  test('examples/cli-workspace: every hook that runs prints a valid verdict on the example cli inputs', async () => {
    const ws = path.join(EXAMPLES, 'cli-workspace')
    let verdicts = 0
    for (const file of fs.readdirSync(path.join(EXAMPLES, 'cli-inputs'))) {
      const input = readJson('cli-inputs', file)
      const result = await runIn(ws, input.hookName, input, 'cli', nodeFirst())
      for (const run of result.hooks.filter((h) => h.status !== 'skipped')) {
        expectCompleted(run)
        if (run.output === null) continue
        expectValid(OUTPUT, run.output)
        verdicts++
      }
    }
    expect(verdicts).toBeGreaterThanOrEqual(6)
  })

  test('a persistent hook\'s answer (its event\'s hookEventId echoed) validates', async () => {
    const ws = makeWorkspace()
    const program = `
const fs = require('fs')
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const { hookEventId } = JSON.parse(line)
  fs.writeSync(1, JSON.stringify({ cancel: false, contextModification: 'seen', hookEventId }) + '\\n')
})
`
    fs.mkdirSync(hooksDirOf(ws), { recursive: true })
    const programFile = writeFile(makeTempDir(), 'answer.js', program)
    writeHook(hooksDirOf(ws), 'PreToolUse', `# cline-hook: mode=persistent\nexec ${shq(process.execPath)} ${shq(programFile)}\n`, { shebang: 'sh' })
    const [run] = (await runIn(ws, 'PreToolUse', sampleInput('PreToolUse'), 'extension', { persistentIdleMs: 0 })).hooks
    expectCompleted(run)
    expect(run.contextModification).toBe('seen')
    const answer = JSON.parse(run.stdout.trim().split('\n').pop())
    expect(answer.hookEventId).toEqual(expect.any(String))
    expectValid(OUTPUT, answer)
  })

  test('the output schema\'s examples are verdicts the runtime reads without a problem', async () => {
    const ws = makeWorkspace()
    const examples = schemaOf(OUTPUT).examples
    for (const example of examples) {
      writeHook(hooksDirOf(ws), 'PreToolUse', `printf '%s\\n' ${shq(JSON.stringify(example))}\n`, { shebang: 'sh' })
      const [run] = (await runIn(ws, 'PreToolUse', sampleInput('PreToolUse'), 'extension')).hooks
      expectCompleted(run)
      expect(run.failure).toBeUndefined()
      expect(run.warnings).toEqual([])
      expect(run.output).toEqual(example)
      expect(run.cancel).toBe(example.cancel === true)
    }
  })
})

// ---------------------------------------------------------------------------------------
// The schemas are not vacuous.

describe('the schemas refuse what the contract does not allow', () => {
  const extension = (hook, own) => ({
    clineVersion: '3.17.0',
    hookName: hook,
    timestamp: '1736654400000',
    taskId: 't1',
    workspaceRoots: ['/w'],
    userId: 'u1',
    model: { provider: 'openrouter', slug: 'anthropic/claude-sonnet-4.5' },
    [inputKey(hook)]: own,
  })
  const pre = () => extension('PreToolUse', { tool: 'write_to_file', parameters: { path: 'a.ts', content: '' } })
  const post = () => extension('PostToolUse', { toolName: 'execute_command', parameters: { command: 'npm test' }, result: 'ok', success: true, executionTimeMs: 5 })
  const cliCall = () => ({
    hookName: 'tool_call',
    timestamp: '2026-01-15T10:30:00.000Z',
    workspaceRoots: ['/w'],
    tool_call: { id: 'c1', name: 'read_files', input: { filePath: 'a.ts' } },
  })
  const without = (object, dotted) => {
    const copy = structuredClone(object)
    const keys = dotted.split('.')
    const last = keys.pop()
    delete keys.reduce((o, k) => o[k], copy)[last]
    return copy
  }
  const withValue = (object, dotted, value) => {
    const copy = structuredClone(object)
    const keys = dotted.split('.')
    const last = keys.pop()
    keys.reduce((o, k) => o[k], copy)[last] = value
    return copy
  }

  test('the valid bases are valid (so each refusal below is about its one change)', () => {
    expectValid(inputFile('PreToolUse'), pre(), EXT)
    expectValid(inputFile('PostToolUse'), post(), EXT)
    expectValid(inputFile('PreToolUse'), cliCall(), CLI)
    for (const hook of KNOWN) expectValid(inputFile(hook), extension(hook, sampleInput(hook)[inputKey(hook)]), EXT)
  })

  test.each([
    ['workspaceRoots'],
    ['hookName'],
    ['timestamp'],
    ['model'],
    ['preToolUse'],
    ['preToolUse.parameters'],
    ['preToolUse.tool'],
    ['model.slug'],
  ])('an extension PreToolUse input without %s', (field) => {
    expectInvalid(inputFile('PreToolUse'), without(pre(), field))
  })

  test.each([['postToolUse.success'], ['postToolUse.result'], ['postToolUse.executionTimeMs'], ['postToolUse.toolName']])(
    'an extension PostToolUse input without %s',
    (field) => {
      expectInvalid(inputFile('PostToolUse'), without(post(), field))
    },
  )

  test.each([
    ['timestamp', 1736654400000],
    ['timestamp', 'yesterday'],
    ['workspaceRoots', '/w'],
    ['workspaceRoots', [1]],
    ['hookName', 'PostToolUse'],
    ['model', null],
    ['taskId', 7],
    ['clineVersion', null],
    ['preToolUse.parameters', 'path=a.ts'],
    ['preToolUse.tool', 3],
    ['preToolUse', 'write_to_file'],
  ])('an extension PreToolUse input with %s = %j', (field, value) => {
    expectInvalid(inputFile('PreToolUse'), withValue(pre(), field, value))
  })

  test.each([
    ['postToolUse.success', 'true'],
    ['postToolUse.executionTimeMs', '5'],
    ['postToolUse.result', { text: 'ok' }],
  ])('an extension PostToolUse input with %s = %j', (field, value) => {
    expectInvalid(inputFile('PostToolUse'), withValue(post(), field, value))
  })

  test('other hooks: a missing or mistyped member of their own object', () => {
    const bad = [
      ['TaskStart', {}],
      ['TaskStart', { task: 42 }],
      ['TaskResume', { taskMetadata: { ulid: 1 } }],
      ['UserPromptSubmit', {}],
      ['UserPromptSubmit', { prompt: 'x', attachments: 'a.png' }],
      ['PreCompact', { conversationLength: 45 }],
      ['PreCompact', { conversationLength: 4.5, estimatedTokens: 1 }],
      ['TaskError', { error: { message: 'x' } }],
      ['Notification', 'approval_required'],
    ]
    for (const [hook, own] of bad) expectInvalid(inputFile(hook), extension(hook, own))
  })

  test('cli profile: no tool call at all, a tool call without a name, a timestamp in milliseconds', () => {
    expectInvalid(inputFile('PreToolUse'), without(cliCall(), 'tool_call'))
    expectInvalid(inputFile('PreToolUse'), without(cliCall(), 'tool_call.name'))
    expectInvalid(inputFile('PreToolUse'), withValue(cliCall(), 'timestamp', '1736654400000'))
    expectInvalid(inputFile('PreToolUse'), withValue(cliCall(), 'hookName', 'tool_result'))
    expectInvalid(inputFile('TaskError'), { hookName: 'agent_error', timestamp: '2026-01-15T10:30:00.000Z', workspaceRoots: [] })
    expectValid(inputFile('TaskStart'), { hookName: 'agent_start', timestamp: '2026-01-15T10:30:00Z', workspaceRoots: [] })
  })

  test.each([
    [{ cancel: 'yes' }],
    [{ cancel: null }],
    [{ cancel: 1 }],
    [{ contextModification: 5 }],
    [{ errorMessage: ['no'] }],
    [{ review: 'true' }],
    [{ overrideInput: [] }],
    [{ shouldContinue: 'false' }],
    [{ cancle: true }],
    [[{ cancel: true }]],
    ['{"cancel": true}'],
  ])('the output %j', (output) => {
    expectInvalid(OUTPUT, output)
  })

  test('every documented output field is accepted', () => {
    for (const output of [
      {},
      { cancel: true, errorMessage: 'no' },
      { cancel: false, contextModification: 'x', errorMessage: '' },
      { context: 'x', review: true, overrideInput: { filePath: '/a' } },
      { shouldContinue: false },
    ]) {
      expectValid(OUTPUT, output)
    }
  })

  describeUnix('the runtime agrees', () => {
    test('a hook printing {"cancel": "yes"} (refused by the schema) fails and does not block', async () => {
      const ws = makeWorkspace()
      writeHook(hooksDirOf(ws), 'PreToolUse', `echo '{"cancel": "yes"}'\n`, { shebang: 'sh' })
      const result = await runIn(ws, 'PreToolUse', sampleInput('PreToolUse'), 'extension')
      expect(result.cancel).toBe(false)
      expect(result.hooks[0].status).toBe('failed')
      expect(result.hooks[0].failure).toMatch(/"cancel" must be true or false/)
    })
  })
})
