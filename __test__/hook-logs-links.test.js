'use strict'

// Hook logs stay in the logs folder (issue 32, item 5): a cloned repository controls
// `.clinerules/` and can race the runtime, so no link (symbolic or hard) it plants at the logs
// folder, at `.clinerules` above it, or at `<Hook>.log`, `.log.1`, `.log.lock`, and no swap of
// the folder while runs write, makes the runtime create, append, rename or truncate anything
// outside it; each refusal is a warning of the run. Real files, real links, real runs.

const fs = require('fs')
const path = require('path')
const { spawn } = require('child_process')

const { addon, makeTempDir, makeWorkspace, hooksDirOf, writeProgram, isWindows, testUnix, trackPid } = require('./helpers')
const { writeQuickHook } = require('./hook-programs')

const { runHook } = addon

const NO_SYMLINKS = 'Windows makes a symbolic link only with a privilege, and Wine 8 (the Windows lane) makes none: fs.symlinkSync reports success and makes nothing'

/** A workspace whose PreToolUse (a Node program, so it runs on Windows too) prints `{}`. */
function workspace() {
  const root = makeWorkspace()
  writeProgram(hooksDirOf(root), 'PreToolUse', `process.stdout.write('{}\\n')\n`)
  return root
}

/** Runs PreToolUse in `root` with hookLogs; the run must complete whatever the logs. */
async function runLogged(root, extra = {}) {
  const result = await runHook('PreToolUse', {}, { workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null, hookLogs: true, ...extra })
  expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
  return result
}

/** A folder outside the workspace holding a file of the user's; `unchanged()` checks it. */
function outsideFolder() {
  const dir = makeTempDir('cline-hooks-outside-')
  const victim = path.join(dir, 'victim')
  fs.writeFileSync(victim, 'the user\'s file\n')
  const before = fs.statSync(victim)
  return {
    dir,
    victim,
    /** Nothing was made in the folder and the user's file is as it was. */
    unchanged() {
      expect(fs.readdirSync(dir)).toEqual(['victim'])
      expect(fs.readFileSync(victim, 'utf8')).toBe('the user\'s file\n')
      const after = fs.statSync(victim)
      expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino])
    },
  }
}

const logsOf = (root) => path.join(root, '.clinerules', 'logs')
const logOf = (root) => path.join(logsOf(root), 'PreToolUse.log')

