'use strict'

// Two copies of the addon in one host, as two VS Code extensions that each bundle @cline/hooks
// load it into one extension host: each copy numbers its hook starts from 1, yet stopping a hook
// of one copy (its timeout, its terminateAll()) never touches a running hook of the other. Each
// copy is the built addon copied to a path of its own and loaded from there, as a bundle is.

const fs = require('fs')
const path = require('path')

const { describeUnix, makeTempDir, writeHook, shq, echoJson, waitForFile, waitForPid, waitDead, isAlive, opts } = require('./helpers')

/** The addon file this process loaded (from the repo or an installed platform package). */
function builtAddon() {
  if (process.env.NAPI_RS_NATIVE_LIBRARY_PATH) return process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  const loaded = process.report
    .getReport()
    .sharedObjects.filter((file) => /(^|[\\/])cline-hooks\.[^\\/]*\.node$/.test(file))
  if (loaded.length !== 1) throw new Error(`expected one loaded cline-hooks .node file, found ${JSON.stringify(loaded)}`)
  return loaded[0]
}

/** A fresh copy of the built addon in `dir`, loaded from there: its starts number from 1. */
function loadCopy(dir) {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, 'cline-hooks.node')
  fs.copyFileSync(builtAddon(), file)
  const loaded = { exports: {} }
  process.dlopen(loaded, file)
  return loaded.exports
}

/**
 * Two fresh copies, A and B, and their hooks. B's gate records its marker and pid, waits for
 * the file `go`, then prints {"cancel":true}; A's hook records its marker and pid and sleeps.
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
  writeHook(
    gate,
    'PreToolUse',
    [
      `printf %s "$CLINE_HOOKS_START" > ${shq(files.gateMarker)}`,
      `echo $$ > ${shq(files.gatePid)}`,
      `while [ ! -e ${shq(files.go)} ]; do sleep 0.02; done`,
      echoJson({ cancel: true, errorMessage: 'B blocks this tool' }),
    ].join('\n'),
  )
  const slow = path.join(tmp, 'slow')
  writeHook(
    slow,
    'PreToolUse',
    [`printf %s "$CLINE_HOOKS_START" > ${shq(files.slowMarker)}`, `echo $$ > ${shq(files.slowPid)}`, 'exec sleep 30'].join('\n'),
  )
  return { A: loadCopy(path.join(tmp, 'a')), B: loadCopy(path.join(tmp, 'b')), gate, slow, files }
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

describeUnix('two copies of the addon in one host', () => {
  test("copy A's timeout does not stop copy B's running hook: B's cancel, printed after it, counts", async () => {
    const copies = setUp()
    const { A, B, gate, slow, files } = copies
    try {
      const gated = B.runHook('PreToolUse', {}, opts({ extraHooksDirs: [gate], timeoutMs: 30000 }))
      const gatePid = await waitForPid(files.gatePid)
      const stopped = await A.runHook('PreToolUse', {}, opts({ extraHooksDirs: [slow], timeoutMs: 2000 }))
      expect(stopped.hooks[0].status).toBe('timedOut')
      expect(await waitDead(await waitForPid(files.slowPid))).toBe(true)
      await expectTheGateUntouched(copies, gatePid, gated)
    } finally {
      await A.terminateAll()
      await B.terminateAll()
    }
  })

  test("copy A's terminateAll() does not stop copy B's running hook: B's cancel, printed after it, counts", async () => {
    const copies = setUp()
    const { A, B, gate, slow, files } = copies
    try {
      const gated = B.runHook('PreToolUse', {}, opts({ extraHooksDirs: [gate], timeoutMs: 30000 }))
      const gatePid = await waitForPid(files.gatePid)
      const running = A.runHook('PreToolUse', {}, opts({ extraHooksDirs: [slow], timeoutMs: 30000 }))
      const slowPid = await waitForPid(files.slowPid)
      await waitForFile(files.slowMarker)
      expect(await A.terminateAll()).toBe(1)
      expect((await running).hooks[0].status).toBe('aborted')
      expect(await waitDead(slowPid)).toBe(true)
      await expectTheGateUntouched(copies, gatePid, gated)
    } finally {
      await A.terminateAll()
      await B.terminateAll()
    }
  })
})
