'use strict'

// What an attack on issue 15's promises about instant discovery, `doctor` / `diagnoseHooks`
// and `init` broke: each test failed before its fix, and names the promise it holds.

const fs = require('fs')
const path = require('path')
const { spawnSync } = require('child_process')

const { addon, testUnix, makeTempDir, writeFile, cliEnv, opts, nodeSync } = require('./helpers')

const { HookFactory, diagnoseHooks, runHook, discoverHooks } = addon
const CLI = path.join(__dirname, '..', 'bin', 'cline-hooks.js')

jest.setTimeout(60000)

function workspace() {
  const ws = makeTempDir('cline-hooks-attack-b-')
  const hooks = path.join(ws, '.clinerules', 'hooks')
  fs.mkdirSync(hooks, { recursive: true })
  return { ws, hooks }
}

const entryOf = (report, file) => report.hooks.find((h) => h.path === file)

describe('doctor / diagnoseHooks say what really runs', () => {
  testUnix('a hook without a #! line runs (the system hands it to /bin/sh) and its cancel: true blocks, and doctor says it will run', async () => {
    const { ws, hooks } = workspace()
    const file = writeFile(hooks, 'PreToolUse', 'echo \'{"cancel": true, "errorMessage": "blocked"}\'\n', 0o755)

    const run = await runHook('PreToolUse', {}, opts({ workspaceRoots: [ws] }))
    const report = await diagnoseHooks(opts({ workspaceRoots: [ws] }))
    const entry = entryOf(report, file)

    // What really happens: the runtime starts it (with /bin/sh) and it blocks.
    expect(run.cancel).toBe(true)
    // So doctor must not say it will not run (README: "explains every file ... that will not run").
    expect({ willRun: entry.willRun, problem: entry.problem }).toEqual({ willRun: true, problem: undefined })
  })

  for (const [what, make] of [
    ['a directory', (tmp) => tmp],
    ['a file without the exec bit', (tmp) => writeFile(tmp, 'not-a-program', 'x\n', 0o644)],
    ['a FIFO', (tmp) => {
      const fifo = path.join(tmp, 'fifo')
      spawnSync('mkfifo', [fifo])
      return fifo
    }],
  ]) {
  testUnix(`a #! line naming ${what}, which every run fails to start, is a mistake in doctor`, async () => {
    const { ws, hooks } = workspace()
    const interp = make(makeTempDir('cline-hooks-attack-b-interp-'))
    const file = writeFile(hooks, 'PreToolUse', `#!${interp}\n`, 0o755)

    const run = await runHook('PreToolUse', {}, opts({ workspaceRoots: [ws] }))
    expect(run.hooks[0].failureKind).toBe('startFailure')

    const report = await diagnoseHooks(opts({ workspaceRoots: [ws] }))
    const entry = entryOf(report, file)
    expect(entry.willRun).toBe(false)
    expect(report.mistakes).toBeGreaterThan(0)
  })
  }

  testUnix('a bare #!/usr/bin/env line (env starts the hook itself again and again) is a mistake in doctor', async () => {
    const { ws, hooks } = workspace()
    const file = writeFile(hooks, 'PreToolUse', '#!/usr/bin/env\necho {}\n', 0o755)
    const entry = entryOf(await diagnoseHooks(opts({ workspaceRoots: [ws] })), file)
    expect(entry.willRun).toBe(false)
    expect(entry.problem).toBe('missingInterpreter')
    expect(entry.reason).toMatch(/with no program to find, so env starts the hook itself again/)
  })

  testUnix('an executable hook its user cannot read (chmod 711), which each run fails, is a mistake in doctor', () => {
    const { ws, hooks } = workspace()
    // The workspace's own folders traversable by others (the temp folder above it already is).
    for (const d of [ws, path.join(ws, '.clinerules'), hooks]) fs.chmodSync(d, 0o755)
    writeFile(hooks, 'PreToolUse', '#!/bin/sh\necho \'{"cancel": true}\'\n', 0o711)
    // As root every file is readable: run the check as nobody then.
    const asUser = process.getuid() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []
    const script = `const a = require(${JSON.stringify(path.join(__dirname, '..'))});
      const o = { workspaceRoots: [${JSON.stringify(ws)}], globalHooksDir: null };
      Promise.all([a.runHook('PreToolUse', {}, o), a.diagnoseHooks(o)]).then(([run, rep]) => {
        const e = rep.hooks.find((h) => h.hookName === 'PreToolUse');
        console.log(JSON.stringify({ status: run.hooks[0].status, willRun: e.willRun }));
      })`
    const argv = [...asUser, process.execPath, '-e', script]
    const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 30000, env: cliEnv({ HOME: ws }) })
    const got = JSON.parse(r.stdout)
    expect(got.status).toBe('failed')
    expect(got.willRun).toBe(false)
  })

  testUnix('a file named with a line break gets no command to paste (it would name another file), but the words to rename it by hand; a name with a printable backslash gets a command that works', () => {
    const { ws, hooks } = workspace()
    writeFile(hooks, 'Task\nComplete', '#!/bin/sh\n', 0o755) // a real line break
    writeFile(hooks, 'Task\\nComplete', '#!/bin/sh\n', 0o755) // a backslash and an n
    const r = nodeSync([CLI, 'doctor', '--workspace', ws, '--no-global'], {
      encoding: 'utf8',
      timeout: 30000,
      env: cliEnv({ NO_COLOR: '1' }),
    })
    const fixes = r.stdout.split('\n').filter((l) => /^\s+fix\s/.test(l)).map((l) => l.replace(/^\s+fix\s+/, ''))
    expect(fixes).toHaveLength(2)
    const commands = fixes.filter((f) => f.startsWith('mv '))
    expect(commands).toHaveLength(1)
    expect(fixes.filter((f) => /rename it by hand/.test(f))).toHaveLength(1)
    // The one command, pasted into bash, moves the backslash file and leaves the other alone.
    const pasted = spawnSync('bash', ['-c', commands[0]], { encoding: 'utf8' })
    expect(pasted.status).toBe(0)
    expect(fs.existsSync(path.join(hooks, 'Task\\nComplete'))).toBe(false)
    expect(fs.existsSync(path.join(hooks, 'Task\nComplete'))).toBe(true)
  })

  testUnix('a file whose name is not UTF-8 (reported with U+FFFD, as JavaScript strings hold it) gets no command to paste, which would name no file, but the words to rename it by hand', async () => {
    const { ws, hooks } = workspace()
    const raw = Buffer.concat([Buffer.from(hooks + '/PreToolUse'), Buffer.from([0xff])])
    fs.writeFileSync(raw, '#!/bin/sh\n', { mode: 0o755 })
    const report = await diagnoseHooks(opts({ workspaceRoots: [ws] }))
    const entry = report.hooks.find((h) => h.path.startsWith(path.join(hooks, 'PreToolUse')))
    expect(entry.problem).toBe('unknownHookName')
    expect(entry.fix).toMatch(/^its name holds a control character or bytes that are not UTF-8, .*rename it by hand/)
  })
})

