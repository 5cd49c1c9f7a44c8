'use strict'

// onFailure: a hook that times out, crashes, cannot start or prints output that cannot be used
// counts as a cancel when the policy blocks that kind, with one line in errorMessage naming the
// hook and what happened; 'allow' (the default) leaves the run as it was; a printed cancel still
// wins; an abort still rejects and terminateAll() never turns into a cancel. The hooks are Node
// programs (see hook-programs.js), so every case but the exec-bit one runs on Windows too.

const fs = require('fs')
const path = require('path')

const {
  addon,
  testUnix,
  makeWorkspace,
  hooksDirOf,
  writeProgram,
  printJson,
  STAY_ALIVE,
  waitFor,
  opts,
} = require('./helpers')

const { HookFactory, runHook, terminateAll } = addon

/** How long a hook may take to start: a Node program under Wine or under load takes seconds. */
const START_MS = 30000
const TIMEOUT_MS = 1500

/** A program line that writes the (empty) file `file`, so a test knows the hook runs. */
const touch = (file) => `require('fs').writeFileSync(${JSON.stringify(file)}, '')\n`

/**
 * A runner for a workspace holding one PreToolUse hook of failure `kind`, with the run options
 * that make it fail that way. A start failure is a hook deleted after discovery (found, then
 * gone when it is started: a missing file on every platform).
 */
async function failing(kind) {
  const root = makeWorkspace()
  const dir = hooksDirOf(root)
  const source = {
    timedOut: STAY_ALIVE,
    crash: 'process.exit(3)\n',
    startFailure: 'process.exit(0)\n',
    invalidOutput: printJson({ contextModification: 42 }),
  }[kind]
  const hook = writeProgram(dir, 'PreToolUse', source)
  const runner = await new HookFactory(opts({ workspaceRoots: [root] })).create('PreToolUse')
  if (kind === 'startFailure') fs.rmSync(hook)
  const timeoutMs = kind === 'timedOut' ? TIMEOUT_MS : START_MS
  return { runner, timeoutMs }
}

const SENTENCES = {
  timedOut: /^PreToolUse \(workspace\) timed out after 1\.5 s; blocking because onFailure\.timedOut is "block"$/,
  crash: /^PreToolUse \(workspace\) exited with code 3; blocking because onFailure\.crash is "block"$/,
  startFailure: /^PreToolUse \(workspace\) could not start: .+; blocking because onFailure\.startFailure is "block"$/,
  invalidOutput: /^PreToolUse \(workspace\) printed output that cannot be used: .+; blocking because onFailure\.invalidOutput is "block"$/,
}

const STATUS = { timedOut: 'timedOut', crash: 'failed', startFailure: 'failed', invalidOutput: 'failed' }

