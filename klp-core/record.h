/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_RECORD_CHECK_H
#define _KLPC_RECORD_CHECK_H

struct klpc_patch;
struct klpc_object;

int klpc_record_check_patch(struct klpc_patch *patch);
int klpc_record_check_object(struct klpc_patch *patch, struct klpc_object *obj);

#endif /* _KLPC_RECORD_CHECK_H */