describe('a file where the hooks folder should be', () => {
  const layout = () => {
    const ws = makeTempDir('cline-hooks-attack-b-')
    writeFile(path.join(ws, '.clinerules'), 'hooks', '#!/bin/sh\necho {}\n', 0o755)
    return ws
  }
  const cli = (args) => nodeSync([CLI, ...args], { encoding: 'utf8', timeout: 30000, env: cliEnv({ NO_COLOR: '1' }) })

  testUnix('doctor names .clinerules/hooks that is a file as the problem, and exits 1', () => {
    const ws = layout()
    const r = cli(['doctor', '--workspace', ws, '--no-global'])
    expect(r.stdout).not.toMatch(/\.clinerules\/hooks \(not there\)/)
    expect(r.stdout).toMatch(/hooks is a file, not a folder, so no hook in it can run/)
    expect(r.status).toBe(1)
  })

  testUnix('init says .clinerules/hooks is a file (not that PreToolUse exists)', () => {
    const ws = layout()
    const r = cli(['init', 'PreToolUse', '--workspace', ws])
    expect(fs.existsSync(path.join(ws, '.clinerules', 'hooks', 'PreToolUse'))).toBe(false)
    expect(r.stderr).not.toMatch(/already exists/)
    expect(r.stderr).toMatch(/hooks is a file, not a folder, so no hook can be written in it/)
    expect(r.status).toBe(2)
  })
})

