/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_SHADOW_H
#define _KLPC_SHADOW_H

/* klpc.ko unloads: free the shadow variables patch modules left behind */
void klpc_shadow_exit(void);

#endif /* _KLPC_SHADOW_H */
