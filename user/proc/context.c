// SPDX-License-Identifier: GPL-2.0-only
/* context.c - read a process's identity, limits, namespaces, cgroup and
 * allow-listed environment from /proc (see context.h).  The ancestors are
 * walked by launcher.c. */
#include "proc/context.h"
#include "core/procfs.h"

#include <ctype.h>
#include <dirent.h>
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

static void copy_str(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
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
		copy_str(out->comm, sizeof(out->comm), v, strcspn(v, "\n"));
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
		copy_str(line, sizeof(line), v, n);
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

/* ---- cgroup ------------------------------------------------------------ */

static int is_hex_id(const char *s, size_t n)
{
	if (n < 12 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t sl = strlen(suffix);
	return n >= sl && !memcmp(s + n - sl, suffix, sl);
}

static int starts_with(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);
	return n >= pl && !memcmp(s, prefix, pl);
}

/* "<prefix><id>.scope" (systemd driver) or "<prefix><id>" (cgroupfs) */
static int match_prefixed_id(const char *c, size_t n, const char *prefix, struct proc_context *out,
			     enum ctx_runtime rt)
{
	if (!starts_with(c, n, prefix))
		return 0;
	const char *id = c + strlen(prefix);
	size_t idn = n - strlen(prefix);
	if (ends_with(id, idn, ".scope"))
		idn -= strlen(".scope");
	if (!is_hex_id(id, idn))
		return 0;	/* e.g. crio-conmon-<id>.scope is the monitor, not the container */
	copy_str(out->container_id, sizeof(out->container_id), id, idn);
	out->runtime = rt;
	return 1;
}

static void set_pod_uid(struct proc_context *out, const char *s, size_t n)
{
	if (n < 32 || n > 36)
		return;
	char uid[37];
	for (size_t i = 0; i < n; i++) {
		char ch = s[i] == '_' ? '-' : s[i];	/* systemd escapes '-' as '_' */
		if (!isxdigit((unsigned char)ch) && ch != '-')
			return;
		uid[i] = ch;
	}
	uid[n] = '\0';
	memcpy(out->pod_uid, uid, n + 1);
}

/* One cgroup path, component by component. `is_unit_path` is true for the
 * path systemd's hierarchy shows (v2, or v1 name=systemd): only that one
 * names systemd units. */
static void parse_cgroup_path(const char *path, int is_unit_path, struct proc_context *out)
{
	char last_service[128] = "";
	int service_is_user = 0, scope_after_service = 0, seen_user_manager = 0;
	const char *prev = NULL;
	size_t prevn = 0;
	int in_slurm = 0;

	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *c = p;
		size_t n = strcspn(c, "/\n");
		p = c + n;

		if (!out->container_id[0]) {
			if (!match_prefixed_id(c, n, "docker-", out, CTX_RT_DOCKER) &&
			    !match_prefixed_id(c, n, "cri-containerd-", out, CTX_RT_CONTAINERD) &&
			    !match_prefixed_id(c, n, "nerdctl-", out, CTX_RT_CONTAINERD) &&
			    !match_prefixed_id(c, n, "crio-", out, CTX_RT_CRIO) &&
			    !match_prefixed_id(c, n, "libpod-", out, CTX_RT_PODMAN)) {
				if (prev && prevn == 6 && !memcmp(prev, "docker", 6) && is_hex_id(c, n)) {
					copy_str(out->container_id, sizeof(out->container_id), c, n);
					out->runtime = CTX_RT_DOCKER;	/* cgroupfs driver: /docker/<id> */
				} else if (n == 64 && is_hex_id(c, n)) {
					/* /kubepods/<qos>/pod<uid>/<id>: runtime not named */
					copy_str(out->container_id, sizeof(out->container_id), c, n);
					out->runtime = CTX_RT_UNKNOWN;
				}
			}
		}

		/* Kubernetes: kubepods-<qos>-pod<uid_>.slice or .../pod<uid>/ */
		if (starts_with(c, n, "kubepods") && ends_with(c, n, ".slice")) {
			const char *pod = NULL;
			for (const char *q = c; q + 4 <= c + n; q++)
				if (!memcmp(q, "-pod", 4))
					pod = q + 4;
			if (pod)
				set_pod_uid(out, pod, (size_t)(c + n - pod) - strlen(".slice"));
		} else if (starts_with(c, n, "pod") && strstr(path, "kubepods")) {
			set_pod_uid(out, c + 3, n - 3);
		}

		/* Slurm: /slurm[_node]/uid_N/job_N/step_S or slurmstepd.scope/job_N/step_S */
		if (starts_with(c, n, "slurm") && (n == 5 || c[5] == '_' || starts_with(c, n, "slurmstepd.scope")))
			in_slurm = 1;
		if (in_slurm && starts_with(c, n, "job_")) {
			char num[24];
			copy_str(num, sizeof(num), c + 4, n - 4);
			char *end;
			long j = strtol(num, &end, 10);
			if (*num && !*end)
				out->slurm_job = j;
		}
		if (in_slurm && out->slurm_job >= 0 && starts_with(c, n, "step_"))
			copy_str(out->slurm_step, sizeof(out->slurm_step), c + 5, n - 5);

		if (is_unit_path) {
			if (ends_with(c, n, ".service")) {
				int user_manager = starts_with(c, n, "user@");
				if (!user_manager) {
					copy_str(last_service, sizeof(last_service), c, n);
					service_is_user = seen_user_manager;
					scope_after_service = 0;
				} else {
					seen_user_manager = 1;
					last_service[0] = '\0';
				}
			} else if (ends_with(c, n, ".scope")) {
				/* a session or a scope below the service: not run by it */
				scope_after_service = 1;
			}
		}
		prev = c;
		prevn = n;
	}

	if (is_unit_path && last_service[0] && !scope_after_service) {
		snprintf(out->systemd_unit, sizeof(out->systemd_unit), "%s", last_service);
		out->systemd_user_unit = service_is_user;
	}
}

