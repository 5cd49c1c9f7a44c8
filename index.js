'use strict'
// The package's entry point. It checks that the platform package npm installed for this machine
// is there, of this release, and holds an intact binary built for this machine, so a missing,
// mismatched or damaged binary fails with an error that says what to do (and is never handed to
// the system's loader, which a cut-off file can crash), then loads the addon through napi-rs's
// generated loader (binding.js).

const { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } = require('fs')
const { dirname, isAbsolute, join, sep } = require('path')
const { platformName, binaryFormat, nativeProblem, binaryProblem } = require('./platform-package.js')
const manifest = require('./package.json')

// musl or glibc: /usr/bin/ldd names musl, else the C library mapped into this process does. Not
// process.report, which resolves the name of every open socket and can take seconds.
function isMusl() {
  if (process.platform !== 'linux') return false
  for (const [file, test] of [
    ['/usr/bin/ldd', (text) => text.includes('musl')],
    ['/proc/self/maps', (text) => text.includes('/ld-musl-') || text.includes('/libc.musl-')],
  ]) {
    try {
      return test(readFileSync(file, 'utf8'))
    } catch {
      // next source
    }
  }
  return false
}

// The platform package Node resolves from here: null, { version, dir, manifest }, or { dir,
// unreadable } when its package.json is there but cannot be read.
function installedPackage(name) {
  let file
  try {
    file = require.resolve(`${name}/package.json`)
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND') return null
    // Found, but its package.json is not JSON (resolution reads it): the first folder Node tried
    // that has it.
    const dir = (require.resolve.paths(name) || []).map((p) => join(p, name)).find((d) => existsSync(d)) || name
    return { dir, unreadable: `is not valid JSON (${error.message.split('\n')[0]})` }
  }
  // require(), not JSON.parse: Node's own parser, which a host that replaced the global one (the
  // hostile-host tests do) cannot change.
  try {
    const read = require(file)
    if (typeof read.version !== 'string') return { dir: dirname(file), unreadable: 'has no version' }
    return { version: read.version, dir: dirname(file), manifest: read }
  } catch (error) {
    return { dir: dirname(file), unreadable: `cannot be read (${error.message.split('\n')[0]})` }
  }
}

// Size and first 4 KiB of a file, or the reason it cannot be opened.
function inspectBinary(file) {
  let fd
  try {
    fd = openSync(file, 'r')
    const size = fstatSync(fd).size
    const bytes = Buffer.alloc(Math.min(size, 4096))
    readSync(fd, bytes, 0, bytes.length, 0)
    return { size, bytes }
  } catch (error) {
    return { size: null, bytes: Buffer.alloc(0), openError: error.code || error.message }
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function fail(problem, cause) {
  const error = new Error(problem.message)
  error.code = problem.code
  if (cause !== undefined) error.cause = cause
  throw error
}

// The checks on a binary before the system loads it. `release` is binaryProblem's say on where
// it came from: `{ source }` for one named other than by a platform package
// (NAPI_RS_NATIVE_LIBRARY_PATH, a build beside this file), which has no release record; `{ dir,
// wanted, recordedSize }` for a platform package's.
function checkBinary(file, machine, release) {
  const { size, bytes, openError } = inspectBinary(file)
  const problem = binaryProblem({ file, size, openError, format: binaryFormat(bytes), machine, ...release })
  if (problem) fail(problem)
}

// The platform package to load from, after its checks; null when something else is loaded (an
// explicit NAPI_RS_NATIVE_LIBRARY_PATH, or a build beside this file in a source checkout).
function checkNativeBinary() {
  const machine = { platform: process.platform, arch: process.arch }
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (override) {
    // Only a .node file given as a path (binding.js requires it, so a relative one is relative to
    // binding.js): the variable may name a generated WASI loader, which is JavaScript.
    const path = isAbsolute(override) ? override : /^\.\.?[\\/]/.test(override) ? join(__dirname, override) : null
    if (path && path.endsWith('.node')) checkBinary(path, machine, { source: 'NAPI_RS_NATIVE_LIBRARY_PATH' })
    return null
  }
  const platform = platformName({ ...machine, musl: isMusl() })
  const beside = join(__dirname, `${manifest.napi.binaryName}.${platform}.node`)
  if (existsSync(beside)) {
    checkBinary(beside, machine, { source: `the build beside ${manifest.name}'s loader (\`npm run build\`)` })
    return null
  }
  const prefix = `${manifest.name}-`
  const installed = installedPackage(prefix + platform)
  const problem = nativeProblem({
    packageName: manifest.name,
    version: manifest.version,
    platform,
    installed,
    published: Object.keys(manifest.optionalDependencies || {})
      .filter((name) => name.startsWith(prefix))
      .map((name) => name.slice(prefix.length)),
    linkedFrom: __dirname.split(sep).includes('node_modules') ? null : __dirname,
  })
  if (problem) fail(problem)
  checkBinary(join(installed.dir, installed.manifest.main || `${manifest.napi.binaryName}.${platform}.node`), machine, {
    dir: installed.dir,
    wanted: `${prefix}${platform}@${manifest.version}`,
    recordedSize: (installed.manifest.clineHooksBinary || {}).size,
  })
  return platform
}

const checked = checkNativeBinary()
let binding
try {
  binding = require('./binding.js')
} catch (error) {
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (!checked && !override) throw error
  // The loader's own message blames npm; the cause that is not a module it could not find (its
  // fallbacks) is the system's reason.
  const causes = []
  for (let e = error.cause; e && causes.length < 32; e = e.cause) causes.push(String(e.message))
  const cause = causes.find((message) => !message.startsWith('Cannot find module')) || causes[0] || error.message
  const from = checked ? `${manifest.name}-${checked}@${manifest.version}` : `NAPI_RS_NATIVE_LIBRARY_PATH (${override})`
  fail({ code: 'ERR_CLINE_HOOKS_BINARY_LOAD', message: `${manifest.name} ${manifest.version} could not load its binary from ${from}: ${cause}` }, error)
}
// NAPI_RS_NATIVE_LIBRARY_PATH is read by every napi-rs package in the process: it may name
// another package's addon.
if (typeof binding.runHook !== 'function' || typeof binding.HookFactory !== 'function') {
  fail({
    code: 'ERR_CLINE_HOOKS_BINARY_LOAD',
    message:
      `${manifest.name} ${manifest.version} loaded a binary that is not its own (it has no runHook): ` +
      `NAPI_RS_NATIVE_LIBRARY_PATH is ${JSON.stringify(process.env.NAPI_RS_NATIVE_LIBRARY_PATH || '')}, ` +
      'and every napi-rs package in the process reads it. Unset it, or point it at a cline-hooks .node file.',
  })
}
// The same module again (cached, not loaded twice), written as a re-export so that Node's ES
// module import sees every named export.
module.exports = require('./binding.js')
