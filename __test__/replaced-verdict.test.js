'use strict'

// A `{"cancel": true}` replaced by a later verdict object: the contract reads only the final
// JSON object holding a verdict field, so the later one counts, but never silently. Real hooks
// (Node programs that print the given lines, so every case runs on Windows too), run through
// the built addon: a later verdict object replaces the cancel with a warning; a later JSON log
// line does not replace it; a later cancel replaces an earlier `{"cancel": false}` without a
// word. In the CLI profile the last `HOOK_CONTROL<TAB>{...}` line is the verdict: a
// `"cancel": true` it set aside (an earlier control line, or a verdict object before or after
// it) is named the same way.

const path = require('path')

const { addon, makeTempDir, writeFile, writeProgram, opts, expectCompleted } = require('./helpers')

const { runHook } = addon

const REPLACED = /^printed \{"cancel": true\} earlier, but a later JSON object with a verdict field \(contextModification\) replaced it, so the operation was not blocked: .*print one verdict, last on stdout/

const SET_ASIDE_LINE = /^printed \{"cancel": true\} on a HOOK_CONTROL line, but a later HOOK_CONTROL line with a verdict field \((contextModification|cancel)\) replaced it, so the operation was not blocked: .*print one HOOK_CONTROL line, last/
const SET_ASIDE_OBJECT = /^printed \{"cancel": true\} in a JSON object, but in the CLI profile a HOOK_CONTROL line decides the verdict and the last one, with a verdict field \(contextModification\), does not block, so that object was not used and the operation was not blocked: put the cancel on the last HOOK_CONTROL line/

/** A Node program that prints `lines`, each ending in a newline, and exits 0. */
const printing = (lines) => `process.stdout.write(${JSON.stringify(lines.map((line) => `${line}\n`).join(''))})\n`

/**
 * Runs a PreToolUse hook that prints `lines` (in the CLI profile a `PreToolUse.js` file, which
 * that profile runs with the host's own Node on every platform); the run's result and the
 * hook's record.
 */
async function runOne(lines, profile) {
  const tmp = makeTempDir()
  const dir = path.join(tmp, 'hooks')
  if (profile === 'cli') writeFile(dir, 'PreToolUse.js', printing(lines))
  else writeProgram(dir, 'PreToolUse', printing(lines))
  const cli = profile === 'cli' ? { profile, clineDir: path.join(tmp, 'no-cline-dir') } : {}
  const result = await runHook('PreToolUse', { preToolUse: { toolName: 'write_to_file' } }, opts({ extraHooksDirs: [dir], ...cli }))
  expect(result.hooks).toHaveLength(1)
  return { result, hook: result.hooks[0] }
}

const replacedWarnings = (hook) => hook.warnings.filter((w) => w.includes('but a later JSON object'))

describe('a cancel replaced by a later verdict object', () => {
  test('{"cancel": true} then {"contextModification": "x"}: the later one counts, and the warning says the cancel was replaced', async () => {
    const { result, hook } = await runOne([json({ cancel: true, errorMessage: 'blocked' }), 'cleaning up', json({ contextModification: 'x' })])
    expectCompleted(hook)
    expect(hook.cancel).toBe(false)
    expect(result.cancel).toBe(false)
    expect(result.contextModification).toContain('x')
    expect(hook.warnings).toHaveLength(1)
    expect(hook.warnings[0]).toMatch(REPLACED)
  })

  test('{"cancel": true} then a JSON log line {"status": "logged"}: still blocks, no replacement warning', async () => {
    const { result, hook } = await runOne([json({ cancel: true, errorMessage: 'blocked' }), json({ status: 'logged' })])
    expectCompleted(hook)
    expect(hook.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toContain('blocked')
    expect(replacedWarnings(hook)).toEqual([])
    expect(hook.warnings).toHaveLength(1)
    expect(hook.warnings[0]).toMatch(/^printed \{"status":"logged"\} after its verdict; .* ignored/)
  })

  test('{"cancel": false} then {"cancel": true}: blocks, no warning', async () => {
    const { result, hook } = await runOne([json({ cancel: false }), json({ cancel: true })])
    expectCompleted(hook)
    expect(hook.cancel).toBe(true)
    expect(result.cancel).toBe(true)
    expect(hook.warnings).toEqual([])
  })
})

/** A line of stdout: `obj` as JSON. */
const json = (obj) => JSON.stringify(obj)

/** A line of stdout: `HOOK_CONTROL`, a tab and `obj` as JSON. */
const control = (obj) => `HOOK_CONTROL\t${JSON.stringify(obj)}`

describe('CLI profile: a cancel a HOOK_CONTROL line set aside', () => {
  test.each([
    ['{"cancel": true}, then a HOOK_CONTROL line {"contextModification": "x"}', [json({ cancel: true }), control({ contextModification: 'x' })], SET_ASIDE_OBJECT, 'x'],
    ['a HOOK_CONTROL line {"contextModification": "x"}, then {"cancel": true} as the final object', [control({ contextModification: 'x' }), json({ cancel: true })], SET_ASIDE_OBJECT, 'x'],
    ['a HOOK_CONTROL line {"cancel": true}, then one {"contextModification": "x"}', [control({ cancel: true }), control({ contextModification: 'x' })], SET_ASIDE_LINE, 'x'],
    ['a HOOK_CONTROL line {"cancel": true}, then one {"cancel": false}', [control({ cancel: true }), control({ cancel: false })], SET_ASIDE_LINE, undefined],
  ])('%s: the last line counts, and the warning says the cancel was set aside', async (_, lines, warning, context) => {
    const { result, hook } = await runOne(lines, 'cli')
    expectCompleted(hook)
    expect(hook.cancel).toBe(false)
    expect(result.cancel).toBe(false)
    if (context) expect(result.contextModification).toContain(context)
    expect(hook.warnings).toHaveLength(1)
    expect(hook.warnings[0]).toMatch(warning)
  })

  test('cancels in strings, nested values and log text, or a last line that blocks: no such warning', async () => {
    const quiet = [
      ['cancel: true', json({ log: { cancel: true }, msg: '{"cancel": true}' }), control({ cancel: false, context: 'ok' })],
      [control({ d: [{ cancel: true }], s: '"cancel": true' }), control({ cancel: false })],
    ]
    for (const lines of quiet) {
      const { hook } = await runOne(lines, 'cli')
      expect(hook.cancel).toBe(false)
      expect(hook.warnings).toEqual([])
    }
    const { hook } = await runOne([control({ cancel: false }), control({ cancel: true, errorMessage: 'no' }), json({ cancel: false })], 'cli')
    expect(hook.cancel).toBe(true)
    expect(hook.warnings).toEqual([])
  })
})
