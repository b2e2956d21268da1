#!/bin/sh
# Prints diskdoctor's version: the one string that make build, make dist (the
# tarball's VERSION file), the .deb and the .rpm all carry. From git describe
# in a git checkout of the project:
#   tag v1.2.3 on HEAD             -> 1.2.3
#   tag v2.0.0-rc1 on HEAD         -> 2.0.0~rc1
#   5 commits after v1.2.3         -> 1.2.3+git20261130.5.a050807
#   no tag at all                  -> 0.0.0~git20261130.a050807
#   uncommitted changes            -> the above + .dirty
# The date is the commit's (UTC), so the same commit always gets the same
# version; "~" sorts before any release, "+" after the tag it follows (in
# dpkg and in rpm alike). Outside a git checkout (a source tarball made by
# make dist) it prints the first line of the VERSION file at the top of the
# tree; with neither it fails.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd -P)
# git only if this tree is a checkout of its own: a tarball unpacked inside
# some other repository must not take that repository's version.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
	if [ -s VERSION ]; then
		head -n 1 VERSION
		exit 0
	fi
	echo "version.sh: not a git checkout and no VERSION file in $top" >&2
	exit 1
fi
date=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d)
hash=$(git rev-parse --short=7 HEAD)
dirty=""
git diff --quiet HEAD -- 2>/dev/null || dirty=".dirty"
if desc=$(git describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
	# v1.2.3-5-ga050807 (the tag itself may contain "-": v1.2.3-rc1)
	n=${desc%-g*}
	n=${n##*-}
	tag=${desc%-*-g*}
	up=$(printf '%s' "${tag#v}" | sed 's/-/~/g')
	if [ "$n" = 0 ]; then
		v="$up"
	else
		v="$up+git$date.$n.$hash"
	fi
else
	v="0.0.0~git$date.$hash"
fi
v="$v$dirty"
# Debian policy 5.6.12: an upstream version starts with a digit and holds
# only alphanumerics and . + ~ (no revision here, so no "-"); rpm's Version
# takes the same characters.
printf '%s\n' "$v" | grep -Eq '^[0-9][A-Za-z0-9.+~]*$' || { echo "version.sh: '$v' is not a Debian version" >&2; exit 1; }
printf '%s\n' "$v"
