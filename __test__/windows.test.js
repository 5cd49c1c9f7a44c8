// Windows-only cases (issue 4, point 6). They run on the official Windows node.exe with the
// cross-built addon through `npm run test:windows` (scripts/windows/test.sh, under Wine here);
// on other platforms every case is skipped with the reason in its title.
//
// How PATHEXT and PATH are varied: the addon reads PATHEXT once per process (as Windows' own
// programs do) and looks interpreters up on PATH at each discovery. So the cases that need a
// different PATHEXT start a second node.exe (`inChild`) with that environment; it loads the
// same addon, does one discovery or run, and writes the result as JSON to a file, with how long
// the call took (under Wine, node.exe's stdout must not be a pipe, so the child's stdio is
// ignored).
//
// Two cases need echo-argv.exe (scripts/windows/echo-argv.c), which the lane compiles with mingw:
// as a compiled .exe hook, and as the stand-in `pwsh.exe` (it is not PowerShell: it echoes its
// argv and stdin as JSON). The lane passes their paths in CLINE_HOOKS_TEST_ECHO_EXE and
// CLINE_HOOKS_TEST_PWSH_STANDIN_DIR; without them those cases are skipped, saying so.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const hooks = require('..')
const { powerShellRunsScripts, envWith, expectCompleted, nodeSync } = require('./helpers')

const isWindows = process.platform === 'win32'
const NOT_WINDOWS = `skipped: Windows-only case, this is ${process.platform}; it runs on node.exe via npm run test:windows`
const ECHO_EXE = process.env.CLINE_HOOKS_TEST_ECHO_EXE
const PWSH_STANDIN_DIR = process.env.CLINE_HOOKS_TEST_PWSH_STANDIN_DIR

/** A Windows-only test: on other platforms it is skipped, with the reason in its title. */
const testWindows = (name, fn, timeout) =>
  isWindows ? test(name, fn, timeout) : test.skip(`${name} [${NOT_WINDOWS}]`, fn)
testWindows.each = (table) => (name, fn, timeout) =>
  isWindows ? test.each(table)(name, fn, timeout) : test.skip.each(table)(`${name} [${NOT_WINDOWS}]`, fn)

/** A Windows-only test that also needs echo-argv.exe from the Windows test lane. */
const testWindowsWithEcho = (name, fn, timeout) => {
  if (!isWindows) return test.skip(`${name} [${NOT_WINDOWS}]`, fn)
  if (!ECHO_EXE || !PWSH_STANDIN_DIR) {
    return test.skip(
      `${name} [skipped: needs echo-argv.exe built by scripts/windows/test.sh (CLINE_HOOKS_TEST_ECHO_EXE and CLINE_HOOKS_TEST_PWSH_STANDIN_DIR are unset)]`,
      fn,
    )
  }
  return test(name, fn, timeout)
}

// Jest does not list the tests of a file in which every test is skipped; this one case keeps the
// skipped Windows cases (and their reason) visible in the report on other platforms.
if (!isWindows) {
  test(`Windows cases in this file are skipped on ${process.platform} (each title says why); npm run test:windows runs them`, () => {
    expect(isWindows).toBe(false)
  })
}

const POWERSHELL_FLAGS = ['-NoLogo', '-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-File']

let tmp
beforeAll(() => {
  if (isWindows) tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-win-'))
})
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 })
})

let dirCount = 0
/** A fresh directory under the test's temp folder, named `name` (any characters Windows allows). */
function freshDir(name = 'd') {
  dirCount += 1
  const dir = path.join(tmp, `${dirCount}`, name)
  fs.mkdirSync(dir, { recursive: true })
  return dir
}

