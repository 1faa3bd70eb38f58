// SPDX-License-Identifier: GPL-2.0-only
/* correlate_live.c - the correlator's clock and /proc readers on the live
 * system (the unit tests inject their own). */
#include "watch/correlate.h"
#include "proc/gates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/procfs.h"
#include "core/slurp.h"
#include "tracer/tracer.h"

static double live_now(void *arg)
{
	(void)arg;
	return clock_mono_s();
}

/* /proc/PID/stat: "pid (comm) state ppid ... starttime ..."; comm may hold
 * spaces and parentheses, so fields are counted from the last ')': the
 * state is field 3, starttime field 22. */
static unsigned long long live_start_time(void *arg, int pid)
{
	char path[64], buf[1024];
	unsigned long long t = 0;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (pid <= 0 || procfs_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		t = strtoull(p + 1, NULL, 10);
	return t;
}

/* "/" or the host's root seen from a container (--host-root) */
static const char *live_root = "/";

void corr_live_set_root(const char *root)
{
	live_root = root && *root ? root : "/";
}

static int live_read_context(void *arg, int pid, struct proc_context *ctx)
{
	(void)arg;
	return proc_context_read(live_root, pid, ctx);
}

static void live_read_gates(void *arg, int pid, const struct mrt_event *ev, struct gate_facts *g)
{
	(void)arg;
	gates_collect(live_root, pid, ev, g);
}

static int live_read_nccl(void *arg, const struct proc_context *ctx, struct nccl_info *nccl)
{
	(void)arg;
	return nccl_info_read(live_root, ctx, nccl);
}

/* Only the executable mappings: return addresses lie in code, and the
 * stack attribution scans the text once per frame of every record (a
 * PyTorch process maps thousands of data regions). */
static char *live_read_maps(void *arg, int pid)
{
	char path[64], *maps, *w, *line, *next;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(maps = slurp_file(path, NULL)))
		return NULL;
	for (w = line = maps; *line; line = next) {
		/* "lo-hi perms offset dev inode path": perms is "r-xp" */
		char *perms = strchr(line, ' ');
		char *eol = strchr(line, '\n');
		next = eol ? eol + 1 : line + strlen(line);
		if (perms && perms < next && perms[1] && perms[2] && perms[3] == 'x') {
			memmove(w, line, (size_t)(next - line));
			w += next - line;
		}
	}
	*w = '\0';
	return maps;
}

/* The library as the process maps it (through its root: a container's own
 * libibverbs).  Names are cached: a process in trouble fails again and again
 * from the same few return addresses. */
static const char *live_symbol_at(void *arg, int pid, const char *path, uint64_t off, char *buf,
				  size_t len)
{
	static struct {
		int pid;
		uint64_t off;
		char path[256], name[128];
		bool found;
	} cache[32];
	static unsigned next;
	char full[600];

	(void)arg;
	for (unsigned i = 0; i < 32; i++)
		if (cache[i].pid == pid && cache[i].off == off && !strcmp(cache[i].path, path)) {
			snprintf(buf, len, "%s", cache[i].name);
			return cache[i].found ? buf : NULL;
		}
	snprintf(full, sizeof(full), "%s/proc/%d/root%s", strcmp(live_root, "/") ? live_root : "", pid,
		 path);
	const char *name = tracer_elf_symbol_at(full, off, buf, len);
	unsigned i = next++ % 32;
	cache[i].pid = pid;
	cache[i].off = off;
	snprintf(cache[i].path, sizeof(cache[i].path), "%s", path);
	snprintf(cache[i].name, sizeof(cache[i].name), "%s", name ? name : "");
	cache[i].found = name != NULL;
	return name;
}

static const char *(*inode_path)(void *arg, unsigned long long ino);
static void *inode_arg;

void corr_live_set_inodes(const char *(*path_of)(void *arg, unsigned long long ino), void *arg)
{
	inode_path = path_of;
	inode_arg = arg;
}

static const char *live_symbol_of_inode(void *arg, unsigned long long ino, uint64_t off, char *buf,
					size_t len)
{
	(void)arg;
	const char *path = inode_path ? inode_path(inode_arg, ino) : NULL;
	return path ? tracer_elf_symbol_at(path, off, buf, len) : NULL;
}

void corr_live_ops(struct corr_ops *ops)
{
	ops->now = live_now;
	ops->start_time = live_start_time;
	ops->read_context = live_read_context;
	ops->read_nccl = live_read_nccl;
	ops->read_gates = live_read_gates;
	ops->read_maps = live_read_maps;
	ops->symbol_at = live_symbol_at;
	ops->symbol_of_inode = live_symbol_of_inode;
}
