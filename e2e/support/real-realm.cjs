// Loaded with Node's own CommonJS loader, outside Jest's module sandbox (see sdk-host.js): from
// here `import()` of an ES module works without --experimental-vm-modules, and `process.env` and
// `globalThis` are the process's real ones (Jest gives test files copies), which the SDK uses.
'use strict'

const { pathToFileURL } = require('node:url')

// The AI SDK inside @cline/core prints a warning banner per request otherwise.
globalThis.AI_SDK_LOG_WARNINGS = false

/**
 * Records the timers created through the global setTimeout/setInterval (the SDK's, not the test
 * file's: Jest's sandbox keeps its own references) until the returned function is called, which
 * restores the globals and unrefs every recorded timer, returning how many it recorded. Why:
 * @cline/core 0.0.86's run_commands races each command against a 30 s setTimeout it never clears,
 * which would hold the test process open for 30 s after the last SDK task. Unref changes nothing
 * else: a timer still pending fires if the process is still running.
 */
function trackTimers() {
  const made = []
  const originals = { setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval }
  for (const name of Object.keys(originals)) {
    const original = originals[name]
    const wrapped = function (...args) {
      const timer = original.apply(this, args)
      made.push(timer)
      return timer
    }
    // Keep util.promisify(setTimeout) and friends working.
    Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(original))
    globalThis[name] = wrapped
  }
  return () => {
    Object.assign(globalThis, originals)
    for (const timer of made) timer?.unref?.()
    return made.length
  }
}

module.exports = {
  importModule: (file) => import(pathToFileURL(file).href),
  env: process.env,
  trackTimers,
  // One SDK task at a time: it runs with the real environment changed for its duration.
  state: { active: false },
}
