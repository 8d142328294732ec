/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_RELOC_H
#define _KLPC_RELOC_H

struct klpc_patch;
struct klpc_object;

int klpc_reloc_check_patch(struct klpc_patch *patch);
int klpc_reloc_apply_object(struct klpc_patch *patch, struct klpc_object *obj);
void klpc_reloc_clear_object(struct klpc_patch *patch, struct klpc_object *obj);

#endif /* _KLPC_RELOC_H */
