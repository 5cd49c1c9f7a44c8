// A plugin for the shipped Cline CLI (`cline`, 3.0.65) that runs file hooks through @cline/hooks.
// Copy it into `<workspace>/.cline/plugins/` (or `$CLINE_DIR/plugins`, `~/Documents/Cline/Plugins`);
// the CLI runs it in a separate Node process and merges its verdicts with its own runner's. It is
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
// tree, before the CLI gives up.

'use strict'

const { createRequire } = require('node:module')
const path = require('node:path')

const PACKAGE = '@cline/hooks'
const DEFAULT_TIMEOUT_MS = 2500
/** The CLI's own limit on one plugin call. */
const CLI_CALL_LIMIT_MS = 3000

/**
 * The package's SDK adapter, found by name: from this file's folder up (a workspace's
 * node_modules, or the package itself), from the current directory up, then in the global
 * node_modules of the Node that runs the plugin. CLINE_HOOKS_PACKAGE names its folder outright.
 */
function loadAdapter() {
  const explicit = process.env.CLINE_HOOKS_PACKAGE
  if (explicit) return createRequire(path.join(path.resolve(explicit), 'package.json'))('./sdk/index.js')
  const prefix = path.dirname(path.dirname(process.execPath))
  const globalModules =
    process.platform === 'win32' ? path.join(path.dirname(process.execPath), 'node_modules') : path.join(prefix, 'lib', 'node_modules')
  const origins = [__filename, path.join(process.cwd(), 'package.json'), path.join(globalModules, 'package.json')]
  for (const origin of origins) {
    try {
      return createRequire(origin)(`${PACKAGE}/sdk`)
    } catch (error) {
      if (error.code !== 'MODULE_NOT_FOUND' && error.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error
    }
  }
  throw new Error(
    `The ${PACKAGE} plugin cannot find the ${PACKAGE} package. Install it in the workspace ` +
      `(npm install ${PACKAGE}) or globally (npm install -g ${PACKAGE}), or set CLINE_HOOKS_PACKAGE to its folder.`,
  )
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

const { createFileHooks } = loadAdapter()
const folders = foldersOf(process.env.CLINE_HOOKS_PLUGIN_FOLDERS)
const hooksDir = process.env.CLINE_HOOKS_DIR
const workspacePath = process.cwd()

const timeoutMs = timeoutOf(process.env.CLINE_HOOKS_PLUGIN_TIMEOUT_MS)

const hooks = createFileHooks({
  workspacePath,
  timeoutMs,
  // A hook's header (`timeout=20s`) gets no more: every call settles inside the CLI's 3 s.
  maxTimeoutMs: timeoutMs,
  ...(folders === 'all'
    ? {}
    : { workspaceRoots: [], globalHooksDir: null, extraHooksDirs: hooksDir ? [hooksDir] : [] }),
})

module.exports = {
  name: 'cline-hooks',
  manifest: { capabilities: ['hooks'] },
  hooks,
}
