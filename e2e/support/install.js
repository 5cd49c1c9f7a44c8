// Where the pinned Cline CLI and its SDK packages are (installed by scripts/install-cline.sh), and a
// check that fails with the command to run when they are not there.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const REPO = path.resolve(__dirname, '..', '..')
const CLINE_VERSION = '3.0.65'
const CLINE_MODULES = path.join(REPO, '.ci-cache', 'cline', 'node_modules')
// The npm package's resolver script (a Node script that runs the platform's compiled Bun binary):
// what `cline` on a user's PATH is.
const CLINE_WRAPPER = path.join(CLINE_MODULES, 'cline', 'bin', 'cline')

function assertClineInstalled() {
  let version
  try {
    version = JSON.parse(fs.readFileSync(path.join(CLINE_MODULES, 'cline', 'package.json'), 'utf8')).version
  } catch {
    version = null
  }
  if (version !== CLINE_VERSION) {
    throw new Error(
      `cline@${CLINE_VERSION} is not installed in ${CLINE_MODULES} (found ${version ?? 'nothing'}): run \`bash scripts/install-cline.sh\``,
    )
  }
}

module.exports = { REPO, CLINE_VERSION, CLINE_MODULES, CLINE_WRAPPER, assertClineInstalled }
