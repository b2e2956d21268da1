#!/bin/bash
# The Debian package, as an admin meets it: build the .deb for amd64 and
# arm64 twice and compare the files byte for byte, lint them, install the
# native one with apt-get, use what it installed (binary, man pages, units,
# bash completion, /etc/diskdoctor/datasheets.d), remove it (the conffile
# stays), purge it (nothing stays but the admin's own file), and put the
# machine back as it was, also when a step fails or the run is interrupted.
# Ends with "deb-test: N passed, N failed" (a line CI reads).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
repo=$PWD
start=$SECONDS
passed=0
failed=0
skipped=0
work=$(mktemp -d /tmp/diskdoctor-deb-test.XXXXXX)
log=$work/step.log
installed_by_us=0
admin_file=/etc/diskdoctor/datasheets.d/zz-diskdoctor-package-test.yaml
admin_file_made=0

say() { printf '%s\n' "$*"; }
pass() { passed=$((passed + 1)); say "ok    $1"; }
fail() {
	failed=$((failed + 1))
	say "FAIL  $1"
	[ -s "$log" ] && sed -e 's/^/      /' "$log" | tail -n 40
	return 0
}
# step DESCRIPTION COMMAND...: one checked step, its output kept for a failure.
step() {
	local d=$1
	shift
	if "$@" >"$log" 2>&1; then pass "$d"; else fail "$d"; fi
}
skip() {
	skipped=$((skipped + 1))
	say "skip  $1"
}
finish() {
	say "took $((SECONDS - start)) s"
	say "deb-test: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}

cleanup() {
	if [ "$installed_by_us" = 1 ] && dpkg-query -W -f='${db:Status-Abbrev}' diskdoctor 2>/dev/null | grep -q '^[a-z][a-z]'; then
		say "cleanup: purging the diskdoctor package this test installed"
		DEBIAN_FRONTEND=noninteractive dpkg --purge diskdoctor >/dev/null 2>&1 || true
	fi
	if [ "$admin_file_made" = 1 ]; then
		rm -f "$admin_file"
		rmdir /etc/diskdoctor/datasheets.d /etc/diskdoctor 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# --- preconditions: say why a part cannot run, never pass silently -----
can_install=1
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
	skip "install, use and purge: needs root on a Debian system with apt-get (run make test as root)"
	can_install=0
elif dpkg-query -W -f='${db:Status-Abbrev}' diskdoctor 2>/dev/null | grep -q '^[a-z][a-z]'; then
	skip "install, use and purge: a diskdoctor package is installed here (or its conffiles are), and this test would replace or purge it"
	can_install=0
elif [ -e /etc/diskdoctor ]; then
	skip "install, use and purge: /etc/diskdoctor exists (an admin's files), and this test would add to it"
	can_install=0
fi

# The version (packaging/version.sh: git describe, or a tarball's VERSION)
# is tested by TestVersionScript in internal/buildinfo.

# --- build twice, compare byte for byte ---------------------------------
# Build A is the working tree, what gets linted and installed. Build B is a
# clone of the same commit at another path, under another umask and time
# zone: paths, file modes and clocks must not reach the packages. (With
# uncommitted changes there is no commit to clone: B is the working tree
# again, which still catches clocks and modes.)
if ! packaging/build-deb.sh -o "$work/a" amd64 arm64 >"$log" 2>&1; then
	fail "make deb: build amd64 and arm64"
	finish
	exit 1
fi
pass "make deb: $(sed 's|.*/||' "$log" | tr '\n' ' ')"
if git diff --quiet HEAD -- && [ -z "$(git status --porcelain --untracked-files=normal)" ]; then
	src_b=$work/clone
	git clone -q --no-hardlinks "$repo" "$src_b" 2>"$log" && git -C "$src_b" checkout -q "$(git rev-parse HEAD)"
	what="a clone at another path"
else
	src_b=$repo
	what="the working tree again (uncommitted changes: no clone)"
fi
# DEB_TEST_COLD=1: build B also compiles everything anew (an empty Go build
# cache), so that a cache hit cannot hide a compiler-level difference; it
# takes minutes, not seconds, on two cores.
cold=()
if [ "${DEB_TEST_COLD:-}" = 1 ]; then
	cold=("GOCACHE=$work/gocache")
	what="$what, empty Go build cache"
fi
(umask 077 && env "${cold[@]}" TZ=Pacific/Chatham LC_ALL=C.UTF-8 "$src_b/packaging/build-deb.sh" -o "$work/b" amd64 arm64) >"$log" 2>&1 ||
	fail "second build ($what)"
repro() {
	local n=0
	for f in "$work"/a/*.deb; do
		cmp "$f" "$work/b/${f##*/}" || return 1
		sha256sum "$f" | sed "s|$work/a/||"
		n=$((n + 1))
	done
	[ "$n" = 2 ]
}
step "reproducible: two builds byte-identical, $what" repro
sed -e 's/^/      /' "$log"
ls "$work"/a/*.deb >/dev/null 2>&1 || {
	finish
	exit 1
}

# --- lintian: no error, the warnings the README lists -------------------
lint() {
	lintian --fail-on error "$@" 2>&1 | grep -v 'running with root privileges'
	local rc=${PIPESTATUS[0]}
	return "$rc"
}
# The shipped examples keep their recorded links as links, whatever path
# the checkout lies at: a link whose target happened to resolve from the
# build's directory once went into the package as a directory.
example_links() {
	local deb=$1 m want got
	for m in hpe-microserver-writethrough healthy-workstation bench-vm-loop; do
		want=$(cd "fixtures/$m" && find . -type l ! -lname '..' ! -lname '../..' ! -lname '../../..' -printf '%p -> %l\n' | sed 's|^\./||' | LC_ALL=C sort)
		got=$(dpkg-deb -c "$deb" | sed -n "s|^l.* \./usr/share/diskdoctor/examples/$m/||p" | LC_ALL=C sort)
		[ "$want" = "$got" ] || { diff <(echo "$want") <(echo "$got") | head -n 20; return 1; }
	done
}
step "the examples' recorded links stay links" example_links "$(ls "$work"/a/*_amd64.deb)"
for deb in "$work"/a/*.deb; do
	step "lintian ${deb##*/}: no error" lint "$deb"
	sed -e 's/^/      /' "$log"
