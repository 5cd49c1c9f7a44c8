// A consumer written the way a VS Code extension is: ES-module syntax, bundled by esbuild into one
// CommonJS file (--bundle --platform=node --format=cjs) with @cline/hooks kept external, so the
// bundle requires the installed package (its loader picks the platform package at run time).
import { HookFactory, runHook } from '@cline/hooks'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

function check(cond, what) {
  if (!cond) throw new Error(`bundled consumer: ${what}`)
}

export async function activate() {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-bundled-'))
  try {
    const dir = path.join(ws, '.clinerules', 'hooks')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'PreToolUse'),
      '#!/bin/sh\nif grep -q t-bundled; then echo \'{"cancel":true,"errorMessage":"blocked by the bundled consumer hook"}\'; ' +
        'else echo \'{"cancel":false}\'; fi\n',
      { mode: 0o755 },
    )
    const options = { globalHooksDir: null, workspaceRoots: [ws] }
    const factory = new HookFactory(options)
    const runner = await factory.create('PreToolUse')
    const result = await runner.run({ taskId: 't-bundled', preToolUse: { tool: 'write_to_file', parameters: { path: 'a.ts' } } })
    check(result.hooks.length === 1, `one hook ran, got ${result.hooks.length}`)
    check(result.hooks[0].status === 'completed', `status ${result.hooks[0].status}: ${result.hooks[0].failure}`)
    check(result.cancel === true, 'the hook cancelled')
    check(result.errorMessage === 'blocked by the bundled consumer hook', `errorMessage ${result.errorMessage}`)
    const other = await runHook('PreToolUse', { taskId: 'other' }, options)
    check(other.cancel === false, 'other task allowed')
    console.log(`bundled consumer: ok (1 hook, ${result.durationMs} ms)`)
  } finally {
    fs.rmSync(ws, { recursive: true, force: true })
  }
}

activate().catch((err) => {
  console.error('bundled consumer FAILED:', err)
  process.exit(1)
})