describe('doctor on a big folder', () => {
  testUnix('cline-hooks doctor on a hooks folder of 100,000 files answers (no internal error from a spread past the call stack)', () => {
    const { ws, hooks } = workspace()
    for (let i = 0; i < 100000; i++) fs.writeFileSync(path.join(hooks, `f${i}`), '')
    const r = nodeSync([CLI, 'doctor', '--workspace', ws, '--no-global'], {
      encoding: 'utf8',
      timeout: 60000,
      maxBuffer: 1 << 30,
      env: cliEnv({ NO_COLOR: '1' }),
    })
    expect(r.stderr).not.toMatch(/internal error/)
    expect(r.status).toBe(0)
  }, 120000)
})

describe('instant discovery of a folder replaced from above', () => {
  testUnix('a symlinked hooks folder retargeted (ln -sfn) is seen by the very next call', async () => {
    const ws = makeTempDir('cline-hooks-attack-b-')
    fs.mkdirSync(path.join(ws, '.clinerules'))
    const empty = makeTempDir('cline-hooks-attack-b-empty-')
    const full = makeTempDir('cline-hooks-attack-b-full-')
    writeFile(full, 'PreToolUse', '#!/bin/sh\necho {}\n', 0o755)
    const link = path.join(ws, '.clinerules', 'hooks')
    fs.symlinkSync(empty, link)
    const factory = new HookFactory(opts({ workspaceRoots: [ws] }))
    expect(await factory.hasHook('PreToolUse')).toBe(false)

    const stale = []
    for (let i = 0; i < 50; i++) {
      fs.unlinkSync(link)
      fs.symlinkSync(full, link)
      if (!(await factory.hasHook('PreToolUse'))) stale.push(`retarget to full #${i}`)
      fs.unlinkSync(link)
      if (await factory.hasHook('PreToolUse')) stale.push(`link removed #${i}`)
      fs.symlinkSync(empty, link)
      await factory.refresh()
    }
    // discoverHooks from a fresh call agrees with the filesystem at once; the factory must too.
    expect((await discoverHooks('PreToolUse', opts({ workspaceRoots: [ws] }))).length).toBe(0)
    expect(stale).toEqual([])
  })

  testUnix('a workspace root deleted and made again with its hooks (rm -rf ws && git clone) is seen by the very next call', async () => {
    const base = makeTempDir('cline-hooks-attack-b-')
    const ws = path.join(base, 'ws')
    const hooks = path.join(ws, '.clinerules', 'hooks')
    fs.mkdirSync(hooks, { recursive: true })
    const factory = new HookFactory(opts({ workspaceRoots: [ws] }))
    expect(await factory.hasHook('PreToolUse')).toBe(false)
    const stale = []
    for (let i = 0; i < 20; i++) {
      fs.rmSync(ws, { recursive: true })
      expect(await factory.hasHook('PreToolUse')).toBe(false)
      writeFile(hooks, 'PreToolUse', '#!/bin/sh\necho {}\n', 0o755)
      if (!(await factory.hasHook('PreToolUse'))) stale.push(i)
    }
    expect(stale).toEqual([])
  })
})
