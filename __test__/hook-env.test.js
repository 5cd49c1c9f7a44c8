'use strict'

// The hook environment: every hook is told its name, where it was found, the workspace root it
// runs for and its run's id (CLINE_HOOK_NAME, CLINE_HOOK_SOURCE, CLINE_WORKSPACE_ROOT,
// CLINE_HOOK_RUN_ID), whatever the caller's `env` and `scrubEnv` say. The hooks are Node
// programs (hook-programs.js), so every case runs on Windows too.

const fs = require('fs')
const path = require('path')

const { addon, makeTempDir, makeWorkspace, hooksDirOf, writeProgram, waitForFile, expectCompleted } = require('./helpers')
const { readInputThen } = require('./hook-programs')

const { runHook, HookFactory } = addon

const NAMES = ['CLINE_HOOK_NAME', 'CLINE_HOOK_SOURCE', 'CLINE_WORKSPACE_ROOT', 'CLINE_HOOK_RUN_ID', 'CLINE_HOOK_PATH']

/** A hook that prints the CLINE_* variables it was given as its output object. */
const PRINT_VARS = `const seen = {}
for (const name of ${JSON.stringify(NAMES)}) seen[name] = process.env[name] ?? null
require('fs').writeSync(1, JSON.stringify({ seen }) + '\\n')
`

/** A hook that writes the variables to `file` (a detached hook's output is not read). */
function writeVarsTo(file) {
  return readInputThen(`const seen = {}
for (const name of ${JSON.stringify(NAMES)}) seen[name] = process.env[name] ?? null
require('fs').writeFileSync(${JSON.stringify(file + '.tmp')}, JSON.stringify(seen))
require('fs').renameSync(${JSON.stringify(file + '.tmp')}, ${JSON.stringify(file)})
`)
}

/** What each hook of `result` saw, in run order. */
function seenBy(result) {
  return result.hooks.map((h) => {
    expectCompleted(h)
    return h.output.seen
  })
}

/** A workspace, a global folder and an extra folder, each with a PreToolUse hook that prints its variables. */
function threeFolders() {
  const root = makeWorkspace()
  const globalDir = path.join(makeTempDir(), 'Hooks')
  const extraDir = path.join(makeTempDir(), 'extra')
  const hooks = {
    extra: writeProgram(extraDir, 'PreToolUse', PRINT_VARS),
    global: writeProgram(globalDir, 'PreToolUse', PRINT_VARS),
    workspace: writeProgram(hooksDirOf(root), 'PreToolUse', PRINT_VARS),
  }
  return { root, options: { workspaceRoots: [root], globalHooksDir: globalDir, extraHooksDirs: [extraDir], managedHooksDir: null }, hooks }
}

test('every hook gets its name, source, workspace root and the run id, the same for all hooks of a run', async () => {
  const { root, options, hooks } = threeFolders()
  const first = await runHook('PreToolUse', {}, options)
  const seen = seenBy(first)
  expect(seen.map((s) => s.CLINE_HOOK_SOURCE)).toEqual(['extra', 'global', 'workspace'])
  for (const [i, source] of ['extra', 'global', 'workspace'].entries()) {
    expect(seen[i].CLINE_HOOK_NAME).toBe('PreToolUse')
    expect(seen[i].CLINE_HOOK_PATH).toBe(hooks[source])
    // Hooks outside a workspace run in the first root, and are told it.
    expect(seen[i].CLINE_WORKSPACE_ROOT).toBe(root)
  }
  const id = seen[0].CLINE_HOOK_RUN_ID
  expect(id).toMatch(/^[0-9a-f]{32}$/)
  expect(seen.map((s) => s.CLINE_HOOK_RUN_ID)).toEqual([id, id, id])
  // Its first 12 digits are the run's start in milliseconds.
  expect(Math.abs(parseInt(id.slice(0, 12), 16) - Date.now())).toBeLessThan(60_000)

  // Another run, one hook after another this time: a new id, shared again.
  const again = seenBy(await runHook('PreToolUse', {}, { ...options, sequential: true }))
  const next = again[0].CLINE_HOOK_RUN_ID
  expect(next).not.toBe(id)
  expect(again.map((s) => s.CLINE_HOOK_RUN_ID)).toEqual([next, next, next])
}, 60000)

