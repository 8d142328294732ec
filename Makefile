# SPDX-License-Identifier: GPL-2.0
# klpc: build the modules out of tree against Debian's kernel headers and
# drive the checks and the QEMU guest. The module list lives in Kbuild.
#
#   make [KDIR=...]        build klpc.ko and the sample/test modules
#   make clean
#   make check             checkpatch, W=1 and sparse builds, shellcheck
#   make vm-demo           boot the guest, run vm/demo.sh
#   make vm-test [FILTER='t-1*,t-20-*']  boot the guest, run tests/t-*.sh
#   make vm-bench          boot the guest, run bench/run.sh
#   make vm-shell          boot the guest to a shell on the console
#
# KDIR defaults to the tree of the installed linux-headers-amd64 (installed
# by the recipes when run as root). See vm/run.sh for the KLPC_* variables.

KDIR ?= $(shell tools/kdir.sh)
# clean must not install anything: use KDIR only if it exists already.
CLEAN_KDIR = $(if $(filter file,$(origin KDIR)),$(shell tools/kdir.sh --no-install 2>/dev/null),$(KDIR))

.PHONY: all modules clean check vm-demo vm-test vm-bench vm-shell

all: modules

modules: tests/bin/klpc-hammer bench/bin/klpc-bench-tool bench/bin/klpc-lat
	@kdir='$(KDIR)'; [ -n "$$kdir" ] || exit 1; \
	$(MAKE) -C "$$kdir" M='$(CURDIR)' modules

# a static user-space load generator for the guest tests
tests/bin/klpc-hammer: tests/tools/klpc-hammer.c
	@mkdir -p tests/bin
	$(CC) -O2 -Wall -Wextra -static -o $@ $<

# the timing and sleeper helper of the guest benchmarks
bench/bin/klpc-bench-tool: bench/tools/klpc-bench-tool.c
	@mkdir -p bench/bin
	$(CC) -O2 -Wall -Wextra -static -pthread -o $@ $<

# the wake-up latency recorder of the guest benchmarks (cyclictest-like)
bench/bin/klpc-lat: bench/tools/klpc-lat.c
	@mkdir -p bench/bin
	$(CC) -O2 -Wall -Wextra -static -pthread -o $@ $<

clean:
	@kdir='$(CLEAN_KDIR)'; \
	if [ -n "$$kdir" ] && [ -d "$$kdir" ]; then \
		$(MAKE) -C "$$kdir" M='$(CURDIR)' clean; fi
	rm -rf build tests/bin bench/bin

check:
	@KLPC_KDIR='$(KDIR)' tools/check.sh

vm-demo vm-test vm-bench vm-shell: vm-%:
	@tools/deps.sh vm
	@$(MAKE) --no-print-directory modules
	@KLPC_KDIR='$(KDIR)' KLPC_FILTER='$(FILTER)' vm/run.sh $*
