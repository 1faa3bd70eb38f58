// SPDX-License-Identifier: GPL-2.0-only
/* cgroup_byid.c - an exited process's cgroup by id: a bounded walk, and a
 * bounded table of answers (cgroup_byid.h). */
#include "proc/cgroup_byid.h"
#include "proc/context.h"
#include "core/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct walk {
	uint64_t id;
	unsigned dirs, max_dirs; /* directories opened, and the bound */
	bool cut;
};

/* Walked by descriptor without following symlinks: a recorded tree's
 * cgroup directory cannot lead the walk out of the tree.  0 found (rel
 * holds the path), -1 not below dfd. */
static int walk_dir(struct walk *w, int dfd, char *rel, size_t rlen, int depth)
{
	if (depth >= CGROUP_BYID_MAX_DEPTH) {
		w->cut = true;
		return -1;
	}
	int dup_fd = dup(dfd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return -1;
	}
	/* a dup shares its offset with dfd: a base read before starts over */
	rewinddir(d);
	struct dirent *e;
	int found = -1;
	size_t l = strlen(rel);
	while (found && (e = readdir(d))) {
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* the inode number is in the entry: a match costs no open */
		bool match = (uint64_t)e->d_ino == w->id;
		if (!match && w->dirs >= w->max_dirs) {
			w->cut = true;
			break;
		}
		if (snprintf(rel + l, rlen - l, "/%s", e->d_name) >= (int)(rlen - l)) {
			rel[l] = '\0';
			continue;
		}
		if (match) {
			found = 0;
			break;
		}
		int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		w->dirs++;
		if (sub >= 0) {
			/* an overlay (a --host-root copy) may report another d_ino
			 * than the inode's own number: the open one decides */
			if (!fstat(sub, &st) && (uint64_t)st.st_ino == w->id)
				found = 0;
			else
				found = walk_dir(w, sub, rel, rlen, depth + 1);
			close(sub);
		}
		if (found)
			rel[l] = '\0';
	}
	closedir(d);
	return found;
}

int cgroup_byid_walk(int base, uint64_t id, unsigned max_dirs, char *rel, size_t len)
{
	struct walk w = { .id = id, .max_dirs = max_dirs };
	struct stat st;

	rel[0] = '\0'; /* walk_dir appends to it */
	if (!fstat(base, &st) && (uint64_t)st.st_ino == id) {
		snprintf(rel, len, "/");
		return 0;
	}
	if (!walk_dir(&w, base, rel, len, 0))
		return 0;
	rel[0] = '\0';
	return w.cut ? -E2BIG : -ENOENT;
}

/* ---- the table ------------------------------------------------------------------- */

struct kept {
	uint64_t id;
	unsigned long long used; /* when last asked: the smallest is replaced */
	int rc;
	char root[128]; /* the --host-root it was found under */
	char rel[512];
};

static struct {
	pthread_mutex_t lock;
	unsigned long long clock;
	struct cgroup_byid_stats st;
	struct kept k[CGROUP_BYID_CACHE];
} T = { .lock = PTHREAD_MUTEX_INITIALIZER };

void cgroup_byid_stats(struct cgroup_byid_stats *out)
{
	pthread_mutex_lock(&T.lock);
	*out = T.st;
	pthread_mutex_unlock(&T.lock);
}

void cgroup_byid_forget(void)
{
	pthread_mutex_lock(&T.lock);
	memset(T.k, 0, sizeof(T.k));
	memset(&T.st, 0, sizeof(T.st));
	pthread_mutex_unlock(&T.lock);
}

/* The cgroup v2 hierarchy under root: sys/fs/cgroup itself, or on a hybrid
 * host (v1 controllers, v2 beside them) sys/fs/cgroup/unified.  Ids are
 * inode numbers of one file system, so walking the v1 hierarchies as well
 * could stop at a v1 directory with the same number, and the path found
 * must read as /proc/PID/cgroup's "0::" line does: relative to the v2
 * root, not to sys/fs/cgroup. */
static int open_cgroup2_root(const char *root)
{
	struct stat st;
	if (!procfs_stat(root, -1, "sys/fs/cgroup/unified/cgroup.controllers", &st) &&
	    S_ISREG(st.st_mode))
		return procfs_open_dir(root, -1, "sys/fs/cgroup/unified");
	return procfs_open_dir(root, -1, "sys/fs/cgroup");
}

int proc_cgroup_path_by_id(const char *root, uint64_t id, char *rel, size_t len)
{
	const char *r = root ? root : "";
	int rc;

	/* a root too long to keep is looked up, never kept */
	bool keep = strlen(r) < sizeof(T.k[0].root);
	pthread_mutex_lock(&T.lock);
	T.clock++;
	for (int i = 0; keep && i < CGROUP_BYID_CACHE; i++) {
		struct kept *k = &T.k[i];
		if (k->used && k->id == id && !strcmp(k->root, r)) {
			k->used = T.clock;
			T.st.hits++;
			rc = k->rc;
			snprintf(rel, len, "%s", rc ? "" : k->rel);
			pthread_mutex_unlock(&T.lock);
			return rc;
		}
	}
	T.st.walks++;
	pthread_mutex_unlock(&T.lock);

	/* the walk itself runs unlocked: only the table is shared */
	int base = open_cgroup2_root(root);
	if (base < 0) {
		rel[0] = '\0';
		return -ENOENT; /* not kept: a root without cgroup v2 costs no walk */
	}
	rc = cgroup_byid_walk(base, id, CGROUP_BYID_MAX_DIRS, rel, len);
	close(base);

	pthread_mutex_lock(&T.lock);
	if (rc == -E2BIG)
		T.st.cut++;
	if (keep) {
		struct kept *old = &T.k[0];
		for (int i = 1; i < CGROUP_BYID_CACHE; i++)
			if (T.k[i].used < old->used)
				old = &T.k[i];
		old->id = id;
		old->used = T.clock;
		old->rc = rc;
		snprintf(old->root, sizeof(old->root), "%s", r);
		snprintf(old->rel, sizeof(old->rel), "%s", rc ? "" : rel);
	}
	pthread_mutex_unlock(&T.lock);
	return rc;
}
