'use strict'

// Issue 14, point 6: managed hooks. A folder an administrator owns (`managedHooksDir` here, a
// temp folder) is searched first, its hooks are listed with source "managed" and run before all
// others, in both profiles; a managed hook whose folder or file others can write is listed
// disabled, with the path, what is wrong and the fix, and is not started.
//
// A managed hook is accepted only when root (Windows: Administrators/SYSTEM) owns it. The test
// machine runs as root, so on Linux the folders made here are root's and the permission bits
// decide. Elsewhere the runs are skipped, never silently: as another Unix user every folder made
// here is that user's, and on Windows (Wine) every file's owner is the running user's SID (Wine
// builds a file's security descriptor from its Unix mode with the current user as owner), which
// the rule refuses. The listing order and source are checked on every platform.

const fs = require('fs')
const path = require('path')

const { addon, isWindows, testIf, testUnix, makeTempDir, makeWorkspace, hooksDirOf, writeFile, writeProgram, waitFor, opts } = require('./helpers')

const { discoverHooks, runHook } = addon

const asRoot = !isWindows && typeof process.getuid === 'function' && process.getuid() === 0
const NOT_ROOT = isWindows
  ? 'Wine makes the running user the owner of every file, and a managed hook must be owned by Administrators or SYSTEM'
  : 'not running as root, so the folders this test makes are not owned by root'
const POSIX_MODES = 'group/other write bits are a Unix rule; Wine refuses every folder a test makes for its owner'

/** A program that appends `label` and a line feed to `file`. */
function appending(file, label) {
  return `require('fs').appendFileSync(${JSON.stringify(file)}, ${JSON.stringify(label + '\n')})\n`
}

/** Writes hook `event` appending `label` to `log` into `dir`, in the form `profile` runs. */
function writeAppender(dir, event, log, label, profile) {
  if (profile === 'cli') return writeFile(dir, `${event}.js`, appending(log, label), 0o755)
  return writeProgram(dir, event, appending(log, label))
}

/**
 * The first `hookName` hook listed with `options` once `check(hook)` holds: discovery is cached
 * for 250 ms, so a chmod is seen at the next revalidation.
 */
async function firstListedWhen(hookName, options, check) {
  let hook
  await waitFor(
    async () => {
      ;[hook] = await discoverHooks(hookName, options)
      return check(hook)
    },
    { what: 'discovery to see the new mode' },
  )
  return hook
}

/** A managed folder (0755), an extra one, a global one and a workspace, each with `event`. */
function fourFolders(event, log, profile) {
  const base = makeTempDir()
  const managed = path.join(base, 'managed')
  const extra = path.join(base, 'extra')
  const global = path.join(base, 'global')
  const root = makeWorkspace()
  const hooks = { managed, extra, global, workspace: hooksDirOf(root) }
  for (const [label, dir] of Object.entries(hooks)) writeAppender(dir, event, log, label, profile)
  fs.chmodSync(managed, 0o755)
  const options = { profile, managedHooksDir: managed, extraHooksDirs: [extra], globalHooksDir: global, workspaceRoots: [root] }
  return { hooks, options }
}

