# SPDX-License-Identifier: GPL-2.0
# klpc-patch.mk - build a klpc patch module out of tree (klpc-tools ships
# it as /usr/share/klpc/klpc-patch.mk). A patch's directory holds its .c
# file(s) and a Makefile of two lines:
#
#	obj-m := my-fix.o
#	include /usr/share/klpc/klpc-patch.mk
#
#	make               build my-fix.ko for the running kernel
#	make KVER=6.1.0-28-amd64   ... for another (its headers installed)
#	make KDIR=/usr/src/linux-headers-6.1.0-28-amd64   ... the same
#	make sign          sign it with the DKMS key (klpc sign)
#	make install       install it for KVER (klpc install): loaded at boot
#	make clean
#
# It needs the kernel's headers (linux-headers-KVER), klpc.h (klpc-tools)
# and a klpc.ko built for KVER (klpc-dkms): the versions of klpc's
# symbols are read from it ('klpc symvers', into klpc.symvers here) and
# given to modpost as KBUILD_EXTRA_SYMBOLS, so the patch loads against it.
#
# Variables: KVER (KDIR's release when KDIR is given, else uname -r), KDIR
# (/lib/modules/KVER/build), KLPC_KO
# (klpc.ko for KVER: DKMS's), KLPC_SYMVERS (a Module.symvers to use
# instead), KLPC_INCLUDE (klpc.h's directory), KLPC (the klpc command).
#
# After the link, klpc-convert (klp-convert/README.md) turns references to
# symbols KVER does not export into livepatch relocations, marks the
# module livepatch=Y and writes its build record. Then modpost must not
# refuse such references: KBUILD_MODPOST_WARN=1 is set (KLPC_SYMBOL()-
# annotated ones are weak, modpost does not see them). Variables:
# KLPC_CONVERT (1; 0: do not convert), KLPC_CONVERT_TOOL (klpc-convert),
# KLPC_REPLACES (the functions the patch replaces, OBJECT:NAME[,POS] ...:
# their sizes go into the record), KLPC_VMLINUX_ID (KVER's vmlinux build
# ID; default: read from KLPC_VMLINUZ, else from the image klpc-image
# finds: /boot/vmlinuz-KVER, else Debian's linux-image-KVER of the
# headers' version, fetched into /var/cache/klpc/image/KVER as root),
# KLPC_MODULE_DIR (/lib/modules/KVER/kernel: target modules),
# KLPC_CONVERT_FLAGS (more klpc-convert options, e.g. --vmlinux FILE).

KLPC_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
# installed: /usr/share/klpc/include; in klpc's source tree: ../include
KLPC_INCLUDE ?= $(abspath $(firstword $(wildcard $(KLPC_MK_DIR)/include/klpc.h \
	$(KLPC_MK_DIR)/../include/klpc.h) /usr/share/klpc/include/klpc.h)/..)

ifneq ($(KERNELRELEASE),)
# kbuild's pass over the patch's directory
ccflags-y += -I$(KLPC_INCLUDE)
else

# the release of the headers given (make patch, a build for another
# kernel), not the running one's: the build ID and klpc.ko are KVER's
ifeq ($(origin KVER),undefined)
ifneq ($(KDIR),)
KVER := $(shell sed -n 's/^.define UTS_RELEASE "\(.*\)"$$/\1/p' '$(KDIR)/include/generated/utsrelease.h' 2>/dev/null)
endif
endif
KVER := $(or $(KVER),$(shell uname -r))
KDIR ?= /lib/modules/$(KVER)/build
KLPC ?= $(firstword $(wildcard $(KLPC_MK_DIR)/klpc) klpc)
# (DKMS compresses it as the kernel's modules are: klpc.ko.xz on Debian 13)
KLPC_KO ?= $(firstword $(wildcard $(foreach d,updates/dkms extra, \
	$(foreach s,.ko .ko.xz .ko.zst,/lib/modules/$(KVER)/$(d)/klpc$(s)))))
