// SPDX-License-Identifier: GPL-2.0
/*
 * target-dup.c - the second of two local functions named klpc_target_dup,
 * so that klpc_target has a symbol patches must name with old_sympos.
 */

#include "target.h"

static KLPC_TARGET_FUNC int klpc_target_dup(void)
{
	return 2;
}

KLPC_TARGET_FUNC int klpc_target_dup_b(void)
{
	return klpc_target_dup();
}
