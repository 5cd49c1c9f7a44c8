// Tests of `cline-hooks init`: the template it writes runs, through `cline-hooks run`, with the
// verdict it promises (allow; its commented-out example blocks once uncommented), for each
// language this machine has; it documents every input field of its hook; it never overwrites
// a hook; and an unknown hook name is refused with the closest one.
const { spawnSync } = require('child_process')
const fs = require('fs')
const path = require('path')
const { isWindows, testIf, makeTempDir, writeFile, cliEnv, powerShellRunsScripts, nodeSync } = require('./helpers')
const { template, EXAMPLE_START, EXAMPLE_END } = require('../bin/templates')
const { HOOKS, COMMON_FIELDS, OUTPUT_FIELDS, inputKey, sampleInput } = require('../bin/hook-fields')
const { fileFor } = require('../bin/init')

const CLI = path.join(__dirname, '..', 'bin', 'cline-hooks.js')

function cli(args, { cwd, input } = {}) {
  const r = nodeSync([CLI, ...args], { cwd, input, encoding: 'utf8', timeout: 60000, env: cliEnv({ NO_COLOR: '1' }) })
  if (r.error) throw r.error
  return r
}

/** Whether a program `name` is on PATH (with an .exe or .cmd on Windows). */
function onPath(name) {
  const exts = isWindows ? ['.exe', '.cmd', '.bat'] : ['']
  return (process.env.PATH || '')
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => exts.some((ext) => fs.existsSync(path.join(dir, name + ext))))
}

