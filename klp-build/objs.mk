# SPDX-License-Identifier: GPL-2.0
# objs.mk - the objects and subdirectories Kbuild builds in one directory
# of a configured kernel tree, as Kbuild itself computes them.
#
#	make -f objs.mk -C TREE obj=DIR srctree=. objtree=. klpc-objs
#
# prints three lines: "y OBJ..." (built into vmlinux: obj-y, lib-y),
# "m OBJ..." (built into modules) and "d DIR..." (the subdirectories
# descended into).  It reads the directory's Kbuild file and the tree's
# configuration through Kbuild's own scripts/Makefile.lib, as
# scripts/Makefile.build does, but without Makefile.build's rules and
# the .cmd files it includes: nothing here builds or rewrites a file.
# A single target (make dir/x.o) would compile any file of a directory
# Kbuild descends into, configured or not: this is how klpc build tells.

src := $(obj)

obj-y :=
obj-m :=
lib-y :=
lib-m :=
always-y :=
always-m :=
targets :=
subdir-y :=
subdir-m :=
ccflags-y :=
asflags-y :=
subdir-ccflags-y :=
subdir-asflags-y :=

-include include/config/auto.conf

include $(srctree)/scripts/Kbuild.include
include $(srctree)/scripts/Makefile.compiler

# a directory without either (fs/xfs/libxfs: fs/xfs lists its objects)
# builds nothing of its own
kbuild-dir := $(if $(filter /%,$(src)),$(src),$(srctree)/$(src))
kbuild-file := $(or $(wildcard $(kbuild-dir)/Kbuild),$(wildcard $(kbuild-dir)/Makefile))
ifneq ($(kbuild-file),)
include $(kbuild-file)
endif

# lib-y is linked as lib.a (Makefile.lib leaves it alone): its objects
# are configured whether or not vmlinux ends up taking them
klpc-lib := $(addprefix $(obj)/,$(lib-y))

include $(srctree)/scripts/Makefile.lib

.PHONY: klpc-objs
klpc-objs:
	@echo y $(real-obj-y) $(klpc-lib)
	@echo m $(real-obj-m)
	@echo d $(subdir-ym)
