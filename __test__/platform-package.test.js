'use strict'

// Issue 17: the entry point (index.js) checks the platform package before it loads the addon, so
// a missing, mismatched or foreign binary fails with an error that names what to install. The
// rules are unit-tested here; the loader is then required for real, in a child Node, from a copy
// of the package as npm lays it out (published files, node_modules/@cline/hooks-<platform>).

const fs = require('fs')
const path = require('path')
const { spawnSync } = require('child_process')

const { makeTempDir } = require('./helpers')
const { platformName, nativeProblem } = require('../platform-package.js')

describe('platformName', () => {
  test.each([
    [{ platform: 'linux', arch: 'x64', musl: false }, 'linux-x64-gnu'],
    [{ platform: 'linux', arch: 'x64', musl: true }, 'linux-x64-musl'],
    [{ platform: 'linux', arch: 'arm64', musl: false }, 'linux-arm64-gnu'],
    [{ platform: 'linux', arch: 'arm64', musl: true }, 'linux-arm64-musl'],
    [{ platform: 'linux', arch: 'arm', musl: false }, 'linux-arm-gnueabihf'],
    [{ platform: 'linux', arch: 'arm', musl: true }, 'linux-arm-musleabihf'],
    [{ platform: 'darwin', arch: 'arm64', musl: false }, 'darwin-arm64'],
    [{ platform: 'darwin', arch: 'x64', musl: false }, 'darwin-x64'],
    [{ platform: 'win32', arch: 'x64', musl: false }, 'win32-x64-msvc'],
    [{ platform: 'win32', arch: 'arm64', musl: false }, 'win32-arm64-msvc'],
    [{ platform: 'freebsd', arch: 'x64', musl: false }, 'freebsd-x64'],
  ])('%o is %s, as napi-rs names it', (machine, name) => {
    expect(platformName(machine)).toBe(name)
  })

  // Source checkout only: npm/ and napi's CLI are not in an installed copy of the package.
  const inSource = fs.existsSync(path.join(__dirname, '..', 'npm'))
  ;(inSource ? test : test.skip)('agrees with napi-rs on every target, and each has its npm/<platform> folder', () => {
    // The loader's rule and napi's names must agree, or it would look for a package no release
    // publishes.
    // napi's CLI is an ES module Jest cannot require: a child Node asks it.
    const script = "console.log(JSON.stringify(require('./package.json').napi.targets.map(require('@napi-rs/cli').parseTriple)))"
    const child = spawnSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..'), encoding: 'utf8', timeout: 30000 })
    expect(child.stderr).toBe('')
    const targets = JSON.parse(child.stdout)
    for (const t of targets) {
      const machine = { platform: t.platform, arch: t.arch, musl: String(t.abi).startsWith('musl') }
      expect([t.triple, platformName(machine)]).toEqual([t.triple, t.platformArchABI])
    }
    const folders = fs.readdirSync(path.join(__dirname, '..', 'npm')).sort()
    expect(targets.map((t) => t.platformArchABI).sort()).toEqual(folders)
  })
})

describe('nativeProblem', () => {
  const base = { packageName: '@cline/hooks', version: '1.2.3', platform: 'linux-x64-gnu', published: ['linux-x64-gnu', 'darwin-arm64'] }

  test('the right version installed: no problem', () => {
    expect(nativeProblem({ ...base, installed: { version: '1.2.3', dir: '/x' } })).toBeNull()
  })

  test('another version installed: names both versions, where, and the exact install command', () => {
    const problem = nativeProblem({ ...base, installed: { version: '1.2.2', dir: '/p/node_modules/@cline/hooks-linux-x64-gnu' } })
    expect(problem.code).toBe('ERR_CLINE_HOOKS_BINARY_VERSION')
    expect(problem.message).toContain('@cline/hooks-linux-x64-gnu 1.2.2 is installed (/p/node_modules/@cline/hooks-linux-x64-gnu)')
    expect(problem.message).toContain('`npm install @cline/hooks-linux-x64-gnu@1.2.3`')
  })

  test('not installed on a published platform: the install command and why npm skipped it', () => {
    const problem = nativeProblem({ ...base, installed: null })
    expect(problem.code).toBe('ERR_CLINE_HOOKS_BINARY_MISSING')
    expect(problem.message).toContain('`npm install @cline/hooks-linux-x64-gnu@1.2.3`')
    expect(problem.message).toContain('--omit=optional')
    expect(problem.message).not.toContain('npm run build')
  })

  test('not installed in a source checkout (nothing published): also says how to build it', () => {
    const problem = nativeProblem({ ...base, published: [], installed: null })
    expect(problem.code).toBe('ERR_CLINE_HOOKS_BINARY_MISSING')
    expect(problem.message).toContain('`npm run build`')
  })

  test('a platform no release builds: says so and lists the ones that exist', () => {
    const problem = nativeProblem({ ...base, platform: 'freebsd-x64', installed: null })
    expect(problem.code).toBe('ERR_CLINE_HOOKS_UNSUPPORTED_PLATFORM')
    expect(problem.message).toContain('no prebuilt binary for freebsd-x64; it ships linux-x64-gnu, darwin-arm64')
  })

  test('an installed package wins over the published list (a build of its own for that platform)', () => {
    expect(nativeProblem({ ...base, platform: 'freebsd-x64', installed: { version: '1.2.3', dir: '/x' } })).toBeNull()
  })
})

