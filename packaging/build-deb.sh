#!/bin/sh
# Builds dist/diskdoctor_<version>_<arch>.deb for each architecture given
# (default: amd64 arm64) from the checked-out commit, reproducibly: the same
# commit gives byte-identical files (SOURCE_DATE_EPOCH = the commit's time,
# -trimpath, an empty build id, fixed modes, root ownership, no host names or
# paths). With --rpm, also dist/diskdoctor-<version>-1.<rpm arch>.rpm from
# the same staged files and nfpm.yaml (make release).
# Usage: packaging/build-deb.sh [-o DIR] [--rpm] [ARCH...]
set -eu
cd "$(dirname "$0")/.."
out=dist
rpm=""
if [ "${1:-}" = "-o" ]; then out=$2; shift 2; fi
if [ "${1:-}" = "--rpm" ]; then rpm=1; shift; fi
[ $# -gt 0 ] || set -- amd64 arm64
go=${GO:-go}
# nfpm is pinned in a module of its own (packaging/tools/go.mod), so that
# its Go requirement does not raise the doctor's go line.
nfpm_build="$go build -modfile=packaging/tools/go.mod"

version=$(packaging/version.sh)
commit=$(git rev-parse HEAD)
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
export SOURCE_DATE_EPOCH
# The toolchain must not differ between two builds either.
export GOFLAGS="-trimpath -buildvcs=false -mod=readonly"
export CGO_ENABLED=0
ldflags="-s -w -buildid= -X main.version=$version -X main.commit=$commit"
# A maintainer from the environment would make two machines' builds differ:
# it is set here, overridable on purpose only.
maintainer=${DEB_MAINTAINER:-"diskdoctor maintainers <maintainers@diskdoctor.invalid>"}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$out"
out=$(cd "$out" && pwd)

for arch in "$@"; do
	mkdir -p "$work/$arch"
	GOARCH=$arch $go build -buildmode=pie -ldflags "$ldflags" -o "$work/$arch/diskdoctor" ./cmd/diskdoctor
done
# Man pages and completions come from the cobra tree of the program itself:
# the package's own binary when it runs here, else one built for here (the
# same sources and version, so the same pages).
host=$($go env GOHOSTARCH)
if [ ! -x "$work/$host/diskdoctor" ]; then
	mkdir -p "$work/host"
	$go build -ldflags "$ldflags" -o "$work/host/diskdoctor" ./cmd/diskdoctor
	host=host
fi
"$work/$host/diskdoctor" gen-docs "$work/docs"
# -n: no name or time in the gzip header.
gzip -9n "$work"/docs/man/*.8

# The changelog of a native package: one entry for the commit it was built
# from, dated with the commit.
{
	printf 'diskdoctor (%s) unstable; urgency=medium\n\n' "$version"
	printf '  * Built from commit %s:\n' "$commit"
	git log -1 --format=%s | fold -s -w 70 | sed -e 's/[[:space:]]*$//' -e 's/^/    /'
	printf '\n'
	printf ' -- %s  %s\n' "$maintainer" "$(LC_ALL=C TZ=UTC date -d "@$SOURCE_DATE_EPOCH" -R)"
} >"$work/changelog"
gzip -9n <"$work/changelog" >"$work/changelog.gz"
# The documents a fleet admin needs, compressed (nfpm.yaml says why).
mkdir "$work/doc"
for f in README.md docs/fleet.md docs/usage.md docs/output.md docs/security.md docs/rules.md docs/site.md docs/kubernetes.md; do
	gzip -9n <"$f" >"$work/doc/${f##*/}.gz"
done

# Three recorded machines to try the installed doctor on (nfpm.yaml; bench-vm-loop
# for bench --root, as bench --help shows), as in
# fixtures/ but for the test suite's expected outputs (expected.txt, the
# report, stays), with the package's modes and the commit's time: nfpm
# gives a tree's directories their own times.
mkdir "$work/examples"
for m in hpe-microserver-writethrough healthy-workstation bench-vm-loop; do
	cp -R "fixtures/$m" "$work/examples/"
	rm -f "$work/examples/$m/expect.yaml" "$work/examples/$m/expected.json" "$work/examples/$m"/expected-*.txt "$work/examples/$m"/expected-*.json
done
# A recorded /proc/<pid>/root ("../..") points at an ancestor: a loop to
# any tree walk, and nothing the doctor reads.
find "$work/examples" -type l -lname '..*' -exec sh -c 'case $(readlink "$1") in *[!./]*) ;; *) rm "$1" ;; esac' sh {} \;
find "$work/examples" -type d -exec chmod 0755 {} +
find "$work/examples" -type f -exec chmod 0644 {} +
find "$work/examples" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

# nfpm stats a packaged symbolic link's target as a path relative to its
# own working directory (files.WithFileInfoDefaults in nfpm v2.45), and a
# target that resolves there is written as a directory: the recorded
# "cwd -> ../../tmp" became /tmp's directory in a checkout two levels below /,
# and stayed a link elsewhere. So nfpm runs in an empty directory nested
# deeper than any example's target climbs, where no target resolves; the
# config's relative sources (docs/, packaging/) are linked in.
nfpm_dir=$work/nfpm/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16
mkdir -p "$nfpm_dir"
ln -s "$PWD/docs" "$PWD/packaging" "$nfpm_dir/"
$nfpm_build -o "$work/nfpm-bin" github.com/goreleaser/nfpm/v2/cmd/nfpm
nfpm_in_empty_dir() { (cd "$nfpm_dir" && "$work/nfpm-bin" "$@"); }

for arch in "$@"; do
	stage=$work/$arch
	cp -r "$work/docs/man" "$work/docs/completions" "$work/doc" "$work/changelog.gz" "$stage/"
	cp -a "$work/examples" "$stage/"
	packaging/copyright.sh "$stage/diskdoctor" >"$stage/copyright"
	deb="$out/diskdoctor_${version}_${arch}.deb"
	DEB_ARCH=$arch DEB_VERSION=$version DEB_STAGE=$stage DEB_MAINTAINER=$maintainer \
		nfpm_in_empty_dir package --config packaging/nfpm.yaml --packager deb --target "$deb" >/dev/null
	echo "$deb"
	[ -n "$rpm" ] || continue
	# rpm names the architectures as the kernel does (uname -m).
	case $arch in
	amd64) rarch=x86_64 ;;
	arm64) rarch=aarch64 ;;
	*) rarch=$arch ;;
	esac
	r="$out/diskdoctor-${version}-1.${rarch}.rpm"
	DEB_ARCH=$arch DEB_VERSION=$version DEB_STAGE=$stage DEB_MAINTAINER=$maintainer \
		nfpm_in_empty_dir package --config packaging/nfpm.yaml --packager rpm --target "$r" >/dev/null
	echo "$r"
done
