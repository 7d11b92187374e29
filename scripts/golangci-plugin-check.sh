#!/usr/bin/env bash
# golangci-plugin-check.sh builds a custom golangci-lint v2 with the gatesift
# module plugin (plugin/golangci, from this work tree) and checks that it
# reports what the gatesift-vet binary reports: every finding of the binary
# on examples/flagged (file, line, column and rule) must come out as a
# gatesift issue, every "// LE1001" marker line too, and examples/remediated
# must come out clean.
#
# Two ways to build the same binary:
#   GCL_BUILD=custom   the documented route: go install golangci-lint, then
#                      `golangci-lint custom` with a .custom-gcl.yml (it git
#                      clones github.com/golangci/golangci-lint, so it needs
#                      GitHub).
#   GCL_BUILD=module   for machines that reach only the Go module proxy: the
#                      same steps `golangci-lint custom` takes, on the
#                      golangci-lint module source from the proxy (plugins.go
#                      gets the plugin import, go.mod a replace to this tree).
#   GCL_BUILD=auto     (default) custom when GitHub answers, module otherwise.
# GCL_VERSION picks the golangci-lint release (default v2.15.0). GCL_BIN
# skips the build and checks an existing custom binary; GCL_SAVE=path keeps
# the binary this script builds.
#
# Exit status: 0 when both checks pass, 1 otherwise. Slow: it compiles
# golangci-lint (several minutes on two cores).
set -euo pipefail

GCL_VERSION=${GCL_VERSION:-v2.15.0}
GCL_BUILD=${GCL_BUILD:-auto}
root=$(cd "$(dirname "$0")/.." && pwd)
module=$(cd "$root" && go list -m)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

log() { printf '%s\n' "$*" >&2; }

build_custom() {
	log "installing golangci-lint $GCL_VERSION"
	GOBIN="$work/bin" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GCL_VERSION"
	cat >"$work/.custom-gcl.yml" <<YAML
version: $GCL_VERSION
name: custom-gcl
destination: $work/bin
plugins:
  - module: $module
    import: $module/plugin/golangci
    path: $root
YAML
	log "golangci-lint custom"
	(cd "$work" && "$work/bin/golangci-lint" custom -v)
	GCL_BIN="$work/bin/custom-gcl"
}

build_module() {
	log "fetching github.com/golangci/golangci-lint/v2@$GCL_VERSION from the module proxy"
	local src
	src=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/golangci/golangci-lint/v2@$GCL_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$src" ] || { log "no module source for golangci-lint $GCL_VERSION"; exit 1; }
	cp -R "$src" "$work/gcl" && chmod -R u+w "$work/gcl"
	# What `golangci-lint custom` does after its clone: import the plugin,
	# point the module at this tree, tidy, build.
	printf 'package main\n\nimport _ "%s/plugin/golangci"\n' "$module" >"$work/gcl/cmd/golangci-lint/plugins.go"
	(cd "$work/gcl" &&
		go mod edit -replace "$module=$root" &&
		go mod edit -require "$module@v0.0.0" &&
		go mod tidy &&
		go build -o "$work/bin/custom-gcl" ./cmd/golangci-lint)
	GCL_BIN="$work/bin/custom-gcl"
}

if [ -z "${GCL_BIN:-}" ]; then
	if [ "$GCL_BUILD" = auto ]; then
		if timeout 15 git ls-remote --heads https://github.com/golangci/golangci-lint.git >/dev/null 2>&1; then
			GCL_BUILD=custom
		else
			GCL_BUILD=module
		fi
	fi
	case $GCL_BUILD in
	custom) build_custom ;;
	module) build_module ;;
	*) log "GCL_BUILD must be auto, custom or module"; exit 1 ;;
	esac
fi
if [ -n "${GCL_SAVE:-}" ] && [ "$GCL_BIN" != "$GCL_SAVE" ]; then
	cp "$GCL_BIN" "$GCL_SAVE"
	log "saved the binary as $GCL_SAVE"
