#!/usr/bin/env node
'use strict'
// The release, one step per command. The GitHub workflow's publish job runs these on a `v*` tag,
// and `npm run test:release` runs the same ones against a local registry, so the rehearsal and the
// release cannot drift apart:
//
//   node scripts/release.js check [--tag vX.Y.Z] [--repository OWNER/NAME]
//                                                     the manifests can be released (and match the
//                                                     tag, and the GitHub repository)
//   node scripts/release.js prepare --artifacts DIR [--only-present]
//                                                     each binary is its target's (format, arch,
//                                                     whole) and goes into npm/<platform>/, whose
//                                                     manifest gets the root's fields and the
//                                                     binary's size and sha256
//   node scripts/release.js contents                  each tarball holds only what it should
//                                                     (npm pack --dry-run of every package)
//   node scripts/release.js publish [--provenance] [--dist-tag TAG]
//                                                     napi prepublish (every platform package, and
//                                                     optionalDependencies), then the root package
//   node scripts/release.js verify [--dist-tag TAG]   the registry serves every package as published
//                                                     (each platform binary by its sha256)
//
// Run from the checkout being released: `prepare` and `publish` write into it (npm/<platform>/,
// package.json), which is why the workflow runs them in its throwaway checkout and the rehearsal in
// a copy. `--only-present` (rehearsal only) releases the targets whose binary is in DIR and says
// which it leaves out; a real release needs them all. The registry is npm's configured one.

const fs = require('fs')
const path = require('path')
const { execFileSync } = require('child_process')
const { parseArgs } = require('util')
const { parseTriple } = require('@napi-rs/cli')
const os = require('os')
const { createHash } = require('crypto')
const { platformManifest, releaseProblems, artifactProblem, contentProblems } = require('./release-manifests.js')

const log = (message) => console.log(`[release] ${message}`)
class ReleaseError extends Error {}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'))
}
function writeJson(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n')
}

// `known` maps each option to 'flag' or 'value'; anything else is refused.
function options(argv, known) {
  const spec = Object.fromEntries(Object.entries(known).map(([name, kind]) => [name, { type: kind === 'flag' ? 'boolean' : 'string' }]))
  try {
    return parseArgs({ args: argv, options: spec, strict: true, allowPositionals: false }).values
  } catch (error) {
    throw new ReleaseError(error.message)
  }
}

function platformManifests() {
  const manifests = {}
  for (const folder of fs.readdirSync('npm')) {
    const file = path.join('npm', folder, 'package.json')
    if (fs.existsSync(file)) manifests[folder] = readJson(file)
  }
  return manifests
}

function run(command, args, env = process.env) {
  log(`$ ${[command, ...args].join(' ')}`)
  execFileSync(command, args, { stdio: 'inherit', env })
}

function check(args) {
  const root = readJson('package.json')
  const problems = releaseProblems({
    root,
    tag: args.tag === undefined ? null : args.tag,
    github: args.repository === undefined ? null : args.repository,
    targets: root.napi.targets.map(parseTriple),
    platforms: platformManifests(),
  })
  if (problems.length > 0) throw new ReleaseError(`this checkout cannot be released:\n  - ${problems.join('\n  - ')}`)
  log(`${root.name}@${root.version}: ${root.napi.targets.length} platform packages and the root can be released`)
}

// Every `<binaryName>.<platform>.node` under `dir`, by platform (the layout download-artifact and
// build:cross leave: bindings-<triple>/<file> or flat).
function findBinaries(dir, binaryName) {
  const found = new Map()
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.startsWith(`${binaryName}.`) && entry.name.endsWith('.node')) {
        found.set(entry.name.slice(binaryName.length + 1, -'.node'.length), full)
      }
    }
  }
  walk(dir)
  return found
}