/** Writes `files` ({name: content}) into `dir`; batch files get CRLF line ends. */
function writeFiles(dir, files) {
  for (const [name, content] of Object.entries(files)) {
    const text = /\.(bat|cmd)$/i.test(name) ? content.replace(/\r?\n/g, '\r\n') : content
    fs.writeFileSync(path.join(dir, name), text)
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether a process with this id exists (OpenProcess under the hood on Windows). */
function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

/** Every file or folder under `dir` whose name starts with `prefix`. */
function findNamed(dir, prefix) {
  const found = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.name.startsWith(prefix)) found.push(full)
    if (entry.isDirectory()) found.push(...findNamed(full, prefix))
  }
  return found
}

const CHILD = `
const fs = require('node:fs')
const [indexJs, out, request] = process.argv.slice(1)
const { discoverHooks, runHook } = require(indexJs)
const r = JSON.parse(request)
const started = process.hrtime.bigint()
const work = r.run ? runHook(r.hookName, r.input, r.options) : discoverHooks(r.hookName, r.options)
work.then(
  (result) => fs.writeFileSync(out, JSON.stringify({ result, ms: Number(process.hrtime.bigint() - started) / 1e6 })),
  (err) => fs.writeFileSync(out, JSON.stringify({ error: String((err && err.stack) || err) })),
)
`

let childCount = 0
/** One discovery (or run, with `run: true`) in a fresh node.exe with environment `env`. */
function inChild(env, request) {
  childCount += 1
  const out = path.join(tmp, `child-${childCount}.json`)
  const indexJs = path.join(__dirname, '..', 'index.js')
  const spawned = nodeSync(['-e', CHILD, indexJs, out, JSON.stringify(request)], {
    env,
    stdio: 'ignore',
    timeout: 120000,
    windowsHide: true,
  })
  if (!fs.existsSync(out)) {
    throw new Error(`child node.exe wrote no result (status ${spawned.status}, error ${spawned.error})`)
  }
  const { result, error, ms } = JSON.parse(fs.readFileSync(out, 'utf8'))
  if (error) throw new Error(`child node.exe failed: ${error}`)
  lastChildMs = ms
  return result
}
/** How long the last child's discovery or run took, in milliseconds. */
let lastChildMs = null

const names = (found) => found.map((h) => path.basename(h.path))

