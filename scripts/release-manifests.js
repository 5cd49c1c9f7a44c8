'use strict'
// What the release's packages must be: the problems that stop a release (manifests, binaries,
// tarball contents), and the fields each platform package takes from the root package. Pure;
// scripts/release.js reads and writes.

const { posix } = require('path')
const { binaryFormat, expectedFormat, formatFits } = require('../platform-package.js')

// Fields a platform package copies from the root, so npm shows one project on every page.
const SHARED_FIELDS = ['version', 'license', 'engines', 'homepage', 'repository', 'bugs', 'publishConfig']

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/

/**
 * The `os`, `cpu` and `libc` a target's platform package must declare (npm installs it on the
 * machines that match them), from napi's parseTriple of the target.
 */
function npmSelectors(target) {
  const libc = target.platform !== 'linux' ? undefined : String(target.abi).startsWith('musl') ? ['musl'] : ['glibc']
  return { os: [target.platform], cpu: [target.arch], libc }
}

/** The platform manifest with the root's shared fields. */
function platformManifest(root, manifest) {
  const next = { ...manifest }
  for (const field of SHARED_FIELDS) if (root[field] !== undefined) next[field] = root[field]
  return next
}

/**
 * Every reason the checkout cannot be released, as sentences; empty when it can.
 *
 * - `root`: the root package.json;
 * - `tag`: the git tag being released (`v1.2.3`), or null when not releasing from a tag;
 * - `github`: the GitHub repository the release runs in (`owner/name`), or null: npm provenance
 *   refuses a package whose `repository` is another one;
 * - `targets`: napi's target of each `napi.targets` triple (`{ triple, platformArchABI, platform,
 *   arch, abi }`, from its parseTriple);
 * - `platforms`: npm/<platform>/package.json of each folder there, by folder name.
 */
function releaseProblems({ root, tag, github = null, targets, platforms }) {
  const problems = []
  if (!SEMVER.test(String(root.version))) problems.push(`package.json version "${root.version}" is not a semver version`)
  if (tag !== null && tag !== `v${root.version}`) problems.push(`the tag ${tag} is not v${root.version}, package.json's version`)
  const repository = root.repository && typeof root.repository === 'object' ? root.repository.url : root.repository
  if (typeof repository !== 'string' || !/^(git\+)?https:\/\/github\.com\/[^/]+\/[^/]+?(\.git)?$/.test(repository)) {
    problems.push(`package.json repository.url is ${JSON.stringify(repository)}, not a https://github.com/OWNER/NAME URL (npm publish --provenance needs it)`)
  }
  else if (github !== null && !new RegExp(`github\\.com[/:]${github.replace(/[.]/g, '\\.')}(\\.git)?$`, 'i').test(repository)) {
    problems.push(`package.json repository is ${repository}, not github.com/${github}, where this release runs (npm provenance would refuse it)`)
  }
  for (const field of ['homepage', 'bugs', 'license', 'keywords']) {
    if (root[field] === undefined) problems.push(`package.json has no ${field}`)
  }
  if (!root.publishConfig || root.publishConfig.access !== 'public') {
    problems.push('package.json publishConfig.access is not "public" (a scoped package is private by default)')
  }
  // Only access: any other key (a registry, a tag, provenance) would override what the release or
  // the rehearsal chooses.
  for (const key of Object.keys(root.publishConfig || {}).filter((k) => k !== 'access')) {
    problems.push(`package.json publishConfig["${key}"] is set: it would override what a release or rehearsal chooses`)
  }
  const binaryName = root.napi && root.napi.binaryName
  const expected = new Set()
  for (const target of targets) {
    const folder = target.platformArchABI
    expected.add(folder)
    const manifest = platforms[folder]
    if (!manifest) {
      problems.push(`target ${target.triple} has no npm/${folder}/package.json`)
      continue
    }
    const binary = `${binaryName}.${folder}.node`
    if (manifest.name !== `${root.name}-${folder}`) problems.push(`npm/${folder} is named ${manifest.name}, not ${root.name}-${folder}`)
    if (manifest.version !== root.version) {
      problems.push(`npm/${folder} is version ${manifest.version}, not ${root.version} (run \`npx napi version\`)`)
    }
    if (manifest.main !== binary) problems.push(`npm/${folder} main is ${manifest.main}, not ${binary}`)
    if (!Array.isArray(manifest.files) || !manifest.files.includes(binary)) problems.push(`npm/${folder} files does not list ${binary}`)
    // npm picks the package by these: a wrong one installs it on the wrong machines.
    for (const [field, want] of Object.entries(npmSelectors(target))) {
      if (JSON.stringify(manifest[field]) !== JSON.stringify(want)) {
        problems.push(`npm/${folder} ${field} is ${JSON.stringify(manifest[field])}, not ${JSON.stringify(want)}`)
      }
    }
  }
  for (const folder of Object.keys(platforms)) {
    if (!expected.has(folder)) problems.push(`npm/${folder} is not a target in package.json napi.targets`)
  }
  return problems
}

/**
 * Why `bytes` (a build artifact's first 4 KiB, `size` bytes in all) cannot be `target`'s binary,
 * or null: another format or architecture, or cut off. (The loader's twin, platform-package.js
 * binaryProblem, judges an installed binary for this machine, with the release's size record.)
 */
