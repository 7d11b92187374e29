#!/usr/bin/env bash
# Installs the Azurite blob emulator (npm package azurite, pinned) where
# internal/testserver looks for it: $GATESIFT_AZURITE_DIR, else
# $HOME/.cache/gatesift/azurite. Idempotent: does nothing when the pinned
# version is already there. Needs node and npm (Debian: apt-get install npm).
set -euo pipefail

version=3.37.0
dir=${GATESIFT_AZURITE_DIR:-${HOME}/.cache/gatesift/azurite}
bin="$dir/node_modules/.bin/azurite-blob"

installed() {
	[ -x "$bin" ] && node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
		"$dir/node_modules/azurite/package.json" "$version" 2>/dev/null
}

if installed; then
	echo "azurite $version already in $dir" >&2
	exit 0
fi
if ! command -v npm >/dev/null; then
	echo "install-azurite: npm not found (apt-get install npm)" >&2
	exit 1
fi
mkdir -p "$dir"
# A package.json of our own keeps npm from walking up to a parent project.
[ -f "$dir/package.json" ] || echo '{"name":"gatesift-azurite","private":true}' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "azurite@$version" >&2
installed || { echo "install-azurite: $bin missing after npm install" >&2; exit 1; }
echo "azurite $version installed in $dir" >&2
