# SPDX-License-Identifier: GPL-2.0
# klpc: build the modules out of tree against Debian's kernel headers and
# drive the checks and the QEMU guest. The module list lives in Kbuild.
#
#   make [KDIR=...]        build klpc.ko and the sample/test modules, the
#                          klpc-convert tool, and convert the modules listed
#                          in */klpc-convert.list (tools/convert-modules.sh)
#   make clean
#   make check             checkpatch, W=1 and sparse builds, shellcheck
#   make vm-demo           boot the guest, run vm/demo.sh
#   make vm-test [FILTER='core/,*reverse*'] [SHARDS=N]  boot the guest, run
#                          tests/AREA/*.sh (FILTER: folders, name globs;
#                          SHARDS: over N guests side by side)
#   make vm-bench          boot the guest, run bench/run.sh
#   make vm-torture [SEED=N] [DURATION=S]  boot the guest, run the torture
#                          driver (tests/torture/torture.sh): random
#                          operations and invariants for S seconds (180)
#   make vm-shell          boot the guest to a shell on the console
#   make vm-try PATCH=x.ko [SCRIPT=s]  boot the guest, 'klpc load' the
#                          patch, run the script (or klpc status, list -v)
#   make patch P=dir       build the out-of-tree patch in dir (a Makefile
#                          including klpc-patch.mk) against KDIR and the
#                          klpc.ko built here, as klpc-tools would
#   make debug-kernel      build (once) the debug kernel, print its tree
#   make install-tools [DESTDIR=...]  the klpc command, its functions and
#                          man page, klpc-patch.mk and include/, klpc-convert
#                          and klpc-build-id (klpc-tools)
#   make deb               build klpc-dkms and klpc-tools into build/deb/
#   make vm-pkg-test       install the .debs in a disk-backed systemd guest,
#                          reboot it, check klpc.service (vm/pkg-test.sh)
#
# KERNEL=stock (default): Debian's kernel. KDIR defaults to the tree of the
# installed linux-headers-amd64 (installed by the recipes when run as root).
# KERNEL=debug: a kernel with lockdep, KASAN, kmemleak and fault injection
# built from the target's Debian source (linux-source-6.1, -6.12) by
# vm/debug-kernel.sh (once, into the cache; vm-* build it when needed); KDIR
# is its tree and vm-* boot it, e.g. make vm-test KERNEL=debug. See
# vm/run.sh for the KLPC_* variables.

#
# TARGET= picks the target kernel for every target above (tools/targets.sh
# holds what differs): bookworm (default), Debian 12's 6.1; bookworm-6.12,
# Debian 12's own 6.12 from bookworm-security; trixie, Debian 13's 6.12
# (gcc-14), whose kbuild runs in a trixie build root (tools/buildroot.sh:
# KBUILD_RUN). Outputs of one target are cleaned before another's build
# (build/kbuild-kdir).

TARGET ?= bookworm
export KLPC_TARGET := $(TARGET)
KERNEL ?= stock
ifeq ($(KERNEL),debug)
# the target's source package (tools/targets.sh: T_DEBUG_SRC); a target
# without one: vm/debug-kernel.sh says so and KDIR stays empty
KDIR ?= $(shell KLPC_TARGET='$(TARGET)' vm/debug-kernel.sh --path)
ifeq ($(KDIR),)
$(error KERNEL=debug: TARGET=$(TARGET) has no debug kernel)
endif
VM_ENV = KLPC_DEBUG=1 KLPC_KERNEL='$(KDIR)/arch/x86/boot/bzImage'
else ifeq ($(KERNEL),stock)
KDIR ?= $(shell KLPC_TARGET='$(TARGET)' tools/kdir.sh)
VM_ENV =
# the prefix of kbuild's make: empty, or "tools/buildroot.sh run" for a
# target built in its build root
KBUILD_RUN = $(shell KLPC_TARGET='$(TARGET)' tools/buildroot.sh wrapper)
else
$(error KERNEL=$(KERNEL): use KERNEL=stock or KERNEL=debug)
endif
# clean must not install anything: use KDIR only if it exists already.
CLEAN_KDIR = $(if $(filter file,$(origin KDIR)),$(shell KLPC_TARGET='$(TARGET)' tools/kdir.sh --no-install 2>/dev/null),$(KDIR))

