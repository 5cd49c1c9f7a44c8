'use strict'
// What the release's package manifests must say: the problems that stop a release, and the fields
// each platform package takes from the root package. Pure; scripts/release.js reads and writes.

// Fields a platform package copies from the root, so npm shows one project on every page.
const SHARED_FIELDS = ['version', 'license', 'engines', 'homepage', 'repository', 'bugs', 'publishConfig']

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/

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
 * - `targets`: napi's target of each `napi.targets` triple (`{ triple, platformArchABI }`);
 * - `platforms`: npm/<platform>/package.json of each folder there, by folder name.
 */
function releaseProblems({ root, tag, github = null, targets, platforms }) {
  const problems = []
  if (!SEMVER.test(String(root.version))) problems.push(`package.json version "${root.version}" is not a semver version`)
  if (tag !== null && tag !== `v${root.version}`) problems.push(`the tag ${tag} is not v${root.version}, package.json's version`)
  const repository = root.repository && (root.repository.url || root.repository)
  if (!repository) problems.push('package.json has no repository (npm publish --provenance needs it)')
  else if (github !== null && !new RegExp(`github\\.com[/:]${github.replace(/[.]/g, '\\.')}(\\.git)?$`, 'i').test(repository)) {
    problems.push(`package.json repository is ${repository}, not github.com/${github}, where this release runs (npm provenance would refuse it)`)
  }
  for (const field of ['homepage', 'bugs', 'license', 'keywords']) {
    if (root[field] === undefined) problems.push(`package.json has no ${field}`)
  }
  if (!root.publishConfig || root.publishConfig.access !== 'public') {
    problems.push('package.json publishConfig.access is not "public" (a scoped package is private by default)')
  }
  if (root.publishConfig && root.publishConfig.registry) {
    problems.push('package.json publishConfig.registry is set: it would override the registry a release or rehearsal chooses')
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
    for (const field of ['os', 'cpu']) {
      if (!Array.isArray(manifest[field]) || manifest[field].length === 0) problems.push(`npm/${folder} has no ${field}`)
    }
    if (folder.startsWith('linux-') && !Array.isArray(manifest.libc)) problems.push(`npm/${folder} has no libc (npm would install it on musl and glibc alike)`)
  }
  for (const folder of Object.keys(platforms)) {
    if (!expected.has(folder)) problems.push(`npm/${folder} is not a target in package.json napi.targets`)
  }
  return problems
}

// What no published package may hold: tests, fixtures, sources, builds and caches.
const NEVER_SHIPPED = /(^|\/)(__test__|tests?|fixtures?|e2e|examples|benchmark|scripts|src|crates|target|node_modules|npm|artifacts|\.[^/]+)(\/|$)|\.(rs|map|tsbuildinfo|tgz|log)$|\.test\.[cm]?js$/
const ALWAYS_SHIPPED = ['package.json', 'README.md', 'LICENSE']

// Every file a manifest names as an entry point: main, types, bin and each exports target.
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
 * Why the file list of a package's tarball (`npm pack --dry-run --json` paths) is not what it
 * should be, as sentences. The root package holds README, LICENSE, package.json and the JavaScript
 * and type files under its `files` entries, each entry point among them; a platform package holds
 * those three and its one binary.
 */
function contentProblems(manifest, files, { platform }) {
  const problems = []
  const have = new Set(files)
  for (const file of ALWAYS_SHIPPED) if (!have.has(file)) problems.push(`${manifest.name} does not ship ${file}`)
  for (const file of entryPoints(manifest)) if (!have.has(file)) problems.push(`${manifest.name} does not ship ${file}, which package.json names`)
  for (const file of files) {
    if (ALWAYS_SHIPPED.includes(file)) continue
    const allowed = platform
      ? file === manifest.main
      : /\.(c|m)?js$|\.d\.ts$/.test(file) && !NEVER_SHIPPED.test(file) && manifest.files.some((entry) => file === entry || file.startsWith(entry.replace(/\/?$/, '/')))
    if (!allowed) problems.push(`${manifest.name} ships ${file}, which it should not`)
  }
  return problems
}

module.exports = { SHARED_FIELDS, platformManifest, releaseProblems, contentProblems }
