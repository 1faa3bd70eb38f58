// SPDX-License-Identifier: GPL-2.0-only
/* correlate_live.c - the correlator's clock and /proc readers on the live
 * system (the unit tests inject their own). */
#include "watch/correlate.h"
#include "proc/gates.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/procfs.h"
#include "core/redact.h"
#include "proc/execmaps.h"
#include "proc/jobfile.h"
#include "tracer/elfsym.h"
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
	(void)arg;
	return proc_start_ticks("/", pid);
}

static const char *root_of(void *arg)
{
	const struct corr_live *l = arg;
	return l && l->root && *l->root ? l->root : "/";
}

/* With --redact the command line is reduced here, as it is read: every
 * sink (JSON, journald, text) and the stored context see only what is
 * left.  Nothing in the engine reads the command line (the launchers were
 * classified from /proc by proc_context_read). */
static int live_read_context(void *arg, int pid, struct proc_context *ctx)
{
	const struct corr_live *l = arg;
	int rc = proc_context_read(root_of(arg), pid, ctx);

	if (!rc && l && l->redact) {
		redact_cmdline(ctx->cmdline, sizeof(ctx->cmdline));
		/* process.exe is argv[0]'s file: masked as argv[0] is */
		redact_text(ctx->exe, sizeof(ctx->exe));
	}
	return rc;
}

static void live_read_gates(void *arg, int pid, const struct mrt_event *ev, struct gate_facts *g)
{
	gates_collect(root_of(arg), pid, ev, g);
}

/* The NCCL_* values come from the environment and nccl.conf, which a job
 * fills as it likes: with --redact a credential-like value is masked, and
 * so is any value of a variable whose name says secret, in the settings and
 * in the lint messages that quote them.  The engine judges what is written. */
static int live_read_nccl(void *arg, const struct proc_context *ctx, struct nccl_info *nccl)
{
	const struct corr_live *l = arg;
	int rc = nccl_info_read(root_of(arg), ctx, nccl);

	if (!l || !l->redact)
		return rc;
	for (int i = 0; i < nccl->settings.n; i++) {
		struct nccl_setting *v = &nccl->settings.v[i];
		if (redact_secret_name(v->name, strlen(v->name)))
			snprintf(v->value, sizeof(v->value), "%s", REDACT_MASK);
		else
			redact_text(v->value, sizeof(v->value));
	}
	for (int i = 0; i < nccl->lint.n; i++)
		redact_text(nccl->lint.f[i].message, sizeof(nccl->lint.f[i].message));
	return rc;
}

/* With --redact the mapped files' paths are masked as argv[0] is: a
 * record's user_call.caller is one of them.  The maps are taken (freed);
 * NULL when out of memory. */
