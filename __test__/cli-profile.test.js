'use strict'

// Issue 7: the Cline CLI's file-hook conventions (`profile: 'cli'`): folders, file names,
// interpreters, event-name aliases, the extra output fields, detached runs, and the example
// hooks of the SDK README (../shared/reference/001) run with the payloads shown there.
//
// Written once for macOS/Linux and Windows (issue 12). The cli profile runs only its own file
// kinds on every platform (no extension or one of .sh .bash .zsh .js .mjs .cjs .ts .mts .cts .py
// .ps1): the `.cmd` that writeProgram writes on Windows and the `.exe` of writeQuickHook are not
// cli-profile hooks. So a test's cli-profile hook is a `.cjs` file (writeCliProgram below), which
// the profile runs with the host's own Node on every platform; extension-profile hooks are
// written with writeProgram. What needs bash, jq, python or bun runs where they are, and is
// skipped elsewhere saying which one is missing.

const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawn, spawnSync } = require('child_process')

const {
  addon,
  isWindows,
  describeUnix,
  testUnix,
  testIf,
  makeTempDir,
  writeFile,
  writeProgram,
  printJson,
  readInputThen,
  waitForFile,
  waitForPid,
  trackPid,
  opts,
  envWith,
  expectCompleted,
  nodeSync,
} = require('./helpers')

const { runHook, discoverHooks, HookFactory } = addon

const ROOT = path.resolve(__dirname, '..')

/** Options for the CLI profile with the user's own folders kept out. */
function cli(extra = {}) {
  return opts({ profile: 'cli', clineDir: path.join(makeTempDir(), 'no-cline-dir'), ...extra })
}

/**
 * Writes the cli profile's hook `<dir>/<hook>.cjs` (dir created as needed) as the JavaScript
 * program `source`, and returns its path. The profile starts `.cjs` files with the host's own
 * Node (process.execPath) on every platform, with no `#!` line and no exec bit.
 */
function writeCliProgram(dir, hook, source) {
  return writeFile(dir, `${hook}.cjs`, source)
}

/**
 * The program `name` on PATH as the package finds it: on macOS/Linux an executable file
 * (its real path); on Windows `name.com`, `.exe`, `.bat` or `.cmd`, the kinds Windows starts.
 */
function onPath(name, pathEnv = process.env.PATH || process.env.Path || '') {
  for (const dir of pathEnv.split(path.delimiter).filter(Boolean)) {
    const candidates = isWindows ? ['.com', '.exe', '.bat', '.cmd'].map((ext) => path.join(dir, `${name}${ext}`)) : [path.join(dir, name)]
    for (const file of candidates) {
      try {
        if (isWindows) {
          if (fs.statSync(file).isFile()) return file
        } else {
          fs.accessSync(file, fs.constants.X_OK)
          return fs.realpathSync(file)
        }
      } catch {
        // not here
      }
    }
  }
  return null
}

/** The argv prefix the cli profile runs `.py` hooks with: python3; on Windows `py -3`, else python. */
function pythonArgv() {
  if (!isWindows) return onPath('python3') ? [onPath('python3')] : null
  if (onPath('py')) return [onPath('py'), '-3']
  return onPath('python') ? [onPath('python')] : null
}
const NO_PYTHON = isWindows ? 'Python 3 is not on PATH (py -3 or python)' : 'python3 is not on PATH'

/** This process's PATH with `dir` put first. */
function pathWith(dir) {
  return `${dir}${path.delimiter}${process.env.PATH || process.env.Path || ''}`
}

