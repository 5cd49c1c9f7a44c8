// Tests of bin/cline-hooks.js, run as a real process over the built addon and the real
// example hooks in examples/. Every call passes --no-global (or a temp global dir), so the
// user's Documents/Cline/Hooks never leaks in. Each test runs on both platforms unless its
// title says which rule keeps it on one: the examples are those of the platform
// (examples/workspace on macOS and Linux, examples/windows on Windows), and a test's own hooks
// are node programs (hook-programs.js).
const { spawn, spawnSync } = require('child_process')
const fs = require('fs')
const path = require('path')
const {
  isWindows,
  testUnix,
  testIf,
  makeTempDir,
  hooksDirOf,
  writeProgram,
  writeQuickHook,
  quickHooksAvailable,
  printJson,
  readInputThen,
  STAY_ALIVE,
  trackPid,
  isAlive,
  waitDead,
  powerShellRunsScripts,
  cliEnv,
  nodeSync,
} = require('./helpers')

const ROOT = path.join(__dirname, '..')
const CLI = path.join('bin', 'cline-hooks.js')
const INPUTS = path.join(ROOT, 'examples', 'inputs')
const HINT = '(try cline-hooks --help)'

/**
 * The examples of this platform, and what their hooks say. On macOS and Linux,
 * examples/workspace: PreToolUse (node), TaskStart (python3), PostToolUse (bash), each an
 * executable file with a #! line. On Windows, examples/windows: PreToolUse.cmd (runs `node`)
 * and TaskStart.ps1 (PowerShell). `argv(path)` is the regex of the argv `list` prints for the
 * hook at `path`.
 */
const EXAMPLE = isWindows
  ? {
      ws: path.join('examples', 'windows'),
      hooks: {
        TaskStart: { file: 'TaskStart.ps1', argv: (p) => `.+ -File '${re(p)}'` },
        PreToolUse: { file: 'PreToolUse.cmd', argv: (p) => `.+ /c '""${re(p)}""'` },
      },
      /** The allowed PreToolUse.json: PreToolUse.cmd logs the path and adds no context. */
      allowLog: '[PreToolUse] src/config.ts',
      allowContext: null,
      /** What PreToolUse.cmd answers to the write of a .js file. */
      blockMessage: 'Use .ts files in this project',
      /** What the run shows of a read_file of README.md. */
      readmeShown: '[PreToolUse] README.md',
    }
  : {
      ws: path.join('examples', 'workspace'),
      hooks: {
        TaskStart: { file: 'TaskStart', argv: (p) => re(p) },
        PreToolUse: { file: 'PreToolUse', argv: (p) => re(p) },
        PostToolUse: { file: 'PostToolUse', argv: (p) => re(p) },
      },
      allowLog: '[PreToolUse] write_to_file src/config.ts',
      allowContext: 'TypeScript project',
      blockMessage: 'src/config.js is a JavaScript file, but this is a TypeScript project',
      readmeShown: 'read_file on README.md',
    }
const EXAMPLE_WS = EXAMPLE.ws

/** The path of example hook `name`, relative to the repository (as the run report shows it). */
function exampleHook(name) {
  return path.join(EXAMPLE_WS, '.clinerules', 'hooks', EXAMPLE.hooks[name].file)
}