KLPC_PATCHES = $(patsubst %.o,%.ko,$(obj-m))
KLPC_CONVERT ?= 1
KLPC_CONVERT_TOOL ?= $(firstword $(wildcard $(KLPC_MK_DIR)/../klp-convert/klpc-convert) klpc-convert)
KLPC_BUILD_ID ?= $(firstword $(wildcard $(KLPC_MK_DIR)/../klp-convert/klpc-build-id) klpc-build-id)
# in klpc's source tree: ../klp-build; installed: /usr/share/klpc/build
KLPC_IMAGE ?= $(firstword $(wildcard $(KLPC_MK_DIR)/../klp-build/klpc-image \
	$(KLPC_MK_DIR)/build/klpc-image) /usr/share/klpc/build/klpc-image)
KLPC_VMLINUZ ?=
KLPC_MODULE_DIR ?= $(wildcard /lib/modules/$(KVER)/kernel)

.PHONY: all modules sign install clean klpc-check

all: modules

klpc-check:
	@[ -f '$(KDIR)/Makefile' ] || { echo "klpc-patch.mk: no kernel headers at $(KDIR): apt install linux-headers-$(KVER)" >&2; exit 1; }
	@[ -f '$(KLPC_INCLUDE)/klpc.h' ] || { echo "klpc-patch.mk: klpc.h not found (KLPC_INCLUDE=$(KLPC_INCLUDE)): install klpc-tools" >&2; exit 1; }

ifeq ($(KLPC_SYMVERS),)
KLPC_SYMVERS := $(CURDIR)/klpc.symvers
$(KLPC_SYMVERS): $(KLPC_KO)
	@[ -n '$(KLPC_KO)' ] || { echo "klpc-patch.mk: no klpc.ko for $(KVER): install klpc-dkms (and linux-headers-$(KVER)), or give KLPC_KO= or KLPC_SYMVERS=" >&2; exit 1; }
	$(KLPC) symvers '$(KLPC_KO)' >$@.tmp
	mv $@.tmp $@
endif

modules: klpc-check $(KLPC_SYMVERS)
	$(MAKE) -C '$(KDIR)' M='$(CURDIR)' KLPC_INCLUDE='$(KLPC_INCLUDE)' \
		KBUILD_EXTRA_SYMBOLS='$(KLPC_SYMVERS)' \
		$(if $(filter 1,$(KLPC_CONVERT)),KBUILD_MODPOST_WARN=1) modules
ifeq ($(KLPC_CONVERT),1)
	@id='$(KLPC_VMLINUX_ID)'; img='$(KLPC_VMLINUZ)'; \
	if [ -z "$$id" ] && [ -z "$$img" ]; then \
		img=$$('$(KLPC_IMAGE)' '$(KVER)') || { echo "klpc-patch.mk: no image of $(KVER) to read its build ID from: give KLPC_VMLINUX_ID= (cat /sys/kernel/notes on $(KVER)) or KLPC_VMLINUZ=" >&2; exit 1; }; \
	fi; \
	if [ -z "$$id" ]; then \
		[ -r "$$img" ] || { echo "klpc-patch.mk: no $$img to read $(KVER)'s build ID from" >&2; exit 1; }; \
		id=$$($(KLPC_BUILD_ID) "$$img") || exit 1; \
	fi; \
	for ko in $(KLPC_PATCHES); do \
		echo "  KLPC-CONVERT $$ko"; \
		$(KLPC_CONVERT_TOOL) -s '$(KDIR)/Module.symvers' -s '$(KLPC_SYMVERS)' \
			--vmlinux-id "$$id" $(if $(KLPC_MODULE_DIR),--module-dir '$(KLPC_MODULE_DIR)') \
			$(addprefix -r ,$(KLPC_REPLACES)) $(KLPC_CONVERT_FLAGS) "$$ko" || exit 1; \
	done
endif

sign: modules
	for ko in $(KLPC_PATCHES); do $(KLPC) sign "$$ko" || exit 1; done

install: modules
	for ko in $(KLPC_PATCHES); do $(KLPC) install "$$ko" -k '$(KVER)' || exit 1; done

clean:
	$(MAKE) -C '$(KDIR)' M='$(CURDIR)' clean
	rm -f '$(CURDIR)/klpc.symvers'

endif