static char *redact_maps(char *maps)
{
	char *out = NULL, raw[EXECMAPS_LINE_MAX + 1], line[2 * EXECMAPS_LINE_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	for (char *p = maps, *eol; f && *p; p = eol) {
		eol = p + strcspn(p, "\n");
		/* "lo-hi perms offset dev inode path": the path is the sixth field */
		snprintf(raw, sizeof(raw), "%.*s", (int)(eol - p), p);
		int at = 0;
		sscanf(raw, "%*s %*s %*s %*s %*s %n", &at);
		if (at <= 0)
			at = (int)strlen(raw);
		snprintf(line, sizeof(line), "%s", raw + at);
		redact_text(line, sizeof(line));
		fprintf(f, "%.*s%s\n", at, raw, line);
		if (*eol)
			eol++;
	}
	free(maps);
	if (f && fclose(f)) {
		free(out);
		out = NULL;
	}
	return out;
}

/* Only the executable mappings: return addresses lie in code, and the
 * stack attribution scans the text once per frame of every record (a
 * PyTorch process maps thousands of data regions).  Bounded (a process
 * shapes its maps as it likes: proc/execmaps.h); a cut is counted. */
static char *live_read_maps(void *arg, int pid)
{
	struct corr_live *l = arg;
	char path[64];
	bool cut;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	char *maps = execmaps_read(path, &cut);
	if (cut && l)
		l->maps_cut++;
	return maps && l && l->redact ? redact_maps(maps) : maps;
}

/* The library exactly as the process maps it, opened safely: the maps
 * line is the process's to write (a FIFO, a symlink to a device, a file
 * swapped since, " (deleted)").  First the mapping itself,
 * /proc/PID/map_files/LO-HI (the kernel's link to the mapped file, even
 * deleted or replaced since; needs CAP_SYS_ADMIN), else the path through
 * the process's root as the process would open it (proc/jobfile.h).  Both
 * only if a regular file with the inode the maps line lists: root never
 * waits on a FIFO, opens a device, or parses another file. */
static int open_mapping(const char *root, int pid, const struct corr_mapping *m)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/proc/%d/map_files/%llx-%llx", strcmp(root, "/") ? root : "", pid,
		 m->lo, m->hi);
	int fd = tracer_elf_open(p, true, m->ino);
	if (fd >= 0 || fd == -EINVAL || fd == -ESTALE)
		return fd;
	size_t n = strlen(m->path);
	static const char deleted[] = " (deleted)";
	if (n >= sizeof(deleted) - 1 && !strcmp(m->path + n - (sizeof(deleted) - 1), deleted))
		return -ENOENT; /* whatever bears that name now is another file */
	if ((fd = jobfile_open(root, pid, m->path)) < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) || (m->ino && st.st_ino != m->ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* Names are cached (struct corr_live). */
static const char *live_symbol_at(void *arg, int pid, const struct corr_mapping *m, uint64_t off,
				  char *buf, size_t len)
{
	struct corr_live *l = arg;

	for (unsigned i = 0; i < 32; i++)
		if (l->syms[i].pid == pid && l->syms[i].off == off && l->syms[i].ino == m->ino &&
		    !strcmp(l->syms[i].path, m->path)) {
			snprintf(buf, len, "%s", l->syms[i].name);
			return l->syms[i].found ? buf : NULL;
		}
	int fd = open_mapping(root_of(arg), pid, m);
	/* a file that does not open (the process exited, or it is no regular
	 * file) is no answer to keep: the caller names the frame by its inode
	 * instead */
	if (fd < 0)
		return NULL;
	const char *name = tracer_elf_symbol_at_fd(fd, off, buf, len);
	close(fd);
	unsigned i = l->next_sym++ % 32;
	l->syms[i].pid = pid;
	l->syms[i].off = off;
	l->syms[i].ino = m->ino;
	snprintf(l->syms[i].path, sizeof(l->syms[i].path), "%s", m->path);
	snprintf(l->syms[i].name, sizeof(l->syms[i].name), "%s", name ? name : "");
	l->syms[i].found = name != NULL;
	return name;
}

/* The tracer's libibverbs files (tracer_libibverbs_path): a host path (the
 * distribution's libibverbs.so.1 is a symlink), or /proc/PID/root/<path
 * from a process's maps> - opened only if still a regular file with the
 * inode the kernel found, on the device the tracer saw it on: the path is
 * followed (a library name is a symlink, /proc/PID/root a magic link), so
 * a link the process swapped in may lead anywhere, to a host file that
 * only shares the inode number among them; that one is not parsed. */
static const char *live_symbol_of_inode(void *arg, unsigned long long ino, uint64_t off, char *buf,
					size_t len)
{
	const struct corr_live *l = arg;
	uint64_t dev = 0;
	const char *path = l && l->path_of ? l->path_of(l->path_arg, ino, &dev) : NULL;
	int fd = path ? tracer_elf_open(path, true, ino) : -ENOENT;
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (uint64_t)st.st_dev != dev) {
		close(fd);
		return NULL;
	}
	const char *name = tracer_elf_symbol_at_fd(fd, off, buf, len);
	close(fd);
	return name;
}

void corr_live_ops(struct corr_ops *ops, struct corr_live *live)
{
	ops->arg = live;
	ops->now = live_now;
	ops->start_time = live_start_time;
	ops->read_context = live_read_context;
	ops->read_nccl = live_read_nccl;
	ops->read_gates = live_read_gates;
	ops->read_maps = live_read_maps;
	ops->symbol_at = live_symbol_at;
	ops->symbol_of_inode = live_symbol_of_inode;
}
