'use strict'

// `@cline/hooks/serve`: real `node` processes running small hooks written with serveHook (and
// the persistent examples in bash, Python and Node), driven as the runtime drives them: events
// written to stdin as lines, answers read from stdout as lines, stderr and the exit code checked.
// Persistent mode (CLINE_HOOK_MODE=persistent): many events in order on one pid, lines cut
// anywhere, CRLF, very long lines, EOF with an event in flight, failures, logs kept off stdout,
// a slow reader; per-event mode; the ES module entry. Nothing here needs the addon.

const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawn, spawnSync } = require('child_process')

const ROOT = path.join(__dirname, '..')
const EXAMPLES = path.join(ROOT, 'examples', 'persistent')
const isWindows = process.platform === 'win32'
const J = JSON.stringify

/** The bash and Python examples are #! scripts: on Windows they are skipped, the reason in the title. */
const scriptTest = isWindows ? (title, fn) => test.skip(`${title} (skipped on Windows: a #! script run through bash or python3)`, fn) : test

// Through the package name, as a hook author requires it: in the repository that is the package
// itself (a self-reference, through package.json's "exports"), in `npm run test:package` the
// installed copy.
const resolved = spawnSync(process.execPath, ['-p', "require.resolve('@cline/hooks/serve')"], { cwd: ROOT, encoding: 'utf8' })
const SERVE = resolved.stdout.trim()

let tmp
const children = new Set()

beforeAll(() => {
  expect(resolved.stderr).toBe('')
  expect(path.basename(SERVE)).toBe('serve.js')
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-serve-'))
})

afterEach(() => {
  // A test that failed half-way leaves its hook running: stop it.
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  children.clear()
})

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true })
})

/** Writes a CommonJS hook script that requires serve.js; returns its path. */
function script(name, body) {
  const file = path.join(tmp, `${name}.js`)
  fs.writeFileSync(file, `'use strict'\nconst { serveHook } = require(${J(SERVE)})\n${body}\n`)
  return file
}

// The hook most tests drive: what it does is chosen by the event's fields. When serving ends it
// says so on stderr with serveHook's result, then logs to stdout (the console is given back).
const ECHO_HOOK = `
const { once } = require('events')
serveHook(async (event) => {
  if (event.logs) {
    console.log(event.logs)
    console.info(event.logs)
    console.debug(event.logs)
    console.dir(JSON.parse(event.logs))
    console.table([event.logs])
    process.stdout.write(event.logs + '\\n')
  }
  if (event.throw) throw new Error(event.throw)
  if (event.reject) return new Promise((resolve, reject) => setImmediate(() => reject(new Error(event.reject))))
  if (event.waitForEnd) {
    // Still in flight when stdin ends: answered all the same.
    if (!process.stdin.readableEnded) await once(process.stdin, 'end')
    return { id: event.id, sawEnd: true }
  }
  if (event.delayMs) await new Promise((resolve) => setTimeout(resolve, event.delayMs))
  if (event.note) console.error('handling ' + event.id)
  if (event.answerBytes) return { id: event.id, pad: 'x'.repeat(event.answerBytes) }
  if (event.nothing) return undefined
  if (event.toJSON) return { cancel: true, toJSON: () => event.toJSON }
  if ('verdict' in event) return event.verdict
  return { id: event.id, pid: process.pid, text: event.text, length: event.text === undefined ? 0 : event.text.length }
}).then((result) => {
  console.error('served ' + JSON.stringify(result))
  console.log('after serving')
})`

/**
 * A running hook: `send` writes to its stdin, `nextLine()` resolves with the next line of its
 * stdout (rejects if the process closes first), `closed` with its exit code, signal, and all of
 * stdout and stderr once it has exited and its pipes are closed.
 */
