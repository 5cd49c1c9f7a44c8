'use strict'

// sdk/verdicts.js: the SDK adapter's stop/go, a pure function of the runtime's result. These
// feed it results of the shape `HookExecution` describes (index.d.ts), one of them a real run's,
// and check that only the result's fields decide: `cancel`, and per execution `status`,
// `started` and (for a hook refused as untrusted) its failure.

const path = require('path')

const { addon, makeTempDir, writeFile } = require('./helpers')
// Through the package, as a consumer resolves it (this repo, or the copy `test:package` installs,
// whose sdk/ folder ships verdicts.js; there ../sdk is only a stand-in for the subpath export).
const PACKAGE_DIR = path.dirname(require.resolve('@cline/hooks/package.json'))
const { controlOf, refusedAsUntrusted, appliedButNotStarted } = require(path.join(PACKAGE_DIR, 'sdk', 'verdicts.js'))

/** An execution as the runtime reports one; `fields` replace the defaults of a quiet completed hook. */
function execution(name, fields = {}) {
  return {
    hookName: 'PreToolUse',
    path: path.join('/ws/.clinerules/hooks', name),
    source: 'workspace',
    status: 'completed',
    started: true,
    cancel: false,
    contextModification: '',
    errorMessage: '',
    review: false,
    overrideInput: null,
    output: null,
    exitCode: 0,
    signal: null,
    durationMs: 5,
    stdout: '',
    stderr: '',
    warnings: [],
    timeoutMs: 30000,
    ...fields,
  }
}

function resultOf(hooks, fields = {}) {
  return { cancel: false, contextModification: '', errorMessage: '', review: false, overrideInput: null, hooks, warnings: [], ...fields }
}

const skipped = execution('Writes.cjs', {
  status: 'skipped',
  started: false,
  exitCode: null,
  durationMs: 0,
  skipReason: "its cline-hook: header's tools=write_to_file does not match the tool read_file",
})
const neverStarted = execution('Slow.cjs', {
  status: 'timedOut',
  started: false,
  exitCode: null,
  failure: 'never started: no process slot was free before its timeout of 3000 ms',
  failureKind: 'timedOut',
})
const stoppedBeforeStart = execution('Stopped.cjs', {
  status: 'aborted',
  started: false,
  exitCode: null,
  failure: "was stopped by terminateAll() (or its factory's dispose()) before it started",
})
const untrusted = execution('Changed.cjs', {
  status: 'failed',
  started: false,
  exitCode: null,
  failure: 'not trusted: changed since approved: /ws/.clinerules/hooks/Changed.cjs changed after it was approved',
})
const withContext = execution('Note.cjs', { contextModification: 'reads are fine', output: { context: 'reads are fine' } })

describe('sdk/verdicts: which executions stop an operation', () => {
  test('a hook skipped by its header (status skipped) never stops, alone or beside others', () => {
    expect(appliedButNotStarted(skipped)).toBe(false)
    expect(controlOf(resultOf([skipped]), 'tool_call', { withInput: true })).toBeUndefined()
    expect(controlOf(resultOf([skipped, withContext]), 'tool_call', { withInput: true })).toEqual({ appendContext: 'reads are fine' })
  })

  test('a hook that applies and never started stops, naming only it (a skipped one beside it is not named)', () => {
    for (const unstarted of [neverStarted, stoppedBeforeStart]) {
      expect(appliedButNotStarted(unstarted)).toBe(true)
      const control = controlOf(resultOf([skipped, unstarted, withContext]), 'tool_result', { withInput: false })
      expect(control).toEqual({
        stop: true,
        reason: `The tool_result hooks did not all run (${path.basename(unstarted.path)}: ${unstarted.failure})`,
      })
    }
  })

  test('a hook refused at its start as untrusted is not run and does not stop (as an unapproved one at discovery)', () => {
    expect(refusedAsUntrusted(untrusted)).toBe(true)
    expect(refusedAsUntrusted(neverStarted)).toBe(false)
    expect(refusedAsUntrusted(skipped)).toBe(false)
    expect(appliedButNotStarted(untrusted)).toBe(false)
    expect(controlOf(resultOf([untrusted]), 'tool_call', { withInput: true })).toBeUndefined()
  })

  test('a started hook never counts as not started, whatever it printed or how it ended', () => {
    for (const status of ['completed', 'failed', 'timedOut', 'aborted']) {
      expect(appliedButNotStarted(execution('Ran.cjs', { status, started: true, failure: 'x' }))).toBe(false)
    }
  })

  test('the run\'s cancel decides over a hook that never started', () => {
    const cancelling = execution('Gate.cjs', { cancel: true, errorMessage: 'no', output: { cancel: true } })
    expect(controlOf(resultOf([cancelling, neverStarted], { cancel: true }), 'tool_call', { withInput: true })).toEqual({
      stop: true,
      reason: 'no',
    })
  })

  test('a real run\'s skipped execution (runHook, a tools= header, another tool) resolves with nothing to say', async () => {
    const root = makeTempDir('cline-sdk-verdicts-')
    writeFile(
      path.join(root, '.clinerules', 'hooks'),
      'PreToolUse.cjs',
      `// cline-hook: tools=write_to_file\nprocess.stdout.write('{"cancel": true, "errorMessage": "no writes"}')\n`,
    )
    const result = await addon.runHook(
      'tool_call',
      { tool_call: { id: 't', name: 'read_file', input: {} } },
      { profile: 'cli', workspaceRoots: [root], globalHooksDir: null, extraHooksDirs: [], clineDir: makeTempDir() },
    )
    expect(result.hooks).toHaveLength(1)
    expect(result.hooks[0]).toMatchObject({ status: 'skipped', started: false, skipReason: expect.stringMatching(/tools=write_to_file/) })
    expect(controlOf(result, 'tool_call', { withInput: true })).toBeUndefined()
  })
})
