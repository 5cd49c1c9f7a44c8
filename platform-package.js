'use strict'
// Which platform package holds this machine's native binary, and what is wrong with the one that
// is installed, if anything: pure rules, so the loader's errors are unit-tested. index.js does the
// reading (process, file system) and throws what these return.

/**
 * napi-rs's name for a platform (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`): the suffix
 * of the platform package's name and of its `.node` file.
 */
function platformName({ platform, arch, musl }) {
  if (platform === 'linux') {
    if (arch === 'arm') return `linux-arm-${musl ? 'musleabihf' : 'gnueabihf'}`
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform === 'android' && arch === 'arm') return 'android-arm-eabi'
  return `${platform}-${arch}`
}

/**
 * What keeps `packageName@version` from loading its binary from the platform package, or null.
 *
 * - `platform`: this machine's `platformName()`;
 * - `installed`: `{ version, dir }` of the platform package Node resolves, or null;
 * - `published`: the platform names the root package lists in `optionalDependencies` (empty in a
 *   source checkout, where nothing was published).
 */
function nativeProblem({ packageName, version, platform, installed, published }) {
  const wanted = `${packageName}-${platform}`
  const install = `npm install ${wanted}@${version}`
  if (installed && installed.version === version) return null
  if (installed) {
    return {
      code: 'ERR_CLINE_HOOKS_BINARY_VERSION',
      message:
        `${packageName} ${version} needs ${wanted} at the same version, but ${wanted} ` +
        `${installed.version} is installed (${installed.dir}): the two come from different releases. ` +
        `Install the matching one: \`${install}\`. If that does not fix it, delete node_modules and ` +
        'package-lock.json and run `npm install` again.',
    }
  }
  if (published.length > 0 && !published.includes(platform)) {
    return {
      code: 'ERR_CLINE_HOOKS_UNSUPPORTED_PLATFORM',
      message:
        `${packageName} ${version} has no prebuilt binary for ${platform}; it ships ` +
        `${published.join(', ')}. To run it here, build the addon from the source repository ` +
        '(`npm run build`, which needs Rust) and point NAPI_RS_NATIVE_LIBRARY_PATH at the .node file.',
    }
  }
  const source = published.length === 0 ? ' In a source checkout, build it instead: `npm run build`.' : ''
  return {
    code: 'ERR_CLINE_HOOKS_BINARY_MISSING',
    message:
      `${packageName} ${version} cannot find its native binary: the package ${wanted}@${version} is ` +
      'not installed. npm installs it as an optional dependency, and leaves it out when optional ' +
      'dependencies are omitted (--omit=optional, --no-optional) or package-lock.json was written on ' +
      `another platform (https://github.com/npm/cli/issues/4828). Install it: \`${install}\`.${source}`,
  }
}

module.exports = { platformName, nativeProblem }
