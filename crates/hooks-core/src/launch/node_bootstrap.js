// The runtime's start of an approved Node hook (Linux), passed to node with -e: it reads the
// approved bytes from the sealed copy the runtime left open as descriptor `fd`, and runs them
// as the main module under the hook's own path (process.argv[1]), CommonJS or ES module as
// Node would. It never reads the hook's file: a file changed after the check cannot run.
// An expression: the runtime appends `(fd)`.
(function (fd) {
  'use strict'
  // -e gives CommonJS globals (an ES module -e, under --experimental-default-type, does not).
  const get = typeof require === 'function' ? require : process.getBuiltinModule
  const fs = get('fs')
  const path = get('path')
  const Module = get('module')
  const { pathToFileURL } = get('url')
  const vm = get('vm')
  // What -e added and a file run does not have: its globals (its module's, and one per
  // built-in module, `fs`, `path`, ..., but for the real globals console, crypto and process),
  // its argv entries (which child_process.fork would pass on), its code.
  const real = new Set(['console', 'crypto', 'process'])
  const added = Module.builtinModules.filter((name) => !name.includes('/') && !real.has(name))
  for (const name of ['exports', 'require', '__filename', '__dirname', ...added]) {
    delete globalThis[name]
  }
  // -e puts `module` back once this code returns: gone again before any callback runs.
  process.nextTick(() => delete globalThis.module)
  const own = process.execArgv.findIndex((a, i) => (a === '-e' || a === '--eval') && process.execArgv[i + 1] === process._eval)
  if (own !== -1) process.execArgv.splice(own, 2)
  delete process._eval

  const size = fs.fstatSync(fd).size
  const bytes = Buffer.alloc(size)
  for (let at = 0; at < size; ) {
    const n = fs.readSync(fd, bytes, at, size - at, at)
    if (n === 0) break
    at += n
  }
  fs.closeSync(fd) // the hook's own children do not inherit it
  let source = bytes.toString('utf8')
  if (source.charCodeAt(0) === 0xfeff) source = source.slice(1)

  // As Node names its main module: the real path of argv[1].
  let file = path.resolve(process.argv[1])
  try {
    file = fs.realpathSync(file)
  } catch {}

  if (format(file, source) === 'commonjs') {
    const main = new Module(file, null)
    main.id = '.'
    main.filename = file
    main.paths = Module._nodeModulePaths(path.dirname(file))
    process.mainModule = main
    Module._cache[file] = main
    main._compile(source, file, 'commonjs')
    main.loaded = true
    return
  }

  const url = pathToFileURL(file).href
  if (typeof Module.register !== 'function') {
    process.stderr.write(`${file} is an ES module; this Node (${process.version}) cannot run an approved ES module hook from its checked bytes (that needs Node 20.6 or later), so it did not run: update Node, or make the hook CommonJS (.cjs)\n`)
    process.exitCode = 1
    return
  }
  // A load hook that answers the hook's own URL with the approved bytes, and nothing else.
  const hooks = `let url, source
export function initialize(data) { url = data.url; source = data.source }
export async function resolve(specifier, context, next) {
  return specifier === url ? { url, format: 'module', shortCircuit: true } : next(specifier, context)
}
export async function load(at, context, next) {
  return at === url ? { format: 'module', source, shortCircuit: true } : next(at, context)
}`
  Module.register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { url, source } })
  let settled = false
  // Node's exit code for a main module whose top-level await never settles.
  process.on('exit', () => {
    if (!settled && process.exitCode === undefined) process.exitCode = 13
  })
  import(url).then(
    () => {
      settled = true
    },
    (error) => {
      settled = true
      // Unhandled, as an error thrown by a main module: exit code 1, its stack printed.
      throw error
    },
  )

  // 'module' or 'commonjs', as Node decides for a main module: by extension, else by the
  // nearest package.json's "type" (one that does not parse stops the start, as with node),
  // else by the syntax: CommonJS if it compiles as CommonJS, else an ES module if it compiles
  // as one (top-level await, a `const require`, ...); invalid both ways, CommonJS, whose
  // compile error is the one reported (as node reports it).
  function format(file, source) {
    const ext = path.extname(file)
    if (ext === '.mjs') return 'module'
    if (ext !== '.js' && ext !== '') return 'commonjs'
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      if (path.basename(dir) !== 'node_modules') {
        const at = path.join(dir, 'package.json')
        let text
        try {
          text = fs.readFileSync(at, 'utf8')
        } catch {}
        if (text !== undefined) {
          let json
          try {
            json = JSON.parse(text)
          } catch (error) {
            throw Object.assign(new SyntaxError(`Error parsing ${at}: ${error.message}`), { path: at })
          }
          const type = json !== null && typeof json === 'object' ? json.type : undefined
          if (type === 'module' || type === 'commonjs') return type
          break
        }
      }
      if (path.dirname(dir) === dir) break
    }
    // Messages that only an ES module's syntax (import, export, import.meta) gives.
    const esm = [
      'Cannot use import statement outside a module',
      "Unexpected token 'export'",
      "Cannot use 'import.meta' outside a module",
    ]
    const onlyModule = (error) => error instanceof SyntaxError && esm.some((m) => String(error.message).includes(m))
    try {
      vm.compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file })
      return 'commonjs'
    } catch (error) {
      if (!(error instanceof SyntaxError)) return 'commonjs'
      if (onlyModule(error)) return 'module'
    }
    // Without a flag vm cannot compile a module: a strict async function body without
    // parameters accepts what a module body does, but for import/export/import.meta.
    const body = source.startsWith('#!') ? `//${source.slice(2)}` : source
    try {
      vm.compileFunction(`'use strict'; return async function () {\n${body}\n}`, [], { filename: file })
      return 'module'
    } catch (error) {
      return onlyModule(error) ? 'module' : 'commonjs'
    }
  }
})
