'use strict'

// scrubEnv: a real hook prints the environment it was given, and the test checks which of the
// host's variables it lost. The host is a Node process of its own, started with a known
// environment (a Jest test's process.env is a copy, which the addon never reads), that runs the
// hook through the addon and prints the result. The hooks are Node programs (see
// hook-programs.js), so every case runs on Windows too.

const fs = require('fs')
const path = require('path')
const { spawnSync } = require('child_process')

const { addon, isWindows, makeTempDir, makeWorkspace, hooksDirOf, writeHook, writeProgram, envWith, waitForFile, waitFor, isAlive, opts, expectCompleted, testIf, nodeSync } = require('./helpers')

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
  const run = nodeSync([host, JSON.stringify(options)], { env: hostEnv(), encoding: 'utf8', timeout: 60000, windowsHide: true })
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
    const run = nodeSync([host], { env: hostEnv(), encoding: 'utf8', timeout: 60000, windowsHide: true })
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

// ---------------------------------------------------------------------------------------
// Out of reach: a scrubbed hook cannot read the host's environment through /proc either.
//
// /proc/<pid>/environ shows the environment a process started with (not what it set since),
// so the host is again a Node process of its own, started with a random secret. Root reads
// any process's environ by its capabilities, whatever Landlock says (checked on Linux 6.18:
// the read is allowed to root, denied to nobody; /proc/<pid>/mem is denied to both), so a
// root test process starts that host as nobody: the threat is a hook running as the same
// ordinary user as the host, and that is the case run here.

const isLinux = process.platform === 'linux'
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
const NOBODY = 65534

/**
 * A hook that tries to read its host (its parent) and reports what it got: the host's
 * /proc/<pid>/environ, its environment block read from /proc/<pid>/mem (where /proc/<pid>/stat
 * places it), the same environ read by a child process; and that it still works: a child runs,
 * files are written, renamed and linked across folders, truncated and removed. `PROBE_DIR` is
 * a folder the hook may write.
 */
const PROBE = `const fs = require('fs')
const path = require('path')
const { spawnSync } = require('child_process')
function tryRead(read) {
  try {
    return { ok: true, text: read().toString('latin1') }
  } catch (e) {
    return { ok: false, code: e.code }
  }
}
function probe() {
  const host = process.ppid
  const report = { host, pid: process.pid }
  report.environ = tryRead(() => fs.readFileSync('/proc/' + host + '/environ'))
  report.mem = tryRead(() => {
    const fd = fs.openSync('/proc/' + host + '/mem', 'r')
    try {
      const stat = fs.readFileSync('/proc/' + host + '/stat', 'latin1')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      // env_start and env_end: fields 50 and 51 of stat.
      const [start, end] = [Number(fields[47]), Number(fields[48])]
      const buf = Buffer.alloc(Math.max(0, Math.min(end - start, 1 << 20)))
      fs.readSync(fd, buf, 0, buf.length, start)
      return buf
    } finally {
      fs.closeSync(fd)
    }
  })
  const cat = spawnSync('cat', ['/proc/' + host + '/environ'], { encoding: 'latin1' })
  report.childEnviron = { status: cat.status, text: cat.stdout }
  report.child = spawnSync('sh', ['-c', 'echo child-ok'], { encoding: 'utf8' }).stdout.trim()
  try {
    const dir = fs.mkdtempSync(path.join(process.env.PROBE_DIR, 'files-'))
    for (const d of ['a', 'b']) fs.mkdirSync(path.join(dir, d))
    fs.writeFileSync(path.join(dir, 'a', 'f'), 'hello')
    fs.renameSync(path.join(dir, 'a', 'f'), path.join(dir, 'b', 'f'))
    fs.linkSync(path.join(dir, 'b', 'f'), path.join(dir, 'a', 'g'))
    fs.symlinkSync(path.join(dir, 'b', 'f'), path.join(dir, 'a', 's'))
    fs.truncateSync(path.join(dir, 'a', 'g'), 2)
    report.files = fs.readFileSync(path.join(dir, 'a', 's'), 'utf8')
    fs.rmSync(dir, { recursive: true })
  } catch (e) {
    report.files = 'failed: ' + e.code + ' ' + e.message
  }
  return report
}
`

/** The probe as a per-event hook: its report is the contextModification. */
const PROBE_PER_EVENT = `${PROBE}fs.writeSync(1, JSON.stringify({ contextModification: JSON.stringify(probe()) }) + '\\n')\n`

