'use strict'

// Issue 17: the entry point (index.js) checks the platform package before it loads the addon, so
// a missing, mismatched or foreign binary fails with an error that names what to install. The
// rules are unit-tested here; the loader is then required for real, in a child Node, from a copy
// of the package as npm lays it out (published files, node_modules/@cline/hooks-<platform>).

const fs = require('fs')
const path = require('path')

const { makeTempDir, nodeSync } = require('./helpers')
const { platformName, binaryFormat, nativeProblem, binaryProblem } = require('../platform-package.js')

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
    const child = nodeSync(['-e', script], { cwd: path.join(__dirname, '..'), encoding: 'utf8', timeout: 30000 })
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
    expect(problem.message).toContain('`npm install --no-save @cline/hooks-linux-x64-gnu@1.2.3`')
  })

  test('not installed on a published platform: the install command and why npm skipped it', () => {
    const problem = nativeProblem({ ...base, installed: null })
    expect(problem.code).toBe('ERR_CLINE_HOOKS_BINARY_MISSING')
    // --no-save: a platform package saved in package.json breaks installs on other platforms.
    expect(problem.message).toContain('`npm install --no-save @cline/hooks-linux-x64-gnu@1.2.3`')
    expect(problem.message).toContain('--omit=optional')
    expect(problem.message).not.toContain('npm run build')
    expect(problem.message).not.toContain('outside node_modules')
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

  test('a platform package whose package.json cannot be read: says so, and to delete it before installing', () => {
    const problem = nativeProblem({ ...base, installed: { dir: '/p/x', unreadable: 'has no version' } })
    expect(problem.code).toBe('ERR_CLINE_HOOKS_BINARY_VERSION')
    expect(problem.message).toContain('at /p/x is: its package.json has no version. Delete /p/x and run `npm install --no-save @cline/hooks-linux-x64-gnu@1.2.3`')
  })

  test('a linked copy (npm link, file:): says Node looks from the link target, and what works there', () => {
    const problem = nativeProblem({ ...base, installed: null, linkedFrom: '/src/hooks' })
    expect(problem.message).toContain('This @cline/hooks is at /src/hooks, outside node_modules (npm link or a file: dependency)')
    expect(problem.message).toContain('run `npm run build` there; otherwise install @cline/hooks-linux-x64-gnu in your project and run Node with --preserve-symlinks.')
  })
})

