'use strict'

// Confined hooks (`sandbox`): a hook the option covers runs in a Landlock domain (Linux) that
// lets it write only beneath its workspace root, the temp folder and `sandboxWritable`, connect
// nowhere over TCP unless `sandboxNetwork`, and neither read nor signal its host; its children
// inherit all of it. Each case is a real hook probing a real host: a Node process of its own
// (run as root and, when this test is root, as an ordinary user too), with a TCP server of this
// test listening on 127.0.0.1. Where it cannot be confined, the hook does not start.

const fs = require('fs')
const net = require('net')
const os = require('os')
const path = require('path')

const { makeTempDir, makeWorkspace, hooksDirOf, writeProgram, cliEnv, isWindows, testIf, nodeSync } = require('./helpers')

const ADDON = path.join(__dirname, '..')
const CLI = path.join(ADDON, 'bin', 'cline-hooks.js')
const isLinux = process.platform === 'linux'
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
/** An ordinary user with no entry of its own: the kernel needs only the number. */
const USER = 54321

/** Python: a TCP Fast Open sendto and an MPTCP connect to 127.0.0.1:argv[1], each `ok` or its errno. */
const TCP_OTHER = `import errno, socket, sys
port = int(sys.argv[1])
def code(f):
    try:
        f()
        return 'ok'
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
def fast_open():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.sendto(b'x', 0x20000000, ('127.0.0.1', port))
    finally:
        s.close()
def mptcp():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
    try:
        s.connect(('127.0.0.1', port))
    finally:
        s.close()
print(code(fast_open), code(mptcp))
`

/**
 * What a hook tries, each as `ok` or the error code it got: writing in the folder it runs in,
 * in the temp folder, in OUTSIDE (a folder of this test), to /dev/null; a child shell writing in
 * OUTSIDE (its exit status); a TCP connection to PORT on 127.0.0.1; reading its host's
 * /proc/<pid>/environ; signal 0 to its host.
 */
const PROBE = `const fs = require('fs')
const net = require('net')
const os = require('os')
const path = require('path')
const { spawnSync } = require('child_process')
function attempt(fn) {
  try {
    fn()
    return 'ok'
  } catch (e) {
    return e.code || String(e)
  }
}
const TCP_OTHER = ${JSON.stringify(TCP_OTHER)}
async function probe() {
  const mark = process.pid + '-' + Date.now()
  const report = { pid: process.pid }
  report.inRoot = attempt(() => fs.writeFileSync(path.join(process.cwd(), 'in-root-' + mark), 'x'))
  report.inTemp = attempt(() => {
    const file = path.join(os.tmpdir(), 'cline-sandbox-' + mark)
    fs.writeFileSync(file, 'x')
    fs.unlinkSync(file)
  })
  report.outside = attempt(() => fs.writeFileSync(path.join(process.env.OUTSIDE, 'hook-' + mark), 'x'))
  report.devNull = attempt(() => fs.writeFileSync('/dev/null', 'x'))
  report.child = spawnSync('/bin/sh', ['-c', 'echo x > "$OUTSIDE/child-$1"', 'sh', mark]).status
  report.connect = await new Promise((resolve) => {
    const socket = net.connect(Number(process.env.PORT), '127.0.0.1')
    socket.on('connect', () => { socket.destroy(); resolve('ok') })
    socket.on('error', (e) => resolve(e.code))
  })
  // What confinement does not stop: UDP, reading what the user can read, pathname sockets.
  report.udp = await new Promise((resolve) => {
    const udp = require('dgram').createSocket('udp4')
    udp.send('x', Number(process.env.PORT), '127.0.0.1', (e) => { udp.close(); resolve(e ? e.code : 'ok') })
  })
  report.readOutside = attempt(() => fs.readFileSync(process.env.READABLE))
  report.unixSocket = await new Promise((resolve) => {
    const socket = net.connect(process.env.UNIX_SOCKET)
    socket.on('connect', () => { socket.destroy(); resolve('ok') })
    socket.on('error', (e) => resolve(e.code))
  })
  report.abstractSocket = await new Promise((resolve) => {
    const socket = net.connect('\\0' + process.env.ABSTRACT_SOCKET)
    socket.on('connect', () => { socket.destroy(); resolve('ok') })
    socket.on('error', (e) => resolve(e.code))
  })
  report.noNewPrivs = /NoNewPrivs:\\s*(\\d)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]
  // TCP opened without connect (a Fast Open sendto, an MPTCP socket), from Python.
  report.tcpOther = spawnSync('python3', ['-c', TCP_OTHER, process.env.PORT], { encoding: 'utf8' }).stdout.trim()
  // Metadata: +x is allowed in its folder; setuid bits and owners are not.
  const own = path.join(process.cwd(), 'mode-' + mark)
  fs.writeFileSync(own, 'x')
  report.chmodX = attempt(() => fs.chmodSync(own, 0o755))
  report.setuid = attempt(() => fs.chmodSync(own, 0o4755))
  report.chown = attempt(() => fs.chownSync(own, process.getuid(), process.getgid()))
  report.environ = attempt(() => fs.readFileSync('/proc/' + process.ppid + '/environ'))
  report.signal = attempt(() => process.kill(process.ppid, 0))
  return report
}
`
const PER_EVENT = `${PROBE}probe().then((r) => fs.writeSync(1, JSON.stringify({ contextModification: JSON.stringify(r) }) + '\\n'))\n`
const PERSISTENT = `${PROBE}require('readline')
  .createInterface({ input: process.stdin })
  .on('line', () => probe().then((r) => fs.writeSync(1, JSON.stringify({ contextModification: JSON.stringify(r) }) + '\\n')))
  .on('close', () => process.exit(0))
`

