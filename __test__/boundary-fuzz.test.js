'use strict'

// Issue 10, B3: the addon boundary, fuzzed. The loop runs in a child process (a crash of the
// host must fail this test, not kill Jest), for BOUNDARY_FUZZ_MS (default 15 s) with a printed
// seed (BOUNDARY_FUZZ_SEED replays one). See fixtures/boundary/fuzz.js for what it calls.
//
// It runs on both platforms. The fixture's one hook is an extensionless shell script: on
// Windows only the CLI profile takes it, and runs it only where a shell is found, so whether a
// good `env` reaches a hook is checked on Unix; every call is fuzzed the same.

const path = require('path')

const { isWindows, nodeSync } = require('./helpers')

const FUZZ = path.join(__dirname, 'fixtures', 'boundary', 'fuzz.js')
const DURATION_MS = Number(process.env.BOUNDARY_FUZZ_MS || 15000)

describe('B3: the addon boundary under generated hostile calls', () => {
  test(
    `the host never dies and every failure is a rejection with a documented code${isWindows ? " (on Windows the fixture's shell-script hook runs only where a shell is found)" : ''}`,
    () => {
      const child = nodeSync([FUZZ, path.join(__dirname, '..')], {
        encoding: 'utf8',
        timeout: DURATION_MS + 60000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, BOUNDARY_FUZZ_MS: String(DURATION_MS) },
      })
      const lines = child.stdout.trim().split('\n')
      const seed = lines[0]
      let summary
      try {
        summary = JSON.parse(lines[lines.length - 1])
      } catch {
        summary = { stdout: child.stdout }
      }
      const { violations } = summary
      const status = child.status
      // The seed is in every failure message, to replay the run.
      expect({ seed, signal: child.signal, status, stderr: child.stderr, violations }).toEqual({
        seed,
        signal: null,
        status: 0,
        stderr: '',
        violations: [],
      })
      expect(summary.calls).toBeGreaterThan(500)
      // Not only rejections: real runs happened too.
      expect(summary.resolved).toBeGreaterThan(50)
    },
    DURATION_MS + 90000,
  )
})