/** bun, if this machine has it: on PATH, or installed from npm by .ci/run. */
function findBun() {
  const candidates = [
    process.env.CLINE_HOOKS_TEST_BUN,
    onPath('bun'),
    path.join(ROOT, '.ci-cache', 'bun', 'node_modules', '@oven', 'bun-linux-x64-baseline', 'bin', 'bun'),
    path.join(ROOT, '.ci-cache', 'bun', 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun'),
  ]
  return candidates.find((c) => c && fs.existsSync(c)) || null
}

// -------------------------------------------------------------------------------------------
// The SDK README's example hooks and payloads, verbatim.

const SDK = {
  logToolCalls: `#!/usr/bin/env bash
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_call.name')
echo "Action: $tool" >&2
echo '{}'
`,
  branchContext: `#!/usr/bin/env bash
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_call.name')
if [ "$tool" = "run_commands" ]; then
branch=$(git branch --show-current 2>/dev/null)
echo "{\\"context\\": \\"Current branch: $branch\\"}"
else
echo '{}'
fi
`,
  // One fix to the README's version: there `[[ $file == ~/* ]]` tilde-expands the pattern to
  // $HOME/*, so a literal "~/..." path never matched; the tilde is quoted here.
  rewriteHomePath: `#!/usr/bin/env bash
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_call.name')
file=$(echo "$input" | jq -r '.tool_call.input.filePath')
if [ "$tool" = "read_files" ] && [[ $file == "~/"* ]]; then
normalized="\${file/#\\~/$HOME}"
echo "{\\"overrideInput\\": {\\"filePath\\": \\"$normalized\\"}}"
else
echo '{}'
fi
`,
  blockForcePush: `#!/usr/bin/env bash
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_call.name')
cmd=$(echo "$input" | jq -r '.tool_call.input.command // empty')
if [ "$tool" = "run_commands" ] && [[ $cmd =~ git\\ push\\ --force ]]; then
echo '{"cancel": true, "errorMessage": "Force push is blocked."}'
else
echo '{}'
fi
`,
  requireReview: `#!/usr/bin/env bash
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_call.name')
file=$(echo "$input" | jq -r '.tool_call.input.filePath // empty')
if ([ "$tool" = "editor" ] || [ "$tool" = "write_file" ]) && \\
[[ $file =~ (package\\.json|\\.env|secrets|tsconfig) ]]; then
echo '{"review": true, "context": "This will modify a critical file"}'
else
echo '{}'
fi
`,
  pythonContext: `#!/usr/bin/env python3
import sys
import json
event = json.load(sys.stdin)
tool_name = event.get("tool_call", {}).get("name", "")
tool_input = event.get("tool_call", {}).get("input", {})
if tool_name == "read_files":
    file_path = tool_input.get("filePath", "")
    if file_path.endswith(".test.ts"):
        print(json.dumps({"context": "This is a test file"}))
    else:
        print(json.dumps({}))
else:
    print(json.dumps({}))
`,
  typescript: `#!/usr/bin/env bun
interface HookEvent {
tool_call: { name: string; input: Record<string, unknown> };
}
const event: HookEvent = JSON.parse(await Bun.stdin.text());
const toolName = event.tool_call.name;
if (toolName === "run_commands") {
const branch = await getGitBranch();
console.log(JSON.stringify({ context: \`Branch: \${branch}\` }));
} else {
console.log(JSON.stringify({}));
}
async function getGitBranch(): Promise<string> {
return "main";
}
`,
}

/**
 * The same example hooks as JavaScript (`PreToolUse.cjs`, run by the host's own Node), line for
 * line what the bash ones do, so their verdicts are checked on every platform. The branch hook
 * reads `.git/HEAD` of the folder it runs in (what `git branch --show-current` prints there).
 */
const SDK_JS = {
  logToolCalls: readInputThen(`const event = JSON.parse(input)
process.stderr.write('Action: ' + event.tool_call.name + '\\n')
console.log('{}')`),
  branchContext: readInputThen(`const event = JSON.parse(input)
if (event.tool_call.name === 'run_commands') {
  let branch = ''
  try {
    branch = require('fs').readFileSync('.git/HEAD', 'utf8').trim().replace(/^ref: refs\\/heads\\//, '')
  } catch {}
  console.log(JSON.stringify({ context: 'Current branch: ' + branch }))
} else {
  console.log('{}')
}`),
  rewriteHomePath: readInputThen(`const event = JSON.parse(input)
const file = (event.tool_call.input || {}).filePath
if (event.tool_call.name === 'read_files' && typeof file === 'string' && file.startsWith('~/')) {
  console.log(JSON.stringify({ overrideInput: { filePath: process.env.HOME + file.slice(1) } }))
} else {
  console.log('{}')
}`),
  blockForcePush: readInputThen(`const event = JSON.parse(input)
const cmd = (event.tool_call.input || {}).command || ''
if (event.tool_call.name === 'run_commands' && /git push --force/.test(cmd)) {
  console.log('{"cancel": true, "errorMessage": "Force push is blocked."}')
} else {
  console.log('{}')
}`),
  requireReview: readInputThen(`const event = JSON.parse(input)
const tool = event.tool_call.name
const file = (event.tool_call.input || {}).filePath || ''
if ((tool === 'editor' || tool === 'write_file') && /(package\\.json|\\.env|secrets|tsconfig)/.test(file)) {
  console.log('{"review": true, "context": "This will modify a critical file"}')
} else {
  console.log('{}')
}`),
}

/** The SDK README's PreToolUse payload, with a tool of our choosing. */
function toolCall(name, input) {
  return {
    hookName: 'tool_call',
    clineVersion: '1.0.0',
    timestamp: '2026-01-15T10:30:00Z',
    taskId: 'conv-123',
    workspaceRoots: ['/path/to/repo'],
    userId: 'user',
    iteration: 1,
    tool_call: { id: 'call-456', name, input },
  }
}

/** Writes `body` as `<root>/.cline/hooks/<file>` and runs `event` with `input` there. */
async function runSdkHook(file, body, event, input, extra = {}) {
  const root = makeTempDir('cline-hooks-cli-ws-')
  writeFile(path.join(root, '.cline', 'hooks'), file, body, 0o755)
  const result = await runHook(event, input, cli({ workspaceRoots: [root], ...extra }))
  expect(result.hooks).toHaveLength(1)
  return { result, exec: result.hooks[0], root }
}

/**
 * The example hooks' tests, written once for both forms: `file` is the hook's file name,
 * `hooks` its bodies, `onBranch(root, branch)` makes `root` a repository on `branch`.
 */
function sdkExampleTests({ file, hooks, onBranch }) {
  test(`${file} logs every tool call to stderr and allows`, async () => {
    const { result, exec } = await runSdkHook(file, hooks.logToolCalls, 'tool_call', toolCall('read_files', { filePath: '/path/to/file.ts' }))
    expectCompleted(exec)
    expect(exec.stderr).toBe('Action: read_files\n')
    expect(result.cancel).toBe(false)
    expect(exec.output).toEqual({})
  })

  test('the branch-context hook adds "Current branch: <branch>" for run_commands, nothing otherwise', async () => {
    const root = makeTempDir('cline-hooks-cli-git-')
    onBranch(root, 'feature/hooks')
    writeFile(path.join(root, '.cline', 'hooks'), file, hooks.branchContext, 0o755)
    const options = cli({ workspaceRoots: [root] })
    const onCommand = await runHook('tool_call', toolCall('run_commands', { command: 'ls' }), options)
    expect(onCommand.contextModification).toBe('Current branch: feature/hooks')
    const onRead = await runHook('tool_call', toolCall('read_files', { filePath: 'a.ts' }), options)
    expect(onRead.contextModification).toBe('')
  })

  test('the force-push hook blocks `git push --force` with its message and lets `git push` through', async () => {
    const root = makeTempDir('cline-hooks-cli-ws-')
    writeFile(path.join(root, '.cline', 'hooks'), file, hooks.blockForcePush, 0o755)
    const options = cli({ workspaceRoots: [root] })
    const blocked = await runHook('tool_call', toolCall('run_commands', { command: 'git push --force origin main' }), options)
    expect(blocked).toMatchObject({ cancel: true, errorMessage: 'Force push is blocked.' })
    const allowed = await runHook('tool_call', toolCall('run_commands', { command: 'git push origin main' }), options)
    expect(allowed).toMatchObject({ cancel: false, errorMessage: '' })
  })

  test('the review hook asks for review (with context) on critical files only', async () => {
    const root = makeTempDir('cline-hooks-cli-ws-')
    writeFile(path.join(root, '.cline', 'hooks'), file, hooks.requireReview, 0o755)
    const options = cli({ workspaceRoots: [root] })
    const critical = await runHook('tool_call', toolCall('write_file', { filePath: 'package.json' }), options)
    expect(critical).toMatchObject({ review: true, cancel: false, contextModification: 'This will modify a critical file' })
    const plain = await runHook('tool_call', toolCall('write_file', { filePath: 'src/a.ts' }), options)
    expect(plain).toMatchObject({ review: false, contextModification: '' })
  })

  test('the ~/ path hook rewrites the tool input with overrideInput', async () => {
    const home = makeTempDir('cline-hooks-home-')
    const { result } = await runSdkHook(
      file,
      hooks.rewriteHomePath,
      'tool_call',
      toolCall('read_files', { filePath: '~/notes/todo.md' }),
      { env: { HOME: home } },
    )
    expect(result.overrideInput).toEqual({ filePath: `${home}/notes/todo.md` })
    const untouched = await runSdkHook(file, hooks.rewriteHomePath, 'tool_call', toolCall('read_files', { filePath: '/etc/hosts' }))
    expect(untouched.result.overrideInput).toBeNull()
  })
}

describeUnix(
  'CLI profile: the SDK README example hooks, with its payloads',
  () =>
    sdkExampleTests({
      file: 'PreToolUse.sh',
      hooks: SDK,
      onBranch: (root, branch) => {
        const git = spawnSync('git', ['init', '-q', '-b', branch, root], { encoding: 'utf8' })
        expect(git.status).toBe(0)
      },
    }),
  { reason: 'the SDK README examples are bash scripts that pipe JSON through jq; their .cjs translations below run there' },
)

describe('CLI profile: the SDK README example hooks as .cjs programs, with its payloads', () =>
  sdkExampleTests({
    file: 'PreToolUse.cjs',
    hooks: SDK_JS,
    onBranch: (root, branch) => writeFile(path.join(root, '.git'), 'HEAD', `ref: refs/heads/${branch}\n`),
  }))

describe('CLI profile: the SDK README Python and TypeScript examples', () => {
  testIf(pythonArgv(), NO_PYTHON, 'the Python context hook (PreToolUse.py, no exec bit needed) marks test files', async () => {
    const root = makeTempDir('cline-hooks-cli-ws-')
    writeFile(path.join(root, '.cline', 'hooks'), 'PreToolUse.py', SDK.pythonContext, 0o644)
    const options = cli({ workspaceRoots: [root] })
    const onTest = await runHook('tool_call', toolCall('read_files', { filePath: '/path/to/file.test.ts' }), options)
    expectCompleted(onTest.hooks[0])
    expect(onTest.contextModification).toBe('This is a test file')
    const onOther = await runHook('tool_call', toolCall('read_files', { filePath: '/path/to/file.ts' }), options)
    expect(onOther.contextModification).toBe('')
  })

  // bun must be on the PATH the addon sees, and Jest gives tests a copy of process.env, so the
  // TypeScript hook runs in a child Node whose PATH holds bun.
  const bun = findBun()
  const noBun = isWindows ? 'bun is not on PATH' : 'bun is not installed: .ci/run installs it from the npm registry (@oven/bun-linux-x64-baseline)'
  testIf(bun, noBun, 'the TypeScript hook (PreToolUse.ts, #!/usr/bin/env bun) runs through bun', () => {
    const root = makeTempDir('cline-hooks-cli-ws-')
    writeFile(path.join(root, '.cline', 'hooks'), 'PreToolUse.ts', SDK.typescript, 0o644)
    writeFile(path.join(root, '.cline', 'hooks'), 'PostToolUse.ts', 'const e = JSON.parse(await Bun.stdin.text());\nconsole.log(JSON.stringify({ context: `took ${e.tool_result.durationMs} ms` }));\n')
    const script = `
      const { runHook, discoverHooks } = require(${JSON.stringify(ROOT)})
      const options = { profile: 'cli', globalHooksDir: null, clineDir: ${JSON.stringify(path.join(root, 'none'))}, workspaceRoots: [${JSON.stringify(root)}] }
      ;(async () => {
        const found = await discoverHooks('tool_result', options)
        const pre = await runHook('tool_call', ${JSON.stringify(toolCall('run_commands', { command: 'ls' }))}, options)
        const post = await runHook('tool_result', { hookName: 'tool_result', tool_result: { id: 'c', name: 'read_files', input: {}, output: 'x', error: null, durationMs: 45 } }, options)
        console.log(JSON.stringify({ argv: found[0].command, pre: [pre.hooks[0].status, pre.contextModification, pre.hooks[0].failure], post: [post.hooks[0].status, post.contextModification] }))
      })()`
    const child = nodeSync(['-e', script], {
      encoding: 'utf8',
      timeout: 30000,
      env: envWith({ PATH: pathWith(path.dirname(bun)) }),
    })
    expect(child.stderr).toBe('')
    const out = JSON.parse(child.stdout)
    // No bunfig.toml, .env or tsconfig.json of the workspace (approved-bytes.test.js); Windows: not yet.
    const guard = isWindows ? [] : ['--config=/dev/null', '--no-env-file', '--tsconfig-override=/dev/null']
    expect(out.argv).toEqual([isWindows ? bun : fs.realpathSync(bun), ...guard, path.join(root, '.cline', 'hooks', 'PostToolUse.ts')])
    expect(out.pre).toEqual(['completed', 'Branch: main', null])
    expect(out.post).toEqual(['completed', 'took 45 ms'])
  }, 40000)
})

describe('CLI profile: which folders, in which order', () => {
  test('extraHooksDirs, global, $CLINE_DIR/hooks, and per root .clinerules/hooks and .cline/hooks, run in the SDK\'s order: every file by full path, as localeCompare sorts', async () => {
    const tmp = makeTempDir()
    const extra = path.join(tmp, 'extra')
    const global = path.join(tmp, 'global')
    const clineDir = path.join(tmp, 'dot-cline')
    const roots = [path.join(tmp, 'r1'), path.join(tmp, 'r2')]
    const dirs = [
      extra,
      global,
      path.join(clineDir, 'hooks'),
      path.join(roots[0], '.clinerules', 'hooks'),
      path.join(roots[0], '.cline', 'hooks'),
      path.join(roots[1], '.clinerules', 'hooks'),
      path.join(roots[1], '.cline', 'hooks'),
    ]
    dirs.forEach((dir, i) => writeCliProgram(dir, 'PreToolUse', printJson({ contextModification: `#${i}` })))
    const options = { profile: 'cli', extraHooksDirs: [extra], globalHooksDir: global, clineDir, workspaceRoots: roots }
    const found = await discoverHooks('PreToolUse', options)
    const order = dirs.map((dir, i) => ({ dir, i, source: ['extra', 'global', 'global'][i] ?? 'workspace' }))
    order.sort((a, b) => path.join(a.dir, 'PreToolUse.js').localeCompare(path.join(b.dir, 'PreToolUse.js')))
    expect(found.map((h) => path.dirname(h.path))).toEqual(order.map((o) => o.dir))
    expect(found.map((h) => h.source)).toEqual(order.map((o) => o.source))
    const result = await runHook('tool_call', {}, options)
    expect(result.contextModification).toBe(order.map((o) => `#${o.i}`).join('\n\n'))
    // The extension profile searches only extra, global and .clinerules/hooks.
    const extension = await discoverHooks('PreToolUse', { ...options, profile: 'extension' })
    expect(extension).toEqual([])
  })

  test('$CLINE_DIR is the default data folder (read by a child Node whose environment sets it); globalHooksDir: null turns it off', () => {
    const tmp = makeTempDir()
    const clineDir = path.join(tmp, 'from-env')
    const noGlobal = path.join(tmp, 'empty-global')
    const hook = writeCliProgram(path.join(clineDir, 'hooks'), 'TaskStart', printJson({ contextModification: 'from $CLINE_DIR' }))
    const script = `
      const { runHook } = require(${JSON.stringify(ROOT)});
      const run = (globalHooksDir) => runHook('agent_start', {}, { profile: 'cli', globalHooksDir })
        .then((r) => [r.hooks.map((h) => h.path), r.contextModification]);
      Promise.all([run(${JSON.stringify(noGlobal)}), run(null)]).then((r) => console.log(JSON.stringify(r)))`
    const child = nodeSync(['-e', script], { encoding: 'utf8', timeout: 30000, env: envWith({ CLINE_DIR: clineDir }) })
    const [moved, off] = JSON.parse(child.stdout)
    expect(moved).toEqual([[hook], 'from $CLINE_DIR'])
    // --no-global: no global folder of the profile at all, $CLINE_DIR/hooks included.
    expect(off).toEqual([[], ''])
  })

  test('globalHooksDir: null also turns off an explicit clineDir\'s hooks folder', async () => {
    const tmp = makeTempDir()
    const clineDir = path.join(tmp, 'dot-cline')
    writeCliProgram(path.join(clineDir, 'hooks'), 'TaskStart', printJson({ cancel: true }))
    const root = makeTempDir('cline-hooks-cli-ws-')
    const own = writeCliProgram(path.join(root, '.cline', 'hooks'), 'TaskStart', printJson({ contextModification: 'workspace' }))
    const options = { profile: 'cli', clineDir, globalHooksDir: null, workspaceRoots: [root] }
    expect((await discoverHooks('TaskStart', options)).map((h) => [h.path, h.source])).toEqual([[own, 'workspace']])
    const result = await runHook('TaskStart', {}, options)
    expect(result).toMatchObject({ cancel: false, contextModification: 'workspace' })
    // With a global folder named, $CLINE_DIR/hooks is searched again.
    const withGlobal = await discoverHooks('TaskStart', { ...options, globalHooksDir: path.join(tmp, 'g') })
    // In the SDK's order: `dot-cline` (the temp folder's) and the workspace's, by full path.
    const expected = [[path.join(clineDir, 'hooks'), 'global'], [path.dirname(own), 'workspace']]
    expected.sort(([a], [b]) => a.localeCompare(b))
    expect(withGlobal.map((h) => [path.dirname(h.path), h.source])).toEqual(expected)
  })

  test('runHook, discoverHooks and every HookFactory follow a changed $CLINE_DIR within the snapshot freshness', () => {
    const tmp = makeTempDir()
    const [a, b] = ['a', 'b'].map((name) => {
      const dir = path.join(tmp, `cline-${name}`)
      return writeCliProgram(path.join(dir, 'hooks'), 'TaskStart', printJson({ contextModification: `from ${name}` }))
    })
    // The environment is changed inside the child (Jest sandboxes process.env); the calls
    // must agree on the folder, and all follow the change within a bounded time.
    const script = `
      const { discoverHooks, runHook, HookFactory } = require(${JSON.stringify(ROOT)});
      const options = { profile: 'cli', globalHooksDir: ${JSON.stringify(path.join(tmp, 'no-global'))} };
      const see = async (factory) => ({
        discoverHooks: (await discoverHooks('TaskStart', options)).map((h) => h.path),
        runHook: (await runHook('TaskStart', {}, options)).contextModification,
        longLivedFactory: (await factory.create('TaskStart')).hooks.map((h) => h.path),
        newFactory: (await new HookFactory(options).create('TaskStart')).hooks.map((h) => h.path),
      });
      (async () => {
        process.env.CLINE_DIR = ${JSON.stringify(path.dirname(path.dirname(a)))};
        const factory = new HookFactory(options);
        const before = await see(factory);
        process.env.CLINE_DIR = ${JSON.stringify(path.dirname(path.dirname(b)))};
        const changed = Date.now();
        let after = await see(factory);
        while (Date.now() - changed < 5000 && JSON.stringify(after).includes('cline-a')) {
          await new Promise((r) => setTimeout(r, 50));
          after = await see(factory);
        }
        console.log(JSON.stringify({ before, after, ms: Date.now() - changed }));
      })().catch((e) => { console.error(e); process.exit(1); });`
    const child = nodeSync(['-e', script], { encoding: 'utf8', timeout: 50000 })
    expect(child.stderr).toBe('')
    const { before, after } = JSON.parse(child.stdout)
    expect(before).toEqual({ discoverHooks: [a], runHook: 'from a', longLivedFactory: [a], newFactory: [a] })
    // The child kept looking for 5 s after the change (no timing asserted: `after` is what it saw).
    expect(after).toEqual({ discoverHooks: [b], runHook: 'from b', longLivedFactory: [b], newFactory: [b] })
  }, 60000)
})

describe('CLI profile: interpreters are resolved by discovery, off the JavaScript thread', () => {
  const strace = onPath('strace')
  const noStrace = process.platform === 'linux' ? 'strace is not installed' : `counted with strace, a Linux tool (this is ${process.platform})`
  testIf(strace && process.platform === 'linux', noStrace, 'warm runs make no PATH lookup on the JavaScript thread (counted with strace)', () => {
    const tmp = makeTempDir()
    writeFile(path.join(tmp, 'hooks'), 'TaskStart.sh', '#!/usr/bin/env bash\necho "{}"\n', 0o644)
    const script = `
      const { runHook } = require(${JSON.stringify(ROOT)});
      const options = { profile: 'cli', extraHooksDirs: [${JSON.stringify(path.join(tmp, 'hooks'))}], globalHooksDir: null };
      (async () => { for (let i = 0; i < 40; i++) await runHook('TaskStart', {}, options); })();`
    const trace = path.join(tmp, 'trace')
    const run = spawnSync(strace, ['-f', '-qq', '-e', 'trace=newfstatat,statx,stat,access,faccessat,faccessat2', '-o', trace, process.execPath, '-e', script], { encoding: 'utf8', timeout: 60000 })
    expect(run.status).toBe(0)
    const lines = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean)
    const main = lines[0].split(' ')[0]
    const lookups = lines.filter((l) => l.includes('/bash"'))
    // The scans (on worker threads) look bash up; the JavaScript thread never does.
    expect(lookups.length).toBeGreaterThan(0)
    expect(lookups.filter((l) => l.split(' ')[0] === main)).toEqual([])
  }, 60000)
})