function artifactProblem(target, size, bytes) {
  const format = binaryFormat(bytes)
  const want = expectedFormat(target)
  if (!formatFits(format, target)) {
    const found = format ? `${format.platform} ${format.arch}` : 'not a shared library'
    return `the ${target.platformArchABI} binary is ${found}, not ${want.platform} ${want.arch}`
  }
  if (size < MIN_BINARY_BYTES) return `the ${target.platformArchABI} binary is ${size} bytes: no build of this addon is under ${MIN_BINARY_BYTES}`
  if (format.minSize > size) return `the ${target.platformArchABI} binary is ${size} bytes, but its headers need ${format.minSize}: it is cut off`
  return null
}
const MIN_BINARY_BYTES = 256 * 1024

// What no published package may hold: tests and their helpers, fixtures, mocks, sources, builds
// and caches.
const NEVER_SHIPPED = /(^|\/)(__[^/]*__|tests?|fixtures?|mocks?|e2e|examples|benchmark|scripts|src|crates|target|node_modules|npm|artifacts|\.[^/]+)(\/|$)|(^|\/)(tests?|fixtures?|mocks?)[-_.][^/]*$|\.(rs|map|tsbuildinfo|tgz|log)$|\.(test|spec)\.[cm]?[jt]s$/
// Budgets: the root holds JavaScript and types (about 250 kB today); a platform package one binary.
const ROOT_MAX_BYTES = 1024 * 1024
const FILE_MAX_BYTES = 256 * 1024
const ALWAYS_SHIPPED = ['package.json', 'README.md', 'LICENSE']

// Every file a manifest names as an entry point: main, types, bin and each exports target.
/** A subpath pattern of `exports` (`schemas/*`) as a regular expression over shipped paths. */
function patternOf(pattern) {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`)
}

/** Documents the root package ships beside README and LICENSE, when `files` names them. */
const DOCUMENTS = ['CHANGELOG.md']

function entryPoints(manifest) {
  const entries = new Set()
  const add = (file) => typeof file === 'string' && entries.add(file.replace(/^\.\//, ''))
  add(manifest.main)
  add(manifest.types)
  for (const file of Object.values(typeof manifest.bin === 'string' ? { bin: manifest.bin } : manifest.bin || {})) add(file)
  const walk = (value) => (typeof value === 'string' ? add(value) : value && Object.values(value).forEach(walk))
  walk(manifest.exports)
  return entries
}

/**
 * Why a package's tarball is not what it should be, as sentences. `entries` are the `{ path,
 * size }` of `npm pack --dry-run --json`; `sources` the text of each shipped JavaScript file. The
 * root package holds README, LICENSE, package.json and the JavaScript and type files under its
 * `files` entries, each entry point and each file they require among them, within its size
 * budgets; a platform package holds those three and its one binary.
 */
function contentProblems(manifest, entries, { platform, sources = {} }) {
  const problems = []
  const files = entries.map((e) => e.path)
  const have = new Set(files)
  if (!platform) {
    const total = entries.reduce((sum, e) => sum + e.size, 0)
    if (total > ROOT_MAX_BYTES) problems.push(`${manifest.name} unpacks to ${total} bytes, over its ${ROOT_MAX_BYTES}-byte budget`)
    for (const e of entries) if (e.size > FILE_MAX_BYTES) problems.push(`${manifest.name} ships ${e.path} of ${e.size} bytes, over the ${FILE_MAX_BYTES}-byte budget for one file`)
  }
  // Every relative require() or import of a shipped file must be shipped too, but for the
  // loader's optional binaries (.node, WASI), which the platform packages hold.
  for (const [file, text] of Object.entries(sources)) {
    // require('…'), import … from '…', import '…', import('…'); a template literal without ${}.
    for (const [, , specifier] of text.matchAll(/(?:require\(|from|import\(?)\s*(['"`])(\.\.?(?:\/[^'"`$]*)?)\1/g)) {
      if (/\.node$|\.wasi[^/]*$/.test(specifier)) continue
      // The path inside the package ('.' for the package's own folder: its main).
      const target = posix.join(posix.dirname(file), specifier).replace(/\/$/, '')
      const candidates = target === '.' ? [manifest.main || 'index.js'] : [target, `${target}.js`, `${target}/index.js`]
      const found = candidates.some((candidate) => have.has(candidate))
      if (!found) problems.push(`${manifest.name} ships ${file}, which needs ${specifier}, which it does not ship`)
    }
  }
  const binary = platform && entries.find((e) => e.path === manifest.main)
  if (binary && binary.size < MIN_BINARY_BYTES) problems.push(`${manifest.name}'s binary ${binary.path} is ${binary.size} bytes: no build of this addon is under ${MIN_BINARY_BYTES}`)
  for (const file of ALWAYS_SHIPPED) if (!have.has(file)) problems.push(`${manifest.name} does not ship ${file}`)
  for (const file of entryPoints(manifest)) {
    // A subpath pattern (`./schemas/*`) names every file it matches: at least one must ship.
    const shipped = file.includes('*') ? files.some((f) => patternOf(file).test(f)) : have.has(file)
    if (!shipped) problems.push(`${manifest.name} does not ship ${file}, which package.json names`)
  }
  for (const file of files) {
    if (ALWAYS_SHIPPED.includes(file)) continue
    const allowed = platform
      ? file === manifest.main
      : (DOCUMENTS.includes(file) || /\.(c|m)?js$|\.d\.ts$|\.schema\.json$/.test(file)) &&
        !NEVER_SHIPPED.test(file) &&
        manifest.files.some((entry) => file === entry || file.startsWith(entry.replace(/\/?$/, '/')))
    if (!allowed) problems.push(`${manifest.name} ships ${file}, which it should not`)
  }
  return problems
}

module.exports = { npmSelectors, platformManifest, releaseProblems, artifactProblem, contentProblems }
