'use strict'

// Two copies of the addon in one host, as two VS Code extensions that each bundle @cline/hooks
// load it into one extension host: each copy numbers its hook starts from 1, yet stopping a hook
// of one copy (its timeout, its terminateAll()) never touches a running hook of the other. Each
// copy is the built addon copied to a path of its own and loaded from there, as a bundle is.
// The hooks are Node programs, so both cases run on Windows too: there a stop terminates the
// hook's own job object and no marker is swept for, but the copies must stay apart all the same,
// and every start carries its marker there as well.

const fs = require('fs')
const os = require('os')
const path = require('path')

const { isWindows, makeTempDir, writeProgram, printJson, STAY_ALIVE, waitForFile, waitForPid, waitDead, isAlive, opts } = require('./helpers')

/** How long a hook may take to start and say so: a Node program under Wine takes up to ~1 s. */
const START_MS = 30000
/** Copy A's timeout: long enough for its hook to have started and recorded itself first. */
const A_TIMEOUT_MS = isWindows ? 10000 : 2000

/**
 * The addon file this process loaded (from the repo or an installed platform package), looked
 * up once: a diagnostic report takes seconds under Wine.
 */
let addonFile = null
function builtAddon() {
  if (process.env.NAPI_RS_NATIVE_LIBRARY_PATH) return process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (addonFile) return addonFile
  const loaded = process.report
    .getReport()
    .sharedObjects.filter((file) => /(^|[\\/])cline-hooks\.[^\\/]*\.node$/.test(file))
  if (loaded.length !== 1) throw new Error(`expected one loaded cline-hooks .node file, found ${JSON.stringify(loaded)}`)
  addonFile = loaded[0]
  return addonFile
}

// Where the copies are kept: not in a test's temp dir, since Windows cannot delete a DLL a
// process has loaded (and a loaded addon is never unloaded). Each run removes its own copies
// where it can (Unix), and what earlier runs, now ended, left there (Windows).
const COPIES = path.join(fs.realpathSync(os.tmpdir()), 'cline-hooks-addon-copies')
const ourCopies = path.join(COPIES, String(process.pid))
beforeAll(() => {
  for (const entry of fs.existsSync(COPIES) ? fs.readdirSync(COPIES) : []) {
    if (isAlive(Number(entry))) continue
    fs.rmSync(path.join(COPIES, entry), { recursive: true, force: true, maxRetries: 3 })
  }
})
afterAll(() => {
  try {
    fs.rmSync(ourCopies, { recursive: true, force: true })
  } catch {
    // Windows: loaded, so kept until the next run removes it.
  }
})

let copyCount = 0
/** A fresh copy of the built addon, loaded from a path of its own: its starts number from 1. */
function loadCopy() {
  copyCount += 1
  const dir = path.join(ourCopies, String(copyCount))
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, 'cline-hooks.node')
  fs.copyFileSync(builtAddon(), file)
  const loaded = { exports: {} }
  process.dlopen(loaded, file)
  return loaded.exports
}

/**
 * Two fresh copies, A and B, and their hooks. B's gate records its marker and pid, waits for
 * the file `go`, then prints {"cancel":true}; A's hook records its marker and pid and stays.
 * Each is its copy's first start, so both are start number 1.
 */
function setUp() {
  const tmp = makeTempDir()
  const files = {
    gateMarker: path.join(tmp, 'gate.marker'),
    gatePid: path.join(tmp, 'gate.pid'),
    slowMarker: path.join(tmp, 'slow.marker'),
    slowPid: path.join(tmp, 'slow.pid'),
    go: path.join(tmp, 'go'),
  }
  const gate = path.join(tmp, 'gate')
  const q = JSON.stringify
  writeProgram(
    gate,
    'PreToolUse',
    `const fs = require('fs')
fs.writeFileSync(${q(files.gateMarker)}, process.env.CLINE_HOOKS_START || '')
fs.writeFileSync(${q(files.gatePid)}, String(process.pid))
const wait = () => {
  if (!fs.existsSync(${q(files.go)})) return setTimeout(wait, 20)
  ${printJson({ cancel: true, errorMessage: 'B blocks this tool' })}}
wait()
`,
  )
  const slow = path.join(tmp, 'slow')
  writeProgram(
    slow,
    'PreToolUse',
    `const fs = require('fs')
fs.writeFileSync(${q(files.slowMarker)}, process.env.CLINE_HOOKS_START || '')
fs.writeFileSync(${q(files.slowPid)}, String(process.pid))
${STAY_ALIVE}`,
  )
  return { A: loadCopy(), B: loadCopy(), gate, slow, files }
}

/** B's gate, still running after A's stop, is let go: it prints its cancel, and B's run keeps it. */
async function expectTheGateUntouched({ files }, gatePid, gated) {
  const aliveAfterTheStop = isAlive(gatePid)
  fs.writeFileSync(files.go, '')
  const result = await gated
  expect([result.hooks[0].status, result.hooks[0].signal ?? null]).toEqual(['completed', null])
  expect(result.cancel).toBe(true)
  expect(result.errorMessage).toBe('B blocks this tool')
  expect(aliveAfterTheStop).toBe(true)
  // Same host pid, same start number, yet another marker: another copy's nonce.
  const gateMarker = fs.readFileSync(files.gateMarker, 'utf8')
  const slowMarker = fs.readFileSync(files.slowMarker, 'utf8')
  expect(gateMarker).toMatch(new RegExp(`^${process.pid}\\.[0-9a-f]{16}\\.1$`))
  expect(slowMarker).toMatch(new RegExp(`^${process.pid}\\.[0-9a-f]{16}\\.1$`))
  expect(gateMarker).not.toBe(slowMarker)
}

describe('two copies of the addon in one host', () => {
  test("copy A's timeout does not stop copy B's running hook: B's cancel, printed after it, counts", async () => {
    const copies = setUp()
    const { A, B, gate, slow, files } = copies
    try {
      const gated = B.runHook('PreToolUse', {}, opts({ extraHooksDirs: [gate], timeoutMs: 30000 }))
      const gatePid = await waitForPid(files.gatePid, START_MS)
      const stopped = await A.runHook('PreToolUse', {}, opts({ extraHooksDirs: [slow], timeoutMs: A_TIMEOUT_MS }))
      expect(stopped.hooks[0].status).toBe('timedOut')
      expect(await waitDead(await waitForPid(files.slowPid, START_MS))).toBe(true)
      await expectTheGateUntouched(copies, gatePid, gated)
    } finally {
      await A.terminateAll()
      await B.terminateAll()
    }
  }, 120000)

  test("copy A's terminateAll() does not stop copy B's running hook: B's cancel, printed after it, counts", async () => {
    const copies = setUp()
    const { A, B, gate, slow, files } = copies
    try {
      const gated = B.runHook('PreToolUse', {}, opts({ extraHooksDirs: [gate], timeoutMs: 30000 }))
      const gatePid = await waitForPid(files.gatePid, START_MS)
      const running = A.runHook('PreToolUse', {}, opts({ extraHooksDirs: [slow], timeoutMs: 30000 }))
      const slowPid = await waitForPid(files.slowPid, START_MS)
      await waitForFile(files.slowMarker, START_MS)
      expect(await A.terminateAll()).toBe(1)
      expect((await running).hooks[0].status).toBe('aborted')
      expect(await waitDead(slowPid)).toBe(true)
      await expectTheGateUntouched(copies, gatePid, gated)
    } finally {
      await A.terminateAll()
      await B.terminateAll()
    }
  }, 120000)
})
