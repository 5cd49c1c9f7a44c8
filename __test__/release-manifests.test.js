'use strict'

// Issue 17: the rules scripts/release.js applies before it publishes (scripts/release-manifests.js):
// what stops a release, what a platform package copies from the root, and what each tarball may
// hold. `npm run test:release` runs them for real against a local registry. Source checkout only:
// scripts/ is not published, so an installed copy of the package skips these.

const fs = require('fs')
const path = require('path')

const RULES = path.join(__dirname, '..', 'scripts', 'release-manifests.js')
const inSource = fs.existsSync(RULES)
const { platformManifest, releaseProblems, artifactProblem, contentProblems } = inSource ? require(RULES) : {}
const describeInSource = inSource ? describe : describe.skip

const root = {
  name: '@cline/hooks',
  version: '1.2.3',
  license: 'Apache-2.0',
  keywords: ['cline'],
  homepage: 'https://github.com/cline/hooks#readme',
  repository: { type: 'git', url: 'git+https://github.com/cline/hooks.git' },
  bugs: { url: 'https://github.com/cline/hooks/issues' },
  engines: { node: '>= 18' },
  publishConfig: { access: 'public' },
  main: 'index.js',
  types: 'index.d.ts',
  bin: { 'cline-hooks': 'bin/cline-hooks.js' },
  exports: { '.': { types: './index.d.ts', default: './index.js' }, './sdk': { import: './sdk/index.mjs', default: './sdk/index.js' }, './package.json': './package.json' },
  files: ['index.js', 'index.d.ts', 'sdk/', 'bin/'],
  napi: { binaryName: 'cline-hooks' },
}
// napi's parseTriple of each target.
const linux = { triple: 'x86_64-unknown-linux-gnu', platformArchABI: 'linux-x64-gnu', platform: 'linux', arch: 'x64', abi: 'gnu' }
const mac = { triple: 'aarch64-apple-darwin', platformArchABI: 'darwin-arm64', platform: 'darwin', arch: 'arm64', abi: null }
const muslArm = { triple: 'aarch64-unknown-linux-musl', platformArchABI: 'linux-arm64-musl', platform: 'linux', arch: 'arm64', abi: 'musl' }
const platformPackage = (folder, extra = {}) => ({
  name: `@cline/hooks-${folder}`,
  version: '1.2.3',
  os: [folder.split('-')[0]],
  cpu: [folder.split('-')[1]],
  ...(folder.startsWith('linux-') ? { libc: [folder.endsWith('musl') ? 'musl' : 'glibc'] } : {}),
  main: `cline-hooks.${folder}.node`,
  files: [`cline-hooks.${folder}.node`],
  ...extra,
})
const good = { root, tag: 'v1.2.3', targets: [linux, mac], platforms: { 'linux-x64-gnu': platformPackage('linux-x64-gnu'), 'darwin-arm64': platformPackage('darwin-arm64') } }

