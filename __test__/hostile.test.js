'use strict'

// Issue 3: hostile hooks and load. Every case: the run returns within its bound, the result
// says what happened in one sentence, nothing is left running (except a background process
// the hook started on purpose), and the other hooks of the same run still count.

const fs = require('fs')
const path = require('path')
const { spawn, spawnSync } = require('child_process')

const {
  addon,
  describeUnix,
  testIf,
  makeTempDir,
  writeHook,
  shq,
  echoJson,
  waitFor,
  waitForPid,
  isAlive,
  waitDead,
  opts,
} = require('./helpers')

const { runHook, HookFactory, discoverHooks, terminateAll } = addon

const MiB = 1024 * 1024
const isLinux = process.platform === 'linux'
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
const ADDON_DIR = path.resolve(__dirname, '..')

/** Whether `nobody` can reach `dir` (every folder on the way lets others in). */
function othersCanRead(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o005) !== 0o005) return false
    if (path.dirname(d) === d) return true
  }
}
const asNobody = isLinux && (!isRoot || othersCanRead(ADDON_DIR))
const AS_NOBODY_REASON = `needs Linux and, as root, an addon folder that \`nobody\` can read (${ADDON_DIR})`

/** Writes hooks `TaskStart` (one per body) into fresh dirs; returns the dirs in run order. */
function hookDirs(...bodies) {
  const tmp = makeTempDir()
  return bodies.map((body, i) => {
    const dir = path.join(tmp, `hooks-${i}`)
    writeHook(dir, 'TaskStart', body, { shebang: 'bash' })
    return dir
  })
}

/**
 * A hook that writes its pid and its background child's pid into a fresh `pids` folder under
 * `tmp`, then waits on a 60 s sleep; returns { dir, pids }.
 */
function longHook(tmp) {
  const pids = path.join(tmp, 'pids')
  fs.mkdirSync(pids)
  const [dir] = hookDirs(`echo $$ > ${shq(pids)}/$$\nsleep 60 &\necho $! > ${shq(pids)}/$!\nwait\n`)
  return { dir, pids }
}

/** A hook that always allows, with a context, so tests can see that the others still count. */
const GOOD = echoJson({ contextModification: 'the good hook still counts' })

/** Runs the hooks in `dirs` once; returns the result, the executions and the wall time. */
async function run(dirs, options = {}, input = {}) {
  const started = Date.now()
  const result = await runHook('TaskStart', input, opts({ extraHooksDirs: dirs, ...options }))
  return { result, hooks: result.hooks, elapsed: Date.now() - started }
}

/** Open file descriptors of this process (Linux). */
function openFds() {
  return fs.readdirSync('/proc/self/fd').length
}

/** Live (non-zombie) child processes of this process (Linux), the hook watchdog aside: it is
 * started once per process with the first hook and lives as long as the host. */
function liveChildren() {
  const children = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(rest[1]) !== process.pid || rest[0] === 'Z') continue
    if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('cline-hooks-watchdog')) continue
    children.push(Number(entry))
  }
  return children
}

/** Samples this process's RSS every few ms while `fn` runs; returns [fn's value, growth in MiB]. */
async function rssGrowth(fn) {
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 5)
  try {
    const value = await fn()
    peak = Math.max(peak, process.memoryUsage().rss)
    return [value, (peak - before) / MiB]
  } finally {
    clearInterval(sampler)
  }
}

