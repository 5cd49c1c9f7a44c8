#!/usr/bin/env bash
# Installs the pinned Cline CLI (and the SDK packages it brings: @cline/core, @cline/shared, ...)
# into .ci-cache/cline for the end-to-end tests in e2e/; skips when that version is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=3.0.65
PREFIX=.ci-cache/cline
PKG="$PREFIX/node_modules/cline/package.json"

installed=""
if [ -f "$PKG" ]; then
  installed=$(node -p 'require(process.argv[1]).version' "$PWD/$PKG" 2>/dev/null || true)
fi
if [ "$installed" = "$VERSION" ]; then
  echo "install-cline: cline@$VERSION already in $PREFIX"
  exit 0
fi

mkdir -p "$PREFIX"
# --no-save: the folder has no package.json of its own to record the pin in; the pin lives here.
npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$PREFIX" "cline@$VERSION"
echo "install-cline: installed cline@$VERSION into $PREFIX"
