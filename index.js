'use strict'
// The package's entry point. It checks that the platform package npm installed for this machine
// is there and of this release, so a missing or mismatched binary fails with an error that says
// what to install, then loads the addon through napi-rs's generated loader (binding.js).

const { existsSync, readFileSync } = require('fs')
const { dirname, join } = require('path')
const { platformName, nativeProblem } = require('./platform-package.js')
const manifest = require('./package.json')

// The rule binding.js applies, without its last resort (running `ldd`): /usr/bin/ldd names musl,
// else the process report says which C library Node runs on.
function isMusl() {
  if (process.platform !== 'linux') return false
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {
    const report = process.report && process.report.getReport ? process.report.getReport() : null
    if (!report || (report.header && report.header.glibcVersionRuntime)) return false
    const objects = Array.isArray(report.sharedObjects) ? report.sharedObjects : []
    return objects.some((file) => file.includes('libc.musl-') || file.includes('ld-musl-'))
  }
}

// The platform package Node resolves from here, or null.
function installedPackage(name) {
  let file
  try {
    file = require.resolve(`${name}/package.json`)
  } catch {
    return null
  }
  // require(), not JSON.parse: Node's own parser, which a host that replaced the global one (the
  // hostile-host tests do) cannot change.
  try {
    const { version } = require(file)
    return { version: typeof version === 'string' ? version : `without a version (${String(version)})`, dir: dirname(file) }
  } catch (error) {
    return { version: `unreadable (${error.message})`, dir: dirname(file) }
  }
}

function checkNativeBinary() {
  // An explicit binary, or one built beside this file (a source checkout): the loader's business.
  if (process.env.NAPI_RS_NATIVE_LIBRARY_PATH) return null
  const platform = platformName({ platform: process.platform, arch: process.arch, musl: isMusl() })
  if (existsSync(join(__dirname, `${manifest.napi.binaryName}.${platform}.node`))) return null
  const prefix = `${manifest.name}-`
  const published = Object.keys(manifest.optionalDependencies || {})
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length))
  const problem = nativeProblem({
    packageName: manifest.name,
    version: manifest.version,
    platform,
    installed: installedPackage(prefix + platform),
    published,
  })
  if (problem) {
    const error = new Error(problem.message)
    error.code = problem.code
    throw error
  }
  return platform
}

const checked = checkNativeBinary()
try {
  module.exports = require('./binding.js')
} catch (error) {
  if (!checked) throw error
  // The right package is installed but its binary did not load (a C library too old, a damaged
  // file): the loader's own message blames npm; the cause that is not a module it could not find
  // (its fallbacks) is the system's reason.
  const causes = []
  for (let e = error.cause; e && causes.length < 32; e = e.cause) causes.push(String(e.message))
  const cause = causes.find((message) => !message.startsWith('Cannot find module')) || error.message
  const failed = new Error(
    `${manifest.name} ${manifest.version} found ${manifest.name}-${checked}@${manifest.version} but ` +
      `could not load its binary: ${cause}`,
  )
  failed.code = 'ERR_CLINE_HOOKS_BINARY_LOAD'
  failed.cause = error
  throw failed
}
