/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_STATE_H
#define _KLPC_STATE_H

#include <klpc.h>

int klpc_check_states(struct klpc_patch *patch);

#endif /* _KLPC_STATE_H */