/** `s` as a regular expression that matches it literally. */
function re(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function cli(args, { input, env } = {}) {
  const r = nodeSync([CLI, ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    timeout: 60000,
    env: cliEnv(env),
  })
  if (r.error) throw r.error
  return r
}

/** A fresh temp dir, removed after the test. */
const tmpDir = () => makeTempDir('cline-hooks-cli-')


const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

describe('usage', () => {
  test('--help and -h print usage and exit 0', () => {
    for (const flag of ['--help', '-h']) {
      const r = cli([flag])
      expect(r.status).toBe(0)
      expect(r.stdout).toMatch(/^Usage:/)
      expect(r.stdout).toContain('cline-hooks list')
      expect(r.stdout).toContain('cline-hooks run <HookName>')
      expect(r.stdout).toContain('--hooks-dir DIR')
    }
    expect(cli(['run', '--help']).status).toBe(0)
  })

  test.each([
    [['--foo'], 'unknown option --foo'],
    [['list', '--foo'], 'unknown option --foo'],
    [['run', 'PreToolUse', '--no-global', '--bogus=1'], 'unknown option --bogus'],
    [[], 'missing command'],
    [['frob'], "unknown command 'frob'"],
    [['run', '--no-global'], "'run' needs a HookName"],
    [['run', 'PreToolUse', 'extra', '--no-global'], "unexpected argument 'extra'"],
    [['run', 'PreToolUse', '--no-global', '--timeout-ms'], 'option --timeout-ms needs a value'],
    [['run', 'PreToolUse', '--no-global', '--timeout-ms', 'soon'], '--timeout-ms wants a whole number'],
    [['run', 'PreToolUse', '--no-global', '--timeout-ms', '0'], '--timeout-ms must be between'],
    [['run', 'PreToolUse', '--no-global', '--input', '--json'], 'option --input needs a value'],
    [['list', '--no-global', '--input', 'x.json'], "option --input does not apply to 'list'"],
    [['list', '--no-global', '--global-dir', '/tmp'], 'cannot be combined'],
    [['run', 'PreToolUse', '--no-global', '--json=yes'], 'option --json takes no value'],
  ])('%j is a usage error: exit 2 with a one-line hint', (args, message) => {
    const r = cli(args)
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`cline-hooks: ${r.stderr.slice('cline-hooks: '.length)}`)
    expect(r.stderr).toContain(message)
    expect(r.stderr.trimEnd().endsWith(HINT)).toBe(true)
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
  })

  test('the exact hint for an unknown option', () => {
    expect(cli(['--foo']).stderr).toBe('cline-hooks: unknown option --foo (try cline-hooks --help)\n')
  })

  test.each([
    ['run', 'Pre.ToolUse'],
    ['run', 'preToolUse'],
    ['run', '../PreToolUse'],
    ['list', 'Pre ToolUse'],
  ])('%s with the invalid hook name %j exits 2 and runs nothing', (cmd, name) => {
    const r = cli([cmd, name, '--no-global', '--workspace', EXAMPLE_WS])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('is not a valid hook name')
    expect(r.stderr).toContain(HINT)
    expect(r.stdout).toBe('')
  })

  test('an invalid hook name is reported before stdin is read', () => {
    // No input is written to stdin; the CLI must not wait for it.
    const r = nodeSync([CLI, 'run', 'bad', '--no-global', '--input', '-'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 10000,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    expect(r.error).toBeUndefined()
    expect(r.status).toBe(2)
  })
})

describe('input errors', () => {
  test('a missing input file exits 2 with a clear message', () => {
    const r = cli(['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', 'examples/inputs/Nope.json'])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('cannot read input file examples/inputs/Nope.json: no such file')
    expect(r.stdout).toBe('')
  })

  test('a directory as the input file exits 2', () => {
    const r = cli(['run', 'PreToolUse', '--no-global', '--input', 'examples'])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('cannot read input file examples')
  })

  test('input that is not JSON exits 2 and runs no hook', () => {
    const dir = tmpDir()
    const f = path.join(dir, 'bad.json')
    fs.writeFileSync(f, '{"preToolUse": ')
    const r = cli(['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', f])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`the input from ${f} is not valid JSON`)
    expect(r.stdout).toBe('')
  })

  test.each([
    ['[1, 2]', 'an array'],
    ['null', 'null'],
    ['"text"', 'a string'],
    ['42', 'a number'],
  ])('input %s is rejected: it must be a JSON object, not %s', (text, kind) => {
    const r = cli(['run', 'PreToolUse', '--no-global', '--input', '-'], { input: text })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`the input from stdin must be a JSON object, not ${kind}`)
  })
})