describeUnix('hostile hooks: hooks that never end', () => {
  test('1. a busy loop forever is timedOut close to timeoutMs, and its whole tree (by the pids it wrote) is dead', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    const dirs = hookDirs(
      `( while :; do :; done ) &
echo $! >> ${shq(pids)}
echo $$ >> ${shq(pids)}
while :; do :; done
`,
      GOOD,
    )
    const { hooks, result, elapsed } = await run(dirs, { timeoutMs: 1000 })
    expect(hooks.map((h) => h.status)).toEqual(['timedOut', 'completed'])
    expect(hooks[0].failure).toMatch(/did not finish within 1000 ms/)
    expect(result.contextModification).toBe('the good hook still counts')
    expect(elapsed).toBeGreaterThanOrEqual(950)
    expect(elapsed).toBeLessThan(5000)
    const written = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number)
    expect(written).toHaveLength(2)
    for (const pid of written) expect(await waitDead(pid, 2000)).toBe(true)
  })

  test('2. a hook and a grandchild that both ignore SIGTERM and keep stdout open are timedOut and both dead after the grace', async () => {
    const tmp = makeTempDir()
    const pids = path.join(tmp, 'pids')
    const dirs = hookDirs(
      `trap '' TERM
bash -c 'trap "" TERM; echo $$ >> ${shq(pids)}; while :; do echo still here; sleep 0.05; done' &
echo $$ >> ${shq(pids)}
while :; do sleep 0.05; done
`,
      GOOD,
    )
    const { hooks, result, elapsed } = await run(dirs, { timeoutMs: 800 })
    expect(hooks.map((h) => h.status)).toEqual(['timedOut', 'completed'])
    expect(hooks[0].failure).toMatch(/SIGTERM, then SIGKILL/)
    expect(result.contextModification).toBe('the good hook still counts')
    expect(elapsed).toBeLessThan(5000)
    const written = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number)
    expect(written).toHaveLength(2)
    // Dead already when the run resolved: SIGKILL follows the grace, and the run waits for it.
    for (const pid of written) expect(isAlive(pid)).toBe(false)
  })

  test('4. a hook that prints its JSON and leaves `sleep 60 &` holding stdout returns within 1 s, JSON honoured, background alive', async () => {
    const tmp = makeTempDir()
    const bgPid = path.join(tmp, 'bg.pid')
    const dirs = hookDirs(
      `sleep 60 &
echo $! > ${shq(bgPid)}
${echoJson({ cancel: true, errorMessage: 'blocked, checking in the background' })}
`,
    )
    const { result, hooks, elapsed } = await run(dirs)
    const bg = await waitForPid(bgPid)
    expect(hooks[0].status).toBe('completed')
    expect(result.cancel).toBe(true)
    expect(result.errorMessage).toBe('blocked, checking in the background')
    expect(hooks[0].warnings.join(' ')).toMatch(/still holds its stdout or stderr/)
    expect(elapsed).toBeLessThan(1000)
    // The contract's grace after the hook's own exit is at most 250 ms (the runtime's is 150).
    expect(hooks[0].durationMs).toBeLessThan(450)
    expect(isAlive(bg)).toBe(true)
  })
})

describeUnix('hostile hooks: stdin', () => {
  const TEN_MIB = 'x'.repeat(10 * MiB)

  test('3a. a hook that never reads stdin, given a 10 MiB input, does not deadlock the run', async () => {
    const dirs = hookDirs(`sleep 0.3\n${echoJson({ contextModification: 'never read it' })}`, GOOD)
    const { hooks, result, elapsed } = await run(dirs, { timeoutMs: 10000 }, { blob: TEN_MIB })
    expect(hooks.map((h) => h.status)).toEqual(['completed', 'completed'])
    expect(result.contextModification).toBe('never read it\n\nthe good hook still counts')
    expect(elapsed).toBeLessThan(5000)
  })

  test('3b. a hook that exits at once without reading a 10 MiB input is completed (no broken-pipe failure)', async () => {
    const dirs = hookDirs(`${echoJson({ cancel: true })}\nexit 0\n`)
    const { hooks, result } = await run(dirs, {}, { blob: TEN_MIB })
    expect(hooks[0].status).toBe('completed')
    expect(hooks[0].failure).toBeUndefined()
    expect(result.cancel).toBe(true)
  })

  test('3c. a hook that never reads stdin and never ends is timedOut, not deadlocked', async () => {
    const dirs = hookDirs('exec sleep 60\n', GOOD)
    const { hooks, elapsed } = await run(dirs, { timeoutMs: 700 }, { blob: TEN_MIB })
    expect(hooks.map((h) => h.status)).toEqual(['timedOut', 'completed'])
    expect(elapsed).toBeLessThan(5000)
  })
})

