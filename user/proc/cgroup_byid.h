/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup_byid.h - the cgroup directory of an exited process, by its id,
 * bounded (proc_cgroup_path_by_id in context.h is its entry point).
 *
 * cgroup v2 ids are the inode numbers of the cgroup directories, so an id
 * is found by walking the tree.  A user with a delegated subtree can make
 * that tree as large as they like (50,000 cgroups made each walk take over
 * a second, inside watch's event loop): a walk opens at most
 * CGROUP_BYID_MAX_DIRS directories and CGROUP_BYID_MAX_DEPTH levels, and
 * a lookup the bound stopped is counted (cut) and answered -E2BIG.  Every
 * answer, found or not, is kept by id in a table of CGROUP_BYID_CACHE
 * entries (the oldest replaced): the records of one process, or of one
 * job's many processes, walk once.  A cgroup id is never reused while the
 * system runs, so a kept answer cannot name another cgroup. */
#ifndef MRTRACE_CGROUP_BYID_H
#define MRTRACE_CGROUP_BYID_H

#include <stddef.h>
#include <stdint.h>

#define CGROUP_BYID_MAX_DIRS  4096
#define CGROUP_BYID_MAX_DEPTH 12
#define CGROUP_BYID_CACHE     128

struct cgroup_byid_stats {
	unsigned long long walks;  /* lookups that walked the tree */
	unsigned long long hits;   /* answered from the table */
	unsigned long long cut;    /* walks the bound stopped: not found, maybe there */
};

/* The walk itself, no table: under dirfd `base` (the v2 root), at most
 * max_dirs directories.  0 with rel "/a/b" (rel is the path below base),
 * -ENOENT, or -E2BIG when the bound stopped it first.  For tests. */
int cgroup_byid_walk(int base, uint64_t id, unsigned max_dirs, char *rel, size_t len);

/* What the lookups of this process have cost so far. */
void cgroup_byid_stats(struct cgroup_byid_stats *out);

/* Forgets every kept answer (tests; a new --host-root). */
void cgroup_byid_forget(void);

#endif
