#!/usr/bin/env bash
# `npm run build:cross`: cross-builds the addon for the targets this Linux x86_64 machine can link
# (zig as the linker, through cargo-zigbuild), checks that every artifact has the right format and
# architecture, and prints a size table.
#
#   scripts/build-cross.sh                 default targets (below)
#   scripts/build-cross.sh <triple>...     only these
#
# Installs what is missing, skipping what is there: the rustup targets, and zig and cargo-zigbuild
# (both from PyPI). Artifacts go to artifacts/ (CLINE_CROSS_OUT to change it), named as
# napi names them (cline-hooks.<platform>.node), the layout `napi artifacts` expects; the host's
# cline-hooks.linux-x64-gnu.node, index.js and index.d.ts in the repo root are never written.
# glibc targets are linked against glibc 2.17 symbols (zig's `<triple>.2.17`), so they load on
# every glibc distribution VS Code supports.
#
# Windows MSVC targets are not built here (cargo-xwin needs the MSVC CRT and Windows SDK, which
# come from Microsoft, not from a package registry): the GitHub workflow builds them on Windows.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${CLINE_CROSS_OUT:-$ROOT/artifacts}
source scripts/binary-budget.sh
GLIBC=2.17
ZIGBUILD_VERSION=0.24.0
ZIGLANG_VERSION=0.17.1

DEFAULT_TARGETS=(
  aarch64-unknown-linux-gnu
  x86_64-unknown-linux-musl
  x86_64-apple-darwin
  aarch64-apple-darwin
  aarch64-unknown-linux-musl
  armv7-unknown-linux-gnueabihf
)
if [[ $# -gt 0 ]]; then TARGETS=("$@"); else TARGETS=("${DEFAULT_TARGETS[@]}"); fi

log() { echo "[build:cross] $*"; }
die() { echo "[build:cross] FAIL: $*" >&2; exit 1; }

# napi's platform name of a Rust target (the .node suffix and the npm/<platform> folder).
platform_of() {
  case $1 in
    x86_64-unknown-linux-gnu) echo linux-x64-gnu ;;
    aarch64-unknown-linux-gnu) echo linux-arm64-gnu ;;
    armv7-unknown-linux-gnueabihf) echo linux-arm-gnueabihf ;;
    x86_64-unknown-linux-musl) echo linux-x64-musl ;;
    aarch64-unknown-linux-musl) echo linux-arm64-musl ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    *) die "no platform name known for $1 (add it to platform_of)" ;;
  esac
}

# What `file` must say about each artifact, and which libc it must need (ELF only).
expect_file() {
  case $1 in
    aarch64-unknown-linux-*) echo 'ELF 64-bit LSB shared object, ARM aarch64' ;;
    x86_64-unknown-linux-*) echo 'ELF 64-bit LSB shared object, x86-64' ;;
    armv7-unknown-linux-gnueabihf) echo 'ELF 32-bit LSB shared object, ARM, EABI5' ;;
    x86_64-apple-darwin) echo 'Mach-O 64-bit x86_64 dynamically linked shared library' ;;
    aarch64-apple-darwin) echo 'Mach-O 64-bit arm64 dynamically linked shared library' ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# Tools.
for tool in file node npx rustup cargo; do
  command -v "$tool" >/dev/null || die "$tool is required"
done

installed=$(rustup target list --installed)
for t in "${TARGETS[@]}"; do
  if ! grep -qx "$t" <<<"$installed"; then
    log "rustup target add $t"
    rustup target add "$t"
  fi
done

# zig and cargo-zigbuild from PyPI (prebuilt wheels: seconds, where `cargo install` compiles for
# minutes), in a virtualenv under .ci-cache/zigbuild, unless both are on PATH already.
TOOLS=$ROOT/.ci-cache/zigbuild
if ! command -v cargo-zigbuild >/dev/null || ! command -v zig >/dev/null; then
  if [[ ! -x $TOOLS/bin/cargo-zigbuild ]] || ! "$TOOLS/bin/python" -m ziglang version >/dev/null 2>&1; then
    log "installing cargo-zigbuild $ZIGBUILD_VERSION and zig (ziglang $ZIGLANG_VERSION) from PyPI into ${TOOLS#$ROOT/}"
    rm -rf "$TOOLS"
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check \
      "cargo-zigbuild==$ZIGBUILD_VERSION" "ziglang==$ZIGLANG_VERSION"
  fi
  # cargo-zigbuild runs `python3 -m ziglang` when no `zig` is on PATH; a `zig` that runs the
  # virtualenv's keeps napi and cargo-zigbuild on the same one.
  mkdir -p "$TOOLS/shim"
  printf '#!/bin/sh\nexec "%s/bin/python" -m ziglang "$@"\n' "$TOOLS" >"$TOOLS/shim/zig"
  chmod +x "$TOOLS/shim/zig"
  export PATH="$TOOLS/shim:$TOOLS/bin:$PATH"
fi
log "zig $(zig version)"
log "$(cargo-zigbuild --version 2>/dev/null || cargo zigbuild --version)"

# A strip that knows every format here: llvm-strip, else rustup's llvm-tools objcopy.
STRIP=()
if command -v llvm-strip >/dev/null; then
  STRIP=(llvm-strip)