describeUnix('hostile hooks: floods and bytes', () => {
  const STDOUT_BYTES = 1024 * MiB

  test(`5. 1 GiB on stdout before the final JSON and 200 MiB on stderr: JSON honoured, host RSS grows < 32 MiB, stderr a bounded tail`, async () => {
    const dirs = hookDirs(
      `yes 'log line that is not JSON {' | head -c ${STDOUT_BYTES} &
yes 'stderr noise' | head -c ${200 * MiB} >&2
wait
echo 'the last stderr line' >&2
echo
${echoJson({ cancel: true, contextModification: 'after the flood' })}
`,
      GOOD,
    )
    const [{ hooks, result }, growth] = await rssGrowth(() => run(dirs, { timeoutMs: 50000 }))
    expect(hooks[0].status).toBe('completed')
    expect(result.cancel).toBe(true)
    expect(result.contextModification).toBe('after the flood\n\nthe good hook still counts')
    // All of stdout is scanned as it streams: nothing to warn about.
    expect(hooks[0].warnings).toEqual([])
    expect(Buffer.byteLength(hooks[0].stderr)).toBeLessThanOrEqual(64 * 1024)
    expect(hooks[0].stderr).toMatch(/stderr noise\n.*the last stderr line\n$/)
    expect(growth).toBeLessThan(32)
  }, 90000)

  test('5b. one 200 MiB verdict object, its cancel after the big field: it blocks, host RSS grows < 32 MiB, read as fast as it is printed', async () => {
    const dirs = hookDirs(
      `printf '{"data": "'
head -c ${200 * MiB} /dev/zero | tr '\\0' d
printf '", "errorMessage": "blocked by a 200 MiB verdict", "cancel": true}\\n'
`,
      GOOD,
    )
    const [{ hooks, result, elapsed }, growth] = await rssGrowth(() => run(dirs, { timeoutMs: 60000 }))
    expect(hooks[0].status).toBe('completed')
    expect(result.cancel).toBe(true)
    expect(hooks[0].errorMessage).toBe('blocked by a 200 MiB verdict')
    expect(hooks[0].output).toEqual({ cancel: true, errorMessage: 'blocked by a 200 MiB verdict' })
    expect(hooks[0].warnings.join(' ')).toMatch(/printed a verdict object of 2097152\d\d bytes that the runner could not keep whole/)
    expect(result.contextModification).toBe('the good hook still counts')
    expect(growth).toBeLessThan(32)
    expect(elapsed).toBeLessThan(45000)
  }, 90000)

  test('6. bytes that are not UTF-8, NUL bytes and CRLF line ends in stdout and stderr: no crash, the final JSON still parsed', async () => {
    const dirs = hookDirs(
      `printf 'bad \\377\\376 bytes\\000 and NUL\\r\\n' >&2
printf 'log \\377\\300\\000 line\\r\\n'
printf '{"cancel": false,\\r\\n "contextModification": "caf\\303\\251 \\342\\234\\223"}\\r\\n'
`,
    )
    const { hooks } = await run(dirs)
    expect(hooks[0].status).toBe('completed')
    expect(hooks[0].contextModification).toBe('café ✓')
    expect(hooks[0].stderr).toContain('bad \uFFFD\uFFFD bytes\u0000 and NUL')
  })
})

describeUnix('hostile hooks: broken output', () => {
  const DEEP = 100000
  const CASES = [
    ['a truncated object', `printf '{"cancel": true, "contextModification": "cut'`, /not valid JSON|does not parse|truncated|incomplete/i],
    ['trailing garbage after the object', `echo '{"contextModification": "x"} and then garbage'`, /after its final JSON object/],
    ['an array', `echo '[{"cancel": true}]'`, /array/],
    ['a number', `echo 42`, /number/],
    ['{"cancel":"yes"}', `echo '{"cancel":"yes"}'`, /cancel/],
    [`a ${DEEP}-deep nested array`, `head -c ${DEEP} /dev/zero | tr '\\0' '['; head -c ${DEEP} /dev/zero | tr '\\0' ']'; echo`, /JSON array as its final output/],
  ]

  test.each(CASES)('7. %s is failed with a sentence, and the other hook still counts', async (label, body, sentence) => {
    const dirs = hookDirs(body, GOOD)
    const { hooks, result } = await run(dirs)
    expect(hooks.map((h) => h.status)).toEqual(['failed', 'completed'])
    expect(hooks[0].failure).toMatch(sentence)
    expect(hooks[0].failure).toMatch(/^[a-z].*[^\n]$/) // one sentence for a hook author
    expect(result.contextModification).toBe('the good hook still counts')
  })

  test(`7b. a ${DEEP}-deep nested object is read as JSON.parse reads it: completed, with a warning about the depth`, async () => {
    const body = `for i in $(seq ${DEEP}); do printf '{"a":'; done; printf 1; head -c ${DEEP} /dev/zero | tr '\\0' '}'; echo`
    const { hooks, result } = await run(hookDirs(body, GOOD))
    expect(hooks.map((h) => h.status)).toEqual(['completed', 'completed'])
    expect(hooks[0].warnings).toEqual([expect.stringMatching(/^printed a JSON object nested more than 127 levels deep/)])
    expect(result.cancel).toBe(false)
    expect(result.contextModification).toBe('the good hook still counts')
  })

  test('8. a hook that kills itself with SIGKILL is failed, exitCode null, the signal named; a cancel it printed before still counts', async () => {
    const dirs = hookDirs(`${echoJson({ cancel: true })}\nkill -9 $$\n`, GOOD)
    const { hooks, result } = await run(dirs)
    expect(hooks[0].status).toBe('failed')
    expect(hooks[0].exitCode).toBeNull()
    expect(hooks[0].failure).toMatch(/SIGKILL/)
    expect(result.cancel).toBe(true)
    expect(result.contextModification).toBe('the good hook still counts')
  })
})

