/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_HOOKS_H
#define _KLPC_HOOKS_H

struct task_struct;

int klpc_hooks_init(void);
void klpc_hooks_exit(void);
void klpc_resume_queue(struct task_struct *task);
void klpc_resume_cancel_all(void);
unsigned int klpc_resume_count(void);

#endif /* _KLPC_HOOKS_H */