describe('CLI profile: .ps1 hooks', () => {
  /** Discovers and runs TaskStart in `dir` in a child Node whose PATH is `pathEnv`. */
  function inChild(dir, pathEnv) {
    const script = `
      const { discoverHooks, runHook } = require(${JSON.stringify(ROOT)});
      (async () => {
        const options = { profile: 'cli', extraHooksDirs: [${JSON.stringify(dir)}], globalHooksDir: null };
        const found = await discoverHooks('TaskStart', options);
        const result = await runHook('TaskStart', {}, { ...options, timeoutMs: 30000 });
        console.log(JSON.stringify({ found, result }));
      })().catch((e) => { console.error(e); process.exit(1); });`
    const child = nodeSync(['-e', script], { encoding: 'utf8', timeout: 45000, env: envWith({ PATH: pathEnv }) })
    expect(child.stderr).toBe('')
    return JSON.parse(child.stdout)
  }

  const PWSH_ARGS = ['-NoLogo', '-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-File']

  /**
   * A stand-in pwsh (NOT PowerShell) in a folder of its own, answering with the argv it was
   * given as `{"argv": [...]}`: a node program on macOS/Linux; on Windows the Windows lane's
   * echo-argv.exe copied as pwsh.exe (CLINE_HOOKS_TEST_PWSH_STANDIN_DIR), null without it.
   */
  function standInPwsh() {
    if (isWindows) {
      const dir = process.env.CLINE_HOOKS_TEST_PWSH_STANDIN_DIR
      return dir ? path.join(dir, 'pwsh.exe') : null
    }
    const source = '#!/usr/bin/env node\nprocess.stdin.resume().on("end", () => console.log(JSON.stringify({ argv: [process.argv[1], ...process.argv.slice(2)] })))\n'
    return writeFile(path.join(makeTempDir(), 'bin'), 'pwsh', source, 0o755)
  }
  const noStandIn = 'needs the stand-in pwsh.exe (echo-argv.exe) that scripts/windows/test.sh builds (CLINE_HOOKS_TEST_PWSH_STANDIN_DIR is unset)'

  testIf(!isWindows || process.env.CLINE_HOOKS_TEST_PWSH_STANDIN_DIR, noStandIn, 'run with pwsh from PATH, with the same flags on every platform', () => {
    const tmp = makeTempDir()
    const pwsh = standInPwsh()
    const ps1 = writeFile(path.join(tmp, 'hooks'), 'TaskStart.ps1', '@{} | ConvertTo-Json\n', 0o644)
    const { found, result } = inChild(path.dirname(ps1), pathWith(path.dirname(pwsh)))
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ enabled: true, command: [pwsh, ...PWSH_ARGS, ps1] })
    expect(found[0].reason).toBeUndefined()
    expect(result.hooks.map((h) => h.status)).toEqual(['completed'])
    expect(result.hooks[0].output.argv).toEqual([pwsh, ...PWSH_ARGS, ps1])
  }, 60000)

  testUnix('without pwsh on PATH it is listed disabled with a reason naming pwsh and how to install it, and never started', () => {
    const tmp = makeTempDir()
    const ps1 = writeFile(path.join(tmp, 'hooks'), 'TaskStart.ps1', '@{} | ConvertTo-Json\n', 0o644)
    const withoutPwsh = (process.env.PATH || '').split(path.delimiter).filter((d) => !fs.existsSync(path.join(d, 'pwsh'))).join(path.delimiter)
    const { found, result } = inChild(path.dirname(ps1), withoutPwsh)
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ path: ps1, enabled: false, command: [] })
    expect(found[0].reason).toMatch(/pwsh, which is not on PATH; install PowerShell 7 \(https:\/\/aka\.ms\/install-powershell/)
    expect(result.hooks).toEqual([])
    expect(result.warnings).toEqual([`skipped ${ps1}: ${found[0].reason}`])
  }, 60000, { reason: 'Windows always has Windows PowerShell, which runs a .ps1 hook when pwsh is not on PATH' })
})

