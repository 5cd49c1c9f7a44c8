// A child Node process that runs one of the two file-hook runners on the calls it is given and
// prints what each call resolved to: `sdk`, the real @cline/core 0.0.86 runner
// (`createHookConfigFileHooks`, from the pinned CLI's copy), or `ours`, `createFileHooks` from
// @cline/hooks/sdk. A process of its own, so each runner reads the environment it is started
// with (HOME, CLINE_DIR, NODE_ENV, CLINE_BUILD_ENV, `--conditions=development`) as a host would.
//
//   node file-hook-runners.cjs '{"runner": "sdk", "workspace": "/w", "calls": [...], "audit": false}'
//
// A call is { kind: "beforeTool" | "afterTool", context }. With `audit`, the runner's hooks are
// merged with the SDK's own hooks.jsonl audit (`mergeAgentHooks`, `createHookAuditHooks`), as
// the README tells a host that passes createFileHooks as its runtime hooks.
'use strict'

const path = require('node:path')
const { pathToFileURL } = require('node:url')

const { CLINE_MODULES } = require('./install')

async function main() {
  const { runner, workspace, calls, audit } = JSON.parse(process.argv[2])
  const core = await import(pathToFileURL(path.join(CLINE_MODULES, '@cline', 'core', 'dist', 'index.js')).href)
  const options = { workspacePath: workspace, cwd: workspace, rootSessionId: 'root-1', toolCallTimeoutMs: 60000, workspaceInfo: { rootPath: workspace } }
  let hooks =
    runner === 'sdk'
      ? core.createHookConfigFileHooks(options)
      : require('../../sdk').createFileHooks(options)
  if (audit) hooks = core.mergeAgentHooks([hooks, core.createHookAuditHooks(options)])
  const results = []
  for (const { kind, context } of calls) {
    const started = Date.now()
    const control = hooks && hooks[kind] ? await hooks[kind](context) : undefined
    results.push({ control: control ?? null, ms: Date.now() - started })
  }
  process.stdout.write(JSON.stringify(results))
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(String(error && error.stack))
    process.exit(1)
  },
)
