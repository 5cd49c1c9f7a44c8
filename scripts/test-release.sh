#!/usr/bin/env bash
# `npm run test:release`: the release, rehearsed. Publishes every package to a private npm registry
# on 127.0.0.1 with the steps the GitHub workflow's publish job runs (scripts/release.js), then
# installs from it the way users do, in empty projects with no Rust and no source tree:
#
#   1. the host's binary (built if missing or stale) and cross-built ones (scripts/build-cross.sh;
#      CLINE_RELEASE_TEST_CROSS lists the Rust targets, default the two arm64 Linux ones, "" for
#      none); a target that cannot be built here is left out with a message. Or, with
#      CLINE_RELEASE_TEST_ARTIFACTS=DIR, the binaries in DIR (the workflow's build jobs' nine);
#   2. verdaccio (npm, cached in .ci-cache/release/verdaccio) on a free port with temp storage and
#      config, no uplink (nothing can come from the internet), a user made for the run, and at most
#      CLINE_RELEASE_TEST_TIMEOUT seconds to live (default 900); stopped by pid at the end, and by
#      scripts/local-registry.js if this script is killed;
#   3. in a copy of the checkout: release.js check (the tag is v<version>), prepare (binaries into
#      npm/<platform>/, only the targets built here), contents (npm pack --dry-run of each package
#      holds only what it should), publish (napi prepublish: the platform packages and the root's
#      optionalDependencies; then the root; provenance off: it needs GitHub's OIDC), verify;
#   4. `npm install @cline/hooks`: exactly the root and the host's platform package, whose binary
#      loads, runs real hooks (CommonJS, ES module), `npx cline-hooks list` and the subpath exports;
#   5. `npm install --os --cpu --libc` for every other platform published: exactly its platform
#      package, with the binary that was published, byte for byte;
#   6. `npm install --omit=optional`: loading fails naming the package and version to install, and
#      the message's command fixes it without touching package.json; a cut-off binary is refused
#      before it is loaded;
#   7. a mismatched pair (a root whose optionalDependencies pin an older platform package, published
#      under the dist-tag `mismatch`): loading fails naming the package and version to install.
# npm runs with its own userconfig and cache for the registry: nothing is written to the user's
# ~/.npm or ~/.npmrc (their settings are read only to install verdaccio, into .ci-cache/release
# with a cache of its own there). CLINE_RELEASE_TEST_KEEP=1 keeps the temp folder.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
VERDACCIO_VERSION=6.8.0 # the last that runs on Node 20 (6.9 needs Node 22)
CROSS=${CLINE_RELEASE_TEST_CROSS-aarch64-unknown-linux-gnu aarch64-unknown-linux-musl}
LIFETIME=${CLINE_RELEASE_TEST_TIMEOUT:-900}

log() { echo "[test:release] $*"; }
die() { echo "[test:release] FAIL: $*" >&2; exit 1; }

# npm passes its settings to scripts as npm_config_* variables (the user's userconfig and cache
# among them): none may reach the npm commands below, which get their own.
while IFS= read -r name; do unset "$name"; done < <(env | sed -n 's/^\([Nn][Pp][Mm]_[Cc][Oo][Nn][Ff][Ii][Gg]_[^=]*\)=.*/\1/p')