describe('onFailure', () => {
  test.each(Object.keys(SENTENCES))('a hook whose run ends in %s is reported with its failureKind and blocks only under "block"', async (kind) => {
    const { runner, timeoutMs } = await failing(kind)
    for (const onFailure of [undefined, 'allow', { [kind]: 'allow' }]) {
      const allowed = await runner.run({}, { timeoutMs, onFailure })
      expect(allowed.hooks[0].status).toBe(STATUS[kind])
      expect(allowed.hooks[0].failureKind).toBe(kind)
      expect(allowed.cancel).toBe(false)
      expect(allowed.errorMessage).toBe('')
    }
    for (const onFailure of ['block', { [kind]: 'block' }]) {
      const blocked = await runner.run({}, { timeoutMs, onFailure })
      expect(blocked.hooks[0].failureKind).toBe(kind)
      expect(blocked.cancel).toBe(true)
      expect(blocked.errorMessage).toMatch(SENTENCES[kind])
      expect(blocked.errorMessage.split('\n')).toHaveLength(1)
    }
  }, 120000)

  test('an object blocks only the kinds it sets to "block"', async () => {
    const crash = await failing('crash')
    const notCrash = await crash.runner.run({}, { onFailure: { timeout: 'block', startFailure: 'block', invalidOutput: 'block', crash: 'allow' } })
    expect(notCrash.cancel).toBe(false)
    const timeout = await failing('timedOut')
    const notTimeout = await timeout.runner.run({}, { timeoutMs: TIMEOUT_MS, onFailure: { crash: 'block' } })
    expect(notTimeout.hooks[0].failureKind).toBe('timedOut')
    expect(notTimeout.cancel).toBe(false)
    // The key is the failureKind's word; `timeout`, its old name, still blocks.
    for (const onFailure of [{ timedOut: 'block' }, { timeout: 'block' }]) {
      const blocked = await timeout.runner.run({}, { timeoutMs: TIMEOUT_MS, onFailure })
      expect({ onFailure, cancel: blocked.cancel, failureKind: blocked.hooks[0].failureKind }).toEqual({ onFailure, cancel: true, failureKind: 'timedOut' })
    }
  }, 120000)

  test('runHook takes onFailure too', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', 'process.exit(3)\n')
    const result = await runHook('PreToolUse', {}, opts({ workspaceRoots: [root], onFailure: 'block' }))
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toMatch(SENTENCES.crash)
  }, 60000)

  test("a printed cancel still wins, and its message comes before the policy's line", async () => {
    const root = makeWorkspace()
    const hooks = hooksDirOf(root)
    writeProgram(path.join(hooks, '..', '..', 'gate'), 'PreToolUse', printJson({ cancel: true, errorMessage: 'denied by the gate' }))
    writeProgram(hooks, 'PreToolUse', 'process.exit(3)\n')
    const extra = path.join(root, 'gate')
    const allowed = await runHook('PreToolUse', {}, opts({ workspaceRoots: [root], extraHooksDirs: [extra], onFailure: 'allow' }))
    expect(allowed.cancel).toBe(true)
    expect(allowed.errorMessage).toBe('denied by the gate')
    const blocked = await runHook('PreToolUse', {}, opts({ workspaceRoots: [root], extraHooksDirs: [extra], onFailure: 'block' }))
    expect(blocked.cancel).toBe(true)
    const lines = blocked.errorMessage.split('\n')
    expect(lines[0]).toBe('denied by the gate')
    expect(lines[1]).toMatch(SENTENCES.crash)
    expect(lines).toHaveLength(2)
  }, 60000)

  test('an abort with onFailure "block" still rejects with the AbortError', async () => {
    const root = makeWorkspace()
    const ready = path.join(root, 'ready')
    writeProgram(hooksDirOf(root), 'PreToolUse', `${touch(ready)}${STAY_ALIVE}`)
    const controller = new AbortController()
    const running = runHook('PreToolUse', {}, opts({ workspaceRoots: [root], onFailure: 'block', signal: controller.signal }))
    await waitFor(() => fs.existsSync(ready), { timeoutMs: START_MS, what: 'the hook to start' })
    controller.abort('stop')
    const err = await running.then(
      () => null,
      (e) => e,
    )
    expect(err && [err.name, err.code, err.cause]).toEqual(['AbortError', 'ABORT_ERR', 'stop'])
  }, 60000)

  test('terminateAll() with onFailure "block" does not cancel', async () => {
    const root = makeWorkspace()
    const ready = path.join(root, 'ready')
    writeProgram(hooksDirOf(root), 'PreToolUse', `${touch(ready)}${STAY_ALIVE}`)
    const running = runHook('PreToolUse', {}, opts({ workspaceRoots: [root], onFailure: 'block' }))
    await waitFor(() => fs.existsSync(ready), { timeoutMs: START_MS, what: 'the hook to start' })
    expect(await terminateAll()).toBe(1)
    const result = await running
    expect(result.hooks[0].status).toBe('aborted')
    expect(result.hooks[0].failureKind).toBeUndefined()
    expect(result.cancel).toBe(false)
    expect(result.errorMessage).toBe('')
  }, 60000)

  testUnix('a disabled hook (no exec bit) is not a failure, even under "block"', async () => {
    const root = makeWorkspace()
    writeProgram(hooksDirOf(root), 'PreToolUse', 'process.exit(3)\n', { mode: 0o644 })
    const result = await runHook('PreToolUse', {}, opts({ workspaceRoots: [root], onFailure: 'block' }))
    expect(result.hooks).toEqual([])
    expect(result.cancel).toBe(false)
    expect(result.warnings.join('\n')).toMatch(/skipped/)
  })

  test('a bad onFailure is refused with ERR_INVALID_OPTION naming what is allowed, and runs nothing', async () => {
    const root = makeWorkspace()
    const ran = path.join(root, 'ran')
    writeProgram(hooksDirOf(root), 'PreToolUse', touch(ran))
    const runner = await new HookFactory(opts({ workspaceRoots: [root] })).create('PreToolUse')
    const cases = [
      ['deny', /invalid option onFailure: "deny" is not a failure policy; use "allow", "block", or an object/],
      [true, /invalid option onFailure: a boolean was given; use "allow", "block", or an object/],
      [['block'], /invalid option onFailure: an array was given; use "allow", "block"/],
      [{ timout: 'block' }, /invalid option onFailure: "timout" is not a kind of failure: did you mean "timedOut"\? \(the keys of onFailure are timedOut, crash, startFailure, invalidOutput\)/],
      // The old name beside the new one would leave the verdict to the keys' order.
      [{ timedOut: 'block', timeout: 'allow' }, /invalid option onFailure: it has both timedOut and timeout, its old name, for the same kind of failure; keep timedOut/],
      [{ crash: 'Block' }, /invalid option onFailure: onFailure\.crash is "Block"; use "allow" or "block"/],
      [{ crash: 1 }, /invalid option onFailure: onFailure\.crash is a number; use "allow" or "block"/],
    ]
    for (const [onFailure, message] of cases) {
      for (const run of [() => runner.run({}, { onFailure }), () => runHook('PreToolUse', {}, opts({ workspaceRoots: [root], onFailure }))]) {
        const err = await run().then(
          () => null,
          (e) => e,
        )
        expect(err && err.code).toBe('ERR_INVALID_OPTION')
        expect(err.message).toMatch(message)
      }
    }
    const misspelled = await runner.run({}, { onFailur: 'block' }).then(
      () => null,
      (e) => e,
    )
    expect(misspelled.message).toMatch(/did you mean "onFailure"\?/)
    expect(fs.existsSync(ran)).toBe(false)
  })
})