/** The probe as a persistent hook: each event's answer is a report. */
const PROBE_PERSISTENT = `${PROBE}require('readline')
  .createInterface({ input: process.stdin })
  .on('line', () => fs.writeSync(1, JSON.stringify({ contextModification: JSON.stringify(probe()) }) + '\\n'))
  .on('close', () => process.exit(0))
`

/** The probe as a detached hook: its report goes to the file PROBE_REPORT. */
const PROBE_DETACHED = `${PROBE}fs.writeFileSync(process.env.PROBE_REPORT + '.tmp', JSON.stringify(probe()))
fs.renameSync(process.env.PROBE_REPORT + '.tmp', process.env.PROBE_REPORT)
`

/**
 * Runs a PreToolUse hook of `program` (written with `header`) from one host process holding a
 * random secret in the environment it started with, as nobody when this test runs as root:
 * one run per entry of `runs` (its run options), one after another; `python`: `program` is a
 * Python script. Returns the secret, the
 * host's stdout (each run's result as JSON) and, per run, its result and the hook's report.
 */
function probeHost(program, runs, { header, python } = {}) {
  const secret = `s3cr3t-${require('crypto').randomBytes(12).toString('hex')}`
  const root = makeWorkspace()
  if (python) writeHook(hooksDirOf(root), 'PreToolUse', program, { shebang: 'python3' })
  else writeProgram(hooksDirOf(root), 'PreToolUse', program, { header })
  const probeDir = makeTempDir()
  const hostDir = makeTempDir()
  if (isRoot) {
    for (const dir of [root, path.join(root, '.clinerules'), hooksDirOf(root), hostDir]) fs.chmodSync(dir, 0o755)
    fs.chownSync(probeDir, NOBODY, NOBODY)
  }
  const host = path.join(hostDir, 'host.js')
  fs.writeFileSync(
    host,
    `const fs = require('fs')
const path = require('path')
const { runHook, terminateAll } = require(${JSON.stringify(ADDON)})
async function main() {
  const results = []
  for (const [i, extra] of JSON.parse(process.argv[2]).entries()) {
    // A detached hook reports to a file of its own (the others keep one env, so a persistent
    // process is replaced for its scrubEnv only), and reads its parent: this host stays until then.
    const report = extra.detached ? path.join(${JSON.stringify(probeDir)}, 'report-' + i + '.json') : undefined
    const env = { PROBE_DIR: ${JSON.stringify(probeDir)}, ...(report ? { PROBE_REPORT: report } : {}) }
    const result = await runHook('PreToolUse', {}, { globalHooksDir: null, workspaceRoots: [${JSON.stringify(root)}], env, ...extra })
    for (let n = 0; report && n < 600 && !fs.existsSync(report); n++) await new Promise((ok) => setTimeout(ok, 50))
    results.push({ result, report })
  }
  await terminateAll()
  return results
}
main().then((r) => process.stdout.write(JSON.stringify(r)), (e) => process.stdout.write(JSON.stringify({ error: e.message })))
`,
  )
  const run = nodeSync([host, JSON.stringify(runs)], {
    env: { ...hostEnv(), CLINE_TEST_SECRET_TOKEN: secret, HOME: hostDir },
    encoding: 'utf8',
    timeout: 60000,
    ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  })
  expect(run.stderr).toBe('')
  const results = JSON.parse(run.stdout)
  expect(results.error).toBeUndefined()
  return {
    secret,
    stdout: run.stdout,
    runs: results.map(({ result, report }) => {
      if (report) {
        expect(result.hooks[0].status).toBe('started')
        return { result, probed: JSON.parse(fs.readFileSync(report, 'utf8')) }
      }
      expectCompleted(result.hooks[0])
      return { result, probed: JSON.parse(result.contextModification) }
    }),
  }
}

/** Whether Yama lets a process read the memory of one that is not its descendant. */
function yamaAllowsMem() {
  try {
    return fs.readFileSync('/proc/sys/kernel/yama/ptrace_scope', 'utf8').trim() === '0'
  } catch {
    return true // no Yama
  }
}

/** The run's warnings that are about scrubEnv. */
function scrubWarnings(result) {
  return result.warnings.filter((w) => w.startsWith('scrubEnv:'))
}

/**
 * The checks of one scrubbed run: unless the run said in its warnings (once) that its hooks are
 * not confined here, the hook, its child and its memory read got nothing of the host; the hook
 * worked as usual either way.
 */
