'use strict'

// The hooks the benchmark runs, written into a fresh temporary folder per run.

const fs = require('fs')
const os = require('os')
const path = require('path')

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

  return {
    root,
    hookName: HOOK,
    trivialDir,
    trivialHook,
    sleepy,
    noHook,
    chattyDir,
    chattyHook,
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

module.exports = { create, input, HOOK }