void proc_context_parse_cgroup(const char *text, struct proc_context *out)
{
	char unified[512] = "", named[512] = "", memory[512] = "", first[512] = "";
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		char buf[640];
		copy_str(buf, sizeof(buf), line, n);
		line = eol ? eol + 1 : NULL;

		/* hierarchy-id:controllers:path */
		char *c1 = strchr(buf, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		const char *ctrl = c1 + 1, *path = c2 + 1;
		if (!strcmp(buf, "0") && !*ctrl)
			snprintf(unified, sizeof(unified), "%s", path);
		else if (strstr(ctrl, "name=systemd"))
			snprintf(named, sizeof(named), "%s", path);
		else if (!strcmp(ctrl, "memory") || strstr(ctrl, "memory,") == ctrl)
			snprintf(memory, sizeof(memory), "%s", path);
		if (!first[0])
			snprintf(first, sizeof(first), "%s", path);
		/* Every hierarchy can name the container or the Slurm step (v1 Slurm
		 * lives on freezer/cpuset/memory, not name=systemd). */
		parse_cgroup_path(path, 0, out);
	}
	/* v1 mixed with an empty v2 line (hybrid) shows "0::/": prefer name=systemd. */
	const char *chosen = unified[0] && (strcmp(unified, "/") || !named[0]) ? unified
			     : named[0] ? named : memory[0] ? memory : first;
	if (!chosen[0])
		return;
	snprintf(out->cgroup_path, sizeof(out->cgroup_path), "%s", chosen);
	const char *unit_path = unified[0] && strcmp(unified, "/") ? unified : named;
	if (*unit_path && out->runtime == CTX_RT_NONE)
		parse_cgroup_path(unit_path, 1, out);
	out->have |= CTX_HAVE_CGROUP;
}