function start(command, args, { env = {}, persistent = true, cwd = tmp } = {}) {
  const childEnv = { ...process.env, ...env }
  delete childEnv.CLINE_HOOK_MODE
  if (persistent) childEnv.CLINE_HOOK_MODE = 'persistent'
  const child = spawn(command, args, { cwd, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] })
  children.add(child)
  const hook = { child, stdout: '', stderr: '', lines: [], read: 0, waiters: [], partial: '' }
  const stderrWaiters = []
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stdout.on('data', (text) => {
    hook.stdout += text
    const pieces = (hook.partial + text).split('\n')
    hook.partial = pieces.pop()
    hook.lines.push(...pieces)
    flushWaiters()
  })
  child.stderr.on('data', (text) => {
    hook.stderr += text
    for (const waiter of [...stderrWaiters]) {
      if (waiter.pattern.test(hook.stderr)) {
        stderrWaiters.splice(stderrWaiters.indexOf(waiter), 1)
        waiter.resolve(hook.stderr)
      }
    }
  })
  // A hook that exits before reading everything closes its stdin: not the test's failure.
  child.stdin.on('error', () => {})
  let isClosed = false
  hook.closed = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      isClosed = true
      flushWaiters()
      for (const waiter of stderrWaiters) waiter.reject(new Error(`the hook closed before stderr matched ${waiter.pattern}; stderr:\n${hook.stderr}`))
      resolve({ code, signal, stdout: hook.stdout, stderr: hook.stderr })
    })
  })
  function flushWaiters() {
    while (hook.waiters.length > 0 && hook.read < hook.lines.length) hook.waiters.shift().resolve(hook.lines[hook.read++])
    if (isClosed) {
      for (const waiter of hook.waiters.splice(0)) {
        waiter.reject(new Error(`the hook closed (code ${child.exitCode}) before answering; stderr:\n${hook.stderr}`))
      }
    }
  }
  hook.send = (text) => child.stdin.write(text)
  hook.end = (text) => child.stdin.end(text)
  hook.nextLine = () =>
    new Promise((resolve, reject) => {
      hook.waiters.push({ resolve, reject })
      flushWaiters()
    })
  hook.nextJson = async () => JSON.parse(await hook.nextLine())
  hook.stderrMatches = (pattern) =>
    new Promise((resolve, reject) => {
      if (pattern.test(hook.stderr)) resolve(hook.stderr)
      else if (isClosed) reject(new Error(`the hook closed before stderr matched ${pattern}; stderr:\n${hook.stderr}`))
      else stderrWaiters.push({ pattern, resolve, reject })
    })
  return hook
}

function startNode(file, options) {
  return start(process.execPath, [file], options)
}