/**
 * For the whole file: a TCP server on 127.0.0.1 and a Unix socket server at a path outside the
 * writable folders (the kernel completes each connection while this test waits for its host),
 * and a file there every user may read.
 */
let server
let port
let unixServer
let unixSocket
let readable
let abstractServer
const abstractSocket = `cline-sandbox-test-${process.pid}`
beforeAll(async () => {
  server = net.createServer((socket) => socket.destroy())
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = server.address().port
  if (process.platform === 'win32') return
  const dir = folderFor()
  fs.chmodSync(dir, 0o755)
  readable = path.join(dir, 'readable.txt')
  fs.writeFileSync(readable, 'anyone may read this', { mode: 0o644 })
  unixSocket = path.join(dir, 'server.sock')
  unixServer = net.createServer((socket) => socket.destroy())
  await new Promise((resolve) => unixServer.listen(unixSocket, resolve))
  fs.chmodSync(unixSocket, 0o777)
  if (process.platform !== 'linux') return
  abstractServer = net.createServer((socket) => socket.destroy())
  await new Promise((resolve) => abstractServer.listen(`\0${abstractSocket}`, resolve))
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  if (unixServer) await new Promise((resolve) => unixServer.close(resolve))
  if (abstractServer) await new Promise((resolve) => abstractServer.close(resolve))
})

/** Folders made outside the temp folder, removed after the file. */
const outsideDirs = []
afterAll(() => {
  for (const dir of outsideDirs) fs.rmSync(dir, { recursive: true, force: true })
})

/**
 * A folder `uid` may write in, outside every folder a confined hook may write: not beneath the
 * temp folder (where the workspaces are), so /var/tmp.
 */
function folderFor(uid) {
  const dir = fs.mkdtempSync('/var/tmp/cline-sandbox-outside-')
  outsideDirs.push(dir)
  if (uid !== undefined) fs.chownSync(dir, uid, uid)
  return dir
}

/**
 * Runs the PreToolUse hooks of a workspace holding `program` (with `header`) from a host
 * process of its own, as `uid` when given, once per entry of `runs` (its options, `sandbox`
 * and all); returns per run the result and the hook's report.
 */
