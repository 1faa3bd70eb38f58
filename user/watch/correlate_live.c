// SPDX-License-Identifier: GPL-2.0-only
/* correlate_live.c - the correlator's clock and /proc readers on the live
 * system (the unit tests inject their own). */
#include "watch/correlate.h"
#include "proc/gates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/procfs.h"
#include "core/redact.h"
#include "core/slurp.h"
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

	if (!rc && l && l->redact)
		redact_cmdline(ctx->cmdline, sizeof(ctx->cmdline));
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
 * libibverbs).  Names are cached (struct corr_live). */
static const char *live_symbol_at(void *arg, int pid, const char *path, uint64_t off, char *buf,
				  size_t len)
{
	struct corr_live *l = arg;
	const char *root = root_of(arg);
	char full[600];

	for (unsigned i = 0; i < 32; i++)
		if (l->syms[i].pid == pid && l->syms[i].off == off && !strcmp(l->syms[i].path, path)) {
			snprintf(buf, len, "%s", l->syms[i].name);
			return l->syms[i].found ? buf : NULL;
		}
	snprintf(full, sizeof(full), "%s/proc/%d/root%s", strcmp(root, "/") ? root : "", pid, path);
	const char *name = tracer_elf_symbol_at(full, off, buf, len);
	/* a file that no longer opens (the process exited) is no answer to
	 * keep: the caller names the frame by its inode instead */
	if (!name && access(full, R_OK))
		return NULL;
	unsigned i = l->next_sym++ % 32;
	l->syms[i].pid = pid;
	l->syms[i].off = off;
	snprintf(l->syms[i].path, sizeof(l->syms[i].path), "%s", path);
	snprintf(l->syms[i].name, sizeof(l->syms[i].name), "%s", name ? name : "");
	l->syms[i].found = name != NULL;
	return name;
}

static const char *live_symbol_of_inode(void *arg, unsigned long long ino, uint64_t off, char *buf,
					size_t len)
{
	const struct corr_live *l = arg;
	const char *path = l && l->path_of ? l->path_of(l->path_arg, ino) : NULL;
	return path ? tracer_elf_symbol_at(path, off, buf, len) : NULL;
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
