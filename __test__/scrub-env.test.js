'use strict'

// scrubEnv: a real hook prints the environment it was given, and the test checks which of the
// host's variables it lost. The host is a Node process of its own, started with a known
// environment (a Jest test's process.env is a copy, which the addon never reads), that runs the
// hook through the addon and prints the result. The hooks are Node programs (see
// hook-programs.js), so every case runs on Windows too.

const fs = require('fs')
const path = require('path')
const { spawnSync } = require('child_process')

const { addon, isWindows, makeTempDir, makeWorkspace, hooksDirOf, writeProgram, envWith, waitForFile, waitFor, opts, expectCompleted } = require('./helpers')

const { runHook } = addon

const ADDON = path.join(__dirname, '..')

/** Prints the hook's environment (names and values) as its contextModification. */
const PRINT_ENV = `require('fs').writeSync(1, JSON.stringify({ contextModification: JSON.stringify(process.env) }) + '\\n')\n`

/** Variables the host is started with; the first five look like credentials. */
const HOST_VARS = {
  GITHUB_TOKEN: 'gh-secret',
  MY_API_KEY: 'api-secret',
  AWS_REGION: 'eu-west-1',
  Db_Password: 'pw',
  SIGNING_KEY: 'key',
  PLAIN_VAR: 'plain',
  TOKENLESS: 'kept?',
}

/** The rest of the host's environment, without any variable that looks like a credential. */
function hostEnv() {
  const looksSecret = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|API_?KEY|PRIVATE_KEY|_KEY$|_PAT$|_AUTH$|^AWS_|^AZURE_/i
  const cleared = {}
  for (const name of Object.keys(process.env)) if (looksSecret.test(name)) cleared[name] = undefined
  return envWith({ ...cleared, ...HOST_VARS })
}

/**
 * Runs the workspace's PreToolUse hook from a host process started with `hostEnv()`, with run
 * options `options`; returns the environment the hook printed.
 */
function hookEnvironment(root, options) {
  const host = path.join(makeTempDir(), 'host.js')
  fs.writeFileSync(
    host,
    `require(${JSON.stringify(ADDON)}).runHook('PreToolUse', {}, { globalHooksDir: null, workspaceRoots: [${JSON.stringify(root)}], ...JSON.parse(process.argv[2]) })
  .then((r) => process.stdout.write(JSON.stringify(r)), (e) => { process.stdout.write(JSON.stringify({ error: e.message })) })\n`,
  )
  const run = spawnSync(process.execPath, [host, JSON.stringify(options)], { env: hostEnv(), encoding: 'utf8', timeout: 60000, windowsHide: true })
  expect(run.status).toBe(0)
  const result = JSON.parse(run.stdout)
  expect(result.error).toBeUndefined()
  expectCompleted(result.hooks[0])
  return JSON.parse(result.contextModification)
}

/** Whether `env` has variable `name` (without case on Windows, as its environment has). */
function has(env, name) {
  return Object.keys(env).some((k) => (isWindows ? k.toUpperCase() === name.toUpperCase() : k === name))
}

function printingWorkspace() {
  const root = makeWorkspace()
  writeProgram(hooksDirOf(root), 'PreToolUse', PRINT_ENV)
  return root
}