describe('the logs folder and .clinerules', () => {
  testUnix(
    'a logs folder that is a link to a folder outside is not written through',
    async () => {
      const root = workspace()
      const outside = outsideFolder()
      fs.symlinkSync(outside.dir, logsOf(root))
      const { warnings } = await runLogged(root)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/^the hook log .*PreToolUse\.log was not written: .*logs is a symbolic link \(or junction\), and hook logs are never written through one/)
      outside.unchanged()
    },
    30000,
    { reason: NO_SYMLINKS },
  )

  // Before: the check looked at the logs folder only, so `.clinerules -> ~/somewhere` got a
  // `logs` folder and log made there.
  testUnix(
    '.clinerules itself a link to a folder outside: its hooks run, no log is made there',
    async () => {
      const root = makeWorkspace()
      const outside = outsideFolder()
      const hooks = path.join(makeTempDir(), 'hooks')
      writeQuickHook(hooks, 'PreToolUse', {})
      fs.renameSync(hooks, path.join(outside.dir, 'hooks'))
      fs.symlinkSync(outside.dir, path.join(root, '.clinerules'))
      const listed = fs.readdirSync(outside.dir).sort()
      const { warnings } = await runLogged(root)
      expect(fs.readdirSync(outside.dir).sort()).toEqual(listed)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain(`${path.join(root, '.clinerules')} is a symbolic link`)
    },
    30000,
    { reason: NO_SYMLINKS },
  )

  // The global folder is the user's own (`~/.cline` may be their dotfiles' link): only its
  // logs folder is checked.
  testUnix(
    'a global hooks folder reached through the user\'s own link still logs; its Logs a link does not',
    async () => {
      const real = path.join(makeTempDir(), 'Cline')
      writeQuickHook(path.join(real, 'Hooks'), 'PreToolUse', {})
      const cline = path.join(makeTempDir(), 'Cline')
      fs.symlinkSync(real, cline)
      const options = { workspaceRoots: [], globalHooksDir: path.join(cline, 'Hooks') }
      expect((await runLogged(makeWorkspace(), options)).warnings).toEqual([])
      expect(fs.readFileSync(path.join(real, 'Logs', 'PreToolUse.log'), 'utf8')).toMatch(/^=== .* PreToolUse \(global\) /)

      const outside = outsideFolder()
      fs.rmSync(path.join(real, 'Logs'), { recursive: true })
      fs.symlinkSync(outside.dir, path.join(real, 'Logs'))
      const { warnings } = await runLogged(makeWorkspace(), options)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain(`${path.join(cline, 'Logs')} is a symbolic link`)
      outside.unchanged()
    },
    30000,
    { reason: NO_SYMLINKS },
  )

  // Before: the logs folder was checked once, then the lock, the log and the rotation went
  // through its path again; swapped for a link in between, they landed outside.
  testUnix(
    'a logs folder swapped for a link in a loop during 2,000 runs never gets a write outside',
    async () => {
      const root = makeWorkspace()
      writeQuickHook(hooksDirOf(root), 'PreToolUse', {})
      fs.mkdirSync(logsOf(root))
      const outside = outsideFolder()
      const stop = path.join(makeTempDir(), 'stop')
      const swapper = path.join(makeTempDir(), 'swapper.js')
      // Flips `logs` between the real folder and a link to `outside` as fast as it can: the real
      // folder aside, a link in its place, the link removed, the folder back. Whatever a run
      // made at `logs` meanwhile (a new folder) is moved aside.
      fs.writeFileSync(
        swapper,
        `const fs = require('fs')
const [logs, outside, stop] = process.argv.slice(2)
const real = logs + '.real'
let swaps = 0
let aside = 0
const attempt = (f) => { try { f(); return true } catch { return false } }
process.stdout.write('ready\\n')
for (let i = 0; !(i % 64 === 0 && fs.existsSync(stop)); i++) {
  attempt(() => fs.renameSync(logs, real))
  if (attempt(() => fs.symlinkSync(outside, logs))) {
    swaps++
    attempt(() => fs.unlinkSync(logs))
  } else {
    attempt(() => fs.renameSync(logs, logs + '.aside' + aside++))
  }
  attempt(() => fs.renameSync(real, logs))
}
process.stdout.write('swaps ' + swaps + '\\n')
`,
      )
      const child = spawn(process.execPath, [swapper, logsOf(root), outside.dir, stop], { stdio: ['ignore', 'pipe', 'inherit'] })
      trackPid(child.pid)
      let out = ''
      const ended = new Promise((resolve) => child.on('close', resolve))
      await new Promise((resolve) => {
        child.stdout.on('data', (chunk) => {
          out += chunk
          if (out.includes('ready\n')) resolve()
        })
        child.on('close', resolve)
      })
      const warnings = []
      try {
        // The old code lost this race about once in 200 runs here; 2,000 (or 40 s of them on a
        // slow machine) lose it nearly always. The new one has no race to lose.
        const started = Date.now()
        for (let round = 0; round < 500 && Date.now() - started < 40000; round++) {
          const runs = await Promise.all(Array.from({ length: 4 }, () => runLogged(root)))
          for (const run of runs) warnings.push(...run.warnings)
        }
      } finally {
        fs.writeFileSync(stop, '')
        await ended
      }
      expect(out).toMatch(/^ready\nswaps [1-9]\d*\n$/)
      for (const warning of warnings) expect(warning).toMatch(/^the hook log .*PreToolUse\.log was not written: /)
      outside.unchanged()
    },
    150000,
    { reason: NO_SYMLINKS },
  )
})

