#!/bin/sh
# Writes the Debian copyright file (DEP-5) of a built diskdoctor binary to
# standard output: the project, then every Go module linked into the binary
# (go version -m) and the Go runtime, each with the licence text from its
# own LICENSE file. A licence this script cannot name stops the build: the
# package must not ship a module whose terms nobody looked at.
set -eu
bin=$1
cd "$(dirname "$0")/.."
go=${GO:-go}

# indent: DEP-5 licence text, one space in, blank lines as " ."
indent() { sed -e '/[^[:space:]]/,$!d' -e 's/[[:space:]]*$//' -e 's/^/ /' -e 's/^ $/ ./'; }

licence_file() {
	for f in LICENSE LICENSE.md LICENSE.txt LICENCE COPYING LICENSE-MIT; do
		[ -f "$1/$f" ] && { echo "$1/$f"; return; }
	done
	return 1
}

# name: the DEP-5 short name of a licence text.
name() {
	t=$(tr -s '[:space:]' ' ' <"$1")
	n=""
	case $t in *"Apache License"*"Version 2.0"*) n="Apache-2.0" ;; esac
	case $t in *"Permission is hereby granted, free of charge"*) n="${n:+$n and }Expat" ;; esac
	case $t in *"Mozilla Public License Version 2.0"*) n="${n:+$n and }MPL-2.0" ;; esac
	case $t in *"Permission to use, copy, modify, and/or distribute"*) n="${n:+$n and }ISC" ;; esac
	case $t in *"Redistribution and use in source and binary forms"*)
		case $t in *"Neither the name"*|*"names of its contributors may"*) n="${n:+$n and }BSD-3-clause" ;;
		*) n="${n:+$n and }BSD-2-clause" ;; esac ;;
	esac
	[ -n "$n" ] || { echo "copyright.sh: cannot name the licence in $1" >&2; exit 1; }
	echo "$n"
}

# text: a licence file's text for the copyright file. The full text of a
# licence Debian keeps in /usr/share/common-licenses is referred to instead
# (Policy 12.5), with whatever the file says before it.
text() {
	common=""
	case $2 in *Apache-2.0*) common=Apache-2.0 ;; *MPL-2.0*) common=MPL-2.0 ;; esac
	if [ -n "$common" ] && grep -Eq 'TERMS AND CONDITIONS FOR USE|^[[:space:]]*Mozilla Public License Version 2.0' "$1"; then
		body=$(awk '/^[[:space:]]*(Apache License|Mozilla Public License Version 2.0)[[:space:]]*$/ { exit } { print }' "$1" | indent | sed -e :a -e '/^ \.$/{$d;N;ba' -e '}')
	else
		body=$(indent <"$1")
	fi
	[ -z "$body" ] || printf ' .\n%s\n' "$body"
	if [ -n "$common" ]; then
		printf ' .\n On Debian systems the full text of the %s licence is in\n /usr/share/common-licenses/%s.\n' "$common" "$common"
	fi
}

# holders: the Copyright lines of a licence file, else "<module> authors".
holders() {
	h=$(grep -E '^[[:space:]]*Copyright (\(c\)|©|[0-9])' "$1" | sed -e 's/^[[:space:]]*Copyright[[:space:]]*//' -e 's/^(c)[[:space:]]*//' | sort -u | sed '2,$s/^/ /')
	[ -n "$h" ] && echo "$h" || echo "the $2 authors"
}

cat <<HEAD
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: diskdoctor
Source: https://github.com/diskdoctor/diskdoctor
Comment: /usr/bin/diskdoctor is one statically linked Go program: the
 diskdoctor sources, the Go modules below (the paths are Go module paths, at
 the versions linked) and the Go runtime. This file is generated at build
 time by packaging/copyright.sh from the binary's own build information.

HEAD

if f=$(licence_file .); then
	n=$(name "$f")
	printf 'Files: *\nCopyright: %s\nLicense: %s\n' "$(holders "$f" diskdoctor)" "$n"
	text "$f" "$n"
else
	cat <<'NONE'
Files: *
Copyright: the diskdoctor authors
License: no-licence-yet
 The diskdoctor sources carry no licence file yet. Until they do, no
 licence is granted beyond what the law allows; see the project's
 repository for its current terms.
NONE
fi

"$go" version -m "$bin" | awk '$1 == "dep" || $1 == "=>" { print $2, $3 }' | while read -r path version; do
	dir=$("$go" mod download -json "$path@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$dir" ] || { echo "copyright.sh: $path@$version: not in the module cache" >&2; exit 1; }
	f=$(licence_file "$dir") || { echo "copyright.sh: $path@$version has no licence file" >&2; exit 1; }
	n=$(name "$f")
	printf '\nFiles: %s/*\nCopyright: %s\nLicense: %s\n' "$path" "$(holders "$f" "$path")" "$n"
	printf ' (%s %s)\n' "$path" "$version"
	text "$f" "$n"
done

# The Go that built the binary (its build information's first line) and its
# LICENSE: at the top of that Go's GOROOT (go.dev's archives, and the
# toolchain modules that GOTOOLCHAIN fetches), else in that toolchain
# module, fetched through the module proxy: Debian's golang-go has no
# GOROOT/LICENSE (its licence is in /usr/share/doc/golang-X.Y-go/copyright,
# in DEP-5 form, not the text).
built=$("$go" version "$bin" | awk '{ print $NF }')
licence=$("$go" env GOROOT)/LICENSE
if [ "$("$go" env GOVERSION)" != "$built" ] || [ ! -f "$licence" ]; then
	m=golang.org/toolchain@v0.0.1-$built.linux-$("$go" env GOHOSTARCH)
	dir=$(cd / && GO111MODULE=on GOFLAGS= "$go" mod download -json "$m" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') || true
	licence=$dir/LICENSE
	[ -n "$dir" ] && [ -f "$licence" ] || { echo "copyright.sh: no LICENSE of $built: not in $("$go" env GOROOT), and $m could not be fetched" >&2; exit 1; }
fi
n=$(name "$licence")
printf '\nFiles: go/*\nCopyright: %s\nLicense: %s\n' "$(holders "$licence" Go)" "$n"
printf ' (the Go runtime and standard library, %s)\n' "$built"
text "$licence" "$n"
