#!/bin/sh
# Prints the Debian version of the checked-out commit, from git describe:
#   tag v1.2.3 on HEAD             -> 1.2.3
#   5 commits after v1.2.3         -> 1.2.3+git20261130.5.a050807
#   no tag at all                  -> 0.0.0~git20261130.a050807
#   uncommitted changes            -> the above + .dirty
# The date is the commit's (UTC), so the same commit always gets the same
# version; "~" sorts before any release, "+" after the tag it follows.
set -eu
cd "$(dirname "$0")/.."
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
# only alphanumerics and . + ~ (no revision here, so no "-").
printf '%s\n' "$v" | grep -Eq '^[0-9][A-Za-z0-9.+~]*$' || { echo "version.sh: '$v' is not a Debian version" >&2; exit 1; }
printf '%s\n' "$v"