static void read_cgroup(const char *root, int pid, struct proc_context *out)
{
	char buf[4096];
	if (read_proc(root, pid, "cgroup", buf, sizeof(buf)) <= 0)
		return;
	proc_context_parse_cgroup(buf, out);
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
	read_cgroup(root, pid, out);
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

/* ---- exited processes: only what the event carried --------------------- */

/* cgroup v2 ids are the inode numbers of the cgroup directories.  Walked
 * by descriptor without following symlinks: a recorded tree's cgroup
 * directory cannot lead the walk out of the tree. */
static int find_cgroup_by_id(int dfd, char *rel, size_t rlen, uint64_t id, int depth)
{
	if (depth > 12)
		return -1;
	int dup_fd = dup(dfd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return -1;
	}
	struct dirent *e;
	int found = -1;
	size_t l = strlen(rel);
	while (found && (e = readdir(d))) {
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (sub < 0)
			continue;
		if (fstat(sub, &st) || snprintf(rel + l, rlen - l, "/%s", e->d_name) >= (int)(rlen - l)) {
			close(sub);
			rel[l] = '\0';
			continue;
		}
		if ((uint64_t)st.st_ino == id)
			found = 0;
		else
			found = find_cgroup_by_id(sub, rel, rlen, id, depth + 1);
		close(sub);
		if (found)
			rel[l] = '\0';
	}
	closedir(d);
	return found;
}

void proc_context_from_event(const char *root, const struct proc_context_event *ev,
			     struct proc_context *out)
{
	proc_context_init(out, ev->pid);
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
		copy_str(out->comm, sizeof(out->comm), ev->comm, strnlen(ev->comm, sizeof(ev->comm)));
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
}

int proc_cgroup_path_by_id(const char *root, uint64_t id, char *rel, size_t len)
{
	int base = procfs_open_dir(root, -1, "sys/fs/cgroup");
	struct stat st;
	int rc = 0;

	if (base < 0)
		return -ENOENT;
	rel[0] = '\0'; /* find_cgroup_by_id appends to it */
	if (!fstat(base, &st) && (uint64_t)st.st_ino == id)
		snprintf(rel, len, "/");
	else if (find_cgroup_by_id(base, rel, len, id, 0))
		rc = -ENOENT;
	close(base);
	return rc;
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

/* ---- allow-listed environment ---------------------------------------------
 * The environment of a training job holds credentials (cloud keys, tokens).
 * We keep NCCL_* and the variables that say which rank this is, and nothing
 * else: every other entry only ever passes through the two stack buffers
 * below, which are wiped before returning.  No stdio: its buffers would hold
 * copies we could not wipe. */

static const char *const env_allow[] = {
	/* torchrun / torchelastic */
	"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
	"TORCHELASTIC_RUN_ID",
	/* Open MPI, MPICH/PMI, PMIx */
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALRANKID",
	/* Slurm */
	"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_JOB_ID", "SLURM_STEP_ID",
};

bool proc_env_allowed(const char *name)
{
	if (!strncmp(name, "NCCL_", 5) && name[5])
		return true;
	for (size_t i = 0; i < sizeof(env_allow) / sizeof(env_allow[0]); i++)
		if (!strcmp(name, env_allow[i]))
			return true;
	return false;
}

const char *proc_env_get(const struct ctx_env *env, const char *name)
{
	for (int i = 0; i < env->n; i++)
		if (!strcmp(env->vars[i].name, name))
			return env->vars[i].value;
	return NULL;
}

/* One "NAME=value" entry (not NUL-terminated, `cut` when it was longer than
 * the entry buffer).  Copies it only if the name is allowed. */
static void env_consider(struct ctx_env *out, const char *entry, size_t len, int cut)
{
	const char *eq = memchr(entry, '=', len);
	if (!eq || eq == entry)
		return;
	size_t nl = (size_t)(eq - entry);
	if (nl >= CTX_ENV_NAME_MAX)
		return;		/* no allowed name is that long */
	char name[CTX_ENV_NAME_MAX];
	memcpy(name, entry, nl);
	name[nl] = '\0';
	if (!proc_env_allowed(name))
		return;
	if (out->n >= CTX_ENV_MAX) {
		out->truncated = true;
		out->dropped++;
		return;
	}
	struct ctx_env_var *v = &out->vars[out->n++];
	memcpy(v->name, name, nl + 1);
	size_t vl = len - nl - 1;
	if (vl >= sizeof(v->value) || cut) {
		out->truncated = true;
		v->cut = true;
		if (vl >= sizeof(v->value))
			vl = sizeof(v->value) - 1;
	}
	memcpy(v->value, eq + 1, vl);
	v->value[vl] = '\0';
}

int proc_env_read(const char *root, int pid, struct ctx_env *out)
{
	memset(out, 0, sizeof(*out));
	int fd = procfs_open(root, pid, "environ");
	if (fd < 0)
		return fd;

	char chunk[4096], entry[4096];
	size_t elen = 0;
	int cut = 0, err = 0;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] == '\0') {
				env_consider(out, entry, elen, cut);
				explicit_bzero(entry, elen);
				elen = 0;
				cut = 0;
			} else if (elen < sizeof(entry)) {
				entry[elen++] = chunk[i];
			} else {
				cut = 1;
			}
		}
	}
	if (elen)		/* a last entry without its NUL */
		env_consider(out, entry, elen, cut);
	explicit_bzero(entry, sizeof(entry));
	explicit_bzero(chunk, sizeof(chunk));
	close(fd);
	return err;
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