describe('serveHook in persistent mode (CLINE_HOOK_MODE=persistent)', () => {
  test('answers 300 events in order, one at a time and then pipelined, all from one process', async () => {
    const hook = startNode(script('echo-many', ECHO_HOOK))
    for (let id = 0; id < 150; id++) {
      hook.send(`${J({ id, text: `event ${id}` })}\n`)
      expect(await hook.nextJson()).toEqual({ id, pid: hook.child.pid, text: `event ${id}`, length: `event ${id}`.length })
    }
    let burst = ''
    for (let id = 150; id < 300; id++) burst += `${J({ id, text: `event ${id}` })}\n`
    hook.send(burst)
    for (let id = 150; id < 300; id++) {
      const answer = await hook.nextJson()
      expect(answer.id).toBe(id)
      expect(answer.pid).toBe(hook.child.pid)
    }
    hook.end()
    const { code, stderr } = await hook.closed
    expect(code).toBe(0)
    expect(stderr).toContain(`served ${J({ mode: 'persistent', events: 300 })}`)
  })

  test('reads lines cut anywhere: an event split across writes, a UTF-8 character cut in two, CRLF line ends', async () => {
    const hook = startNode(script('echo-cut', ECHO_HOOK))
    const text = 'héllo € 😀 end'
    const second = Buffer.from(`${J({ id: 2, text })}\r\n`)
    const cut = second.indexOf(Buffer.from('€')) + 1 // inside the three bytes of the euro sign
    // The first event whole (CRLF), then the second's first bytes, in one write.
    hook.send(Buffer.concat([Buffer.from(`${J({ id: 1, text: 'one' })}\r\n`), second.subarray(0, cut)]))
    expect(await hook.nextJson()).toMatchObject({ id: 1, text: 'one' })
    // The rest of the second event, a byte at a time for its first bytes.
    for (let i = cut; i < cut + 4; i++) hook.send(second.subarray(i, i + 1))
    hook.send(second.subarray(cut + 4))
    expect(await hook.nextJson()).toMatchObject({ id: 2, text, length: text.length })
    hook.end()
    expect((await hook.closed).code).toBe(0)
  })

  test('answers an event on a line of 8 MiB', async () => {
    const hook = startNode(script('echo-long', ECHO_HOOK))
    const text = `${'a'.repeat(8 * 1024 * 1024)}z`
    hook.send(`${J({ id: 'long', text })}\n${J({ id: 'after', text: 'short' })}\n`)
    const answer = await hook.nextJson()
    expect(answer.id).toBe('long')
    expect(answer.length).toBe(text.length)
    expect(answer.text.endsWith('az')).toBe(true)
    expect(await hook.nextJson()).toMatchObject({ id: 'after', text: 'short' })
    hook.end()
    expect((await hook.closed).code).toBe(0)
  })

  test('empty and blank lines are not events: no answer for them', async () => {
    const hook = startNode(script('echo-blank', ECHO_HOOK))
    hook.send(`\n\r\n   \n\t\r\n${J({ id: 1 })}\n\n`)
    expect(await hook.nextJson()).toMatchObject({ id: 1 })
    hook.end('\n')
    const { code, stdout, stderr } = await hook.closed
    expect(code).toBe(0)
    expect(stdout.split('\n').filter((line) => line.startsWith('{'))).toHaveLength(1)
    expect(stderr).toContain(`served ${J({ mode: 'persistent', events: 1 })}`)
  })

  test('returning nothing answers {}; a plain verdict is written as one line of compact JSON', async () => {
    const hook = startNode(script('echo-verdicts', ECHO_HOOK))
    hook.send(`${J({ nothing: true })}\n`)
    expect(await hook.nextLine()).toBe('{}')
    const verdict = { cancel: true, errorMessage: 'line one\nline two', contextModification: '' }
    hook.send(`${J({ verdict })}\n`)
    expect(await hook.nextLine()).toBe(J(verdict))
    hook.end()
    expect((await hook.closed).code).toBe(0)
  })

  test('EOF while an event is in flight: that event is answered, then the process exits 0', async () => {
    const hook = startNode(script('echo-eof', ECHO_HOOK))
    hook.send(`${J({ id: 1 })}\n`)
    expect(await hook.nextJson()).toMatchObject({ id: 1 })
    // The handler waits for stdin to end, so EOF arrives while it is in flight.
    hook.end(`${J({ id: 2, waitForEnd: true })}\n`)
    expect(await hook.nextJson()).toEqual({ id: 2, sawEnd: true })
    const { code, signal, stdout, stderr } = await hook.closed
    expect({ code, signal }).toEqual({ code: 0, signal: null })
    expect(stderr).toContain(`served ${J({ mode: 'persistent', events: 2 })}`)
    // The console is the process's own again once serving has ended.
    expect(stdout.endsWith('after serving\n')).toBe(true)
  })

  test('events received before EOF are all answered, in order, and a last line without a newline counts', async () => {
    const hook = startNode(script('echo-drain', ECHO_HOOK))
    hook.end(`${J({ id: 1, delayMs: 20 })}\n${J({ id: 2, delayMs: 1 })}\n${J({ id: 3 })}`)
    const { code, stdout } = await hook.closed
    expect(code).toBe(0)
    const answers = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line).id)
    expect(answers).toEqual([1, 2, 3])
  })

  test('a handler that throws: the error and its stack on stderr, exit code 1, earlier answers kept', async () => {
    const hook = startNode(script('echo-throw', ECHO_HOOK))
    hook.send(`${J({ id: 1 })}\n`)
    expect(await hook.nextJson()).toMatchObject({ id: 1 })
    hook.send(`${J({ id: 2, throw: 'the gate broke' })}\n`)
    const { code, stdout, stderr } = await hook.closed
    expect(code).toBe(1)
    expect(stdout.trim().split('\n')).toHaveLength(1)
    expect(stderr).toContain('the handler threw while answering event 2 (line 2 of stdin)')
    expect(stderr).toContain('Error: the gate broke')
    expect(stderr).toMatch(/\n\s+at .*echo-throw\.js/) // the stack, down to the hook's own file
    expect(stderr).not.toContain('served')
  })

  test('a handler that rejects, or returns null, an array, a string or an object whose toJSON is not one: exit code 1 with the reason on stderr', async () => {
    const cases = [
      [{ reject: 'no database' }, /the handler threw while answering event 1[\s\S]*Error: no database/],
      [{ verdict: null }, /the handler returned null for event 1 \(line 1 of stdin\), not a verdict object/],
      [{ verdict: [{ cancel: true }] }, /the handler returned an array for event 1/],
      [{ verdict: 'allow' }, /the handler returned a string \('allow'\) for event 1/],
      // A toJSON that writes the verdict as something else would be an answer that is none.
      [{ toJSON: 'allow' }, /the handler's verdict for event 1 \(line 1 of stdin\) is written by its toJSON as "allow", not a JSON object/],
    ]
    for (const [event, message] of cases) {
      const hook = startNode(script('echo-bad', ECHO_HOOK))
      hook.send(`${J(event)}\n`)
      const { code, stdout, stderr } = await hook.closed
      expect({ event, code, stdout }).toEqual({ event, code: 1, stdout: '' })
      expect(stderr).toMatch(message)
    }
  })

  test('a line that is not JSON, or JSON that is not an object: exit code 1, stderr names the line', async () => {
    const cases = [
      ['{"cancel": tru\n', /event 1 \(line 1 of stdin\) is not JSON \(.*\): "\{\\"cancel\\": tru"/],
      ['[1, 2]\n', /event 1 \(line 1 of stdin\) is an array, not a JSON object/],
      [`${J({ id: 1 })}\n\nplain text\n`, /event 2 \(line 3 of stdin\) is not JSON/],
    ]
    for (const [input, message] of cases) {
      const hook = startNode(script('echo-notjson', ECHO_HOOK))
      hook.send(input)
      const { code, stderr } = await hook.closed
      expect({ input, code }).toEqual({ input, code: 1 })
      expect(stderr).toMatch(message)
    }
  })

  test('console.log, info, debug, dir, table and process.stdout.write in the handler go to stderr: stdout holds only the answers', async () => {
    const hook = startNode(script('echo-logs', ECHO_HOOK))
    const forged = J({ cancel: true, errorMessage: 'forged' })
    for (let id = 1; id <= 3; id++) {
      hook.send(`${J({ id, logs: forged })}\n`)
      // The next stdout line is the answer, not one of the six log lines written before it.
      expect(await hook.nextJson()).toMatchObject({ id })
    }
    hook.end()
    const { code, stdout, stderr } = await hook.closed
    expect(code).toBe(0)
    expect(stdout).not.toContain('forged')
    expect(stdout.trim().split('\n')).toHaveLength(4) // three answers, then "after serving"
    expect(stderr.split(forged).length - 1).toBe(3 * 5) // log, info, debug, table's cell, write; dir prints it as an object
    expect(stderr).toContain("errorMessage: 'forged'") // console.dir
  })

  test('a runtime that reads stdout late: the hook waits (takes no further event) and every answer arrives whole, in order', async () => {
    const hook = startNode(script('echo-backpressure', ECHO_HOOK))
    hook.child.stdout.pause()
    const count = 24
    const answerBytes = 256 * 1024
    let burst = ''
    for (let id = 1; id <= count; id++) burst += `${J({ id, note: true, answerBytes })}\n`
    hook.send(burst)
    await hook.stderrMatches(/handling 1\n/)
    // The first answer (256 KiB) fills the pipe nobody reads. A hook that respected it takes no
    // further event until it drains, however long we wait: this window only bounds a negative.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(hook.stderr).not.toMatch(/handling [3-9]|handling \d\d/)
    hook.child.stdout.resume()
    for (let id = 1; id <= count; id++) {
      const answer = await hook.nextJson()
      expect(answer.id).toBe(id)
      expect(answer.pad).toHaveLength(answerBytes)
    }
    hook.end()
    expect((await hook.closed).code).toBe(0)
  })

  test('a runtime that closes the hook\'s stdout: the hook exits with code 1 and says why on stderr, once', async () => {
    const hook = startNode(script('echo-epipe', ECHO_HOOK))
    hook.child.stdout.destroy()
    hook.send(`${J({ id: 1 })}\n${J({ id: 2 })}\n`)
    const { code, stderr } = await hook.closed
    expect(code).toBe(1)
    expect(stderr.match(/serveHook: stdout failed \(did the runtime close it\?\)/g)).toHaveLength(1)
  })
})

