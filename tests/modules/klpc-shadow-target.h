/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_SHADOW_TARGET_H
#define _KLPC_SHADOW_TARGET_H

#include <linux/list.h>
#include <linux/seq_file.h>

/*
 * An object of klpc_shadow_target, which a patch extends with a shadow
 * variable: the patch cannot add a field to it.
 */
struct kst_obj {
	struct list_head node;
	unsigned int id;
};

/*
 * noipa: these are live patched, so each call must really reach them,
 * even though the originals do (next to) nothing.
 */
#define KST_FUNC __attribute__((__noipa__))

void klpc_shadow_target_poke(struct kst_obj *obj);
void klpc_shadow_target_show_obj(struct seq_file *m, struct kst_obj *obj);
void klpc_shadow_target_release(struct kst_obj *obj);

#endif /* _KLPC_SHADOW_TARGET_H */
