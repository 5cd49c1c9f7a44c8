'use strict'
// Prints which .node file `require('@cline/hooks')` loaded and fails unless it is the one from the
// installed platform package (not a stray binary beside the loader, not NAPI_RS_NATIVE_LIBRARY_PATH).
const path = require('node:path')
const expected = process.argv[2] // for example @cline/hooks-linux-x64-gnu
require('@cline/hooks')
const loaded = Object.keys(require.cache).filter((f) => f.endsWith('.node'))
const want = path.join(path.dirname(require.resolve(`${expected}/package.json`)), require(`${expected}/package.json`).main)
if (loaded.length !== 1 || loaded[0] !== want) {
  console.error(`loaded ${JSON.stringify(loaded)}, expected [${JSON.stringify(want)}]`)
  process.exit(1)
}
console.log(`loaded binary: ${path.relative(process.cwd(), loaded[0])}`)
