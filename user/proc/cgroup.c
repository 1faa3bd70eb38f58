// SPDX-License-Identifier: GPL-2.0-only
/* cgroup.c - which unit, Slurm job and step, pod or container a process
 * runs in, from its cgroup path (/proc/PID/cgroup, or the cgroup a record
 * carried by id when the process has exited); declared in context.h,
 * which puts the whole context together. */
#include "proc/context.h"
#include "core/procfs.h"
#include "core/strbuf.h"

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
	str_copy_n(out->container_id, sizeof(out->container_id), id, idn);
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
	int in_slurm = 0, user_delegated = 0;

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
					str_copy_n(out->container_id, sizeof(out->container_id), c, n);
					out->runtime = CTX_RT_DOCKER;	/* cgroupfs driver: /docker/<id> */
				} else if (n == 64 && is_hex_id(c, n)) {
					/* /kubepods/<qos>/pod<uid>/<id>: runtime not named */
					str_copy_n(out->container_id, sizeof(out->container_id), c, n);
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

		/* Slurm: /slurm[_node]/uid_N/job_N/step_S or slurmstepd.scope/job_N/step_S.
		 * A user may name cgroups as they like below a subtree delegated to
		 * them (their user@UID.service manager, or their own job's step):
		 * a Slurm name below user.slice or user@ is theirs, not slurmd's,
		 * and only the first job_ after slurmd's marker is the job - the
		 * job's own user nesting job_4242 under it names no other job. */
		if (starts_with(c, n, "user@") || (n == 10 && starts_with(c, n, "user.slice")))
			user_delegated = 1;
		if (!user_delegated && starts_with(c, n, "slurm") &&
		    (n == 5 || c[5] == '_' || starts_with(c, n, "slurmstepd.scope")))
			in_slurm = 1;
		if (in_slurm && out->slurm_job < 0 && starts_with(c, n, "job_")) {
			char num[24];
			str_copy_n(num, sizeof(num), c + 4, n - 4);
			char *end;
			long j = strtol(num, &end, 10);
			if (*num && !*end)
				out->slurm_job = j;
		}
		if (in_slurm && out->slurm_job >= 0 && !out->slurm_step[0] && starts_with(c, n, "step_"))
			str_copy_n(out->slurm_step, sizeof(out->slurm_step), c + 5, n - 5);

		if (is_unit_path) {
			if (ends_with(c, n, ".service")) {
				int user_manager = starts_with(c, n, "user@");
				if (!user_manager) {
					str_copy_n(last_service, sizeof(last_service), c, n);
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
		str_copy_n(buf, sizeof(buf), line, n);
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

void proc_context_read_cgroup(const char *root, int pid, struct proc_context *out)
{
	char buf[4096];
	if (procfs_read_at(root, pid, "cgroup", buf, sizeof(buf)) <= 0)
		return;
	proc_context_parse_cgroup(buf, out);
}

