// The runtime's start of an approved bun hook (Linux), passed to bun with -e: it reads the
// approved bytes from the sealed copy the runtime left open as descriptor `fd`, and has bun
// load them, through a plugin, for exactly the hook's own path (process.argv[1]) when it
// imports that path as its main module. It never reads the hook's file: a file changed after
// the check cannot run. An expression: the runtime appends `(fd)`.
(function (fd) {
  const fs = require('fs')
  const path = require('path')
  const size = fs.fstatSync(fd).size
  const bytes = Buffer.alloc(size)
  for (let at = 0; at < size; ) {
    const n = fs.readSync(fd, bytes, at, size - at, at)
    if (n === 0) break
    at += n
  }
  fs.closeSync(fd) // the hook's own children do not inherit it
  const file = path.resolve(process.argv[1])
  const ext = path.extname(file).toLowerCase()
  const loader = { '.tsx': 'tsx', '.jsx': 'jsx', '.js': 'js', '.mjs': 'js', '.cjs': 'js' }[ext] || 'ts'
  const exact = new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`)
  // An ES module in any case: bun (1.x) loads a plugin's CommonJS contents, which a script
  // using require and no import is, without running them. require, __dirname, __filename and
  // import.meta work in both; `module` and `exports` do not. Lines keep their numbers.
  const contents = `${bytes.toString('utf8')}\nexport {}\n`
  Bun.plugin({
    name: 'cline-approved-bytes',
    setup(build) {
      // Resolved without a look at the file: an unlinked hook still runs its approved bytes.
      build.onResolve({ filter: exact }, () => ({ path: file }))
      build.onLoad({ filter: exact }, () => ({ contents, loader }))
    },
  })
  // A rejection left unhandled, as an error thrown by a main module: exit code 1, its stack.
  import(file)
})
