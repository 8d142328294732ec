/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLPC_ACCESS_H
#define _KLPC_ACCESS_H

struct file;

int klpc_may_write(const char *patch, const char *name);
int klpc_may_read(struct file *file);

#endif /* _KLPC_ACCESS_H */