// ---------------------------------------------------------------------------------------------
describe('Windows: PATHEXT resolution', () => {
  const ALL = {
    TaskStart: '@echo should never be picked: extensionless\n',
    'TaskStart.txt': 'not in PATHEXT\n',
    'TaskStart.bat': '@echo {}\n',
    'TaskStart.cmd': '@echo {}\n',
    'TaskStart.exe': 'discovery only; never started\n',
  }

  // Discovery is cached for up to a second per directory set, so each case uses fresh folders
  // instead of editing one.
  testWindows('the default PATHEXT order picks .exe before .bat before .cmd; extensionless and .txt files are ignored', async () => {
    expect(process.env.PATHEXT.toUpperCase().startsWith('.COM;.EXE;.BAT;.CMD')).toBe(true)
    const dir = freshDir()
    writeFiles(dir, ALL)
    const found = await hooks.discoverHooks('TaskStart', { extraHooksDirs: [dir], globalHooksDir: null })
    expect(names(found)).toEqual(['TaskStart.exe'])
    expect(found[0]).toMatchObject({ enabled: true, source: 'extra', command: [path.join(dir, 'TaskStart.exe')] })

    const noExe = freshDir()
    const { ['TaskStart.exe']: _exe, ...rest } = ALL
    writeFiles(noExe, rest)
    const bat = await hooks.discoverHooks('TaskStart', { extraHooksDirs: [noExe], globalHooksDir: null })
    expect(names(bat)).toEqual(['TaskStart.bat'])
    expect(bat[0].command.slice(1, 5)).toEqual(['/d', '/v:off', '/s', '/c'])
    expect(path.basename(bat[0].command[0]).toLowerCase()).toBe('cmd.exe')

    const only = freshDir()
    writeFiles(only, { TaskStart: 'x', 'TaskStart.txt': 'x', 'TaskStart.sh': 'x' })
    expect(await hooks.discoverHooks('TaskStart', { extraHooksDirs: [only], globalHooksDir: null })).toEqual([])
  })

  testWindows('extensions match case-insensitively and .ps1 comes before every PATHEXT extension', async () => {
    const upper = freshDir()
    writeFiles(upper, { 'TASKSTART.BAT': '@echo {}\n' })
    expect(names(await hooks.discoverHooks('TaskStart', { extraHooksDirs: [upper], globalHooksDir: null }))).toEqual([
      'TASKSTART.BAT',
    ])
    const dir = freshDir()
    writeFiles(dir, { 'TASKSTART.BAT': '@echo {}\n', 'TaskStart.ps1': '"{}"\n', 'TaskStart.exe': 'x' })
    const found = await hooks.discoverHooks('TaskStart', { extraHooksDirs: [dir], globalHooksDir: null })
    expect(names(found)).toEqual(['TaskStart.ps1'])
  })

  testWindows('an unset PATHEXT means Windows\' default list (checked in a node.exe started without PATHEXT)', () => {
    const dir = freshDir()
    writeFiles(dir, ALL)
    const found = inChild(envWith({ PATHEXT: undefined }), {
      hookName: 'TaskStart',
      options: { extraHooksDirs: [dir], globalHooksDir: null },
    })
    expect(names(found)).toEqual(['TaskStart.exe'])
  }, 120000)

  testWindows('a custom PATHEXT decides which extensions count and their order (node.exe started with PATHEXT=.CMD;.BAT, then .BAT)', () => {
    const dir = freshDir()
    writeFiles(dir, ALL)
    const cmdFirst = inChild(envWith({ PATHEXT: ' .cmd ; .BAT;;' }), {
      hookName: 'TaskStart',
      options: { extraHooksDirs: [dir], globalHooksDir: null },
    })
    expect(names(cmdFirst)).toEqual(['TaskStart.cmd'])

    const cmdOnly = freshDir()
    writeFiles(cmdOnly, { 'TaskStart.cmd': '@echo {}\n', 'TaskStart.exe': 'x' })
    const batOnly = inChild(envWith({ PATHEXT: '.BAT' }), {
      hookName: 'TaskStart',
      options: { extraHooksDirs: [dir, cmdOnly], globalHooksDir: null },
    })
    expect(batOnly.map((h) => h.path)).toEqual([path.join(dir, 'TaskStart.bat')])
  }, 120000)

  testWindows('a PATHEXT type the package does not start (.vbs) is listed disabled with the reason, not run', () => {
    const dir = freshDir()
    writeFiles(dir, { 'TaskStart.vbs': 'WScript.Echo "{}"\n', 'TaskStart.cmd': '@echo {}\n' })
    const found = inChild(envWith({ PATHEXT: '.VBS;.CMD' }), {
      hookName: 'TaskStart',
      options: { extraHooksDirs: [dir], globalHooksDir: null },
    })
    expect(names(found)).toEqual(['TaskStart.vbs'])
    expect(found[0].enabled).toBe(false)
    expect(found[0].reason).toMatch(/\.vbs/)
  }, 120000)
})

