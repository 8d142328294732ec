// SPDX-License-Identifier: GPL-2.0
/*
 * anchor.c - the function that keeps klpc's ftrace_ops registered
 *
 * klpc's ftrace_ops stays registered from the load of klpc to its unload,
 * so that patching and unpatching are updates of its filter: registering
 * an ftrace_ops builds an ftrace trampoline and makes it read-only and
 * executable (two TLB flushes on every CPU) and patches the ftrace caller,
 * and unregistering one waits for RCU-tasks grace periods; under TCG each
 * round of IPIs costs milliseconds.  An ftrace_ops with an empty filter
 * traces every function, so while nothing is patched the filter holds this
 * function alone, which nothing calls.  Unlike patch.c, this file is built
 * with ftrace, so the function has an ftrace location.
 */

#include "patch.h"

noinline void klpc_ftrace_anchor(void)
{
}