describe('CLI profile: which files are hooks, and how they start', () => {
  test('base name equal to the hook name in any case, no extension or a known one; other files ignored; several run in the SDK\'s order (localeCompare)', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const names = ['PreToolUse', 'PreToolUse.bash', 'pretooluse.sh', 'PRETOOLUSE.py', 'PreToolUse.zsh', 'PreToolUse.js', 'PreToolUse.mjs', 'PreToolUse.cjs', 'PreToolUse.ts', 'PreToolUse.mts', 'PreToolUse.cts', 'PreToolUse.ps1']
    for (const name of names) writeFile(dir, name, '')
    // Windows' own kinds (.cmd, .exe) are not cli-profile hooks on any platform.
    for (const ignored of ['PreToolUse.example', 'PreToolUse.md', 'PreToolUse.sh.bak', 'PreToolUseX.sh', 'PostToolUse.sh', 'PreToolUse.d', 'PreToolUse.cmd', 'PreToolUse.exe']) writeFile(dir, ignored, '')
    const found = await discoverHooks('PreToolUse', cli({ extraHooksDirs: [dir] }))
    expect(found.map((h) => path.basename(h.path))).toEqual([...names].sort((a, b) => a.localeCompare(b)))
  })

  testUnix('no exec bit is needed, and extensionless and .sh files without #! run with bash', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    writeFile(dir, 'TaskStart', 'echo "{\\"contextModification\\": \\"${BASH_VERSION:+bash}-plain\\"}"\n', 0o644)
    writeFile(dir, 'TaskStart.sh', 'echo "{\\"contextModification\\": \\"${BASH_VERSION:+bash}-sh\\"}"\n', 0o600)
    const found = await discoverHooks('agent_start', cli({ extraHooksDirs: [dir] }))
    expect(found.map((h) => h.command)).toEqual([
      [onPath('bash'), path.join(dir, 'TaskStart')],
      [onPath('bash'), path.join(dir, 'TaskStart.sh')],
    ])
    const result = await runHook('agent_start', {}, cli({ extraHooksDirs: [dir] }))
    expect(result.contextModification).toBe('bash-plain\n\nbash-sh')
  }, undefined, { reason: 'exec bits are a Unix rule, and the Windows lane has no bash' })

  // The cli profile reads the #! line on Windows too (a Unix path there names the program found
  // on PATH). node is put first on the PATH of a child Node (Jest sandboxes process.env).
  test('the #! line wins over the extension, and #!/usr/bin/env X is looked up on PATH', () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const file = writeFile(dir, 'TaskStart.sh', `#!/usr/bin/env node\n${printJson({ contextModification: 'node despite .sh' })}`)
    const pathEnv = pathWith(path.dirname(process.execPath))
    const script = `
      const { discoverHooks, runHook } = require(${JSON.stringify(ROOT)});
      const options = { profile: 'cli', extraHooksDirs: [${JSON.stringify(dir)}], globalHooksDir: null, clineDir: ${JSON.stringify(path.join(dir, 'none'))} };
      (async () => {
        const [found] = await discoverHooks('TaskStart', options);
        const result = await runHook('TaskStart', {}, options);
        console.log(JSON.stringify({ command: found.command, context: result.contextModification }));
      })().catch((e) => { console.error(e); process.exit(1); });`
    const child = nodeSync(['-e', script], { encoding: 'utf8', timeout: 45000, env: envWith({ PATH: pathEnv }) })
    expect(child.stderr).toBe('')
    const { command, context } = JSON.parse(child.stdout)
    expect(command).toEqual([onPath('node', pathEnv), file])
    expect(context).toBe('node despite .sh')
  }, 60000)

  test('.js/.mjs/.cjs run with the host\'s own Node (process.execPath)', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const js = writeFile(dir, 'TaskStart.cjs', 'let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => console.log(JSON.stringify({ context: "node " + JSON.parse(s).hookName })))\n')
    const mjs = writeFile(dir, 'TaskStart.mjs', 'console.log(JSON.stringify({ context: "esm " + process.version }))\n')
    const plain = writeFile(dir, 'TaskStart.js', 'console.log(JSON.stringify({ context: "js " + process.execPath }))\n')
    const options = cli({ extraHooksDirs: [dir] })
    const found = await discoverHooks('TaskStart', options)
    expect(found.map((h) => h.command)).toEqual([
      [process.execPath, js],
      [process.execPath, plain],
      [process.execPath, mjs],
    ])
    const result = await runHook('agent_start', {}, options)
    expect(result.contextModification).toBe(`node agent_start\n\njs ${process.execPath}\n\nesm ${process.version}`)
  })

  testIf(pythonArgv(), NO_PYTHON, '.py runs with python3 (on Windows py -3, else python)', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const py = writeFile(dir, 'TaskStart.py', 'import sys, json\nprint(json.dumps({"context": "py " + json.load(sys.stdin)["hookName"]}))\n')
    const options = cli({ extraHooksDirs: [dir] })
    const found = await discoverHooks('TaskStart', options)
    expect(found.map((h) => h.command)).toEqual([[...pythonArgv(), py]])
    const result = await runHook('agent_start', {}, options)
    expect(result.contextModification).toBe('py agent_start')
  })

  test('a TypeScript hook without bun on PATH is listed disabled with a reason naming bun, and never started', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const ts = writeFile(dir, 'TaskStart.ts', 'console.log("{}")\n')
    const found = await discoverHooks('TaskStart', cli({ extraHooksDirs: [dir] }))
    const byFile = Object.fromEntries(found.map((h) => [path.basename(h.path), h]))
    if (!onPath('bun')) {
      const why = 'TypeScript hooks run with bun, which is not on PATH; install bun (npm install -g bun) or add a #! line'
      expect(byFile['TaskStart.ts']).toMatchObject({ path: ts, enabled: false, command: [], reason: why })
      const result = await runHook('TaskStart', {}, cli({ extraHooksDirs: [dir] }))
      expect(result.hooks).toEqual([])
      expect(result.warnings).toEqual([`skipped ${ts}: ${why}`])
    }
  })

  // Issue 18 item 8: it used to be listed enabled with an empty command.
  test('a hook whose #! interpreter does not exist is listed disabled with the reason, and the others still run', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const broken = writeFile(dir, 'TaskStart.sh', '#!/nonexistent/cline-hooks-test/interp\necho "{}"\n', 0o755)
    const fine = writeCliProgram(dir, 'TaskStart', printJson({ context: 'js ran' }))
    const found = await discoverHooks('TaskStart', cli({ extraHooksDirs: [dir] }))
    const why = 'its #! line names /nonexistent/cline-hooks-test/interp, which does not exist; install it or change the #! line'
    expect(found.map((h) => [h.path, h.enabled, h.command.length > 0, h.reason])).toEqual([
      [fine, true, true, undefined],
      [broken, false, false, why],
    ])
    const result = await runHook('TaskStart', {}, cli({ extraHooksDirs: [dir] }))
    expect(result.hooks.map((h) => [h.path, h.status])).toEqual([[fine, 'completed']])
    expect(result.contextModification).toBe('js ran')
    expect(result.warnings).toEqual([`skipped ${broken}: ${why}`])
  })
})