// ---------------------------------------------------------------------------------------------
describe('Windows: .bat and .cmd hooks in folders whose names hold cmd.exe metacharacters', () => {
  // Windows paths cannot hold `"`, `<`, `>` or `|`, so the quotes here are `'`. Each name
  // carries an injection attempt: if cmd.exe parsed the path as anything but one quoted file
  // name, it would create a folder named INJECTED_* in the hook's working directory. The run's
  // environment sets CANARY so that `%CANARY%`/`!CANARY!` would expand into a breakout.
  const CANARY = '" & mkdir INJECTED_BY_EXPANSION & "'
  const FOLDERS = [
    ['spaces', 'my hooks folder'],
    ['ampersand', 'a & mkdir INJECTED_AMP & b'],
    ['caret', 'c ^& mkdir INJECTED_CARET ^^ d'],
    ['percent', 'p %CANARY% 100% %PATH% %%CANARY%% %cd:~,%'],
    ['exclamation', 'e !CANARY! !PATH! ! bang'],
    ['parentheses', 'x (y) & (mkdir INJECTED_PAREN) )'],
    ["single quotes", "it's 'quoted' & mkdir INJECTED_QUOTE"],
    ['everything', "all & ^ % ! ( ) ' %CANARY% !CANARY! ^%CANARY^% & mkdir INJECTED_ALL"],
  ]
  const CASES = FOLDERS.flatMap(([label, folder]) => [
    [label, 'bat', folder],
    [label, 'cmd', folder],
  ])

  testWindows.each(CASES)('%s: a .%s hook in the folder %j runs and injects nothing', async (label, ext, folder) => {
    const hooksDir = freshDir(folder)
    const cwd = freshDir('cwd')
    writeFiles(hooksDir, {
      [`TaskStart.${ext}`]: '@echo off\nset /p LINE=\necho {"ran":true,"ext":"%~x0"}\nexit /b 0\n',
    })
    const found = await hooks.discoverHooks('TaskStart', { extraHooksDirs: [hooksDir], globalHooksDir: null })
    expect(found).toHaveLength(1)
    expect(found[0].enabled).toBe(true)

    const result = await hooks.runHook(
      'TaskStart',
      { taskId: label },
      { extraHooksDirs: [hooksDir], globalHooksDir: null, workspaceRoots: [cwd], env: { CANARY }, timeoutMs: 30000 },
    )
    const [exec] = result.hooks
    expect(exec.failure).toBeUndefined()
    expect(exec).toMatchObject({ status: 'completed', exitCode: 0, output: { ran: true, ext: `.${ext}` } })
    expect(exec.path).toBe(path.join(hooksDir, `TaskStart.${ext}`))
    expect(findNamed(tmp, 'INJECTED')).toEqual([])
  }, 60000)
})

// ---------------------------------------------------------------------------------------------
describe('Windows: exit codes of batch hooks', () => {
  const CASES = [
    ['exit /b 3 from a .bat', 'Gate.bat', '@echo off\nexit /b 3\n', 3],
    ['exit 4 from a .cmd', 'Gate.cmd', '@echo off\nexit 4\n', 4],
    // `exit /b %ERRORLEVEL%`, not a bare `exit /b`: Wine's cmd.exe returns 0 for the bare form.
    ['a child program\'s exit code passed on with exit /b %ERRORLEVEL%', 'Gate.bat', '@echo off\ncmd /c exit 9\nexit /b %ERRORLEVEL%\n', 9],
    ['exit /b 0 after printing JSON', 'Gate.bat', '@echo off\necho {"contextModification":"fine"}\nexit /b 0\n', 0],
  ]

  testWindows.each(CASES)('%s', async (label, file, script, code) => {
    const dir = freshDir()
    writeFiles(dir, { [file]: script })
    const result = await hooks.runHook('Gate', {}, { extraHooksDirs: [dir], globalHooksDir: null, timeoutMs: 30000 })
    const [exec] = result.hooks
    expect(exec.exitCode).toBe(code)
    if (code === 0) {
      expectCompleted(exec)
      expect(result.contextModification).toBe('fine')
    } else {
      expect(exec.status).toBe('failed')
      expect(exec.failure).toContain(`exited with code ${code}`)
    }
  }, 60000)

  testWindows('a .bat gate that prints cancel:true and then exits 1 still cancels', async () => {
    const dir = freshDir()
    writeFiles(dir, { 'Gate.bat': '@echo off\necho {"cancel":true,"errorMessage":"blocked"}\nexit /b 1\n' })
    const result = await hooks.runHook('Gate', {}, { extraHooksDirs: [dir], globalHooksDir: null, timeoutMs: 30000 })
    expect(result.hooks[0]).toMatchObject({ status: 'failed', exitCode: 1, cancel: true })
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('blocked')
  }, 60000)
})

