// SPDX-License-Identifier: GPL-2.0
/*
 * klpc-test-state2.c - a cumulative patch that takes a system state over
 * (upstream's test_klp_state2.c); see state-patch.h
 */

/* version 2 takes the change over from the patch it replaces */
#define CONSOLE_LOGLEVEL_STATE_VERSION	2

#include "state-patch.h"

MODULE_DESCRIPTION("klpc test: system state migration, version 2");
