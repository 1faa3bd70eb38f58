/* SPDX-License-Identifier: GPL-2.0-only */
/* jobfile.h - files a process names (its NCCL_CONF_FILE, its ~/.nccl.conf,
 * its /etc/passwd and /etc/nccl.conf, the libnccl it maps), read the way the
 * process itself would read them:
 *
 *   - through its own root: an absolute path or symlink means the process's
 *     "/", ".." stops there (core/beneath.h), a relative path starts at its
 *     working directory;
 *   - with its credentials: the filesystem uid, gid and groups of
 *     /proc/PID/status (core/fscreds.h), so a file the job cannot read is
 *     not read for it (it would be a leak, and wrong: NCCL never saw it);
 *   - only if it is a regular file, and at most a stated size: a FIFO, a
 *     device or an endless file named by a job cannot stall or flood
 *     mrtrace.
 *
 * In a recorded tree (root other than "/") the credentials are not taken
 * (its uids belong to another machine); the tree's proc/PID/root is
 * followed inside the tree. */
#ifndef MRTRACE_PROC_JOBFILE_H
#define MRTRACE_PROC_JOBFILE_H
#include <stddef.h>
#include <sys/types.h>

/* A regular file's descriptor, or -errno: -EACCES the process could not
 * read it, -EINVAL not a regular file, -ESRCH the process is gone, -EXDEV
 * its working directory lies outside its root (relative path). */
int jobfile_open(const char *root, int pid, const char *path);
/* A device node the process names (its /dev/infiniband/uverbsN), opened
 * with flags only if it is a character device numbered want (from sysfs):
 * -ENXIO otherwise - a node made to look like one could be any device, and
 * opening some (a watchdog) has effects.  In a recorded tree the stand-in
 * regular files are opened instead, never a device. */
int jobfile_open_dev(const char *root, int pid, const char *path, int flags, dev_t want);
/* The whole file, at most max bytes (-EFBIG beyond), malloc'd and
 * NUL-terminated. */
int jobfile_read(const char *root, int pid, const char *path, size_t max, char **buf,
		 size_t *len);
/* What an error of the two above means, for a message ("not a regular
 * file", "the process cannot read it", ...). */
const char *jobfile_strerror(int err);

#endif
