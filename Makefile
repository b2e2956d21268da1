# diskdoctor — build, run, test.
#   make run    install what the doctor uses (Debian packages), build it, examine this machine
#   make test   install what the tests use, then vet, test, and fuzz each parser briefly
#   make bench  a synthetic machine with 1,000 disks: wall time and peak memory of a full check

export PATH := $(PATH):/usr/local/go/bin
GO      ?= go
BIN     := bin/diskdoctor
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The real tools the doctor reads from on a live machine: hdparm (drive write
# cache), smartmontools, util-linux (dmesg, lsblk, losetup), pciutils (lspci
# in remediation advice), fio (diskdoctor bench).
DEBIAN_PACKAGES := hdparm smartmontools util-linux pciutils fio
# What the tests use beyond that: the real consumers of the fleet formats
# (node_exporter's textfile collector, promtool), systemd-analyze, and fio with
# sysstat's iostat for the live sampling test.
TEST_PACKAGES := prometheus prometheus-node-exporter systemd sysstat
FUZZTIME ?= 3s

.PHONY: all deps test-deps install-packages build run test vet fuzz bench docs clean

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
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else \
			echo "missing Debian packages:$$missing (run as root, or: sudo apt-get install$$missing)"; \
		fi; \
	fi

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/diskdoctor

run: deps build
	./$(BIN) $(ARGS)

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt wants to change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

test: test-deps vet
	$(GO) test -count=1 ./...
	@$(MAKE) --no-print-directory fuzz

# Each fuzz target runs briefly on its seed corpus and whatever it finds in
# FUZZTIME; a crash fails the run.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg >/dev/null || exit 1; \
		done; \
	done

bench:
	DISKDOCTOR_BENCH=1 $(GO) test -count=1 -run 'TestBenchThousandDisks|TestBenchSnapshotThousandDisks' -v ./cmd/diskdoctor | grep -E '^(bench:|---|ok|FAIL)'
	$(GO) test -run '^$$' -bench FullCheck1000Disks -benchmem ./cmd/diskdoctor

# Regenerate the rule reference and the fixtures' golden files; review the diff.
docs:
	$(GO) test ./rules -update

clean:
	rm -rf bin