function prepare(args) {
  if (!args.artifacts) throw new ReleaseError('prepare needs --artifacts DIR (the folder the build jobs\' binaries are in)')
  const root = readJson('package.json')
  const dir = path.resolve(args.artifacts)
  if (!fs.existsSync(dir)) throw new ReleaseError(`no artifacts folder ${dir}`)
  const binaries = findBinaries(dir, root.napi.binaryName)
  const targets = root.napi.targets.map(parseTriple)
  const missing = targets.filter((t) => !binaries.has(t.platformArchABI))
  if (missing.length > 0 && !args['only-present']) {
    throw new ReleaseError(`no binary in ${dir} for ${missing.map((t) => `${t.triple} (${root.napi.binaryName}.${t.platformArchABI}.node)`).join(', ')}`)
  }
  for (const target of missing) log(`left out: ${target.triple} (no ${root.napi.binaryName}.${target.platformArchABI}.node in ${dir})`)
  const kept = targets.filter((t) => binaries.has(t.platformArchABI))
  if (kept.length === 0) throw new ReleaseError(`no binary for any target in ${dir}`)
  if (missing.length > 0) {
    root.napi.targets = kept.map((t) => t.triple)
    writeJson('package.json', root)
  }
  // Each binary is what its target loads (format, architecture, not cut off) before it moves.
  const wrong = kept.map((t) => {
    const bytes = fs.readFileSync(binaries.get(t.platformArchABI))
    return artifactProblem(t, bytes.length, bytes.subarray(0, 4096))
  })
  if (wrong.some(Boolean)) throw new ReleaseError(`a binary is not its target's:\n  - ${wrong.filter(Boolean).join('\n  - ')}`)
  run('npx', ['--no-install', 'napi', 'artifacts', '--output-dir', dir, '--npm-dir', 'npm'])
  for (const target of kept) {
    const folder = path.join('npm', target.platformArchABI)
    const binary = path.join(folder, `${root.napi.binaryName}.${target.platformArchABI}.node`)
    if (!fs.existsSync(binary)) throw new ReleaseError(`napi artifacts left no ${binary}`)
    const bytes = fs.readFileSync(binary)
    // The loader compares the installed file's size with this before it loads it; verify the hash.
    const record = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
    writeJson(path.join(folder, 'package.json'), { ...platformManifest(root, readJson(path.join(folder, 'package.json'))), clineHooksBinary: record })
    fs.copyFileSync('LICENSE', path.join(folder, 'LICENSE'))
    log(`${binary}: ${record.size} bytes, sha256 ${record.sha256}`)
  }
}

function contents() {
  const root = readJson('package.json')
  const packages = [['.', false], ...root.napi.targets.map((t) => [path.join('npm', parseTriple(t).platformArchABI), true])]
  const problems = []
  for (const [dir, platform] of packages) {
    const manifest = readJson(path.join(dir, 'package.json'))
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    const entries = JSON.parse(out)[0].files.map(({ path: file, size }) => ({ path: file, size }))
    const sources = platform ? {} : Object.fromEntries(entries.filter((e) => /\.[cm]?js$/.test(e.path)).map((e) => [e.path, fs.readFileSync(path.join(dir, e.path), 'utf8')]))
    log(`${manifest.name}: ${entries.map((e) => e.path).sort().join(' ')}`)
    problems.push(...contentProblems(manifest, entries, { platform, sources }))
  }
  if (problems.length > 0) throw new ReleaseError(`a tarball is not what it should be:\n  - ${problems.join('\n  - ')}`)
  log(`${packages.length} tarballs hold only what they should`)
}

function publish(args) {
  const root = readJson('package.json')
  const env = { ...process.env, NPM_CONFIG_ACCESS: 'public' }
  // napi runs `npm publish` for each platform package: the environment carries the settings.
  if (args.provenance) env.NPM_CONFIG_PROVENANCE = 'true'
  if (args['dist-tag']) env.NPM_CONFIG_TAG = args['dist-tag']
  // --no-gh-release: napi would otherwise create a GitHub release (its default), which needs a
  // token with write access the job does not have; the release is npm's.
  run('npx', ['--no-install', 'napi', 'prepublish', '-t', 'npm', '--no-gh-release'], env)
  const flags = ['--access', 'public']
  if (args.provenance) flags.push('--provenance')
  if (args['dist-tag']) flags.push('--tag', args['dist-tag'])
  run('npm', ['publish', ...flags], env)
  log(`published ${root.name}@${root.version} and ${root.napi.targets.length} platform packages`)
}

