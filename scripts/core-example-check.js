// Runs the core crate's `run_event` example on examples/workspace and checks what it prints:
// PreToolUse.json is allowed with the hook's context, PreToolUse-write-js.json is blocked.
const { spawnSync } = require('child_process')

function run(input) {
  const args = ['run', '-q', '-p', 'cline-hooks-core', '--example', 'run_event', '--',
    'PreToolUse', '--workspace', 'examples/workspace', '--no-global', '--input', `examples/inputs/${input}`]
  const p = spawnSync('cargo', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  let out = null
  try { out = JSON.parse(p.stdout) } catch {}
  return { status: p.status, out }
}

const allow = run('PreToolUse.json')
const block = run('PreToolUse-write-js.json')
const ok = allow.status === 0 && allow.out && !allow.out.cancel &&
  allow.out.hooks.length === 1 && allow.out.hooks[0].status === 'completed' &&
  allow.out.contextModification.startsWith('TypeScript project') &&
  block.status === 1 && block.out && block.out.cancel &&
  block.out.errorMessage.includes('write src/config.ts instead')
if (!ok) {
  console.error('run_event example: unexpected result', JSON.stringify({ allow, block }, null, 2))
  process.exit(1)
}
console.log('run_event example: examples/workspace allowed PreToolUse.json and blocked PreToolUse-write-js.json')
