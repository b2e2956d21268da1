#!/bin/bash
# A newcomer's first minutes, on fresh minimal Debian systems: for each
# suite (default: bookworm trixie, Debian 12 and 13) a debootstrap chroot
# with nothing added, the committed tree of HEAD copied in (git archive),
# and the README's Quick start followed literally, as root: each command of
# its first sh block, in order (the prerequisite line, make run, make
# test), with /proc, /sys and /dev bind-mounted. Prints a table: system,
# command, wall time, exit status; each command's output is kept in a log.
# A command that fails ends that system's trial. Not in CI: it downloads a
# Debian system, Go and every package the Makefile installs, for minutes.
#
# Usage (as root): packaging/newcomer.sh [suite...]
#   NEWCOMER_DIR   where the chroots and logs go (/var/tmp/diskdoctor-newcomer)
#   NEWCOMER_FRESH=1  debootstrap anew; by default a suite's debootstrap is
#                     kept (as a tarball, untouched since) and unpacked afresh
#   NEWCOMER_MIRROR   the Debian mirror (that of this machine's apt sources,
#                     else http://deb.debian.org/debian)
#   NEWCOMER_DEB=dist/diskdoctor_<version>_amd64.deb  also, in another fresh
#                     root of each suite, apt install the package and run
#                     the example --help shows (no Go, no checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
[ "$(id -u)" = 0 ] || { echo "newcomer.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie)
dir=${NEWCOMER_DIR:-/var/tmp/diskdoctor-newcomer}
mkdir -p "$dir"
printf 'y\n%.0s' $(seq 100) >"$dir/yes"

# The mirror this machine's apt uses (deb822 URIs: or a one-line deb entry).
mirror=${NEWCOMER_MIRROR:-$(
	{ cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
	awk '$1 == "URIs:" || $1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; break } }' |
	grep -v security | head -n 1
)}
mirror=${mirror:-http://deb.debian.org/debian}

command -v debootstrap >/dev/null || {
	echo "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap
}

# The README's Quick start: the first ```sh block after its heading, one
# command a line, comments dropped.
mapfile -t steps < <(awk '/^## Quick start/ { q = 1 } q && /^```sh/ { b = 1; next } b && /^```/ { exit } b' README.md |
	sed -e 's/[[:space:]]*#.*$//' -e '/^[[:space:]]*$/d')
[ ${#steps[@]} -gt 0 ] || { echo "newcomer.sh: no sh block under README.md's Quick start" >&2; exit 1; }

root=""
cleanup() {
	[ -n "$root" ] || return 0
	# Processes the trial left behind in the chroot, by their id.
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	for m in dev/pts dev sys proc; do
		mountpoint -q "$root/$m" && { umount -R "$root/$m" 2>/dev/null || umount -R -l "$root/$m"; }
	done
	root=""
}
trap cleanup EXIT
trap 'echo interrupted; exit 130' INT TERM

# fresh SUITE TARBALL: a new root unpacked from the suite's debootstrap,
# the host's resolver, /proc, /sys and /dev mounted, an empty
# /root/diskdoctor; sets root and system.
fresh() {
	root=$dir/$1-root
	rm -rf "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$2"
	mkdir -p "$root/root/diskdoctor"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	# The network as this machine sees it: the certificate authorities
	# added to this machine's trust store (a TLS-intercepting proxy's)
	# join the chroot's when its ca-certificates package is installed
	# (update-ca-certificates(8) reads /usr/local/share/ca-certificates).
	mkdir -p "$root/usr/local/share/ca-certificates"
	cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
	# No daemon a package brings (node_exporter, alertmanager) starts in
	# the chroot: policy-rc.d(8), 101 "action forbidden".
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	mount --bind /proc "$root/proc"
	mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
	mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
	system="$(. "$root/etc/os-release" && echo "Debian $VERSION_ID ($VERSION_CODENAME)")"
}

# step SUITE COMMAND: runs the command in the root as a fresh root login
# would, in /root/diskdoctor, timed; its output goes to a log.
step() {
	local cmd=$2 log input start rc wall
	log=$dir/$1-$(echo "$cmd" | cut -c1-40 | tr -c 'a-z0-9\n' '-').log
	echo "== $system: $cmd (log: $log)"
	# apt's "Do you want to continue? [Y/n]" gets its yes; nothing
	# else reads a terminal.
	input=/dev/null
	case $cmd in apt*) input=$dir/yes ;; esac
	start=$SECONDS
	rc=0
	# In the background, waited for: bash runs the INT and TERM trap
	# (and so cleanup) during a wait, not until a foreground command ends.
	chroot "$root" env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		sh -c "cd /root/diskdoctor && $cmd" <"$input" >"$log" 2>&1 &
	wait $! || rc=$?
	wall=$((SECONDS - start))
	wall=$(printf '%d min %02d s' $((wall / 60)) $((wall % 60)))
	tail -n 3 "$log" | sed 's/^/   /'
	results+=("$system|$cmd|$wall|$rc")
	[ "$rc" = 0 ]
}

results=()
for suite in "${suites[@]}"; do
	base=$dir/$suite.tar
	if [ "${NEWCOMER_FRESH:-}" = 1 ] || [ ! -s "$base" ]; then
		echo "== $suite: debootstrap from $mirror"
		rm -rf "$dir/$suite.new"
		start=$SECONDS
		debootstrap "$suite" "$dir/$suite.new" "$mirror" >"$dir/$suite-debootstrap.log" 2>&1 ||
			{ tail -n 20 "$dir/$suite-debootstrap.log"; exit 1; }
		tar -C "$dir/$suite.new" -cf "$base.tmp" . && mv "$base.tmp" "$base"
		rm -rf "$dir/$suite.new"
		echo "   $((SECONDS - start)) s"
	fi
	fresh "$suite" "$base"
	git archive HEAD | tar -C "$root/root/diskdoctor" -x
	for cmd in "${steps[@]}"; do
		step "$suite" "$cmd" || break
	done
	cleanup
	if [ -n "${NEWCOMER_DEB:-}" ]; then
		fresh "$suite" "$base"
		cp "$NEWCOMER_DEB" "$root/root/diskdoctor/"
		step "$suite" "apt install ./${NEWCOMER_DEB##*/}" &&
			step "$suite" "diskdoctor --root /usr/share/diskdoctor/examples/hpe-microserver-writethrough >/dev/null; [ \$? = 2 ]" &&
			step "$suite" "diskdoctor --root /usr/share/diskdoctor/examples/healthy-workstation" || true
		cleanup
	fi
done

echo
printf '| %s | %s | %s | %s |\n' system command "wall time" "exit status"
printf '|---|---|---|---|\n'
failed=0
for r in "${results[@]}"; do
	IFS='|' read -r s c w e <<<"$r"
	printf '| %s | `%s` | %s | %s |\n' "$s" "$c" "$w" "$e"
	[ "$e" = 0 ] || failed=1
done
exit "$failed"