function expectOutOfReach({ result, probed }) {
  expect(probed.child).toBe('child-ok')
  expect(probed.files).toBe('he')
  const said = scrubWarnings(result)
  if (said.length === 1 && /not kept from reading/.test(said[0])) return false // no Landlock here: said so
  expect(said).toEqual([])
  expect(probed.environ).toEqual({ ok: false, code: 'EACCES' })
  expect(probed.mem.ok).toBe(false)
  expect(['EACCES', 'EPERM']).toContain(probed.mem.code)
  expect(probed.childEnviron).toEqual({ status: 1, text: '' })
  return true
}

/** The same hook without scrubEnv reads the host's secret: the checks above can fail. */
function expectWithinReach(secret, { probed }) {
  expect(probed.environ.ok).toBe(true)
  expect(probed.environ.text).toContain(`CLINE_TEST_SECRET_TOKEN=${secret}`)
  expect(probed.childEnviron.text).toContain(secret)
  if (yamaAllowsMem()) expect(probed.mem.text).toContain(secret)
  expect(probed.child).toBe('child-ok')
  expect(probed.files).toBe('he')
}

const reason = 'Landlock and /proc are Linux'

describe('scrubEnv keeps the host environment out of reach (Linux: Landlock)', () => {
  testIf(isLinux, reason, 'a scrubbed hook, and its child, cannot read the host through /proc/<pid>/environ or mem; it still writes, renames and links across folders, and starts children; without scrubEnv it can', () => {
    const { secret, stdout, runs } = probeHost(PROBE_PER_EVENT, [{ scrubEnv: true }, { scrubEnv: ['NO_SUCH_VARIABLE'] }])
    if (runs.map(expectOutOfReach).every(Boolean)) expect(stdout).not.toContain(secret)
    const plain = probeHost(PROBE_PER_EVENT, [{}])
    expectWithinReach(plain.secret, plain.runs[0])
  }, 60000)

  testIf(isLinux, reason, 'a persistent hook is out of reach for a scrubbed run: the process an unscrubbed run started is replaced, whose scrubEnv removes no variable', () => {
    const { secret, runs } = probeHost(PROBE_PERSISTENT, [{}, { scrubEnv: ['NO_SUCH_VARIABLE'] }, { scrubEnv: ['NO_SUCH_VARIABLE'] }, {}], { header: 'mode=persistent' })
    const [before, scrubbed, again, after] = runs
    expectWithinReach(secret, before)
    expectOutOfReach(scrubbed)
    expect(scrubbed.probed.pid).not.toBe(before.probed.pid)
    expect(again.probed.pid).toBe(scrubbed.probed.pid) // the same settings reuse it
    expectWithinReach(secret, after)
  }, 60000)

  testIf(isLinux, reason, 'a detached hook of a scrubbed run is out of reach too', () => {
    const { secret, stdout, runs } = probeHost(PROBE_DETACHED, [{ scrubEnv: true, detached: true }, { detached: true }])
    if (expectOutOfReach(runs[0])) expect(JSON.stringify(runs[0].probed)).not.toContain(secret)
    expectWithinReach(secret, runs[1])
    expect(stdout).not.toContain(secret)
  }, 60000)
})

// ---------------------------------------------------------------------------------------
// Every thread of the host: the kernel shows each thread of a process under
// /proc/<pid>/task/<tid>/, with the whole process's environment and memory behind it, and
// Landlock lets a process reach one in its own domain. So no host thread may be in the hooks'
// domain (an earlier design confined the thread that started them: a hook read the host
// through it), and a hook must not reach any of them by /proc, ptrace or a signal.

/** The kernel's Landlock ABI version here (0: none). */
function landlockAbi() {
  const run = spawnSync('python3', ['-c', 'import ctypes; print(max(0, ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1)))'], { encoding: 'utf8' })
  return Number(run.stdout.trim()) || 0
}

/**
 * A Python hook that tries every thread of its host (its parent): the thread's environ, the
 * environment block in its mem (where its stat places it, or else its maps' [stack]),
 * PTRACE_SEIZE and, if refused, PTRACE_ATTACH (each let go at once when it works), then
 * kill(host, SIGSTOP) (followed by SIGCONT when it works, so a failing test does not freeze
 * its host), and a signal to a child of its own. Its report (the secret variable's value
 * where one was read) is the contextModification.
 */