describeInSource('releaseProblems', () => {
  test('a releasable checkout has none, with the tag or without one', () => {
    expect(releaseProblems(good)).toEqual([])
    expect(releaseProblems({ ...good, tag: null })).toEqual([])
  })

  test('a tag that is not v<version>', () => {
    expect(releaseProblems({ ...good, tag: 'v1.2.4' })).toEqual(['the tag v1.2.4 is not v1.2.3, package.json\'s version'])
  })

  test('a repository other than the GitHub one the release runs in (provenance would refuse it)', () => {
    expect(releaseProblems({ ...good, github: 'cline/hooks' })).toEqual([])
    expect(releaseProblems({ ...good, github: 'Cline/Hooks' })).toEqual([])
    expect(releaseProblems({ ...good, github: 'cline/hook' })).toEqual([
      'package.json repository is git+https://github.com/cline/hooks.git, not github.com/cline/hook, where this release runs (npm provenance would refuse it)',
    ])
    expect(releaseProblems({ ...good, github: 'someone/cline/hooks' })).toHaveLength(1)
  })

  test('no repository URL (provenance), no public access, a registry pinned in publishConfig (plain or scoped)', () => {
    const { repository, ...bare } = root
    expect(releaseProblems({ ...good, root: { ...bare, publishConfig: { registry: 'https://x', '@cline:registry': 'https://y' } } })).toEqual([
      'package.json repository.url is undefined, not a https://github.com/OWNER/NAME URL (npm publish --provenance needs it)',
      'package.json publishConfig.access is not "public" (a scoped package is private by default)',
      'package.json publishConfig["registry"] is set: it would override what a release or rehearsal chooses',
      'package.json publishConfig["@cline:registry"] is set: it would override what a release or rehearsal chooses',
    ])
    expect(releaseProblems({ ...good, root: { ...root, publishConfig: { access: 'public', tag: 'next' } } })).toEqual([
      'package.json publishConfig["tag"] is set: it would override what a release or rehearsal chooses',
    ])
    for (const broken of [{ type: 'git' }, 42, 'https://gitlab.com/cline/hooks']) {
      expect(releaseProblems({ ...good, root: { ...root, repository: broken } })).toHaveLength(1)
    }
  })

  test('os, cpu and libc must be the target\'s own, or npm installs the package on the wrong machines', () => {
    const platforms = {
      'linux-x64-gnu': platformPackage('linux-x64-gnu', { cpu: ['arm64'] }),
      'darwin-arm64': platformPackage('darwin-arm64', { os: ['linux'] }),
      'linux-arm64-musl': platformPackage('linux-arm64-musl', { libc: ['glibc'] }),
    }
    expect(releaseProblems({ ...good, targets: [linux, mac, muslArm], platforms })).toEqual([
      'npm/linux-x64-gnu cpu is ["arm64"], not ["x64"]',
      'npm/darwin-arm64 os is ["linux"], not ["darwin"]',
      'npm/linux-arm64-musl libc is ["glibc"], not ["musl"]',
    ])
  })

  test('a platform package behind the root, misnamed, or without libc; a target without a folder; a folder without a target', () => {
    const platforms = {
      'linux-x64-gnu': platformPackage('linux-x64-gnu', { version: '1.2.2', libc: undefined }),
      'darwin-arm64': platformPackage('darwin-arm64', { name: '@cline/other' }),
      'freebsd-x64': platformPackage('freebsd-x64'),
    }
    const win = { triple: 'x86_64-pc-windows-msvc', platformArchABI: 'win32-x64-msvc', platform: 'win32', arch: 'x64', abi: 'msvc' }
    expect(releaseProblems({ ...good, targets: [linux, mac, win], platforms })).toEqual([
      'npm/linux-x64-gnu is version 1.2.2, not 1.2.3 (run `npx napi version`)',
      'npm/linux-x64-gnu libc is undefined, not ["glibc"]',
      'npm/darwin-arm64 is named @cline/other, not @cline/hooks-darwin-arm64',
      'target x86_64-pc-windows-msvc has no npm/win32-x64-msvc/package.json',
      'npm/freebsd-x64 is not a target in package.json napi.targets',
    ])
  })
})

describeInSource('platformManifest', () => {
  test('takes the root\'s version and project fields, keeps its own name, os, cpu, libc and files', () => {
    const next = platformManifest(root, platformPackage('linux-x64-gnu', { version: '0.0.1', description: 'own' }))
    expect(next).toMatchObject({
      name: '@cline/hooks-linux-x64-gnu',
      version: '1.2.3',
      description: 'own',
      repository: root.repository,
      homepage: root.homepage,
      bugs: root.bugs,
      license: 'Apache-2.0',
      publishConfig: { access: 'public' },
      os: ['linux'],
      libc: ['glibc'],
      files: ['cline-hooks.linux-x64-gnu.node'],
    })
  })
})

describeInSource('artifactProblem', () => {
  // The binary this process loaded: a real one of this machine's format.
  require('@cline/hooks')
  const loaded = fs.readFileSync(Object.keys(require.cache).find((file) => file.endsWith('.node')))
  const head = loaded.subarray(0, 4096)
  const here = {
    triple: 'this machine',
    platformArchABI: 'here',
    platform: process.platform === 'win32' || process.platform === 'darwin' ? process.platform : 'linux',
    arch: process.arch,
  }

  test('this machine\'s binary fits its own target', () => {
    expect(artifactProblem(here, loaded.length, head)).toBeNull()
  })

  test('refused for a target of another architecture or system (an x64 file published as arm64)', () => {
    const other = { ...here, platformArchABI: 'other', arch: process.arch === 'arm64' ? 'x64' : 'arm64' }
    expect(artifactProblem(other, loaded.length, head)).toBe(`the other binary is ${here.platform} ${process.arch}, not ${here.platform} ${other.arch}`)
    expect(artifactProblem({ ...here, platform: 'darwin' }, loaded.length, head)).toContain('not darwin')
  })

  test('refused when empty, tiny, or shorter than its own headers say', () => {
    expect(artifactProblem(here, 0, Buffer.alloc(0))).toContain('not a shared library')
    expect(artifactProblem(here, 4096, head)).toMatch(/is 4096 bytes/)
  })
})

