#!/bin/sh
# Prints the path of a go command at least as new as a go.mod's go line
# (default: the doctor's go.mod; make deb passes packaging/tools/go.mod), so
# that make run, make test and make deb work on a fresh Debian 12 or 13:
#   1. the first new-enough of $GO (if set), /usr/local/go/bin/go and the
#      go on PATH, in that order;
#   2. else the first of them that is Go 1.21 or later, with
#      GOTOOLCHAIN=go<min>: it fetches that toolchain through the module
#      proxy as a module, with its own "go: downloading" line
#      (https://go.dev/doc/toolchain), and this prints its go;
#   3. else (Go 1.20 or older: Debian 12's golang-go is 1.19) the same
#      toolchain module fetched with go mod download, and its go;
#   4. no Go at all: as root, apt-get install golang-go, then 1 to 3.
# The path printed is always that of a real go binary (a downloaded
# toolchain's is in the module cache), so that every command of a build
# runs the same Go, whatever GOTOOLCHAIN says. It says on standard error
# which Go it chose, unless that is $GO as given (make's sub-makes pass
# it on).
# Usage: packaging/go.sh [go.mod]
set -eu
cd "$(dirname "$0")/.."
mod=${1:-go.mod}
min=$(sed -n 's/^go \([0-9][0-9.]*\)[[:space:]]*$/\1/p' "$mod")
[ -n "$min" ] || { echo "go.sh: no go line in $mod" >&2; exit 1; }
# The toolchain of a go line: from Go 1.21 on, 1.24 is the language and
# go1.24.0 its first release (https://go.dev/doc/toolchain#version).
case $min in
*.*.*) toolchain=go$min ;;
*) toolchain=go$min.0 ;;
esac

say() { echo "go.sh: $*" >&2; }

# version GO: its version as x.y.z (a release candidate counts as older
# than its release: 1.25rc1 as 1.24.999), "devel" for a development build,
# nothing if it does not run. Asked from / with GOTOOLCHAIN=local, so that
# no go.mod makes a Go 1.21 or later switch to another toolchain first.
version() {
	v=$(cd / && GOTOOLCHAIN=local GOFLAGS= "$1" version 2>/dev/null | awk '{ print $3 }') || return 0
	case $v in
	devel*) echo devel ;;
	go*rc* | go*beta*)
		v=${v#go}
		v=${v%%[rb]*}
		echo "$v" | awk -F. '{ printf "%d.%d.999\n", $1, $2 - 1 }'
		;;
	go*) echo "${v#go}" ;;
	esac
}

# at_least A B: version A is B or later.
at_least() {
	[ "$1" = devel ] && return 0
	awk -v a="$1" -v b="$2" 'BEGIN {
		split(a, x, "."); split(b, y, ".")
		for (i = 1; i <= 3; i++) { if (x[i] + 0 > y[i] + 0) exit 0; if (x[i] + 0 < y[i] + 0) exit 1 }
		exit 0 }'
}

candidates() {
	[ -z "${GO:-}" ] || command -v "$GO" || true
	[ -x /usr/local/go/bin/go ] && echo /usr/local/go/bin/go
	command -v go || true
}

# toolchain_go GO: the go of the toolchain module go<min>, fetched by GO.
toolchain_go() {
	v=$(version "$1")
	if at_least "$v" 1.21; then
		# Go's own switch: GOTOOLCHAIN names the toolchain, which the go
		# command downloads (printing "go: downloading go1.24.0 ...") and
		# runs; its GOROOT is the module's directory.
		root=$(cd / && GOTOOLCHAIN=$toolchain GOFLAGS= "$1" env GOROOT) || return 1
	else
		# A Go before 1.21 knows no GOTOOLCHAIN, but the toolchains are
		# ordinary modules on the proxy: golang.org/toolchain at
		# v0.0.1-go<version>.<goos>-<goarch>. Fetched outside any module.
		arch=$(GOFLAGS= "$1" env GOHOSTARCH) || return 1
		m=golang.org/toolchain@v0.0.1-$toolchain.linux-$arch
		say "Go $v is older than 1.21: downloading $m through the module proxy (about 70 MB)"
		json=$(cd / && GO111MODULE=on GOFLAGS= "$1" mod download -json "$m") || true
		root=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
		if [ -z "$root" ]; then
			# go mod download -json reports a failure in the JSON.
			say "$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",*$/\1/p')"
			return 1
		fi
		# The module cache keeps files read-only and not executable; Go's
		# own switch sets the execute bits of the commands on first use
		# (cmd/go/internal/toolchain), so does this.
		[ -x "$root/bin/go" ] || chmod a+x "$root"/bin/* "$root"/pkg/tool/*/* || return 1
	fi
	[ -x "$root/bin/go" ] && echo "$root/bin/go"
}

choose() {
	for c in $(candidates); do
		v=$(version "$c")
		[ -n "$v" ] || continue
		if at_least "$v" "$min"; then
			echo "$c"
			return 0
		fi
	done
	for c in $(candidates); do
		v=$(version "$c")
		[ -n "$v" ] || continue
		say "$c is Go $v, older than $mod's go $min: using the $toolchain toolchain"
		toolchain_go "$c" && return 0
		say "could not fetch $toolchain with $c (is the module proxy reachable? GOPROXY=$(GOFLAGS= "$c" env GOPROXY 2>/dev/null))"
		return 1
	done
	return 2
}

rc=0
go=$(choose) || rc=$?
if [ "$rc" = 2 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		# ca-certificates: the module proxy is HTTPS, and a minimal
		# system may have no root certificates for Go to check it with.
		# No recommends: gcc and g++ serve cgo, and the doctor is built
		# without it (CGO_ENABLED=0; Go disables cgo by itself when no C
		# compiler is found).
		say "no Go found: installing Debian's golang-go"
		DEBIAN_FRONTEND=noninteractive apt-get update >&2 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends golang-go ca-certificates >&2 || exit 1
		rc=0
		go=$(choose) || rc=$?
	else
		say "no Go found (not in /usr/local/go/bin nor on PATH): as root, apt-get install golang-go, or set GO to a go command"
		exit 1
	fi
fi
[ "$rc" = 0 ] || exit 1
[ "$go" = "${GO:-}" ] || say "using $go ($(cd / && GOTOOLCHAIN=local GOFLAGS= "$go" version | awk '{ print $3 }'))"
echo "$go"