describeUnix('hostile hooks: output built to be slow to read', () => {
  test('7b. 1 MiB of lines that each open an array never closed, from 4 hooks at once: each is read in linear time and named as arrays, and an unrelated run with a 1 s timeout is not held up', async () => {
    // 256 lines of 4 KiB, each opening an array that never closes: quadratic for a parser
    // that retries every line start (2.4 s of CPU per hook, on the workers every run shares).
    const line = `[${'"x",'.repeat(1023)}`
    const dirs = hookDirs(...Array(4).fill(`i=0; while [ $i -lt 256 ]; do echo '${line}'; i=$((i+1)); done`))
    const [quickDir] = hookDirs(echoJson({ contextModification: 'quick' }))
    const slow = run(dirs)
    const quick = await run([quickDir], { timeoutMs: 1000 })
    expect(quick.hooks[0].status).toBe('completed')
    expect(quick.elapsed).toBeLessThan(3000)
    const { hooks, elapsed } = await slow
    expect(elapsed).toBeLessThan(10000)
    for (const h of hooks) {
      expect(h.status).toBe('failed')
      expect(h.failure).toMatch(/arrays that are never closed/)
      expect(h.failure).not.toMatch(/object that ends too early/)
    }
  })
})

describeUnix('hostile hooks: not runnable', () => {
  test('9. no exec bit, a directory, a broken symlink, a symlink loop, a missing #! interpreter: listed with a reason or failed with one; runHook never throws', async () => {
    const tmp = makeTempDir()
    const dir = (name) => path.join(tmp, name)
    writeHook(dir('noexec'), 'TaskStart', echoJson({ cancel: true }), { mode: 0o644 })
    fs.mkdirSync(path.join(dir('directory'), 'TaskStart'), { recursive: true })
    fs.mkdirSync(dir('broken'))
    fs.symlinkSync(path.join(tmp, 'nowhere'), path.join(dir('broken'), 'TaskStart'))
    fs.mkdirSync(dir('loop'))
    fs.symlinkSync('TaskStart', path.join(dir('loop'), 'TaskStart'))
    writeHook(dir('nointerp'), 'TaskStart', echoJson({ cancel: true }), { shebang: '#!/nonexistent/interpreter' })
    writeHook(dir('good'), 'TaskStart', GOOD, { shebang: 'bash' })
    const dirs = ['noexec', 'directory', 'broken', 'loop', 'nointerp', 'good'].map(dir)

    const found = await discoverHooks('TaskStart', opts({ extraHooksDirs: dirs }))
    const byDir = Object.fromEntries(found.map((h) => [path.basename(path.dirname(h.path)), h]))
    expect(byDir.noexec).toMatchObject({ enabled: false, reason: expect.stringMatching(/exec|chmod/) })
    expect(byDir.directory).toMatchObject({ enabled: false, reason: expect.stringMatching(/directory/) })
    expect(byDir.broken).toMatchObject({ enabled: false, reason: expect.stringMatching(/symlink|does not exist|points/i) })
    expect(byDir.loop).toMatchObject({ enabled: false, reason: expect.any(String) })
    expect(byDir.nointerp.reason || '').toMatch(/nonexistent/)
    expect(byDir.good).toMatchObject({ enabled: true })

    const { result, hooks } = await run(dirs)
    expect(result.cancel).toBe(false) // nothing that cannot run may block
    expect(result.contextModification).toBe('the good hook still counts')
    for (const h of hooks.filter((h) => h.status !== 'completed')) {
      expect(h.failure).toMatch(/nonexistent/)
    }
    expect(result.warnings.length).toBeGreaterThanOrEqual(4) // the skipped ones, each with why
  })

  // Root reads every directory, so the unreadable folder is searched by a child Node running
  // as `nobody`; a non-root run checks it directly.
  testIf(asNobody, AS_NOBODY_REASON, '9b. a hooks directory without read permission is skipped; the hooks of the other directories run', async () => {
    const tmp = makeTempDir()
    fs.chmodSync(tmp, 0o755)
    const locked = path.join(tmp, 'locked')
    const open = path.join(tmp, 'open')
    writeHook(locked, 'TaskStart', echoJson({ cancel: true }))
    writeHook(open, 'TaskStart', GOOD)
    fs.chmodSync(locked, 0o000)
    const script = `
      const { runHook } = require(${JSON.stringify(ADDON_DIR)})
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: ${JSON.stringify([locked, open])} })
        .then((r) => console.log(JSON.stringify({ cancel: r.cancel, context: r.contextModification, n: r.hooks.length, failure: r.hooks[0] && r.hooks[0].failure })))
        .catch((e) => console.log(JSON.stringify({ error: String(e) })))`
    const child = spawnSync(process.execPath, ['-e', script], {
      cwd: tmp,
      encoding: 'utf8',
      timeout: 20000,
      // As a service account whose home is its own (root's HOME is not enterable by nobody).
      ...(isRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: tmp } } : {}),
    })
    expect(child.stderr).toBe('')
    expect(JSON.parse(child.stdout)).toEqual({ cancel: false, context: 'the good hook still counts', n: 1 })
  })
  testIf(asNobody && isRoot, `${AS_NOBODY_REASON}, and root to run a child as nobody`, '9c. a working directory the user cannot enter fails the hook with a sentence that names the directory', async () => {
    const tmp = makeTempDir()
    fs.chmodSync(tmp, 0o755)
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, 'TaskStart', echoJson({ cancel: true }))
    // The child's home, where a hook without a workspace root runs: root's own, mode 0700.
    const locked = makeTempDir('cline-hooks-locked-home-')
    fs.chmodSync(locked, 0o700)
    const script = `
      require(${JSON.stringify(ADDON_DIR)})
        .runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}] })
        .then((r) => console.log(r.hooks[0].failure))`
    const child = spawnSync(process.execPath, ['-e', script], {
      cwd: tmp,
      encoding: 'utf8',
      timeout: 20000,
      uid: 65534,
      gid: 65534,
      env: { ...process.env, HOME: locked },
    })
    expect(child.stdout.trim()).toBe(`could not start: its working directory ${locked} cannot be entered by this user (permission denied)`)
  })
})