// ---------------------------------------------------------------------------------------------
describe('Windows: process trees', () => {
  // A node.exe child that records its pid, then (if still alive) writes a "late" file.
  function writeChildScript(dir) {
    const script = path.join(dir, 'child.js')
    fs.writeFileSync(
      script,
      `const fs = require('fs'), path = require('path')
const [dir, name, lateMs] = process.argv.slice(2)
fs.writeFileSync(path.join(dir, name + '.pid'), String(process.pid))
setTimeout(() => fs.writeFileSync(path.join(dir, name + '.late'), 'still alive'), Number(lateMs))
`,
    )
    return script
  }

  testWindows('a timeout stops the whole tree: the .bat, its foreground child and a child it started with start /b', async () => {
    const dir = freshDir()
    const script = writeChildScript(dir)
    const node = process.execPath
    writeFiles(dir, {
      'Slow.bat': [
        '@echo off',
        `start "" /b "${node}" "${script}" "${dir}" background 12000`,
        `"${node}" "${script}" "${dir}" foreground 12000`,
        'echo {"contextModification":"should not get here"}',
        '',
      ].join('\n'),
    })
    const started = Date.now()
    const result = await hooks.runHook('Slow', {}, { extraHooksDirs: [dir], globalHooksDir: null, timeoutMs: 8000 })
    const elapsed = Date.now() - started
    const [exec] = result.hooks
    expect(exec.status).toBe('timedOut')
    // Windows terminates the job object; no Unix signal is named (issue 18 item 9).
    expect(exec.failure).toContain('its job object was terminated')
    expect(exec.failure).not.toMatch(/SIG[A-Z]/)
    expect(elapsed).toBeLessThan(8000 + 10000)

    // Both children were running when the timeout hit (else the test proves nothing) ...
    const pids = ['background', 'foreground'].map((name) => {
      const file = path.join(dir, `${name}.pid`)
      expect(fs.existsSync(file)).toBe(true)
      return Number(fs.readFileSync(file, 'utf8'))
    })
    // ... and are gone now, never reaching their late write.
    await sleep(500)
    expect(pids.filter(alive)).toEqual([])
    await sleep(Math.max(0, 12000 + 2000 - (Date.now() - started)))
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.late'))).toEqual([])
  }, 60000)

  testWindows('a background child that keeps stdout open does not hold the run, and is left running', async () => {
    const dir = freshDir()
    const script = writeChildScript(dir)
    writeFiles(dir, {
      'Bg.bat': [
        '@echo off',
        `start "" /b "${process.execPath}" "${script}" "${dir}" bg 20000`,
        'echo {"contextModification":"started background work"}',
        'exit /b 0',
        '',
      ].join('\n'),
    })
    const started = Date.now()
    const result = await hooks.runHook('Bg', {}, { extraHooksDirs: [dir], globalHooksDir: null, timeoutMs: 30000 })
    const elapsed = Date.now() - started
    expect(result.hooks[0]).toMatchObject({ status: 'completed', exitCode: 0 })
    expect(result.contextModification).toBe('started background work')
    expect(elapsed).toBeLessThan(15000)
    // The background child was started by then, and the finished run did not kill it.
    const pidFile = path.join(dir, 'bg.pid')
    for (let i = 0; i < 100 && !fs.existsSync(pidFile); i++) await sleep(100)
    const pid = Number(fs.readFileSync(pidFile, 'utf8'))
    await sleep(1000)
    expect(alive(pid)).toBe(true)
    process.kill(pid)
  }, 60000)
})

