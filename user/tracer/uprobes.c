// SPDX-License-Identifier: GPL-2.0-only
/* uprobes.c - attach libibverbs.bpf.c to every libibverbs in sight.
 *
 * A uprobe belongs to a file (inode), not to a process: attaching once to
 * the host's libibverbs covers every process, present and future, that maps
 * that file.  Containers and conda environments bring their own copies, so
 * the maps of watched processes are scanned for other inodes, reached
 * through /proc/PID/root (the container's own filesystem).  A process is
 * rescanned every SCAN_PERIOD_S for SCAN_WINDOW_S after mrtrace first sees
 * it, because NCCL loads libibverbs with dlopen at its first communicator,
 * not at exec; after that only every FULL_SCAN_PERIOD_S.  When each live
 * process was first seen is seen.c's table, which forgets exited ones.
 */
#include "tracer/uprobes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "core/escape.h"
#include "core/privs.h"
#include "proc/jobfile.h"
#include "tracer/log.h"
#include "tracer/site.h"
#include "tracer/detach.h"
#include "tracer/elfsym.h"
#include "tracer/umulti.h"
#include "libibverbs.skel.h"

#define SCAN_PERIOD_S 2.0
#define SCAN_WINDOW_S 600.0
#define FULL_SCAN_PERIOD_S 30.0 /* older processes too, less often */
#define SEEN_SLOTS 16384 /* first-seen times of up to 8,192 live processes */

static const char *const default_libs[] = {
	"/usr/lib/x86_64-linux-gnu/libibverbs.so.1",
	"/usr/lib/aarch64-linux-gnu/libibverbs.so.1",
	"/usr/lib64/libibverbs.so.1",
	"/usr/lib/libibverbs.so.1",
};

/* entry points: symbol, program, return program */
struct upoint {
	const char *sym;
	bool ret_only;
	bool kernel_gives; /* what the kernel trail gives: left out with kernel_calls */
};

static const struct upoint points[] = {
	{ "ibv_reg_mr", false, true },	{ "ibv_reg_mr_iova", false, true },
	{ "ibv_reg_mr_iova2", false, true },
	/* a provider without dma-buf support refuses it inside libibverbs */
	{ "ibv_reg_dmabuf_mr", false, false },
	{ "ibv_cmd_reg_mr", true, true },	{ "ibv_cmd_reg_dmabuf_mr", true, false },
	/* once per process: a device that could not be listed or opened never
	 * reaches the kernel's uverbs code */
	{ "ibv_get_device_list", false }, { "ibv_open_device", false },
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- attaching ------------------------------------------------------------- */

static struct bpf_program *entry_prog(struct libibverbs_bpf *s, const char *sym)
{
	if (!s)
		return NULL;
	if (!strcmp(sym, "ibv_reg_mr"))
		return s->progs.up_reg_mr;
	if (!strcmp(sym, "ibv_reg_mr_iova"))
		return s->progs.up_reg_mr_iova;
	if (!strcmp(sym, "ibv_reg_mr_iova2"))
		return s->progs.up_reg_mr_iova2;
	if (!strcmp(sym, "ibv_reg_dmabuf_mr"))
		return s->progs.up_reg_dmabuf_mr;
	if (!strcmp(sym, "ibv_get_device_list"))
		return s->progs.up_get_device_list;
	if (!strcmp(sym, "ibv_open_device"))
		return s->progs.up_open_device;
	return NULL;
}

static struct bpf_program *return_prog(struct libibverbs_bpf *s, const char *sym)
{
	if (!s)
		return NULL;
	if (!strcmp(sym, "ibv_get_device_list"))
		return s->progs.uret_get_device_list;
	if (!strcmp(sym, "ibv_open_device"))
		return s->progs.uret_open_device;
	return s->progs.uret_reg;
}

/* A free place in links (or mfds): one a library gave up, else the next. */
static int free_slot(struct tracer_uprobes *u)
{
	int n = u->multi ? u->nmfds : u->nlinks;
	for (int i = 0; i < n; i++)
		if (u->multi ? u->mfds[i] < 0 : !u->links[i])
			return i;
	return n < UPROBE_LINKS_MAX ? n : -1;
}

static int attach_one(struct tracer_uprobes *u, struct tracer_uprobe_lib *lib,
		      struct bpf_program *p, const char *path, uint64_t off, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = ret);
	struct bpf_link *l;
	int at = free_slot(u);

	if (!p || at < 0 || lib->nat >= UPROBE_LIB_LINKS)
		return -1;
	if (u->multi) {
		int fd = umulti_attach(bpf_program__fd(p), path, off, ret);
		if (fd < 0)
			return -1;
		u->mfds[at] = fd;
		if (at == u->nmfds)
			u->nmfds++;
		lib->at[lib->nat++] = at;
		return 0;
	}
	/* a failure shows in the site's note ("no entry point could be attached") */
	tracer_log_expect(true);
	l = bpf_program__attach_uprobe_opts(p, -1, path, off, &o);
	int e = errno;
	tracer_log_expect(false);
	errno = e;
	if (!l)
		return -1;
	u->links[at] = l;
	if (at == u->nlinks)
		u->nlinks++;
	lib->at[lib->nat++] = at;
	return 0;
}