describe('scrubEnv', () => {
  test('false or absent: the hook gets the whole environment', () => {
    const root = printingWorkspace()
    for (const options of [{}, { scrubEnv: false }]) {
      const env = hookEnvironment(root, options)
      for (const name of Object.keys(HOST_VARS)) expect([name, has(env, name)]).toEqual([name, true])
    }
  }, 60000)

  test('true: names that look like credentials are left out, the rest and the runtime marker kept', () => {
    const env = hookEnvironment(printingWorkspace(), { scrubEnv: true })
    for (const name of ['GITHUB_TOKEN', 'MY_API_KEY', 'AWS_REGION', 'Db_Password', 'SIGNING_KEY', 'TOKENLESS']) {
      expect([name, has(env, name)]).toEqual([name, false])
    }
    expect(env.PLAIN_VAR).toBe('plain')
    expect(has(env, 'PATH')).toBe(true)
    expect(env.CLINE_HOOKS_START).toMatch(/\S/)
  }, 60000)

  test('a list: exactly those names are left out (without case on Windows only), and never the marker', () => {
    const env = hookEnvironment(printingWorkspace(), { scrubEnv: ['PLAIN_VAR', 'GITHUB_TOKEN', 'signing_key', 'CLINE_HOOKS_START'] })
    expect(has(env, 'PLAIN_VAR')).toBe(false)
    expect(has(env, 'GITHUB_TOKEN')).toBe(false)
    // Windows names ignore case; elsewhere `signing_key` is another variable.
    expect(has(env, 'SIGNING_KEY')).toBe(!isWindows)
    expect(env.MY_API_KEY).toBe('api-secret')
    expect(env.AWS_REGION).toBe('eu-west-1')
    expect(env.CLINE_HOOKS_START).toMatch(/\S/)
  }, 60000)

  test('what env adds is passed even when it looks like a credential', () => {
    const env = hookEnvironment(printingWorkspace(), { scrubEnv: true, env: { GITHUB_TOKEN: 'given', NEW_SECRET: 'new' } })
    expect(env.GITHUB_TOKEN).toBe('given')
    expect(env.NEW_SECRET).toBe('new')
    expect(has(env, 'MY_API_KEY')).toBe(false)
  }, 60000)

  test('a detached hook is scrubbed too', async () => {
    const root = makeWorkspace()
    const out = path.join(root, 'env.json')
    writeProgram(hooksDirOf(root), 'PreToolUse', `require('fs').writeFileSync(${JSON.stringify(`${out}.tmp`)}, JSON.stringify(process.env)); require('fs').renameSync(${JSON.stringify(`${out}.tmp`)}, ${JSON.stringify(out)})\n`)
    const host = path.join(makeTempDir(), 'host.js')
    fs.writeFileSync(
      host,
      `require(${JSON.stringify(ADDON)}).runHook('PreToolUse', {}, { globalHooksDir: null, workspaceRoots: [${JSON.stringify(root)}], detached: true, scrubEnv: true })
  .then((r) => process.stdout.write(r.hooks[0].status), (e) => process.stdout.write(e.message))\n`,
    )
    const run = spawnSync(process.execPath, [host], { env: hostEnv(), encoding: 'utf8', timeout: 60000, windowsHide: true })
    expect(run.stdout).toBe('started')
    const env = JSON.parse(await waitForFile(out, 30000))
    expect(has(env, 'GITHUB_TOKEN')).toBe(false)
    expect(env.PLAIN_VAR).toBe('plain')
    // The detached hook (another host's: terminateAll here does not reach it) runs in the
    // workspace, which Windows cannot delete until it has exited: wait for that.
    await waitFor(
      () => {
        try {
          fs.rmSync(root, { recursive: true, force: true })
          return true
        } catch {
          return false
        }
      },
      { timeoutMs: 30000, what: 'the detached hook to leave its workspace' },
    )
  }, 60000)

  test('a bad scrubEnv is refused with ERR_INVALID_OPTION naming the entry', async () => {
    const root = makeWorkspace()
    const ran = path.join(root, 'ran')
    writeProgram(hooksDirOf(root), 'PreToolUse', `require('fs').writeFileSync(${JSON.stringify(ran)}, '')\n`)
    const cases = [
      ['yes', /invalid option scrubEnv: "yes" is a string; use true, false, or an array of variable names/],
      [{ GITHUB_TOKEN: true }, /invalid option scrubEnv: an object was given; use true, false, or an array/],
      [['A', 1], /invalid option scrubEnv: scrubEnv\[1\] is a number; use a variable name/],
      [[''], /invalid option scrubEnv: scrubEnv\[0\] is an empty string/],
      [['A=B'], /invalid option scrubEnv: scrubEnv\[0\] \("A=B"\) contains "=" at index 1/],
      [['A\0B'], /invalid option scrubEnv: scrubEnv\[0\] \(.*\) holds a NUL byte/],
    ]
    for (const [scrubEnv, message] of cases) {
      const err = await runHook('PreToolUse', {}, opts({ workspaceRoots: [root], scrubEnv })).then(
        () => null,
        (e) => e,
      )
      expect(err && err.code).toBe('ERR_INVALID_OPTION')
      expect(err.message).toMatch(message)
    }
    expect(fs.existsSync(ran)).toBe(false)
  })
})