// ---------------------------------------------------------------------------------------------
describe('Windows: non-ASCII text through .exe, .bat and .cmd hooks', () => {
  const PROMPT = '请把这个函数重构成异步的 🚀 emoji ✨ naïve – 𝄞'
  const REPLY = '好的 ✅ 🎉 Grüße'

  testWindowsWithEcho('an .exe hook in a non-ASCII folder gets the Chinese/emoji input intact and its UTF-8 output comes back intact', async () => {
    const dir = freshDir('钩子 hooks 🎉')
    fs.copyFileSync(ECHO_EXE, path.join(dir, 'UserPromptSubmit.exe'))
    const result = await hooks.runHook(
      'UserPromptSubmit',
      { prompt: PROMPT },
      { extraHooksDirs: [dir], globalHooksDir: null, timeoutMs: 30000 },
    )
    const [exec] = result.hooks
    expect(exec.failure).toBeUndefined()
    expectCompleted(exec)
    expect(exec.output.echo.prompt).toBe(PROMPT)
    expect(exec.output.echo.hookName).toBe('UserPromptSubmit')
    expect(exec.output.text).toBe('输出✓🎉')
    expect(exec.output.argv).toEqual([path.join(dir, 'UserPromptSubmit.exe')])
  }, 60000)

  for (const ext of ['bat', 'cmd']) {
    testWindowsWithEcho(`a .${ext} hook passes the input through to a program and its UTF-8 output back, byte for byte`, async () => {
      const dir = freshDir('ünïcode 目录')
      writeFiles(dir, { [`UserPromptSubmit.${ext}`]: `@"${ECHO_EXE}"\n@exit /b %ERRORLEVEL%\n` })
      const result = await hooks.runHook(
        'UserPromptSubmit',
        { prompt: PROMPT },
        { extraHooksDirs: [dir], globalHooksDir: null, timeoutMs: 30000 },
      )
      const [exec] = result.hooks
      expect(exec.failure).toBeUndefined()
      expect(exec.output.echo.prompt).toBe(PROMPT)
      expect(exec.output.text).toBe('输出✓🎉')
    }, 60000)

    testWindows(`a .${ext} hook that types a UTF-8 file gets it back intact`, async () => {
      const dir = freshDir('ünïcode 目录')
      writeFiles(dir, {
        [`UserPromptSubmit.${ext}`]: '@type "%~dp0reply.json"\n',
        'reply.json': JSON.stringify({ contextModification: REPLY }),
      })
      const result = await hooks.runHook(
        'UserPromptSubmit',
        { prompt: PROMPT },
        { extraHooksDirs: [dir], globalHooksDir: null, timeoutMs: 30000 },
      )
      expect(result.hooks[0].failure).toBeUndefined()
      expect(result.contextModification).toBe(REPLY)
    }, 60000)
  }
})