else
  objcopy=$(ls "$(rustc --print sysroot)"/lib/rustlib/*/bin/rust-objcopy 2>/dev/null | head -n1 || true)
  [[ -n $objcopy ]] && STRIP=("$objcopy")
fi

# ---------------------------------------------------------------------------------------------
mkdir -p "$OUT"
root_sums() { sha256sum index.js index.d.ts cline-hooks.linux-x64-gnu.node 2>/dev/null || true; }
before=$(root_sums)

rows=()
failures=()
for t in "${TARGETS[@]}"; do
  platform=$(platform_of "$t")
  artifact=$OUT/cline-hooks.$platform.node
  spec=$t
  case $t in *-linux-gnu | *-linux-gnueabihf) spec=$t.$GLIBC ;; esac
  log "building $t ($platform) with zig: napi build --release --target $spec --cross-compile"
  rm -f "$artifact"
  start=$SECONDS
  # --output-dir keeps the .node (and the type definitions napi writes beside it) out of the repo
  # root; --no-js: the loader is the committed index.js.
  if ! npx napi build --platform --release --target "$spec" --cross-compile --no-js --output-dir "$OUT" 2>&1 |
    grep -v -e 'Unknown user config "nodedir"' -e '^ *Compiling ' | sed "s/^/  [$platform] /"; then
    failures+=("$t: build failed")
    continue
  fi
  rm -f "$OUT/index.d.ts"
  [[ -f $artifact ]] || { failures+=("$t: no $artifact"); continue; }
  build_s=$((SECONDS - start))

  # Format and architecture.
  desc=$(file -b "$artifact")
  want=$(expect_file "$t")
  ok=yes
  if [[ $desc != "$want"* ]]; then
    failures+=("$t: file says '$desc', expected '$want...'")
    ok=NO
  fi
  libc=-
  case $t in
    *-linux-*)
      needed=$(readelf -d "$artifact" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
      case $t in
        *-musl)
          # A musl .node needs musl's libc.so and nothing of glibc's.
          if grep -qw 'libc.so' <<<"$needed" && ! grep -q 'libc.so.6' <<<"$needed"; then
            libc="musl (needs: $needed)"
          else
            failures+=("$t: NEEDED is '$needed', expected musl's libc.so and no libc.so.6"); ok=NO
          fi ;;
        *)
          maxglibc=$(objdump -T "$artifact" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1 || true)
          if grep -q 'libc.so.6' <<<"$needed"; then
            libc="glibc ≥ ${maxglibc#GLIBC_}"
          else
            failures+=("$t: NEEDED is '$needed', expected glibc's libc.so.6"); ok=NO
          fi ;;
      esac
      ;;
  esac
  # Every Node-API addon exports napi_register_module_v1.
  if ! (readelf --wide --dyn-syms "$artifact" 2>/dev/null || true; llvm-nm --extern-only "$artifact" 2>/dev/null || true) |
    grep -q 'napi_register_module_v1'; then
    if command -v llvm-nm >/dev/null || [[ $t == *linux* ]]; then
      failures+=("$t: napi_register_module_v1 is not exported"); ok=NO
    fi
  fi

  size=$(stat -c %s "$artifact")
  stripped=$size
  if [[ ${#STRIP[@]} -gt 0 ]]; then
    tmp=$(mktemp)
    # Mach-O: -x keeps the exported symbols dlopen needs (what `strip -x` does on macOS).
    case $t in *-apple-darwin) flags=(-x) ;; *) flags=(--strip-all) ;; esac
    if "${STRIP[@]}" "${flags[@]}" "$artifact" -o "$tmp" 2>/dev/null; then stripped=$(stat -c %s "$tmp"); fi
    rm -f "$tmp"
  fi
  rows+=("$platform|$t|$size|$stripped|$libc|$ok|${build_s}s|$desc")
done

after=$(root_sums)
[[ $before == "$after" ]] || log "note: the repo root's index.js / index.d.ts / .node changed during the run (another build ran concurrently?)"

# The host artifact, for the size table (built by `npx napi build --platform --release`).
if [[ -f cline-hooks.linux-x64-gnu.node ]]; then
  h=cline-hooks.linux-x64-gnu.node
  hs=$(stat -c %s "$h")
  hst=$hs
  if [[ ${#STRIP[@]} -gt 0 ]]; then tmp=$(mktemp); "${STRIP[@]}" --strip-all "$h" -o "$tmp" && hst=$(stat -c %s "$tmp"); rm -f "$tmp"; fi
  hg=$(objdump -T "$h" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1)
  rows+=("linux-x64-gnu|x86_64-unknown-linux-gnu (host build, repo root)|$hs|$hst|glibc ≥ ${hg#GLIBC_}|yes|-|$(file -b "$h")")
  ((hst < MAX_BYTES)) || failures+=("linux-x64-gnu: stripped size $hst is over the $MAX_TEXT budget")
fi

# ---------------------------------------------------------------------------------------------
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
echo
printf '%-20s %-32s %10s %18s %-30s %-6s %s\n' PLATFORM TARGET BYTES 'STRIPPED' LIBC FORMAT BUILD
for row in "${rows[@]}"; do
  IFS='|' read -r platform t size stripped libc ok secs desc <<<"$row"
  printf '%-20s %-32s %10s %9s (%s) %-30s %-6s %s\n' "$platform" "${t%% *}" "$size" "$stripped" "$(mib "$stripped")" "$libc" "$ok" "$secs"
done
echo
for row in "${rows[@]}"; do
  IFS='|' read -r platform t size stripped libc ok secs desc <<<"$row"
  echo "  $platform: $desc"
done
echo
log "artifacts in ${OUT#$ROOT/}/:"
ls -l "$OUT"/*.node | sed 's/^/  /'

if [[ ${#failures[@]} -gt 0 ]]; then
  echo
  for f in "${failures[@]}"; do echo "[build:cross] FAIL: $f" >&2; done
  exit 1
fi
log "all ${#TARGETS[@]} cross artifacts have the expected format and architecture"
