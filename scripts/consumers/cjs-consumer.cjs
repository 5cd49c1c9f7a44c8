'use strict'
// CommonJS consumer of the installed @cline/hooks: require() it, write one executable hook into a
// temp workspace, run it, check the verdict. Run by scripts/test-package.sh in a temp project.
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { runHook, discoverHooks, KNOWN_HOOKS } = require('@cline/hooks')

async function main() {
  assert.ok(Array.isArray(KNOWN_HOOKS) && KNOWN_HOOKS.includes('TaskStart'), 'KNOWN_HOOKS lists TaskStart')
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-cjs-'))
  try {
    const dir = path.join(ws, '.clinerules', 'hooks')
    fs.mkdirSync(dir, { recursive: true })
    // The hook proves its stdin is the input: it answers differently when the task id is missing.
    fs.writeFileSync(
      path.join(dir, 'TaskStart'),
      '#!/bin/sh\nif grep -q t-cjs; then echo \'{"cancel":false,"contextModification":"hello from cjs"}\'; ' +
        'else echo \'{"cancel":true,"errorMessage":"input not seen"}\'; fi\n',
      { mode: 0o755 },
    )
    const options = { globalHooksDir: null, workspaceRoots: [ws] }
    const found = await discoverHooks('TaskStart', options)
    assert.equal(found.length, 1)
    assert.equal(found[0].enabled, true)
    const result = await runHook('TaskStart', { taskId: 't-cjs' }, options)
    assert.equal(result.hooks.length, 1)
    assert.equal(result.hooks[0].status, 'completed', result.hooks[0].failure)
    assert.equal(result.cancel, false)
    assert.equal(result.contextModification, 'hello from cjs')
    console.log(`cjs consumer: ok (1 hook, ${result.durationMs} ms)`)
  } finally {
    fs.rmSync(ws, { recursive: true, force: true })
  }
}

main().catch((err) => {
  console.error('cjs consumer FAILED:', err)
  process.exit(1)
})
