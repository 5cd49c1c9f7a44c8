#!/usr/bin/env bash
# Bounded fuzz run of the stdout parser and the input serialisation (libFuzzer via cargo fuzz).
# FUZZ_SECONDS per target (default 25, so both stay within a minute). The committed corpus
# under crates/hooks-core/fuzz/corpus/ seeds the run and is never modified; new inputs go to a temp folder.
set -euo pipefail
cd "$(dirname "$0")/../crates/hooks-core"
seconds="${FUZZ_SECONDS:-25}"
# cargo fuzz needs nightly-only compiler flags; this machine has stable Rust only.
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for target in output input claude; do
  mkdir -p "$work/$target"
  echo "fuzz: $target for ${seconds}s"
  status=0
  cargo fuzz run --sanitizer none "$target" "$work/$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
    >"$work/$target.log" 2>&1 || status=$?
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$work/$target.log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$work/$target.log" >&2
    echo "fuzz: $target failed (exit $status); a crashing input, if any, is in crates/hooks-core/fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
echo "fuzz: no crash"
