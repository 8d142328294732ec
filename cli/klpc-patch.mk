# PLACEHOLDER (branch pkg only): replaced by the real fragment of branch cli.
# Build a klpc patch module against one kernel:
#   obj-m := my-patch.o
#   include /usr/share/klpc/klpc-patch.mk
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
KLPC_SYMVERS ?= /var/lib/dkms/klpc/kernel-$(KVER)-x86_64/Module.symvers
ccflags-y += -I/usr/share/klpc/include