const PROBE_THREADS = `import ctypes, errno, json, os, re, signal, subprocess
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_ATTACH, PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT, WALL = 16, 17, 0x4206, 0x4207, 0x40000000
def err(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if isinstance(e, OSError) else repr(e)
def found(data):
    # What was read, as the host's secret variable (its value), or that it holds none.
    m = re.search(rb'CLINE_TEST_SECRET_TOKEN=([^\\0]*)', data)
    return m.group(1).decode('latin1') if m else 'read %d bytes, no secret' % len(data)
def env_block(t):
    try:
        fields = open(t + '/stat').read().rsplit(')', 1)[1].split()
        start, end = int(fields[47]), int(fields[48])
        if start and end > start:
            return start, end
    except Exception:
        pass
    for line in open(t + '/maps').read().splitlines():
        if line.endswith('[stack]'):
            a, b = (int(x, 16) for x in line.split()[0].split('-'))
            return max(a, b - (1 << 20)), b
    raise OSError(errno.ENOENT, 'no environment block found')
def trace(tid):
    for request in (PTRACE_SEIZE, PTRACE_ATTACH):
        if libc.ptrace(request, tid, None, None) == 0:
            if request == PTRACE_SEIZE:
                libc.ptrace(PTRACE_INTERRUPT, tid, None, None)
            os.waitpid(tid, WALL)
            libc.ptrace(PTRACE_DETACH, tid, None, None)
            return 'traced'
    return errno.errorcode.get(ctypes.get_errno(), '?')
host = os.getppid()
report = {'host': host, 'threads': {}}
for tid in sorted(os.listdir('/proc/%d/task' % host)):
    t = '/proc/%d/task/%s' % (host, tid)
    got = {'name': open(t + '/comm').read().strip()}
    try:
        got['environ'] = found(open(t + '/environ', 'rb').read())
    except OSError as e:
        got['environ'] = {'error': err(e)}
    try:
        fd = os.open(t + '/mem', os.O_RDONLY)
        try:
            start, end = env_block(t)
            got['mem'] = found(os.pread(fd, end - start, start))
        finally:
            os.close(fd)
    except OSError as e:
        got['mem'] = {'error': err(e)}
    got['ptrace'] = trace(int(tid))
    report['threads'][tid] = got
try:
    os.kill(host, signal.SIGSTOP)
    os.kill(host, signal.SIGCONT)
    report['sigstop'] = 'sent'
except OSError as e:
    report['sigstop'] = err(e)
child = subprocess.Popen(['sleep', '30'])
os.kill(child.pid, signal.SIGTERM)
report['ownChild'] = child.wait()
print(json.dumps({'contextModification': json.dumps(report)}))
`

describe('scrubEnv keeps every thread of the host out of reach (Linux: Landlock)', () => {
  testIf(isLinux, reason, 'a scrubbed hook reads no thread of the host (task/*/environ, task/*/mem), traces none, cannot SIGSTOP the host (ABI 6), and still signals its own child; without scrubEnv every probe succeeds', () => {
    const abi = landlockAbi()
    const { secret, runs } = probeHost(PROBE_THREADS, [{ scrubEnv: true }, {}], { python: true })
    const [scrubbed, plain] = runs
    const said = scrubWarnings(scrubbed.result)
    const threads = Object.values(scrubbed.probed.threads)
    // Node has several threads: every one is tried.
    expect(threads.length).toBeGreaterThan(1)
    if (said.length === 1 && /not kept from reading/.test(said[0])) {
      console.log(`not checked here, no Landlock: ${said[0]}`)
    } else {
      expect(said).toEqual([])
      for (const { name, environ, mem, ptrace } of threads) {
        expect({ name, environ, mem, ptrace }).toEqual({ name, environ: { error: 'EACCES' }, mem: { error: expect.stringMatching(/^(EACCES|EPERM)$/) }, ptrace: 'EPERM' })
      }
      expect(JSON.stringify(scrubbed.probed)).not.toContain(secret)
      if (abi >= 6) expect(scrubbed.probed.sigstop).toBe('EPERM')
      else console.log(`kill(host, SIGSTOP) not checked: Landlock ABI ${abi} has no signal scope (ABI 6, Linux 6.12)`)
    }
    expect(scrubbed.probed.ownChild).toBe(-15)
    // Without scrubEnv the same probes reach every thread: the checks above can fail.
    const reached = Object.values(plain.probed.threads)
    expect(reached.length).toBeGreaterThan(1)
    for (const { name, environ, mem, ptrace } of reached) {
      expect([name, environ, ptrace]).toEqual([name, secret, 'traced'])
      if (yamaAllowsMem()) expect([name, mem]).toEqual([name, secret])
    }
    expect(plain.probed.sigstop).toBe('sent')
    expect(plain.probed.ownChild).toBe(-15)
  }, 60000)

  testIf(isLinux, reason, 'the runtime still stops a scrubbed hook and the child it started (the host signals into the domain)', async () => {
    const dir = makeTempDir()
    const pidFile = path.join(dir, 'child.pid')
    writeHook(dir, 'PreToolUse', `sleep 300 &\necho $! > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}\nwait\n`)
    const running = runHook('PreToolUse', {}, opts({ extraHooksDirs: [dir], scrubEnv: true, timeoutMs: 1500 }))
    const child = Number(await waitForFile(pidFile, 30000))
    const result = await running
    expect(result.hooks[0].status).toBe('timedOut')
    await waitFor(() => !isAlive(child), { timeoutMs: 10000, what: "the scrubbed hook's child to be stopped" })
  }, 60000)
})