.PHONY: pkg-target install-tools all modules clean check debug-kernel deb vm-pkg-test vm-demo vm-test vm-bench vm-shell vm-try vm-torture vm-check-patch patch

all: modules

# modpost only warns about undefined symbols (KBUILD_MODPOST_WARN=1): a
# plain-C patch calls unexported functions by name, which klpc-convert
# resolves; tools/convert-modules.sh refuses them in any other module.
# The objects sit next to the sources whatever KDIR is, so build/kbuild-kdir
# records the tree they were built against; against another tree (KERNEL=
# stock, then debug, or a KDIR= override), they are cleaned first.
modules: tests/bin/klpc-hammer tests/bin/klpc-tasks tests/bin/klpc-bpf tests/bin/klpc-perf bench/bin/klpc-bench-tool bench/bin/klpc-lat \
		klp-convert/klpc-convert klp-build/compare/klpc-compare klp-build/emit/klpc-emit \
		klp-build/image/klpc-kallsyms
	@kdir='$(KDIR)'; [ -n "$$kdir" ] || { echo "TARGET=$(TARGET): no kernel build tree" >&2; exit 1; }; \
	[ -f "$$kdir/Makefile" ] || { echo "KDIR=$$kdir: not a kernel build tree" >&2; exit 1; }; \
	if [ "$$(cat build/kbuild-kdir 2>/dev/null)" != "$$kdir" ]; then \
		[ ! -f build/kbuild-kdir ] || echo "klpc: modules were built against $$(cat build/kbuild-kdir): cleaning"; \
		$(KBUILD_RUN) $(MAKE) -C "$$kdir" M='$(CURDIR)' clean >/dev/null; \
		mkdir -p build && echo "$$kdir" >build/kbuild-kdir; \
	fi; \
	$(KBUILD_RUN) $(MAKE) -C "$$kdir" M='$(CURDIR)' KBUILD_MODPOST_WARN=1 modules
	@KLPC_KDIR='$(KDIR)' tools/convert-modules.sh