/** `text` with the example's lines (between its marker lines) uncommented, as an author would. */
function uncommentExample(text) {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.includes(EXAMPLE_START))
  const open = lines.findIndex((l, i) => i >= start && l.trimEnd().endsWith('---'))
  const end = lines.findIndex((l) => l.includes(EXAMPLE_END))
  expect(start >= 0 && open >= start && end > open).toBe(true)
  for (let i = open + 1; i < end; i++) lines[i] = lines[i].replace(/^(\s*)(# |\/\/ )/, '$1')
  return lines.join('\n')
}

/** Runs PreToolUse hooks of `ws` with `input` through the CLI; returns the status and result. */
function runPreToolUse(ws, input, extra = []) {
  const r = cli(['run', 'PreToolUse', '--workspace', ws, '--no-global', '--input', '-', '--json', ...extra], { input: JSON.stringify(input) })
  let result = null
  try {
    result = JSON.parse(r.stdout)
  } catch {
    throw new Error(`run printed no JSON (status ${r.status}): ${r.stdout}${r.stderr}`)
  }
  return { status: r.status, result, stderr: r.stderr }
}

const hookFile = isWindows ? 'PreToolUse.ps1' : 'PreToolUse'
const powershellHere = () => (isWindows ? powerShellRunsScripts() : onPath('pwsh'))

// [lang, available here, why not]
const LANGS = [
  ['bash', !isWindows && onPath('bash'), isWindows ? 'the extension profile runs .ps1/.cmd on Windows' : 'no bash'],
  ['python', !isWindows && onPath('python3'), isWindows ? 'the extension profile runs .ps1/.cmd on Windows' : 'no python3'],
  ['node', !isWindows, 'the extension profile runs .ps1/.cmd on Windows'],
  ['powershell', powershellHere(), isWindows ? 'this PowerShell runs no scripts (Wine)' : 'no pwsh on PATH'],
]

describe('init then run', () => {
  for (const [lang, available, why] of LANGS) {
    testIf(available, why, `--lang ${lang}: the template documents every field, allows, and its example blocks once uncommented`, () => {
      const ws = makeTempDir('cline-hooks-init-')
      const r = cli(['init', 'PreToolUse', '--workspace', ws, '--lang', lang])
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      const file = path.join(ws, '.clinerules', 'hooks', hookFile)
      expect(r.stdout).toContain(`Wrote ${file}: a `)
      expect(r.stdout).toContain(`npx cline-hooks run PreToolUse --workspace ${ws} --input -`)
      if (!isWindows) expect(fs.statSync(file).mode & 0o111).toBe(0o111)
      const text = fs.readFileSync(file, 'utf8')
      for (const field of ['preToolUse.tool', 'preToolUse.parameters', ...COMMON_FIELDS.map((f) => f[0]), ...OUTPUT_FIELDS.map((f) => f[0])]) {
        expect(text).toContain(field)
      }

      const allowed = runPreToolUse(ws, sampleInput('PreToolUse'))
      expect(allowed.status).toBe(0)
      expect(allowed.result.cancel).toBe(false)
      expect(allowed.result.hooks.map((h) => [h.status, h.exitCode])).toEqual([['completed', 0]])
      expect(allowed.result.hooks[0].stderr).toContain('PreToolUse: received')

      if (lang === 'bash' && !onPath('jq')) return // the bash example reads the input with jq
      fs.writeFileSync(file, uncommentExample(text))
      const command = { taskId: 't', preToolUse: { tool: 'execute_command', parameters: { command: 'ls' } } }
      const blocked = runPreToolUse(ws, command)
      expect(blocked.status).toBe(1)
      expect(blocked.result.cancel).toBe(true)
      expect(blocked.result.errorMessage).toBe('Commands are not allowed in this workspace.')
      // Other tools still go ahead.
      expect(runPreToolUse(ws, sampleInput('PreToolUse')).result.cancel).toBe(false)
    }, 60000)
  }

  testIf(!isWindows || powerShellRunsScripts(), 'this PowerShell runs no scripts (Wine)', 'a newcomer: init PreToolUse, edit nothing, run it: allowed', () => {
    const ws = makeTempDir('cline-hooks-init-')
    const init = cli(['init', 'PreToolUse'], { cwd: ws })
    expect(init.status).toBe(0)
    expect(init.stdout).toContain(`Wrote ${path.join('.clinerules', 'hooks', hookFile)}`)
    const run = cli(['run', 'PreToolUse', '--workspace', '.', '--no-global'], { cwd: ws })
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('✔ allowed')
    const doctor = cli(['doctor', '--workspace', '.', '--no-global'], { cwd: ws })
    expect(doctor.status).toBe(0)
  }, 60000)

  test('--profile cli --lang node writes PreToolUse.js, which the cli profile runs', () => {
    const ws = makeTempDir('cline-hooks-init-')
    const r = cli(['init', 'tool_call', '--workspace', ws, '--profile', 'cli', '--lang', 'node'])
    expect(r.status).toBe(0)
    expect(fs.existsSync(path.join(ws, '.clinerules', 'hooks', 'PreToolUse.js'))).toBe(true)
    expect(r.stdout).toContain('--profile cli --input -')
    const run = runPreToolUse(ws, sampleInput('PreToolUse'), ['--profile', 'cli'])
    expect(run.status).toBe(0)
    expect(run.result.hooks.map((h) => h.status)).toEqual(['completed'])
  }, 60000)

  test('--global --global-dir writes into that folder, creating it', () => {
    const tmp = makeTempDir('cline-hooks-init-')
    const global = path.join(tmp, 'a', 'Hooks')
    const r = cli(['init', 'PreToolUse', '--global', '--global-dir', global, '--profile', 'cli', '--lang', 'node'], { cwd: tmp })
    expect(r.status).toBe(0)
    expect(fs.existsSync(path.join(global, 'PreToolUse.js'))).toBe(true)
    const run = cli(['run', 'PreToolUse', '--global-dir', global, '--profile', 'cli', '--workspace', tmp, '--json'], { cwd: tmp })
    expect(run.status).toBe(0)
    expect(JSON.parse(run.stdout).hooks.map((h) => h.source)).toEqual(['global'])
    expect(cli(['init', 'PreToolUse', '--global', '--workspace', tmp]).status).toBe(2)
  }, 60000)
})

describe('init refuses', () => {
  test('to overwrite an existing hook: exit 1, the file untouched, and what to do', () => {
    const ws = makeTempDir('cline-hooks-init-')
    const hooks = path.join(ws, '.clinerules', 'hooks')
    const file = writeFile(hooks, hookFile, 'my own hook\n', 0o755)
    const r = cli(['init', 'PreToolUse', '--workspace', ws])
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`cline-hooks: ${file} already exists; init never overwrites a hook: edit it, or move it away first to start again from the template\n`)
    expect(fs.readFileSync(file, 'utf8')).toBe('my own hook\n')
  })

  testIf(isWindows, 'Windows runs one file per hook per folder', 'Windows: a folder whose PreToolUse.cmd exists gets no PreToolUse.ps1 beside it', () => {
    const ws = makeTempDir('cline-hooks-init-')
    const cmd = writeFile(path.join(ws, '.clinerules', 'hooks'), 'PreToolUse.cmd', '@echo {}\r\n')
    const r = cli(['init', 'PreToolUse', '--workspace', ws])
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(`${cmd} is already the PreToolUse hook of that folder`)
    expect(fs.existsSync(path.join(ws, '.clinerules', 'hooks', 'PreToolUse.ps1'))).toBe(false)
  })

  test('an unknown hook name, naming the closest: exit 2, nothing written', () => {
    const ws = makeTempDir('cline-hooks-init-')
    for (const [name, closest] of [['PretoolUse', 'PreToolUse'], ['TaskStrat', 'TaskStart'], ['tool_cal', 'tool_call']]) {
      const r = cli(['init', name, '--workspace', ws])
      expect(r.status).toBe(2)
      expect(r.stderr).toContain(`'${name}' is not a hook Cline fires; did you mean ${closest}?`)
    }
    expect(cli(['init', 'Whatever', '--workspace', ws]).stderr).not.toContain('did you mean')
    expect(cli(['init', '--workspace', ws]).status).toBe(2)
    expect(cli(['init', 'PreToolUse', '--lang', 'ruby', '--workspace', ws]).status).toBe(2)
    const typo = cli(['init', 'PreToolUse', '--workspace', path.join(ws, 'no-such-root')])
    expect(typo.status).toBe(2)
    expect(typo.stderr).toContain('no-such-root: no such directory; create it first')
    expect(fs.existsSync(path.join(ws, 'no-such-root'))).toBe(false)
    expect(fs.existsSync(path.join(ws, '.clinerules'))).toBe(false)
  })

  // Issue 32 item 10: a cloned repository's links must not make init write or chmod outside it.
  const NO_LINKS = 'symbolic links need privileges on Windows, and Wine makes none'

  /** A workspace and, outside it, a folder holding one file of the user's (mode 0644). */
  function workspaceAndOutside() {
    const ws = makeTempDir('cline-hooks-init-')
    const outside = makeTempDir('cline-hooks-outside-')
    const mine = writeFile(outside, 'PreToolUse', 'the user\'s own file\n', 0o644)
    return { ws, outside, mine }
  }
  const listing = (dir) => fs.readdirSync(dir).sort()

  testIf(!isWindows, NO_LINKS, '.clinerules or .clinerules/hooks linked outside the workspace: exit 2 naming the link, nothing written or chmod-ed there', () => {
    for (const linked of ['.clinerules', path.join('.clinerules', 'hooks')]) {
      const { ws, outside, mine } = workspaceAndOutside()
      fs.mkdirSync(path.dirname(path.join(ws, linked)), { recursive: true })
      fs.symlinkSync(outside, path.join(ws, linked))
      // .clinerules -> outside: init would make outside/hooks; .clinerules/hooks -> outside: it would open outside/PreToolUse.
      if (linked === '.clinerules') fs.mkdirSync(path.join(outside, 'hooks'))
      const before = listing(outside)
      const r = cli(['init', 'PreToolUse', '--workspace', ws])
      expect({ linked, status: r.status }).toEqual({ linked, status: 2 })
      expect(r.stderr).toBe(
        `cline-hooks: ${path.join(ws, linked)} is a symbolic link to ${fs.realpathSync(outside)}, outside the workspace ${ws}; ` +
          'init writes only inside it: remove the link (or point it inside) and run init again\n',
      )
      expect(listing(outside)).toEqual(before)
      if (linked === '.clinerules') expect(listing(path.join(outside, 'hooks'))).toEqual([])
      expect(fs.readFileSync(mine, 'utf8')).toBe('the user\'s own file\n')
      expect(fs.statSync(mine).mode & 0o777).toBe(0o644)
    }
  })

  testIf(!isWindows, NO_LINKS, 'the hook file itself a link out of the workspace (or the global folder), even to nothing: exit 2 naming it, the target untouched', () => {
    const { ws, outside, mine } = workspaceAndOutside()
    const hooks = path.join(ws, '.clinerules', 'hooks')
    fs.mkdirSync(hooks, { recursive: true })
    fs.symlinkSync(mine, path.join(hooks, 'PreToolUse'))
    let r = cli(['init', 'PreToolUse', '--workspace', ws])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`${path.join(hooks, 'PreToolUse')} is a symbolic link to ${fs.realpathSync(mine)}, outside the workspace ${ws}`)
    expect(fs.readFileSync(mine, 'utf8')).toBe('the user\'s own file\n')
    expect(fs.statSync(mine).mode & 0o777).toBe(0o644)

    // A link to a file not there yet: following it would create the file outside.
    const global = makeTempDir('cline-hooks-global-')
    const absent = path.join(outside, 'not-yet')
    fs.symlinkSync(absent, path.join(global, 'PreToolUse'))
    r = cli(['init', 'PreToolUse', '--global', '--global-dir', global])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`${path.join(global, 'PreToolUse')} is a symbolic link to ${path.join(fs.realpathSync(outside), 'not-yet')}, outside the global hooks folder ${global}`)
    expect(fs.existsSync(absent)).toBe(false)
  })

  testIf(!isWindows, NO_LINKS, 'links that stay inside the workspace, and a global folder that is itself a link (the user named it), are written through', () => {
    const ws = makeTempDir('cline-hooks-init-')
    fs.mkdirSync(path.join(ws, 'config', 'rules'), { recursive: true })
    fs.symlinkSync(path.join(ws, 'config', 'rules'), path.join(ws, '.clinerules'))
    let r = cli(['init', 'PreToolUse', '--workspace', ws])
    expect(r.status).toBe(0)
    expect(fs.statSync(path.join(ws, 'config', 'rules', 'hooks', 'PreToolUse')).mode & 0o100).toBe(0o100)

    const real = makeTempDir('cline-hooks-global-')
    const named = path.join(makeTempDir(), 'Hooks')
    fs.symlinkSync(real, named)
    r = cli(['init', 'PreToolUse', '--global', '--global-dir', named])
    expect(r.status).toBe(0)
    expect(listing(real)).toEqual(['PreToolUse'])
  })

  testIf(!isWindows, 'no exec bit on Windows', 'a umask that takes the owner\'s exec bit: the new hook is still executable (set on the file it wrote)', () => {
    const ws = makeTempDir('cline-hooks-init-')
    const r = spawnSync('sh', ['-c', 'umask 177 && exec "$0" "$@"', process.execPath, CLI, 'init', 'PreToolUse', '--workspace', ws], {
      encoding: 'utf8',
      env: cliEnv({ NO_COLOR: '1' }),
    })
    expect(r.status).toBe(0)
    expect(fs.statSync(path.join(ws, '.clinerules', 'hooks', 'PreToolUse')).mode & 0o777).toBe(0o700)
  })

  test('a language the platform would not run: Windows runs .ps1, not .py, in the extension profile', () => {
    expect(() => fileFor('PreToolUse', 'python', 'extension', true)).toThrow(/so a python hook would never run; use --lang powershell/)
    expect(fileFor('PreToolUse', 'powershell', 'extension', true)).toEqual({ name: 'PreToolUse.ps1', shebang: false })
    expect(fileFor('PreToolUse', 'python', 'extension', false)).toEqual({ name: 'PreToolUse', shebang: true })
    expect(fileFor('PreToolUse', 'python', 'cli', true)).toEqual({ name: 'PreToolUse.py', shebang: false })
    expect(fileFor('PreToolUse', 'bash', 'cli', false)).toEqual({ name: 'PreToolUse.sh', shebang: true })
  })
})

test('every template documents every input field of its hook and the verdict fields', () => {
  for (const hook of Object.keys(HOOKS)) {
    for (const lang of ['bash', 'python', 'node', 'powershell']) {
      const text = template(hook, lang, { file: hook, shebang: true })
      for (const [member] of HOOKS[hook].members) expect(text).toContain(`${inputKey(hook)}.${member}`)
      for (const [field] of [...COMMON_FIELDS, ...OUTPUT_FIELDS]) expect(text).toContain(field)
      expect(text).toContain(EXAMPLE_START)
      expect(text).toContain(EXAMPLE_END)
    }
  }
})