source scripts/host-binary.sh
host_binary "${CLINE_RELEASE_TEST_NO_BUILD:-}" | sed 's/^/[test:release] /' || die "no $BINARY to publish"
VERSION=$(node -p 'require("./package.json").version')
NAME=$(node -p 'require("./package.json").name')
log "rehearsing the release of $NAME@$VERSION (host platform $PLATFORM)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cline-hooks-release.XXXXXX")
TMP=$(cd "$TMP" && pwd -P)
REGISTRY_PID=
stop_registry() {
  if [[ -n $REGISTRY_PID ]]; then
    kill "$REGISTRY_PID" 2>/dev/null || true
    wait "$REGISTRY_PID" 2>/dev/null || true
    REGISTRY_PID=
  fi
}
cleanup() {
  local status=$?
  stop_registry
  if [[ $status -ne 0 && -f $TMP/registry/log ]]; then
    echo "[test:release] the registry's log:" >&2
    tail -n 40 "$TMP/registry/log" >&2
  fi
  if [[ -n ${CLINE_RELEASE_TEST_KEEP:-} ]]; then log "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
# A signal ends the run through the EXIT trap, so the registry is stopped on Ctrl-C too.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------------------------------------
# 1. Binaries, in the layout the workflow's download-artifact leaves: bindings-<triple>/<file>.
#    CLINE_RELEASE_TEST_ARTIFACTS: a folder of binaries built elsewhere (the workflow's build jobs)
#    to publish instead of the host build and the cross builds.
ARTIFACTS=$TMP/artifacts
if [[ -n ${CLINE_RELEASE_TEST_ARTIFACTS:-} ]]; then
  [[ -d $CLINE_RELEASE_TEST_ARTIFACTS ]] || die "CLINE_RELEASE_TEST_ARTIFACTS is not a folder: $CLINE_RELEASE_TEST_ARTIFACTS"
  cp -R "$CLINE_RELEASE_TEST_ARTIFACTS" "$ARTIFACTS"
  CROSS=
else
  mkdir -p "$ARTIFACTS/bindings-host"
  cp "$BINARY" "$ARTIFACTS/bindings-host/"
fi
if [[ -n $CROSS && $(uname -sm) != "Linux x86_64" ]]; then
  log "left out the cross targets ($CROSS): scripts/build-cross.sh links them on Linux x86_64 only"
  CROSS=
fi
for target in $CROSS; do
  log "cross-building $target (scripts/build-cross.sh)"
  if ! CLINE_CROSS_OUT=$ARTIFACTS/bindings-$target bash scripts/build-cross.sh "$target" 2>&1 | sed 's/^/  /'; then
    log "left out $target: its binary could not be built here (the output above says why); the release builds it on GitHub"
  fi
done

# ---------------------------------------------------------------------------------------------
# 2. The registry.
VERDACCIO=$ROOT/.ci-cache/release/verdaccio
if [[ ! -f $VERDACCIO/node_modules/verdaccio/package.json ]] ||
  [[ $(node -p "require('$VERDACCIO/node_modules/verdaccio/package.json').version") != "$VERDACCIO_VERSION" ]]; then
  log "installing verdaccio@$VERDACCIO_VERSION into ${VERDACCIO#$ROOT/}"
  rm -rf "$VERDACCIO"
  mkdir -p "$VERDACCIO"
  # verdaccio-audit asks for node-fetch by a dist-tag (`cjs`) that not every registry mirror
  # carries; 2.7.0 is what it names on npmjs.org.
  cat >"$VERDACCIO/package.json" <<EOF
{ "private": true, "dependencies": { "verdaccio": "$VERDACCIO_VERSION" }, "overrides": { "node-fetch": "2.7.0" } }
EOF
  # A cache of its own: nothing of the rehearsal goes into the user's ~/.npm.
  (cd "$VERDACCIO" && npm install --no-audit --no-fund --no-update-notifier --loglevel=error \
    --cache "$ROOT/.ci-cache/release/npm-cache")
fi

PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
REGISTRY=http://127.0.0.1:$PORT/
mkdir -p "$TMP/registry/storage"
cat >"$TMP/registry/config.yaml" <<EOF
storage: $TMP/registry/storage
auth:
  htpasswd:
    file: $TMP/registry/htpasswd
    max_users: 1
uplinks: {}
packages:
  '**':
    access: \$all
    publish: \$authenticated
log: { type: stdout, format: pretty, level: warn }
EOF
log "starting verdaccio on $REGISTRY (lives at most ${LIFETIME}s, and not past this script)"
node scripts/local-registry.js $$ "$LIFETIME" "$TMP" "$VERDACCIO/node_modules/verdaccio/bin/verdaccio" \
  --config "$TMP/registry/config.yaml" --listen "127.0.0.1:$PORT" >"$TMP/registry/log" 2>&1 &
REGISTRY_PID=$!
# Up when /-/ping answers; the user the run publishes as.
TOKEN=$(node - "$REGISTRY" "$REGISTRY_PID" <<'EOF'
const [registry, pid] = process.argv.slice(2)
const deadline = Date.now() + 60000
const alive = () => { try { process.kill(Number(pid), 0); return true } catch { return false } }
;(async () => {
  for (;;) {
    try { if ((await fetch(`${registry}-/ping`)).ok) break } catch {}
    if (!alive() || Date.now() > deadline) throw new Error(alive() ? 'no answer within 60 s' : 'it exited')
    await new Promise((r) => setTimeout(r, 200))
  }
  const res = await fetch(`${registry}-/user/org.couchdb.user:rehearsal`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rehearsal', password: require('crypto').randomBytes(12).toString('hex') }),
  })
  const body = await res.json()
  if (!body.token) throw new Error(`adding a user: ${res.status} ${JSON.stringify(body)}`)
  console.log(body.token)
})().catch((e) => { console.error(`verdaccio: ${e.message}`); process.exit(1) })
EOF
) || { cat "$TMP/registry/log" >&2; die "the registry did not start"; }
# npm's settings for everything below: this registry, its token, a cache of its own.
export npm_config_userconfig=$TMP/npmrc
export npm_config_cache=$TMP/npm-cache
printf 'registry=%s\n//127.0.0.1:%s/:_authToken=%s\nfund=false\naudit=false\nupdate-notifier=false\n' \
  "$REGISTRY" "$PORT" "$TOKEN" >"$npm_config_userconfig"

