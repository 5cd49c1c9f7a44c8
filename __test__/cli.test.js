// Tests of bin/cline-hooks.js, run as a real process over the built addon and the real
// example hooks in examples/. Every call passes --no-global (or a temp global dir), so the
// user's Documents/Cline/Hooks never leaks in.
const { spawn, spawnSync } = require('child_process')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { describeUnix, makeTempDir } = require('./helpers')

const ROOT = path.join(__dirname, '..')
const CLI = path.join('bin', 'cline-hooks.js')
const EXAMPLE_WS = path.join('examples', 'workspace')
const INPUTS = path.join(ROOT, 'examples', 'inputs')
const HINT = '(try cline-hooks --help)'

function cli(args, { input, env } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    timeout: 30000,
    env: { ...process.env, ...env },
  })
  if (r.error) throw r.error
  return r
}

const tmpDirs = []
function tmpDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-cli-'))
  tmpDirs.push(d)
  return d
}
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true })
})

function writeHook(dir, name, body, mode = 0o755) {
  fs.mkdirSync(dir, { recursive: true })
  const p = path.join(dir, name)
  fs.writeFileSync(p, body)
  fs.chmodSync(p, mode)
  return p
}

/** A process that exists and is not a zombie. */
function alive(pid) {
  try {
    process.kill(pid, 0)
  } catch (e) {
    return e.code === 'EPERM'
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch (_) {
    return false // gone between the two checks
  }
}

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
    const r = spawnSync(process.execPath, [CLI, 'run', 'bad', '--no-global', '--input', '-'], {
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

describeUnix('list', () => {
  test('shows the example hooks, enabled, with their source and argv', () => {
    const r = cli(['list', '--no-global', '--workspace', EXAMPLE_WS])
    expect(r.status).toBe(0)
    const hooksDir = path.join(ROOT, EXAMPLE_WS, '.clinerules', 'hooks')
    for (const name of ['PreToolUse', 'PostToolUse', 'TaskStart']) {
      const line = r.stdout.split('\n').find((l) => l.startsWith(name + ' '))
      expect(line).toBeDefined()
      expect(line).toMatch(new RegExp(`^${name}\\s+enabled\\s+workspace\\s+${path.join(hooksDir, name)}$`))
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

  test('a hook that is not executable is listed as disabled, with the reason', () => {
    const ws = tmpDir()
    fs.cpSync(path.join(ROOT, EXAMPLE_WS), ws, { recursive: true })
    const hook = path.join(ws, '.clinerules', 'hooks', 'TaskStart')
    fs.chmodSync(hook, 0o644)
    const r = cli(['list', '--no-global', '--workspace', ws])
    expect(r.status).toBe(0)
    const lines = r.stdout.split('\n')
    const i = lines.findIndex((l) => l.startsWith('TaskStart '))
    expect(lines[i]).toMatch(/^TaskStart\s+disabled\s+workspace\s+/)
    expect(lines[i]).toContain(hook)
    expect(lines[i + 1]).toMatch(/not run: .*executable/)
    expect(lines.find((l) => l.startsWith('PreToolUse '))).toMatch(/enabled/)

    // ... and run says it was skipped, and runs nothing.
    const run = cli(['run', 'TaskStart', '--no-global', '--workspace', ws])
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/warning: .*TaskStart.*executable/)
    expect(run.stdout).toContain('no TaskStart hook ran')
  })

  test('argv is shell-quoted when the path has spaces and quotes', () => {
    const ws = path.join(tmpDir(), "my 'odd' ws")
    const hook = writeHook(path.join(ws, '.clinerules', 'hooks'), 'PreToolUse', '#!/bin/sh\necho "{}"\n')
    const r = cli(['list', 'PreToolUse', '--no-global', '--workspace', ws])
    expect(r.status).toBe(0)
    expect(r.stdout).toContain(`'${hook.replace(/'/g, `'\\''`)}'`)
  })

  test('--hooks-dir (repeatable) and --global-dir are searched first, in order', () => {
    const extra1 = tmpDir()
    const extra2 = tmpDir()
    const global = tmpDir()
    const body = '#!/bin/sh\ncat >/dev/null\necho \'{"cancel":false}\'\n'
    writeHook(extra1, 'PreToolUse', body)
    writeHook(extra2, 'PreToolUse', body)
    writeHook(global, 'PreToolUse', body)
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

  test('the default global folder (<HOME>/Documents/Cline/Hooks) is searched unless --no-global', () => {
    const home = tmpDir()
    const body = '#!/bin/sh\ncat >/dev/null\necho \'{"cancel":true}\'\n'
    const globalHook = writeHook(path.join(home, 'Documents', 'Cline', 'Hooks'), 'PreToolUse', body)
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
  })

  test('--workspace is repeatable: each root is searched, in the order given', () => {
    const ws1 = tmpDir()
    const ws2 = tmpDir()
    const hook = (ctx) => `#!/bin/sh\ncat >/dev/null\necho '{"contextModification":"${ctx}"}'\n`
    const first = writeHook(path.join(ws1, '.clinerules', 'hooks'), 'TaskStart', hook('from ws1'))
    const second = writeHook(path.join(ws2, '.clinerules', 'hooks'), 'TaskStart', hook('from ws2'))
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

  test('a --workspace that is a file, or too long a path, is warned about in words that fit', () => {
    const file = path.join(makeTempDir(), 'notes.txt')
    fs.writeFileSync(file, 'x')
    const long = '/tmp/' + 'd'.repeat(300)
    const r = cli(['list', '--no-global', '--workspace', file, '--workspace', long])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain(`warning: --workspace ${file}: is a file, not a directory`)
    expect(r.stderr).toContain(`warning: --workspace ${long}: its path is longer than the system allows; use a shorter path`)
    expect(r.stderr).not.toMatch(/no such directory/)
  })
})

describeUnix('run on the examples', () => {
  const args = (input) => ['run', 'PreToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', input]

  test('PreToolUse.json is allowed (exit 0), with the context and the stderr tail', () => {
    const r = cli(args('examples/inputs/PreToolUse.json'))
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('PreToolUse ❯ examples/workspace/.clinerules/hooks/PreToolUse (workspace)')
    expect(r.stdout).toMatch(/status\s+✔ completed \(exit 0\)\s+\d/)
    expect(r.stdout).toMatch(/cancel\s+false/)
    expect(r.stdout).toMatch(/context\s+TypeScript project/)
    expect(r.stdout).toMatch(/stderr\s+│ \[PreToolUse\] write_to_file src\/config\.ts/)
    const summary = r.stdout.trimEnd().split('\n').pop()
    expect(summary).toMatch(/^✔ allowed · 1 hook · slowest examples\/workspace\/\.clinerules\/hooks\/PreToolUse [\d.]+ m?s · total [\d.]+ m?s$/)
    expect(r.stdout).not.toContain('\x1b[')
  })

  test('PreToolUse-write-js.json is blocked (exit 1) and the errorMessage is printed', () => {
    const r = cli(args('examples/inputs/PreToolUse-write-js.json'))
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/cancel\s+true/)
    expect(r.stdout).toMatch(/error\s+src\/config\.js is a JavaScript file, but this is a TypeScript project/)
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
    expect(result.contextModification).toContain('TypeScript project')
    expect(result.slowest.path).toBe(result.hooks[0].path)

    const block = cli([...args('examples/inputs/PreToolUse-write-js.json'), '--json'])
    expect(block.status).toBe(1)
    expect(JSON.parse(block.stdout)).toMatchObject({ cancel: true, errorMessage: expect.stringContaining('src/config.js') })
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
    expect(allow.stdout).toContain('read_file on README.md')
  })

  test('without --input the input is {} plus the common fields the runtime fills in', () => {
    const dir = tmpDir()
    writeHook(dir, 'TaskStart', '#!/bin/sh\ncat >&2\necho \'{"cancel":false}\'\n')
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

  test('TaskStart adds project context and PostToolUse logs to stderr and allows', () => {
    const start = cli(['run', 'TaskStart', '--no-global', '--workspace', EXAMPLE_WS, '--input', 'examples/inputs/TaskStart.json'])
    expect(start.status).toBe(0)
    expect(start.stdout).toMatch(/context\s+PROJECT: TypeScript project; strict mode is on/)

    const post = cli(['run', 'PostToolUse', '--no-global', '--workspace', EXAMPLE_WS, '--input', 'examples/inputs/PostToolUse.json'])
    expect(post.status).toBe(0)
    expect(post.stdout).toMatch(/\[PostToolUse\] .*execute_command success=true 3450ms/)
    expect(post.stdout).toContain('✔ allowed · 1 hook')
  })

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

describeUnix('run: hook outcomes', () => {
  test('a failing hook, a timed-out hook and a cancelling hook are each shown; the cancel wins', () => {
    const extra = tmpDir()
    const ws = tmpDir()
    writeHook(extra, 'PreToolUse', '#!/bin/sh\necho "boom: config missing" >&2\nexit 3\n')
    writeHook(path.join(ws, '.clinerules', 'hooks'), 'PreToolUse', '#!/bin/sh\nexec sleep 20\n')
    const gate = tmpDir()
    writeHook(gate, 'PreToolUse', '#!/bin/sh\necho \'{"cancel":true,"errorMessage":"nope"}\'\n')
    const r = cli([
      'run', 'PreToolUse', '--global-dir', gate, '--hooks-dir', extra, '--workspace', ws, '--timeout-ms', '500',
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
    const body = '#!/bin/sh\nsleep 0.4\necho \'{"cancel":false}\'\n'
    writeHook(extra, 'PreToolUse', body)
    writeHook(path.join(ws, '.clinerules', 'hooks'), 'PreToolUse', body)
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

describeUnix('SIGINT', () => {
  test('Ctrl-C during a run kills the hook processes and exits 130 within 2 s', async () => {
    const ws = tmpDir()
    // The hook and its child both sleep 30 s; their pids go to hook.pids in the workspace root (its cwd).
    writeHook(
      path.join(ws, '.clinerules', 'hooks'),
      'PreToolUse',
      '#!/bin/bash\nsleep 30 &\necho "$$ $!" > hook.pids.tmp\nmv hook.pids.tmp hook.pids\nwait\necho \'{}\'\n',
    )
    const pidFile = path.join(ws, 'hook.pids')
    const child = spawn(process.execPath, [CLI, 'run', 'PreToolUse', '--no-global', '--workspace', ws], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })))

    const deadline = Date.now() + 15000
    while (!fs.existsSync(pidFile)) {
      if (Date.now() > deadline) throw new Error(`the hook never started; stderr: ${stderr}`)
      await sleep(25)
    }
    const pids = fs.readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number)
    expect(pids).toHaveLength(2)
    expect(pids.every(alive)).toBe(true)

    const sentAt = Date.now()
    child.kill('SIGINT')
    const { code, signal, at } = await exited
    expect(signal).toBeNull()
    expect(code).toBe(130)
    expect(at - sentAt).toBeLessThan(2000)
    expect(stderr).toContain('interrupted')

    // Killed processes may linger for a moment as zombies until reaped; that counts as gone.
    const gone = Date.now() + 2000
    while (pids.some(alive) && Date.now() < gone) await sleep(50)
    expect(pids.filter(alive)).toEqual([])
  })
})
