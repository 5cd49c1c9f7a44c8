// Tests of diagnoseHooks and `cline-hooks doctor`: real folders full of mistakes, the exact text
// the CLI prints for them (written out below), the JSON report, and the exit statuses. The
// mistakes of macOS/Linux (exec bits, #! lines) are Unix-only; Windows has its own (names
// without an extension, a second file of a hook), and a misspelt name counts on both.
const { spawnSync } = require('child_process')
const fs = require('fs')
const path = require('path')
const { addon, isWindows, testUnix, testIf, makeTempDir, writeFile, cliEnv, nodeSync } = require('./helpers')

const CLI = path.join(__dirname, '..', 'bin', 'cline-hooks.js')

/** Runs the CLI in `cwd`; returns the finished process's status and output. */
function cli(args, { cwd }) {
  const r = nodeSync([CLI, ...args], { cwd, encoding: 'utf8', timeout: 60000, env: cliEnv({ NO_COLOR: '1' }) })
  if (r.error) throw r.error
  return r
}

/** A workspace full of mistakes (macOS/Linux), with a policy store that disables one hook. */
function mistakesWorkspace() {
  const tmp = makeTempDir('cline-hooks-doctor-')
  const ws = path.join(tmp, 'ws')
  const hooks = path.join(ws, '.clinerules', 'hooks')
  writeFile(hooks, 'TaskStart', '#!/bin/sh\necho \'{"cancel": false}\'\n', 0o755)
  writeFile(hooks, 'PreToolUse', '#!/bin/sh\necho \'{}\'\n', 0o644)
  writeFile(hooks, 'PostToolUse', '#!/bin/sh\r\necho \'{}\'\r\n', 0o755)
  writeFile(hooks, 'TaskCancel', '#!/usr/bin/env cline-hooks-no-such-program\n', 0o755)
  writeFile(hooks, 'TaskComplete', '\uFEFF#!/bin/sh\necho "behind a byte-order mark"\n', 0o755)
  writeFile(hooks, 'TaskResume', '#!/bin/sh\necho \'{}\'\n', 0o755)
  writeFile(hooks, 'UserPromptSubmit.sh', '#!/bin/sh\n', 0o755)
  writeFile(hooks, 'PretoolUse', '#!/bin/sh\n', 0o755)
  writeFile(hooks, 'Notifcation', '#!/bin/sh\n', 0o755)
  writeFile(hooks, 'PreToolUse.bak', '#!/bin/sh\n', 0o644)
  writeFile(hooks, 'notes.md', 'my notes\n')
  fs.mkdirSync(path.join(hooks, 'PreCompact'))
  fs.mkdirSync(path.join(hooks, 'lib'))
  const policyFile = path.join(tmp, 'policy.json')
  const disabled = cli(['disable', path.join(hooks, 'TaskResume'), '--policy-file', policyFile], { cwd: ws })
  expect(disabled.status).toBe(0)
  return { tmp, ws, hooks, policyFile }
}