// ---------------------------------------------------------------------------------------------
describe('Windows: .ps1 hooks', () => {
  testWindows('the argv is PowerShell with -NoLogo -NoProfile -NonInteractive -ExecutionPolicy Bypass -File <path>', async () => {
    const dir = freshDir('ps hooks & (ü) 100%')
    writeFiles(dir, { 'PreToolUse.ps1': 'Write-Output \'{"cancel":false}\'\n', 'PreToolUse.cmd': '@echo {}\n' })
    const [hook] = await hooks.discoverHooks('PreToolUse', { extraHooksDirs: [dir], globalHooksDir: null })
    expect(hook.enabled).toBe(true)
    expect(hook.command.slice(1)).toEqual([...POWERSHELL_FLAGS, path.join(dir, 'PreToolUse.ps1')])
    // pwsh when on PATH, else Windows PowerShell at its system path.
    const systemPowerShell = path.join(process.env.SystemRoot, 'System32', 'WindowsPowerShell', 'v1.0', 'powershell.exe')
    const interpreter = hook.command[0]
    const isPwsh = /\\pwsh\.exe$/i.test(interpreter)
    expect(isPwsh || interpreter.toLowerCase() === systemPowerShell.toLowerCase()).toBe(true)
  })

  testWindowsWithEcho('runs once through a stand-in pwsh.exe on PATH (echo-argv.exe, NOT PowerShell): it receives exactly that argv and the input', () => {
    const dir = freshDir('ps hooks & (ü) 100%')
    writeFiles(dir, { 'PreToolUse.ps1': 'Write-Output \'{"cancel":false}\'\n' })
    const env = envWith({ PATH: `${PWSH_STANDIN_DIR};${process.env.PATH || process.env.Path || ''}` })
    const options = { extraHooksDirs: [dir], globalHooksDir: null }

    const [hook] = inChild(env, { hookName: 'PreToolUse', options })
    const standIn = path.join(PWSH_STANDIN_DIR, 'pwsh.exe')
    expect(hook.command).toEqual([standIn, ...POWERSHELL_FLAGS, path.join(dir, 'PreToolUse.ps1')])

    const input = { tool: 'write_to_file', prompt: '你好 🌍' }
    const result = inChild(env, { run: true, hookName: 'PreToolUse', input, options: { ...options, timeoutMs: 30000 } })
    const [exec] = result.hooks
    expect(exec.failure).toBeUndefined()
    expectCompleted(exec)
    expect(exec.output.standIn).toBe('echo-argv.exe (not PowerShell)')
    expect(exec.output.argv).toEqual(hook.command)
    expect(exec.output.echo).toMatchObject({ ...input, hookName: 'PreToolUse' })
  }, 120000)

  // Real PowerShell, with the README's UTF-8 preamble: non-ASCII text both ways and a cancel,
  // through pwsh (7) and through Windows PowerShell 5.1 (pwsh taken off PATH). Wine's
  // powershell.exe is a stub that runs no script, so under Wine these are skipped, saying so;
  // the workflow sets CLINE_HOOKS_TEST_REAL_POWERSHELL=1 on its Windows runners, where they
  // must run.
  const PREAMBLE = [
    '$utf8 = New-Object System.Text.UTF8Encoding $false',
    '[Console]::InputEncoding = $utf8',
    '[Console]::OutputEncoding = $utf8',
    '$OutputEncoding = $utf8',
  ].join('\n')
  const GATE = `${PREAMBLE}
$event = [Console]::In.ReadToEnd() | ConvertFrom-Json
$major = $PSVersionTable.PSVersion.Major
# The script itself stays ASCII: PowerShell 5.1 reads a .ps1 without a byte-order mark as ANSI.
$check = [string][char]0x2713
[Console]::Out.Write((@{ cancel = $true; contextModification = "$($event.prompt) $check"; errorMessage = "PowerShell $major" } | ConvertTo-Json -Compress))
`
  const realPowerShell = isWindows && (process.env.CLINE_HOOKS_TEST_REAL_POWERSHELL === '1' || powerShellRunsScripts())
  const NO_POWERSHELL = isWindows
    ? "needs PowerShell that runs scripts (Wine's powershell.exe is a stub); the workflow's Windows runners run it"
    : NOT_WINDOWS
  const pathList = () => (process.env.PATH || process.env.Path || '').split(';').filter(Boolean)

  for (const [label, major, env] of [
    ['pwsh (PowerShell 7) from PATH', 7, () => envWith({ PATH: pathList().join(';') })],
    ['Windows PowerShell 5.1 when pwsh is not on PATH', 5, () => envWith({ PATH: pathList().filter((d) => !fs.existsSync(path.join(d, 'pwsh.exe'))).join(';') })],
  ]) {
    ;(realPowerShell ? test : test.skip)(`${label} runs a .ps1 gate with the UTF-8 preamble: its cancel and non-ASCII text both ways${realPowerShell ? '' : ` [skipped: ${NO_POWERSHELL}]`}`, () => {
      const dir = freshDir('ps gate & (ü) 100%')
      writeFiles(dir, { 'PreToolUse.ps1': GATE })
      const input = { tool: 'write_to_file', prompt: '你好 café 🌍' }
      const options = { extraHooksDirs: [dir], globalHooksDir: null, timeoutMs: 60000 }
      const result = inChild(env(), { run: true, hookName: 'PreToolUse', input, options })
      const [exec] = result.hooks
      expect(exec.failure).toBeUndefined()
      expect(exec.warnings).toEqual([])
      expect(result.cancel).toBe(true)
      expect(result.contextModification).toBe('你好 café 🌍 ✓')
      expect(result.errorMessage).toBe(`PowerShell ${major}`)
    }, 120000)
  }
})
