/* SPDX-License-Identifier: GPL-2.0-only */
/* names.h - the names of names.c read the other way, and the syscall names
 * (the forward names are declared in explain.h).  One table each, used in
 * both directions: a recorded record comes back through them. */
#ifndef MRTRACE_EXPLAIN_NAMES_H
#define MRTRACE_EXPLAIN_NAMES_H

/* The errno errno_name() names so, or -1 ("E?" and unknown names). */
int errno_from_name(const char *name);
/* The enum mrt_api value api_name() names so, or -1. */
int api_from_name(const char *name);
/* "mlock", ..., "prlimit64" for an enum mrt_syscall value; NULL for
 * MRT_SYS_NONE and values it does not know. */
const char *syscall_name(unsigned int sysno);

#endif
