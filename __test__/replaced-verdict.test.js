'use strict'

// A `{"cancel": true}` replaced by a later verdict object: the contract reads only the final
// JSON object holding a verdict field, so the later one counts, but never silently. Real sh
// hooks, run through the built addon: a later verdict object replaces the cancel with a
// warning; a later JSON log line does not replace it; a later cancel replaces an earlier
// `{"cancel": false}` without a word. In the CLI profile the last `HOOK_CONTROL<TAB>{...}` line
// is the verdict: a `"cancel": true` it set aside (an earlier control line, or a verdict object
// before or after it) is named the same way.

const path = require('path')

const { addon, describeUnix, makeTempDir, writeHook, echoJson, shq, opts } = require('./helpers')

const { runHook } = addon

const REPLACED = /^printed \{"cancel": true\} earlier, but a later JSON object with a verdict field \(contextModification\) replaced it, so the operation was not blocked: .*print one verdict, last on stdout/

const SET_ASIDE_LINE = /^printed \{"cancel": true\} on a HOOK_CONTROL line, but a later HOOK_CONTROL line with a verdict field \((contextModification|cancel)\) replaced it, so the operation was not blocked: .*print one HOOK_CONTROL line, last/
const SET_ASIDE_OBJECT = /^printed \{"cancel": true\} in a JSON object, but in the CLI profile a HOOK_CONTROL line decides the verdict and the last one, with a verdict field \(contextModification\), does not block, so that object was not used and the operation was not blocked: put the cancel on the last HOOK_CONTROL line/

/**
 * Runs `body` as a PreToolUse sh hook (in the CLI profile, named `PreToolUse.sh` as that profile
 * finds it); the run's result and the hook's record.
 */
async function runOne(body, profile) {
  const tmp = makeTempDir()
  const dir = path.join(tmp, 'hooks')
  writeHook(dir, profile === 'cli' ? 'PreToolUse.sh' : 'PreToolUse', body)
  const cli = profile === 'cli' ? { profile, clineDir: path.join(tmp, 'no-cline-dir') } : {}
  const result = await runHook('PreToolUse', { preToolUse: { toolName: 'write_to_file' } }, opts({ extraHooksDirs: [dir], ...cli }))
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

/** A shell line printing `HOOK_CONTROL`, a tab and `obj` as JSON. */
const control = (obj) => `printf 'HOOK_CONTROL\\t%s\\n' ${shq(JSON.stringify(obj))}`

describeUnix('CLI profile: a cancel a HOOK_CONTROL line set aside', () => {
  test.each([
    ['{"cancel": true}, then a HOOK_CONTROL line {"contextModification": "x"}', `${echoJson({ cancel: true })}\n${control({ contextModification: 'x' })}`, SET_ASIDE_OBJECT, 'x'],
    ['a HOOK_CONTROL line {"contextModification": "x"}, then {"cancel": true} as the final object', `${control({ contextModification: 'x' })}\n${echoJson({ cancel: true })}`, SET_ASIDE_OBJECT, 'x'],
    ['a HOOK_CONTROL line {"cancel": true}, then one {"contextModification": "x"}', `${control({ cancel: true })}\n${control({ contextModification: 'x' })}`, SET_ASIDE_LINE, 'x'],
    ['a HOOK_CONTROL line {"cancel": true}, then one {"cancel": false}', `${control({ cancel: true })}\n${control({ cancel: false })}`, SET_ASIDE_LINE, undefined],
  ])('%s: the last line counts, and the warning says the cancel was set aside', async (_, body, warning, context) => {
    const { result, hook } = await runOne(body, 'cli')
    expect(hook.status).toBe('completed')
    expect(hook.cancel).toBe(false)
    expect(result.cancel).toBe(false)
    if (context) expect(result.contextModification).toContain(context)
    expect(hook.warnings).toHaveLength(1)
    expect(hook.warnings[0]).toMatch(warning)
  })

  test('cancels in strings, nested values and log text, or a last line that blocks: no such warning', async () => {
    const quiet = [
      `echo 'cancel: true'\n${echoJson({ log: { cancel: true }, msg: '{"cancel": true}' })}\n${control({ cancel: false, context: 'ok' })}`,
      `${control({ d: [{ cancel: true }], s: '"cancel": true' })}\n${control({ cancel: false })}`,
    ]
    for (const body of quiet) {
      const { hook } = await runOne(body, 'cli')
      expect(hook.cancel).toBe(false)
      expect(hook.warnings).toEqual([])
    }
    const { hook } = await runOne(`${control({ cancel: false })}\n${control({ cancel: true, errorMessage: 'no' })}\n${echoJson({ cancel: false })}`, 'cli')
    expect(hook.cancel).toBe(true)
    expect(hook.warnings).toEqual([])
  })
})
