'use strict'
// HookError, the one error class of the package's API: every rejection and throw of
// `@cline/hooks` is one (`instanceof HookError`), with a `code` saying which (docs/api.md lists
// each and what to do). Errors for a bad argument are of its TypeError kind, so `instanceof
// TypeError` holds for them too, as it always has; an abort keeps `name: 'AbortError'`.

// Taken now: a host that replaces Function.prototype's later cannot change `instanceof`.
const ordinaryHasInstance = Function.prototype[Symbol.hasInstance]
const { apply } = Reflect

class HookError extends Error {
  /**
   * @param {string} message
   * @param {{ code?: string, cause?: unknown }} [options]
   */
  constructor(message, options) {
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined)
    if (options !== undefined && options.code !== undefined) {
      Object.defineProperty(this, 'code', { value: options.code, enumerable: true, configurable: true, writable: true })
    }
  }

  // HookError's TypeError kind is a HookError too.
  static [Symbol.hasInstance](value) {
    return apply(ordinaryHasInstance, this, [value]) || (this === HookError && apply(ordinaryHasInstance, HookArgumentError, [value]))
  }
}

/** The TypeError kind of HookError (a bad argument or option); not exported by itself. */
class HookArgumentError extends TypeError {}
// Shown as `HookError [TypeError]` when logged, as HookError's own kind.
Object.defineProperty(HookArgumentError, 'name', { value: 'HookError' })

for (const [Class, name] of [
  [HookError, 'HookError'],
  [HookArgumentError, 'TypeError'],
]) {
  Object.defineProperty(Class.prototype, 'name', { value: name, writable: true, configurable: true })
}

/** A HookError of the TypeError kind with `code`, for a bad argument found in JavaScript. */
function argumentError(message, code) {
  const error = new HookArgumentError(message)
  Object.defineProperty(error, 'code', { value: code, enumerable: true, configurable: true, writable: true })
  return error
}

module.exports = { HookError, HookArgumentError, argumentError }