test('each workspace hook is told its own root; with no root at all the variable is empty', async () => {
  const [a, b] = [makeWorkspace(), makeWorkspace()]
  writeProgram(hooksDirOf(a), 'PreToolUse', PRINT_VARS)
  writeProgram(hooksDirOf(b), 'PreToolUse', PRINT_VARS)
  const seen = seenBy(await runHook('PreToolUse', {}, { workspaceRoots: [a, b], globalHooksDir: null, managedHooksDir: null }))
  expect(seen.map((s) => s.CLINE_WORKSPACE_ROOT)).toEqual([a, b])

  const extraDir = path.join(makeTempDir(), 'extra')
  writeProgram(extraDir, 'PreToolUse', PRINT_VARS)
  const [alone] = seenBy(await runHook('PreToolUse', {}, { extraHooksDirs: [extraDir], globalHooksDir: null, managedHooksDir: null }))
  expect(alone.CLINE_HOOK_SOURCE).toBe('extra')
  // Windows keeps a `NAME=` entry; `?? ''` also accepts a system that drops empty variables.
  expect(alone.CLINE_WORKSPACE_ROOT ?? '').toBe('')
}, 60000)

test("the runtime's values win over the caller's env, and scrubEnv never removes them", async () => {
  const { root, options } = threeFolders()
  const env = { CLINE_HOOK_NAME: 'Fake', CLINE_HOOK_SOURCE: 'fake', CLINE_WORKSPACE_ROOT: '/fake', CLINE_HOOK_RUN_ID: 'fake' }
  for (const scrubEnv of [false, true, Object.keys(env)]) {
    const seen = seenBy(await runHook('PreToolUse', {}, { ...options, env, scrubEnv }))
    for (const s of seen) {
      expect(s.CLINE_HOOK_NAME).toBe('PreToolUse')
      expect(s.CLINE_WORKSPACE_ROOT).toBe(root)
      expect(s.CLINE_HOOK_RUN_ID).toMatch(/^[0-9a-f]{32}$/)
    }
    expect(seen.map((s) => s.CLINE_HOOK_SOURCE)).toEqual(['extra', 'global', 'workspace'])
  }
}, 60000)

test('a CLI event runs its hook, named by the hook name; a runner from a factory gets the same variables', async () => {
  const root = makeWorkspace()
  writeProgram(hooksDirOf(root), 'PreToolUse', PRINT_VARS)
  const [cli] = seenBy(await runHook('tool_call', {}, { workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null }))
  expect(cli.CLINE_HOOK_NAME).toBe('PreToolUse')

  const runner = await new HookFactory({ workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null }).create('PreToolUse')
  const [one] = seenBy(await runner.run({}))
  const [two] = seenBy(await runner.run({}))
  expect(one.CLINE_HOOK_SOURCE).toBe('workspace')
  expect(one.CLINE_HOOK_RUN_ID).not.toBe(two.CLINE_HOOK_RUN_ID)
}, 60000)

test('detached hooks get the variables too, one run id for the run', async () => {
  const root = makeWorkspace()
  const out = makeTempDir()
  const globalDir = path.join(makeTempDir(), 'Hooks')
  writeProgram(globalDir, 'TaskComplete', writeVarsTo(path.join(out, 'global.json')))
  writeProgram(hooksDirOf(root), 'TaskComplete', writeVarsTo(path.join(out, 'workspace.json')))
  const result = await runHook('TaskComplete', {}, { workspaceRoots: [root], globalHooksDir: globalDir, managedHooksDir: null, detached: true })
  expect(result.hooks.map((h) => h.status)).toEqual(['started', 'started'])
  await waitFor2(path.join(out, 'global.json'), path.join(out, 'workspace.json'))
  const global = JSON.parse(fs.readFileSync(path.join(out, 'global.json'), 'utf8'))
  const workspace = JSON.parse(fs.readFileSync(path.join(out, 'workspace.json'), 'utf8'))
  expect([global.CLINE_HOOK_SOURCE, workspace.CLINE_HOOK_SOURCE]).toEqual(['global', 'workspace'])
  expect(global.CLINE_HOOK_NAME).toBe('TaskComplete')
  expect(global.CLINE_WORKSPACE_ROOT).toBe(root)
  expect(global.CLINE_HOOK_RUN_ID).toMatch(/^[0-9a-f]{32}$/)
  expect(workspace.CLINE_HOOK_RUN_ID).toBe(global.CLINE_HOOK_RUN_ID)
}, 60000)

async function waitFor2(...files) {
  for (const file of files) await waitForFile(file, 30000)
}
