/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_HOOKS_H
#define _KLPC_HOOKS_H

int klpc_hooks_init(void);
int klpc_hooks_attach(void);
void klpc_hooks_detach(void);
void klpc_hooks_exit(void);

#endif /* _KLPC_HOOKS_H */