# ---------------------------------------------------------------------------------------------
# 3. The release steps, in a copy of the checkout (they write into it, as in the workflow's).
STAGE=$TMP/checkout
mkdir -p "$STAGE/scripts"
read -r -a published <<<"$(node -p 'require("./package.json").files.map((f) => f.replace(/\/$/, "")).join(" ")')"
cp -R package.json README.md LICENSE npm "${published[@]}" "$STAGE/"
cp scripts/release.js scripts/release-manifests.js "$STAGE/scripts/"
ln -s "$ROOT/node_modules" "$STAGE/node_modules"
release() { (cd "$STAGE" && node scripts/release.js "$@"); }
release check --tag "v$VERSION"
release prepare --artifacts "$ARTIFACTS" --only-present
release contents
release publish
release verify

# ---------------------------------------------------------------------------------------------
# Projects that know nothing of the repo: no Rust toolchain on PATH, outside the source tree.
CLEAN_PATH=$(tr ':' '\n' <<<"$PATH" | grep -v -e '\.cargo' -e 'rustup' | paste -sd: -)
in_project() { (cd "$1" && shift && env -u NAPI_RS_NATIVE_LIBRARY_PATH -u CARGO_HOME -u RUSTUP_HOME PATH="$CLEAN_PATH" "$@"); }
new_project() {
  local dir=$TMP/projects/$1
  mkdir -p "$dir"
  printf '{ "name": "rehearsal-%s", "version": "1.0.0", "private": true }\n' "$1" >"$dir/package.json"
  echo "$dir"
}
# The @cline packages a project has installed, one per line.
installed() { (cd "$1/node_modules/@cline" && ls -1); }
# Fails unless npm installed exactly the root and the platform package given ($3 says how).
expect_exactly() {
  local want
  want=$(printf '%s\n' hooks "hooks-$2")
  [[ $(installed "$1") == "$want" ]] || die "$3 installed $(installed "$1" | tr '\n' ' '), expected exactly: $(tr '\n' ' ' <<<"$want")"
}
if in_project "$TMP" sh -c 'command -v cargo || command -v rustc' >/dev/null; then die "cargo/rustc still on PATH"; fi

# 4. The host.
P=$(new_project host)
log "npm install $NAME (host: $PLATFORM)"
in_project "$P" npm install --loglevel=error "$NAME"
expect_exactly "$P" "$PLATFORM" "npm install $NAME"
cp scripts/consumers/loaded-binary.cjs scripts/consumers/cjs-consumer.cjs scripts/consumers/esm-consumer.mjs "$P/"
in_project "$P" node loaded-binary.cjs "$NAME-$PLATFORM"
in_project "$P" node cjs-consumer.cjs
in_project "$P" node esm-consumer.mjs
mkdir -p "$P/ws/.clinerules/hooks"
printf '#!/bin/sh\necho {}\n' >"$P/ws/.clinerules/hooks/PreToolUse"
chmod +x "$P/ws/.clinerules/hooks/PreToolUse"
listing=$(in_project "$P" npx --no-install cline-hooks list --workspace ws --no-global)
echo "$listing" | sed 's/^/  /'
grep -q 'PreToolUse  *enabled' <<<"$listing" || die "npx cline-hooks list did not list the enabled PreToolUse hook"
in_project "$P" node -e "
  const assert = require('assert')
  assert.equal(typeof require('$NAME/sdk').createFileHooks, 'function')
  const plugin = require('$NAME/cline-plugin')
  assert.equal(plugin.manifest.capabilities[0], 'hooks')
  assert.equal(require('$NAME/package.json').version, '$VERSION')
  import('$NAME/sdk').then((m) => assert.equal(typeof m.createFileHooks, 'function'))"
log "host: exactly $NAME and $NAME-$PLATFORM installed; the binary loads from it and runs hooks; npx cline-hooks list and the subpath exports work"