// Issue 13: where the Cline SDK's own file-hook runner (createHookConfigFileHooks in
// @cline/core) decides, the cli profile decides the same way.
describe('CLI profile: the SDK runner\'s rules', () => {
  test('file names with blanks around the hook name, and extensions in any case, are hooks and run with their extension\'s interpreter', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    const say = (context) => printJson({ context })
    const expected = [
      [writeFile(dir, ' PreToolUse.Js', say('Js')), [process.execPath], 'Js'],
      [writeFile(dir, 'PreToolUse .cjs', say('space .cjs')), [process.execPath], 'space .cjs'],
      [writeFile(dir, 'PRETOOLUSE.CJS', say('CJS')), [process.execPath], 'CJS'],
    ]
    // Each where its interpreter is (the Windows lane has no bash).
    const bash = onPath('bash')
    if (bash) expected.push([writeFile(dir, 'pretooluse.SH', 'echo "{\\"context\\": \\"${BASH_VERSION:+bash} SH\\"}"\n'), [bash], 'bash SH'])
    if (pythonArgv()) expected.push([writeFile(dir, 'PreToolUse.PY', 'import json\nprint(json.dumps({"context": "PY"}))\n'), pythonArgv(), 'PY'])
    // Not hooks: a blank inside the name, a second extension, a dot in the stem.
    for (const name of ['Pre ToolUse.cjs', 'PreToolUse .cjs.bak', 'PreToolUse.test.cjs']) writeFile(dir, name, say(name))
    expected.sort(([a], [b]) => a.localeCompare(b))

    const options = cli({ extraHooksDirs: [dir] })
    const found = await discoverHooks('tool_call', options)
    expect(found.map((h) => [h.path, h.enabled, h.command])).toEqual(expected.map(([file, argv]) => [file, true, [...argv, file]]))
    const result = await runHook('tool_call', {}, options)
    expect(result.hooks.map((h) => [h.path, h.status])).toEqual(expected.map(([file]) => [file, 'completed']))
    expect(result.contextModification).toBe(expected.map(([, , context]) => context).join('\n\n'))
  })

  test('a hook printing both context and contextModification adds its context in the cli profile, its contextModification in the extension profile', async () => {
    const tmp = makeTempDir()
    const both = printJson({ context: 'the cli field', contextModification: 'the contract field' })
    writeCliProgram(path.join(tmp, 'cli'), 'PreToolUse', both)
    writeProgram(path.join(tmp, 'ext'), 'PreToolUse', both)
    writeCliProgram(path.join(tmp, 'control'), 'PreToolUse', `process.stdout.write('HOOK_CONTROL\\t{"contextModification": "b", "context": "a"}\\n')\n`)
    const asCli = await runHook('tool_call', {}, cli({ extraHooksDirs: [path.join(tmp, 'cli')] }))
    expect(asCli).toMatchObject({ contextModification: 'the cli field', cancel: false })
    expect(asCli.hooks.map((h) => [h.status, h.failure])).toEqual([['completed', undefined]])
    const asExtension = await runHook('tool_call', {}, opts({ extraHooksDirs: [path.join(tmp, 'ext')] }))
    expect(asExtension.contextModification).toBe('the contract field')
    const control = await runHook('tool_call', {}, cli({ extraHooksDirs: [path.join(tmp, 'control')] }))
    expect(control.contextModification).toBe('a')
  })

  test('a missing timestamp is filled as new Date().toISOString() writes it (milliseconds in the extension profile); a given one is kept', async () => {
    const tmp = makeTempDir()
    const echoTimestamp = readInputThen('console.log(JSON.stringify({ contextModification: JSON.stringify(JSON.parse(input).timestamp) }))')
    writeCliProgram(path.join(tmp, 'cli'), 'TaskStart', echoTimestamp)
    writeProgram(path.join(tmp, 'ext'), 'TaskStart', echoTimestamp)
    const before = Date.now()
    const asCli = await runHook('agent_start', {}, cli({ extraHooksDirs: [path.join(tmp, 'cli')] }))
    const asExtension = await runHook('agent_start', {}, opts({ extraHooksDirs: [path.join(tmp, 'ext')] }))
    const after = Date.now()
    const iso = JSON.parse(asCli.contextModification)
    expect(iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(new Date(iso).toISOString()).toBe(iso)
    expect(Date.parse(iso)).toBeGreaterThanOrEqual(before - 1)
    expect(Date.parse(iso)).toBeLessThanOrEqual(after + 1)
    const ms = JSON.parse(asExtension.contextModification)
    expect(ms).toMatch(/^\d+$/)
    expect(Number(ms)).toBeGreaterThanOrEqual(before - 1)
    expect(Number(ms)).toBeLessThanOrEqual(after + 1)
    for (const timestamp of ['1736654400000', '2026-01-15T10:30:00Z', 7, null]) {
      const given = await runHook('agent_start', { timestamp }, cli({ extraHooksDirs: [path.join(tmp, 'cli')] }))
      expect(given.contextModification).toBe(JSON.stringify(timestamp))
    }
  })

  test('an indented HOOK_CONTROL line carries the verdict, its cancel included', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    writeCliProgram(dir, 'PreToolUse', `process.stdout.write('checking\\r\\n \\t HOOK_CONTROL\\t{"cancel": true, "errorMessage": "indented"}  \\r\\n')
process.stdout.write('{"cancel": false, "errorMessage": "final object"}\\n')
`)
    const result = await runHook('tool_call', {}, cli({ extraHooksDirs: [dir] }))
    expect(result).toMatchObject({ cancel: true, errorMessage: 'indented' })
    expect(result.hooks.map((h) => [h.status, h.failure])).toEqual([['completed', undefined]])
  })
})