describeInSource('contentProblems', () => {
  const rootFiles = ['LICENSE', 'README.md', 'package.json', 'index.js', 'index.d.ts', 'sdk/index.js', 'sdk/index.mjs', 'bin/cline-hooks.js']
  const sized = (files, size = 1000) => files.map((file) => ({ path: file, size }))

  test('the root package with its entry points and nothing else passes', () => {
    expect(contentProblems(root, sized(rootFiles), { platform: false })).toEqual([])
  })

  test('tests and their helpers, fixtures, mocks, sources, maps, dot folders and binaries in the root are refused', () => {
    const extra = [
      'sdk/index.test.js',
      'sdk/verdicts.spec.js',
      'sdk/__mocks__/binding.js',
      'sdk/test-helpers.js',
      'sdk/fixtures.js',
      'sdk/fixtures/hook.js',
      'bin/.cache/x.js',
      'index.js.map',
      'cline-hooks.linux-x64-gnu.node',
      'sdk/notes.txt',
      'src/lib.rs',
    ]
    expect(contentProblems(root, sized([...rootFiles, ...extra]), { platform: false })).toEqual(
      extra.map((file) => `@cline/hooks ships ${file}, which it should not`),
    )
  })

  test('an entry point package.json names but the tarball lacks', () => {
    expect(contentProblems(root, sized(rootFiles.filter((f) => f !== 'sdk/index.mjs' && f !== 'LICENSE')), { platform: false })).toEqual([
      '@cline/hooks does not ship LICENSE',
      '@cline/hooks does not ship sdk/index.mjs, which package.json names',
    ])
  })

  test('a file one of its files requires, unshipped (a `files` entry dropped); the loader\'s optional .node files are not required', () => {
    const sources = {
      'index.js': "require('./binding.js'); require('./platform-package.js'); try { require('./cline-hooks.linux-x64-gnu.node') } catch {}",
      'sdk/index.js': "require('..'); require('./payloads')",
      'sdk/index.mjs': "export * from './index.js'; import '../side-effect.mjs'; const later = () => require(`./later.js`); require(`./${'$'}{dynamic}`)",
    }
    const withBinding = { ...root, files: [...root.files, 'binding.js'] }
    expect(contentProblems(withBinding, sized([...rootFiles, 'binding.js', 'sdk/payloads.js']), { platform: false, sources })).toEqual([
      '@cline/hooks ships index.js, which needs ./platform-package.js, which it does not ship',
      '@cline/hooks ships sdk/index.mjs, which needs ../side-effect.mjs, which it does not ship',
      '@cline/hooks ships sdk/index.mjs, which needs ./later.js, which it does not ship',
    ])
  })

  test('over budget: a root over 1 MiB, or one file over 256 KiB', () => {
    expect(contentProblems(root, [...sized(rootFiles), { path: 'sdk/big.js', size: 50e6 }], { platform: false })).toEqual([
      '@cline/hooks unpacks to 50008000 bytes, over its 1048576-byte budget',
      '@cline/hooks ships sdk/big.js of 50000000 bytes, over the 262144-byte budget for one file',
    ])
  })

  test('a platform package holds its binary, README, LICENSE and package.json only', () => {
    const manifest = platformPackage('linux-x64-gnu')
    const files = ['LICENSE', 'README.md', 'package.json', 'cline-hooks.linux-x64-gnu.node']
    expect(contentProblems(manifest, sized(files, 2e6), { platform: true })).toEqual([])
    expect(contentProblems(manifest, [...sized(files.slice(0, 3)), { path: files[3], size: 0 }], { platform: true })).toEqual([
      "@cline/hooks-linux-x64-gnu's binary cline-hooks.linux-x64-gnu.node is 0 bytes: no build of this addon is under 262144",
    ])
    expect(contentProblems(manifest, sized([...files, 'index.js'], 2e6), { platform: true })).toEqual(['@cline/hooks-linux-x64-gnu ships index.js, which it should not'])
    expect(contentProblems(manifest, sized(files.slice(0, 3)), { platform: true })).toEqual(['@cline/hooks-linux-x64-gnu does not ship cline-hooks.linux-x64-gnu.node, which package.json names'])
  })
})
