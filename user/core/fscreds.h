/* SPDX-License-Identifier: GPL-2.0-only */
/* fscreds.h - open files with another user's filesystem credentials.
 *
 * mrtrace runs as root, but a file a job names (its NCCL_CONF_FILE, its
 * ~/.nccl.conf) must be read only if the job itself could read it: root
 * would otherwise report settings the job never saw, and hand a root-only
 * file's lines to whoever can set an environment variable.  The kernel
 * checks file access against the filesystem uid/gid and the supplementary
 * groups, and drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH while the
 * filesystem uid is not 0, so switching those three for the duration of an
 * open() gives the job's own answer, ACLs included.
 *
 * The raw system calls change only the calling thread (glibc's wrappers
 * would change every thread); mrtrace opens files from one thread.  Without
 * CAP_SETUID/CAP_SETGID (mrtrace not run as root) nothing is switched: the
 * caller's own rights are then the limit. */
#ifndef MRTRACE_CORE_FSCREDS_H
#define MRTRACE_CORE_FSCREDS_H
#include <stdbool.h>
#include <sys/types.h>

struct fscreds {
	uid_t uid;           /* filesystem uid (Uid: 4th field of /proc/PID/status) */
	gid_t gid;
	int ngroups;
	gid_t *groups;       /* malloc'd */
};

struct fscreds_saved {
	bool switched;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t *groups;
};

/* Parses the Uid:, Gid: and Groups: lines of a /proc/PID/status text.
 * 0, -EINVAL when a line is missing, -ENOMEM. */
int fscreds_parse_status(const char *status, struct fscreds *out);
void fscreds_free(struct fscreds *c);

/* Takes c's filesystem identity; restore with fscreds_restore.  0 (also
 * when there was nothing to do: not root), or -errno (nothing changed). */
int fscreds_assume(const struct fscreds *c, struct fscreds_saved *saved);
void fscreds_restore(struct fscreds_saved *saved);

#endif
