// ES-module consumer of the installed @cline/hooks: named imports from a CommonJS package (Node's
// static analysis of index.js must find them) plus the default import.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runHook, HookFactory } from '@cline/hooks'
import hooks from '@cline/hooks'

assert.equal(typeof runHook, 'function', 'named import runHook')
assert.equal(typeof HookFactory, 'function', 'named import HookFactory')
assert.equal(hooks.runHook, runHook, 'default import is the same module')

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-esm-'))
try {
  const dir = path.join(ws, '.clinerules', 'hooks')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, 'TaskStart'),
    '#!/bin/sh\nif grep -q t-esm; then echo \'{"cancel":false,"contextModification":"hello from esm"}\'; ' +
      'else echo \'{"cancel":true,"errorMessage":"input not seen"}\'; fi\n',
    { mode: 0o755 },
  )
  const result = await runHook('TaskStart', { taskId: 't-esm' }, { globalHooksDir: null, workspaceRoots: [ws] })
  assert.equal(result.hooks.length, 1)
  assert.equal(result.hooks[0].status, 'completed', result.hooks[0].failure)
  assert.equal(result.cancel, false)
  assert.equal(result.contextModification, 'hello from esm')
  console.log(`esm consumer: ok (1 hook, ${result.durationMs} ms)`)
} catch (err) {
  console.error('esm consumer FAILED:', err)
  process.exitCode = 1
} finally {
  fs.rmSync(ws, { recursive: true, force: true })
}
