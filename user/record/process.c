// SPDX-License-Identifier: GPL-2.0-only
/* process.c - "process": what /proc said about the process at the failure
 * (docs/context.md), and back: the context rebuilt for the fields the
 * engine and the fixes read (record.h, struct record_in). */
#include "record/parts.h"
#include "proc/jobclaim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job and where it came from (proc/jobclaim.h): the cgroup's job wins,
 * the environment's alone is a claim, and one that names another job than
 * the cgroup is written beside it as such. */
static void put_job(struct json_object *o, const struct proc_context *c, long env_job)
{
	struct job_claim jc;

	job_claim_resolve((c->have & CTX_HAVE_CGROUP) ? c->slurm_job : -1, env_job, &jc);
	if (jc.job < 0)
		return;
	jput_i64(o, "slurm_job", jc.job);
	jput_str(o, "slurm_job_source", job_source_name(jc.source));
	if (jc.contradicting >= 0)
		jput_i64(o, "slurm_job_claimed", jc.contradicting);
}

/* The step and the rank, from the cgroup (the step) or the allow-listed
 * environment (the kernel's copy or /proc's): a rank placed even when no
 * NCCL is mapped (an mlock failure, a launcher's own process). */
static void env_place(struct json_object *o, const struct proc_context *c)
{
	const char *step = (c->have & CTX_HAVE_ENV) ? proc_env_get(&c->env, "SLURM_STEP_ID") : NULL;
	struct nccl_rank rank;

	if ((c->have & CTX_HAVE_CGROUP) && c->slurm_step[0]) {
		jput_str(o, "slurm_step", c->slurm_step);
		jput_str(o, "slurm_step_source", "cgroup");
	} else if (step && *step) {
		/* anyone can set SLURM_STEP_ID: a claim, said as the job's is */
		jput_str(o, "slurm_step", step);
		jput_str(o, "slurm_step_source", "environment");
	}
	if (!(c->have & CTX_HAVE_ENV))
		return;
	nccl_rank_from_env(&c->env, &rank);
	if (rank.rank >= 0) {
		jput_i64(o, "rank", rank.rank);
		jput_str(o, "rank_variable", rank.rank_var);
	}
	if (c->env.kernel_cut || c->env.cut_entries)
		jput_i64(o, "environment_entries_cut", c->env.cut_entries);
}

struct json_object *process_to_json(const struct proc_context *c, long env_job)
{
	struct json_object *o = json_object_new_object();
	char chain[512];

	if (c->have & CTX_HAVE_EXE)
		jput_str(o, "exe", c->exe);
	if (c->have & CTX_HAVE_CMDLINE)
		jput_str(o, "cmdline", c->cmdline);
	if (c->have & CTX_HAVE_UID)
		jput_i64(o, "uid", c->uid);
	if (c->have & CTX_HAVE_MEMLOCK)
		jput_limit(o, "memlock_soft_bytes", c->memlock_soft);
	if (c->have & CTX_HAVE_MEMLOCK_HARD)
		jput_limit(o, "memlock_hard_bytes", c->memlock_hard);
	if (c->have & CTX_HAVE_VMPIN)
		jput_u64(o, "vm_pin_bytes", c->vm_pin);
	if (c->have & CTX_HAVE_VMLCK)
		jput_u64(o, "vm_lck_bytes", c->vm_lck);
	if (c->have & CTX_HAVE_CAPS)
		jput_bool(o, "cap_ipc_lock_effective", c->cap_ipc_lock);
	if (c->have & CTX_HAVE_USERNS)
		jput_bool(o, "user_namespace", c->in_userns);
	if (c->have & CTX_HAVE_CGROUP) {
		jput_str(o, "cgroup", c->cgroup_path);
		jput_str(o, "runtime", ctx_runtime_name(c->runtime));
		if (c->container_id[0])
			jput_str(o, "container_id", c->container_id);
		if (c->pod_uid[0])
			jput_str(o, "pod_uid", c->pod_uid);
		if (c->systemd_unit[0])
			jput_str(o, "systemd_unit", c->systemd_unit);
	}
	jput_str(o, "setting", ctx_setting_name(proc_context_setting(c)));
	if (c->unavailable)
		jput_str(o, "context_unavailable", ctx_unavailable_name(c->unavailable));
	if (c->have & CTX_HAVE_LAUNCHERS)
		jput_str(o, "launchers", proc_context_launcher_chain(c, chain, sizeof(chain)));
	put_job(o, c, env_job);
	env_place(o, c);
	return o;
}