describe('doctor on a folder full of mistakes', () => {
  testUnix('prints each file, what stops it and the fix, then the runtime facts; exit 1', () => {
    const { tmp, ws, policyFile } = mistakesWorkspace()
    const json = JSON.parse(cli(['doctor', '--workspace', '.', '--no-global', '--policy-file', policyFile, '--json'], { cwd: ws }).stdout)
    const r = cli(['doctor', '--workspace', '.', '--no-global', '--policy-file', policyFile], { cwd: ws })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(1)
    // The machine's own facts (where the managed folder is, whether pwsh is installed).
    const rt = json.runtime
    const managed = rt.managedHooksDir
    const pwsh = rt.powershell || 'not found (pwsh: only .ps1 hooks need it)'
    const SANDBOX_SUPPORT = rt.sandbox.supported ? rt.sandbox.detail : `unavailable: ${rt.sandbox.detail}`
    const text = r.stdout.split(tmp).join('<tmp>')
    const H = '.clinerules/hooks'
    const W = '<tmp>/ws/.clinerules/hooks'
    expect(text).toBe(
      [
        'Folders searched, in order',
        `  · managed    ${managed} (not there)`,
        `  ✔ workspace  ${H}`,
        '',
        'Files',
        `  ✘ Notifcation          ${H}/Notifcation (workspace)`,
        '      problem unknownHookName: Notifcation is not a hook name, so it never runs; did you mean Notification?',
        `      fix     mv ${W}/Notifcation ${W}/Notification`,
        `  ✘ PostToolUse          ${H}/PostToolUse (workspace)`,
        "      problem windowsLineEndings: its #! line ends with a carriage return (the file has Windows line endings), so the system looks for a program named '/bin/sh\\r'; convert the file to LF line endings (e.g. dos2unix)",
        `      fix     dos2unix ${W}/PostToolUse (or save the file with LF line endings)`,
        `  ✘ PreCompact           ${H}/PreCompact (workspace)`,
        '      problem notAFile: it is a directory, not a file',
        '      fix     replace it with the hook file',
        `  ✘ PreToolUse           ${H}/PreToolUse (workspace)`,
        '      problem notExecutable: it is not executable (on macOS/Linux the exec bit is what makes a hook run)',
        `      fix     chmod +x ${W}/PreToolUse`,
        `  ✘ PreToolUse.bak       ${H}/PreToolUse.bak (workspace)`,
        '      problem unknownHookName: PreToolUse.bak is not a hook name, so it never runs (a copy or backup?); the hook is PreToolUse',
        '      fix     move it out of the hooks folder (PreToolUse beside it is the hook)',
        `  ✘ PretoolUse           ${H}/PretoolUse (workspace)`,
        '      problem unknownHookName: PretoolUse is not a hook name (names are case-sensitive), so it never runs; did you mean PreToolUse?',
        '      fix     PreToolUse already exists beside it: keep what you need of PretoolUse in PreToolUse, then remove PretoolUse',
        `  ✘ TaskCancel           ${H}/TaskCancel (workspace)`,
        '      problem missingInterpreter: its #! line asks env for cline-hooks-no-such-program, which is not on PATH, so it fails to start',
        '      fix     install cline-hooks-no-such-program, or change the #! line to a program that exists',
        `  ✘ TaskComplete         ${H}/TaskComplete (workspace)`,
        '      problem noShebang: its #! line comes after a byte-order mark (the file is saved as UTF-8 with BOM), which the system does not skip, so it runs as a /bin/sh script, not with the interpreter that line names',
        `      fix     save ${W}/TaskComplete as UTF-8 without BOM`,
        `  ✘ TaskResume           ${H}/TaskResume (workspace)`,
        '      problem disabledByUser: disabled in the policy store (a Hooks tab toggle or cline-hooks disable)',
        `      fix     cline-hooks enable ${W}/TaskResume`,
        `  ✔ TaskStart            ${H}/TaskStart (workspace)`,
        `  ✘ UserPromptSubmit.sh  ${H}/UserPromptSubmit.sh (workspace)`,
        '      problem wrongPlatformName: on macOS/Linux the extension profile runs only a file named exactly UserPromptSubmit, without extension (its #! line picks the interpreter), so UserPromptSubmit.sh never runs',
        `      fix     mv ${W}/UserPromptSubmit.sh ${W}/UserPromptSubmit`,
        `  · notes.md             ${H}/notes.md (workspace)`,
        '      ignored not named after a hook Cline fires, so it never runs (fine for a helper script or notes)',
        '',
        'Runtime',
        `  platform        ${process.platform}, extension profile`,
        '  global folder   off',
        `  managed folder  ${managed}`,
        `  PowerShell      ${pwsh}`,
        '  PATHEXT         (Windows only)',
        '  policy store    <tmp>/policy.json (trust off)',
        `  sandbox         off; ${SANDBOX_SUPPORT}`,
        '',
        '✘ 10 files will not run (1 hook file will run)',
        '',
      ].join('\n'),
    )
  })

  testUnix('--json is the HookDiagnosis: every file with willRun, problem, reason and fix', () => {
    const { ws, hooks, policyFile } = mistakesWorkspace()
    const r = cli(['doctor', '--workspace', ws, '--no-global', '--policy-file', policyFile, '--json'], { cwd: ws })
    expect(r.status).toBe(1)
    const report = JSON.parse(r.stdout)
    const byName = Object.fromEntries(report.hooks.map((h) => [path.basename(h.path), h]))
    const problems = Object.fromEntries(Object.entries(byName).map(([n, h]) => [n, h.problem || null]))
    expect(problems).toEqual({
      PostToolUse: 'windowsLineEndings',
      PreCompact: 'notAFile',
      Notifcation: 'unknownHookName',
      PreToolUse: 'notExecutable',
      'PreToolUse.bak': 'unknownHookName',
      PretoolUse: 'unknownHookName',
      TaskCancel: 'missingInterpreter',
      TaskComplete: 'noShebang',
      TaskResume: 'disabledByUser',
      TaskStart: null,
      'UserPromptSubmit.sh': 'wrongPlatformName',
      'notes.md': 'notAHook',
    })
    expect(byName.TaskStart).toEqual({ path: path.join(hooks, 'TaskStart'), hookName: 'TaskStart', source: 'workspace', workspaceRoot: ws, willRun: true })
    expect(byName.PreToolUse.fix).toBe(`chmod +x ${path.join(hooks, 'PreToolUse')}`)
    // A misnamed file names the hook it most likely means.
    expect(byName.PretoolUse.hookName).toBe('PreToolUse')
    expect(byName['UserPromptSubmit.sh'].hookName).toBe('UserPromptSubmit')
    expect(byName['notes.md'].hookName).toBeUndefined()
    expect(report.mistakes).toBe(10)
    expect(report.folders).toEqual([
      { path: report.runtime.managedHooksDir, source: 'managed', exists: false },
      { path: hooks, source: 'workspace', workspaceRoot: ws, exists: true },
    ])
    expect(report.runtime).toMatchObject({ platform: process.platform, profile: 'extension', policyFile, trust: 'off' })
    expect(report.runtime.globalHooksDir).toBeUndefined()
    expect(report.runtime.pathext).toBeUndefined()
    expect(report.warnings).toEqual([])
  })
})