describe('serveHook in per-event mode (no CLINE_HOOK_MODE)', () => {
  test('reads all of stdin as one JSON object (pretty-printed), answers once, exits 0', async () => {
    const hook = startNode(script('echo-once', ECHO_HOOK), { persistent: false })
    hook.end(`${JSON.stringify({ id: 'once', text: 'a\nb' }, null, 2)}\n`)
    const { code, stdout, stderr } = await hook.closed
    expect(code).toBe(0)
    const [answer, after, rest] = stdout.split('\n')
    expect(JSON.parse(answer)).toEqual({ id: 'once', pid: hook.child.pid, text: 'a\nb', length: 3 })
    expect([after, rest]).toEqual(['after serving', ''])
    expect(stderr).toContain(`served ${J({ mode: 'per-event', events: 1 })}`)
  })

  test('a handler that throws: its stack on stderr, no answer, exit code 1', async () => {
    const hook = startNode(script('echo-once-throw', ECHO_HOOK), { persistent: false })
    hook.end(J({ throw: 'per-event failure' }))
    const { code, stdout, stderr } = await hook.closed
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('the handler threw while answering the event on stdin')
    expect(stderr).toMatch(/Error: per-event failure\n\s+at /)
  })

  test('empty stdin is a failure (exit code 1) that says what a hook gets', async () => {
    const hook = startNode(script('echo-once-empty', ECHO_HOOK), { persistent: false })
    hook.end()
    const { code, stderr } = await hook.closed
    expect(code).toBe(1)
    expect(stderr).toContain('stdin is empty; a hook gets its event as one JSON object on stdin')
  })

  test("options.mode overrides the environment: 'per-event' reads all of stdin even with CLINE_HOOK_MODE=persistent", async () => {
    const file = script('mode-option', "serveHook((event) => ({ lines: event.a.length }), { mode: 'per-event' })")
    const hook = startNode(file, { persistent: true })
    hook.end('{"a":\n[1,\n2]}\n')
    const { code, stdout } = await hook.closed
    expect({ code, stdout }).toEqual({ code: 0, stdout: '{"lines":2}\n' })
  })
})

