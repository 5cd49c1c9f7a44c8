#!/usr/bin/env bash
# `npm run test:package`: the tests pass on the prebuilt binary, installed the way users get it.
#
#   1. builds the host addon if it is missing or older than the Rust sources;
#   2. `npm pack`s the root package (loader, types, CLI: no binary) and the host's platform package
#      (a temp copy of npm/<platform>/ with the built .node copied in; the repo's npm/ is untouched),
#      and checks what each tarball holds and that the binary is under the size budget;
#   3. installs both tarballs, with Jest, TypeScript, esbuild and @types/node, into a fresh temp
#      project outside the repo (no Rust on PATH, no source tree above it);
#   4. runs the repo's Jest suite there against the installed package: the copied __test__/ files
#      `require('..')` / `require('../index.js')` and spawn `bin/cline-hooks.js` with examples/ as
#      fixtures, so the temp project gets an index.js that only re-exports `@cline/hooks`, a
#      bin/ symlink to the installed CLI's folder and a copy of examples/ (test data);
#   5. runs the consumers in scripts/consumers/: CommonJS, ES module, TypeScript (`tsc --noEmit
#      --strict` against the installed index.d.ts, then compiled and run) and an esbuild bundle
#      made the way VS Code extensions are bundled (@cline/hooks external). Each one writes a hook
#      into a temp workspace and runs it.
# Any failure stops the script with a non-zero status. Knobs: CLINE_PACKAGE_TEST_KEEP=1 keeps the
# temp project for inspection; CLINE_PACKAGE_TEST_NO_BUILD=1 never builds (CI: the binary comes
# from the build job); CLINE_PACKAGE_TEST_JEST_ARGS adds Jest arguments.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
source scripts/binary-budget.sh

log() { echo "[test:package] $*"; }
die() { echo "[test:package] FAIL: $*" >&2; exit 1; }

# --------------------------------------------------------------------------------------------
# The host platform and its binary (scripts/host-binary.sh), built if missing or stale unless
# CLINE_PACKAGE_TEST_NO_BUILD=1 (CI: the binary comes from the build job).
source scripts/host-binary.sh
PLATFORM_PKG=@cline/hooks-$PLATFORM
[[ -f npm/$PLATFORM/package.json ]] || die "no npm/$PLATFORM/package.json: $PLATFORM is not a target of this package"
log "host platform: $PLATFORM ($PLATFORM_PKG)"
host_binary "${CLINE_PACKAGE_TEST_NO_BUILD:-}" | sed 's/^/[test:package] /' || die "no $BINARY to package"

# --------------------------------------------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cline-hooks-package-test.XXXXXX")
# Readable by others: the hostile suite runs the installed addon as `nobody` too.
chmod 755 "$TMP"
TMP=$(cd "$TMP" && pwd -P)
cleanup() {
  if [[ -n ${CLINE_PACKAGE_TEST_KEEP:-} ]]; then
    log "kept $TMP"
  else
    rm -rf "$TMP"
  fi
}
trap cleanup EXIT
TARBALLS=$TMP/tarballs
PROJECT=$TMP/project
mkdir -p "$TARBALLS" "$PROJECT"

# 2. Pack.
log "npm pack (root package)"
ROOT_TGZ=$(npm pack --silent --pack-destination "$TARBALLS" | tail -n1)
ROOT_TGZ=$TARBALLS/$ROOT_TGZ

log "npm pack ($PLATFORM_PKG, from a temp copy of npm/$PLATFORM)"
cp -R "npm/$PLATFORM" "$TMP/platform-pkg"
cp "$BINARY" "$TMP/platform-pkg/"
PLATFORM_TGZ=$(cd "$TMP/platform-pkg" && npm pack --silent --pack-destination "$TARBALLS" | tail -n1)
PLATFORM_TGZ=$TARBALLS/$PLATFORM_TGZ
[[ -f $ROOT_TGZ && -f $PLATFORM_TGZ ]] || die "npm pack did not write both tarballs"

root_files=$(tar -tzf "$ROOT_TGZ" | sed 's|^package/||' | sort)
platform_files=$(tar -tzf "$PLATFORM_TGZ" | sed 's|^package/||' | sort)
echo "  $(basename "$ROOT_TGZ"): $(echo "$root_files" | tr '\n' ' ')"
echo "  $(basename "$PLATFORM_TGZ"): $(echo "$platform_files" | tr '\n' ' ')"
for f in index.js platform-package.js index.d.ts bin/cline-hooks.js package.json; do
  grep -qx "$f" <<<"$root_files" || die "the root tarball lacks $f"
