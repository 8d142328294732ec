/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_CM_TARGET_H
#define _KLPC_CM_TARGET_H

#include "target.h"

int klpc_cm_callee(int x);
int klpc_cm_caller(int x);
const char *klpc_cm_sleeper(void);
int klpc_cm_wait(void);

#endif /* _KLPC_CM_TARGET_H */
