// A plugin for the shipped Cline CLI (`cline`, 3.0.65) that runs file hooks through @cline/hooks.
// Copy it into `$CLINE_DIR/plugins/` (default `~/.cline/plugins/`), `~/Documents/Cline/Plugins/`
// or `<workspace>/.cline/plugins/`; the CLI runs it in a separate Node process and merges its
// verdicts with its own runner's. It loads the package only from places the opened repository
// cannot write (see loadAdapter), never from the workspace's node_modules. It is
// CommonJS in a `.js` file because the CLI loads only `.js` and `.ts` plugin files (through jiti),
// and Node loads it as CommonJS wherever the package is installed.
//
// The CLI's built-in runner cannot be turned off, so by default this plugin runs only the folders
// the built-in one ignores: the `--hooks-dir` folder (the CLI exports it as CLINE_HOOKS_DIR) and
// the machine's managed hooks folder (`/etc/cline/hooks` and the like: see the README), whose
// hooks run first in either mode.
// CLINE_HOOKS_PLUGIN_FOLDERS=all makes it run every folder, for hosts that leave the built-in
// file hooks out. The CLI gives a plugin call 3 s and then fails the whole run, orphaning what
// the plugin started; so each hook gets CLINE_HOOKS_PLUGIN_TIMEOUT_MS (default 2500), its
// header's `timeout=` included (it is the cap too), and is then stopped with its whole process
// tree, before the CLI gives up. CLINE_HOOKS_PLUGIN_REQUIRE=tool_call,... names hooks that must
// run: a call in which none of that name started is blocked, saying why (requireHooks).

'use strict'

const fs = require('node:fs')
const { createRequire } = require('node:module')
const path = require('node:path')

const PACKAGE = '@cline/hooks'
const DEFAULT_TIMEOUT_MS = 2500
/** The CLI's own limit on one plugin call. */
const CLI_CALL_LIMIT_MS = 3000

/**
 * The package's SDK adapter, from a folder the opened repository cannot write. The workspace
 * (see workspaceRoots) is a cloned repository: a `node_modules/@cline/hooks` it ships would be
 * a runtime that runs or approves whatever it likes. So no lookup starts from the current
 * directory or a file in it, and Node's search up the folders (and NODE_PATH) is never used:
 * each place is a package folder opened by path. The places, in order: CLINE_HOOKS_PACKAGE
 * (the user's own choice: used even inside the workspace, with a warning); the package this
 * file belongs to, when it is loaded from there rather than copied (wherever it is: whoever
 * loaded this file trusts that folder already); then, passing over any inside the workspace,
 * the node_modules folders holding the program that loads the plugin (the Cline CLI's own
 * install: its plugin sandbox script lives there) and the global node_modules of the Node that
 * runs the plugin.
 */
function loadAdapter() {
  const roots = workspaceRoots()
  const workspaceOf = (dir) => roots.find((root) => isInside(root, realOrSelf(dir)))
  const explicit = process.env.CLINE_HOOKS_PACKAGE
  if (explicit) {
    const dir = path.resolve(explicit)
    const workspace = workspaceOf(dir)
    if (workspace !== undefined) {
      process.stderr.write(
        `${PACKAGE} plugin: warning: CLINE_HOOKS_PACKAGE (${dir}) is inside the workspace ${workspace}, so the repository ` +
          'can replace the runtime that decides which hooks run; point it at a copy outside the workspace\n',
      )
    }
    return adapterIn(dir)
  }
  const own = path.dirname(__filename)
  if (packageNameIn(own) === PACKAGE) return adapterIn(own)
  const candidates = []
  if (process.argv[1]) {
    for (let dir = path.dirname(realOrSelf(process.argv[1])); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      if (path.basename(dir) === 'node_modules') candidates.push(path.join(dir, PACKAGE))
    }
  }
  const prefix = path.dirname(path.dirname(process.execPath))
  const globalModules =
    process.platform === 'win32' ? path.join(path.dirname(process.execPath), 'node_modules') : path.join(prefix, 'lib', 'node_modules')
  candidates.push(path.join(globalModules, PACKAGE))
  for (const dir of candidates) {
    if (packageNameIn(dir) !== PACKAGE || workspaceOf(dir) !== undefined) continue
    return adapterIn(dir)
  }
  const ignored = workspaceCopy(roots[0])
  throw new Error(
    `The ${PACKAGE} plugin cannot find the ${PACKAGE} package. Install it globally (npm install -g ${PACKAGE}) or next to ` +
      `the Cline CLI, or set CLINE_HOOKS_PACKAGE to its folder.` +
      (ignored ? ` The copy in ${ignored} is not used: the plugin never loads the package from the workspace or a folder above it.` : ''),
  )
}

/**
 * The folders the opened repository controls, real paths: the current directory (the CLI runs
 * the plugin there), the workspace root the CLI gives its plugin sandbox (3.0.65: the git root
 * when the current directory is below it), and the nearest folder at or above the current
 * directory holding `.git` (the same, for a CLI that does not say).
 */
function workspaceRoots() {
  const cwd = realOrSelf(process.cwd())
  const roots = [cwd]
  const given = globalThis.__clineSessionEnv?.workspaceInfo?.rootPath
  if (typeof given === 'string' && given !== '') roots.push(realOrSelf(path.resolve(given)))
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git'))) {
      roots.push(dir)
      break
    }
    if (dir === path.dirname(dir)) break
  }
  return roots
}

/** The SDK adapter of the package in `dir`, loaded by its path. */
function adapterIn(dir) {
  return createRequire(path.join(dir, 'package.json'))('./sdk/index.js')
}