describe('CLI event names', () => {
  const ALIASES = [
    ['agent_start', 'TaskStart'],
    ['agent_resume', 'TaskResume'],
    ['prompt_submit', 'UserPromptSubmit'],
    ['tool_call', 'PreToolUse'],
    ['tool_result', 'PostToolUse'],
    ['agent_end', 'TaskComplete'],
    ['agent_error', 'TaskError'],
    ['agent_abort', 'TaskCancel'],
    ['session_shutdown', 'SessionShutdown'],
  ]

  test.each(ALIASES)('%s runs the %s hook in both profiles; hookName stays as the caller set it, or the name used', async (event, hook) => {
    const tmp = makeTempDir()
    const exec = path.join(tmp, 'exec')
    const cliDir = path.join(tmp, 'cli')
    writeProgram(exec, hook, readInputThen('console.log(JSON.stringify({ contextModification: JSON.parse(input).hookName }))'))
    const cliHook = writeCliProgram(cliDir, hook, readInputThen('console.log(JSON.stringify({ context: JSON.parse(input).hookName }))'))
    const asExtension = await runHook(event, {}, opts({ extraHooksDirs: [exec] }))
    expect(asExtension.contextModification).toBe(event)
    const asCli = await runHook(event, { hookName: 'caller-set' }, cli({ extraHooksDirs: [cliDir] }))
    expect(asCli.contextModification).toBe('caller-set')
    // A discovered hook is named after its hook; a runner keeps the name the caller used.
    const found = await discoverHooks(event, cli({ extraHooksDirs: [cliDir] }))
    expect(found.map((h) => [path.basename(h.path), h.hookName])).toEqual([[path.basename(cliHook), hook]])
    const factory = new HookFactory(cli({ extraHooksDirs: [cliDir] }))
    expect(await factory.hasHook(event)).toBe(true)
    const runner = await factory.create(event)
    expect(runner.hookName).toBe(event)
    expect((await runner.run({})).contextModification).toBe(event)
  })

  test('a near miss of an event name is rejected with the rule', async () => {
    await expect(runHook('tool_calls', {}, cli())).rejects.toMatchObject({ code: 'ERR_INVALID_HOOK_NAME' })
  })
})

describe('CLI output fields, in both profiles', () => {
  /** Writes hook `event` into `dir` as `source`, in a form `profile` runs on this platform. */
  const writeFor = (profile, dir, event, source) => (profile === 'cli' ? writeCliProgram(dir, event, source) : writeProgram(dir, event, source))

  test.each(['extension', 'cli'])('%s: review from any hook; the last overrideInput wins and a warning names the ones it replaced', async (profile) => {
    const tmp = makeTempDir()
    const dirs = ['a', 'b', 'c'].map((d) => path.join(tmp, d))
    const first = writeFor(profile, dirs[0], 'PreToolUse', printJson({ overrideInput: { filePath: 'first' } }))
    writeFor(profile, dirs[1], 'PreToolUse', printJson({ review: true, context: 'second says review' }))
    writeFor(profile, dirs[2], 'PreToolUse', printJson({ overrideInput: { filePath: 'third' } }))
    const result = await runHook('tool_call', {}, opts({ profile, extraHooksDirs: dirs, clineDir: path.join(tmp, 'none') }))
    expect(result.review).toBe(true)
    expect(result.contextModification).toBe('second says review')
    expect(result.overrideInput).toEqual({ filePath: 'third' })
    expect(result.warnings.join('\n')).toContain(first)
  })

  test('a HOOK_CONTROL<TAB> line carries the verdict; the last one wins over the final object', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    writeCliProgram(dir, 'PreToolUse', `process.stdout.write('HOOK_CONTROL\\t{"cancel": false}\\n')
process.stdout.write('HOOK_CONTROL\\t{"cancel": true, "errorMessage": "from control"}\\n')
process.stdout.write('{"cancel": false, "errorMessage": "final object"}\\n')
`)
    const result = await runHook('tool_call', {}, cli({ extraHooksDirs: [dir] }))
    expect(result).toMatchObject({ cancel: true, errorMessage: 'from control' })
  })
})

