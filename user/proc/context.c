// SPDX-License-Identifier: GPL-2.0-only
/* context.c - read a process's identity, limits and namespaces from /proc
 * (see context.h), and put the whole context together.  Its cgroup (the
 * unit, job, pod or container it runs in) is read by cgroup.c, its
 * allow-listed environment by env.c, its ancestors by launcher.c. */
#include "proc/context.h"
#include "core/procfs.h"
#include "core/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------- */


/* Under a recorded root, inside it only (core/procfs.h). */
static long read_proc(const char *root, int pid, const char *rel, char *buf, size_t len)
{
	return procfs_read_at(root, pid, rel, buf, len);
}


/* ---- /proc/PID/status ------------------------------------------------- */

/* Finds "Key:" at the start of a line and returns what follows it. */
static const char *status_field(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return p + kl + 1;
	}
	return NULL;
}

/* "VmPin:	    1024 kB" -> bytes */
static int status_kb(const char *text, const char *key, uint64_t *out)
{
	const char *v = status_field(text, key);
	if (!v)
		return -1;
	char *end;
	unsigned long long kb = strtoull(v, &end, 10);
	if (end == v)
		return -1;
	*out = (uint64_t)kb * 1024;
	return 0;
}

static void read_status(const char *root, int pid, struct proc_context *out)
{
	char buf[8192];
	if (read_proc(root, pid, "status", buf, sizeof(buf)) <= 0)
		return;
	const char *v;
	if ((v = status_field(buf, "Name"))) {
		while (*v == ' ' || *v == '\t')
			v++;
		str_copy_n(out->comm, sizeof(out->comm), v, strcspn(v, "\n"));
		out->have |= CTX_HAVE_COMM;
	}
	if ((v = status_field(buf, "PPid"))) {
		out->ppid = atoi(v);
		out->have |= CTX_HAVE_PPID;
	}
	if ((v = status_field(buf, "Uid"))) {
		unsigned long r, e;
		if (sscanf(v, "%lu %lu", &r, &e) == 2) {
			out->uid = (uint32_t)r;
			out->euid = (uint32_t)e;
			out->have |= CTX_HAVE_UID;
		}
	}
	if ((v = status_field(buf, "NSpid"))) {
		/* host pid first, innermost namespace's pid last */
		const char *eol = strchr(v, '\n');
		size_t n = eol ? (size_t)(eol - v) : strlen(v);
		char line[128];
		str_copy_n(line, sizeof(line), v, n);
		char *save = NULL, *last = NULL;
		for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
			last = t;
		if (last) {
			out->ns_pid = atoi(last);
			out->have |= CTX_HAVE_NSPID;
		}
	}
	if (!status_kb(buf, "VmPin", &out->vm_pin))
		out->have |= CTX_HAVE_VMPIN;
	if (!status_kb(buf, "VmLck", &out->vm_lck))
		out->have |= CTX_HAVE_VMLCK;
	if ((v = status_field(buf, "CapEff"))) {
		char *end;
		unsigned long long c = strtoull(v, &end, 16);
		if (end != v) {
			out->cap_eff = c;
			out->cap_ipc_lock = (c >> CTX_CAP_IPC_LOCK) & 1;
			out->have |= CTX_HAVE_CAPS;
		}
	}
}

/* ---- /proc/PID/stat: state and flags ----------------------------------- */

#define PF_KTHREAD_FLAG 0x00200000u	/* include/linux/sched.h */

/* Field 22 (starttime) of a stat text: fields are counted from the last ')'
 * (the state is field 3).  0 when it is not there. */
