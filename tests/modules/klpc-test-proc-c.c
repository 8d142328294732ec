// SPDX-License-Identifier: GPL-2.0
/* klpc-test-proc-c.c - one of three patch modules; see proc-patch.h */
#include "proc-patch.h"
MODULE_DESCRIPTION("klpc test: /proc patch c for stacking, replace and states");
