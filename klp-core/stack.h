/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_STACK_H
#define _KLPC_STACK_H

#include <klpc.h>

struct task_struct;

int klpc_stack_build(struct klpc_patch *patch, int target);
bool klpc_stack_published(void);
void klpc_stack_clear(void);
bool klpc_stack_try_switch(struct task_struct *task);
bool klpc_stack_check_current(void);

#endif /* _KLPC_STACK_H */