describe('binaryFormat and binaryProblem', () => {
  // A minimal 64-bit little-endian ELF header for `machine` whose section headers end at `end`.
  function elf(machine, end) {
    const b = Buffer.alloc(64)
    b.write('\x7fELF', 0, 'latin1')
    b[4] = 2 // 64-bit
    b[5] = 1 // little-endian
    b.writeUInt16LE(machine, 18)
    b.writeBigUInt64LE(BigInt(end - 64 * 10), 0x28) // e_shoff
    b.writeUInt16LE(64, 0x3a) // e_shentsize
    b.writeUInt16LE(10, 0x3c) // e_shnum
    return b
  }
  const machOArm64 = Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0x00, 0x00, 0x01])
  function pe(machine) {
    const b = Buffer.alloc(0x100)
    b.write('MZ', 0, 'latin1')
    b.writeUInt32LE(0x80, 0x3c)
    b.write('PE\0\0', 0x80, 'latin1')
    b.writeUInt16LE(machine, 0x84)
    return b
  }

  test('reads the platform and architecture of ELF, Mach-O and PE files, and nothing else', () => {
    expect(binaryFormat(elf(0x3e, 5000))).toEqual({ platform: 'linux', arch: 'x64', minSize: 5000 })
    expect(binaryFormat(elf(0xb7, 5000))).toMatchObject({ platform: 'linux', arch: 'arm64' })
    expect(binaryFormat(machOArm64)).toMatchObject({ platform: 'darwin', arch: 'arm64' })
    // A universal Mach-O shares its magic with Java class files, and no release ships one.
    expect(binaryFormat(Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]))).toBeNull()
    expect(binaryFormat(pe(0x8664))).toMatchObject({ platform: 'win32', arch: 'x64' })
    expect(binaryFormat(pe(0xaa64))).toMatchObject({ platform: 'win32', arch: 'arm64' })
    for (const junk of [Buffer.alloc(0), Buffer.from('not a shared object\n'), Buffer.from('MZ'), elf(0x9999, 5000)]) {
      expect(binaryFormat(junk)).toBeNull()
    }
  })

  test('a PE file needs the end of its last section; a header claiming more than 4 KiB holds is not trusted', () => {
    const b = pe(0x8664)
    b.writeUInt16LE(1, 0x86) // one section
    b.writeUInt32LE(0x1000, 0x80 + 24 + 16) // SizeOfRawData
    b.writeUInt32LE(0x400, 0x80 + 24 + 20) // PointerToRawData
    expect(binaryFormat(b).minSize).toBe(0x1400)
    b.writeUInt16LE(0xffff, 0x86) // 65535 sections: the table runs past the bytes given
    expect(binaryFormat(b).minSize).toBe(-1)
  })

  test('the binary this process loaded is read as this machine\'s, and needs exactly its own size', () => {
    require('@cline/hooks')
    const loaded = Object.keys(require.cache).find((file) => file.endsWith('.node'))
    const bytes = fs.readFileSync(loaded)
    const format = binaryFormat(bytes.subarray(0, 4096))
    expect(format).toMatchObject({ platform: process.platform === 'win32' || process.platform === 'darwin' ? process.platform : 'linux', arch: process.arch })
    expect(format.minSize).toBe(bytes.length)
  })

  const at = { file: '/p/x.node', dir: '/p', wanted: '@cline/hooks-linux-x64-gnu@1.2.3', machine: { platform: 'linux', arch: 'x64' } }

  test('a binary that fits: no problem', () => {
    expect(binaryProblem({ ...at, size: 5000, recordedSize: 5000, format: binaryFormat(elf(0x3e, 5000)) })).toBeNull()
  })

  test('absent: MISSING, with the reason and the reinstall', () => {
    const problem = binaryProblem({ ...at, size: null, openError: 'ENOENT', format: null })
    expect(problem.code).toBe('ERR_CLINE_HOOKS_BINARY_MISSING')
    expect(problem.message).toBe('@cline/hooks-linux-x64-gnu@1.2.3 is installed at /p, but its binary /p/x.node cannot be opened (ENOENT). Delete /p and run `npm install --no-save @cline/hooks-linux-x64-gnu@1.2.3`.')
  })

  test('not the size the release recorded, or shorter than its own headers: INVALID, never loaded', () => {
    expect(binaryProblem({ ...at, size: 4000, recordedSize: 5000, format: binaryFormat(elf(0x3e, 5000)) })).toMatchObject({
      code: 'ERR_CLINE_HOOKS_BINARY_INVALID',
      message: expect.stringContaining("/p/x.node is 4000 bytes, but the release's is 5000"),
    })
    expect(binaryProblem({ ...at, size: 4000, format: binaryFormat(elf(0x3e, 5000)) })).toMatchObject({
      code: 'ERR_CLINE_HOOKS_BINARY_INVALID',
      message: expect.stringContaining('/p/x.node is 4000 bytes, but its own headers need 5000: the file is cut off'),
    })
  })

  test('built for another machine, or no binary at all: INVALID, naming both', () => {
    expect(binaryProblem({ ...at, size: 5000, format: binaryFormat(elf(0xb7, 5000)) }).message).toContain('/p/x.node is ELF arm64, not a Node addon for this machine (ELF x64)')
    expect(binaryProblem({ ...at, size: 5000, format: binaryFormat(pe(0x8664)) }).message).toContain('is PE x64, not a Node addon')
    expect(binaryProblem({ ...at, size: 5000, format: null }).message).toContain('is not a shared library, not a Node addon')
    expect(binaryProblem({ ...at, machine: { platform: 'darwin', arch: 'arm64' }, size: 5000, format: binaryFormat(machOArm64) })).toBeNull()
  })

  test('a binary named by NAPI_RS_NATIVE_LIBRARY_PATH (a source): the fix is the variable, not a reinstall', () => {
    const source = { file: '/b/x.node', machine: at.machine, source: 'NAPI_RS_NATIVE_LIBRARY_PATH' }
    expect(binaryProblem({ ...source, size: null, openError: 'ENOENT', format: null })).toEqual({
      code: 'ERR_CLINE_HOOKS_BINARY_LOAD',
      message: '/b/x.node, named by NAPI_RS_NATIVE_LIBRARY_PATH, cannot be opened (ENOENT). Fix NAPI_RS_NATIVE_LIBRARY_PATH.',
    })
    expect(binaryProblem({ ...source, size: 4000, format: binaryFormat(elf(0x3e, 5000)) }).message).toMatch(/cut off.*Fix NAPI_RS_NATIVE_LIBRARY_PATH\.$/)
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
  function project({ platformVersion, binary = BINARY, rootChanges = {}, platformChanges = {} }) {
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
      fs.writeFileSync(path.join(native, 'package.json'), JSON.stringify({ name: PLATFORM_PKG, version: platformVersion, main: file, ...platformChanges }))
      if (Buffer.isBuffer(binary)) fs.writeFileSync(path.join(native, file), binary)
      else if (binary !== null) fs.copyFileSync(binary, path.join(native, file))
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
    const child = nodeSync(['-e', script], { cwd: dir, env, encoding: 'utf8', timeout: 30000 })
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
    expect(result.message).toContain(`npm install --no-save ${PLATFORM_PKG}@${manifest.version}`)
  })

  test('a platform package of another version: refused before its binary is loaded', () => {
    const result = load(project({ platformVersion: '0.0.1-other' }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_VERSION')
    expect(result.message).toContain(`${PLATFORM_PKG} 0.0.1-other is installed`)
    expect(result.loaded).toEqual([])
    expect(result.message).toContain(`npm install --no-save ${PLATFORM_PKG}@${manifest.version}`)
  })

  test('a platform this release does not publish: says which ones it does', () => {
    const result = load(project({ platformVersion: null, rootChanges: { optionalDependencies: { [`${manifest.name}-elsewhere-x64`]: manifest.version } } }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_UNSUPPORTED_PLATFORM')
    expect(result.message).toContain(`no prebuilt binary for ${PLATFORM}; it ships elsewhere-x64`)
  })

  test('the right package with a text file for a binary: refused before loading (INVALID)', () => {
    const result = load(project({ platformVersion: manifest.version, binary: Buffer.from('not a shared object\n') }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_INVALID')
    expect(result.message).toContain('is not a shared library, not a Node addon for this machine')
    expect(result.loaded).toEqual([])
  })

  test('a cut-off binary (a download that stopped) is refused, where loading it would kill the process with SIGBUS', () => {
    const cut = fs.readFileSync(BINARY).subarray(0, 65536)
    const result = load(project({ platformVersion: manifest.version, binary: cut }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_INVALID')
    expect(result.loaded).toEqual([])
    // And with the size the release records in the platform package: named in the message.
    const recorded = load(project({ platformVersion: manifest.version, binary: cut, platformChanges: { clineHooksBinary: { size: fs.statSync(BINARY).size } } }))
    expect(recorded.message).toContain(`is 65536 bytes, but the release's is ${fs.statSync(BINARY).size}`)
  })

  test('a platform package without its binary file: MISSING, naming the file', () => {
    const result = load(project({ platformVersion: manifest.version, binary: null }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_MISSING')
    expect(result.message).toContain(`${manifest.napi.binaryName}.${PLATFORM}.node cannot be opened`)
  })

  test('a platform package.json without a version, or that is not JSON: says its package.json is the problem', () => {
    const noVersion = load(project({ platformVersion: manifest.version, platformChanges: { version: undefined } }))
    expect(noVersion.code).toBe('ERR_CLINE_HOOKS_BINARY_VERSION')
    expect(noVersion.message).toContain('its package.json has no version')
    const dir = project({ platformVersion: manifest.version })
    fs.writeFileSync(path.join(dir, 'node_modules', PLATFORM_PKG, 'package.json'), '{ not json')
    const broken = load(dir)
    expect(broken.code).toBe('ERR_CLINE_HOOKS_BINARY_VERSION')
    expect(broken.message).toContain('its package.json is not valid')
  })

  test('NAPI_RS_NATIVE_LIBRARY_PATH naming a missing, a text or a cut-off file: a coded error that names the variable, nothing loaded', () => {
    const dir = makeTempDir('cline-loader-')
    const cases = [
      [path.join(dir, 'missing.node'), null, 'ERR_CLINE_HOOKS_BINARY_LOAD', 'cannot be opened'],
      [path.join(dir, 'text.node'), Buffer.from('not a shared object\n'), 'ERR_CLINE_HOOKS_BINARY_INVALID', 'is not a shared library'],
      [path.join(dir, 'cut.node'), fs.readFileSync(BINARY).subarray(0, 65536), 'ERR_CLINE_HOOKS_BINARY_INVALID', 'the file is cut off'],
    ]
    for (const [file, bytes, code, says] of cases) {
      if (bytes) fs.writeFileSync(file, bytes)
      const result = load(project({ platformVersion: manifest.version }), `process.env.NAPI_RS_NATIVE_LIBRARY_PATH = ${JSON.stringify(file)}`)
      expect([file, result.code]).toEqual([file, code])
      expect(result.message).toContain(says)
      expect(result.message).toContain('Fix NAPI_RS_NATIVE_LIBRARY_PATH.')
      expect(result.loaded).toEqual([])
    }
  })

  // Issue 32: a package installed outside the workspace (globally, or next to the Cline CLI) with
  // the workspace as the current directory. Node's module search, which napi-rs's generated
  // loader used, also looks in NODE_PATH (a relative entry is relative to the current directory)
  // and ~/.node_modules, so a repository could ship the "platform package" whose binary then ran
  // in the process. Here the workspace's one is a real addon of this release, so every check
  // passes: only where the loader looks keeps it out.
  describe('the platform package comes only from beside the package, never from NODE_PATH or ~/.node_modules', () => {
    /** A global install at dir/global/lib/node_modules (with its own platform package when `platform`). */
    function globalInstall(dir, { platform }) {
      const modules = path.join(dir, 'global', 'lib', 'node_modules')
      const root = path.join(modules, manifest.name)
      fs.mkdirSync(root, { recursive: true })
      for (const entry of manifest.files) fs.cpSync(path.join(PKG_DIR, entry), path.join(root, entry), { recursive: true })
      fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(manifest))
      if (platform) platformPackage(path.join(modules, PLATFORM_PKG))
      return root
    }

    function platformPackage(native) {
      const file = `${manifest.napi.binaryName}.${PLATFORM}.node`
      fs.mkdirSync(native, { recursive: true })
      fs.writeFileSync(path.join(native, 'package.json'), JSON.stringify({ name: PLATFORM_PKG, version: manifest.version, main: file }))
      fs.copyFileSync(BINARY, path.join(native, file))
    }

    /** A workspace shipping the platform package in node_modules and ~/.node_modules (HOME is the workspace). */
    function hostileWorkspace(dir) {
      const ws = path.join(dir, 'ws')
      platformPackage(path.join(ws, 'node_modules', PLATFORM_PKG))
      platformPackage(path.join(ws, '.node_modules', PLATFORM_PKG))
      return ws
    }

    /** Requires `file` in a child Node run in `ws` with NODE_PATH=node_modules and HOME=ws. */
    function loadFrom(ws, file) {
      const script = `
        let outcome
        try { require(${JSON.stringify(file)}); outcome = { ok: true } } catch (e) { outcome = { code: e.code, message: e.message } }
        outcome.loaded = Object.keys(require.cache).filter((f) => f.endsWith('.node'))
        console.log(JSON.stringify(outcome))`
      const env = { ...process.env, NODE_PATH: 'node_modules', HOME: ws, CLINE_HOOKS_PLUGIN_FOLDERS: '' }
      delete env.NAPI_RS_NATIVE_LIBRARY_PATH
      delete env.CLINE_HOOKS_PACKAGE
      const child = nodeSync(['-e', script], { cwd: ws, env, encoding: 'utf8', timeout: 30000 })
      expect(child.stderr).not.toMatch(/^\s*at /m)
      expect(child.status).toBe(0)
      return JSON.parse(child.stdout)
    }

    test.each([['the package (index.js)', 'index.js'], ['the Cline CLI plugin', 'cline-plugin.js']])(
      '%s without a platform package beside it: MISSING, and the workspace\'s binary is never loaded',
      (_, entry) => {
        const dir = makeTempDir('cline-loader-')
        const root = globalInstall(dir, { platform: false })
        const result = loadFrom(hostileWorkspace(dir), path.join(root, entry))
        expect(result.loaded).toEqual([])
        expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_MISSING')
        expect(result.message).toContain(`npm install --no-save ${PLATFORM_PKG}@${manifest.version}`)
      },
    )

    test('with its platform package beside it: that one is loaded, not the workspace\'s', () => {
      const dir = makeTempDir('cline-loader-')
      const root = globalInstall(dir, { platform: true })
      const result = loadFrom(hostileWorkspace(dir), path.join(root, 'cline-plugin.js'))
      expect(result.loaded).toEqual([fs.realpathSync(path.join(dir, 'global', 'lib', 'node_modules', PLATFORM_PKG, `${manifest.napi.binaryName}.${PLATFORM}.node`))])
    })

    test('one in the package\'s own node_modules is found too (npm nests it there on a version conflict)', () => {
      const dir = project({ platformVersion: null })
      platformPackage(path.join(dir, 'node_modules', manifest.name, 'node_modules', PLATFORM_PKG))
      const result = load(dir)
      expect(result.ok).toBe(true)
      expect(result.loaded).toEqual([fs.realpathSync(path.join(dir, 'node_modules', manifest.name, 'node_modules', PLATFORM_PKG, `${manifest.napi.binaryName}.${PLATFORM}.node`))])
    })
  })

  test('every export index.d.ts declares is a named export for ES module import', () => {
    const declared = [...fs.readFileSync(path.join(PKG_DIR, 'index.d.ts'), 'utf8').matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1])
    // A file URL: import() takes no Windows path.
    const script = `import(${JSON.stringify(require('url').pathToFileURL(path.join(PKG_DIR, 'index.js')).href)}).then((m) => console.log(JSON.stringify(Object.keys(m))))`
    const child = nodeSync(['-e', script], { encoding: 'utf8', timeout: 30000 })
    expect(child.status).toBe(0)
    expect(JSON.parse(child.stdout).sort()).toEqual([...declared, 'default'].sort())
  })

  // A real shared library that is not a Node addon passes every check before loading and fails
  // in the system's loader: Linux, where one is found in /proc/self/maps.
  ;(process.platform === 'linux' ? test : test.skip)('a shared library that is not a Node addon: LOAD, with the system\'s reason (Linux: a library from /proc/self/maps)', () => {
    const lib = fs
      .readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .map((line) => line.slice(line.indexOf('/')))
      .find((file) => /\/lib[^/]*\.so[.\d]*$/.test(file) && !file.includes('ld-linux') && !file.endsWith('.node'))
    const result = load(project({ platformVersion: manifest.version, binary: lib }))
    expect(result.code).toBe('ERR_CLINE_HOOKS_BINARY_LOAD')
    expect(result.message).toContain(`could not load its binary from ${PLATFORM_PKG}@${manifest.version}: `)
    expect(result.message).not.toContain('Cannot find module')
  })
})
