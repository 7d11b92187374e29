#!/usr/bin/env bash
# lint.sh runs staticcheck and deadcode over the whole module and fails on
# any finding. Both tools come from the Go module proxy at the pinned
# versions below (each builds with the go in go.mod, 1.26), into a cache
# directory, so a CI runner needs nothing but Go.
#
#   scripts/lint.sh              check ./...
#   scripts/lint.sh ./config/... check some packages only
#
# deadcode runs with -test: the test binaries are roots too, because this
# module is mostly libraries (elector, the analyzers, the golangci-lint
# plugin) whose only main packages in the module do not reach all of them.
# What it reports in _test.go files is left out: Example functions without
# an Output comment are compiled, never run, and are documentation.
#
# Environment: LINT_BIN (default ~/.cache/gatesift/lint-bin) is where the
# tools are installed; STATICCHECK_VERSION and DEADCODE_VERSION override
# the pins. Exit status: 0 clean, 1 findings or a tool failure.
set -euo pipefail

STATICCHECK_VERSION=${STATICCHECK_VERSION:-v0.8.2} # honnef.co/go/tools
DEADCODE_VERSION=${DEADCODE_VERSION:-v0.52.0}       # golang.org/x/tools, as in go.mod
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LINT_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/gatesift/lint-bin}
log() { printf 'lint: %s\n' "$*" >&2; }

# install NAME PKG VERSION: go install into $bin/NAME-VERSION once.
install() {
	local name=$1 pkg=$2 version=$3 dir="$bin/$1-$3"
	if [ ! -x "$dir/$name" ]; then
		log "installing $pkg@$version"
		mkdir -p "$dir"
		# Outside the module, so its go.mod and GOFLAGS do not apply.
		(cd "$dir" && GOBIN="$dir" go install "$pkg@$version")
	fi
	printf '%s\n' "$dir/$name"
}

staticcheck=$(install staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION")
deadcode=$(install deadcode golang.org/x/tools/cmd/deadcode "$DEADCODE_VERSION")

cd "$root"
[ $# -gt 0 ] || set -- ./...
status=0

log "staticcheck $STATICCHECK_VERSION $*"
if ! "$staticcheck" "$@"; then
	status=1
fi

log "deadcode $DEADCODE_VERSION -test $*"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! "$deadcode" -test "$@" >"$out"; then
	log "deadcode failed"
	status=1
fi
if grep -v '_test\.go:' "$out" >&2; then
	log "deadcode: the functions above are reached from no main and no test; remove them (or test them)"
	status=1
fi

if [ $status = 0 ]; then
	log "clean"
fi
exit $status