describe('the entry point, required for real from an npm-shaped install', () => {
  // This package as installed: its own directory (the repo, or node_modules/@cline/hooks).
  const PKG_DIR = path.dirname(require.resolve('@cline/hooks/package.json'))
  const manifest = JSON.parse(fs.readFileSync(path.join(PKG_DIR, 'package.json'), 'utf8'))
  require('@cline/hooks')
  const BINARY = Object.keys(require.cache).find((file) => file.endsWith('.node'))
  const musl = process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime
  const PLATFORM = platformName({ platform: process.platform, arch: process.arch, musl })
  const PLATFORM_PKG = `${manifest.name}-${PLATFORM}`

  /**
   * A project with the package's published files in node_modules/@cline/hooks and, unless
   * `platformVersion` is null, a platform package of that version holding `binary`.
   */
  function project({ platformVersion, binary = BINARY, rootChanges = {} }) {
    const dir = makeTempDir('cline-loader-')
    const root = path.join(dir, 'node_modules', manifest.name)
    fs.mkdirSync(root, { recursive: true })
    for (const entry of manifest.files) {
      fs.cpSync(path.join(PKG_DIR, entry), path.join(root, entry), { recursive: true })
    }
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ ...manifest, ...rootChanges }))
    if (platformVersion !== null) {
      const native = path.join(dir, 'node_modules', PLATFORM_PKG)
      const file = `${manifest.napi.binaryName}.${PLATFORM}.node`
      fs.mkdirSync(native, { recursive: true })
      fs.writeFileSync(path.join(native, 'package.json'), JSON.stringify({ name: PLATFORM_PKG, version: platformVersion, main: file }))
      if (Buffer.isBuffer(binary)) fs.writeFileSync(path.join(native, file), binary)
      else fs.copyFileSync(binary, path.join(native, file))
    }
    return dir
  }

  /** Requires the package in a child Node from `dir`; returns what loaded or the error. */
  function load(dir, prelude = '') {
    const script = `${prelude}
      try {
        const h = require(${JSON.stringify(manifest.name)})
        const loaded = Object.keys(require.cache).filter((f) => f.endsWith('.node'))
        console.log(JSON.stringify({ ok: typeof h.runHook === 'function', loaded }))
      } catch (e) {
        const loaded = Object.keys(require.cache).filter((f) => f.endsWith('.node'))
        console.log(JSON.stringify({ code: e.code, message: e.message, loaded }))
      }`
    const env = { ...process.env }
    delete env.NAPI_RS_NATIVE_LIBRARY_PATH
    const child = spawnSync(process.execPath, ['-e', script], { cwd: dir, env, encoding: 'utf8', timeout: 30000 })
    expect(child.status).toBe(0)
    return JSON.parse(child.stdout)
  }

  test('the matching platform package loads, from node_modules', () => {
    const dir = project({ platformVersion: manifest.version })
    const result = load(dir)
    expect(result.ok).toBe(true)
    expect(result.loaded).toEqual([fs.realpathSync(path.join(dir, 'node_modules', PLATFORM_PKG, `${manifest.napi.binaryName}.${PLATFORM}.node`))])
  })

  test('a host that replaced JSON.parse before the require still loads it (the check reads with Node\'s own parser)', () => {
    const dir = project({ platformVersion: manifest.version })
    const result = load(dir, "JSON.parse = () => { throw new Error('JSON.parse is disabled in this host') }")
    expect(result.ok).toBe(true)
    expect(result.loaded).toHaveLength(1)
  })

  test('no platform package: the error names the package and version to install', () => {
    const result = load(project({ platformVersion: null }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_MISSING')
    expect(result.message).toContain(`npm install ${PLATFORM_PKG}@${manifest.version}`)
  })

  test('a platform package of another version: refused before its binary is loaded', () => {
    const result = load(project({ platformVersion: '0.0.1-other' }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_VERSION')
    expect(result.message).toContain(`${PLATFORM_PKG} 0.0.1-other is installed`)
    expect(result.loaded).toEqual([])
    expect(result.message).toContain(`npm install ${PLATFORM_PKG}@${manifest.version}`)
  })

  test('a platform this release does not publish: says which ones it does', () => {
    const result = load(project({ platformVersion: null, rootChanges: { optionalDependencies: { [`${manifest.name}-elsewhere-x64`]: manifest.version } } }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_UNSUPPORTED_PLATFORM')
    expect(result.message).toContain(`no prebuilt binary for ${PLATFORM}; it ships elsewhere-x64`)
  })

  test('the right package with a damaged binary: the error says what the loader saw', () => {
    const result = load(project({ platformVersion: manifest.version, binary: Buffer.from('not a shared object\n') }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_LOAD')
    expect(result.message).toContain(`found ${PLATFORM_PKG}@${manifest.version} but could not load its binary: `)
    // The system's reason, which names the file, not the loader's fallbacks it could not find.
    expect(result.message.split('could not load its binary: ')[1]).toContain(`${manifest.napi.binaryName}.${PLATFORM}.node`)
    expect(result.message).not.toContain('Cannot find module')
  })
})
