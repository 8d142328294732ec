/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_PATCH_H
#define _KLPC_PATCH_H

#include <klpc.h>

int klpc_patch_object(struct klpc_object *obj);
void klpc_unpatch_object(struct klpc_object *obj);
int klpc_patch_objects(struct klpc_patch *patch);
void klpc_unpatch_objects(struct klpc_patch *patch);
void klpc_unpatch_nops(struct klpc_patch *patch);
int klpc_patch_init(void);
void klpc_patch_exit(void);
void klpc_ftrace_anchor(void);
struct klpc_func *klpc_func_below(struct klpc_func *func);

#endif /* _KLPC_PATCH_H */
