'use strict'
// The package's entry point. It finds the binary to load (NAPI_RS_NATIVE_LIBRARY_PATH, a build
// beside this file, or the platform package npm installed next to this package), checks that it
// is there, of this release, and an intact binary built for this machine, so a missing,
// mismatched or damaged binary fails with an error that says what to do (and is never handed to
// the system's loader, which a cut-off file can crash), then loads that exact file by its path.
// Not through napi-rs's generated loader (binding.js): it finds the platform package with Node's
// module search, which also looks in NODE_PATH (a relative entry is relative to the current
// directory, often a cloned repository), ~/.node_modules and every folder above, so a binary
// from any of those would run in this process.

const { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } = require('fs')
const { dirname, isAbsolute, join, sep } = require('path')
const { platformName, binaryFormat, nativeProblem, binaryProblem } = require('./platform-package.js')
const { HookError, HookArgumentError, argumentError } = require('./hook-error.js')
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

// Where the platform package may be: this package's own node_modules, and the node_modules
// folder that holds this package (npm and pnpm put an optional dependency there, beside it).
function platformPackageDirs(name) {
  const dirs = [join(__dirname, 'node_modules', name)]
  const self = join('node_modules', ...manifest.name.split('/'))
  if (__dirname.endsWith(sep + self)) dirs.push(join(__dirname.slice(0, -self.length), 'node_modules', name))
  return dirs
}