describe('<Hook>.log, .log.lock and .log.1', () => {
  testUnix(
    'a log that is a symbolic link to a file outside is not written through',
    async () => {
      const root = workspace()
      const outside = outsideFolder()
      fs.mkdirSync(logsOf(root))
      fs.symlinkSync(outside.victim, logOf(root))
      const { warnings } = await runLogged(root)
      expect(warnings).toEqual([expect.stringContaining(`${logOf(root)} is a symbolic link`)])
      outside.unchanged()
    },
    30000,
    { reason: NO_SYMLINKS },
  )

  // Before: opened without following a link, but a hard link is the file itself: the entry
  // was appended to the user's file.
  test('a log that is a hard link to a file outside is not written', async () => {
    const root = workspace()
    const outside = outsideFolder()
    fs.mkdirSync(logsOf(root))
    fs.linkSync(outside.victim, logOf(root))
    const { warnings } = await runLogged(root)
    outside.unchanged()
    expect(warnings).toEqual([expect.stringContaining(`${logOf(root)} has 2 names (hard links), and hook logs never write a file with another name`)])
  }, 30000)

  // Before: the lock file was opened read-write and locked whatever it was linked to, with no
  // warning.
  test('a lock file that is a hard link to a file outside is refused', async () => {
    const root = workspace()
    const outside = outsideFolder()
    fs.mkdirSync(logsOf(root))
    fs.linkSync(outside.victim, `${logOf(root)}.lock`)
    const { warnings } = await runLogged(root)
    expect(warnings).toEqual([expect.stringContaining(`${logOf(root)}.lock has 2 names (hard links)`)])
    expect(fs.existsSync(logOf(root))).toBe(false)
    outside.unchanged()
  }, 30000)

  testUnix(
    'a lock file that is a symbolic link to a missing file outside makes nothing there',
    async () => {
      const root = workspace()
      const outside = outsideFolder()
      fs.mkdirSync(logsOf(root))
      fs.symlinkSync(path.join(outside.dir, 'made'), `${logOf(root)}.lock`)
      const { warnings } = await runLogged(root)
      expect(warnings).toEqual([expect.stringContaining(`${logOf(root)}.lock is a symbolic link`)])
      outside.unchanged()
    },
    30000,
    { reason: NO_SYMLINKS },
  )

  /** A log 100 bytes short of 1 MiB (whole entries), so the next entry rotates it. */
  function nearlyFullLog(root) {
    fs.mkdirSync(logsOf(root), { recursive: true })
    const old = `=== an old entry\n${'  x\n'.repeat(((1 << 20) - 100 - 17) / 4)}`
    fs.writeFileSync(logOf(root), old)
    return old
  }

  // Rotation renames `.log` over the `.log.1` entry itself: a link there is replaced, a hard
  // link loses that name; the file it pointed at is never written, renamed or truncated.
  const rotations = [
    ['a symbolic link to a file outside', (outside, at) => fs.symlinkSync(outside.victim, at), !isWindows],
    ['a symbolic link to a missing file outside', (outside, at) => fs.symlinkSync(path.join(outside.dir, 'made'), at), !isWindows],
    ['a hard link to a file outside', (outside, at) => fs.linkSync(outside.victim, at), true],
  ]
  for (const [what, plant, here] of rotations) {
    ;(here ? test : test.skip)(`rotation over a .log.1 that is ${what} replaces the link, not its target${here ? '' : ` (skipped: ${NO_SYMLINKS})`}`, async () => {
      const root = workspace()
      const outside = outsideFolder()
      const old = nearlyFullLog(root)
      plant(outside, `${logOf(root)}.1`)
      const { warnings } = await runLogged(root)
      expect(warnings).toEqual([])
      expect(fs.lstatSync(`${logOf(root)}.1`).isFile()).toBe(true)
      expect(fs.readFileSync(`${logOf(root)}.1`, 'utf8')).toBe(old)
      expect(fs.readFileSync(logOf(root), 'utf8')).toMatch(/^=== .* PreToolUse \(workspace\) /)
      outside.unchanged()
    }, 30000)
  }
})
