# diskdoctor — build, run, test.
#   make run       install what the doctor uses (Debian packages), build it, examine this machine
#   make test      install what the tests use, then gofmt and vet, every test (-count=1: the test
#                  cache hides nothing), and a short fuzz run of every fuzz target (FUZZTIME each);
#                  the budget is 4 minutes on two cores with a warm Go build cache
#   make test-all  make test, then deb-test: the Debian package built twice and compared, linted,
#                  installed, used and purged (about two minutes more, and it installs and removes
#                  a package on this machine: CI runs it, .ci/run)
#   make bench     synthetic machines of 1,000 and 4,000 disks against the tar floor, the live run
#                  and the hung machines: wall, CPU and peak memory; BASELINE=<git ref> measures
#                  that commit side by side (docs/performance.md)
#   make fuzz-long every fuzz target for FUZZ_LONG executions (10^6 by default)
#   make deb       dist/diskdoctor_<version>_{amd64,arm64}.deb (packaging/README.md)
#   make npd-test  build node-problem-detector and run the shipped plugin config through it
#   make dist      dist/diskdoctor-<version>.tar.gz: the sources of HEAD with a VERSION file
#   make release   into dist/: the .debs, the .rpms, the source tarball and SHA256SUMS over them
#   make newcomer  the README's Quick start on fresh Debian 12 and 13 chroots, timed (as root; slow)

# The go command, once for this make and its sub-makes (packaging/go.sh): $GO,
# /usr/local/go/bin/go or the go on PATH if new enough for go.mod's go line,
# else that toolchain fetched through the module proxy, else (as root)
# Debian's golang-go first. Its directory comes first on PATH, so that gofmt
# and the scripts' go are the same Go (GNU make 4.3 does not pass an exported
# PATH to $(shell ...): GO is a path, not a name looked up there).
GO := $(shell packaging/go.sh)
ifeq ($(GO),)
GO = $(error no usable Go: see packaging/go.sh's message above)
else
export GO
export PATH := $(dir $(GO)):$(PATH)
endif
BIN     := bin/diskdoctor
# The one version string of the binary, the tarball and the packages: from
# git describe in a checkout, from the VERSION file in a source tarball
# (packaging/version.sh); "devel" with neither.
VERSION := $(shell packaging/version.sh 2>/dev/null || echo devel)
# The commit diskdoctor version and the JSON report's tool.commit name: Go
# stamps vcs.revision itself only in a plain checkout (not in a git worktree,
# not with -buildvcs=false); empty outside a git tree (the binary then reads
# its build info, or says unknown).
COMMIT  := $(shell c=$$(git rev-parse --short HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null || c=$$c-dirty; echo $$c; })
# The real tools the doctor reads from on a live machine: hdparm (drive write
# cache), smartmontools, util-linux (dmesg, lsblk, losetup), pciutils (lspci
# in remediation advice), fio (diskdoctor bench).
DEBIAN_PACKAGES := hdparm smartmontools util-linux pciutils fio
# What the tests use beyond that: the real consumers of the fleet formats
# (node_exporter's textfile collector, promtool; amtool and Alertmanager for the
# inhibit rule), systemd-analyze, and fio with
# sysstat's iostat for the live sampling test, udev for udevadm test of the
# generated rules, tmux for the real-terminal test.
TEST_PACKAGES := prometheus prometheus-alertmanager prometheus-node-exporter systemd sysstat udev tmux
# A short run of each target: its seed corpus already runs in go test, and
# make fuzz-long is the search for new inputs.
FUZZTIME ?= 1s
# Go counts executions with an "x" suffix: each target runs at least this many.
FUZZ_LONG ?= 1000000x
# The Debian package: the architectures built, and what its test uses
# (lintian; man-db for man -w; bash-completion's loader; systemd-analyze
# comes with TEST_PACKAGES' systemd).
DEB_ARCHES ?= amd64 arm64
DEB_TEST_PACKAGES := lintian man-db bash-completion

.PHONY: newcomer all deps test-deps install-packages build run test test-all vet fuzz fuzz-long bench bench-fio docs clean deb deb-test dist release npd-test

all: build

deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DEBIAN_PACKAGES)"
	$(GO) mod download

test-deps: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(TEST_PACKAGES)"

install-packages:
	@missing=""; \
	for p in $(PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing:$$missing"; \
			DEBIAN_FRONTEND=noninteractive apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
		else \
			echo "missing Debian packages:$$missing (run as root, or: sudo apt-get install$$missing)"; \
		fi; \
	fi

# Static, as the packages build it (packaging/build-deb.sh): no C library
# to load, and the measured binary is the shipped one (docs/performance.md).
build:
	CGO_ENABLED=0 $(GO) build -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/diskdoctor

# The doctor's exit status 1 or 2 is its verdict (warning, critical: the
# findings it printed), not a failed make run; 3 and above (it could not
# examine the machine) fail the target.
run: deps build
	@./$(BIN) $(ARGS); rc=$$?; \
	case $$rc in \
	0) ;; \
	1 | 2) echo "(diskdoctor exited $$rc, its verdict: 1 warning, 2 critical; make run succeeded)" ;; \
	*) exit $$rc ;; \
	esac

