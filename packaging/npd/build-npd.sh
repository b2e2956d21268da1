#!/bin/sh
# Builds Kubernetes' node-problem-detector from the Go module proxy into
# DIR (default /tmp/npdbuild), for cmd/diskdoctor's TestRealNPD:
#
#   packaging/npd/build-npd.sh && DISKDOCTOR_NPD=/tmp/npdbuild/node-problem-detector \
#     go test ./cmd/diskdoctor -run TestRealNPD -v
#
# The version is pinned: the test reads the condition from NPD's log, whose
# form is NPD's own. GONOSUMDB: a proxy that serves the module but not its
# checksum database entry (a mirror) still builds; the go.sum of DIR then
# records what was built. It needs no cgo: the custom plugin monitor and
# the Prometheus exporter are plain Go.
set -eu
NPD_VERSION=${NPD_VERSION:-v0.8.20}
DIR=${1:-/tmp/npdbuild}
mkdir -p "$DIR"
cd "$DIR"
[ -f go.mod ] || go mod init npdbuild >/dev/null
export GONOSUMDB=k8s.io/node-problem-detector GOFLAGS=-mod=mod
go get "k8s.io/node-problem-detector@$NPD_VERSION"
go build -o node-problem-detector k8s.io/node-problem-detector/cmd/nodeproblemdetector
echo "$DIR/node-problem-detector"