/* "torchrun(444) <- bash(441) <- bash(1)": the recognized launchers,
 * nearest first (proc_context_launcher_chain), possibly cut with "...". */
static void read_launchers(const char *s, struct proc_context *c)
{
	c->have |= CTX_HAVE_LAUNCHERS;
	while (*s) {
		const char *end = strstr(s, " <- ");
		size_t n = end ? (size_t)(end - s) : strlen(s);
		const char *open = NULL;

		for (const char *p = s; p < s + n; p++)
			if (*p == '(')
				open = p;
		if (c->n_launchers == CTX_MAX_LAUNCHERS) {
			c->launchers_truncated = true;
			break;
		}
		if (open && n > 2 && s[n - 1] == ')') {
			struct ctx_launcher *l = &c->launchers[c->n_launchers++];
			size_t cl = (size_t)(open - s) < sizeof(l->comm) ? (size_t)(open - s)
									: sizeof(l->comm) - 1;
			memcpy(l->comm, s, cl);
			l->comm[cl] = '\0';
			l->pid = atoi(open + 1);
			l->kind = launcher_classify(l->pid, l->comm, NULL);
			/* Only recognized launchers are in the chain; the ones a name
			 * does not tell are python processes recognized by their
			 * command line (torchrun, deepspeed), which no fix depends on
			 * and which print alike. */
			if (l->kind == CTX_L_OTHER)
				l->kind = CTX_L_TORCHRUN;
		} else {
			c->launchers_truncated = true; /* "...": the chain was cut */
		}
		s = end ? end + 4 : s + n;
	}
}

/* The cgroup path says where the process ran; the members written beside
 * it are what the live reader concluded (a runtime refined from the
 * monitor process, say) and win over the path. */
static int read_cgroup(struct json_object *p, struct proc_context *c, const char *setting,
		       enum job_source source, const struct jwhere *w)
{
	char path[512], line[600], s[128];
	long long job = -1;
	int rc;

	if ((rc = jget_str(p, "cgroup", path, sizeof(path), w)) <= 0)
		return rc;
	snprintf(line, sizeof(line), "0::%s\n", path);
	proc_context_parse_cgroup(line, c);
	if ((rc = jget_str(p, "runtime", s, sizeof(s), w)) < 0)
		return -1;
	if (rc && ctx_runtime_from_name(s) >= 0)
		c->runtime = ctx_runtime_from_name(s);
	if (jget_str(p, "container_id", c->container_id, sizeof(c->container_id), w) == 0)
		c->container_id[0] = '\0';
	if (jget_str(p, "pod_uid", c->pod_uid, sizeof(c->pod_uid), w) == 0)
		c->pod_uid[0] = '\0';
	snprintf(s, sizeof(s), "%s", c->systemd_unit);
	if ((rc = jget_str(p, "systemd_unit", c->systemd_unit, sizeof(c->systemd_unit), w)) == 0)
		c->systemd_unit[0] = '\0';
	else if (rc == 1 && strcmp(s, c->systemd_unit))
		c->systemd_user_unit = !strcmp(setting, "systemd_user_service");
	if ((rc = jget_i64(p, "slurm_job", &job, w)) < 0)
		return -1;
	/* a claim is not the cgroup's: the context keeps what the path says */
	if (!rc || source == JOB_SOURCE_ENVIRONMENT)
		job = -1;
	if (job != c->slurm_job)
		c->slurm_step[0] = '\0'; /* the step is known only from the path */
	c->slurm_job = job;
	return w->err[0] ? -1 : 0; /* a member of the wrong type above said so */
}

/* The environment's job as the record says it: the job when it was only
 * claimed, the contradicting id beside a cgroup's; -1 none. */