describe('managed hooks', () => {
  for (const profile of ['extension', 'cli']) {
    test(`are listed first, with source "managed", before extra, global and workspace hooks (${profile} profile)`, async () => {
      const log = path.join(makeTempDir(), 'order.log')
      const { hooks, options } = fourFolders('TaskStart', log, profile)
      const found = await discoverHooks('TaskStart', options)
      expect(found.map((h) => h.source)).toEqual(['managed', 'extra', 'global', 'workspace'])
      expect(path.dirname(found[0].path)).toBe(hooks.managed)
      if (asRoot) expect(found[0]).toMatchObject({ enabled: true })
    })

    testIf(asRoot, NOT_ROOT, `run before all other hooks (${profile} profile)`, async () => {
      const log = path.join(makeTempDir(), 'order.log')
      const { options } = fourFolders('TaskStart', log, profile)
      const result = await runHook('TaskStart', {}, { ...options, sequential: true })
      expect(result.hooks.map((h) => [h.source, h.status])).toEqual([
        ['managed', 'completed'],
        ['extra', 'completed'],
        ['global', 'completed'],
        ['workspace', 'completed'],
      ])
      expect(fs.readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(['managed', 'extra', 'global', 'workspace'])
    })
  }

  testUnix(
    'a managed folder others can write (0777, 0775) is refused: its hooks are listed disabled with the reason and not started',
    async () => {
      const log = path.join(makeTempDir(), 'order.log')
      const { hooks, options } = fourFolders('TaskStart', log, 'extension')
      for (const [mode, what] of [
        [0o777, 'is writable by everyone (mode 0777)'],
        [0o775, 'is writable by group'],
      ]) {
        fs.chmodSync(hooks.managed, mode)
        const managed = await firstListedWhen('TaskStart', options, (h) => (h.reason || '').includes(what))
        expect(managed).toMatchObject({ source: 'managed', enabled: false })
        expect(managed.reason).toContain(`refused as a managed hook: the managed hooks folder ${hooks.managed} ${what}`)
        expect(managed.reason).toContain(`sudo chown root ${hooks.managed} && sudo chmod go-w ${hooks.managed}`)
        const result = await runHook('TaskStart', {}, { ...options, sequential: true })
        expect(result.hooks.map((h) => h.source)).toEqual(['extra', 'global', 'workspace'])
        expect(fs.readFileSync(log, 'utf8')).not.toContain('managed')
        fs.rmSync(log)
      }
    },
    undefined,
    { reason: POSIX_MODES },
  )

  testUnix(
    'a managed hook file others can write (0666, 0757) is refused; one root owns with 0755 or 0700 runs',
    async () => {
      const dir = path.join(makeTempDir(), 'managed')
      const log = path.join(makeTempDir(), 'order.log')
      const file = writeAppender(dir, 'TaskStart', log, 'managed', 'extension')
      fs.chmodSync(dir, 0o700)
      const options = opts({ managedHooksDir: dir })
      for (const mode of [0o666, 0o757]) {
        fs.chmodSync(file, mode)
        const shown = mode.toString(8).padStart(4, '0')
        const hook = await firstListedWhen('TaskStart', options, (h) => (h.reason || '').includes(`(mode ${shown})`))
        expect(hook).toMatchObject({ source: 'managed', enabled: false, path: file })
        expect(hook.reason).toBe(
          `refused as a managed hook: ${file} is writable by everyone (mode ${shown}); a managed hook must be owned by root and writable only by root: sudo chown root ${file} && sudo chmod go-w ${file}`,
        )
        const result = await runHook('TaskStart', {}, options)
        expect(result.hooks).toEqual([])
        expect(fs.existsSync(log)).toBe(false)
      }
      if (!asRoot) return // the accepting half needs root's files (see the top of this file)
      for (const [fileMode, dirMode] of [
        [0o755, 0o755],
        [0o700, 0o700],
      ]) {
        fs.chmodSync(file, fileMode)
        fs.chmodSync(dir, dirMode)
        await firstListedWhen('TaskStart', options, (h) => h.enabled)
        const result = await runHook('TaskStart', {}, options)
        expect(result.hooks.map((h) => [h.source, h.status])).toEqual([['managed', 'completed']])
      }
      expect(fs.readFileSync(log, 'utf8')).toBe('managed\nmanaged\n')
    },
    undefined,
    { reason: POSIX_MODES },
  )

  test('managedHooksDir: null searches no managed folder', async () => {
    const log = path.join(makeTempDir(), 'order.log')
    const { options } = fourFolders('TaskStart', log, 'extension')
    const found = await discoverHooks('TaskStart', { ...options, managedHooksDir: null })
    expect(found.map((h) => h.source)).toEqual(['extra', 'global', 'workspace'])
    const result = await runHook('TaskStart', {}, { ...options, managedHooksDir: null, sequential: true })
    expect(result.hooks.map((h) => h.source)).toEqual(['extra', 'global', 'workspace'])
  })

  test('a managedHooksDir that is not a path is ERR_INVALID_OPTION, naming the option', async () => {
    for (const bad of [42, '', 'a\0b', ['/etc/cline/hooks'], true]) {
      for (const call of [() => discoverHooks('TaskStart', opts({ managedHooksDir: bad })), () => runHook('TaskStart', {}, opts({ managedHooksDir: bad }))]) {
        const err = await call().then(
          () => null,
          (e) => e,
        )
        expect(err).not.toBeNull()
        expect(err.code).toBe('ERR_INVALID_OPTION')
        expect(err.message).toContain('managedHooksDir')
      }
    }
  })
})