describe('serveHook: its arguments, its entry points', () => {
  test('a handler that is not a function, an unknown option or mode, and a second call are refused with an error naming them', () => {
    const file = script(
      'misuse',
      `
const attempts = [
  () => serveHook('not a function'),
  () => serveHook(() => {}, { mdoe: 'persistent' }),
  () => serveHook(() => {}, { mode: 'daemon' }),
]
for (const attempt of attempts) {
  try { attempt(); console.error('accepted') } catch (error) { console.error(error.name + ': ' + error.message) }
}
serveHook(() => ({ first: true }))
try { serveHook(() => ({ second: true })) } catch (error) { console.error(error.name + ': ' + error.message) }`,
    )
    const out = spawnSync(process.execPath, [file], { input: '{}', encoding: 'utf8', env: { ...process.env, CLINE_HOOK_MODE: '' } })
    expect(out.status).toBe(0)
    expect(out.stdout).toBe('{"first":true}\n')
    expect(out.stderr.trim().split('\n')).toEqual([
      "TypeError: serveHook(handler): handler must be a function (event) => verdict, not a string ('not a function')",
      "TypeError: serveHook: unknown option 'mdoe'; the options are mode",
      "TypeError: serveHook: options.mode must be 'persistent' or 'per-event', not 'daemon'",
      'Error: serveHook: this process already serves a hook on its stdin; call serveHook once',
    ])
  })

  test('ES module: import { serveHook } from "@cline/hooks/serve" is serve.mjs, the same function as the CommonJS one, and serves', async () => {
    const code = `
      import { serveHook } from '@cline/hooks/serve'
      import serve from '@cline/hooks/serve'
      import { createRequire } from 'node:module'
      const require = createRequire(import.meta.url)
      if (serveHook !== require('@cline/hooks/serve').serveHook || serve.serveHook !== serveHook) throw new Error('two copies')
      if (!import.meta.resolve('@cline/hooks/serve').endsWith('/serve.mjs')) throw new Error(import.meta.resolve('@cline/hooks/serve'))
      await serveHook(async (event) => ({ echo: event.n }))`
    const hook = start(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT })
    hook.send('{"n":1}\n')
    expect(await hook.nextJson()).toEqual({ echo: 1 })
    hook.end('{"n":2}\n')
    expect(await hook.nextJson()).toEqual({ echo: 2 })
    const { code: exitCode, stderr } = await hook.closed
    expect(stderr).toBe('')
    expect(exitCode).toBe(0)
  })
})

