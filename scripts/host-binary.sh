# Sourced by the scripts that package the host's build (test-package.sh, test-release.sh), from the
# repository root. Sets PLATFORM (napi's name for this machine, by the loader's own rule in
# platform-package.js) and BINARY (cline-hooks.<platform>.node), and builds BINARY with
# `npm run build` when it is missing or older than the Rust sources, unless $1 is non-empty (CI:
# the binary comes from the build job).

PLATFORM=$(node -p '
  const musl = process.platform === "linux" && !process.report.getReport().header.glibcVersionRuntime
  require("./platform-package.js").platformName({ platform: process.platform, arch: process.arch, musl })')
BINARY=cline-hooks.$PLATFORM.node

host_binary() {
  local no_build=$1
  if [[ -n $no_build ]]; then
    [[ -f $BINARY ]] || { echo "no $BINARY, and building is switched off" >&2; return 1; }
  elif [[ ! -f $BINARY ]] ||
    [[ -n $(find src crates/hooks-core/src Cargo.toml Cargo.lock build.rs -newer "$BINARY" 2>/dev/null | head -n1) ]]; then
    echo "building $BINARY (missing or older than the sources)"
    npm run build
  fi
  [[ -f $BINARY ]] || { echo "the build did not produce $BINARY" >&2; return 1; }
}