// The platform package next to this package: null, { version, dir, manifest }, or { dir,
// unreadable } when its package.json is there but cannot be read.
function installedPackage(name) {
  const dir = platformPackageDirs(name).find((d) => existsSync(join(d, 'package.json')))
  if (dir === undefined) return null
  // require(), not JSON.parse: Node's own parser, which a host that replaced the global one (the
  // hostile-host tests do) cannot change.
  try {
    const read = require(join(dir, 'package.json'))
    if (typeof read.version !== 'string') return { dir, unreadable: 'has no version' }
    return { version: read.version, dir, manifest: read }
  } catch (error) {
    const first = error.message.split('\n')[0]
    return { dir, unreadable: error instanceof SyntaxError ? `is not valid JSON (${first})` : `cannot be read (${first})` }
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
  throw new HookError(problem.message, cause === undefined ? { code: problem.code } : { code: problem.code, cause })
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

// The file to load, after its checks: `{ file, from }`, where `from` names it in a load error.
// NAPI_RS_NATIVE_LIBRARY_PATH first (the user's explicit choice), then a build beside this file
// (a source checkout), then the platform package.
function nativeBinary() {
  const machine = { platform: process.platform, arch: process.arch }
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (override) {
    // A relative path is relative to this package, as for napi-rs's loader. Only a .node file is
    // checked: the variable may name a generated WASI loader, which is JavaScript.
    const file = isAbsolute(override) ? override : /^\.\.?[\\/]/.test(override) ? join(__dirname, override) : override
    if (file.endsWith('.node')) checkBinary(file, machine, { source: 'NAPI_RS_NATIVE_LIBRARY_PATH' })
    return { file, from: `NAPI_RS_NATIVE_LIBRARY_PATH (${override})` }
  }
  const platform = platformName({ ...machine, musl: isMusl() })
  const beside = join(__dirname, `${manifest.napi.binaryName}.${platform}.node`)
  if (existsSync(beside)) {
    checkBinary(beside, machine, { source: `the build beside ${manifest.name}'s loader (\`npm run build\`)` })
    return { file: beside, from: beside }
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
  const file = join(installed.dir, installed.manifest.main || `${manifest.napi.binaryName}.${platform}.node`)
  checkBinary(file, machine, {
    dir: installed.dir,
    wanted: `${prefix}${platform}@${manifest.version}`,
    recordedSize: (installed.manifest.clineHooksBinary || {}).size,
  })
  return { file, from: `${prefix}${platform}@${manifest.version}` }
}

const { file, from } = nativeBinary()
let binding
try {
  binding = require(file)
} catch (error) {
  fail({ code: 'ERR_CLINE_HOOKS_BINARY_LOAD', message: `${manifest.name} ${manifest.version} could not load its binary from ${from}: ${error.message.split('\n')[0]}` }, error)
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
// From here on, every error the binary makes on this thread is a HookError.
binding.useErrorClasses(HookError, HookArgumentError)

// A method called on something that is not one of ours (taken off its object, `.call({})`)
// rejects with a HookError instead of throwing V8's bare `TypeError: Illegal invocation`; a
// getter throws one. Both keep their `this` otherwise, at the cost of one call.
function notOurs(className, name) {
  const instance = className === 'HookFactory' ? 'factory' : 'runner'
  return argumentError(
    `${className}'s ${name} was called on something that is not a ${className} (a method taken off its object, or called with another \`this\`); call it on the ${instance} itself: ${instance}.${name}`,
    'ERR_INVALID_THIS',
  )
}
// The binary's prototypes outlive this module when it is evaluated again in the same thread (a
// test runner's fresh module registry): the methods as the binary made them are kept aside once,
// and each evaluation wraps those, with its own HookError.
const UNGUARDED = Symbol.for('@cline/hooks: methods as the binary made them')
function guard(Class, className) {
  const proto = Class.prototype
  if (!Object.prototype.hasOwnProperty.call(proto, UNGUARDED)) {
    const originals = {}
    for (const name of Object.getOwnPropertyNames(proto)) originals[name] = Object.getOwnPropertyDescriptor(proto, name)
    Object.defineProperty(proto, UNGUARDED, { value: originals })
  }
  const originals = proto[UNGUARDED]
  for (const name of Object.keys(originals)) {
    const descriptor = { ...originals[name] }
    if (name === 'constructor') continue
    if (typeof descriptor.value === 'function') {
      const method = descriptor.value
      descriptor.value = {
        [name](...args) {
          try {
            return Reflect.apply(method, this, args)
          } catch (error) {
            return Promise.reject(error instanceof HookError ? error : notOurs(className, name))
          }
        },
      }[name]
    } else if (typeof descriptor.get === 'function') {
      const get = descriptor.get
      descriptor.get = {
        get [name]() {
          try {
            return Reflect.apply(get, this, [])
          } catch (error) {
            throw error instanceof HookError ? error : notOurs(className, name)
          }
        },
      }.__lookupGetter__(name)
    } else {
      continue
    }
    Object.defineProperty(proto, name, descriptor)
  }
}
guard(binding.HookFactory, 'HookFactory')
guard(binding.HookRunner, 'HookRunner')

// `new HookFactory(options)`; without `new` it says so (the class itself would wrap whatever
// `this` it was given).
function HookFactory(options) {
  if (new.target === undefined) {
    throw argumentError('HookFactory is a class: create one with new HookFactory(options)', 'ERR_INVALID_THIS')
  }
  return Reflect.construct(binding.HookFactory, [options], new.target)
}
HookFactory.prototype = binding.HookFactory.prototype

// A runner comes from `factory.create(name)`; `new HookRunner()` says so (the class itself has
// no constructor), and `runner instanceof HookRunner` still holds.
function HookRunner() {
  throw new HookError('HookRunner has no public constructor: get one from `await factory.create(hookName)` (a HookFactory), or call runHook(hookName, input, options)', {
    code: 'ERR_HOOK_NO_CONSTRUCTOR',
  })
}
HookRunner.prototype = binding.HookRunner.prototype
for (const [proto, constructor] of [
  [HookFactory.prototype, HookFactory],
  [HookRunner.prototype, HookRunner],
]) {
  Object.defineProperty(proto, 'constructor', { value: constructor, writable: true, configurable: true })
}

// `await using factory = new HookFactory(...)` disposes of it at the end of the block.
if (typeof Symbol.asyncDispose === 'symbol') {
  const { dispose } = HookFactory.prototype
  Object.defineProperty(HookFactory.prototype, Symbol.asyncDispose, {
    value: function asyncDispose() {
      return Reflect.apply(dispose, this, [])
    },
    writable: true,
    configurable: true,
  })
}

// Each export by name, so that Node's ES module import sees it (`import { runHook } from
// '@cline/hooks'`); __test__/platform-package.test.js checks this list against binding.js's.
// The binding's own helpers (useErrorClasses) are not among them.
module.exports = {}
module.exports.HookError = HookError
module.exports.HookFactory = HookFactory
module.exports.HookRunner = HookRunner
module.exports.diagnoseHooks = binding.diagnoseHooks
module.exports.discoverHooks = binding.discoverHooks
module.exports.KNOWN_HOOKS = Object.freeze(binding.KNOWN_HOOKS)
module.exports.runHook = binding.runHook
module.exports.setHookEnabled = binding.setHookEnabled
module.exports.setLogger = binding.setLogger
module.exports.terminateAll = binding.terminateAll
module.exports.trustHook = binding.trustHook
module.exports.untrustHook = binding.untrustHook