# The Go files git tracks, or in a tree without .git (a source tarball,
# git archive) every Go file: gofmt -l with no file would read stdin.
GOFILES = $$(git ls-files '*.go' 2>/dev/null | grep . || find . -name '*.go' -not -path './.git/*')

vet:
	@test -z "$$(gofmt -l $(GOFILES))" || { echo "gofmt wants to change:"; gofmt -l $(GOFILES); exit 1; }
	$(GO) vet ./...

# Four packages at a time on two cores: the command's tests mostly wait on
# fio, sampling windows and timeouts, and the other packages fill that wait.
# The short fuzz run goes on beside them at a lower priority (nice 10, so
# that the tests that measure a busy or idle machine keep their CPU); its
# log is printed after the tests' results, whole only when it failed.
test: test-deps vet
	@log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	nice -n 10 $(MAKE) --no-print-directory fuzz >"$$log" 2>&1 & fuzz=$$!; \
	$(GO) test -count=1 -p 4 ./...; rc=$$?; \
	if wait $$fuzz; then echo "fuzz: $$(grep -c '^fuzz ' "$$log") targets, $(FUZZTIME) each: ok"; else cat "$$log"; echo "fuzz: FAILED"; rc=1; fi; \
	exit $$rc

# deb-test is not in make test: it builds the packages twice for two
# architectures (about 100 s of the 6-minute budget on two cores) and
# installs and purges a package on this machine, which a developer's
# edit-test loop should not do. CI runs test-all (.ci/run).
test-all: test deb-test

