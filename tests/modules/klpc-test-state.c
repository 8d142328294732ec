// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-state.c - a patch that changes a system state (upstream's
 * test_klp_state.c); see state-patch.h
 */

/* version 1 cannot take the change over from another patch */
#define CONSOLE_LOGLEVEL_STATE_VERSION	1

#include "state-patch.h"

MODULE_DESCRIPTION("klpc test: system state modification, version 1");