/* A library's uprobes detached, its slot emptied. */
static void give_up(struct tracer_uprobes *u, struct tracer_uprobe_lib *lib)
{
	struct bpf_link *links[UPROBE_LIB_LINKS];
	int fds[UPROBE_LIB_LINKS], n = 0;
	for (int i = 0; i < lib->nat; i++) {
		int at = lib->at[i];
		if (u->multi) {
			fds[n++] = u->mfds[at];
			u->mfds[at] = -1;
		} else {
			links[n++] = u->links[at];
			u->links[at] = NULL;
		}
	}
	tracer_detach(links, u->multi ? 0 : n, fds, u->multi ? n : 0);
	memset(lib, 0, sizeof(*lib));
}

/* The slot for a new library: a free one, else the one no process has
 * mapped the longest if that is over UPROBE_STALE_S (given up), else none
 * (counted in libs_full). */
static struct tracer_uprobe_lib *lib_slot(struct tracer_uprobes *u, double now)
{
	if (u->nlibs < UPROBE_LIBS_MAX)
		return &u->libs[u->nlibs++];
	struct tracer_uprobe_lib *stale = NULL;
	for (int i = 0; i < u->nlibs; i++) {
		struct tracer_uprobe_lib *l = &u->libs[i];
		if (!l->host && now - l->last_seen > UPROBE_STALE_S &&
		    (!stale || l->last_seen < stale->last_seen))
			stale = l;
	}
	if (!stale) {
		u->libs_full++;
		return NULL;
	}
	give_up(u, stale);
	return stale;
}

/* An ELF file for the machine mrtrace runs on: the arm64 libibverbs that a
 * multiarch host also has installed is never executed here. */
static bool elf_native(int fd)
{
	GElf_Ehdr eh;
	bool native = false;

	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && gelf_getehdr(e, &eh)) {
#if defined(__x86_64__)
		native = eh.e_machine == EM_X86_64;
#elif defined(__aarch64__)
		native = eh.e_machine == EM_AARCH64;
#else
		native = true;
#endif
	}
	elf_end(e);
	return native;
}

/* Attach every entry point found in the library open at fd (shown as
 * `shown`); returns 1 when something attached.  The uprobes are given
 * /proc/self/fd/N, so the kernel attaches to exactly the file that was
 * checked, not to whatever a path names by then. */
int tracer_uprobes_attach_fd(struct tracer_uprobes *u, int fd, const char *shown, double now)
{
	struct tracer_uprobe_lib *lib;
	struct stat st;
	char path[64];
	int n = 0;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	for (int i = 0; i < u->nlibs; i++)
		if (u->libs[i].dev == st.st_dev && u->libs[i].ino == st.st_ino) {
			u->libs[i].last_seen = now; /* still mapped: kept */
			return 0;
		}
	if (!elf_native(fd) || !(lib = lib_slot(u, now)))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		if (u->kernel_calls && points[i].kernel_gives)
			continue;
		uint64_t off = tracer_elf_symbol_offset_fd(fd, points[i].sym);
		if (!off)
			continue;
		if (points[i].ret_only) {
			if (!attach_one(u, lib, u->skel ? u->skel->progs.uret_cmd : NULL, path, off,
					true))
				n++;
			continue;
		}
		if (!attach_one(u, lib, entry_prog(u->skel, points[i].sym), path, off, false) &&
		    !attach_one(u, lib, return_prog(u->skel, points[i].sym), path, off, true))
			n++;
	}
	/* remember the inode even when nothing attached: don't retry every scan */
	lib->dev = st.st_dev;
	lib->ino = st.st_ino;
	lib->nfuncs = n;
	lib->last_seen = now;
	snprintf(lib->path, sizeof(lib->path), "%s", shown);
	if (!n) {
		u->err = errno;
		snprintf(u->error, sizeof(u->error), "%.120s: no libibverbs entry point could be attached "
			 "as %s (%s)", esc(shown), u->multi ? UPROBE_KIND_MULTI : UPROBE_KIND_PERF,
			 strerror(u->err));
	}
	return n ? 1 : 0;
}