done
if grep -q '\.node$' <<<"$root_files"; then die "the root tarball ships a binary; it must ship the loader and types only"; fi
# napi-rs's generated loader finds the platform package through NODE_PATH too; index.js loads by path.
if grep -qx binding.js <<<"$root_files"; then die "the root tarball ships binding.js, which index.js does not use"; fi
grep -qx "$BINARY" <<<"$platform_files" || die "the platform tarball lacks $BINARY"
[[ $(wc -l <<<"$platform_files") -le 3 ]] || die "the platform tarball holds more than package.json, README.md and the binary"

size=$(stat -c %s "$BINARY" 2>/dev/null || stat -f %z "$BINARY")
if command -v strip >/dev/null 2>&1 && [[ $PLATFORM == linux-* ]]; then
  cp "$BINARY" "$TMP/stripped.node" && strip "$TMP/stripped.node"
  stripped=$(stat -c %s "$TMP/stripped.node")
else
  stripped=$size
fi
log "size of $BINARY: $size bytes as shipped, $stripped bytes stripped (budget $MAX_BYTES)"
((stripped < MAX_BYTES)) || die "the stripped $BINARY is $stripped bytes, over the $MAX_TEXT budget"
((size < MAX_BYTES)) || die "the shipped $BINARY is $size bytes, over the $MAX_TEXT budget (is the release profile still stripping?)"

# 3. A fresh project that knows nothing of the repo.
JEST_VERSION=$(node -p 'require("jest/package.json").version' 2>/dev/null || echo 30)
node -e '
  const fs = require("fs")
  const repo = JSON.parse(fs.readFileSync(process.argv[1], "utf8"))
  // The repo'"'"'s Jest settings minus its ignore lists (they name repo folders).
  const { modulePathIgnorePatterns, testPathIgnorePatterns, ...jest } = repo.jest
  fs.writeFileSync(process.argv[2], JSON.stringify({
    name: "cline-hooks-package-test",
    version: "0.0.0",
    private: true,
    description: "temp project: the Jest suite and consumers against the installed @cline/hooks",
    main: "index.js",
    // The repo'"'"'s own documents and sources are not in a package: the docs links and the
    // type tests (snippets of docs/, codes named in src/) run in the repo; the installed types
    // are compiled by the TypeScript consumer below.
    jest: { ...jest, testPathIgnorePatterns: ["/node_modules/", "/__test__/docs\\.test\\.js$", "/__test__/types\\.test\\.js$"] },
  }, null, 2) + "\n")
' "$ROOT/package.json" "$PROJECT/package.json"

AJV_VERSION=$(node -p 'require("ajv/package.json").version' 2>/dev/null || echo 8)
log "npm install (both tarballs, jest@$JEST_VERSION, ajv@$AJV_VERSION, typescript, esbuild, @types/node) into $PROJECT"
(cd "$PROJECT" && npm install --no-audit --no-fund --loglevel=error \
  "$ROOT_TGZ" "$PLATFORM_TGZ" "jest@$JEST_VERSION" "ajv@$AJV_VERSION" typescript@5 esbuild@0 "@types/node@20")
[[ -f $PROJECT/node_modules/@cline/hooks/index.js ]] || die "@cline/hooks is not installed"
[[ -f $PROJECT/node_modules/$PLATFORM_PKG/$BINARY ]] || die "$PLATFORM_PKG is not installed"

