// An approved batch file runs only the approved bytes (Windows). cmd.exe rereads a batch file
// line by line as it runs, so the runtime holds the file against writers for the whole run, does
// not start it when that hold cannot be had, and gives cmd.exe the held file's own final path,
// which no junction or link on the discovered path can re-point.

const fs = require('fs')
const path = require('path')

const { addon, isWindows, testIf, makeWorkspace, makeTempDir, hooksDirOf, opts } = require('./helpers')

const { runHook, trustHook } = addon

jest.setTimeout(120000)

const WINDOWS_ONLY = 'batch files are Windows\' alone'

/** Whether this system can make a junction (Wine cannot: ENOTSUP; Windows can). */
function canMakeJunctions() {
  if (!isWindows) return false
  const dir = makeTempDir('cline-hooks-junction-probe-')
  try {
    fs.symlinkSync(dir, path.join(dir, 'j'), 'junction')
    return true
  } catch (err) {
    if (err.code === 'ENOTSUP') return false
    throw err
  }
}
const JUNCTIONS = canMakeJunctions()

/** An approved `PreToolUse.cmd` in a new workspace, with the options that run it under trust. */
async function approvedBatch(lines, root = makeWorkspace()) {
  const dir = hooksDirOf(root)
  fs.mkdirSync(dir, { recursive: true })
  const hook = path.join(dir, 'PreToolUse.cmd')
  fs.writeFileSync(hook, ['@echo off', ...lines, ''].join('\r\n'))
  const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
  await trustHook(hook, { policyFile })
  return { hook, options: (workspaceRoots = [root]) => opts({ workspaceRoots, policyFile, trust: 'workspace', timeoutMs: 60000 }) }
}

describe('an approved batch file', () => {
  testIf(isWindows, WINDOWS_ONLY, 'is not started while another program has it open for writing, and the run says why', async () => {
    const { hook, options } = await approvedBatch(['echo {"contextModification":"approved"}'])
    // A writer's handle: what it writes during a run would be read by cmd.exe as it goes.
    const writer = fs.openSync(hook, 'r+')
    let held
    try {
      held = await runHook('PreToolUse', {}, options())
    } finally {
      fs.closeSync(writer)
    }
    expect(held.hooks).toEqual([expect.objectContaining({ status: 'failed', started: false })])
    expect(held.hooks[0].failure).toMatch(/PreToolUse\.cmd is open in another program that may write it, so the approved bytes could not be held unchanged for the run and it was not started; close it there and run again/)
    expect(held.warnings).toEqual([expect.stringMatching(/^skipped: not trusted: changed since approved: .*PreToolUse\.cmd is open in another program/)])
    expect(held.contextModification).toBe('')
    // With the writer gone, the same approved bytes run.
    const free = await runHook('PreToolUse', {}, options())
    expect({ status: free.hooks[0].status, contextModification: free.contextModification }).toEqual({ status: 'completed', contextModification: 'approved' })
  })

  testIf(JUNCTIONS, isWindows ? 'this system cannot make junctions (Wine: ENOTSUP); a Windows runner checks it' : WINDOWS_ONLY, 'is read by cmd.exe through its own path, not through a junction on the workspace path', async () => {
    const real = makeWorkspace()
    const link = path.join(makeTempDir('cline-hooks-junction-'), 'repo')
    fs.symlinkSync(real, link, 'junction')
    // The batch file names the file cmd.exe reads (%~f0) on stderr.
    const { options } = await approvedBatch(['echo %~f0 1>&2', 'echo {}'], real)
    const result = await runHook('PreToolUse', {}, options([link]))
    expect(result.hooks[0].status).toBe('completed')
    const ran = result.hooks[0].stderr.trim().toLowerCase()
    expect(ran).toBe(fs.realpathSync.native(path.join(hooksDirOf(real), 'PreToolUse.cmd')).toLowerCase())
    expect(ran.startsWith(link.toLowerCase())).toBe(false)
  })
})