# 5. Every other published platform, resolved from the registry by npm's --os/--cpu/--libc.
OTHERS=()
while IFS=' ' read -r platform flags; do
  [[ $platform == "$PLATFORM" ]] && continue
  OTHERS+=("$platform")
  P=$(new_project "$platform")
  log "npm install $flags $NAME"
  # shellcheck disable=SC2086 # flags are words
  in_project "$P" npm install --loglevel=error $flags "$NAME" </dev/null
  expect_exactly "$P" "$platform" "npm install $flags"
  built=$(find "$ARTIFACTS" -name "cline-hooks.$platform.node" | head -n1)
  cmp "$P/node_modules/@cline/hooks-$platform/cline-hooks.$platform.node" "$built" ||
    die "the $platform binary npm installed is not the one published"
  log "$flags: exactly $NAME and $NAME-$platform, with the published binary"
done < <(cd "$STAGE" && node -e "
  // The targets the release kept (prepare left out those without a binary), with the npm flags
  // that select their package (the rule release.js check holds the manifests to).
  const { npmSelectors } = require('./scripts/release-manifests.js')
  for (const t of require('./package.json').napi.targets.map(require('@napi-rs/cli').parseTriple)) {
    const flags = Object.entries(npmSelectors(t)).filter(([, v]) => v).map(([k, [v]]) => '--' + k + '=' + v)
    console.log([t.platformArchABI, ...flags].join(' '))
  }")

# 6. Optional dependencies left out: the loader says what to install, and that fixes it.
P=$(new_project omitted)
log "npm install --omit=optional $NAME"
in_project "$P" npm install --loglevel=error --omit=optional "$NAME"
[[ $(installed "$P") == hooks ]] || die "--omit=optional installed $(installed "$P" | tr '\n' ' ')"
expect_load_error() { # project, error code, text the message must hold
  local out
  out=$(in_project "$1" node -e "
    try { require('$NAME'); console.log('loaded') } catch (e) { console.log(e.code + ': ' + e.message) }")
  echo "  $out"
  [[ $out == "$2: "* && $out == *"$3"* ]] || die "loading in $(basename "$1") did not fail with $2 naming '$3'"
}
expect_load_error "$P" ERR_CLINE_HOOKS_BINARY_MISSING "\`npm install --no-save $NAME-$PLATFORM@$VERSION\`"
before=$(cat "$P/package.json")
in_project "$P" npm install --loglevel=error --no-save "$NAME-$PLATFORM@$VERSION"
[[ $(cat "$P/package.json") == "$before" ]] || die "the command the error names changed package.json"
cp scripts/consumers/loaded-binary.cjs "$P/"
in_project "$P" node loaded-binary.cjs "$NAME-$PLATFORM"
log "--omit=optional: the error names $NAME-$PLATFORM@$VERSION, and its command fixes the project without touching package.json"

# A cut-off binary (a download that stopped): refused before the system's loader maps it, which
# would crash the process (SIGBUS) instead of failing.
P=$TMP/projects/host
binary=$P/node_modules/@cline/hooks-$PLATFORM/cline-hooks.$PLATFORM.node
head -c 65536 "$binary" >"$binary.part" && mv "$binary.part" "$binary"
expect_load_error "$P" ERR_CLINE_HOOKS_BINARY_INVALID "but the release's is"
log "a cut-off binary: refused with ERR_CLINE_HOOKS_BINARY_INVALID, not loaded"

# 7. A mismatched pair: a root whose optionalDependencies pin the platform packages of $VERSION.
MISMATCH=$VERSION-mismatch.1
cp -R "$STAGE" "$TMP/mismatch"
rm -f "$TMP/mismatch/node_modules"
(cd "$TMP/mismatch" && npm pkg set "version=$MISMATCH" && npm publish --loglevel=error --tag mismatch)
P=$(new_project mismatch)
log "npm install $NAME@$MISMATCH (its platform packages are $VERSION)"
in_project "$P" npm install --loglevel=error "$NAME@$MISMATCH"
expect_load_error "$P" ERR_CLINE_HOOKS_BINARY_VERSION "\`npm install --no-save $NAME-$PLATFORM@$MISMATCH\`"
log "a mismatched pair: the error names $NAME-$PLATFORM@$MISMATCH"

stop_registry
left=$(node -e '
  // Any process whose command line names this run'"'"'s registry config (Linux: /proc).
  const fs = require("fs")
  if (!fs.existsSync("/proc/self/cmdline")) process.exit(0)
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)) {
    try { if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(process.argv[1])) console.log(pid) } catch {}
  }' "$TMP/registry/config.yaml")
[[ -z $left ]] || die "the registry is still running after it was stopped (pids $left)"
log "passed: $NAME@$VERSION and $((1 + ${#OTHERS[@]})) platform packages ($PLATFORM ${OTHERS[*]}) published to a local registry by the release steps and installed from it; the registry is stopped"