# The test suite and its fixtures; nothing else from the repo.
cp -R "$ROOT/__test__" "$PROJECT/__test__"
cp -R "$ROOT/examples" "$PROJECT/examples"
cp -R "$ROOT/scripts/consumers" "$PROJECT/consumers"
cat >"$PROJECT/index.js" <<'EOF'
'use strict'
// The copied tests require('..'): here that is the installed package, nothing else.
module.exports = require('@cline/hooks')
EOF
# The example extension's tsconfig maps @cline/hooks to ../../index.d.ts: the installed types.
cp "$PROJECT/node_modules/@cline/hooks/index.d.ts" "$PROJECT/index.d.ts"
cat >"$PROJECT/platform-package.js" <<'EOF'
'use strict'
// The copied tests require('../platform-package.js'): here that is the installed package's file.
const path = require('path')
module.exports = require(path.join(path.dirname(require.resolve('@cline/hooks/package.json')), 'platform-package.js'))
EOF
mkdir -p "$PROJECT/sdk"
cat >"$PROJECT/sdk/index.js" <<'EOF'
'use strict'
// The copied tests require('../sdk'): here that is the installed package's subpath export.
module.exports = require('@cline/hooks/sdk')
EOF
# The schema tests read the shipped schemas, and build the adapter's payloads with its module.
ln -s node_modules/@cline/hooks/schemas "$PROJECT/schemas"
cat >"$PROJECT/sdk/payloads.js" <<'EOF'
'use strict'
// The copied tests require('../sdk/payloads'): here that is the installed package's file.
const path = require('path')
module.exports = require(path.join(path.dirname(require.resolve('@cline/hooks/package.json')), 'sdk', 'payloads.js'))
EOF
# A symlink to the installed bin/ folder, so the CLI runs from node_modules/@cline/hooks/bin
# (Node resolves the main module's real path), its require('../index.js') is the installed
# loader, and the tests that require the CLI's modules (bin/templates.js) get the shipped ones.
ln -s node_modules/@cline/hooks/bin "$PROJECT/bin"

# No Rust toolchain and no repo in reach: PATH without cargo/rustup, cwd outside the repo.
CLEAN_PATH=$(tr ':' '\n' <<<"$PATH" | grep -v -e '\.cargo' -e 'rustup' | paste -sd: -)
run() { (cd "$PROJECT" && env -u NAPI_RS_NATIVE_LIBRARY_PATH -u CARGO_HOME -u RUSTUP_HOME PATH="$CLEAN_PATH" "$@"); }
if run sh -c 'command -v cargo || command -v rustc' >/dev/null; then die "cargo/rustc still on PATH"; fi
case "$PROJECT" in "$ROOT"/*) die "the temp project is inside the repo" ;; esac

log "which binary loads"
run node consumers/loaded-binary.cjs "$PLATFORM_PKG"

# 4. The Jest suite on the installed package.
log "Jest suite (__test__/) against the installed package"
run npx jest --ci ${CLINE_PACKAGE_TEST_JEST_ARGS:-}

# 5. Consumers.
log "consumer: CommonJS"
run node consumers/cjs-consumer.cjs
log "consumer: ES module"
run node consumers/esm-consumer.mjs
log "consumer: TypeScript (tsc --noEmit --strict against the installed index.d.ts)"
run npx tsc --noEmit --strict -p consumers/tsconfig.json
run npx tsc -p consumers/tsconfig.json
run node consumers/dist-ts/ts-consumer.js
log "consumer: esbuild bundle, VS Code extension style (--platform=node --format=cjs --external:@cline/hooks)"
run npx esbuild consumers/bundled-consumer.js --bundle --platform=node --format=cjs --target=node18 \
  --external:@cline/hooks --outfile=dist/extension.js --log-level=warning
grep -q 'require("@cline/hooks")' "$PROJECT/dist/extension.js" || die "the bundle does not require @cline/hooks at run time"
if grep -q 'requireNative\|\.node"' "$PROJECT/dist/extension.js"; then die "the loader or a .node path was bundled in"; fi
run node dist/extension.js

log "consumer: the subpath exports @cline/hooks/sdk and @cline/hooks/serve (CommonJS and ES module) and @cline/hooks/cline-plugin"
run node -e "if (typeof require('@cline/hooks/sdk').createFileHooks !== 'function') process.exit(1)"
run node -e "if (typeof require('@cline/hooks/serve').serveHook !== 'function') process.exit(1)"
run node --input-type=module -e "
  import { createFileHooks } from '@cline/hooks/sdk'
  import { serveHook } from '@cline/hooks/serve'
  import plugin from '@cline/hooks/cline-plugin'
  if (typeof serveHook !== 'function') throw new Error('no serveHook')
  if (typeof createFileHooks !== 'function') throw new Error('no createFileHooks')
  if (plugin.manifest.capabilities[0] !== 'hooks' || typeof plugin.hooks.beforeTool !== 'function') throw new Error('bad plugin')"

log "passed: the Jest suite and 5 consumers ran on the packed $PLATFORM_PKG ($stripped bytes stripped)"