static int read_claim(struct json_object *p, enum job_source *source, long *env_job,
		      const struct jwhere *w)
{
	char s[32];
	long long v = -1;
	int rc;

	*env_job = -1;
	if ((rc = jget_str(p, "slurm_job_source", s, sizeof(s), w)) < 0)
		return -1;
	*source = rc ? job_source_from_name(s) : JOB_SOURCE_NONE;
	if (*source == JOB_SOURCE_ENVIRONMENT) {
		if ((rc = jget_i64(p, "slurm_job", &v, w)) < 0)
			return -1;
	} else if ((rc = jget_i64(p, "slurm_job_claimed", &v, w)) < 0) {
		return -1;
	}
	*env_job = rc && v >= 0 ? (long)v : -1;
	return 0;
}

int process_from_json(struct json_object *p, const struct mrt_event *ev, struct proc_context *c,
		      char *setting, size_t setting_len, long *env_job, const struct jwhere *w)
{
	enum job_source source = JOB_SOURCE_NONE;
	char chain[1024];
	long long uid = 0;
	bool b = false;
	int rc;

	proc_context_init(c, (int)ev->pid);
	memcpy(c->comm, ev->comm, sizeof(c->comm) - 1);
	c->have |= CTX_HAVE_COMM;
	if ((rc = jget_str(p, "exe", c->exe, sizeof(c->exe), w)) == 1)
		c->have |= CTX_HAVE_EXE;
	if (rc >= 0 && (rc = jget_str(p, "cmdline", c->cmdline, sizeof(c->cmdline), w)) == 1)
		c->have |= CTX_HAVE_CMDLINE;
	if (rc >= 0 && (rc = jget_i64(p, "uid", &uid, w)) == 1) {
		c->uid = c->euid = (uint32_t)uid;
		c->have |= CTX_HAVE_UID;
	}
	if (rc >= 0 && (rc = jget_limit(p, "memlock_soft_bytes", &c->memlock_soft, w)) == 1)
		c->have |= CTX_HAVE_MEMLOCK;
	if (rc >= 0 && (rc = jget_limit(p, "memlock_hard_bytes", &c->memlock_hard, w)) == 1)
		c->have |= CTX_HAVE_MEMLOCK_HARD;
	if (rc >= 0 && (rc = jget_u64(p, "vm_pin_bytes", &c->vm_pin, w)) == 1)
		c->have |= CTX_HAVE_VMPIN;
	if (rc >= 0 && (rc = jget_u64(p, "vm_lck_bytes", &c->vm_lck, w)) == 1)
		c->have |= CTX_HAVE_VMLCK;
	if (rc >= 0 && (rc = jget_bool(p, "cap_ipc_lock_effective", &b, w)) == 1) {
		c->cap_ipc_lock = b;
		c->cap_eff = b ? 1ULL << CTX_CAP_IPC_LOCK : 0;
		c->have |= CTX_HAVE_CAPS;
	}
	if (rc >= 0 && (rc = jget_bool(p, "user_namespace", &b, w)) == 1) {
		c->in_userns = b;
		c->have |= CTX_HAVE_USERNS;
	}
	if (rc >= 0 && (rc = jget_str(p, "setting", setting, setting_len, w)) == 0)
		setting[0] = '\0';
	if (rc >= 0)
		rc = read_claim(p, &source, env_job, w);
	if (rc >= 0)
		rc = read_cgroup(p, c, setting, source, w);
	/* why only the record's own fields are known: read back, so explain
	 * says it again (an unknown name from a newer writer is dropped) */
	if (rc >= 0 && (rc = jget_str(p, "context_unavailable", chain, sizeof(chain), w)) == 1)
		c->unavailable = ctx_unavailable_from_name(chain);
	if (rc >= 0 && (rc = jget_str(p, "launchers", chain, sizeof(chain), w)) == 1)
		read_launchers(chain, c);
	c->cgroup_id = ev->cgroup_id;
	c->have |= CTX_HAVE_CGROUP_ID;
	return rc < 0 ? -1 : 0;
}