describeUnix('hostile hooks: files changing under the run', () => {
  test('10a. a hook file deleted between discovery and run is failed with "no longer exists"; the others run', async () => {
    const dirs = hookDirs(echoJson({ cancel: true }), GOOD)
    const factory = new HookFactory(opts({ extraHooksDirs: dirs }))
    const runner = await factory.create('TaskStart')
    fs.rmSync(path.join(dirs[0], 'TaskStart'))
    const result = await runner.run({})
    expect(result.hooks.map((h) => h.status)).toEqual(['failed', 'completed'])
    expect(result.hooks[0].failure).toMatch(/no longer exists/)
    expect(result.cancel).toBe(false)
    expect(result.contextModification).toBe('the good hook still counts')
  })

  test('10b. a hook file replaced between discovery and run: the file found at run time is what runs', async () => {
    const dirs = hookDirs(echoJson({ contextModification: 'old' }))
    const runner = await new HookFactory(opts({ extraHooksDirs: dirs })).create('TaskStart')
    const file = path.join(dirs[0], 'TaskStart')
    const fresh = `${file}.new`
    fs.writeFileSync(fresh, `#!/bin/sh\n${echoJson({ contextModification: 'new' })}\n`, { mode: 0o755 })
    fs.renameSync(fresh, file)
    const result = await runner.run({})
    expect(result.hooks[0].status).toBe('completed')
    expect(result.contextModification).toBe('new')
  })

  test('10c. hooks that delete and rewrite their own file and their siblings mid-run: no crash, one result each', async () => {
    const tmp = makeTempDir()
    const dirs = [0, 1, 2].map((i) => path.join(tmp, `d${i}`))
    const files = dirs.map((d) => path.join(d, 'TaskStart'))
    writeHook(dirs[0], 'TaskStart', `rm -f ${files.map(shq).join(' ')}\n${echoJson({ contextModification: 'deleter' })}`)
    writeHook(dirs[1], 'TaskStart', `printf 'garbage' > "$0"\nrmdir ${shq(dirs[2])} 2>/dev/null\n${echoJson({ contextModification: 'rewriter' })}`)
    writeHook(dirs[2], 'TaskStart', `sleep 0.2\n${echoJson({ contextModification: 'sibling' })}`)
    // One snapshot for all three runs: a run that rescanned after another's hooks deleted the
    // files would rightly find nothing, which is not what this case is about.
    expect(await discoverHooks('TaskStart', opts({ extraHooksDirs: dirs }))).toHaveLength(3)
    const results = await Promise.all([1, 2, 3].map(() => runHook('TaskStart', {}, opts({ extraHooksDirs: dirs }))))
    for (const result of results) {
      expect(result.hooks).toHaveLength(3)
      for (const h of result.hooks) {
        expect(['completed', 'failed']).toContain(h.status)
        if (h.status === 'failed') expect(h.failure).toEqual(expect.any(String))
      }
    }
  })
})