function probeHost(program, runs, { uid, header } = {}) {
  const root = makeWorkspace()
  writeProgram(hooksDirOf(root), 'PreToolUse', program, { header })
  const outside = folderFor(uid)
  if (uid !== undefined) {
    for (const dir of [root, path.join(root, '.clinerules'), hooksDirOf(root)]) fs.chownSync(dir, uid, uid)
  }
  const host = `const { runHook, terminateAll } = require(${JSON.stringify(ADDON)})
async function main() {
  const results = []
  for (const extra of JSON.parse(process.argv[1])) {
    results.push(await runHook('PreToolUse', {}, { globalHooksDir: null, managedHooksDir: null, workspaceRoots: [${JSON.stringify(root)}], env: { OUTSIDE: ${JSON.stringify(outside)}, ...${JSON.stringify(probeEnv())} }, ...extra }))
  }
  await terminateAll()
  return results
}
main().then((r) => process.stdout.write(JSON.stringify(r)), (e) => process.stdout.write(JSON.stringify({ error: e.message })))
`
  const run = nodeSync(['-e', host, JSON.stringify(runs)], {
    encoding: 'utf8',
    timeout: 60000,
    env: { ...process.env, HOME: makeTempDir() },
    ...(uid !== undefined ? { uid, gid: uid } : {}),
  })
  expect(run.stderr).toBe('')
  const results = JSON.parse(run.stdout)
  expect(results.error).toBeUndefined()
  return results.map((result) => {
    const [hook] = result.hooks
    if (hook.status !== 'completed') throw new Error(`the probe did not complete: ${JSON.stringify(hook)}`)
    return { result, hook, probed: JSON.parse(result.contextModification) }
  })
}

/** What every probe is told besides OUTSIDE: where the servers and the readable file are. */
function probeEnv() {
  return { PORT: String(port), UNIX_SOCKET: unixSocket, READABLE: readable, ABSTRACT_SOCKET: abstractSocket }
}

/** Confined: only its own folders, no TCP, no reach into the host. */
function expectConfined({ hook, probed }, { asRoot }) {
  expect(hook.confined).toBe(true)
  expect(probed).toMatchObject({ inRoot: 'ok', inTemp: 'ok', devNull: 'ok', outside: 'EACCES', connect: 'EACCES', signal: 'EPERM', abstractSocket: 'EPERM', noNewPrivs: '1' })
  expect(probed.child).not.toBe(0)
  // Root reads any process's environ by its capability whatever Landlock says; an ordinary
  // user is refused by the domain (the host is the same user, so only Landlock stands between).
  if (!asRoot) expect(probed.environ).toBe('EACCES')
  // And what it does not stop (docs/security.md says so): UDP (DNS with it), reading what the
  // user may read, connecting to a pathname Unix socket.
  expect(probed).toMatchObject({ udp: 'ok', readOutside: 'ok', unixSocket: 'ok' })
  // What Landlock does not see, the seccomp filter refuses.
  expect(probed).toMatchObject({ tcpOther: 'EACCES EACCES', chmodX: 'ok', setuid: 'EPERM', chown: 'EPERM' })
}

const users = isRoot ? [['root', undefined], ['an ordinary user', USER]] : [['this user', undefined]]
const reason = 'Landlock is Linux'

