'use strict'

// "No cancel is ever dropped": one table of every way a hook can end after printing
// {"cancel": true}, each run through the built addon with a real hook. The run must resolve
// with `cancel: true`, except when it is aborted by its own AbortSignal, which rejects (the
// caller asked for no verdict at all).

const fs = require('fs')
const path = require('path')

const { addon, describeUnix, makeTempDir, writeHook, waitFor } = require('./helpers')

const { runHook, terminateAll } = addon

const CANCEL = `echo '{"cancel": true, "errorMessage": "blocked by the gate"}'`

/** Every way to end after the verdict: the hook body, options, and what to do while it runs. */
const WAYS = [
  { way: 'exits with code 1', body: `${CANCEL}\nexit 1` },
  { way: 'is killed by SIGKILL', body: `${CANCEL}\nkill -9 $$` },
  { way: 'prints junk after it', body: `${CANCEL}\necho 'all done.'` },
  { way: 'prints an array after it', body: `${CANCEL}\necho '[1, 2]'` },
  { way: "prints a lone ']' after it", body: `${CANCEL}\necho ']'` },
  { way: 'prints it as a 1,000-line pretty object', body: `jq -n '{cancel: true, findings: [range(1000) | {line: .}]}'` },
  { way: 'prints it after a prefix on the same line', body: `printf 'gate: {"cancel": true}\\n'` },
  { way: 'prints it after another object on the same line', body: `echo '{"cancel": false} {"cancel": true}'` },
  { way: 'prints it after 256 lines that open arrays never closed', body: `for i in $(seq 256); do echo '["x",'; done\n${CANCEL}` },
  { way: 'prints a HOOK_CONTROL log line before it (extension profile)', body: `printf 'HOOK_CONTROL\\t{"cancel": false}\\n'\n${CANCEL}` },
  { way: 'prints it as an indented HOOK_CONTROL line (CLI profile)', body: `printf '  HOOK_CONTROL\\t{"cancel": true}\\n'\necho '{"cancel": false}'`, profile: 'cli' },
  { way: 'prints a truncated HOOK_CONTROL line after it (CLI profile)', body: `printf 'HOOK_CONTROL\\t{"cancel": true}\\nHOOK_CONTROL\\t{"cancel": tr\\n'`, profile: 'cli' },
  { way: 'prints it after 100 KB of logs, then 3 MB more', body: `head -c 100000 /dev/zero | tr '\\0' l\necho\n${CANCEL}\nhead -c 3000000 /dev/zero | tr '\\0' x` },
  { way: 'leaves a background child holding stdout', body: `${CANCEL}\nsleep 5 &` },
  { way: 'floods 1 GiB of output after it', body: `${CANCEL}\nhead -c 1073741824 /dev/zero | tr '\\0' x` },
  { way: 'times out', body: `${CANCEL}\nsleep 30`, options: { timeoutMs: 1000 }, status: 'timedOut' },
  { way: 'is stopped by terminateAll()', body: `${CANCEL}\ntouch ready\nsleep 30`, during: 'terminateAll', status: 'aborted' },
  { way: 'is aborted by its AbortSignal (the run rejects)', body: `${CANCEL}\ntouch ready\nsleep 30`, during: 'abort' },
]

describeUnix('no cancel is ever dropped', () => {
  test.each(WAYS)('a gate that printed {"cancel": true} and then $way still blocks', async ({ body, options = {}, profile, during, status }) => {
    const tmp = makeTempDir()
    const dir = path.join(tmp, 'hooks')
    writeHook(dir, profile === 'cli' ? 'PreToolUse.sh' : 'PreToolUse', `cd ${JSON.stringify(tmp)}\n${body}`)
    const controller = new AbortController()
    const run = runHook('PreToolUse', { preToolUse: { toolName: 'write_to_file' } }, {
      globalHooksDir: null,
      extraHooksDirs: [dir],
      ...(profile ? { profile, clineDir: path.join(tmp, 'cline') } : {}),
      signal: controller.signal,
      ...options,
    })
    if (during) {
      await waitFor(() => fs.existsSync(path.join(tmp, 'ready')), { what: 'the verdict printed' })
      if (during === 'abort') {
        controller.abort()
        await expect(run).rejects.toMatchObject({ name: 'AbortError' })
        return
      }
      expect(await terminateAll()).toBe(1)
    }
    const result = await run
    expect(result.hooks).toHaveLength(1)
    if (status) expect(result.hooks[0].status).toBe(status)
    expect(result.hooks[0].cancel).toBe(true)
    expect(result.cancel).toBe(true)
  }, 30000)
})
