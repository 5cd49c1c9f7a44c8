// Temporary folders for end-to-end runs (workspaces, HOMEs), and the file hooks and plugins written
// into them.
'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const made = new Set()

/** A new empty folder under the system temp dir, removed by removeTempDirs(). */
function makeTempDir(label = 'tmp') {
  // realpath: on some systems the temp dir is a symlink, and the CLI reports resolved paths.
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `cline-e2e-${label}-`)))
  made.add(dir)
  return dir
}

function removeTempDirs() {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
  made.clear()
}

/**
 * Writes an executable file hook, `<workspace>/<dir>/<eventName>` (eventName as Cline names the
 * files: PreToolUse, PostToolUse, TaskStart, ...); `body` is a bash script without the shebang.
 */
function writeFileHook(workspace, eventName, body, { dir = path.join('.clinerules', 'hooks') } = {}) {
  const hooksDir = path.join(workspace, dir)
  fs.mkdirSync(hooksDir, { recursive: true })
  const file = path.join(hooksDir, eventName)
  fs.writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 })
  return file
}

/**
 * Writes a Cline plugin module, `<workspace>/.cline/plugins/<fileName>` (.js or .mjs). The CLI
 * loads it in a Node process of its own (CLINE_JS_RUNTIME_PATH: this Node, see cline-cli.js); a
 * CommonJS `module.exports = { name, manifest: { capabilities: ['hooks'] }, hooks: {...} }` works.
 */
function writePlugin(workspace, fileName, source) {
  const dir = path.join(workspace, '.cline', 'plugins')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, fileName)
  fs.writeFileSync(file, source)
  return file
}

/** A bash single-quoted literal of `value` (for paths put into hook scripts). */
function shellQuote(value) {
  return `'${String(value).replace(/'/g, `'\\''`)}'`
}

module.exports = { makeTempDir, removeTempDirs, writeFileHook, writePlugin, shellQuote }
