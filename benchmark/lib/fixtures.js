'use strict'

// The hooks the benchmark runs, written into a fresh temporary folder per run.

const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawnSync } = require('child_process')

const HOOK = 'PreToolUse'

// Reads all of stdin with shell builtins only (one process per run), then prints its verdict.
const TRIVIAL = `#!/bin/sh
while IFS= read -r line; do :; done
printf '{"cancel":false}\\n'
`

const SLEEPY = `#!/bin/sh
while IFS= read -r line; do :; done
sleep 0.1
printf '{"cancel":false}\\n'
`

// 256 MiB of log lines on stdout, then the verdict.
const CHATTY = `#!/bin/sh
while IFS= read -r line; do :; done
yes '[hook] a chatty hook logging to stdout, 64 bytes per line......' | head -c 268435456
printf '{"cancel":false}\\n'
`

// (j): a tool hook for two tools only. Each start appends a line to a log beside it, so a
// start the system-call trace might miss would still show.
const skipHook = (startsLog) => `#!/bin/sh
# cline-hook: tools=write_to_file,replace_in_file
echo started >> '${startsLog}'
while IFS= read -r line; do :; done
printf '{"cancel":false}\\n'
`

// (k), (l): the same logic (read the event, parse it, answer "go ahead" at once) as a
// persistent hook and as a hook started per call, in three styles: Node with the package's
// `serveHook` (which serves both modes), Node with a plain loop, and Python. The answer carries
// the process id, so a run can count the processes that answered. The interpreters are named by
// their absolute path in the `#!` line: a version manager's shim (pyenv, nvm) would otherwise
// add its own start-up to every per-call run.
const SERVE = path.join(__dirname, '..', '..', 'serve.js')
const PERSISTENT_HEADER = { node: '// cline-hook: mode=persistent', python: '# cline-hook: mode=persistent' }
const FAST_HOOKS = {
  serve: (node, persistent) => `#!${node}
${persistent ? PERSISTENT_HEADER.node : '// a hook started for each call'}
const { serveHook } = require(${JSON.stringify(SERVE)})
serveHook(() => ({ cancel: false, pid: process.pid }))
`,
  readline: (node, persistent) =>
    persistent
      ? `#!${node}
${PERSISTENT_HEADER.node}
const answer = JSON.stringify({ cancel: false, pid: process.pid }) + '\\n'
require('readline')
  .createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on('line', (line) => {
    JSON.parse(line)
    process.stdout.write(answer)
  })
`
      : `#!${node}
// a hook started for each call
const answer = JSON.stringify({ cancel: false, pid: process.pid }) + '\\n'
let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (piece) => (text += piece))
process.stdin.on('end', () => {
  JSON.parse(text)
  process.stdout.write(answer)
})
`,
  python: (python, persistent) =>
    persistent
      ? `#!${python}
${PERSISTENT_HEADER.python}
import json, os, sys
answer = ('{"cancel": false, "pid": %d}\\n' % os.getpid()).encode()
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    json.loads(line)
    out.write(answer)
    out.flush()
`
      : `#!${python}
# a hook started for each call
import json, os, sys
json.load(sys.stdin.buffer)
sys.stdout.write('{"cancel": false, "pid": %d}\\n' % os.getpid())
`,
}

/** The real path of python3 (through any shim), or null when there is none. */
function pythonPath() {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' })
  const exe = r.status === 0 ? r.stdout.trim() : ''
  return exe && fs.existsSync(exe) ? exe : null
}

function writeHook(dir, name, body) {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, name)
  fs.writeFileSync(file, body, { mode: 0o755 })
  fs.chmodSync(file, 0o755)
  return file
}

/** Creates every hook folder; returns their paths and a `remove()`. */
function create() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-bench-'))
  const at = (...p) => path.join(root, ...p)

  const trivialDir = at('trivial')
  const trivialHook = writeHook(trivialDir, HOOK, TRIVIAL)

  // (d): one hook in each kind of folder: extra, global, two workspace roots.
  const sleepy = {
    extra: at('sleepy', 'extra'),
    global: at('sleepy', 'global'),
    roots: [at('sleepy', 'ws1'), at('sleepy', 'ws2')],
  }
  writeHook(sleepy.extra, HOOK, SLEEPY)
  writeHook(sleepy.global, HOOK, SLEEPY)
  for (const r of sleepy.roots) writeHook(path.join(r, '.clinerules', 'hooks'), HOOK, SLEEPY)

  // (f): hooks exist, but none for this tool call's hook name.
  const noHook = { extra: at('nohook', 'extra'), roots: [at('nohook', 'ws')] }
  writeHook(noHook.extra, 'TaskStart', TRIVIAL)
  writeHook(path.join(noHook.roots[0], '.clinerules', 'hooks'), 'PostToolUse', TRIVIAL)

  const chattyDir = at('chatty')
  const chattyHook = writeHook(chattyDir, HOOK, CHATTY)

  // (j): a hook whose tools= does not match the input of `skipInput()`.
  const skip = { dir: at('skip'), starts: at('skip-starts.log') }
  writeHook(skip.dir, HOOK, skipHook(skip.starts))

  // (k), (l): one folder per hook style and mode (each folder holds one PreToolUse).
  const python = pythonPath()
  const fast = {}
  for (const style of Object.keys(FAST_HOOKS)) {
    const interpreter = style === 'python' ? python : process.execPath
    if (!interpreter) continue
    fast[style] = {}
    for (const mode of ['persistent', 'perCall']) {
      const dir = at('fast', style, mode)
      fast[style][mode] = { dir, hook: writeHook(dir, HOOK, FAST_HOOKS[style](interpreter, mode === 'persistent')) }
    }
  }

  return {
    root,
    hookName: HOOK,
    trivialDir,
    trivialHook,
    sleepy,
    noHook,
    chattyDir,
    chattyHook,
    skip,
    fast,
    remove() {
      fs.rmSync(root, { recursive: true, force: true })
    },
  }
}

/** A realistic PreToolUse input, with the fields the runtime would otherwise add filled in. */
function input(workspaceRoots = []) {
  return {
    clineVersion: '3.40.0',
    hookName: HOOK,
    timestamp: String(Date.now()),
    taskId: 'task-1732240000000',
    workspaceRoots,
    userId: 'u-123',
    model: { provider: 'anthropic', slug: 'claude-sonnet-4-5' },
    preToolUse: {
      toolName: 'write_to_file',
      parameters: {
        path: 'src/components/Button.tsx',
        content: 'export function Button() {\n  return <button>ok</button>\n}\n',
      },
    },
  }
}

/** The same input for a tool the skip hook's `tools=` does not name. */
function skipInput(base) {
  return { ...base, preToolUse: { toolName: 'read_file', parameters: { path: 'src/components/Button.tsx' } } }
}

module.exports = { create, input, skipInput, HOOK }
