/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_PROCFS_H
#define _KLPC_PROCFS_H

int klpc_proc_init(void);
void klpc_proc_exit(void);

#endif /* _KLPC_PROCFS_H */
