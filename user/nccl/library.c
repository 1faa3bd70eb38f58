// SPDX-License-Identifier: GPL-2.0-only
/* library.c - which libnccl a process has mapped (nccl.h): found in its maps,
 * opened as the process would, and scanned for its version (version.c). */
#include "nccl/nccl.h"
#include "core/procfs.h"
#include "proc/jobfile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ======================================================================
 * The mapped library.
 * ====================================================================== */

enum lib_role { LIB_NONE, LIB_NCCL, LIB_NCCL_LIKE, LIB_PLUGIN };

static enum lib_role lib_role(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (!strncmp(b, "libnccl.so", 10))
		return LIB_NCCL;
	/* libnccl-net*.so (network plugins such as aws-ofi-nccl) and the tuner,
	 * profiler and env plugins are not NCCL itself. */
	if (strstr(b, "nccl-net"))
		return LIB_PLUGIN;
	if (!strncmp(b, "libnccl-", 8))
		return LIB_NONE;
	/* A library whose name mentions nccl: a rebuilt or stand-in NCCL. */
	if (!strncmp(b, "lib", 3) && strcasestr(b, "nccl"))
		return LIB_NCCL_LIKE;
	return LIB_NONE;
}

int nccl_lib_detect(const char *root, int pid, struct nccl_lib *out)
{
	memset(out, 0, sizeof(*out));
	int mfd = procfs_open(root, pid, "maps");
	FILE *f = mfd >= 0 ? fdopen(mfd, "r") : NULL;
	if (!f) {
		if (mfd >= 0)
			close(mfd);
		return mfd < 0 ? mfd : -ENOMEM;
	}
	char line[PATH_MAX + 128];
	unsigned long best_start = 0, best_end = 0;
	enum lib_role best = LIB_NONE;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		int pos = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &start, &end, &pos) < 2 || !pos)
			continue;
		char *p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		char *del = strstr(p, " (deleted)");
		if (del)
			*del = '\0';
		if (*p != '/')
			continue;	/* [heap], anonymous */
		enum lib_role r = lib_role(p);
		if (r == LIB_PLUGIN && !out->net_plugin[0])
			snprintf(out->net_plugin, sizeof(out->net_plugin), "%s", p);
		/* a real libnccl.so beats a name that merely contains "nccl" */
		if ((r == LIB_NCCL && best != LIB_NCCL) || (r == LIB_NCCL_LIKE && best == LIB_NONE)) {
			best = r;
			best_start = start;
			best_end = end;
			snprintf(out->path, sizeof(out->path), "%s", p);
		}
	}
	fclose(f);
	if (best == LIB_NONE)
		return 0;
	out->found = true;

	/* The path is in the process's mount namespace: open it through its
	 * root as the process would (proc/jobfile.h), then through map_files
	 * (the mapped file itself, even if the path was replaced since). */
	int fd = jobfile_open(root, pid, out->path);
	if (fd >= 0) {
		int rc = nccl_version_scan_fd(fd, out);
		close(fd);
		if (!rc)
			return 0;
	}
	char rel[64];
	snprintf(rel, sizeof(rel), "map_files/%lx-%lx", best_start, best_end);
	if ((fd = procfs_open_mapped(root, pid, rel)) >= 0) {
		nccl_version_scan_fd(fd, out);
		close(fd);
	}
	return 0;
}