function view(spec, field) {
  const out = execFileSync('npm', ['view', spec, field, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  return out.trim() === '' ? undefined : JSON.parse(out)
}

function verify(args) {
  const root = readJson('package.json')
  const platforms = root.napi.targets.map((t) => `${root.name}-${parseTriple(t).platformArchABI}`)
  const optional = view(`${root.name}@${root.version}`, 'optionalDependencies') || {}
  const want = Object.fromEntries(platforms.map((name) => [name, root.version]))
  if (JSON.stringify(Object.entries(optional).sort()) !== JSON.stringify(Object.entries(want).sort())) {
    throw new ReleaseError(`${root.name}@${root.version} on the registry has optionalDependencies ${JSON.stringify(optional)}, expected ${JSON.stringify(want)}`)
  }
  // Each platform package as the registry serves it holds the binary prepare recorded.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cline-hooks-verify-'))
  try {
    for (const t of root.napi.targets.map(parseTriple)) {
      const name = `${root.name}-${t.platformArchABI}`
      const file = `${root.napi.binaryName}.${t.platformArchABI}.node`
      const prepared = readJson(path.join('npm', t.platformArchABI, 'package.json'))
      const record = prepared.clineHooksBinary
      let packed
      try {
        packed = JSON.parse(execFileSync('npm', ['pack', `${name}@${root.version}`, '--json', '--pack-destination', scratch], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }))[0]
      } catch (error) {
        throw new ReleaseError(`the registry does not serve ${name}@${root.version}: ${String(error.stderr || error.message).split('\n').find((l) => l.includes('ERR')) || error.message}`)
      }
      const into = path.join(scratch, t.platformArchABI)
      fs.mkdirSync(into)
      execFileSync('tar', ['-xzf', path.join(scratch, packed.filename), '-C', into])
      // What npm decides by (name, main, os, cpu, libc) must be what was prepared.
      const manifest = readJson(path.join(into, 'package', 'package.json'))
      for (const field of ['name', 'version', 'main', 'os', 'cpu', 'libc', 'clineHooksBinary']) {
        if (JSON.stringify(manifest[field]) !== JSON.stringify(prepared[field])) {
          throw new ReleaseError(`${name}@${root.version} on the registry says ${field} ${JSON.stringify(manifest[field])}, not ${JSON.stringify(prepared[field])} as prepared`)
        }
      }
      const served = path.join(into, 'package', file)
      // A regular file: npm drops a symlink when it installs.
      const regular = fs.existsSync(served) && fs.lstatSync(served).isFile()
      const sha256 = regular ? createHash('sha256').update(fs.readFileSync(served)).digest('hex') : 'no binary'
      if (!record || sha256 !== record.sha256) {
        throw new ReleaseError(`${name}@${root.version} on the registry holds ${sha256 === 'no binary' ? `no ${file}` : `a ${file} of sha256 ${sha256}`}, not the one prepare recorded (${record ? record.sha256 : 'none'})`)
      }
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  const tag = args['dist-tag'] || 'latest'
  if (view(root.name, `dist-tags.${tag}`) !== root.version) throw new ReleaseError(`${root.name}'s dist-tag ${tag} is not ${root.version}`)
  log(`the registry serves ${root.name}@${root.version} (dist-tag ${tag}) and ${platforms.length} platform packages at ${root.version}, each with the manifest and binary prepare made`)
}

const COMMANDS = {
  check: [check, { tag: 'value', repository: 'value' }],
  prepare: [prepare, { artifacts: 'value', 'only-present': 'flag' }],
  contents: [contents, {}],
  publish: [publish, { provenance: 'flag', 'dist-tag': 'value' }],
  verify: [verify, { 'dist-tag': 'value' }],
}

const [command, ...rest] = process.argv.slice(2)
try {
  if (!COMMANDS[command]) throw new ReleaseError(`usage: node scripts/release.js ${Object.keys(COMMANDS).join('|')} [options]`)
  const [step, known] = COMMANDS[command]
  step(options(rest, known))
} catch (error) {
  if (!(error instanceof ReleaseError) && !error.status) throw error
  console.error(`[release] FAIL: ${error.message}`)
  process.exit(1)
}