describeUnix('hostile hooks: paths', () => {
  test('11. workspace and hooks-dir paths with spaces, quotes, $(), backticks, ;, newlines and non-ASCII run, and a canary proves nothing was injected', async () => {
    const tmp = makeTempDir()
    const canary = path.join(tmp, 'INJECTED')
    const evil = `we ird 'q' "dq" $(touch ${canary}) \`touch ${canary}\`; touch ${canary}\nline2 ünï 中文 🚀`
    const root = path.join(tmp, evil)
    const extra = path.join(tmp, `extra ${evil}`)
    writeHook(path.join(root, '.clinerules', 'hooks'), 'TaskStart', `printf '{"contextModification": %s}\\n' "$(pwd | jq -Rs .)"`)
    writeHook(extra, 'TaskStart', `${echoJson({ contextModification: 'extra ran' })}`)
    const result = await runHook('TaskStart', {}, opts({ workspaceRoots: [root], extraHooksDirs: [extra] }))
    expect(result.hooks.map((h) => h.status)).toEqual(['completed', 'completed'])
    expect(result.contextModification).toBe(`extra ran\n\n${root}`)
    expect(fs.existsSync(canary)).toBe(false)
  })
})

describeUnix('hostile hooks: load', () => {
  /** Four hook dirs whose hooks count how many hook processes are running at once. */
  function countingHooks(tmp) {
    const live = path.join(tmp, 'live')
    fs.mkdirSync(live)
    return ['a', 'b', 'c', 'd'].map((name) => {
      const dir = path.join(tmp, name)
      writeHook(
        dir,
        'TaskStart',
        // Bash builtins only, but for one rm: 4,000 of these must run quickly on 2 cores.
        `: > ${shq(live)}/$$
shopt -s nullglob
running=(${shq(live)}/*)
IFS= read -r input
[[ $input =~ \\"id\\":\\"([^\\"]*)\\" ]]
rm -f ${shq(live)}/$$
printf '{"contextModification": "%s:%s", "peak": %d}\\n' "\${BASH_REMATCH[1]}" ${name} "\${#running[@]}"
`,
        { shebang: 'bash' },
      )
      return dir
    })
  }

  testIf(isLinux, 'needs /proc', '12/13. 1,000 overlapping runHook calls with 4 hooks each all resolve correctly, never more processes than the limit, and fds and children return to the baseline', async () => {
    const tmp = makeTempDir()
    const dirs = countingHooks(tmp)
    // Warm the runtime and the discovery cache, so the baseline holds their fds.
    await runHook('TaskStart', { id: 'warm' }, opts({ extraHooksDirs: dirs }))
    const fdsBefore = openFds()
    const childrenBefore = liveChildren().length

    const ids = Array.from({ length: 1000 }, (_, i) => `c${i}`)
    const results = await Promise.all(ids.map((id) => runHook('TaskStart', { id }, opts({ extraHooksDirs: dirs, timeoutMs: 60000 }))))
    for (const [i, result] of results.entries()) {
      expect(result.hooks.map((h) => h.failure || h.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
      expect(result.contextModification).toBe(['a', 'b', 'c', 'd'].map((n) => `${ids[i]}:${n}`).join('\n\n'))
    }
    const peak = Math.max(...results.flatMap((r) => r.hooks.map((h) => h.output.peak)))
    const limit = 8 * require('os').availableParallelism()
    expect(peak).toBeLessThanOrEqual(limit)

    await waitFor(() => openFds() <= fdsBefore, { timeoutMs: 5000, what: `fds back to ${fdsBefore}` })
    await waitFor(() => liveChildren().length <= childrenBefore, { timeoutMs: 5000, what: 'children back to the baseline' })
  }, 120000)

  test('13. maxConcurrentHooks caps the processes of a factory and of a call', async () => {
    const tmp = makeTempDir()
    const dirs = countingHooks(tmp)
    const factory = new HookFactory(opts({ extraHooksDirs: dirs, maxConcurrentHooks: 2 }))
    const runner = await factory.create('TaskStart')
    const viaFactory = await Promise.all(Array.from({ length: 20 }, (_, i) => runner.run({ id: `f${i}` })))
    const viaCall = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runHook('TaskStart', { id: `r${i}` }, opts({ extraHooksDirs: dirs, maxConcurrentHooks: 3 }))),
    )
    const peakOf = (results) => Math.max(...results.flatMap((r) => r.hooks.map((h) => h.output.peak)))
    expect(peakOf(viaFactory)).toBeLessThanOrEqual(2)
    expect(viaFactory.every((r) => r.hooks.every((h) => h.status === 'completed'))).toBe(true)
    // Per call: each call has its own 3 slots, so its 4 hooks never all run at once.
    for (const r of viaCall) expect(r.hooks.every((h) => h.status === 'completed')).toBe(true)
  })

  test('13b. runs queued behind the limit still honour their timeouts and their signals', async () => {
    const tmp = makeTempDir()
    const pidFile = path.join(tmp, 'slow.pid')
    const [slow] = hookDirs(`echo $$ > ${shq(pidFile)}\nsleep 30\n`)
    const factory = new HookFactory(opts({ extraHooksDirs: [slow], maxConcurrentHooks: 1 }))
    const runner = await factory.create('TaskStart')
    const holder = runner.run({}, { timeoutMs: 20000 })
    await waitForPid(pidFile)

    let started = Date.now()
    const queued = await runner.run({}, { timeoutMs: 500 })
    expect(queued.hooks[0].status).toBe('timedOut')
    expect(queued.hooks[0].failure).toMatch(/free hook slot/)
    expect(Date.now() - started).toBeLessThan(3000)

    const controller = new AbortController()
    const aborted = runner.run({}, { signal: controller.signal })
    started = Date.now()
    setTimeout(() => controller.abort(), 100)
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' })
    expect(Date.now() - started).toBeLessThan(2000)

    expect(await terminateAll()).toBe(1)
    expect((await holder).hooks[0].status).toBe('aborted')
  })

  testIf(isLinux, 'needs /proc', '14. an AbortSignal aborted in the middle of 100 overlapping runs: all reject with AbortError within 500 ms, no process left', async () => {
    const { dir, pids } = longHook(makeTempDir())
    const childrenBefore = liveChildren().length
    const controller = new AbortController()
    const runs = Array.from({ length: 100 }, () =>
      runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], signal: controller.signal, maxConcurrentHooks: 100 })).then(
        () => 'resolved',
        (err) => ({ name: err.name, at: Date.now() }),
      ),
    )
    // Abort once the first 16 hooks (the default limit on 2 cores) have started their children.
    await waitFor(() => fs.readdirSync(pids).length >= 32, { timeoutMs: 20000, what: '16 hooks running' })
    const abortedAt = Date.now()
    controller.abort()
    const outcomes = await Promise.all(runs)
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ name: 'AbortError' })
      expect(outcome.at - abortedAt).toBeLessThan(500)
    }
    const written = fs.readdirSync(pids).map(Number)
    for (const pid of written) expect(isAlive(pid)).toBe(false)
    expect(liveChildren().length).toBeLessThanOrEqual(childrenBefore)
  })
})