static unsigned long long stat_start_ticks(const char *buf)
{
	const char *p = strrchr(buf, ')');

	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* "pid (comm) state ppid pgrp session tty tpgid flags ...": comm may hold
 * spaces and ')', so the fields start after the last ')'. */
static void read_stat(const char *root, int pid, struct proc_context *out)
{
	char buf[1024];
	if (read_proc(root, pid, "stat", buf, sizeof(buf)) <= 0)
		return;
	const char *close = strrchr(buf, ')');
	char state;
	int ppid, pgrp, session, tty, tpgid;
	unsigned flags;
	if (!close || sscanf(close + 1, " %c %d %d %d %d %d %u", &state, &ppid, &pgrp, &session, &tty,
			     &tpgid, &flags) != 7)
		return;
	out->state = state;
	out->kernel_thread = flags & PF_KTHREAD_FLAG;
	out->have |= CTX_HAVE_STATE;
	if ((out->start_ticks = stat_start_ticks(buf)))
		out->have |= CTX_HAVE_START;
}

unsigned long long proc_start_ticks(const char *root, int pid)
{
	char buf[1024];

	if (pid <= 0 || read_proc(root, pid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	return stat_start_ticks(buf);
}

/* The kernel's nsec_to_clock_t: whole ticks of USER_HZ, rounded down. */
unsigned long long proc_ns_to_ticks(uint64_t ns)
{
	long hz = sysconf(_SC_CLK_TCK);

	return ns / (uint64_t)(1000000000L / (hz > 0 && hz <= 1000000000L ? hz : 100));
}

/* ---- /proc/PID/limits -------------------------------------------------- */

static int limit_value(const char *s, uint64_t *out)
{
	if (!strncmp(s, "unlimited", 9)) {
		*out = CTX_UNLIMITED;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno)
		return -1;
	*out = v;
	return 0;
}

static void read_limits(const char *root, int pid, struct proc_context *out)
{
	char buf[4096];
	if (read_proc(root, pid, "limits", buf, sizeof(buf)) <= 0)
		return;
	const char *line = strstr(buf, "\nMax locked memory");
	if (!line)
		return;
	/* The columns are fixed-width text; the name has spaces, so skip it by
	 * length and read two whitespace-separated tokens. */
	const char *p = line + strlen("\nMax locked memory");
	char soft[32], hard[32];
	if (sscanf(p, "%31s %31s", soft, hard) != 2)
		return;
	if (!limit_value(soft, &out->memlock_soft))
		out->have |= CTX_HAVE_MEMLOCK;
	if (!limit_value(hard, &out->memlock_hard))
		out->have |= CTX_HAVE_MEMLOCK_HARD;
}

/* ---- cmdline, exe ------------------------------------------------------ */

static void read_cmdline(const char *root, int pid, struct proc_context *out)
{
	char buf[CTX_CMDLINE_MAX];
	long n = read_proc(root, pid, "cmdline", buf, sizeof(buf));
	if (n < 0)
		return;
	/* Arguments are NUL-separated; keep them readable on one line. */
	for (long i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = '\0';
	memcpy(out->cmdline, buf, (size_t)n + 1);
	if (n > 0)		/* kernel threads and zombies have an empty cmdline */
		out->have |= CTX_HAVE_CMDLINE;
}

static void read_exe(const char *root, int pid, struct proc_context *out)
{
	long n = procfs_readlink(root, pid, "exe", out->exe, sizeof(out->exe));
	if (n <= 0) {
		out->exe[0] = '\0';
		return;
	}
	out->have |= CTX_HAVE_EXE;
	struct stat st;
	if (!procfs_stat(root, pid, "exe", &st)) {
		out->exe_ino = st.st_ino;
		out->have |= CTX_HAVE_EXE_INO;
	}
}

/* ---- user namespace ---------------------------------------------------- */

static int read_link(const char *root, int pid, const char *rel, char *buf, size_t len)
{
	return procfs_readlink(root, pid, rel, buf, len) > 0 ? 0 : -1;
}

/* The initial namespace maps every id onto itself: "0 0 4294967295". */
static int uid_map_is_identity(const char *text)
{
	unsigned long inside, outside, count;
	int lines = 0, identity = 1;
	for (const char *p = text; *p;) {
		if (sscanf(p, "%lu %lu %lu", &inside, &outside, &count) == 3) {
			lines++;
			if (inside != 0 || outside != 0 || count != 4294967295UL)
				identity = 0;
		}
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	if (lines == 0)
		return -1;
	return identity && lines == 1;
}

/* uid_map lines are "inside outside count", outside as seen by the reader
 * (the host): the host uid maps back to inside + (uid - outside). */
static void map_uid_inside(const char *map, struct proc_context *out)
{
	if (!(out->have & CTX_HAVE_UID))
		return;
	for (const char *p = map; *p;) {
		unsigned long inside, outside, count;
		if (sscanf(p, "%lu %lu %lu", &inside, &outside, &count) == 3 && out->uid >= outside &&
		    out->uid - outside < count) {
			out->ns_uid = (uint32_t)(inside + (out->uid - outside));
			out->have |= CTX_HAVE_NS_UID;
			return;
		}
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void read_userns(const char *root, int pid, struct proc_context *out)
{
	char mine[64], init[64], map[1024];
	int have_links = !read_link(root, pid, "ns/user", mine, sizeof(mine)) &&
			 !read_link(root, 1, "ns/user", init, sizeof(init));
	int ident = -1;
	if (read_proc(root, pid, "uid_map", map, sizeof(map)) > 0)
		ident = uid_map_is_identity(map);
	if (ident >= 0) {
		out->uid_map_identity = ident;
		map_uid_inside(map, out);
	}
	if (have_links) {
		/* Same inode as pid 1 means the initial user namespace. */
		out->in_userns = strcmp(mine, init) != 0;
		out->have |= CTX_HAVE_USERNS;
	} else if (ident >= 0) {
		/* Without the links (pid 1 hidden from us), a non-identity map is
		 * the remaining evidence of a user namespace. */
		out->in_userns = !ident;
		out->have |= CTX_HAVE_USERNS;
	}
}

/* Container runtimes whose cgroup name does not say who they are: the
 * monitor process above the container tells (launcher walk ran already). */
static void refine_runtime(struct proc_context *out)
{
	if (out->runtime != CTX_RT_UNKNOWN)
		return;
	if (proc_context_launcher(out, CTX_L_CONTAINERD_SHIM))
		out->runtime = CTX_RT_CONTAINERD;
	else if (proc_context_launcher(out, CTX_L_CONMON))
		out->runtime = out->pod_uid[0] ? CTX_RT_CRIO : CTX_RT_PODMAN;
}

/* ---- the whole thing ---------------------------------------------------- */

void proc_context_init(struct proc_context *out, int pid)
{
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->slurm_job = -1;
}

struct proc_context *proc_context_alloc(int pid)
{
	struct proc_context *c = malloc(sizeof(*c));

	if (c)
		proc_context_init(c, pid);
	return c;
}

int proc_context_read(const char *root, int pid, struct proc_context *out)
{
	if (!out || pid <= 0)
		return -EINVAL;
	proc_context_init(out, pid);
	struct stat st;
	if (procfs_stat(root, pid, "", &st) || !S_ISDIR(st.st_mode))
		return -ESRCH;

	read_status(root, pid, out);
	read_stat(root, pid, out);
	read_limits(root, pid, out);
	read_cmdline(root, pid, out);
	read_exe(root, pid, out);
	read_userns(root, pid, out);
	proc_context_read_cgroup(root, pid, out);
	if (proc_env_read(root, pid, &out->env) == 0)
		out->have |= CTX_HAVE_ENV;
	int nl = launchers_read(root, out->pid, out->have & CTX_HAVE_PPID ? out->ppid : 0,
				out->launchers, CTX_MAX_LAUNCHERS, &out->launchers_truncated);
	if (nl >= 0) {
		out->n_launchers = nl;
		out->have |= CTX_HAVE_LAUNCHERS;
	}
	refine_runtime(out);
	return 0;
}

/* ---- exited processes: only what the event carried (the cgroup by id:
 * cgroup.c) --------------------------------------------------------------- */

/* The launchers of a process that is gone, from its parent on: only while
 * the parent is the one the kernel recorded (a launcher outlives its ranks
 * by a moment; a reused pid is another process's ancestry). */
static void launchers_from_parent(const char *root, const struct proc_context_event *ev,
				  struct proc_context *out)
{
	if (ev->ppid <= 0 || !ev->pstart_ns ||
	    proc_start_ticks(root, ev->ppid) != proc_ns_to_ticks(ev->pstart_ns))
		return;
	int nl = launchers_read(root, ev->pid, ev->ppid, out->launchers, CTX_MAX_LAUNCHERS,
				&out->launchers_truncated);
	if (nl < 0)
		return;
	out->n_launchers = nl;
	out->ppid = ev->ppid;
	out->have |= CTX_HAVE_LAUNCHERS | CTX_HAVE_PPID;
}

void proc_context_from_event(const char *root, const struct proc_context_event *ev,
			     struct proc_context *out)
{
	proc_context_init(out, ev->pid);
	out->unavailable = CTX_GONE;
	if (root)
		launchers_from_parent(root, ev, out);
	if (ev->have & CTX_HAVE_UID) {
		/* The event records one uid; we do not know the effective one apart. */
		out->uid = out->euid = ev->uid;
		out->have |= CTX_HAVE_UID;
	}
	if (ev->have & CTX_HAVE_MEMLOCK) {
		out->memlock_soft = ev->memlock_cur;
		out->have |= CTX_HAVE_MEMLOCK;
	}
	if (ev->have & CTX_HAVE_COMM) {
		str_copy_n(out->comm, sizeof(out->comm), ev->comm, strnlen(ev->comm, sizeof(ev->comm)));
		out->have |= CTX_HAVE_COMM;
	}
	if (!(ev->have & CTX_HAVE_CGROUP_ID))
		return;
	out->cgroup_id = ev->cgroup_id;
	out->have |= CTX_HAVE_CGROUP_ID;
	if (!root)
		return;
	char rel[512];
	if (proc_cgroup_path_by_id(root, ev->cgroup_id, rel, sizeof(rel)))
		return;
	char line[600];
	snprintf(line, sizeof(line), "0::%s\n", rel);
	proc_context_parse_cgroup(line, out);
	refine_runtime(out);
}

enum ctx_unavailable proc_context_identity(const struct proc_context *c,
					   const struct proc_context_event *ev)
{
	if (ev->start_ns && (c->have & CTX_HAVE_START) &&
	    c->start_ticks != proc_ns_to_ticks(ev->start_ns))
		return CTX_PID_REUSED;
	if ((ev->have & CTX_HAVE_UID) && (c->have & CTX_HAVE_UID) && c->uid != ev->uid)
		return ev->start_ns && (c->have & CTX_HAVE_START) ? CTX_EXECED : CTX_PID_REUSED;
	if (ev->exe_ino && (c->have & CTX_HAVE_EXE_INO) && c->exe_ino != ev->exe_ino)
		return CTX_EXECED;
	return CTX_AVAILABLE;
}

const char *ctx_unavailable_text(enum ctx_unavailable u)
{
	switch (u) {
	case CTX_AVAILABLE: return NULL;
	case CTX_GONE: return "the process is gone";
	case CTX_PID_REUSED: return "the process is gone, its pid reused";
	case CTX_EXECED: return "the process runs another program since";
	}
	return NULL;
}

const char *ctx_unavailable_name(enum ctx_unavailable u)
{
	switch (u) {
	case CTX_AVAILABLE: return NULL;
	case CTX_GONE: return "process_gone";
	case CTX_PID_REUSED: return "pid_reused";
	case CTX_EXECED: return "exec";
	}
	return NULL;
}

enum ctx_unavailable ctx_unavailable_from_name(const char *name)
{
	for (enum ctx_unavailable u = CTX_GONE; u <= CTX_EXECED; u++)
		if (!strcmp(name, ctx_unavailable_name(u)))
			return u;
	return CTX_AVAILABLE;
}

/* ---- derived setting ---------------------------------------------------- */

enum ctx_setting proc_context_setting(const struct proc_context *c)
{
	if ((c->have & CTX_HAVE_USERNS) && c->in_userns)
		return CTX_SET_USERNS;
	if (c->pod_uid[0])
		return CTX_SET_KUBERNETES;
	switch (c->runtime) {
	case CTX_RT_DOCKER: return CTX_SET_DOCKER;
	case CTX_RT_CONTAINERD: return CTX_SET_CONTAINERD;
	case CTX_RT_CRIO: return CTX_SET_CRIO;
	case CTX_RT_PODMAN: return CTX_SET_PODMAN;
	case CTX_RT_UNKNOWN: return CTX_SET_CONTAINER;
	case CTX_RT_NONE: break;
	}
	if (c->slurm_job >= 0 || proc_context_launcher(c, CTX_L_SLURMSTEPD))
		return CTX_SET_SLURM;
	if (proc_context_launcher(c, CTX_L_MPI_DAEMON))
		return CTX_SET_MPI_REMOTE;
	if (proc_context_launcher(c, CTX_L_MPIRUN))
		return CTX_SET_MPI_LOCAL;
	int interactive = proc_context_launcher(c, CTX_L_SHELL) || proc_context_launcher(c, CTX_L_SSHD) ||
			  proc_context_launcher(c, CTX_L_SUDO) || strstr(c->cgroup_path, "/session-");
	if (c->systemd_unit[0]) {
		/* Without pam_systemd an ssh login stays in sshd's own unit; that is
		 * a login shell, not a service someone configured. */
		int sshd_unit = !strcmp(c->systemd_unit, "ssh.service") ||
				!strcmp(c->systemd_unit, "sshd.service");
		if (!(sshd_unit && interactive))
			return c->systemd_user_unit ? CTX_SET_SYSTEMD_USER : CTX_SET_SYSTEMD_SERVICE;
	}
	if (interactive)
		return CTX_SET_SHELL;
	return CTX_SET_UNKNOWN;
}

/* ---- names --------------------------------------------------------------- */

const char *ctx_runtime_name(enum ctx_runtime rt)
{
	switch (rt) {
	case CTX_RT_NONE: return "none";
	case CTX_RT_DOCKER: return "docker";
	case CTX_RT_CONTAINERD: return "containerd";
	case CTX_RT_CRIO: return "cri-o";
	case CTX_RT_PODMAN: return "podman";
	case CTX_RT_UNKNOWN: return "unknown";
	}
	return "unknown";
}

int ctx_runtime_from_name(const char *name)
{
	for (int rt = CTX_RT_NONE; rt <= CTX_RT_UNKNOWN; rt++)
		if (!strcmp(ctx_runtime_name(rt), name))
			return rt;
	return -1;
}

const char *ctx_setting_name(enum ctx_setting s)
{
	switch (s) {
	case CTX_SET_UNKNOWN: return "unknown";
	case CTX_SET_USERNS: return "user_namespace";
	case CTX_SET_KUBERNETES: return "kubernetes";
	case CTX_SET_DOCKER: return "docker";
	case CTX_SET_CONTAINERD: return "containerd";
	case CTX_SET_CRIO: return "cri_o";
	case CTX_SET_PODMAN: return "podman";
	case CTX_SET_CONTAINER: return "container";
	case CTX_SET_SLURM: return "slurm";
	case CTX_SET_MPI_REMOTE: return "mpi_remote";
	case CTX_SET_MPI_LOCAL: return "mpi_local";
	case CTX_SET_SYSTEMD_SERVICE: return "systemd_service";
	case CTX_SET_SYSTEMD_USER: return "systemd_user_service";
	case CTX_SET_SHELL: return "shell";
	}
	return "unknown";
}

const struct ctx_launcher *proc_context_launcher(const struct proc_context *ctx,
						 enum ctx_launcher_kind kind)
{
	for (int i = 0; i < ctx->n_launchers; i++)
		if (ctx->launchers[i].kind == kind)
			return &ctx->launchers[i];
	return NULL;
}

const char *proc_context_launcher_chain(const struct proc_context *ctx, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < ctx->n_launchers && off < len; i++) {
		const struct ctx_launcher *l = &ctx->launchers[i];
		if (l->kind == CTX_L_OTHER)
			continue;
		int n = snprintf(buf + off, len - off, "%s%s(%d)", off ? " <- " : "", l->comm, l->pid);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (off >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}
