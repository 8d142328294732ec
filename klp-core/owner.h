/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_OWNER_H
#define _KLPC_OWNER_H

#include <linux/types.h>

bool klpc_ftrace_owner(unsigned long addr, unsigned long ip, char *buf,
		       size_t size);

#endif /* _KLPC_OWNER_H */
