'use strict'

// The bridge to the addon's discovery: loading the addon (lazily, so that usage errors never
// depend on the native binary), turning parsed flags into DiscoveryOptions, checking a hook name,
// and describing which folders were searched.

const fs = require('fs')
const path = require('path')
const { UsageError } = require('./errors')
const { say } = require('./stdio')
const { displayPath } = require('./format')

let lib = null

/** The addon; registered with `session` (when given) so that stop() can call terminateAll(). */
function hooksLib(session) {
  if (lib === null) lib = require('../index.js')
  if (session) session.addon = lib
  return lib
}

/** The addon's rejections that are the caller's mistake or the machine's, not a bug: exit 2. */
function asUsageError(e) {
  if (e && e.code === 'ERR_INVALID_HOOK_NAME') return new UsageError(e.message)
  if (e && typeof e.code === 'string' && e.code.startsWith('ERR_INVALID_')) return new UsageError(e.message)
  if (e && (e.code === 'ERR_HOOK_DISCOVERY_TIMEOUT' || e.code === 'ERR_HOOK_NO_THREAD')) return new UsageError(e.message, { hint: false })
  return e
}

/** Parsed flags → the addon's DiscoveryOptions. */
function discoveryOptions(opts) {
  const workspaces = opts.workspace && opts.workspace.length > 0 ? opts.workspace : ['.']
  const out = { workspaceRoots: workspaces.map((w) => path.resolve(w)) }
  if (opts['no-global']) out.globalHooksDir = null
  else if (opts['global-dir'] !== undefined) out.globalHooksDir = path.resolve(opts['global-dir'])
  if (opts['hooks-dir']) out.extraHooksDirs = opts['hooks-dir'].map((d) => path.resolve(d))
  if (opts.profile) out.profile = opts.profile
  if (opts['claude-settings']) out.claudeSettings = true
  if (opts.sandbox) out.sandbox = opts.sandbox
  if (opts['sandbox-writable']) out.sandboxWritable = opts['sandbox-writable'].map((d) => path.resolve(d))
  if (opts['sandbox-network']) out.sandboxNetwork = true
  return out
}

/** Warns (on stderr) about folders the user named that do not exist: most likely a typo. */
function warnMissingDirs(opts) {
  const named = [
    ...(opts.workspace || []).map((d) => ['--workspace', d]),
    ...(opts['hooks-dir'] || []).map((d) => ['--hooks-dir', d]),
    ...(opts['global-dir'] !== undefined ? [['--global-dir', opts['global-dir']]] : []),
  ]
  for (const [flag, dir] of named) {
    const problem = dirProblem(dir)
    if (problem) say(`warning: ${flag} ${dir}: ${problem}`)
  }
}

/** What is wrong with `dir` as a folder to search, in words fit for its error; null if nothing. */
function dirProblem(dir) {
  try {
    return fs.statSync(dir).isDirectory() ? null : 'is a file, not a directory'
  } catch (err) {
    switch (err.code) {
      case 'ENOENT':
        return 'no such directory'
      case 'ENOTDIR':
        return 'goes through a file, not a folder'
      case 'ENAMETOOLONG':
        return 'its path is longer than the system allows; use a shorter path'
      case 'EACCES':
      case 'EPERM':
        return 'cannot be reached (permission denied); fix the permissions of the folders above it'
      case 'ELOOP':
        return 'is a symbolic link loop; fix or remove the link'
      default:
        return `cannot be read (${err.code || err.message})`
    }
  }
}

/** Rejects early with a usage error when the addon says the hook name is invalid. */
async function checkHookName(name, session) {
  try {
    await hooksLib(session).discoverHooks(name, { workspaceRoots: [], globalHooksDir: null })
  } catch (e) {
    throw asUsageError(e)
  }
}

/** The folders searched, in order, for the "Searched:" line; escaped. */
function describeSearch(options) {
  const parts = []
  // The managed folder is named only when it is there (it normally is not).
  const managed = managedDir(options.managedHooksDir)
  if (managed && dirProblem(managed) === null) parts.push(`${displayPath(managed)} (managed)`)
  for (const d of options.extraHooksDirs || []) parts.push(`${displayPath(d)} (extra)`)
  if (options.globalHooksDir === undefined) parts.push('Documents/Cline/Hooks (global)')
  else if (options.globalHooksDir !== null) parts.push(`${displayPath(options.globalHooksDir)} (global)`)
  if (options.profile === 'cli' && options.globalHooksDir !== null) {
    const clineDir = process.env.CLINE_DIR
    parts.push(`${clineDir ? displayPath(path.join(clineDir, 'hooks')) : '~/.cline/hooks'} (global)`)
  }
  const subdirs = options.profile === 'cli' ? ['.clinerules', '.cline'] : ['.clinerules']
  for (const w of options.workspaceRoots) {
    for (const sub of subdirs) parts.push(`${displayPath(path.join(w, sub, 'hooks'))} (workspace)`)
  }
  if (options.claudeSettings) {
    if (options.globalHooksDir !== null) parts.push(`${process.env.CLAUDE_CONFIG_DIR ? displayPath(path.join(process.env.CLAUDE_CONFIG_DIR, 'settings.json')) : '~/.claude/settings.json'} (claudeUser)`)
    for (const w of options.workspaceRoots) parts.push(`${displayPath(path.join(w, '.claude', 'settings.json'))} and settings.local.json (claude)`)
  }
  return parts.join(', ') || 'nothing'
}

/** The managed hooks folder searched with `managedHooksDir` (see DiscoveryOptions.managedHooksDir). */
function managedDir(managedHooksDir) {
  if (managedHooksDir !== undefined) return managedHooksDir
  if (process.platform === 'win32') {
    const programData = process.env.ProgramData
    return path.win32.join(programData && path.win32.isAbsolute(programData) ? programData : 'C:\\ProgramData', 'Cline', 'Hooks')
  }
  return process.platform === 'darwin' ? '/Library/Application Support/Cline/Hooks' : '/etc/cline/hooks'
}

module.exports = { hooksLib, asUsageError, discoveryOptions, warnMissingDirs, checkHookName, describeSearch }
