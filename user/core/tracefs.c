// SPDX-License-Identifier: GPL-2.0-only
/* tracefs.c - find or mount the tracing directory (see tracefs.h). */
#include "core/tracefs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#define TRACEFS_MAGIC_NR 0x74726163   /* "trac", include/uapi/linux/magic.h */
#define DEBUGFS_MAGIC_NR 0x64626720   /* "dbg " */

static const char tracing[] = "/sys/kernel/tracing";
static const char debug[] = "/sys/kernel/debug";
static const char debug_tracing[] = "/sys/kernel/debug/tracing";

/* statfs follows the automount under debugfs. */
static bool fs_is(const char *path, long magic)
{
	struct statfs s;
	return !statfs(path, &s) && (long)s.f_type == magic;
}

static bool debug_tracing_usable(void)
{
	char events[64];
	snprintf(events, sizeof(events), "%s/events", debug_tracing);
	/* tracefs automounted there, or (before 4.1) debugfs's own directory */
	return fs_is(debug_tracing, TRACEFS_MAGIC_NR) ||
	       (fs_is(debug_tracing, DEBUGFS_MAGIC_NR) && !access(events, F_OK));
}

const char *tracefs_dir(char *err, size_t errlen)
{
	if (fs_is(tracing, TRACEFS_MAGIC_NR))
		return tracing;
	if (debug_tracing_usable())
		return debug_tracing;
	int e1 = 0, e2 = 0;
	if ((!mount("tracefs", tracing, "tracefs", 0, NULL) || errno == EBUSY) &&
	    fs_is(tracing, TRACEFS_MAGIC_NR))
		return tracing;
	e1 = errno ? errno : ENODEV;
	if (!fs_is(debug, DEBUGFS_MAGIC_NR) && mount("debugfs", debug, "debugfs", 0, NULL) &&
	    errno != EBUSY)
		e2 = errno;
	if (debug_tracing_usable())
		return debug_tracing;
	snprintf(err, errlen, "no tracefs: cannot mount tracefs on %s (%s) nor find it under "
		 "debugfs at %s (%s)", tracing, strerror(e1), debug_tracing,
		 e2 ? strerror(e2) : "no tracing directory there");
	return NULL;
}
