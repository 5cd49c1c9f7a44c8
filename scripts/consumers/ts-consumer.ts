// TypeScript consumer of the installed @cline/hooks, type-checked with `tsc --noEmit --strict`
// against the package's index.d.ts, then compiled and run.
import * as assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  HookFactory,
  runHook,
  type DiscoveredHook,
  type HookExecution,
  type HookRunResult,
  type RunHookOptions,
} from '@cline/hooks'

// Never called: proves the types are the real ones, not `any` (each line must be a type error).
function typeErrors(): void {
  // @ts-expect-error the hook name is a string
  void runHook(42, {})
  // @ts-expect-error the input is an object
  void runHook('TaskStart', 'not an object')
  // @ts-expect-error no such option
  const bad: RunHookOptions = { timeoutSeconds: 3 }
  void bad
}
void typeErrors

async function main(): Promise<void> {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-ts-'))
  try {
    const dir = path.join(ws, '.clinerules', 'hooks')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'TaskStart'),
      '#!/bin/sh\nif grep -q t-ts; then echo \'{"cancel":false,"contextModification":"hello from ts"}\'; ' +
        'else echo \'{"cancel":true,"errorMessage":"input not seen"}\'; fi\n',
      { mode: 0o755 },
    )
    const options: RunHookOptions = { globalHooksDir: null, workspaceRoots: [ws], timeoutMs: 10_000 }
    const result: HookRunResult = await runHook('TaskStart', { taskId: 't-ts' }, options)
    const first: HookExecution | undefined = result.hooks[0]
    assert.ok(first, 'one hook ran')
    assert.equal(first.status, 'completed', first.failure)
    assert.equal(result.cancel, false)
    assert.equal(result.contextModification, 'hello from ts')

    const factory = new HookFactory({ globalHooksDir: null, workspaceRoots: [ws] })
    const runner = await factory.create('TaskStart')
    const discovered: DiscoveredHook[] = runner.hooks
    assert.equal(discovered.length, 1)
    const again = await runner.run({ taskId: 't-ts' })
    assert.equal(again.contextModification, 'hello from ts')
    console.log(`ts consumer: ok (1 hook, ${result.durationMs} ms; factory runner ${again.durationMs} ms)`)
  } finally {
    fs.rmSync(ws, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  console.error('ts consumer FAILED:', err)
  process.exit(1)
})