describe('diagnoseHooks', () => {
  test('a folder where every hook runs: no mistakes, and doctor exits 0', async () => {
    const ws = makeTempDir('cline-hooks-doctor-')
    const hooks = path.join(ws, '.clinerules', 'hooks')
    const name = isWindows ? 'TaskStart.cmd' : 'TaskStart'
    writeFile(hooks, name, isWindows ? '@echo {}\r\n' : '#!/bin/sh\necho {}\n', 0o755)
    writeFile(hooks, 'README.md', 'notes\n')
    writeFile(hooks, 'TaskStart.md', 'what TaskStart does\n')
    const report = await addon.diagnoseHooks({ workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })
    expect(report.mistakes).toBe(0)
    expect(report.hooks.map((h) => [path.basename(h.path), h.willRun, h.problem])).toEqual([
      ['README.md', false, 'notAHook'],
      [name, true, undefined],
      ['TaskStart.md', false, 'notAHook'],
    ])
    expect(report.folders).toEqual([{ path: hooks, source: 'workspace', workspaceRoot: ws, exists: true }])
    const r = cli(['doctor', '--workspace', ws, '--no-global'], { cwd: ws })
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/✔ 1 hook file found, every one will run\n$/)
  })

  test('lists missing folders with exists: false, and the global folder it resolved', async () => {
    const tmp = makeTempDir('cline-hooks-doctor-')
    const global = path.join(tmp, 'global')
    const clineDir = path.join(tmp, 'cline')
    const report = await addon.diagnoseHooks({ workspaceRoots: [path.join(tmp, 'nope')], globalHooksDir: global, managedHooksDir: null, profile: 'cli', clineDir })
    expect(report.folders.map((f) => [f.source, f.exists])).toEqual([
      ['global', false],
      ['global', false],
      ['workspace', false],
      ['workspace', false],
    ])
    expect(report.runtime.globalHooksDir).toBe(global)
    expect(report.runtime.profile).toBe('cli')
    expect(report.runtime.clineDir).toBe(clineDir)
    expect(report.hooks).toEqual([])
    expect(report.mistakes).toBe(0)
    if (isWindows) expect(report.runtime.pathext).toBe(process.env.PATHEXT)
  })

  test('a misspelt hook name names the closest hook, on every platform', async () => {
    const ws = makeTempDir('cline-hooks-doctor-')
    const hooks = path.join(ws, '.clinerules', 'hooks')
    writeFile(hooks, isWindows ? 'PreTolUse.ps1' : 'PreTolUse', '#!/bin/sh\n', 0o755)
    const report = await addon.diagnoseHooks({ workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })
    expect(report.hooks).toHaveLength(1)
    expect(report.hooks[0]).toMatchObject({ hookName: 'PreToolUse', willRun: false, problem: 'unknownHookName' })
    expect(report.hooks[0].reason).toContain('did you mean PreToolUse?')
    expect(report.mistakes).toBe(1)
  })

  testIf(isWindows, 'Windows rules', 'Windows: a hook without extension, a .sh hook and a file passed over get their own fixes', async () => {
    const ws = makeTempDir('cline-hooks-doctor-')
    const hooks = path.join(ws, '.clinerules', 'hooks')
    writeFile(hooks, 'PreToolUse', '#!/bin/sh\n')
    writeFile(hooks, 'TaskStart.sh', '#!/bin/sh\n')
    writeFile(hooks, 'PostToolUse.bat', '@echo {}\r\n')
    writeFile(hooks, 'PostToolUse.cmd', '@echo {}\r\n')
    const report = await addon.diagnoseHooks({ workspaceRoots: [ws], globalHooksDir: null, managedHooksDir: null })
    const byName = Object.fromEntries(report.hooks.map((h) => [path.basename(h.path), h]))
    expect(byName.PreToolUse).toMatchObject({ problem: 'wrongPlatformName', hookName: 'PreToolUse' })
    expect(byName.PreToolUse.fix).toBe(`Rename-Item -LiteralPath '${path.join(hooks, 'PreToolUse')}' -NewName 'PreToolUse.ps1'`)
    expect(byName['TaskStart.sh']).toMatchObject({ problem: 'wrongPlatformName', hookName: 'TaskStart' })
    // The one of .bat and .cmd that PATHEXT names first runs (.BAT in Windows' default); the other is passed over.
    const order = (process.env.PATHEXT || '.BAT;.CMD').toUpperCase().split(';')
    const [runs, passed] = order.indexOf('.CMD') >= 0 && order.indexOf('.CMD') < order.indexOf('.BAT') ? ['cmd', 'bat'] : ['bat', 'cmd']
    expect(byName[`PostToolUse.${runs}`].willRun).toBe(true)
    expect(byName[`PostToolUse.${passed}`]).toMatchObject({ problem: 'shadowed', willRun: false })
    expect(byName[`PostToolUse.${passed}`].reason).toContain(`PostToolUse.${runs} comes first`)
    expect(report.runtime.platform).toBe('win32')
  })

  // Root reads every folder: as root, the CLI runs as nobody (setpriv), when it can.
  const root = !isWindows && process.getuid() === 0
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p))
  testIf(
    !isWindows && (!root || setpriv !== undefined),
    'needs permissions that are checked: not Windows, and not root without setpriv',
    'a folder that cannot be read is reported with the fix, and counts as a mistake',
    () => {
      const tmp = makeTempDir('cline-hooks-doctor-')
      fs.chmodSync(tmp, 0o755)
      const ws = path.join(tmp, 'ws')
      const hooks = path.join(ws, '.clinerules', 'hooks')
      writeFile(hooks, 'PreToolUse', '#!/bin/sh\n', 0o755)
      fs.chmodSync(hooks, 0o000)
      const args = [CLI, 'doctor', '--workspace', ws, '--no-global', '--policy-file', path.join(tmp, 'none.json'), '--json']
      const [program, argv] = root ? [setpriv, ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args]] : [process.execPath, args]
      const r = spawnSync(program, argv, { encoding: 'utf8', timeout: 60000, env: cliEnv({ HOME: tmp }) })
      expect(r.status).toBe(1)
      const report = JSON.parse(r.stdout)
      const folder = report.folders.find((f) => f.source === 'workspace')
      expect(folder.exists).toBe(true)
      expect(folder.problem).toBe(`the folder ${hooks} cannot be read (permission denied); fix the directory's permissions`)
      expect(report.hooks).toEqual([])
      expect(report.mistakes).toBe(1)
    },
  )

  test('a bad option is ERR_INVALID_OPTION naming the closest, and doctor exits 2 for a bad call', async () => {
    await expect(addon.diagnoseHooks({ workspaceRoot: ['.'] })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION', message: expect.stringContaining('workspaceRoots') })
    await expect(addon.diagnoseHooks('x')).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' })
    const ws = makeTempDir('cline-hooks-doctor-')
    expect(cli(['doctor', '--profile', 'nope'], { cwd: ws }).status).toBe(2)
    expect(cli(['doctor', 'PreToolUse'], { cwd: ws }).status).toBe(2)
  })
})
