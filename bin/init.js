'use strict'

// `cline-hooks init <HookName>`: writes a commented template for the hook where Cline will find
// and run it (`<DIR>/.clinerules/hooks/`, or the global folder with --global), named as
// discovery runs it on this platform and profile, executable, never over an existing file and
// never through a symbolic link out of the workspace (or the global folder); then prints how to
// run it. A language discovery would not run there is refused, saying why.

const fs = require('fs')
const path = require('path')

const { EXIT } = require('./exit-codes')
const { UsageError } = require('./errors')
const { say } = require('./stdio')
const { isInside, displayPath, shellQuote } = require('./format')
const { hooksLib, asUsageError } = require('./discovery')
const { HOOKS, CLI_EVENTS, sampleInput } = require('./hook-fields')
const { template } = require('./templates')
const { closestName } = require('./closest-name')

/** Exit status when the hook file already exists: nothing was written. */
const EXIT_EXISTS = EXIT.CANCEL

/** The CLI profile's extension per language. */
const CLI_EXTENSION = { bash: '.sh', python: '.py', node: '.js', powershell: '.ps1' }
const LANG_NAME = { bash: 'bash', python: 'Python 3', node: 'Node.js', powershell: 'PowerShell' }

/** The hook `name` stands for (a hook name, or a CLI event name); a usage error naming the closest. */
function hookOf(name) {
  if (Object.prototype.hasOwnProperty.call(HOOKS, name)) return name
  if (Object.prototype.hasOwnProperty.call(CLI_EVENTS, name)) return CLI_EVENTS[name]
  const known = Object.keys(HOOKS)
  const closest = closestName(name, [...known, ...Object.keys(CLI_EVENTS)])
  const hint = closest ? `did you mean ${closest}? ` : ''
  throw new UsageError(`'${name}' is not a hook Cline fires; ${hint}init writes templates for: ${known.join(', ')}`)
}

/**
 * The file name for `hook` in `lang` under `profile` on this platform, and whether it starts
 * with a `#!` line: what discovery runs. Throws a UsageError for a language it would not run.
 */
function fileFor(hook, lang, profile, windows) {
  if (profile === 'cli') return { name: `${hook}${CLI_EXTENSION[lang]}`, shebang: !windows && lang !== 'powershell' }
  if (!windows) return { name: hook, shebang: true }
  if (lang === 'powershell') return { name: `${hook}.ps1`, shebang: false }
  throw new UsageError(
    `on Windows the extension profile runs ${hook}.ps1, .cmd, .bat or .exe files, so a ${lang} hook would never run; ` +
      'use --lang powershell (the default), or --profile cli, which runs .sh, .py and .js hooks',
  )
}

/**
 * The folder to write into, the options that make `run` and `doctor` search it, and what init
 * must not leave through a link: `boundary` (the workspace root, or the global folder itself,
 * which the user named) and the folders between it and `dir` (`links`) that a cloned repository
 * could make links.
 */
async function targetOf(opts, session) {
  if (opts.global) {
    if (opts['global-dir'] !== undefined) {
      const dir = path.resolve(opts['global-dir'])
      return { dir, flags: ['--global-dir', opts['global-dir']], boundary: dir, links: [], where: 'the global hooks folder' }
    }
    let report
    try {
      report = await hooksLib(session).diagnoseHooks({ workspaceRoots: [], managedHooksDir: null })
    } catch (e) {
      throw asUsageError(e)
    }
    const dir = report.runtime.globalHooksDir
    if (!dir) throw new UsageError('no Documents folder was found for the global hooks folder; pass --global-dir DIR')
    return { dir, flags: [], boundary: dir, links: [], where: 'the global hooks folder' }
  }
  if (opts['global-dir'] !== undefined) throw new UsageError('--global-dir goes with --global (init writes into one folder)')
  const workspaces = opts.workspace || ['.']
  if (workspaces.length > 1) throw new UsageError('init writes one hook: give one --workspace')
  const root = path.resolve(workspaces[0])
  // A typo must not create a workspace: the root has to be there (its hooks folders are made).
  if (!isDirectory(root)) throw new UsageError(`--workspace ${workspaces[0]}: no such directory; create it first, or name the workspace root`)
  const rules = path.join(root, '.clinerules')
  const dir = path.join(rules, 'hooks')
  return { dir, flags: ['--workspace', workspaces[0]], boundary: root, links: [rules, dir], where: 'the workspace' }
}

/**
 * Throws a UsageError naming the first of `paths` that is a symbolic link (or lies through one)
 * to a place outside `boundary`: a cloned repository's `.clinerules -> ~/.ssh` must not make
 * init create or chmod files there. A path that is not there yet is fine: init makes it a real one.
 */
function refuseLinkOut(paths, boundary, where) {
  const realBoundary = realOrSelf(boundary)
  for (const p of paths) {
    let stat
    try {
      stat = fs.lstatSync(p)
    } catch {
      continue
    }
    let target
    try {
      target = fs.realpathSync(p)
    } catch {
      // A link to nothing: where it points, from its folder's real path.
      if (!stat.isSymbolicLink()) continue
      target = path.resolve(realOrSelf(path.dirname(p)), fs.readlinkSync(p))
    }
    if (isInside(realBoundary, target)) continue
    const how = stat.isSymbolicLink() ? 'is a symbolic link to' : 'leads through a symbolic link to'
    throw new UsageError(
      `${displayPath(p)} ${how} ${displayPath(target)}, outside ${where} ${displayPath(boundary)}; init writes only inside it: ` +
        'remove the link (or point it inside) and run init again',
      { hint: false },
    )
  }
}

