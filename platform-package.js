'use strict'
// Which platform package holds this machine's native binary, what is wrong with the one that is
// installed, and what a binary file is built for: pure rules, so the loader's errors are
// unit-tested and the release checks binaries with the same rule. index.js does the reading
// (process, file system) and throws what these return; scripts/release.js uses binaryFormat.

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

// Machine codes of the three executable formats, as Node names the architectures.
const ELF_MACHINES = { 0x03: 'ia32', 0x28: 'arm', 0x3e: 'x64', 0xb7: 'arm64', 0xf3: 'riscv64', 0x102: 'loong64' }
const MACHO_CPUS = { 0x01000007: 'x64', 0x0100000c: 'arm64', 0x07: 'ia32', 0x0c: 'arm' }
const PE_MACHINES = { 0x8664: 'x64', 0xaa64: 'arm64', 0x014c: 'ia32', 0x01c4: 'arm' }

/**
 * What the first bytes of a binary say it is: `{ platform, arch }` (Node's names), or null when
 * they are no shared library of one architecture (no release ships a universal Mach-O).
 * An ELF (little-endian), Mach-O or PE file also gets `minSize`: where its last segment, section
 * or section header table ends; a shorter file is cut off, and mapping it can crash the process
 * (SIGBUS on Linux) instead of failing. 4 KiB of the file's start is enough for all of this
 * (a `minSize` of -1 says the headers go past the bytes given).
 */
function binaryFormat(bytes) {
  const u16 = (at, little) => (at + 2 <= bytes.length ? (little ? bytes[at] | (bytes[at + 1] << 8) : (bytes[at] << 8) | bytes[at + 1]) : -1)
  const u32le = (at) => (at + 4 <= bytes.length ? (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16)) + bytes[at + 3] * 0x1000000 : -1)
  const u64le = (at) => (at + 8 <= bytes.length ? u32le(at + 4) * 0x100000000 + u32le(at) : -1)
  if (bytes.length >= 20 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46) {
    const little = bytes[5] === 1
    const arch = ELF_MACHINES[u16(18, little)]
    if (!arch) return null
    if (!little) return { platform: 'linux', arch }
    return { platform: 'linux', arch, minSize: elfMinSize(bytes[4] === 2, u16, u32le, u64le) }
  }
  const magic = u32le(0)
  if (magic === 0xfeedfacf || magic === 0xfeedface) {
    const arch = MACHO_CPUS[u32le(4)]
    return arch ? { platform: 'darwin', arch, minSize: machoMinSize(magic === 0xfeedfacf, u32le, u64le) } : null
  }
  if (bytes[0] === 0x4d && bytes[1] === 0x5a) {
    const pe = u32le(0x3c)
    if (pe < 0 || u32le(pe) !== 0x00004550) return null
    const arch = PE_MACHINES[u16(pe + 4, true)]
    return arch ? { platform: 'win32', arch, minSize: peMinSize(pe, u16, u32le) } : null
  }
  return null
}

// The bytes a Mach-O file must have: the end of every segment's file part (LC_SEGMENT(_64)
// load commands). -1 where a command lies beyond the bytes given.
function machoMinSize(is64, u32le, u64le) {
  const ncmds = u32le(16)
  let at = is64 ? 32 : 28
  let end = at + Math.max(u32le(20), 0)
  for (let i = 0; i < ncmds; i++) {
    const [cmd, size] = [u32le(at), u32le(at + 4)]
    if (cmd < 0 || size < 8) return -1
    if (cmd === 0x19 && is64) end = Math.max(end, u64le(at + 40) + u64le(at + 48))
    if (cmd === 0x01 && !is64) end = Math.max(end, u32le(at + 32) + u32le(at + 36))
    at += size
  }
  return end
}

// The bytes a PE file must have: the end of every section's raw data. -1 where the section
// table lies beyond the bytes given.
function peMinSize(pe, u16, u32le) {
  const sections = u16(pe + 6, true)
  const table = pe + 24 + u16(pe + 20, true)
  let end = table + sections * 40
  for (let i = 0; i < sections; i++) {
    const [size, pointer] = [u32le(table + i * 40 + 16), u32le(table + i * 40 + 20)]
    if (size < 0 || pointer < 0) return -1
    end = Math.max(end, pointer + size)
  }
  return end
}

// The bytes an ELF file must have: its section header table and every PT_LOAD segment's file
// part (64- or 32-bit layout). -1 where a header lies beyond the bytes given.
function elfMinSize(is64, u16, u32le, u64le) {
  const word = is64 ? u64le : u32le
  const [phoff, shoff] = is64 ? [word(0x20), word(0x28)] : [word(0x1c), word(0x20)]
  const [phentsize, phnum, shentsize, shnum] = is64 ? [0x36, 0x38, 0x3a, 0x3c].map((at) => u16(at, true)) : [0x2a, 0x2c, 0x2e, 0x30].map((at) => u16(at, true))
  if ([phoff, shoff, phentsize, phnum, shentsize, shnum].some((v) => v < 0)) return -1
  let end = shnum > 0 ? shoff + shnum * shentsize : 0
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize
    const type = u32le(at)
    const [offset, filesz] = is64 ? [u64le(at + 8), u64le(at + 0x20)] : [u32le(at + 4), u32le(at + 16)]
    if (type < 0 || offset < 0 || filesz < 0) return -1
    if (type === 1) end = Math.max(end, offset + filesz)
  }
  return end
}