describe.each(users)('a confined hook, run by %s (Linux: Landlock)', (_, uid) => {
  const asRoot = isRoot && uid === undefined

  testIf(isLinux, reason, 'writes only in its folders, connects nowhere, cannot read or signal its host, nor can its child; unconfined it can do all of it', () => {
    const [confined, unconfined] = probeHost(PER_EVENT, [{ sandbox: 'workspace' }, {}], { uid })
    expectConfined(confined, { asRoot })
    expect(unconfined.hook.confined).toBe(false)
    expect(unconfined.probed).toMatchObject({ inRoot: 'ok', inTemp: 'ok', outside: 'ok', child: 0, connect: 'ok', environ: 'ok', signal: 'ok', abstractSocket: 'ok', setuid: 'ok', chown: 'ok' })
    // A Fast Open sendto connects when nothing stops it (so the check above can fail).
    expect(unconfined.probed.tcpOther).toMatch(/^ok /)
  }, 60000)

  testIf(isLinux, reason, 'sandboxWritable lets it write there (and its child), sandboxNetwork lets it connect; nothing else opens', () => {
    const outside = folderFor(uid)
    const [writable, network] = probeHost(PER_EVENT, [
      { sandbox: 'workspace', sandboxWritable: [outside], env: { OUTSIDE: outside, ...probeEnv() } },
      { sandbox: 'all', sandboxNetwork: true },
    ], { uid })
    expect(writable.probed).toMatchObject({ outside: 'ok', child: 0, connect: 'EACCES', signal: 'EPERM' })
    expect(network.probed).toMatchObject({ outside: 'EACCES', connect: 'ok', abstractSocket: 'ok', signal: 'EPERM', setuid: 'EPERM' })
    expect(network.probed.tcpOther).toMatch(/^ok /)
    expect(network.probed.child).not.toBe(0)
  }, 60000)

  testIf(isLinux, reason, 'a persistent hook is confined, and a process started unconfined is not reused for a confined run', () => {
    const [plain, confined, again] = probeHost(PERSISTENT, [{}, { sandbox: 'workspace' }, { sandbox: 'workspace' }], { uid, header: 'mode=persistent' })
    expect(plain.probed.outside).toBe('ok')
    expectConfined(confined, { asRoot })
    expect(confined.probed.pid).not.toBe(plain.probed.pid)
    expect(again.probed.pid).toBe(confined.probed.pid)
    expectConfined(again, { asRoot })
  }, 60000)
})

describe('which hooks are confined, and what says so', () => {
  testIf(isLinux, reason, "'workspace' confines a repository's hooks and not the user's global ones; discovery and the audit log say which", async () => {
    const { discoverHooks, runHook } = require('..')
    const root = makeWorkspace()
    const globalDir = makeTempDir()
    const outside = folderFor()
    for (const dir of [hooksDirOf(root), globalDir]) writeProgram(dir, 'PreToolUse', PER_EVENT)
    const auditLog = path.join(makeTempDir(), 'audit.jsonl')
    const options = { workspaceRoots: [root], globalHooksDir: globalDir, managedHooksDir: null, sandbox: 'workspace', sandboxWritable: [outside] }
    const found = await discoverHooks('PreToolUse', options)
    expect(found.map((h) => [h.source, h.sandbox])).toEqual([
      ['global', undefined],
      ['workspace', { writable: [root, os.tmpdir(), outside], network: false }],
    ])
    const result = await runHook('PreToolUse', {}, { ...options, auditLog, env: { OUTSIDE: makeTempDir(), ...probeEnv() } })
    expect(result.hooks.map((h) => [h.source, h.status, h.confined])).toEqual([
      ['global', 'completed', false],
      ['workspace', 'completed', true],
    ])
    const lines = fs.readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => [l.source, l.confined])).toEqual([
      ['global', false],
      ['workspace', true],
    ])
  })

  testIf(isLinux, reason, 'a writable folder deleted and made again (a fresh clone) is writable by the next confined hook', async () => {
    const { runHook } = require('..')
    const base = folderFor()
    const root = path.join(base, 'ws')
    const writeHere = `require('fs').writeFileSync('wrote', 'x'); process.stdout.write('{}')\n`
    const options = { workspaceRoots: [root], globalHooksDir: null, managedHooksDir: null, sandbox: 'workspace' }
    for (const round of [1, 2]) {
      fs.rmSync(root, { recursive: true, force: true })
      writeProgram(hooksDirOf(root), 'PreToolUse', writeHere)
      const result = await runHook('PreToolUse', {}, options)
      expect([round, result.hooks[0].status, result.hooks[0].confined, result.hooks[0].stderr]).toEqual([round, 'completed', true, ''])
      expect(fs.existsSync(path.join(root, 'wrote'))).toBe(true)
    }
  })

  test('a sandbox option that is not one is refused, naming the fix', async () => {
    const { runHook } = require('..')
    await expect(runHook('PreToolUse', {}, { globalHooksDir: null, sandbox: 'on' })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      message: expect.stringContaining('"workspace"'),
    })
    await expect(runHook('PreToolUse', {}, { globalHooksDir: null, sandboxWritable: '/tmp' })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' })
    await expect(runHook('PreToolUse', {}, { globalHooksDir: null, sandboxNetwork: 'yes' })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' })
  })
})