describe('detached runs (fire and forget)', () => {
  /**
   * A hook program that writes its pid to `pidFile` (when given), waits until `release` exists
   * (at most 60 s: a detached hook is never stopped by the runtime, so it must end by itself),
   * then writes "finished" to `done` and prints `{"cancel": true}`. `got` receives its input.
   */
  function waitingHook({ got, pidFile, release, done }) {
    return `const fs = require('fs')
${pidFile ? `fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))` : ''}
let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (c) => { input += c })
process.stdin.on('end', () => {
  ${got ? `fs.writeFileSync(${JSON.stringify(`${got}.part`)}, input); fs.renameSync(${JSON.stringify(`${got}.part`)}, ${JSON.stringify(got)})` : ''}
  const start = Date.now()
  const poll = () => {
    if (!fs.existsSync(${JSON.stringify(release)}) && Date.now() - start < 60000) return setTimeout(poll, 50)
    fs.writeFileSync(${JSON.stringify(done)}, 'finished\\n')
    console.log('{"cancel": true}')
  }
  poll()
})
`
  }

  test('resolve once the hooks started (status started), with their input delivered, before they finish', async () => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const got = path.join(tmp, 'got.json')
    const release = path.join(tmp, 'release')
    const done = path.join(tmp, 'done')
    const pidFile = path.join(tmp, 'pid')
    writeCliProgram(dir, 'TaskComplete', waitingHook({ got, pidFile, release, done }))
    const result = await runHook('agent_end', { taskId: 't-1' }, cli({ extraHooksDirs: [dir], detached: true }))
    expect(result.hooks.map((h) => h.status)).toEqual(['started'])
    expect(result.cancel).toBe(false)
    await waitForPid(pidFile, 30000)
    const input = JSON.parse(await waitForFile(got, 30000))
    expect(input).toMatchObject({ taskId: 't-1', hookName: 'agent_end' })
    expect(fs.existsSync(done)).toBe(false) // still running when the run resolved
    fs.writeFileSync(release, '')
    expect(await waitForFile(done, 30000)).toBe('finished')
  })

  /**
   * A host (a child Node) runs SessionShutdown detached and exits once the run resolved, while
   * its hook waits for `release`. Returns the host's exit and the hook's files.
   */
  async function hostExitsBeforeItsHook() {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    const files = { done: path.join(tmp, 'done'), release: path.join(tmp, 'release'), pidFile: path.join(tmp, 'pid') }
    writeCliProgram(dir, 'SessionShutdown', waitingHook(files))
    const script = `
      require(${JSON.stringify(ROOT)}).runHook('session_shutdown', {}, { profile: 'cli', globalHooksDir: null, clineDir: ${JSON.stringify(path.join(tmp, 'none'))}, extraHooksDirs: [${JSON.stringify(dir)}], detached: true })
        .then((r) => console.log(r.hooks[0].status))`
    const exit = await new Promise((resolve) => {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      child.stdout.on('data', (c) => (out += c))
      child.on('close', (code) => resolve({ code, out }))
    })
    return { exit, ...files }
  }

  // The hook cannot finish before the test releases it, which it does only after the host
  // exited: so the host did not wait for it (no timing asserted).
  test('a detached hook holds neither the event loop nor the exit of its host', async () => {
    const { exit, done, release, pidFile } = await hostExitsBeforeItsHook()
    expect(exit).toMatchObject({ code: 0, out: 'started\n' })
    expect(fs.existsSync(done)).toBe(false) // the host exited while its hook still waited
    // Let the hook end now (if it runs), and have it killed after the test (if it wrote its pid).
    fs.writeFileSync(release, '')
    if (fs.existsSync(pidFile)) trackPid(Number(fs.readFileSync(pidFile, 'utf8')) || 0)
  })

  test('a detached hook keeps running after its host exited, and finishes', async () => {
    const { exit, done, release, pidFile } = await hostExitsBeforeItsHook()
    expect(exit).toMatchObject({ code: 0, out: 'started\n' })
    expect(fs.existsSync(done)).toBe(false)
    await waitForPid(pidFile, 30000)
    fs.writeFileSync(release, '')
    expect(await waitForFile(done, 30000)).toBe('finished') // it was not killed with its host
  }, 90000)
})

describe('cline-hooks --profile cli on examples/cli-workspace', () => {
  const CLI = path.join(ROOT, 'bin', 'cline-hooks.js')
  const WS = path.join(ROOT, 'examples', 'cli-workspace')
  const run = (args, input) =>
    nodeSync([CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 45000, input })

  // On Windows only PostToolUse.js of the example workspace can run (no bash, python3 or zsh
  // there): the others are listed disabled, by their files.
  test('list shows the .cline/hooks files with their interpreters and leaves PreToolUse.md out', () => {
    const r = run(['list', '--profile', 'cli', '--workspace', WS, '--no-global'])
    expect(r.status).toBe(0)
    for (const file of ['PreToolUse.sh', 'PreToolUse.py', 'PreToolUse.bash', 'PreToolUse.zsh', 'PostToolUse.js', 'TaskStart.sh']) {
      expect(r.stdout).toContain(file)
    }
    expect(r.stdout).not.toContain('PreToolUse.md')
  }, 60000)

  testUnix('run tool_call blocks the force push with the example hooks (exit 1) and allows a read (exit 0)', () => {
    const blocked = run(['run', 'tool_call', '--profile', 'cli', '--workspace', WS, '--no-global', '--input', path.join(ROOT, 'examples', 'cli-inputs', 'tool_call-force-push.json')])
    expect(blocked.status).toBe(1)
    expect(blocked.stdout).toContain('Force push is blocked.')
    const allowed = run(['run', 'tool_call', '--profile', 'cli', '--workspace', WS, '--no-global', '--input', '-'], JSON.stringify(toolCall('read_files', { filePath: os.tmpdir() })))
    expect(allowed.status).toBe(0)
  }, undefined, { reason: 'the example workspace blocks force pushes with a bash script that pipes JSON through jq' })
})