/** The format a platform's binary must have (ELF for every other POSIX system). */
function expectedFormat({ platform, arch }) {
  return { platform: platform === 'darwin' || platform === 'win32' ? platform : 'linux', arch }
}

/** Whether a binary of `format` loads on `machine` (`{ platform, arch }`). */
function formatFits(format, machine) {
  const want = expectedFormat(machine)
  return format !== null && format.platform === want.platform && format.arch === want.arch
}

const formatName = (format) => (format ? `${format.platform === 'linux' ? 'ELF' : format.platform === 'darwin' ? 'Mach-O' : 'PE'} ${format.arch}` : 'not a shared library')

/**
 * What keeps `packageName@version` from loading its binary from the platform package, or null.
 *
 * - `platform`: this machine's `platformName()`;
 * - `installed`: the platform package beside the root package (index.js looks nowhere else):
 *   null, `{ version, dir }`, or `{ dir, unreadable }` when its package.json cannot be read;
 * - `published`: the platform names the root package lists in `optionalDependencies` (empty in a
 *   source checkout, where nothing was published);
 * - `linkedFrom`: the root package's folder when it is not inside a node_modules folder (npm link,
 *   a `file:` dependency, a source folder), where the loader looks for the platform package.
 */
function nativeProblem({ packageName, version, platform, installed, published, linkedFrom = null }) {
  const wanted = `${packageName}-${platform}`
  // --no-save: saved in package.json it would be a dependency npm refuses on other platforms.
  const install = `\`npm install --no-save ${wanted}@${version}\``
  const lasting =
    ' To keep it across installs, let npm install optional dependencies: delete node_modules and ' +
    'package-lock.json and run `npm install` without --omit=optional.'
  const where = linkedFrom
    ? ` This ${packageName} is at ${linkedFrom}, outside node_modules (npm link or a file: dependency), and looks for ${wanted} only in its own node_modules there, not in your project: ` +
      `in a source checkout, run \`npm run build\` there; otherwise install ${wanted} in your project and run Node with --preserve-symlinks.`
    : ''
  if (installed && installed.unreadable === undefined && installed.version === version) return null
  if (installed && installed.unreadable !== undefined) {
    return {
      code: 'ERR_CLINE_HOOKS_BINARY_VERSION',
      message: `${packageName} ${version} cannot tell which release ${wanted} at ${installed.dir} is: its package.json ${installed.unreadable}. Delete ${installed.dir} and run ${install}.${where}`,
    }
  }
  if (installed) {
    return {
      code: 'ERR_CLINE_HOOKS_BINARY_VERSION',
      message:
        `${packageName} ${version} needs ${wanted} at the same version, but ${wanted} ` +
        `${installed.version} is installed (${installed.dir}): the two come from different releases, so its binary is not loaded. ` +
        `Install the matching one: ${install}. If that does not fix it, delete node_modules and ` +
        'package-lock.json and run `npm install` again.' + where,
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
      `another platform (https://github.com/npm/cli/issues/4828). Install it: ${install}.${lasting}${source}${where}`,
  }
}

/**
 * What is wrong with the installed platform package's binary file, or null: absent, not the
 * size the release recorded (a cut-off download: loading it could crash the process), or built
 * for another machine. Checked before the file is loaded.
 *
 * - `file`, `dir`: the binary and its package's folder; `wanted`: `<package>@<version>`;
 * - `size`: its size, or null when it cannot be opened (`openError` says why);
 * - `recordedSize`: the size the release wrote into the package's manifest, or undefined;
 * - `format`: `binaryFormat()` of its first bytes; `machine`: `{ platform, arch }` of this process.
 */
function binaryProblem({ file, dir, wanted, size, openError, recordedSize, format, machine, source = null }) {
  // `source`: where a binary not from a platform package was named (NAPI_RS_NATIVE_LIBRARY_PATH,
  // a build beside the loader), which says what to fix instead of reinstalling.
  const reinstall = source ? `Fix ${source}.` : `Delete ${dir} and run \`npm install --no-save ${wanted}\`.`
  if (size === null) {
    return {
      code: source ? 'ERR_CLINE_HOOKS_BINARY_LOAD' : 'ERR_CLINE_HOOKS_BINARY_MISSING',
      message: source
        ? `${file}, named by ${source}, cannot be opened (${openError}). ${reinstall}`
        : `${wanted} is installed at ${dir}, but its binary ${file} cannot be opened (${openError}). ${reinstall}`,
    }
  }
  if (typeof recordedSize === 'number' && size !== recordedSize) {
    return {
      code: 'ERR_CLINE_HOOKS_BINARY_INVALID',
      message: `${file} is ${size} bytes, but the release's is ${recordedSize}: the file is damaged or cut off, and loading it could crash this process, so it is not loaded. ${reinstall}`,
    }
  }
  if (format && format.minSize > size) {
    return {
      code: 'ERR_CLINE_HOOKS_BINARY_INVALID',
      message: `${file} is ${size} bytes, but its own headers need ${format.minSize}: the file is cut off, and loading it would crash this process, so it is not loaded. ${reinstall}`,
    }
  }
  if (!formatFits(format, machine)) {
    const want = expectedFormat(machine)
    return {
      code: 'ERR_CLINE_HOOKS_BINARY_INVALID',
      message: `${file} is ${formatName(format)}, not a Node addon for this machine (${formatName(want)}), so it is not loaded. ${reinstall}`,
    }
  }
  return null
}

module.exports = { platformName, binaryFormat, expectedFormat, formatFits, nativeProblem, binaryProblem }