/* The host's own copies: the distribution's paths (libibverbs.so.1 is a
 * symlink to the versioned file), opened only if they end at a regular
 * file. */
static int attach_path(struct tracer_uprobes *u, const char *path)
{
	int fd = tracer_elf_open(path, true, 0);
	if (fd < 0)
		return 0;
	int before = u->nlibs, n = tracer_uprobes_attach_fd(u, fd, path, now_s());
	if (u->nlibs > before)
		u->libs[before].host = true;
	close(fd);
	return n;
}

/* libibverbs files in /proc/PID/maps, opened as the process itself would
 * open them (proc/jobfile.h: through its root, with its credentials, a
 * regular file only) - a container's symlink cannot point root's open at
 * a file of the host. */
static int scan_pid(struct tracer_uprobes *u, int pid)
{
	char p[64], line[1024];
	int added = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	f = fopen(p, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path || !strstr(path, "/libibverbs.so"))
			continue;
		path[strcspn(path, "\n")] = 0;
		int fd = jobfile_open("/", pid, path);
		if (fd < 0)
			continue;
		char shown[600];
		snprintf(shown, sizeof(shown), "/proc/%d/root%s", pid, path);
		added += tracer_uprobes_attach_fd(u, fd, shown, now_s());
		close(fd);
	}
	fclose(f);
	return added;
}

int tracer_uprobes_scan(struct tracer_uprobes *u)
{
	double now = now_s();
	int added = 0;

	if (!u->skel || now - u->last_scan < SCAN_PERIOD_S)
		return 0;
	u->last_scan = now;
	if (u->pid)
		return scan_pid(u, u->pid);
	bool full = now - u->last_full_scan >= FULL_SCAN_PERIOD_S;
	if (full)
		u->last_full_scan = now;
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	struct dirent *de;
	/* every pid of this pass is carried into the table, full pass or not:
	 * the ones that exited since the last are forgotten (seen.h) */
	seen_pass(&u->seen);
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		double first = seen_first(&u->seen, pid, now);
		if (!full && now - first > SCAN_WINDOW_S)
			continue;
		added += scan_pid(u, pid);
	}
	closedir(d);
	return added;
}

void tracer_uprobes_start(struct tracer_uprobes *u, struct libibverbs_bpf *skel, int pid)
{
	/* a table that cannot be had leaves every process new: scanned often */
	seen_init(&u->seen, SEEN_SLOTS);
	u->skel = skel;
	u->pid = pid;
	for (size_t i = 0; i < sizeof(default_libs) / sizeof(default_libs[0]); i++)
		attach_path(u, default_libs[i]);
	u->last_scan = -1e9;
	u->last_full_scan = now_s();
	tracer_uprobes_scan(u);
	if (!u->nlibs && !u->error[0])
		snprintf(u->error, sizeof(u->error),
			 "no libibverbs found yet (none installed here, none mapped by a watched "
			 "process); rescanning every %.0f s",
			 SCAN_PERIOD_S);
}

void tracer_uprobes_describe(const struct tracer_uprobes *u, struct tracer_site *s)
{
	size_t off = 0, len = sizeof(s->note);
	int funcs = 0;

	for (int i = 0; i < u->nlibs; i++)
		funcs += u->libs[i].nfuncs;
	s->mech = funcs ? MECH_UPROBE : MECH_NONE;
	s->off = funcs ? SITE_ARMED : SITE_OFF_NO_LIBIBVERBS;
	s->err = funcs ? 0 : u->err;
	s->uprobe_multi = u->multi;
	s->note[0] = 0;
	for (int i = 0; i < u->nlibs && off < len; i++)
		if (u->libs[i].nfuncs)
			off += snprintf(s->note + off, len - off, "%s%s (%d)", off ? ", " : "",
					esc(u->libs[i].path), u->libs[i].nfuncs);
	if (!funcs)
		snprintf(s->note, len, "%s", u->error);
	else if (u->kernel_calls && off < len)
		snprintf(s->note + off, len - off,
			 "; ibv_reg_mr, ibv_reg_mr_iova, ibv_reg_mr_iova2, ibv_cmd_reg_mr not attached: "
			 "reg_mr's kernel trail is armed and takes the caller's stack and API at a "
			 "failure (no uprobe on a successful registration)%s",
			 u->kernel_raw ? "; the stack's raw top, its return addresses found in user "
					 "space (a kernel before 5.17)" : "");
}

void tracer_uprobes_close(struct tracer_uprobes *u)
{
	tracer_detach(u->links, u->nlinks, u->mfds, u->nmfds);
	libibverbs_bpf__destroy(u->skel);
	seen_free(&u->seen);
	memset(u, 0, sizeof(*u));
}