describe('scrubEnv and hooks started from their checked bytes (trust)', () => {
  /** An approved workspace hook `PreToolUse` of `shebang` printing `body`'s words. */
  async function approved(shebang, body) {
    const root = makeWorkspace()
    const hook = writeHook(hooksDirOf(root), 'PreToolUse', body, { shebang })
    const policyFile = path.join(makeTempDir('cline-hooks-policy-'), 'hooks-policy.json')
    await addon.trustHook(hook, { policyFile })
    return (scrubEnv) => runHook('PreToolUse', {}, opts({ workspaceRoots: [root], policyFile, trust: 'workspace', scrubEnv }))
  }

  testIf(isLinux, reason, 'a shell script (from a sealed memfd) and a Node script (through the bootstrap, under its own path) start inside the domain, which no_new_privs marks; without scrubEnv, outside it', async () => {
    const runs = [
      [await approved('sh', `printf '{"contextModification":"%s %s"}\\n' "$0" "$(grep NoNewPrivs /proc/self/status | tr -d ' \\t')"\n`), /^\/proc\/self\/fd\/\d+/],
      [await approved('node', `const nnp = /NoNewPrivs:\\s*(\\d)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]\nconsole.log(JSON.stringify({ contextModification: process.argv[1] + ' NoNewPrivs:' + nnp }))\n`), /^\/.*\/\.clinerules\/hooks\/PreToolUse/],
    ]
    for (const [run, started] of runs) {
      const scrubbed = await run(true)
      expectCompleted(scrubbed.hooks[0])
      expect(scrubbed.contextModification).toMatch(new RegExp(started.source + ' NoNewPrivs:1$'))
      const plain = await run(false)
      expectCompleted(plain.hooks[0])
      expect(plain.contextModification).toMatch(new RegExp(started.source + ' NoNewPrivs:0$'))
    }
  }, 60000)
})

describe('scrubEnv says once per run how far its hooks are kept from the host', () => {
  test('three hooks in one scrubbed run: at most one scrubEnv warning, exactly one where hooks cannot be confined or run as root; none without scrubEnv', async () => {
    const dirs = [makeTempDir(), makeTempDir(), makeTempDir()]
    for (const dir of dirs) writeProgram(dir, 'PreToolUse', `require('fs').writeSync(1, '{}\\n')\n`)
    const run = (scrubEnv) => runHook('PreToolUse', {}, opts({ extraHooksDirs: dirs, scrubEnv }))
    const scrubbed = await run(true)
    expect(scrubbed.hooks).toHaveLength(3)
    for (const hook of scrubbed.hooks) expectCompleted(hook)
    const said = scrubWarnings(scrubbed)
    if (!isLinux || isRoot) expect(said).toHaveLength(1)
    else expect(said.length).toBeLessThanOrEqual(1)
    if (isRoot && isLinux && said.length === 1 && !/not kept from reading/.test(said[0])) expect(said[0]).toMatch(/run as root/)
    expect(scrubWarnings(await run(false))).toEqual([])
    if (isLinux) {
      // Confined or not, no thread of this process entered a domain (no_new_privs marks one):
      // its hooks could reach it there. Each hook enters its own, between its start and its exec.
      const threads = fs.readdirSync('/proc/self/task').map((tid) => {
        const status = fs.readFileSync(`/proc/self/task/${tid}/status`, 'utf8')
        return `${/^Name:\s*(.*)$/m.exec(status)[1]}:${/^NoNewPrivs:\s*(\d)/m.exec(status)[1]}`
      })
      expect(threads.filter((t) => t.endsWith(':1'))).toEqual([])
    }
  }, 60000)
})
