/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_REPLACE_H
#define _KLPC_REPLACE_H

#include <linux/list.h>
#include <klpc.h>

/* patches a replace patch took over, until their modules are removed */
extern struct list_head klpc_replaced_patches;

int klpc_add_nops(struct klpc_patch *patch);
void klpc_free_nops(struct klpc_patch *patch);
void klpc_replace_complete(struct klpc_patch *patch, int state);
void klpc_replace_unlist(void);

#endif /* _KLPC_REPLACE_H */