describeUnix('hostile hooks: the host goes away', () => {
  /** Starts a child Node running `script`; resolves once it exits, with its output. */
  function node(script) {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      child.stdout.on('data', (c) => (out += c))
      child.stderr.on('data', (c) => (out += c))
      child.on('close', (code, signal) => resolve({ code, signal, out }))
    })
  }

  test('15a. process.exit() while hooks run: their process trees are stopped, no orphans', async () => {
    const tmp = makeTempDir()
    const { dir, pids } = longHook(tmp)
    const script = `
      const fs = require('fs')
      const { runHook } = require(${JSON.stringify(ADDON_DIR)})
      runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(dir)}] })
      const t = setInterval(() => { if (fs.readdirSync(${JSON.stringify(pids)}).length >= 2) { clearInterval(t); process.exit(0) } }, 10)`
    const { code, out } = await node(script)
    expect(out).toBe('')
    expect(code).toBe(0)
    const written = fs.readdirSync(pids).map(Number)
    expect(written).toHaveLength(2)
    for (const pid of written) expect(await waitDead(pid, 2000)).toBe(true)
  })

  test('15b. a worker thread (a Node environment) torn down while its hooks run: its trees are stopped, the main thread\'s are not', async () => {
    const tmp = makeTempDir()
    const worker = longHook(tmp)
    const mainPids = path.join(tmp, 'main-pids')
    fs.mkdirSync(mainPids)
    const [mainDir] = hookDirs(`echo $$ > ${shq(mainPids)}/$$\nsleep 60\n`)
    const script = `
      const fs = require('fs')
      const { Worker } = require('worker_threads')
      const { runHook, terminateAll } = require(${JSON.stringify(ADDON_DIR)})
      const main = runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(mainDir)}] })
      const w = new Worker(\`
        const { runHook } = require(${JSON.stringify(ADDON_DIR)})
        runHook('TaskStart', {}, { globalHooksDir: null, extraHooksDirs: [${JSON.stringify(worker.dir)}] })
      \`, { eval: true })
      const t = setInterval(async () => {
        if (fs.readdirSync(${JSON.stringify(worker.pids)}).length < 2 || fs.readdirSync(${JSON.stringify(mainPids)}).length < 1) return
        clearInterval(t)
        await w.terminate()
        const pid = Number(fs.readdirSync(${JSON.stringify(mainPids)})[0])
        let alive = true
        try { process.kill(pid, 0) } catch { alive = false }
        console.log(JSON.stringify({ mainHookAliveAfterWorkerEnded: alive }))
        console.log(JSON.stringify({ stopped: await terminateAll(), status: (await main).hooks[0].status }))
      }, 10)`
    const { code, out } = await node(script)
    expect(code).toBe(0)
    expect(out.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { mainHookAliveAfterWorkerEnded: true },
      { stopped: 1, status: 'aborted' },
    ])
    const written = fs.readdirSync(worker.pids).map(Number)
    expect(written).toHaveLength(2)
    for (const pid of written) expect(await waitDead(pid, 2000)).toBe(true)
  })
})

// Issue 18 (second attack, E): `env` under every per-variable limit but over the system's
// total for a start (64 variables of 100 KiB: 6.4 MiB, past Linux's 2 MiB, and past 6 MiB
// even with an unlimited stack). Before, the hook failed with "could not start: Argument
// list too long (os error 7)", which names neither the environment nor a fix.
describeUnix('an env larger than the system allows for a start', () => {
  test('the hook fails with a sentence that names the environment and the fix; the run returns', async () => {
    const dir = path.join(makeTempDir(), 'hooks')
    writeHook(dir, 'TaskStart', echoJson({ contextModification: 'ran' }))
    const env = {}
    for (let i = 0; i < 64; i++) env[`CLINE_HOOKS_BIG_${i}`] = 'x'.repeat(100 * 1024)
    const result = await runHook('TaskStart', {}, opts({ extraHooksDirs: [dir], env }))
    expect(result.hooks.map((h) => [h.status, h.failure])).toEqual([
      [
        'failed',
        'could not start: its arguments and environment are larger than the system allows (E2BIG); pass fewer or smaller `env` variables',
      ],
    ])
  })
})
