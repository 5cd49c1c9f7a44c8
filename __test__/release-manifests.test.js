'use strict'

// Issue 17: the rules scripts/release.js applies before it publishes (scripts/release-manifests.js):
// what stops a release, what a platform package copies from the root, and what each tarball may
// hold. `npm run test:release` runs them for real against a local registry. Source checkout only:
// scripts/ is not published, so an installed copy of the package skips these.

const fs = require('fs')
const path = require('path')

const RULES = path.join(__dirname, '..', 'scripts', 'release-manifests.js')
const inSource = fs.existsSync(RULES)
const { platformManifest, releaseProblems, contentProblems } = inSource ? require(RULES) : {}
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
const linux = { triple: 'x86_64-unknown-linux-gnu', platformArchABI: 'linux-x64-gnu' }
const mac = { triple: 'aarch64-apple-darwin', platformArchABI: 'darwin-arm64' }
const platformPackage = (folder, extra = {}) => ({
  name: `@cline/hooks-${folder}`,
  version: '1.2.3',
  os: [folder.split('-')[0]],
  cpu: [folder.split('-')[1]],
  ...(folder.startsWith('linux-') ? { libc: ['glibc'] } : {}),
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

  test('no repository (provenance), no public access, a registry pinned in publishConfig', () => {
    const { repository, ...bare } = root
    expect(releaseProblems({ ...good, root: { ...bare, publishConfig: { registry: 'https://x' } } })).toEqual([
      'package.json has no repository (npm publish --provenance needs it)',
      'package.json publishConfig.access is not "public" (a scoped package is private by default)',
      'package.json publishConfig.registry is set: it would override the registry a release or rehearsal chooses',
    ])
  })

  test('a platform package behind the root, misnamed, or without libc; a target without a folder; a folder without a target', () => {
    const platforms = {
      'linux-x64-gnu': platformPackage('linux-x64-gnu', { version: '1.2.2', libc: undefined }),
      'darwin-arm64': platformPackage('darwin-arm64', { name: '@cline/other' }),
      'freebsd-x64': platformPackage('freebsd-x64'),
    }
    const win = { triple: 'x86_64-pc-windows-msvc', platformArchABI: 'win32-x64-msvc' }
    expect(releaseProblems({ ...good, targets: [linux, mac, win], platforms })).toEqual([
      'npm/linux-x64-gnu is version 1.2.2, not 1.2.3 (run `npx napi version`)',
      'npm/linux-x64-gnu has no libc (npm would install it on musl and glibc alike)',
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

describeInSource('contentProblems', () => {
  const rootFiles = ['LICENSE', 'README.md', 'package.json', 'index.js', 'index.d.ts', 'sdk/index.js', 'sdk/index.mjs', 'bin/cline-hooks.js']

  test('the root package with its entry points and nothing else passes', () => {
    expect(contentProblems(root, rootFiles, { platform: false })).toEqual([])
  })

  test('tests, fixtures, sources, maps, dot folders and binaries in the root are refused', () => {
    const extra = ['sdk/index.test.js', 'sdk/fixtures/hook.js', 'bin/.cache/x.js', 'index.js.map', 'cline-hooks.linux-x64-gnu.node', 'sdk/notes.txt', 'src/lib.rs']
    expect(contentProblems(root, [...rootFiles, ...extra], { platform: false })).toEqual(
      extra.map((file) => `@cline/hooks ships ${file}, which it should not`),
    )
  })

  test('an entry point package.json names but the tarball lacks', () => {
    expect(contentProblems(root, rootFiles.filter((f) => f !== 'sdk/index.mjs' && f !== 'LICENSE'), { platform: false })).toEqual([
      '@cline/hooks does not ship LICENSE',
      '@cline/hooks does not ship sdk/index.mjs, which package.json names',
    ])
  })

  test('a platform package holds its binary, README, LICENSE and package.json only', () => {
    const manifest = platformPackage('linux-x64-gnu')
    const files = ['LICENSE', 'README.md', 'package.json', 'cline-hooks.linux-x64-gnu.node']
    expect(contentProblems(manifest, files, { platform: true })).toEqual([])
    expect(contentProblems(manifest, [...files, 'index.js'], { platform: true })).toEqual(['@cline/hooks-linux-x64-gnu ships index.js, which it should not'])
    expect(contentProblems(manifest, files.slice(0, 3), { platform: true })).toEqual(['@cline/hooks-linux-x64-gnu does not ship cline-hooks.linux-x64-gnu.node, which package.json names'])
  })
})
