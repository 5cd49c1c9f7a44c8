// `@cline/hooks/sdk`'s types against the real SDK's: what `createFileHooks` returns type-checks
// (strict) as @cline/core's `AgentHooks`, in a host's own TypeScript, with both packages resolved
// the way a host resolves them.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { makeTempDir, removeTempDirs } = require('./support/workspace')
const { CLINE_MODULES } = require('./support/install')

afterAll(removeTempDirs)

const REPO = path.resolve(__dirname, '..')

test('createFileHooks(...) is assignable to the SDK\'s AgentHooks, and its options take the SDK\'s', () => {
  const project = makeTempDir('types')
  fs.writeFileSync(
    path.join(project, 'host.ts'),
    `import type { AgentHooks } from '@cline/core'
import { createFileHooks, type FileHooksOptions } from '@cline/hooks/sdk'

const options: FileHooksOptions = {
  workspacePath: '/w',
  cwd: '/w',
  rootSessionId: 'root',
  toolCallTimeoutMs: 5000,
  detachAsyncHooks: false,
  blockingRunStartHooks: true,
  logger: { debug: () => {}, log: () => {} },
  onHookRuntime: (event) => void event.durationMs,
  signal: new AbortController().signal,
  env: { A: 'b' },
}
export const hooks: AgentHooks = createFileHooks(options)

// A host's options typed as the SDK's own runner's, and its runtime observer, are taken as they are.
import type { createHookConfigFileHooks } from '@cline/core'
declare const sdkOptions: Parameters<typeof createHookConfigFileHooks>[0]
declare const observer: NonNullable<Parameters<typeof createHookConfigFileHooks>[0]['onHookRuntime']>
export const fromSdkOptions: AgentHooks = createFileHooks({ ...sdkOptions, onHookRuntime: observer })
// A check that the SDK's types are really read (not \`any\`): this must not compile.
// @ts-expect-error
export const wrong: AgentHooks = { beforeTool: 5 }
`,
  )
  fs.writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        // The SDK's declarations import their siblings without extensions, as bundlers allow.
        module: 'esnext',
        moduleResolution: 'bundler',
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [path.join(REPO, 'node_modules', '@types')],
        paths: {
          '@cline/core': [path.join(CLINE_MODULES, '@cline', 'core')],
          '@cline/hooks/sdk': [path.join(REPO, 'sdk', 'index.d.ts')],
        },
      },
      files: ['host.ts'],
    }),
  )
  const tsc = require.resolve('typescript/bin/tsc')
  const out = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8', cwd: project })
  expect({ status: out.status, output: out.stdout + out.stderr }).toEqual({ status: 0, output: '' })
}, 120000)