/** The `name` in `dir`/package.json, or null. */
function packageNameIn(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name ?? null
  } catch {
    return null
  }
}

/** A `node_modules/@cline/hooks` in the workspace or above it (Node's search would have found it), or null. */
function workspaceCopy(workspace) {
  for (let dir = workspace; ; dir = path.dirname(dir)) {
    const copy = path.join(dir, 'node_modules', PACKAGE)
    if (fs.existsSync(copy)) return copy
    if (dir === path.dirname(dir)) return null
  }
}

/** Whether `p` is `dir` or inside it (bin/format.js has the same: the plugin is copied on its own). */
function isInside(dir, p) {
  const rel = path.relative(dir, p)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

/** `p` with its links resolved, or `p` itself when it is not there. */
function realOrSelf(p) {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

/** The per-hook timeout: an integer of milliseconds below the CLI's 3 s. */
function timeoutOf(value) {
  if (value === undefined || value === '') return DEFAULT_TIMEOUT_MS
  const ms = Number(value)
  if (!Number.isInteger(ms) || ms < 1 || ms >= CLI_CALL_LIMIT_MS) {
    throw new Error(
      `CLINE_HOOKS_PLUGIN_TIMEOUT_MS must be an integer from 1 to ${CLI_CALL_LIMIT_MS - 1} (the CLI gives a plugin call ` +
        `${CLI_CALL_LIMIT_MS} ms), got "${value}"`,
    )
  }
  return ms
}

/** Which folders: `hooks-dir` (default) or `all`. */
function foldersOf(value) {
  if (value === undefined || value === '' || value === 'hooks-dir') return 'hooks-dir'
  if (value === 'all') return 'all'
  throw new Error(`CLINE_HOOKS_PLUGIN_FOLDERS must be "hooks-dir" (the default) or "all", got "${value}"`)
}

/** The hooks that must run (`requireHooks`), from a comma-separated list; checked by the runtime. */
function requiredOf(value) {
  if (value === undefined || value.trim() === '') return []
  return value.split(',').map((name) => name.trim()).filter((name) => name !== '')
}

/**
 * Whether to run Claude Code's settings hooks: `1`, which needs every folder (the user's
 * ~/.claude and the workspace's .claude are not in CLINE_HOOKS_DIR): said at load, never a
 * setting that quietly runs nothing.
 */
function claudeSettingsOf(value, folders) {
  if (value === undefined || value === '' || value === '0') return false
  if (value !== '1') throw new Error(`CLINE_HOOKS_PLUGIN_CLAUDE_SETTINGS must be "1" or "0", got "${value}"`)
  if (folders !== 'all') {
    throw new Error(
      'CLINE_HOOKS_PLUGIN_CLAUDE_SETTINGS=1 needs CLINE_HOOKS_PLUGIN_FOLDERS=all: Claude Code\'s settings (~/.claude, the workspace\'s .claude) are outside CLINE_HOOKS_DIR',
    )
  }
  return true
}

/**
 * Which hooks run confined (`sandbox`): `workspace`, `all` or `off`. `workspace` confines the
 * workspace's hooks, which only CLINE_HOOKS_PLUGIN_FOLDERS=all reads: said at load, never a
 * setting that quietly confines nothing.
 */
function sandboxOf(value, folders) {
  if (value === undefined || value === '' || value === 'off') return undefined
  if (value !== 'workspace' && value !== 'all') throw new Error(`CLINE_HOOKS_PLUGIN_SANDBOX must be "workspace", "all" or "off", got "${value}"`)
  if (value === 'workspace' && folders !== 'all') {
    throw new Error(
      'CLINE_HOOKS_PLUGIN_SANDBOX=workspace needs CLINE_HOOKS_PLUGIN_FOLDERS=all: the hooks of CLINE_HOOKS_DIR are not a workspace\'s; use CLINE_HOOKS_PLUGIN_SANDBOX=all to confine them',
    )
  }
  return value
}

const { createFileHooks } = loadAdapter()
const folders = foldersOf(process.env.CLINE_HOOKS_PLUGIN_FOLDERS)
const hooksDir = process.env.CLINE_HOOKS_DIR
const workspacePath = process.cwd()

const timeoutMs = timeoutOf(process.env.CLINE_HOOKS_PLUGIN_TIMEOUT_MS)
const claudeSettings = claudeSettingsOf(process.env.CLINE_HOOKS_PLUGIN_CLAUDE_SETTINGS, folders)
const sandbox = sandboxOf(process.env.CLINE_HOOKS_PLUGIN_SANDBOX, folders)

const hooks = createFileHooks({
  workspacePath,
  timeoutMs,
  // A hook's header (`timeout=20s`) gets no more: every call settles inside the CLI's 3 s.
  maxTimeoutMs: timeoutMs,
  requireHooks: requiredOf(process.env.CLINE_HOOKS_PLUGIN_REQUIRE),
  // Claude Code's settings hooks too (with CLINE_HOOKS_PLUGIN_FOLDERS=all, the workspace's).
  claudeSettings,
  // Hooks confined in an OS sandbox (docs/security.md); the runtime refuses a wrong word.
  ...(sandbox ? { sandbox, sandboxNetwork: process.env.CLINE_HOOKS_PLUGIN_SANDBOX_NETWORK === '1' } : {}),
  ...(folders === 'all'
    ? {}
    : { workspaceRoots: [], globalHooksDir: null, extraHooksDirs: hooksDir ? [hooksDir] : [] }),
})

module.exports = {
  name: 'cline-hooks',
  manifest: { capabilities: ['hooks'] },
  hooks,
}