// serve.d.ts, checked by tsc (strict) as a hook author's TypeScript would be. TypeScript is a
// devDependency; the Windows lane installs only Jest, so there the test is skipped, as the VS Code
// example's are.
const tscPath = (() => {
  try {
    return require.resolve('typescript/bin/tsc')
  } catch {
    return null
  }
})()
const typesTest = isWindows && !tscPath ? (title, fn) => test.skip(`${title} (skipped on Windows: the Windows lane installs no TypeScript)`, fn) : test

typesTest('serve.d.ts: a typed handler checks under --strict; a verdict field of the wrong type and an unknown mode do not', () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'types-'))
  fs.writeFileSync(
    path.join(dir, 'hook.ts'),
    `import { serveHook, HookVerdict, ServeHookResult } from '@cline/hooks/serve'
interface PreToolUseInput { preToolUse?: { tool?: string; parameters?: { path?: string } } }
const done: Promise<ServeHookResult> = serveHook<PreToolUseInput>(async (event) => {
  if (event.preToolUse?.parameters?.path === '.env') return { cancel: true, errorMessage: 'no' }
  const verdict: HookVerdict = { contextModification: 'ok' }
  return verdict
}, { mode: 'persistent' })
serveHook(() => undefined)
serveHook((event) => (event.anything === 1 ? {} : undefined))
// @ts-expect-error cancel is a boolean
serveHook(() => ({ cancel: 'yes' }))
// @ts-expect-error the modes are 'persistent' and 'per-event'
serveHook(() => ({}), { mode: 'daemon' })
void done
`,
  )
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    J({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'commonjs', types: [], paths: { '@cline/hooks/serve': [SERVE.replace(/\.js$/, '.d.ts')] } },
      files: ['hook.ts'],
    }),
  )
  const out = spawnSync(process.execPath, [tscPath, '-p', dir], { encoding: 'utf8' })
  expect(out.stdout + out.stderr).toBe('')
  expect(out.status).toBe(0)
})