/** Another file of `hook` that discovery finds in `dir` (one runs per folder in the extension profile). */
async function otherFileOf(hook, dir, profile, session) {
  let found
  try {
    found = await hooksLib(session).discoverHooks(hook, { extraHooksDirs: [dir], globalHooksDir: null, managedHooksDir: null, profile })
  } catch (e) {
    throw asUsageError(e)
  }
  return found.find((h) => path.dirname(h.path) === dir)
}

/** The lines that say how to run the new hook with a sample input, and check it. */
function nextSteps(hook, { flags, profile, windows, file }) {
  const args = [...flags, ...(profile === 'cli' ? ['--profile', 'cli'] : [])]
  const quote = windows ? (s) => (/^[\w@%+=:,./\\-]+$/.test(s) ? s : `'${s.replace(/'/g, "''")}'`) : shellQuote
  const tail = args.map(quote).join(' ')
  const input = JSON.stringify(sampleInput(hook))
  const feed = windows ? `'${input.replace(/'/g, "''")}' |` : `echo ${shellQuote(input)} |`
  return [
    'Next steps:',
    `  1. Read it: its comments list the ${hook} input fields and the verdict fields; a blocking example`,
    '     is commented out between two marker lines.',
    '  2. Run it as Cline would, with a sample input (exit 0: allowed, 1: cancelled):',
    `       ${feed} npx cline-hooks run ${hook} ${tail} --input -`,
    `  3. Check that it is found and will run: npx cline-hooks doctor ${tail}`,
    `  4. Edit ${file}, then run step 2 again.`,
  ]
}

async function cmdInit({ positionals, opts }, session) {
  const hook = hookOf(positionals[0])
  const windows = process.platform === 'win32'
  const profile = opts.profile || 'extension'
  const lang = opts.lang || (windows ? 'powershell' : 'bash')
  const { name, shebang } = fileFor(hook, lang, profile, windows)
  const { dir, flags, boundary, links, where } = await targetOf(opts, session)
  const file = path.join(dir, name)
  const shown = displayPath(file)
  refuseLinkOut([...links, file], boundary, where)

  const refuse = async (what) => {
    await say(`${what}; init never overwrites a hook: edit it, or move it away first to start again from the template`)
    return { text: '', code: EXIT_EXISTS }
  }
  // Something other than a folder where the hooks folder goes (mkdir would say EEXIST).
  const blocker = [dir, path.dirname(dir)].find((p) => fs.existsSync(p) && !fs.statSync(p).isDirectory())
  if (blocker) {
    throw new UsageError(`${displayPath(blocker)} is a file, not a folder, so no hook can be written in it; move it away and run init again`, { hint: false })
  }
  if (fs.existsSync(file) || isLink(file)) return refuse(`${shown} already exists`)
  if (profile === 'extension') {
    const other = await otherFileOf(hook, dir, profile, session)
    if (other) return refuse(`${displayPath(other.path)} is already the ${hook} hook of that folder (one runs per folder)`)
  }

  const text = template(hook, lang, { file: name, shebang })
  const cannotWrite = (e) => new UsageError(`cannot write ${shown} (${e && e.code ? e.code : e}); check that the folder is writable`, { hint: false })
  try {
    fs.mkdirSync(dir, { recursive: true })
  } catch (e) {
    throw cannotWrite(e)
  }
  // Again, now that the folders are there: a link put in place of one since the first check.
  refuseLinkOut([...links, file], boundary, where)
  try {
    writeNewFile(file, text, windows)
  } catch (e) {
    if (e && (e.code === 'EEXIST' || e.code === 'ELOOP')) return refuse(`${shown} already exists`)
    throw cannotWrite(e)
  }

  const how = windows ? '' : ', executable'
  const out = [`Wrote ${shown}: a ${LANG_NAME[lang]} ${hook} hook that lets everything go ahead${how}.`]
  if (lang === 'powershell' && !windows) out.push('It needs pwsh on PATH (https://aka.ms/install-powershell).')
  if (lang === 'python' && windows) out.push('It needs Python 3 (py -3 or python on PATH).')
  out.push('', ...nextSteps(hook, { flags, profile, windows, file: shown }))
  return { text: out.join('\n') + '\n', code: EXIT.OK }
}

/**
 * Creates `file` holding `text`, executable. O_EXCL: never over a file (or a link) made
 * meanwhile; O_NOFOLLOW: never through a link in its place. The mode is set on the descriptor,
 * so no path is looked up again after the open.
 */
function writeNewFile(file, text, windows) {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | (O_NOFOLLOW || 0), 0o755)
  try {
    fs.writeFileSync(fd, text)
    if (!windows) {
      const mode = fs.fstatSync(fd).mode & 0o7777
      if ((mode & 0o100) === 0) fs.fchmodSync(fd, mode | 0o100) // a umask took the owner's exec bit
    }
  } finally {
    fs.closeSync(fd)
  }
}

/** `p` with its links resolved, or `p` itself when it is not there. */
function realOrSelf(p) {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

function isDirectory(dir) {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

function isLink(file) {
  try {
    return fs.lstatSync(file).isSymbolicLink()
  } catch {
    return false
  }
}

module.exports = { cmdInit, fileFor, hookOf }