# kelf/: the ELF reading, editing and writing the host tools below share
KELF_SRC = $(wildcard kelf/*.c)
KELF_DEPS = $(KELF_SRC) $(wildcard kelf/*.h)
# (packaging/debian/rules: KLPC_NO_DEPS=1 and Debian's flags)
KLPC_CONVERT_CFLAGS = -O2 -Wall -Wextra -Werror
KLPC_TOOL_CC = $(CC) $(KLPC_CONVERT_CFLAGS) -Iinclude -Ikelf

# klpc-convert: livepatch relocations and the build record for patch
# modules (klp-convert/README.md); a host tool, over libelf
KLPC_CONVERT_SRC = $(wildcard klp-convert/*.c)
klp-convert/klpc-convert: $(KLPC_CONVERT_SRC) $(wildcard klp-convert/*.h) $(KELF_DEPS) include/klpc-record.h
	@[ -n '$(KLPC_NO_DEPS)' ] || tools/deps.sh build
	$(KLPC_TOOL_CC) -o $@ $(KLPC_CONVERT_SRC) $(KELF_SRC) -lelf

# klpc-emit: klpc build's cut-down objects of the changed units
# (klp-build/emit/)
KLPC_EMIT_SRC = $(wildcard klp-build/emit/*.c)
klp-build/emit/klpc-emit: $(KLPC_EMIT_SRC) $(wildcard klp-build/emit/*.h) $(KELF_DEPS)
	@[ -n '$(KLPC_NO_DEPS)' ] || tools/deps.sh build
	$(KLPC_TOOL_CC) -o $@ $(KLPC_EMIT_SRC) $(KELF_SRC) -lelf

# klpc-compare: klpc build's comparison of a unit's objects before and
# after a diff (klp-build/compare/)
KLPC_COMPARE_SRC = $(wildcard klp-build/compare/*.c)
klp-build/compare/klpc-compare: $(KLPC_COMPARE_SRC) $(wildcard klp-build/compare/*.h) $(KELF_DEPS)
	@[ -n '$(KLPC_NO_DEPS)' ] || tools/deps.sh build
	$(KLPC_TOOL_CC) -o $@ $(KLPC_COMPARE_SRC) $(KELF_SRC) -lelf

# klpc-kallsyms: a kernel's symbols (as /proc/kallsyms shows them) read
# from its vmlinuz alone, for klpc build's sympos and size checks
# (klp-build/image/)
KLPC_KALLSYMS_SRC = $(wildcard klp-build/image/*.c)
klp-build/image/klpc-kallsyms: $(KLPC_KALLSYMS_SRC) $(wildcard klp-build/image/*.h) $(KELF_DEPS)
	@[ -n '$(KLPC_NO_DEPS)' ] || tools/deps.sh build
	$(KLPC_TOOL_CC) -o $@ $(KLPC_KALLSYMS_SRC) $(KELF_SRC) -lelf

# a static user-space load generator for the guest tests
tests/bin/klpc-hammer: tests/tools/klpc-hammer.c
	@mkdir -p tests/bin
	$(CC) -O2 -Wall -Wextra -static -o $@ $<

# exec from a thread, io_uring workers, many threads: for the guest tests
tests/bin/klpc-tasks: tests/tools/klpc-tasks.c
	@mkdir -p tests/bin
	$(CC) -O2 -Wall -Wextra -static -pthread -o $@ $<

# a BPF fentry/fexit program counting a function's calls
# (coexist/bpf-trampoline), with no libbpf: raw bpf() calls
tests/bin/klpc-bpf: tests/tools/klpc-bpf.c
	@mkdir -p tests/bin
	$(CC) -O2 -Wall -Wextra -static -o $@ $<

# perf counters on a function's calls (coexist/perf-counters): what
# 'perf probe' and 'perf stat' do, through perf_event_open(), without the
# perf tool
tests/bin/klpc-perf: tests/tools/klpc-perf.c
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
		$(KBUILD_RUN) $(MAKE) -C "$$kdir" M='$(CURDIR)' clean; fi
	rm -rf build tests/bin bench/bin tests/fixes/out klp-convert/klpc-convert klp-build/compare/klpc-compare \
		klp-build/emit/klpc-emit klp-build/image/klpc-kallsyms

check:
	@KLPC_KDIR='$(KDIR)' tools/check.sh

# What klpc-tools installs: /usr/sbin/klpc finds its functions in
# /usr/share/klpc/lib, patch builds klpc.h in /usr/share/klpc/include.
KLPC_SHARE_DIR = /usr/share/klpc
install-tools: klp-convert/klpc-convert klp-build/compare/klpc-compare klp-build/emit/klpc-emit \
		klp-build/image/klpc-kallsyms
	install -D -m 755 cli/klpc '$(DESTDIR)/usr/sbin/klpc'
	install -D -m 755 klp-convert/klpc-convert '$(DESTDIR)/usr/bin/klpc-convert'
	install -D -m 755 klp-convert/klpc-build-id '$(DESTDIR)/usr/bin/klpc-build-id'
	install -d '$(DESTDIR)$(KLPC_SHARE_DIR)/lib' '$(DESTDIR)$(KLPC_SHARE_DIR)/include'
	install -m 644 cli/lib/*.sh '$(DESTDIR)$(KLPC_SHARE_DIR)/lib/'
	install -m 644 cli/klpc-patch.mk '$(DESTDIR)$(KLPC_SHARE_DIR)/'
	install -m 644 include/klpc.h include/klpc-compat.h '$(DESTDIR)$(KLPC_SHARE_DIR)/include/'
	install -D -m 644 -t '$(DESTDIR)$(KLPC_SHARE_DIR)/include/kpatch' include/kpatch/*.h
	install -D -m 644 -t '$(DESTDIR)$(KLPC_SHARE_DIR)/include/upstream/linux' include/upstream/linux/*.h
	install -D -m 644 cli/klpc.8 '$(DESTDIR)/usr/share/man/man8/klpc.8'
	install -d '$(DESTDIR)$(KLPC_SHARE_DIR)/build/compare' '$(DESTDIR)$(KLPC_SHARE_DIR)/build/emit' \
		'$(DESTDIR)$(KLPC_SHARE_DIR)/build/image'
	install -m 755 klp-build/klpc-build klp-build/klpc-image '$(DESTDIR)$(KLPC_SHARE_DIR)/build/'
	install -m 644 klp-build/prepare.sh klp-build/diffs.sh klp-build/reach.sh klp-build/reach.awk \
		klp-build/idirs.awk klp-build/objs.mk klp-build/build-units.sh klp-build/compare.sh \
		klp-build/emit.sh klp-build/image.sh '$(DESTDIR)$(KLPC_SHARE_DIR)/build/'
	install -m 755 klp-build/image/klpc-kallsyms '$(DESTDIR)$(KLPC_SHARE_DIR)/build/image/'
	install -m 755 klp-build/compare/klpc-compare '$(DESTDIR)$(KLPC_SHARE_DIR)/build/compare/'
	install -m 755 klp-build/emit/klpc-emit '$(DESTDIR)$(KLPC_SHARE_DIR)/build/emit/'
	install -D -m 755 klp-build/lines/klpc-fix-lines '$(DESTDIR)$(KLPC_SHARE_DIR)/build/lines/klpc-fix-lines'
	install -D -m 644 klp-build/hook/klpc-hook.c '$(DESTDIR)$(KLPC_SHARE_DIR)/build/hook/klpc-hook.c'

# An out-of-tree patch, built from this tree without klpc-tools installed:
# klpc-patch.mk from cli/, klpc.ko's symbol versions from the one built
# here, the headers of KDIR (so no KVER is needed).
patch: modules
	@[ -n '$(P)' ] && [ -f '$(P)/Makefile' ] || { echo "usage: make patch P=dir (a directory with the patch's Makefile)" >&2; exit 1; }
	$(MAKE) -C '$(P)' KLPC_MK='$(CURDIR)/cli/klpc-patch.mk' KDIR='$(KDIR)' \
		KLPC_KO='$(CURDIR)/klpc.ko'

debug-kernel:
	@tools/deps.sh debug
	@vm/debug-kernel.sh

deb: pkg-target
	@tools/deps.sh deb
	@tools/deb.sh

# the packages' guest test: Debian's kernel only (its headers are what the
# guest's DKMS builds against)
vm-pkg-test: pkg-target
ifneq ($(KERNEL),stock)
	$(error vm-pkg-test boots Debian's kernel: use KERNEL=stock)
endif
	@tools/deps.sh pkg
	@$(MAKE) --no-print-directory modules
	@KLPC_KDIR='$(KDIR)' vm/pkg-test.sh

# the packages are tested on Debian 12's 6.1 and Debian 13's 6.12 (DKMS
# against the suite's linux-headers-amd64, in a guest of that suite)
PKG_TARGETS = bookworm trixie
pkg-target:
ifeq ($(filter $(PKG_TARGETS),$(TARGET)),)
	$(error $(MAKECMDGOALS): the packages are tested on $(PKG_TARGETS): TARGET=$(TARGET) is not one)
endif

vm-try: override VM_ENV += KLPC_TRY_PATCH='$(abspath $(PATCH))' \
	$(if $(SCRIPT),KLPC_TRY_SCRIPT='$(abspath $(SCRIPT))')
vm-try: vm-check-patch
vm-check-patch:
	@[ -n '$(PATCH)' ] || { echo "usage: make vm-try PATCH=path/to/patch.ko [SCRIPT=path/to/script]" >&2; exit 1; }

vm-torture: override VM_ENV += KLPC_TORTURE_SEED='$(SEED)' KLPC_TORTURE_DURATION='$(DURATION)'
vm-demo vm-test vm-bench vm-shell vm-try vm-torture: vm-%:
	@tools/deps.sh vm
ifeq ($(KERNEL),debug)
	@tools/deps.sh debug
	@vm/debug-kernel.sh >/dev/null
endif
	@$(MAKE) --no-print-directory modules
# klpc build's test patches (tests/build/): for Debian's kernel only
ifneq ($(KERNEL),debug)
	@$(if $(filter test,$*),KLPC_KDIR='$(KDIR)' KLPC_FILTER='$(FILTER)' tools/build-patches.sh)
	@$(if $(filter test,$*),KLPC_KDIR='$(KDIR)' KLPC_FILTER='$(FILTER)' \
		KBUILD_RUN='$(KBUILD_RUN)' MAKE='$(MAKE)' tools/upstream-selftests.sh)
else
	@rm -rf tests/fixes/out build/upstream
endif
	@KLPC_KDIR='$(KDIR)' KLPC_FILTER='$(FILTER)' KLPC_SHARDS='$(SHARDS)' $(VM_ENV) vm/run.sh $*