done

# --- install, use, remove, purge ---------------------------------------
if [ "$can_install" = 1 ]; then
	arch=$(dpkg --print-architecture)
	deb=$(ls "$work"/a/diskdoctor_*_"$arch".deb 2>/dev/null)
	version=$(dpkg-deb -f "$deb" Version)
	# Every path the package holds, and which of them exist now: after the
	# purge exactly these must exist again.
	dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | grep -v '^$' >"$work/paths"
	while read -r p; do [ -e "$p" ] && echo "$p"; done <"$work/paths" >"$work/before"
	ls /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | grep -i diskdoctor >"$work/units-before" || true

	# --no-install-recommends: hdparm, smartmontools and nvme-cli would stay
	# on the machine after the purge.
	installed_by_us=1
	step "apt-get install ./${deb##*/}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb"

	step "diskdoctor --version names $version and the commit" bash -c \
		"/usr/bin/diskdoctor --version | tee /dev/stderr | grep -qxF 'diskdoctor version $version' && /usr/bin/diskdoctor --version | grep -q '^commit: $(git rev-parse HEAD)'"
	# What --help shows works as shown: the recorded machine the package
	# ships (a critical report, exit 2), and the healthy one (exit 0).
	step "diskdoctor --root the shipped example --help shows, and the healthy one" bash -c '
		ex=$(diskdoctor --help | grep -o "/usr/share/diskdoctor/examples/[^ ]*" | head -n 1)
		[ "$ex" = /usr/share/diskdoctor/examples/hpe-microserver-writethrough ] || { echo "--help shows no shipped example: $ex"; exit 1; }
		diskdoctor --root "$ex" --width 80 >/tmp/diskdoctor-example.$$; rc=$?
		head -n 5 /tmp/diskdoctor-example.$$; grep -q "Drive write cache is switched off" /tmp/diskdoctor-example.$$; found=$?; rm -f /tmp/diskdoctor-example.$$
		[ $rc = 2 ] && [ $found = 0 ] || exit 1
		diskdoctor --root /usr/share/diskdoctor/examples/healthy-workstation >/dev/null
		bex=$(diskdoctor bench --help | grep -o "/usr/share/diskdoctor/examples/[^ ]*" | head -n 1)
		[ "$bex" = /usr/share/diskdoctor/examples/bench-vm-loop ] || { echo "bench --help shows no shipped example: $bex"; exit 1; }
		diskdoctor bench --root "$bex" >/dev/null'
	step "man -w diskdoctor; every subcommand has a page" bash -c '
		man -w diskdoctor | grep -qx /usr/share/man/man8/diskdoctor.8.gz || exit 1
		for c in bench checks diff explain rules snapshot version; do man -w diskdoctor-$c || exit 1; done
		man -l /usr/share/man/man8/diskdoctor.8.gz 2>/dev/null | grep -q "^EXIT STATUS"'
	units=(/usr/lib/systemd/system/diskdoctor.service /usr/lib/systemd/system/diskdoctor.timer)
	step "systemd-analyze verify the installed units" bash -c "
		out=\$(systemd-analyze verify ${units[*]} 2>&1); rc=\$?; printf '%s\n' \"\$out\"
		[ \$rc = 0 ] && ! printf '%s\n' \"\$out\" | grep -i diskdoctor"
	step "diskdoctor.timer installed, not enabled" bash -c \
		'[ "$(systemctl is-enabled diskdoctor.timer 2>&1)" = disabled ] && ! ls /etc/systemd/system/timers.target.wants/diskdoctor.timer'
	step "bash completion: complete -p diskdoctor after sourcing" bash -c '
		. /usr/share/bash-completion/bash_completion
		__load_completion diskdoctor || _completion_loader diskdoctor
		complete -p diskdoctor | grep -q "__start_diskdoctor diskdoctor$"
		diskdoctor __complete --format "" | grep -qx prometheus'
	step "zsh and fish completions where they look" test -s /usr/share/zsh/vendor-completions/_diskdoctor -a -s /usr/share/fish/vendor_completions.d/diskdoctor.fish
	step "the fleet admin's pages in /usr/share/doc/diskdoctor, and the unit runs /usr/bin/diskdoctor" bash -c '
		for f in README.md docs/fleet.md docs/usage.md docs/output.md docs/security.md docs/rules.md docs/site.md docs/kubernetes.md; do
			zcat "/usr/share/doc/diskdoctor/${f##*/}.gz" | cmp - "$0/$f" || exit 1
		done
		grep -q "^ExecStart=/usr/bin/diskdoctor " /usr/lib/systemd/system/diskdoctor.service' "$repo"
	step "the shipped example site rule, copied into /etc/diskdoctor/rules.d, is listed under its file" bash -c '
		mkdir -p /etc/diskdoctor/rules.d
		cp /usr/share/doc/diskdoctor/examples/rules.d/site-usb-disk-mounted.yaml /etc/diskdoctor/rules.d/
		diskdoctor --config /usr/share/doc/diskdoctor/examples/diskdoctor.yaml --format json >/dev/null; rc=$?
		out=$(diskdoctor rules)
		rm -f /etc/diskdoctor/rules.d/site-usb-disk-mounted.yaml; rmdir /etc/diskdoctor/rules.d
		[ $rc -le 2 ] && printf "%s\n" "$out" | grep -qx "site rule from /etc/diskdoctor/rules.d/site-usb-disk-mounted.yaml:"'
	step "conffile: /etc/diskdoctor/datasheets.d/local.yaml" bash -c \
		'dpkg-query --showformat="\${Conffiles}\n" --show diskdoctor | grep -q " /etc/diskdoctor/datasheets.d/local.yaml "'
	# An admin's own file in datasheets.d is read: a broken one stops the
	# doctor naming it (exit 3), a good one is used.
	admin_file_made=1
	printf 'models:\n  - product: no match, no source\n' >"$admin_file"
	step "the installed doctor reads /etc/diskdoctor/datasheets.d" bash -c "
		diskdoctor --format json >/dev/null 2>$work/err; rc=\$?
		cat $work/err; [ \$rc = 3 ] && grep -qF '$admin_file' $work/err"
	printf '# an admin file dpkg knows nothing of\n' >"$admin_file"

	step "apt-get remove: the binary goes, the conffile stays" bash -c '
		DEBIAN_FRONTEND=noninteractive apt-get remove -y diskdoctor || exit 1
		dpkg-query -W -f="\${db:Status-Abbrev}\n" diskdoctor | grep -qx "rc " || exit 1
		! [ -e /usr/bin/diskdoctor ] && ! [ -e /usr/lib/systemd/system/diskdoctor.timer ] &&
			[ -f /etc/diskdoctor/datasheets.d/local.yaml ]'
	# dpkg keeps a file it does not own; once the admin removes it (as
	# cleanup does), the machine must be as before the install.
	step "apt-get purge: nothing left but the admin's own file" bash -c "
		DEBIAN_FRONTEND=noninteractive apt-get purge -y diskdoctor || exit 1
		! dpkg-query -W -f='\${db:Status-Abbrev}' diskdoctor 2>/dev/null | grep -q '^[a-z][a-z]' || exit 1
		find /etc/diskdoctor -mindepth 1 | diff - <(echo /etc/diskdoctor/datasheets.d; echo $admin_file) || exit 1
		rm $admin_file && rmdir /etc/diskdoctor/datasheets.d /etc/diskdoctor || exit 1
		while read -r p; do [ -e \"\$p\" ] && echo \"\$p\"; done <$work/paths >$work/after
		diff $work/before $work/after || exit 1
		ls /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | grep -i diskdoctor | diff $work/units-before -"
	installed_by_us=0
fi

finish