describe('where a hook cannot be confined, it does not run', () => {
  /** `cline-hooks run` of a workspace with one hook that writes a file when it runs. */
  function runCli(extraArgs, env) {
    const root = makeWorkspace()
    const ran = path.join(root, 'ran')
    writeProgram(hooksDirOf(root), 'PreToolUse', `require('fs').writeFileSync(${JSON.stringify(ran)}, 'x'); process.stdout.write('{}')\n`)
    const out = nodeSync([CLI, 'run', 'PreToolUse', '--workspace', root, '--no-global', '--json', '--sandbox', 'workspace', ...extraArgs], { encoding: 'utf8', timeout: 60000, env: cliEnv(env) })
    return { out, ran: fs.existsSync(ran), json: out.stdout ? JSON.parse(out.stdout) : null }
  }

  testIf(isLinux, reason, 'a kernel older than the options need (the test setting asks for ABI 99): a startFailure naming what is missing, and onFailure decides', () => {
    const { json, ran, out } = runCli([], { CLINE_HOOKS_SANDBOX_NEEDS_ABI: '99' })
    expect(ran).toBe(false)
    const [hook] = json.hooks
    expect(hook).toMatchObject({ status: 'failed', started: false, confined: true, failureKind: 'startFailure' })
    expect(hook.failure).toMatch(/^this hook must run confined \(sandbox\) and was not started: this kernel's Landlock is ABI \d+, and the test setting CLINE_HOOKS_SANDBOX_NEEDS_ABI needs ABI 99$/)
    expect(out.status).toBe(0)
    const blocked = runCli(['--on-failure', 'block'], { CLINE_HOOKS_SANDBOX_NEEDS_ABI: '99' })
    expect(blocked.ran).toBe(false)
    expect(blocked.json.cancel).toBe(true)
    expect(blocked.out.status).toBe(1)
    // The doctor says so too.
    const doctor = nodeSync([CLI, 'doctor', '--no-global', '--sandbox', 'workspace'], { encoding: 'utf8', env: cliEnv({ CLINE_HOOKS_SANDBOX_NEEDS_ABI: '99' }) })
    expect(doctor.stdout).toMatch(/sandbox +workspace; unavailable: this hook must run confined .*needs ABI 99/)
  }, 60000)

  testIf(isLinux, reason, 'the same hook, confinable, runs confined (the check above can pass)', () => {
    const { json, ran } = runCli([], {})
    expect(ran).toBe(true)
    expect(json.hooks[0]).toMatchObject({ status: 'completed', confined: true })
  }, 60000)

  testIf(isWindows, 'Windows has no sandbox yet', 'Windows: a confined hook does not start, and says Windows cannot confine hooks yet', () => {
    const { json, ran } = runCli([], {})
    expect(ran).toBe(false)
    expect(json.hooks[0]).toMatchObject({ status: 'failed', started: false, failureKind: 'startFailure' })
    expect(json.hooks[0].failure).toContain('Windows cannot confine hooks yet')
  }, 60000)
})