# Each package with fuzz targets is built once, instrumented for fuzzing
# (go test -c -fuzz), and its binary runs each target in turn for FUZZTIME
# on its seed corpus and what go test -fuzz would have cached
# (-test.fuzzcachedir, the directory go test passes); a crash fails the run
# and leaves its input in the package's testdata/fuzz, as go test -fuzz
# does. Packages and targets are found, not listed: a package is built if
# one of its _test.go files declares a Fuzz function, and its binary lists
# its targets (-test.list). Go's fuzzer on a loaded machine sometimes ends
# a run with "context deadline exceeded" and no failing input (the
# coordinator's own deadline, not a finding): such a run is tried once
# more. FUZZ_EXECS=1 prints the executions each target reached. One fuzz
# worker per target (-test.parallel 1; go help testflag): make test runs the
# fuzzing beside the tests, and a worker per core would take the cores the
# tests need.
fuzz:
	@bindir=$$(mktemp -d); trap 'rm -rf "$$bindir"' EXIT; \
	cache=$$($(GO) env GOCACHE)/fuzz; \
	$(GO) list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do \
		grep -qs '^func Fuzz' "$$dir"/*_test.go || continue; \
		bin="$$bindir/$$(echo "$$pkg" | tr / _).test"; \
		$(GO) test -c -fuzz . -o "$$bin" "$$pkg" || exit 1; \
		for f in $$(cd "$$dir" && "$$bin" -test.list '^Fuzz' | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$f"; \
			log="$$bindir/log"; \
			ok=0; for try in 1 2; do \
				if (cd "$$dir" && "$$bin" -test.run '^$$' -test.fuzz "^$$f$$" -test.fuzztime $(FUZZTIME) -test.parallel 1 \
					-test.fuzzcachedir "$$cache/$$pkg" -test.timeout 10m -test.paniconexit0) >"$$log" 2>&1; then ok=1; break; fi; \
				grep -q 'Failing input written' "$$log" && break; \
				grep -q 'context deadline exceeded' "$$log" || break; \
				echo "  (the fuzzer's own deadline, no failing input: once more)"; \
			done; \
			[ $$ok = 1 ] || { cat "$$log"; exit 1; }; \
			[ -z "$(FUZZ_EXECS)" ] || echo "  $$(grep -o 'execs: [0-9]*' "$$log" | tail -1)"; \
		done; \
	done

# The long run: each target until FUZZ_LONG executions, with the count
# each reached.
fuzz-long:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZ_LONG) FUZZ_EXECS=1

# Figures, not pass/fail: a slow shared machine gives slow figures.
# GNU time measures the doctor's peak RSS (a child of the Go test process
# cannot: see measureBinary in cmd/diskdoctor/scale_test.go).
# BASELINE=<git ref> also builds that commit (its own make build, in a
# temporary worktree) and measures both side by side in alternating runs.
BENCH_PACKAGES := time tar

bench:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BENCH_PACKAGES)"
	@base=""; if [ -n "$(BASELINE)" ]; then \
		wt=$$(mktemp -d); trap 'git worktree remove --force "$$wt" >/dev/null 2>&1; rm -rf "$$wt"' EXIT; \
		git worktree add -q --detach "$$wt" "$(BASELINE)" >/dev/null && $(MAKE) --no-print-directory -C "$$wt" build >/dev/null || exit 1; \
		base="$$wt/bin/diskdoctor"; echo "baseline: $(BASELINE) ($$(git rev-parse --short "$(BASELINE)"))"; \
	fi; \
	DISKDOCTOR_BENCH=1 DISKDOCTOR_BENCH_BASELINE="$$base" $(GO) test -count=1 -timeout 60m -run '^(TestBenchBudget|TestBenchSnapshotThousandDisks|TestListingsGrowWithTheDevices)$$' -v ./cmd/diskdoctor | grep -E '^(bench:|--- FAIL|FAIL|ok)|per device'
	$(GO) test -run '^$$' -bench FullCheck1000Disks -benchmem ./cmd/diskdoctor

# diskdoctor bench against fio run by hand as --dry-run says (its recipe
# prepares the test file, then one fio --section per job), in alternating
# rounds, on the disk under DIR (issue #12): figures, not pass/fail.
# PROFILE=sync measures the sync profile (default cdm); ROUNDS=N (default 5);
# FOR=20m starts no round that would end after 20 minutes.
bench-fio:
	@test -n "$(DIR)" || { echo "usage: make bench-fio DIR=/a/directory/on/the/disk [PROFILE=sync] [ROUNDS=5] [FOR=20m]"; exit 2; }
	DISKDOCTOR_BENCH_FIO_DIR=$(DIR) DISKDOCTOR_BENCH_FIO_PROFILE=$(PROFILE) DISKDOCTOR_BENCH_FIO_ROUNDS=$(ROUNDS) DISKDOCTOR_BENCH_FIO_FOR=$(FOR) $(GO) test -count=1 -timeout 60m -run '^TestBenchAgainstHandRunFio$$' -v ./cmd/diskdoctor | grep --line-buffered -E '^(bench-fio:|--- FAIL|FAIL|ok)'

# Regenerate the rule reference and the fixtures' golden files; review the diff.
docs:
	$(GO) test ./rules -update

# Reproducible: the same commit gives byte-identical files (deb-test checks).
# The packages' Go is the newer of the doctor's and nfpm's minimum
# (packaging/tools/go.mod's go line), fetched as packaging/go.sh does.
DEB_GO = go=$$(packaging/go.sh packaging/tools/go.mod) && GO=$$go
deb:
	$(DEB_GO) packaging/build-deb.sh -o dist $(DEB_ARCHES)

# The sources of HEAD (git archive) under diskdoctor-<version>/, with a
# VERSION file at the top that make build reads where there is no .git.
# Uncommitted changes are not in HEAD, so a dirty tree is refused rather
# than given a version the tarball does not hold.
dist:
	packaging/dist.sh dist

# Everything a release publishes, from a clean checkout of the tag:
# .deb and .rpm for each of DEB_ARCHES, the source tarball, and SHA256SUMS
# (sha256sum -c reads it).
release:
	@git diff --quiet HEAD -- || { echo "make release: uncommitted changes (a release is built from a commit)"; exit 1; }
	$(DEB_GO) packaging/build-deb.sh -o dist --rpm $(DEB_ARCHES)
	packaging/dist.sh dist
	cd dist && v=$$(../packaging/version.sh) && sha256sum diskdoctor_$${v}_*.deb diskdoctor-$${v}-1.*.rpm diskdoctor-$${v}.tar.gz >SHA256SUMS && cat SHA256SUMS

# Builds the packages twice and compares them, lints them, installs the
# native one with apt-get, uses it, purges it, and leaves the machine as it
# was (packaging/test-deb.sh).
deb-test:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DEB_TEST_PACKAGES)"
	$(DEB_GO) packaging/test-deb.sh

# node-problem-detector itself, built from the Go module proxy (several
# minutes on two cores: not in make test), running the shipped plugin
# config against fixtures (cmd/diskdoctor TestRealNPD; docs/kubernetes.md).
NPD_DIR ?= /tmp/npdbuild
npd-test:
	packaging/npd/build-npd.sh $(NPD_DIR)
	DISKDOCTOR_NPD=$(NPD_DIR)/node-problem-detector $(GO) test -count=1 -run TestRealNPD -v ./cmd/diskdoctor

# The README's Quick start on fresh Debian 12 and 13 (debootstrap chroots, as
# root), timed: packaging/newcomer.sh. Slow (it downloads each system, Go and
# every package), so not in make test nor CI. SUITES="trixie" for one.
SUITES ?= bookworm trixie
newcomer:
	packaging/newcomer.sh $(SUITES)

clean:
	rm -rf bin dist
