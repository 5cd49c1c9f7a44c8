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

describe('misuse of the classes is a HookError too', () => {
  test('a method taken off its object, or called on another this, rejects with ERR_INVALID_THIS', async () => {
    const factory = new HookFactory({ globalHooksDir: null })
    const runner = await factory.create('PreToolUse')
    const { create } = factory
    const calls = {
      'detached create': () => create('PreToolUse'),
      'hasHook on {}': () => HookFactory.prototype.hasHook.call({}, 'PreToolUse'),
      'run on a factory': () => HookRunner.prototype.run.call(factory, {}),
      'dispose on {}': () => HookFactory.prototype.dispose.call({}),
    }
    if (typeof Symbol.asyncDispose === 'symbol') calls['asyncDispose on {}'] = () => factory[Symbol.asyncDispose].call({})
    for (const [what, call] of Object.entries(calls)) {
      let result
      try {
        result = await call().then(() => 'resolved', (e) => e)
      } catch (thrown) {
        result = { threw: thrown }
      }
      expect({ what, isHookError: result instanceof HookError, code: result.code }).toEqual({ what, isHookError: true, code: 'ERR_INVALID_THIS' })
    }
    const getter = Object.getOwnPropertyDescriptor(HookRunner.prototype, 'hookName').get
    expect(() => getter.call({})).toThrow(expect.objectContaining({ code: 'ERR_INVALID_THIS' }))
    expect(runner.hookName).toBe('PreToolUse')
  })

  test('HookFactory without new throws instead of wrapping its receiver; runner.constructor is HookRunner', async () => {
    let thrown
    try {
      HookFactory({ globalHooksDir: null })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(HookError)
    expect(thrown.code).toBe('ERR_INVALID_THIS')
    const factory = new HookFactory({ globalHooksDir: null })
    expect(factory.constructor).toBe(HookFactory)
    const runner = await factory.create('PreToolUse')
    expect(() => new runner.constructor()).toThrow(expect.objectContaining({ code: 'ERR_HOOK_NO_CONSTRUCTOR' }))
  })

  test('a subclass of HookFactory works', async () => {
    class TaskHooks extends HookFactory {
      forTool() {
        return this.create('PreToolUse')
      }
    }
    const hooks = new TaskHooks({ globalHooksDir: null })
    expect(hooks).toBeInstanceOf(HookFactory)
    expect((await hooks.forTool()).hookName).toBe('PreToolUse')
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