describe('examples/persistent: PreToolUse hooks that refuse writes to .env files', () => {
  const event = (tool, file) => J({ hookName: 'PreToolUse', preToolUse: { tool, parameters: { path: file, content: 'x' } } })
  const refused = (file) => ({ cancel: true, errorMessage: `${file} is an environment file: it holds secrets, so it is edited by hand, not by Cline.` })
  const allowed = { cancel: false }
  const cases = [
    [event('write_to_file', '.env'), refused('.env')],
    [event('write_to_file', 'src/app.ts'), allowed],
    [event('replace_in_file', 'config/.env.local'), refused('config/.env.local')],
    [event('read_file', '.env'), allowed],
    [event('write_to_file', '.envrc'), allowed],
    [event('write_to_file', 'deploy/.ENV.production'), refused('deploy/.ENV.production')],
    [event('write_to_file', 'a\nb/.env'), refused('a\nb/.env')],
    [J({ hookName: 'PreToolUse', preToolUse: { toolName: 'write_to_file', parameters: { path: '.env' } } }), refused('.env')],
    [event('write_to_file', 'C:\\repo\\.env.prod'), refused('C:\\repo\\.env.prod')],
    [event('write_to_file', 'x\t"y"/.env'), refused('x\t"y"/.env')],
  ]

  const examples = [
    ['bash', 'bash', '#'],
    ['python', 'python3', '#'],
    ['node', 'node', '//'],
  ]
  for (const [folder, interpreter, comment] of examples) {
    const file = path.join(EXAMPLES, folder, 'PreToolUse')
    const exampleTest = folder === 'node' ? test : scriptTest
    // Run as the runtime runs it: the file itself by its #! line (Node's through this node on Windows).
    const run = (options) => (isWindows ? start(process.execPath, [file], options) : start(file, [], options))

    exampleTest(`${folder}: a ${comment} cline-hook: mode=persistent header near the top, and on Unix the exec bit`, () => {
      const head = fs.readFileSync(file, 'utf8').split('\n').slice(0, 20)
      expect(head[0]).toBe(`#!/usr/bin/env ${interpreter}`)
      expect(head.some((line) => line.startsWith(`${comment} cline-hook: mode=persistent`))).toBe(true)
      if (!isWindows) expect(fs.statSync(file).mode & 0o111).toBe(0o111)
    })

    exampleTest(`${folder}: answers each event from one process, then exits 0 at EOF`, async () => {
      const hook = run()
      for (const [line, verdict] of cases) {
        hook.send(`${line}\n`)
        expect({ line, answer: await hook.nextJson() }).toEqual({ line, answer: verdict })
      }
      hook.send('\r\n') // a blank line is no event
      hook.end(`${event('write_to_file', 'last/.env')}\r\n`)
      expect(await hook.nextJson()).toEqual(refused('last/.env'))
      const { code, stdout, stderr } = await hook.closed
      expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' })
      expect(stdout.trim().split('\n')).toHaveLength(cases.length + 1)
      expect(hook.stderr).toMatch(/PreToolUse: replace_in_file "?config\/\.env\.local/) // its log, on stderr
    })

    exampleTest(`${folder}: an event that is not JSON: a non-zero exit code (a failure) with a message on stderr`, async () => {
      const hook = run()
      hook.send(`${cases[0][0]}\nnot json\n`)
      expect(await hook.nextJson()).toEqual(cases[0][1])
      const { code, stderr } = await hook.closed
      expect(code).toBeGreaterThan(0)
      expect(stderr.length).toBeGreaterThan(0)
    })
  }

  // bash: jq turns each event into one line; an event of an odd shape must still give one (an
  // event without an answer would wait for its timeout, and the next would read its answer).
  scriptTest('bash: an event of another shape (a field that is a number, a string, missing) is answered, allowed', async () => {
    const hook = start(path.join(EXAMPLES, 'bash', 'PreToolUse'), [])
    const odd = [{ preToolUse: { tool: 7, parameters: 'p' } }, { preToolUse: 'write_to_file' }, { hookName: 'PreToolUse' }, {}]
    for (const shape of odd) {
      hook.send(`${J(shape)}\n`)
      expect({ shape, answer: await hook.nextJson() }).toEqual({ shape, answer: allowed })
    }
    hook.end(`${event('write_to_file', '.env')}\n`)
    expect(await hook.nextJson()).toEqual(refused('.env'))
    expect((await hook.closed).code).toBe(0)
  })

  test('node: the same file answers in per-event mode (one JSON object, then EOF)', async () => {
    const file = path.join(EXAMPLES, 'node', 'PreToolUse')
    const hook = start(process.execPath, [file], { persistent: false })
    hook.end(JSON.stringify({ hookName: 'PreToolUse', preToolUse: { tool: 'write_to_file', parameters: { path: '.env' } } }, null, 2))
    const { code, stdout } = await hook.closed
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual(refused('.env'))
  })
})

describe('hookEventId', () => {
  test('persistent mode: each answer echoes its event\'s hookEventId, unless the verdict sets its own', async () => {
    const hook = startNode(script('echo-ids', ECHO_HOOK))
    hook.send(`${J({ id: 1, hookEventId: '41' })}\n`)
    expect(await hook.nextJson()).toMatchObject({ id: 1, hookEventId: '41' })
    hook.send(`${J({ id: 2, nothing: true, hookEventId: '42' })}\n`)
    expect(await hook.nextJson()).toEqual({ hookEventId: '42' })
    hook.send(`${J({ id: 3, verdict: { hookEventId: 'own' }, hookEventId: '43' })}\n`)
    expect(await hook.nextJson()).toEqual({ hookEventId: 'own' })
    hook.send(`${J({ id: 4 })}\n`)
    expect(await hook.nextJson()).not.toHaveProperty('hookEventId')
    hook.end()
    expect((await hook.closed).code).toBe(0)
  })
})
