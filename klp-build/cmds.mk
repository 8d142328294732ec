# SPDX-License-Identifier: GPL-2.0
# cmds.mk - the commands Kbuild compiles units with, without a walk of
# the tree and without compiling anything.
#
#	make -f Makefile -f cmds.mk klpc-env
#
# (in a prepared tree, with the make variables the target was built
# with) prints, as sh(1) reads it, what the top Makefile exports to the
# per-directory makes: KBUILD_CFLAGS, LINUXINCLUDE, CC... less make's own
# and the tree's absolute paths.  With them in the environment,
#
#	make -n -f cmds.mk obj=DIR DIR/x.o DIR/sub/y.o DIR/x.i
#
# reads DIR's Kbuild file through scripts/Makefile.build, exactly as
# Kbuild's own walk does (DIR is the directory Kbuild descends into that
# lists the unit), and writes DIR/.x.o.cmd for each unit: its first line
# is Kbuild's "cmd_DIR/x.o := ..." (the compiler, its flags, objtool),
# its second "klpc_symversions := ..." (genksyms); for x.i the first
# line is the preprocessor's.  Under -n make runs only these '+' lines,
# never a rule of the tree's Makefiles: a generated header a unit needs
# is not made (its compile then fails, and klpc build falls back to
# Kbuild), and nothing is written outside the units' directories.

ifdef obj

include $(srctree)/scripts/Makefile.build

klpc-o := $(filter %.o,$(MAKECMDGOALS))
# a unit is compiled from its .c, else its .S (Makefile.build's order)
klpc-c-o := $(foreach t,$(klpc-o),$(if $(wildcard $(t:.o=.c)),$(t)))
klpc-S-o := $(filter-out $(klpc-c-o),$(klpc-o))
klpc-c-i := $(foreach t,$(filter %.i,$(MAKECMDGOALS)),$(if $(wildcard $(t:.i=.c)),$(t)))
klpc-no-i := $(filter-out $(klpc-c-i),$(filter %.i,$(MAKECMDGOALS)))

# the first line Kbuild's if_changed writes into the target's .cmd
klpc-savecmd = +@printf '%s\n' 'cmd_$@ := $(call make-cmd,$(1))' >$(dot-target).cmd
# and for an object, the command gen_symversions runs when it exports
# symbols (its output, #SYMVER lines, goes into the .cmd)
cmd_klpc_sym_c = $(call cmd_gensymtypes_c,,)
cmd_klpc_sym_S = $(call cmd_gensymtypes_S,,)
klpc-savesym = $(if $(CONFIG_MODVERSIONS),+@printf '%s\n' \
	'klpc_symversions := $(call make-cmd,klpc_sym_$(1))' >>$(dot-target).cmd)

$(klpc-c-o): $(obj)/%.o: $(src)/%.c FORCE
	$(call klpc-savecmd,cc_o_c)
	$(call klpc-savesym,c)
$(klpc-S-o): $(obj)/%.o: $(src)/%.S FORCE
	$(call klpc-savecmd,as_o_S)
	$(call klpc-savesym,S)
$(klpc-c-i): $(obj)/%.i: $(src)/%.c FORCE
	$(call klpc-savecmd,cpp_i_c)
# an assembler unit has no preprocessed C: no command, so it counts as
# changed
$(klpc-no-i): FORCE
	@:

else

.PHONY: klpc-env
klpc-env:
	+@unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES MAKE_TERMOUT \
		MAKE_TERMERR PATH HOME PWD OLDPWD abs_srctree abs_objtree; \
		export -p

endif
