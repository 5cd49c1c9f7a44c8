'use strict'

// HookError: every rejection and throw of the API is one, with a `code`; a bad argument's is
// of its TypeError kind (so `instanceof TypeError` still holds) and its message names the
// argument and the value received; an abort keeps `name: 'AbortError'`. Only the documented
// names are exported, and KNOWN_HOOKS cannot be changed.

const path = require('path')
const { Worker } = require('worker_threads')

const { addon, makeTempDir, writeFile } = require('./helpers')

const { HookError, HookFactory, HookRunner, KNOWN_HOOKS, runHook, discoverHooks, trustHook } = addon

const rejection = (promise) =>
  promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e) => e,
  )

describe('HookError', () => {
  test('a bad hook name: a HookError of the TypeError kind that names the value received', async () => {
    const error = await rejection(runHook(12345, {}))
    expect(error).toBeInstanceOf(HookError)
    expect(error).toBeInstanceOf(TypeError)
    expect(error).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_HOOK_NAME' })
    expect(error.message).toMatch(/hook name \(the first argument\).*the number 12345/)
  })

  test('a bad options argument names `options` and the value', async () => {
    const error = await rejection(runHook('PreToolUse', {}, 'not-an-object'))
    expect(error).toBeInstanceOf(HookError)
    expect(error.code).toBe('ERR_INVALID_OPTION')
    expect(error.message).toMatch(/options.*the string "not-an-object"/)
    const input = await rejection(runHook('PreToolUse', true))
    expect(input.code).toBe('ERR_INVALID_HOOK_INPUT')
    expect(input.message).toMatch(/the boolean true/)
  })

  test('constructors throw HookErrors: new HookFactory(bad), new HookRunner()', () => {
    expect(() => new HookFactory(7)).toThrow(HookError)
    try {
      new HookFactory({ workspaceRoots: 'not-a-list' })
    } catch (error) {
      expect(error).toBeInstanceOf(HookError)
      expect(error.code).toBe('ERR_INVALID_OPTION')
    }
    let thrown
    try {
      new HookRunner()
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(HookError)
    expect(thrown.code).toBe('ERR_HOOK_NO_CONSTRUCTOR')
    expect(thrown.message).toMatch(/factory\.create/)
  })

  test('a runner from a factory is still `instanceof HookRunner`', async () => {
    const runner = await new HookFactory({ globalHooksDir: null }).create('PreToolUse')
    expect(runner).toBeInstanceOf(HookRunner)
  })

  test('an abort keeps name AbortError, with the signal\'s reason as cause', async () => {
    const controller = new AbortController()
    const reason = new Error('user pressed stop')
    controller.abort(reason)
    const error = await rejection(runHook('PreToolUse', {}, { globalHooksDir: null, signal: controller.signal }))
    expect(error).toBeInstanceOf(HookError)
    expect(error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' })
    expect(error.cause).toBe(reason)
  })

  test('a policy call on a file that is not a hook: ERR_NOT_A_HOOK', async () => {
    const tmp = makeTempDir()
    const file = writeFile(tmp, 'notes.txt', 'hello')
    const error = await rejection(trustHook(file, { policyFile: path.join(makeTempDir(), 'policy.json') }))
    expect(error).toBeInstanceOf(HookError)
    expect(error.code).toBe('ERR_NOT_A_HOOK')
    expect(error).not.toBeInstanceOf(TypeError)
    expect(error.name).toBe('HookError')
  })

  test('new HookError() works for callers (code, cause) and other errors are not HookErrors', () => {
    const cause = new Error('inner')
    const made = new HookError('outer', { code: 'ERR_INVALID_OPTION', cause })
    expect(made).toMatchObject({ name: 'HookError', code: 'ERR_INVALID_OPTION', message: 'outer' })
    expect(made.cause).toBe(cause)
    expect(new TypeError('x')).not.toBeInstanceOf(HookError)
    expect(new Error('x')).not.toBeInstanceOf(HookError)
  })

  test('a worker thread gets HookErrors of its own module instance', async () => {
    const worker = new Worker(
      `const { workerData, parentPort } = require('worker_threads')
       const { HookError, discoverHooks } = require(workerData)
       discoverHooks(42).catch((e) => parentPort.postMessage({ ours: e instanceof HookError, code: e.code, type: e instanceof TypeError }))`,
      { eval: true, workerData: path.join(__dirname, '..') },
    )
    const said = await new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    await worker.terminate()
    expect(said).toEqual({ ours: true, code: 'ERR_INVALID_HOOK_NAME', type: true })
    // And this thread's are still this thread's.
    expect(await rejection(discoverHooks(42))).toBeInstanceOf(HookError)
  })
})

describe('exports', () => {
  test('only the documented names; no internals', () => {
    expect(Object.keys(addon).sort()).toEqual(
      ['HookError', 'HookFactory', 'HookRunner', 'KNOWN_HOOKS', 'diagnoseHooks', 'discoverHooks', 'runHook', 'setHookEnabled', 'setLogger', 'terminateAll', 'trustHook', 'untrustHook'].sort(),
    )
    expect(addon.__napiBindingTarget).toBeUndefined()
    expect(addon.useErrorClasses).toBeUndefined()
  })

  test('KNOWN_HOOKS cannot be changed', () => {
    expect(Object.isFrozen(KNOWN_HOOKS)).toBe(true)
    expect(() => KNOWN_HOOKS.push('Mine')).toThrow(/not extensible/)
    expect(KNOWN_HOOKS).toHaveLength(11)
  })
})
