#!/usr/bin/env bash
# The core crate on its own (issue 11): cline-hooks-core builds and passes its tests without the
# Node binding, depends on no napi crate, documents every public item (rustdoc without warnings),
# its example runs the repo's example workspace, and it packages for crates.io.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\ncore: %s\n' "$*"; }

step "cargo test -p cline-hooks-core --all-targets (unit tests, doctests, benches compiled)"
cargo test -p cline-hooks-core --all-targets
cargo test -p cline-hooks-core --doc

step "no napi crate in its tree (cargo tree -p cline-hooks-core -e normal,build --target all)"
deps=$(cargo tree -p cline-hooks-core -e normal,build --target all --prefix none | sed 's/ (\*)$//' | sort -u)
if grep -i napi <<<"$deps"; then
  echo "cline-hooks-core must not depend on napi (cargo tree -p cline-hooks-core -i CRATE shows why)" >&2
  exit 1
fi
echo "$(wc -l <<<"$deps") crates in its tree, none of them napi"

step "rustdoc without warnings"
RUSTDOCFLAGS='-D warnings' cargo doc -p cline-hooks-core --no-deps

step "the run_event example on examples/workspace"
node scripts/core-example-check.js

step "cargo package -p cline-hooks-core"
# A developer's uncommitted work should not stop the check; CI's clean clone gets the strict one.
if [ -n "${CI:-}" ]; then cargo package -p cline-hooks-core; else cargo package -p cline-hooks-core --allow-dirty; fi