describe('list', () => {
  test('shows the example hooks, enabled, with their source and argv', () => {
    const r = cli(['list', '--no-global', '--workspace', EXAMPLE_WS])
    expect(r.status).toBe(0)
    const hooksDir = path.join(ROOT, EXAMPLE_WS, '.clinerules', 'hooks')
    for (const [name, { file, argv }] of Object.entries(EXAMPLE.hooks)) {
      const line = r.stdout.split('\n').find((l) => l.startsWith(name + ' '))
      expect(line).toBeDefined()
      expect(line).toMatch(new RegExp(`^${name}\\s+enabled\\s+-\\s+workspace\\s+${argv(path.join(hooksDir, file))}$`))
    }
    expect(r.stdout).toMatch(/No hooks for: .*TaskResume/)
    expect(r.stdout).not.toContain('\x1b[') // not a TTY: no colour
  })

  test('with a HookName lists only that hook', () => {
    const r = cli(['list', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS])
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('PreToolUse')
    expect(r.stdout).not.toContain('TaskStart')
    expect(r.stdout).not.toContain('No hooks for')
  })

  /**
   * Makes the TaskStart hook of `ws` (a copy of the examples) one this platform does not start:
   * on Unix, not executable; on Windows, TaskStart.vbs with .VBS in PATHEXT (a type the package
   * never starts). Returns its path, the regex of the reason given, and the environment.
   */
  function disableTaskStart(ws) {
    const dir = hooksDirOf(ws)
    if (isWindows) {
      fs.rmSync(path.join(dir, 'TaskStart.ps1'))
      const hook = path.join(dir, 'TaskStart.vbs')
      fs.writeFileSync(hook, 'WScript.Echo "{}"\r\n')
      return { hook, reason: 'are not started as hooks', env: { PATHEXT: '.COM;.EXE;.BAT;.CMD;.VBS' } }
    }
    const hook = path.join(dir, 'TaskStart')
    fs.chmodSync(hook, 0o644)
    return { hook, reason: 'executable', env: {} }
  }

  test('a hook the platform does not start (Unix: not executable; Windows: a .vbs in PATHEXT) is listed as disabled, with the reason', () => {
    const ws = tmpDir()
    fs.cpSync(path.join(ROOT, EXAMPLE_WS), ws, { recursive: true })
    const { hook, reason, env } = disableTaskStart(ws)
    const r = cli(['list', '--no-global', '--workspace', ws], { env })
    expect(r.status).toBe(0)
    const lines = r.stdout.split('\n')
    const i = lines.findIndex((l) => l.startsWith('TaskStart '))
    expect(lines[i]).toMatch(/^TaskStart\s+disabled\s+-\s+workspace\s+/)
    expect(lines[i]).toContain(hook)
    expect(lines[i + 1]).toMatch(new RegExp(`not run: .*${reason}`))
    expect(lines.find((l) => l.startsWith('PreToolUse '))).toMatch(/enabled/)

    // ... and run says it was skipped, and runs nothing.
    const run = cli(['run', 'TaskStart', '--no-global', '--workspace', ws], { env })
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(new RegExp(`warning: .*TaskStart.*${reason}`))
    expect(run.stdout).toContain('no TaskStart hook ran')
  })

  testIf(quickHooksAvailable, 'needs hookbot.exe from the Windows lane', 'argv is shell-quoted when the path has spaces and quotes', () => {
    const ws = path.join(tmpDir(), "my 'odd' ws")
    // The quick hook is the file itself in argv on both platforms (sh script, or hookbot.exe).
    const hook = writeQuickHook(hooksDirOf(ws), 'PreToolUse', {})
    const r = cli(['list', 'PreToolUse', '--no-global', '--workspace', ws])
    expect(r.status).toBe(0)
    expect(r.stdout).toContain(`'${hook.replace(/'/g, `'\\''`)}'`)
  })

  test('--hooks-dir (repeatable) and --global-dir are searched first, in order', () => {
    const extra1 = tmpDir()
    const extra2 = tmpDir()
    const global = tmpDir()
    const allow = readInputThen(printJson({ cancel: false }))
    writeProgram(extra1, 'PreToolUse', allow)
    writeProgram(extra2, 'PreToolUse', allow)
    writeProgram(global, 'PreToolUse', allow)
    const r = cli([
      'list', 'PreToolUse', '--workspace', EXAMPLE_WS,
      '--hooks-dir', extra1, '--hooks-dir', extra2, '--global-dir', global,
    ])
    expect(r.status).toBe(0)
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('PreToolUse '))
    expect(rows).toHaveLength(4)
    expect(rows[0]).toMatch(/\sextra\s/)
    expect(rows[0]).toContain(extra1)
    expect(rows[1]).toContain(extra2)
    expect(rows[2]).toMatch(/\sglobal\s/)
    expect(rows[3]).toMatch(/\sworkspace\s/)

    const run = cli([
      'run', 'PreToolUse', '--workspace', EXAMPLE_WS, '--hooks-dir', extra1, '--global-dir', global,
      '--input', 'examples/inputs/PreToolUse.json',
    ])
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/✔ allowed · 3 hooks · slowest /)
  })

  testUnix(
    'the default global folder (<HOME>/Documents/Cline/Hooks) is searched unless --no-global',
    () => {
      const home = tmpDir()
      const globalHook = writeProgram(path.join(home, 'Documents', 'Cline', 'Hooks'), 'PreToolUse', readInputThen(printJson({ cancel: true })))
      const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') }
      const withGlobal = cli(['list', 'PreToolUse', '--workspace', EXAMPLE_WS], { env })
      expect(withGlobal.stdout).toContain(globalHook)
      const blocked = cli(['run', 'PreToolUse', '--workspace', EXAMPLE_WS, '--input', 'examples/inputs/PreToolUse.json'], { env })
      expect(blocked.status).toBe(1)

      const noGlobal = cli(['list', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS], { env })
      expect(noGlobal.status).toBe(0)
      expect(noGlobal.stdout).not.toContain(globalHook)
      const allowed = cli(['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', 'examples/inputs/PreToolUse.json'], { env })
      expect(allowed.status).toBe(0)
    },
    undefined,
    {
      reason:
        "Windows finds Documents as a known folder, which no environment variable moves: the test would write into the user's own global hooks",
    },
  )

  test('--workspace is repeatable: each root is searched, in the order given', () => {
    const ws1 = tmpDir()
    const ws2 = tmpDir()
    const hook = (ctx) => readInputThen(printJson({ contextModification: ctx }))
    const first = writeProgram(hooksDirOf(ws1), 'TaskStart', hook('from ws1'))
    const second = writeProgram(hooksDirOf(ws2), 'TaskStart', hook('from ws2'))
    const listed = cli(['list', 'TaskStart', '--no-global', '--workspace', ws2, '--workspace', ws1])
    expect(listed.status).toBe(0)
    expect(listed.stdout.indexOf(second)).toBeGreaterThan(-1)
    expect(listed.stdout.indexOf(first)).toBeGreaterThan(listed.stdout.indexOf(second))
    const ran = cli(['run', 'TaskStart', '--no-global', '--workspace', ws1, '--workspace', ws2, '--json'])
    expect(ran.status).toBe(0)
    expect(JSON.parse(ran.stdout).contextModification).toBe('from ws1\n\nfrom ws2')
  })

  test('a --workspace that does not exist is a warning, not an error', () => {
    const r = cli(['list', '--no-global', '--workspace', 'examples/no-such-ws'])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain('warning: --workspace examples/no-such-ws: no such directory')
  })

  test('a --workspace that is a file is warned about in words that fit', () => {
    const file = path.join(makeTempDir(), 'notes.txt')
    fs.writeFileSync(file, 'x')
    const r = cli(['list', '--no-global', '--workspace', file])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain(`warning: --workspace ${file}: is a file, not a directory`)
    expect(r.stderr).not.toMatch(/no such directory/)
  })

  testUnix(
    'a --workspace with too long a path is warned about in words that fit',
    () => {
      const long = '/tmp/' + 'd'.repeat(300)
      const r = cli(['list', '--no-global', '--workspace', long])
      expect(r.status).toBe(0)
      expect(r.stderr).toContain(`warning: --workspace ${long}: its path is longer than the system allows; use a shorter path`)
      expect(r.stderr).not.toMatch(/no such directory/)
    },
    undefined,
    { reason: 'Node on Windows reports a path past the length limit as ENOENT, not ENAMETOOLONG, so the CLI says "no such directory"' },
  )
})

describe('run on the examples', () => {
  const args = (input) => ['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', input]

  test('PreToolUse.json is allowed (exit 0), with the context and the stderr tail', () => {
    const r = cli(args('examples/inputs/PreToolUse.json'))
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const hook = exampleHook('PreToolUse')
    expect(r.stdout).toContain(`PreToolUse ❯ ${hook} (workspace)`)
    expect(r.stdout).toMatch(/status\s+✔ completed \(exit 0\)\s+\d/)
    expect(r.stdout).toMatch(/cancel\s+false/)
    if (EXAMPLE.allowContext) expect(r.stdout).toMatch(new RegExp(`context\\s+${re(EXAMPLE.allowContext)}`))
    else expect(r.stdout).not.toMatch(/^\s+context\s/m)
    expect(r.stdout).toMatch(new RegExp(`stderr\\s+│ ${re(EXAMPLE.allowLog)}`))
    const summary = r.stdout.trimEnd().split('\n').pop()
    expect(summary).toMatch(new RegExp(`^✔ allowed · 1 hook · slowest ${re(hook)} [\\d.]+ m?s · total [\\d.]+ m?s$`))
    expect(r.stdout).not.toContain('\x1b[')
  })

  test('PreToolUse-write-js.json is blocked (exit 1) and the errorMessage is printed', () => {
    const r = cli(args('examples/inputs/PreToolUse-write-js.json'))
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/cancel\s+true/)
    expect(r.stdout).toMatch(new RegExp(`error\\s+${re(EXAMPLE.blockMessage)}`))
    expect(r.stdout.trimEnd().split('\n').pop()).toMatch(/^✘ cancelled · 1 hook · slowest /)
  })

  test('--json prints the raw HookRunResult', () => {
    const allow = cli([...args('examples/inputs/PreToolUse.json'), '--json'])
    expect(allow.status).toBe(0)
    const result = JSON.parse(allow.stdout)
    expect(Array.isArray(result.hooks)).toBe(true)
    expect(result.hooks).toHaveLength(1)
    expect(result.hooks[0]).toMatchObject({ hookName: 'PreToolUse', source: 'workspace', status: 'completed', cancel: false })
    expect(result.cancel).toBe(false)
    if (EXAMPLE.allowContext) expect(result.contextModification).toContain(EXAMPLE.allowContext)
    else expect(result.contextModification || '').toBe('')
    expect(result.slowest.path).toBe(result.hooks[0].path)

    const block = cli([...args('examples/inputs/PreToolUse-write-js.json'), '--json'])
    expect(block.status).toBe(1)
    expect(JSON.parse(block.stdout)).toMatchObject({ cancel: true, errorMessage: expect.stringContaining(EXAMPLE.blockMessage) })
  })

  test('--input - reads the input from stdin', () => {
    const input = fs.readFileSync(path.join(INPUTS, 'PreToolUse-write-js.json'), 'utf8')
    const r = cli(['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', '-', '--json'], { input })
    expect(r.status).toBe(1)
    expect(JSON.parse(r.stdout).cancel).toBe(true)

    const allow = cli(['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', '-'], {
      input: '{"preToolUse": {"tool": "read_file", "parameters": {"path": "README.md"}}}',
    })
    expect(allow.status).toBe(0)
    expect(allow.stdout).toContain(EXAMPLE.readmeShown)
  })

  test('without --input the input is {} plus the common fields the runtime fills in', () => {
    const dir = tmpDir()
    writeProgram(dir, 'TaskStart', readInputThen(`process.stderr.write(input)\n${printJson({ cancel: false })}`))
    const r = cli(['run', 'TaskStart', '--no-global', '--hooks-dir', dir, '--workspace', EXAMPLE_WS, '--json'])
    expect(r.status).toBe(0)
    const hooks = JSON.parse(r.stdout).hooks
    expect(hooks.map((h) => h.source)).toEqual(['extra', 'workspace'])
    const extra = hooks.find((h) => h.source === 'extra')
    const input = JSON.parse(extra.stderr)
    expect(input).toMatchObject({
      hookName: 'TaskStart',
      workspaceRoots: [path.join(ROOT, EXAMPLE_WS)],
      model: { provider: 'unknown', slug: 'unknown' },
    })
    expect(typeof input.timestamp).toBe('string')
    expect(input.taskStart).toBeUndefined()
  })

  // TaskStart.ps1 says where the project is (examples/windows has no tsconfig.json); TaskStart
  // (python3) reads tsconfig.json.
  const taskStartContext = isWindows
    ? `context\\s+Project root: ${re(path.join(ROOT, EXAMPLE_WS))}$`
    : 'context\\s+PROJECT: TypeScript project; strict mode is on'
  testIf(
    !isWindows || powerShellRunsScripts(),
    "powershell.exe runs no script here (Wine's powershell.exe is a stub); TaskStart.ps1 needs PowerShell",
    'TaskStart adds project context and allows',
    () => {
      const start = cli(['run', 'TaskStart', '--no-global', '--workspace', EXAMPLE_WS, '--input', 'examples/inputs/TaskStart.json'])
      expect(start.status).toBe(0)
      expect(start.stdout).toMatch(new RegExp(taskStartContext, 'm'))
      expect(start.stdout).toContain('✔ allowed · 1 hook')
    },
  )

  testUnix(
    'PostToolUse logs to stderr and allows',
    () => {
      const post = cli(['run', 'PostToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', 'examples/inputs/PostToolUse.json'])
      expect(post.status).toBe(0)
      expect(post.stdout).toMatch(/\[PostToolUse\] .*execute_command success=true 3450ms/)
      expect(post.stdout).toContain('✔ allowed · 1 hook')
    },
    undefined,
    { reason: 'examples/windows has no PostToolUse hook' },
  )

  const inputFiles = fs.readdirSync(INPUTS).filter((f) => f.endsWith('.json'))

  test('there is an input file for every known hook', () => {
    const { KNOWN_HOOKS } = require('../index.js')
    for (const name of KNOWN_HOOKS) expect(inputFiles).toContain(`${name}.json`)
  })

  test.each(inputFiles)('examples/inputs/%s runs without a usage error', (file) => {
    const hookName = file.replace(/\.json$/, '').split('-')[0]
    const r = cli(['run', hookName, '--no-global', '--workspace', EXAMPLE_WS, '--input', path.join('examples', 'inputs', file)])
    expect(r.stderr).not.toContain(HINT)
    expect(r.stderr).not.toContain('warning')
    expect([0, 1]).toContain(r.status)
    expect(r.status).toBe(file === 'PreToolUse-write-js.json' ? 1 : 0)
    expect(r.stdout).not.toMatch(/✘ (failed|aborted)|timedOut/)
  })
})

describe('run: hook outcomes', () => {
  test('a failing hook, a timed-out hook and a cancelling hook are each shown; the cancel wins', () => {
    const extra = tmpDir()
    const ws = tmpDir()
    writeProgram(extra, 'PreToolUse', 'process.stderr.write("boom: config missing\\n")\nprocess.exitCode = 3\n')
    writeProgram(hooksDirOf(ws), 'PreToolUse', STAY_ALIVE)
    const gate = tmpDir()
    writeProgram(gate, 'PreToolUse', printJson({ cancel: true, errorMessage: 'nope' }))
    // Long enough for a node program to start and finish under load (and under Wine); the
    // sleeper never finishes.
    const r = cli([
      'run', 'PreToolUse', '--global-dir', gate, '--hooks-dir', extra, '--workspace', ws, '--timeout-ms', '10000',
    ])
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/status\s+✘ failed \(exit 3\)/)
    expect(r.stdout).toMatch(/failure\s+\S/)
    expect(r.stdout).toMatch(/│ boom: config missing/)
    expect(r.stdout).toMatch(/status\s+⏱ timedOut/)
    expect(r.stdout).toMatch(/error\s+nope/)
    const summary = r.stdout.trimEnd().split('\n').pop()
    expect(summary).toMatch(/^✘ cancelled · 3 hooks · slowest .* (\d+ ms|[\d.]+ s) · total /)
    expect(summary).toContain(path.basename(ws)) // the sleeper is the slowest
  })

  test('--sequential runs the hooks one after another', () => {
    const extra = tmpDir()
    const ws = tmpDir()
    const body = `setTimeout(() => {\n${printJson({ cancel: false })}}, 400)\n`
    writeProgram(extra, 'PreToolUse', body)
    writeProgram(hooksDirOf(ws), 'PreToolUse', body)
    const r = cli(['run', 'PreToolUse', '--no-global', '--hooks-dir', extra, '--workspace', ws, '--sequential', '--json'])
    expect(r.status).toBe(0)
    const result = JSON.parse(r.stdout)
    expect(result.hooks).toHaveLength(2)
    expect(result.durationMs).toBeGreaterThanOrEqual(750)
  })

  test('no hooks: exit 0 and says so', () => {
    const r = cli(['run', 'TaskError', '--no-global', '--workspace', EXAMPLE_WS])
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('No enabled TaskError hook found')
    expect(r.stdout).toContain('no TaskError hook ran')
  })
})

// ---------------------------------------------------------------------------------------------
// Ctrl-C. On Unix it is SIGINT, sent here to cline-hooks alone. On Windows it is a console
// control event (CTRL_C_EVENT), which reaches every process on a console and which Node cannot
// send: process.kill(pid, 'SIGINT') is TerminateProcess there. So on Windows cline-hooks runs on
// a console of its own (cmd's `start`, without /b: a new console, where Ctrl-C is not ignored,
// as it would be in a new process group), under a small node program that writes its pid, its
// output and its exit status to files; and ctrl-c.exe (CLINE_HOOKS_TEST_CTRL_C: AttachConsole +
// GenerateConsoleCtrlEvent, which Wine supports too) presses Ctrl-C on that console.

const CTRL_C_EXE = process.env.CLINE_HOOKS_TEST_CTRL_C || null

const CONSOLE_RUNNER = `
const { spawn } = require('child_process')
const fs = require('fs')
const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const done = (file, text) => { fs.writeFileSync(file + '.tmp', text); fs.renameSync(file + '.tmp', file) }
process.on('SIGINT', () => {}) // the Ctrl-C is for cline-hooks; this program only reports on it
const child = spawn(process.execPath, job.args, {
  cwd: job.cwd,
  stdio: ['ignore', fs.openSync(job.stdout, 'w'), fs.openSync(job.stderr, 'w')],
  windowsHide: true,
})
done(job.pidFile, String(child.pid))
child.on('exit', (code, signal) => done(job.exitFile, JSON.stringify({ code, signal, at: Date.now() })))
`

/**
 * Starts cline-hooks with `args` where a Ctrl-C can reach it alone. Returns { pid() (resolves
 * with its pid), interrupt() (presses Ctrl-C), exited (resolves with { code, signal, stdout,
 * stderr, at }) }.
 */
function startInterruptible(args) {
  if (!isWindows) {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv() })
    trackPid(child.pid)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, at: Date.now() })),
    )
    return { pid: async () => child.pid, interrupt: () => child.kill('SIGINT'), exited }
  }
  const dir = makeTempDir('cline-hooks-console-')
  const file = (name) => path.join(dir, name)
  fs.writeFileSync(file('runner.js'), CONSOLE_RUNNER)
  const job = {
    args: [path.join(ROOT, CLI), ...args],
    cwd: ROOT,
    stdout: file('stdout.txt'),
    stderr: file('stderr.txt'),
    pidFile: file('cli.pid'),
    exitFile: file('exit.json'),
  }
  fs.writeFileSync(file('job.json'), JSON.stringify(job))
  const q = (s) => `"${s}"`
  // /s: cmd.exe takes what is between the outer quotes as the command line, as written.
  const line = `/d /s /c "start "" /min ${[process.execPath, file('runner.js'), file('job.json')].map(q).join(' ')}"`
  const comspec = process.env.ComSpec || 'cmd.exe'
  spawnSync(comspec, [line], { windowsVerbatimArguments: true, stdio: 'ignore', windowsHide: true, env: cliEnv(), timeout: 60000 })
  const read = (name) => fs.readFileSync(file(name), 'utf8')
  const waitForFileOf = async (name, what) => {
    const deadline = Date.now() + 60000
    while (!fs.existsSync(file(name))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await sleep(25)
    }
    return read(name)
  }
  let cliPid = null
  const pid = async () => {
    if (cliPid === null) cliPid = trackPid(Number(await waitForFileOf('cli.pid', 'cline-hooks to start on its console')))
    return cliPid
  }
  const exited = waitForFileOf('exit.json', 'cline-hooks to exit').then((text) => ({
    ...JSON.parse(text),
    stdout: read('stdout.txt'),
    stderr: read('stderr.txt'),
  }))
  const interrupt = () => {
    const r = spawnSync(CTRL_C_EXE, [String(cliPid)], { encoding: 'utf8', timeout: 60000, windowsHide: true })
    if (r.status !== 0) throw new Error(`ctrl-c.exe failed (status ${r.status}, error ${r.error}): ${r.stderr}`)
  }
  return { pid, interrupt, exited }
}

const ctrlCTest = isWindows && !CTRL_C_EXE ? test.skip : test
const ctrlCNote =
  isWindows && !CTRL_C_EXE
    ? " (skipped: needs ctrl-c.exe, a console's Ctrl-C from AttachConsole + GenerateConsoleCtrlEvent; CLINE_HOOKS_TEST_CTRL_C is unset, and Node's process.kill(pid, 'SIGINT') is TerminateProcess on Windows)"
    : ''

describe('Ctrl-C (SIGINT)', () => {
  ctrlCTest(`Ctrl-C during a run stops the hook processes, then cline-hooks exits 130${ctrlCNote}`, async () => {
    const ws = tmpDir()
    // The hook and its child ignore Ctrl-C (so only cline-hooks can stop them) and never end;
    // their pids go to hook.pids in the workspace root (the hook's cwd).
    writeProgram(
      hooksDirOf(ws),
      'PreToolUse',
      `process.on('SIGINT', () => {})
const { spawn } = require('child_process')
const fs = require('fs')
const child = spawn(process.execPath, ['-e', ${JSON.stringify(`process.on('SIGINT', () => {}); ${STAY_ALIVE}`)}], { stdio: 'ignore' })
fs.writeFileSync('hook.pids.tmp', process.pid + ' ' + child.pid)
fs.renameSync('hook.pids.tmp', 'hook.pids')
${STAY_ALIVE}`,
    )
    const pidFile = path.join(ws, 'hook.pids')
    const run = startInterruptible(['run', 'PreToolUse', '--no-global', '--workspace', ws])
    await run.pid()

    const deadline = Date.now() + 60000
    while (!fs.existsSync(pidFile)) {
      if (Date.now() > deadline) throw new Error('the hook never started')
      await sleep(25)
    }
    const pids = fs.readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number)
    pids.forEach(trackPid)
    expect(pids).toHaveLength(2)
    expect(pids.every(isAlive)).toBe(true)

    const sentAt = Date.now()
    run.interrupt()
    const { code, signal, stderr, at } = await run.exited
    expect(signal).toBeNull()
    expect(code).toBe(130)
    expect(at - sentAt).toBeLessThan(5000)
    expect(stderr).toBe('cline-hooks: interrupted by SIGINT; the PreToolUse hooks were stopped\n')

    // Killed processes may linger for a moment as zombies until reaped; that counts as gone.
    for (const pid of pids) expect(await waitDead(pid, 5000)).toBe(true)
  }, 120000)
})