fi
log "using $GCL_BIN: $("$GCL_BIN" version 2>&1 | head -1)"

# The configuration documented in docs/golangci-lint.md, reduced to the
# plugin. Issue limits and uniq-by-line are off: golangci-lint turns each
# related location into an issue of its own, and with uniq-by-line on, an
# evidence line would hide a finding reported on the same line.
cat >"$work/golangci.yml" <<'YAML'
version: "2"
run:
  relative-path-mode: gomod
linters:
  default: none
  enable:
    - gatesift
  settings:
    custom:
      gatesift:
        type: module
        description: missing or broken leader election (gatesift-vet)
        settings:
          profile: default
issues:
  max-issues-per-linter: 0
  max-same-issues: 0
  uniq-by-line: false
YAML

run() { # run PKG OUT: golangci-lint's exit status, tolerated
	(cd "$root" && "$GCL_BIN" run --config "$work/golangci.yml" --output.text.path stdout \
		--output.text.print-issued-lines=false --output.text.colors=false --show-stats=false "$1") >"$2" 2>"$2.err" || echo $? >"$2.rc"
}

status=0
run ./examples/flagged/ "$work/flagged.txt"
cat "$work/flagged.txt"
if [ -s "$work/flagged.txt.rc" ] && [ "$(cat "$work/flagged.txt.rc")" != 1 ]; then
	log "FAIL: golangci-lint failed on examples/flagged (exit $(cat "$work/flagged.txt.rc")):"
	cat "$work/flagged.txt.err" >&2
	status=1
fi
# Parity with the binary: its findings (not the tab-indented evidence) as
# "file:line:col: name", the rule name from -list.
(cd "$root" && go build -o "$work/gatesift-vet" ./cmd/gatesift-vet)
(cd "$root" && "$work/gatesift-vet" ./examples/flagged/ >"$work/binary.txt" 2>"$work/binary.err") || true
"$work/gatesift-vet" -list >"$work/list.txt"
found=0
while read -r posn id; do
	found=$((found + 1))
	name=$(awk -v id="$id" '$1 == id { print $2; exit }' "$work/list.txt")
	if grep -q "^$posn ${name:-$id}: .*(gatesift)$" "$work/flagged.txt"; then
		log "ok: $posn $id ($name) reported as by the binary"
	else
		log "FAIL: the binary reports $id ($name) at $posn, golangci-lint does not"
		status=1
	fi
done < <(sed -n 's/^\([^[:space:]]*:[0-9]*:[0-9]*:\) [^[:space:]].* (\(LE[0-9]*\))$/\1 \2/p' "$work/binary.txt")
if [ "$found" = 0 ]; then
	log "FAIL: the binary reported nothing on examples/flagged:"
	cat "$work/binary.err" >&2
	status=1
fi

wanted=0
for f in "$root"/examples/flagged/*.go; do
	while IFS=: read -r line _; do
		wanted=$((wanted + 1))
		rel=examples/flagged/$(basename "$f")
		if grep -q "^$rel:$line:[0-9]*: .*(gatesift)$" "$work/flagged.txt"; then
			log "ok: $rel:$line reported"
		else
			log "FAIL: $rel:$line is marked LE1001 but golangci-lint did not report it"
			status=1
		fi
	done < <(grep -n '// LE1001' "$f" || true)
done
if [ "$wanted" = 0 ]; then
	log "FAIL: no // LE1001 markers in examples/flagged: nothing to check"
	status=1
fi

run ./examples/remediated/ "$work/remediated.txt"
if [ -s "$work/remediated.txt" ] || [ -s "$work/remediated.txt.rc" ]; then
	log "FAIL: examples/remediated is not clean:"
	cat "$work/remediated.txt" "$work/remediated.txt.err" >&2
	status=1
else
	log "ok: examples/remediated clean"
fi
exit $status
