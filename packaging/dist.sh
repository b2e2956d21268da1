#!/bin/sh
# Writes DIR/diskdoctor-<version>.tar.gz (default DIR: dist): the sources of
# HEAD under diskdoctor-<version>/ (git archive, every entry dated with the
# commit, so the same commit gives the same tarball) and a VERSION file at
# the top holding the version, which packaging/version.sh reads where there
# is no .git. Usage: packaging/dist.sh [DIR]
set -eu
cd "$(dirname "$0")/.."
out=${1:-dist}
git diff --quiet HEAD -- || { echo "dist.sh: uncommitted changes are not in HEAD's tarball: commit them first" >&2; exit 1; }
version=$(packaging/version.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
printf '%s\n' "$version" >"$work/VERSION"
mkdir -p "$out"
tgz="$out/diskdoctor-$version.tar.gz"
# --add-file puts VERSION under the last --prefix, dated like the rest.
git archive --format=tar.gz --prefix="diskdoctor-$version/" --add-file="$work/VERSION" -o "$tgz" HEAD
echo "$tgz"
