// SPDX-License-Identifier: GPL-2.0-only
/* jobfile.c - a process's files as that process sees them (see jobfile.h). */
#include "proc/jobfile.h"

#include "core/beneath.h"
#include "core/fscreds.h"
#include "core/procfs.h"
#include "core/readcap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool live(const char *root)
{
	return !root || !*root || !strcmp(root, "/");
}

/* An O_PATH descriptor of <root>/proc/<pid>/<rel> (a directory the process
 * uses as "/" or as its cwd). */
static int proc_dir(const char *root, int pid, const char *rel)
{
	char p[PATH_MAX];
	if (live(root)) {
		snprintf(p, sizeof(p), "/proc/%d/%s", pid, rel);
		int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		return fd >= 0 ? fd : errno == ENOENT ? -ESRCH : -errno;
	}
	int top = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return -errno;
	snprintf(p, sizeof(p), "proc/%d/%s", pid, rel);
	int fd = beneath_path(top, p);
	close(top);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || !S_ISDIR(st.st_mode))) {
		close(fd);
		return -ENOTDIR;
	}
	return fd;
}

/* The live process's working directory as a path inside its root. */
static int cwd_in_root(int pid, char *out, size_t len)
{
	char p[64], cwd[PATH_MAX], rootl[PATH_MAX];
	snprintf(p, sizeof(p), "/proc/%d/cwd", pid);
	ssize_t n = readlink(p, cwd, sizeof(cwd) - 1);
	snprintf(p, sizeof(p), "/proc/%d/root", pid);
	ssize_t m = readlink(p, rootl, sizeof(rootl) - 1);
	if (n <= 0 || m <= 0)
		return -ESRCH;
	cwd[n] = rootl[m] = '\0';
	if (!strcmp(rootl, "/")) {
		snprintf(out, len, "%s", cwd);
		return 0;
	}
	size_t l = strlen(rootl);
	if (!strncmp(cwd, rootl, l) && (cwd[l] == '/' || !cwd[l])) {
		snprintf(out, len, "%s", cwd[l] ? cwd + l : "/");
		return 0;
	}
	return -EXDEV;
}

static int read_creds(int pid, struct fscreds *c)
{
	char p[64], status[8192];
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	long n = procfs_read(p, status, sizeof(status));
	if (n <= 0)
		return -ESRCH;
	return fscreds_parse_status(status, c);
}

/* The process's identity, taken for a walk and an open (live system only:
 * a recorded tree's uids belong to another machine). */
struct as_job {
	struct fscreds c;
	struct fscreds_saved saved;
};

static int become(const char *root, int pid, struct as_job *j)
{
	memset(j, 0, sizeof(*j));
	if (!live(root))
		return 0;
	int e = read_creds(pid, &j->c);
	if (!e)
		e = fscreds_assume(&j->c, &j->saved);
	if (e)
		fscreds_free(&j->c);
	return e;
}

static void unbecome(struct as_job *j)
{
	fscreds_restore(&j->saved);
	fscreds_free(&j->c);
}

/* An O_PATH descriptor of path as the process resolves it (its root, its
 * cwd for a relative name).  Call with the job's identity taken. */
static int job_path(const char *root, int pid, const char *path)
{
	char full[PATH_MAX];
	const char *where = path;
	int top;
	if (path[0] == '/' || !live(root)) {
		/* a recorded tree keeps no usable cwd link: relative names are
		 * resolved below the recorded cwd */
		top = proc_dir(root, pid, path[0] == '/' ? "root" : "cwd");
	} else {
		int e = cwd_in_root(pid, full, sizeof(full));
		if (e)
			return e;
		size_t l = strlen(full);
		if (snprintf(full + l, sizeof(full) - l, "%s%s", l && full[l - 1] == '/' ? "" : "/",
			     path) >= (int)(sizeof(full) - l))
			return -ENAMETOOLONG;
		where = full;
		top = proc_dir(root, pid, "root");
	}
	if (top < 0)
		return top;
	int fd = beneath_path(top, where);
	close(top);
	return fd;
}

int jobfile_open(const char *root, int pid, const char *path)
{
	if (pid <= 0 || !path || !*path)
		return -EINVAL;
	struct as_job j;
	int e = become(root, pid, &j);
	if (e)
		return e;
	/* the walk and the open under the job's identity: its permissions on
	 * every directory on the way and on the file */
	int pfd = job_path(root, pid, path);
	int fd = pfd < 0 ? pfd : beneath_reopen_regular(pfd);
	unbecome(&j);
	if (pfd >= 0)
		close(pfd);
	return fd;
}

int jobfile_open_dev(const char *root, int pid, const char *path, int flags, dev_t want)
{
	if (pid <= 0 || !path || !*path)
		return -EINVAL;
	struct as_job j;
	int e = become(root, pid, &j);
	if (e)
		return e;
	int pfd = job_path(root, pid, path), fd = pfd;
	struct stat st;
	if (pfd >= 0 && fstat(pfd, &st))
		fd = -errno;
	else if (pfd >= 0 && live(root) && (!S_ISCHR(st.st_mode) || !want || st.st_rdev != want))
		fd = -ENXIO;    /* not the device the kernel lists under that name */
	else if (pfd >= 0 && !live(root) && !S_ISREG(st.st_mode))
		fd = -EINVAL;   /* a recorded tree's stand-ins are plain files */
	else if (pfd >= 0) {
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		fd = open(self, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	unbecome(&j);
	if (pfd >= 0)
		close(pfd);
	return fd;
}

int jobfile_read(const char *root, int pid, const char *path, size_t max, char **buf,
		 size_t *len)
{
	*buf = NULL;
	int fd = jobfile_open(root, pid, path);
	if (fd < 0)
		return fd;
	struct stat st;
	int rc = fstat(fd, &st) ? -errno : (size_t)st.st_size > max ? -EFBIG
								     : readcap_fd(fd, max, buf, len);
	close(fd);
	return rc;
}

const char *jobfile_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case EACCES:
	case EPERM: return "the process cannot read it";
	case EINVAL: return "not a regular file";
	case EFBIG: return "too large for a settings file";
	case ENOENT: return "no such file in the process's root";
	case ELOOP: return "too many symbolic links, or a /proc magic link";
	case EXDEV: return "the process's working directory is outside its root";
	case ESRCH: return "the process has exited";
	case ENXIO: return "not the device the kernel lists under that name";
	}
	return strerror(err < 0 ? -err : err);
}
