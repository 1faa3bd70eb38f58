// SPDX-License-Identifier: GPL-2.0-only
/* vma_file.c - the file mapped at an address and its mount (vma_file.h). */
#include "proc/vma_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

bool vma_file_maps_line(const char *line, uint64_t addr, struct vma_file *out)
{
	unsigned long long lo, hi, ino;
	unsigned int ma, mi;
	int at = 0;

	if (sscanf(line, "%llx-%llx %*s %*x %x:%x %llu %n", &lo, &hi, &ma, &mi, &ino, &at) != 5 ||
	    addr < lo || addr >= hi)
		return false;
	/* the kernel named the file: the line must be that file */
	if (out->from_kernel && (ino != out->ino || ma != out->major || mi != out->minor))
		return true; /* the address, but another file now: no path */
	out->read = true;
	out->maps_error = 0;
	out->start = lo;
	out->end = hi;
	out->major = ma;
	out->minor = mi;
	out->ino = ino;
	const char *p = at ? line + at : "";
	snprintf(out->path, sizeof(out->path), "%.*s", (int)strcspn(p, "\n"), p);
	return true;
}

bool vma_file_options_dax(const char *options)
{
	for (const char *o = options; o && *o;) {
		size_t n = strcspn(o, ",");
		bool never = n == 9 && !strncmp(o, "dax=never", 9);
		if ((n == 3 && !strncmp(o, "dax", 3)) || (n > 4 && !strncmp(o, "dax=", 4) && !never))
			return true;
		o += n + (o[n] == ',');
	}
	return false;
}

bool vma_file_mount_line(const char *line, struct vma_file *out)
{
	unsigned int ma, mi;
	char point[256], fstype[32] = "", source[128] = "", options[256] = "";
	const char *dash = strstr(line, " - ");

	if (!dash || sscanf(line, "%*u %*u %u:%u %*s %255s", &ma, &mi, point) != 3 ||
	    ma != out->major || mi != out->minor)
		return false;
	sscanf(dash + 3, "%31s %127s %255s", fstype, source, options);
	out->mount_found = true;
	snprintf(out->mount_point, sizeof(out->mount_point), "%s", point);
	snprintf(out->fstype, sizeof(out->fstype), "%s", fstype);
	snprintf(out->source, sizeof(out->source), "%s", source);
	snprintf(out->options, sizeof(out->options), "%s", options);
	out->dax = vma_file_options_dax(options);
	return true;
}

/* Each whole line of <root>/proc/<pid>/<rel> to fn until it says stop; a
 * line longer than VMA_FILE_LINE_MAX is skipped.  0, or -errno of the open. */
static int each_line(const char *root, int pid, const char *rel,
		     bool (*fn)(const char *line, void *arg), void *arg)
{
	int fd = procfs_open(root, pid, rel);
	if (fd < 0)
		return fd;
	FILE *f = fdopen(fd, "re");
	if (!f) {
		int e = -errno;
		close(fd);
		return e;
	}
	char line[VMA_FILE_LINE_MAX];
	for (long n = 0; n < VMA_FILE_MAX_LINES && fgets(line, sizeof(line), f); n++) {
		size_t len = strlen(line);
		if (len && line[len - 1] != '\n' && !feof(f)) {
			int c;
			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (fn(line, arg))
			break;
	}
	fclose(f);
	return 0;
}

struct maps_arg {
	uint64_t addr;
	struct vma_file *out;
};

static bool maps_fn(const char *line, void *arg)
{
	struct maps_arg *a = arg;
	return vma_file_maps_line(line, a->addr, a->out);
}

/* The first mount of the device, or better the first whose root is the
 * file system's own ("/", not a bind mount of a directory in it). */
static bool mount_fn(const char *line, void *arg)
{
	struct vma_file *out = arg, m = *out;
	char root[8] = "";

	m.mount_found = false;
	if (!vma_file_mount_line(line, &m))
		return false;
	sscanf(line, "%*u %*u %*s %7s", root);
	if (!out->mount_found || !strcmp(root, "/"))
		*out = m;
	return !strcmp(root, "/");
}

void vma_file_read(const char *root, int pid, uint64_t addr, unsigned long long kdev,
		   unsigned long long kino, const char *kname, struct vma_file *out)
{
	struct maps_arg a = { addr, out };
	int e;

	memset(out, 0, sizeof(*out));
	if (kdev || kino) {
		out->read = out->from_kernel = true;
		out->major = (unsigned int)(kdev >> 20);
		out->minor = (unsigned int)(kdev & 0xfffff);
		out->ino = kino;
		/* the record's array need not end in a NUL */
		snprintf(out->name, sizeof(out->name), "%.*s", (int)sizeof(out->name) - 1,
			 kname ? kname : "");
	}
	e = each_line(root, pid, "maps", maps_fn, &a);
	if (!out->path[0])
		out->maps_error = e < 0 ? -e : ENOENT;
	if (!out->read || !out->ino)
		return;
	if (each_line(root, pid, "mountinfo", mount_fn, out) < 0 || !out->mount_found) {
		each_line(root, 1, "mountinfo", mount_fn, out);
		out->host_table = out->mount_found;
	}
}
