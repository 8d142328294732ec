// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-state3.c - the next cumulative patch, with the same
 * console_loglevel fix as klpc-test-state2 (upstream's
 * test_klp_state3.c); see state-patch.h
 */

#define CONSOLE_LOGLEVEL_STATE_VERSION	2

#include "state-patch.h"

MODULE_DESCRIPTION("klpc test: system state migration, version 2 again");