// Issue 34: what the Cline SDK 0.0.86 runner gives a hook and how long it reads it, which the
// cli profile matches (e2e/file-hook-runner-parity.e2e.test.js compares them with the real SDK).
describe('CLI profile: what the SDK 0.0.86 runner gives a hook, and how long it reads it', () => {
  const report = `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify({ contextModification: JSON.stringify({ build: process.env.CLINE_BUILD_ENV ?? null, model: input.model ?? null }) }))`
  const seen = async (options, runOptions) => JSON.parse((await runHook('PreToolUse', {}, { ...options, ...runOptions })).contextModification)

  test('the run order is localeCompare\'s for folders named with any printable ASCII (40 seeded random names)', async () => {
    const tmp = makeTempDir()
    // Printable ASCII a folder name can hold on every platform.
    const chars = [...Array(95)].map((_, i) => String.fromCharCode(32 + i)).filter((c) => !'/\\<>:"|?*'.includes(c))
    let seed = 34
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296)
    const names = new Set()
    while (names.size < 40) {
      let name = ''
      for (let n = 1 + Math.floor(random() * 6); n > 0; n--) name += chars[Math.floor(random() * chars.length)]
      // Windows drops trailing dots and blanks, and "." / ".." are not new folders.
      if (!/[. ]$/.test(name)) names.add(isWindows ? name.toLowerCase() : name)
    }
    const dirs = [...names].map((name) => path.join(tmp, name))
    for (const dir of dirs) writeCliProgram(dir, 'PreToolUse', '')
    const found = await discoverHooks('PreToolUse', cli({ extraHooksDirs: dirs }))
    const expected = dirs.map((dir) => path.join(dir, 'PreToolUse.cjs')).sort((a, b) => a.localeCompare(b))
    expect(found.map((h) => h.path)).toEqual(expected)
  })

  test('the payload has no model in the cli profile, and the extension profile\'s model', async () => {
    const tmp = makeTempDir()
    writeCliProgram(path.join(tmp, 'cli'), 'PreToolUse', report)
    writeProgram(path.join(tmp, 'ext'), 'PreToolUse', report)
    expect((await seen(cli({ extraHooksDirs: [path.join(tmp, 'cli')] }))).model).toBeNull()
    expect((await seen(opts({ extraHooksDirs: [path.join(tmp, 'ext')] }))).model).toEqual({ provider: 'unknown', slug: 'unknown' })
  })

  test('CLINE_BUILD_ENV by the SDK\'s rule in the cli profile, from the environment the hook gets; none added in the extension profile', async () => {
    const tmp = makeTempDir()
    writeCliProgram(path.join(tmp, 'cli'), 'PreToolUse', report)
    writeProgram(path.join(tmp, 'ext'), 'PreToolUse', report)
    const asCli = cli({ extraHooksDirs: [path.join(tmp, 'cli')] })
    const build = async (env) => (await seen(asCli, { env })).build
    expect(await build({ NODE_ENV: 'development' })).toBe('development')
    expect(await build({ NODE_ENV: ' Production' })).toBe('production')
    expect(await build({ CLINE_BUILD_ENV: ' Production ', NODE_ENV: 'development' })).toBe(' Production ')
    // Neither names a build and this host has no --conditions=development.
    expect(await build({ CLINE_BUILD_ENV: 'staging', NODE_ENV: 'test' })).toBe('production')
    const asExtension = await seen(opts({ extraHooksDirs: [path.join(tmp, 'ext')] }), { env: { NODE_ENV: 'development' } })
    expect(asExtension.build).toBe(process.env.CLINE_BUILD_ENV ?? null)
  })

  /**
   * A hook that exits at once leaving a child holding its stdout: the child waits until the
   * hook's process is gone (no timing guess), then `pauseMs`, then prints a cancel.
   */
  const leavesALatePrinter = (pauseMs, pidFile) => `require('fs').readFileSync(0);
const child = require('child_process').spawn(process.execPath, ['-e', \`
  const parent = \${process.pid};
  const poll = setInterval(() => {
    try { process.kill(parent, 0) } catch {
      clearInterval(poll);
      setTimeout(() => console.log('{"cancel": true, "errorMessage": "printed after the exit"}'), ${pauseMs});
    }
  }, 20);\`], { stdio: ['ignore', 'inherit', 'ignore'], detached: true });
require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
child.unref();`

  test('a cancel a background child prints 0.4 s after the hook exited counts in the cli profile (the SDK\'s 1 s grace), not in the extension profile (150 ms of quiet)', async () => {
    const tmp = makeTempDir()
    writeCliProgram(path.join(tmp, 'cli'), 'PreToolUse', leavesALatePrinter(400, path.join(tmp, 'cli.pid')))
    writeProgram(path.join(tmp, 'ext'), 'PreToolUse', leavesALatePrinter(400, path.join(tmp, 'ext.pid')))
    const asCli = await runHook('PreToolUse', {}, cli({ extraHooksDirs: [path.join(tmp, 'cli')] }))
    trackPid(Number(fs.readFileSync(path.join(tmp, 'cli.pid'), 'utf8')))
    expect(asCli).toMatchObject({ cancel: true, errorMessage: 'printed after the exit' })
    const asExtension = await runHook('PreToolUse', {}, opts({ extraHooksDirs: [path.join(tmp, 'ext')] }))
    trackPid(Number(fs.readFileSync(path.join(tmp, 'ext.pid'), 'utf8')))
    expect(asExtension.cancel).toBe(false)
    expect(asExtension.hooks[0].warnings).toContainEqual(expect.stringContaining('(waited 150 ms)'))
  }, 30000)

  test('an abort during the exit grace ends the run at once', async () => {
    const tmp = makeTempDir()
    const seen = path.join(tmp, 'seen-exit')
    // The background child says when it has seen the hook exit, then holds stdout quietly.
    writeCliProgram(path.join(tmp, 'cli'), 'PreToolUse', `require('fs').readFileSync(0);
const child = require('child_process').spawn(process.execPath, ['-e', \`
  const parent = \${process.pid};
  const poll = setInterval(() => {
    try { process.kill(parent, 0) } catch { clearInterval(poll); require('fs').writeFileSync(process.argv[1], 'gone'); setTimeout(() => {}, 8000) }
  }, 10);\`, ${JSON.stringify(seen)}], { stdio: ['ignore', 'inherit', 'ignore'], detached: true });
require('fs').writeFileSync(${JSON.stringify(path.join(tmp, 'child.pid'))}, String(child.pid));
child.unref();`)
    const controller = new AbortController()
    const run = runHook('PreToolUse', {}, cli({ extraHooksDirs: [path.join(tmp, 'cli')], signal: controller.signal }))
    const settled = run.then(() => 'resolved', (error) => error.name)
    expect(await waitForFile(seen, 20000)).toBe('gone')
    trackPid(Number(fs.readFileSync(path.join(tmp, 'child.pid'), 'utf8')))
    const aborted = Date.now()
    controller.abort()
    expect(await settled).toBe('AbortError')
    // The grace has most of its second left; an abort does not wait it out.
    expect(Date.now() - aborted).toBeLessThan(700)
  }, 30000)

  test('each JavaScript thread follows its own execArgv: a worker started without --conditions=development does not change the main thread\'s CLINE_BUILD_ENV', () => {
    const dir = path.join(makeTempDir(), 'hooks')
    writeCliProgram(dir, 'PreToolUse', report)
    const script = `
      const { Worker } = require('worker_threads');
      const { runHook } = require(${JSON.stringify(ROOT)});
      const options = { profile: 'cli', extraHooksDirs: [${JSON.stringify(dir)}], globalHooksDir: null, clineDir: ${JSON.stringify(path.join(dir, 'none'))} };
      const build = async () => JSON.parse((await runHook('PreToolUse', {}, options)).contextModification).build;
      (async () => {
        const before = await build();
        const inWorker = await new Promise((resolve, reject) => {
          const worker = new Worker(\`
            const { parentPort, workerData } = require('worker_threads');
            const { runHook } = require(workerData.root);
            runHook('PreToolUse', {}, workerData.options).then((r) => parentPort.postMessage(JSON.parse(r.contextModification).build));
          \`, { eval: true, execArgv: [], workerData: { root: ${JSON.stringify(ROOT)}, options } });
          worker.once('message', resolve);
          worker.once('error', reject);
        });
        const after = await build();
        console.log(JSON.stringify([before, inWorker, after]));
      })().catch((e) => { console.error(e); process.exit(1); });`
    const child = nodeSync(['--conditions=development', '-e', script], {
      encoding: 'utf8',
      timeout: 45000,
      env: envWith({ NODE_ENV: undefined, CLINE_BUILD_ENV: undefined }),
    })
    expect(child.stderr).toBe('')
    expect(JSON.parse(child.stdout)).toEqual(['development', 'production', 'development'])
  }, 60000)

  test('a child that holds stdout and prints later does not hold the cli run: given up on after 1 s, said in a warning', async () => {
    const tmp = makeTempDir()
    writeCliProgram(path.join(tmp, 'cli'), 'PreToolUse', leavesALatePrinter(8000, path.join(tmp, 'late.pid')))
    const started = Date.now()
    const result = await runHook('PreToolUse', {}, cli({ extraHooksDirs: [path.join(tmp, 'cli')] }))
    trackPid(Number(fs.readFileSync(path.join(tmp, 'late.pid'), 'utf8')))
    expect(Date.now() - started).toBeLessThan(6000)
    expect(result.cancel).toBe(false)
    expect(result.hooks[0]).toMatchObject({ status: 'completed' })
    expect(result.hooks[0].warnings).toContainEqual(expect.stringContaining('(waited 1000 ms)'))
  }, 30000)
})
