'use strict'

// A `{"cancel": true}` replaced by a later verdict object: the contract reads only the final
// JSON object holding a verdict field, so the later one counts, but never silently. Real sh
// hooks, run through the built addon: a later verdict object replaces the cancel with a
// warning; a later JSON log line does not replace it; a later cancel replaces an earlier
// `{"cancel": false}` without a word.

const path = require('path')

const { addon, describeUnix, makeTempDir, writeHook, echoJson, opts } = require('./helpers')

const { runHook } = addon

const REPLACED = /^printed \{"cancel": true\} earlier, but a later JSON object with a verdict field \(contextModification\) replaced it, so the operation was not blocked: .*print one verdict, last on stdout/

/** Runs `body` as a PreToolUse sh hook; the run's result and the hook's record. */
async function runOne(body) {
  const dir = path.join(makeTempDir(), 'hooks')
  writeHook(dir, 'PreToolUse', body)
  const result = await runHook('PreToolUse', { preToolUse: { toolName: 'write_to_file' } }, opts({ extraHooksDirs: [dir] }))
  expect(result.hooks).toHaveLength(1)
  return { result, hook: result.hooks[0] }
}

const replacedWarnings = (hook) => hook.warnings.filter((w) => w.includes('but a later JSON object'))

describeUnix('a cancel replaced by a later verdict object', () => {
  test('{"cancel": true} then {"contextModification": "x"}: the later one counts, and the warning says the cancel was replaced', async () => {
    const { result, hook } = await runOne(`${echoJson({ cancel: true, errorMessage: 'blocked' })}\necho 'cleaning up'\n${echoJson({ contextModification: 'x' })}`)
    expect(hook.status).toBe('completed')
    expect(hook.cancel).toBe(false)
    expect(result.cancel).toBe(false)
    expect(result.contextModification).toContain('x')
    expect(hook.warnings).toHaveLength(1)
    expect(hook.warnings[0]).toMatch(REPLACED)
  })

  test('{"cancel": true} then a JSON log line {"status": "logged"}: still blocks, no replacement warning', async () => {
    const { result, hook } = await runOne(`${echoJson({ cancel: true, errorMessage: 'blocked' })}\n${echoJson({ status: 'logged' })}`)
    expect(hook.status).toBe('completed')
    expect(hook.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toContain('blocked')
    expect(replacedWarnings(hook)).toEqual([])
    expect(hook.warnings).toHaveLength(1)
    expect(hook.warnings[0]).toMatch(/^printed \{"status":"logged"\} after its verdict; .* ignored/)
  })

  test('{"cancel": false} then {"cancel": true}: blocks, no warning', async () => {
    const { result, hook } = await runOne(`${echoJson({ cancel: false })}\n${echoJson({ cancel: true })}`)
    expect(hook.status).toBe('completed')
    expect(hook.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(hook.warnings).toEqual([])
  })
})
