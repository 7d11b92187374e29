#!/usr/bin/env bash
# Builds kube-apiserver v1.34.2 from the Go module proxy for the integration
# tests of elector/kubestore and internal/testserver, into a cache directory,
# only when it is absent. Cold, this downloads about the module set listed in
# internal/kubeapiserver/go.sum and compiles about 1950 packages of
# Kubernetes and its dependencies: 391 s in one machine-setup run on two
# cores (2026-12-01), 26.5 min on a busy shared machine, so CI caches $out (the path is
# the cache key: kube-apiserver-<version>) and overlaps the build with the
# tests that do not need it (.ci/run). Build tags do not make it smaller:
# -tags providerless leaves the same 1948 packages in v1.34.
#
# Prints the binary's path on stdout. internal/testserver finds it at the
# same path (or through GATESIFT_KUBE_APISERVER).
set -euo pipefail
cd "$(dirname "$0")/.."

version=v1.34.2
cache=${GATESIFT_CACHE:-$HOME/.cache/gatesift}
out=$cache/kube-apiserver-$version

if [ -x "$out" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache"
start=$(date +%s)
echo "build-kube-apiserver: building $version into $out" >&2
# A nested module keeps k8s.io/kubernetes out of the main module's graph;
# -mod=readonly makes a stale go.sum an error instead of a silent edit.
# CGO off: a static binary that needs nothing from the host. The version
# ldflags make /version report the release instead of v0.0.0-master.
(
	cd internal/kubeapiserver
	# Download first, to log how the cold time splits between the network
	# and the compiler.
	CGO_ENABLED=0 go list -mod=readonly -deps k8s.io/kubernetes/cmd/kube-apiserver >/dev/null
	echo "build-kube-apiserver: modules ready in $(($(date +%s) - start))s" >&2
	CGO_ENABLED=0 go build -mod=readonly -trimpath \
		-ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=34" \
		-o "$out.tmp" k8s.io/kubernetes/cmd/kube-apiserver
)
# Rename last so that an interrupted build never leaves a binary that
# looks complete.
mv "$out.tmp" "$out"
echo "build-kube-apiserver: done in $(($(date +%s) - start))s" >&2
echo "$out"
