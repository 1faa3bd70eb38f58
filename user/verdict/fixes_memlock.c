// SPDX-License-Identifier: GPL-2.0-only
/* fixes_memlock.c - the fixes of memlock_limit and memlock_zero, for where
 * the process runs (fixes.h; the row of both causes in fixes.c's table).
 *
 * The facts behind the advice: ib_umem_get compares mm->pinned_vm with
 * RLIMIT_MEMLOCK unless capable(CAP_IPC_LOCK), and capable() checks the
 * initial user namespace.  A limit is inherited from the parent, so the
 * place to raise it is the thing that started the job: a systemd unit
 * (LimitMEMLOCK=), a container runtime (its rlimit option or its daemon's
 * unit), slurmd (or the submit host, through propagation), the ssh/PAM
 * session of an MPI daemon, or a login session (limits.conf).
 *
 * Length: over the usual 500 lines: one generator per setting (systemd, containers,
 * Kubernetes, Slurm, MPI, shell) for the same two causes reads best side by side.
 */
#include "verdict/fix_generators.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

uint64_t fixes_needed_bytes(const struct fix_input *in)
{
	uint64_t need = 0;
	if (in->have_request)
		need = in->request_bytes + (in->have_pinned ? in->pinned_before : 0);
	/* NCCL's floor (with GDR) is a lower bound too: never overstate. */
	if (in->nccl && in->nccl->lib.found && in->nccl->estimate.host_min > need)
		need = in->nccl->estimate.host_min;
	return need;
}

/* ---- what we know, as text ------------------------------------------------ */

struct facts {
	const struct proc_context *ctx;
	enum ctx_setting setting;
	bool have_limit;
	uint64_t limit, hard, need;
	bool have_hard;
	char limit_s[32], hard_s[32], need_s[32];
	char nums[160];      /* "; needs at least 24.0 MiB (limit 8 MiB)" */
	long host_uid;       /* from user-UID.slice / user@UID.service, else -1 */
	/* the limits.conf domain of the user the record knows: ":UID", pam_limits'
	 * exact-uid form (limits.conf(5)), which needs no name lookup and so holds
	 * wherever the fix is read (explain runs on another host); "<user>" when no
	 * uid is known */
	char user[24];
	/* the `ulimit -l` that works under the hard limit: "unlimited" only
	 * where the hard limit is, else the hard limit itself in KiB */
	char ulimit[48];
};

static long uid_from_cgroup(const char *path)
{
	const char *p = strstr(path, "user@");
	if (!p)
		p = strstr(path, "user-");
	if (!p)
		return -1;
	char *end;
	long uid = strtol(p + 5, &end, 10);
	return end != p + 5 ? uid : -1;
}

static void gather(const struct fix_input *in, struct facts *f)
{
	memset(f, 0, sizeof(*f));
	f->ctx = in->ctx;
	f->setting = in->ctx ? proc_context_setting(in->ctx) : CTX_SET_UNKNOWN;
	f->host_uid = -1;
	if (in->have_limit) {
		f->have_limit = true;
		f->limit = in->limit_bytes;
	} else if (in->ctx && (in->ctx->have & CTX_HAVE_MEMLOCK)) {
		f->have_limit = true;
		f->limit = in->ctx->memlock_soft;
	}
	if (in->ctx && (in->ctx->have & CTX_HAVE_MEMLOCK_HARD)) {
		f->have_hard = true;
		f->hard = in->ctx->memlock_hard;
	}
	if (in->ctx && (in->ctx->have & CTX_HAVE_CGROUP))
		f->host_uid = uid_from_cgroup(in->ctx->cgroup_path);
	if (f->host_uid >= 0)
		snprintf(f->user, sizeof(f->user), ":%ld", f->host_uid);
	else if (in->ctx && (in->ctx->have & CTX_HAVE_UID))
		snprintf(f->user, sizeof(f->user), ":%u", in->ctx->uid);
	else
		snprintf(f->user, sizeof(f->user), "<user>");
	if (f->have_hard && f->hard != CTX_UNLIMITED)
		snprintf(f->ulimit, sizeof(f->ulimit), "ulimit -l %llu",
			 (unsigned long long)(f->hard >> 10));
	else
		snprintf(f->ulimit, sizeof(f->ulimit), "ulimit -l unlimited");
	f->need = fixes_needed_bytes(in);
	fmt_bytes(f->limit, f->limit_s, sizeof(f->limit_s));
	fmt_bytes(f->hard, f->hard_s, sizeof(f->hard_s));
	fmt_bytes(f->need, f->need_s, sizeof(f->need_s));
	if (f->need && f->have_limit)
		snprintf(f->nums, sizeof(f->nums), "; it needs at least %s (limit %s)", f->need_s, f->limit_s);
	else if (f->need)
		snprintf(f->nums, sizeof(f->nums), "; it needs at least %s", f->need_s);
	else if (f->have_limit)
		snprintf(f->nums, sizeof(f->nums), " (limit now %s)", f->limit_s);
}

/* A finite value to suggest when someone will not write "infinity". */
static void finite_hint(const struct facts *f, char *buf, size_t len)
{
	buf[0] = '\0';
	if (f->need)
		snprintf(buf, len, " A finite value must be at least %s, with headroom for every MR the "
			 "process keeps registered.", f->need_s);
}

/* ---- per setting ------------------------------------------------------------ */

static void fix_systemd(const struct facts *f, struct fix_list *out)
{
	const char *u = f->ctx->systemd_unit;
	char hint[200];
	finite_hint(f, hint, sizeof(hint));
	if (f->setting == CTX_SET_SYSTEMD_USER) {
		fix_add(out, FIX_PRIMARY,
			"Raise the limit of the user unit %s: `systemctl --user edit %s`, add `[Service]` and "
			"`LimitMEMLOCK=infinity`, then `systemctl --user daemon-reload && systemctl --user "
			"restart %s`%s.%s",
			u, u, u, f->nums, hint);
		if (f->host_uid >= 0)
			fix_add(out, FIX_ALTERNATIVE,
				"A user manager cannot raise its own hard limit%s%s%s: as root, `systemctl edit "
				"user@%ld.service` with `[Service]` / `LimitMEMLOCK=infinity`, then log out and "
				"in again (or `systemctl restart user@%ld.service`).",
				f->have_hard ? " (now " : "", f->have_hard ? f->hard_s : "", f->have_hard ? ")" : "",
				f->host_uid, f->host_uid);
	} else {
		fix_add(out, FIX_PRIMARY,
			"Raise the limit of %s: `systemctl edit %s` and add `[Service]` and "
			"`LimitMEMLOCK=infinity` (a drop-in in /etc/systemd/system/%s.d/), then "
			"`systemctl daemon-reload && systemctl restart %s`%s.%s",
			u, u, u, u, f->nums, hint);
	}
	fix_add(out, FIX_NOTE,
		"/etc/security/limits.conf does not apply to services: pam_limits runs only for login "
		"sessions, and a service gets RLIMIT_MEMLOCK from its unit (LimitMEMLOCK=, else systemd's "
		"DefaultLimitMEMLOCK). Raising it from the ExecStart script cannot go above the unit's "
		"hard limit.");
	fix_add(out, FIX_NOTE, "Check after the restart: `systemctl show %s%s -p LimitMEMLOCK` and the "
		"\"Max locked memory\" line of /proc/<pid>/limits.",
		f->setting == CTX_SET_SYSTEMD_USER ? "--user " : "", u);
}

static void short_id(const struct proc_context *c, char *buf, size_t len)
{
	if (c->container_id[0])
		snprintf(buf, len, " %.12s", c->container_id);
	else
		buf[0] = '\0';
}

static void cap_note(const struct facts *f, struct fix_list *out, const char *how)
{
	fix_add(out, FIX_ALTERNATIVE,
		"%s also works, because ib_umem_get skips the limit when capable(CAP_IPC_LOCK); only "
		"for a container in the initial user namespace (rootful, no userns-remap / user "
		"namespaces), since capable() checks that namespace.%s",
		how, f->ctx->cap_ipc_lock ? " This process already has CAP_IPC_LOCK, so the failure "
					    "means it does not count here." : "");
}

static void fix_docker(const struct facts *f, struct fix_list *out)
{
	char id[20], hint[200];
	short_id(f->ctx, id, sizeof(id));
	finite_hint(f, hint, sizeof(hint));
	fix_add(out, FIX_PRIMARY,
		"Recreate the container%s with `docker run --ulimit memlock=-1:-1 ...` (compose: "
		"`ulimits:` / `memlock: -1`), or for every container set `\"default-ulimits\": "
		"{\"memlock\": {\"Name\": \"memlock\", \"Soft\": -1, \"Hard\": -1}}` in "
		"/etc/docker/daemon.json and restart dockerd%s.%s",
		id, f->nums, hint);
	cap_note(f, out, "`--cap-add IPC_LOCK`");
	fix_add(out, FIX_NOTE,
		"Inside the container `ulimit -l` cannot exceed the hard limit it started with%s%s%s, and "
		"the image's limits.conf is never read (no PAM login).",
		f->have_hard ? " (" : "", f->have_hard ? f->hard_s : "", f->have_hard ? ")" : "");
}

static void containerd_unit_fix(const struct facts *f, struct fix_list *out, enum fix_kind kind,
				const char *restart)
{
	fix_add(out, kind,
		"Containers inherit containerd's own limits (the CRI default spec sets no RLIMIT_MEMLOCK): "
		"`systemctl edit containerd` with `[Service]` / `LimitMEMLOCK=infinity`, `systemctl "
		"daemon-reload && systemctl restart containerd`, then %s (running containers keep the "
		"limit they started with)%s.",
		restart, f->nums);
}

static void crio_fix(const struct facts *f, struct fix_list *out, enum fix_kind kind, const char *restart)
{
	fix_add(out, kind,
		"Set `default_ulimits = [\"memlock=-1:-1\"]` in the [crio.runtime] table of "
		"/etc/crio/crio.conf (or a file in /etc/crio/crio.conf.d/), `systemctl restart crio`, "
		"then %s%s.",
		restart, f->nums);
}

static void fix_kubernetes(const struct facts *f, struct fix_list *out)
{
	const struct proc_context *c = f->ctx;
	const char *restart = "delete the pod so it is recreated";
	if (c->runtime == CTX_RT_CRIO) {
		crio_fix(f, out, FIX_PRIMARY, restart);
	} else if (c->runtime == CTX_RT_CONTAINERD) {
		containerd_unit_fix(f, out, FIX_PRIMARY, restart);
	} else {
		containerd_unit_fix(f, out, FIX_PRIMARY, restart);
		crio_fix(f, out, FIX_ALTERNATIVE, restart);
	}
	/* A non-root process gets no capability from capabilities.add: the
	 * kernel recomputes its sets at exec, and without ambient capabilities
	 * (which Kubernetes does not set) a non-root effective set is empty. */
	long uid = c->have & CTX_HAVE_NS_UID ? (long)c->ns_uid : c->have & CTX_HAVE_UID ? (long)c->uid : 0;
	if (uid != 0)
		fix_add(out, FIX_ALTERNATIVE,
			"`IPC_LOCK` in the container's `securityContext.capabilities.add` does not reach "
			"this process: it runs as uid %ld, and without ambient capabilities (Kubernetes "
			"sets none) a non-root process holds no capability after exec. It works only with "
			"`runAsUser: 0` (and hostUsers left true), or with the file capability "
			"`setcap cap_ipc_lock+ep` on the program (allowPrivilegeEscalation: true).", uid);
	else
		cap_note(f, out, "Adding `IPC_LOCK` to the container's `securityContext.capabilities.add` "
			 "(hostUsers left true)");
	fix_add(out, FIX_NOTE,
		"Kubernetes has no per-pod rlimit field, and the RDMA device plugin / network operator "
		"only exposes /dev/infiniband: the limit comes from the node's runtime. Pod %s: "
		"`kubectl get pods -A -o "
		"custom-columns=NS:.metadata.namespace,NAME:.metadata.name,UID:.metadata.uid | grep %s`.",
		c->pod_uid, c->pod_uid);
}

static void fix_containerd(const struct facts *f, struct fix_list *out)
{
	char id[20];
	short_id(f->ctx, id, sizeof(id));
	char restart[64];
	snprintf(restart, sizeof(restart), "recreate the container%s", id);
	fix_add(out, FIX_PRIMARY, "Recreate the container%s with `nerdctl run --ulimit memlock=-1:-1` "
		"(or an OCI spec whose process.rlimits has RLIMIT_MEMLOCK -1/-1)%s.", id, f->nums);
	containerd_unit_fix(f, out, FIX_ALTERNATIVE, restart);
	cap_note(f, out, "`--cap-add IPC_LOCK`");
}

static void fix_podman(const struct facts *f, struct fix_list *out)
{
	char id[20];
	short_id(f->ctx, id, sizeof(id));
	fix_add(out, FIX_PRIMARY,
		"Recreate the container%s with `podman run --ulimit memlock=-1:-1 ...`, or for every "
		"container set `default_ulimits = [\"memlock=-1:-1\"]` in the [containers] table of "
		"/etc/containers/containers.conf%s.",
		id, f->nums);
	cap_note(f, out, "`--cap-add IPC_LOCK`");
}

static void fix_crio(const struct facts *f, struct fix_list *out)
{
	crio_fix(f, out, FIX_PRIMARY, "recreate the container");
	cap_note(f, out, "Adding the IPC_LOCK capability");
}

static void fix_container(const struct facts *f, struct fix_list *out)
{
	char id[20];
	short_id(f->ctx, id, sizeof(id));
	fix_add(out, FIX_PRIMARY,
		"Set RLIMIT_MEMLOCK for the container%s in its runtime (`--ulimit memlock=-1:-1`, or "
		"process.rlimits in the OCI spec), or raise LimitMEMLOCK of the runtime daemon's unit, "
		"whose limit containers inherit%s.",
		id, f->nums);
	cap_note(f, out, "Granting CAP_IPC_LOCK");
}

static void fix_userns(const struct facts *f, struct fix_list *out)
{
	if (f->host_uid < 0) {
		/* a rootful runtime with user namespaces (userns-remap, hostUsers:
		 * false): the daemon's unit holds the limit containers start under */
		fix_add(out, FIX_PRIMARY,
			"Raise the limit on the host side: this container runs in a user namespace, where "
			"no one can go above the hard limit it started with%s%s%s. Start it with `--ulimit "
			"memlock=-1:-1` (Kubernetes: the runtime's default, e.g. `LimitMEMLOCK=infinity` for "
			"containerd.service) and give the runtime daemon's unit `LimitMEMLOCK=infinity`%s.",
			f->have_hard ? " (now " : "", f->have_hard ? f->hard_s : "", f->have_hard ? ")" : "",
			f->nums);
	} else {
		char unit[48];
		snprintf(unit, sizeof(unit), "user@%ld.service", f->host_uid);
		fix_add(out, FIX_PRIMARY,
			"Raise the limit on the host side, for uid %ld: inside a user namespace no one can "
			"go above the hard limit its creator had%s%s%s. Add `%s hard memlock unlimited` "
			"(and soft) in /etc/security/limits.d/ and log in again, and if the runtime runs "
			"under systemd --user, `LimitMEMLOCK=infinity` via `systemctl edit %s`; then run "
			"the container with `--ulimit memlock=-1:-1` (podman: or `--ulimit host`)%s.",
			f->host_uid, f->have_hard ? " (now " : "", f->have_hard ? f->hard_s : "",
			f->have_hard ? ")" : "", f->user, unit, f->nums);
	}
	fix_add(out, FIX_NOTE,
		"CAP_IPC_LOCK inside a user namespace does not count: ib_umem_get checks "
		"capable(CAP_IPC_LOCK), which looks at the initial user namespace, so `--cap-add IPC_LOCK` "
		"or --privileged in a rootless container does not lift the limit.%s",
		f->ctx->cap_ipc_lock ? " This process has CAP_IPC_LOCK in CapEff and still failed." : "");
}

static void fix_slurm(const struct facts *f, struct fix_list *out)
{
	const struct proc_context *c = f->ctx;
	char job[64] = "";
	if (c->slurm_job >= 0)
		snprintf(job, sizeof(job), " (job %ld%s%s)", c->slurm_job, c->slurm_step[0] ? ", step " : "",
			 c->slurm_step);
	fix_add(out, FIX_PRIMARY,
		"Slurm tasks%s take the memlock limit of the shell srun/sbatch ran in, capped by "
		"slurmd's hard limit (PropagateResourceLimits=ALL is the default), or, when MEMLOCK is "
		"not propagated, slurmd's own: set "
		"`PropagateResourceLimitsExcept=MEMLOCK` in slurm.conf (`scontrol reconfigure`) and "
		"`LimitMEMLOCK=infinity` in a slurmd.service drop-in (`systemctl edit slurmd`, restart "
		"slurmd) on every compute node%s.",
		job, f->nums);
	fix_add(out, FIX_ALTERNATIVE,
		"Or raise the limit where jobs are submitted (limits.conf on the login nodes, new login) "
		"so propagation carries a high value; slurmd logs \"Can't propagate RLIMIT_MEMLOCK\" when "
		"the submitted value is above its own hard limit.");
	if (f->have_hard && (f->hard == CTX_UNLIMITED || (f->need && f->hard >= f->need)))
		fix_add(out, FIX_ALTERNATIVE,
			"For this job only: `%s` at the top of the batch script works, "
			"since the step's hard limit is %s.",
			f->ulimit, f->hard_s);
	else
		fix_add(out, FIX_NOTE,
			"`ulimit -l unlimited` inside the batch script cannot exceed the hard limit the "
			"step started with%s%s%s.",
			f->have_hard ? " (" : "", f->have_hard ? f->hard_s : "", f->have_hard ? ")" : "");
}

static void fix_mpi(const struct facts *f, struct fix_list *out)
{
	const struct ctx_launcher *d = proc_context_launcher(f->ctx, CTX_L_MPI_DAEMON);
	char daemon[48];
	if (d)
		snprintf(daemon, sizeof(daemon), "%s(%d)", d->comm, d->pid);
	else
		snprintf(daemon, sizeof(daemon), "orted/prted");
	if (f->setting == CTX_SET_MPI_REMOTE) {
		fix_add(out, FIX_PRIMARY,
			"This rank runs under the MPI daemon %s, started over ssh, so it has the limit of "
			"that ssh session on this node: put `* soft memlock unlimited` and `* hard memlock "
			"unlimited` in /etc/security/limits.d/ on EVERY node and keep `UsePAM yes` in "
			"sshd_config; new ssh sessions pick it up (check: `ssh <node> ulimit -l`)%s.",
			daemon, f->nums);
		fix_add(out, FIX_ALTERNATIVE,
			"If sshd does not use PAM, sessions inherit sshd's own limit: `LimitMEMLOCK=infinity` "
			"in a drop-in for ssh.service / sshd.service and restart it.");
	} else {
		fix_add(out, FIX_PRIMARY,
			"Ranks that mpirun starts on this node inherit the limit of the shell that ran "
			"mpirun: `%s` there before mpirun (works up to the hard limit%s%s%s, "
			"beyond that limits.conf and a new login)%s.",
			f->ulimit, f->have_hard ? ", " : "", f->have_hard ? f->hard_s : "",
			f->have_hard ? " now" : "", f->nums);
		fix_add(out, FIX_ALTERNATIVE,
			"Ranks on other nodes run under orted/prted started over ssh: they get the ssh "
			"session's limit there, so raise it in /etc/security/limits.d/ on every node.");
	}
	fix_add(out, FIX_NOTE,
		"`ulimit -l` in the shell that runs mpirun does not reach remote daemons, and `mpirun -x` "
		"passes environment variables, not limits.");
}

static void fix_shell(const struct facts *f, struct fix_list *out)
{
	bool hard_ok = f->have_hard && (f->hard == CTX_UNLIMITED || (f->need && f->hard >= f->need));
	if (hard_ok) {
		fix_add(out, FIX_PRIMARY,
			"Run `%s` (the hard limit is %s, so this is allowed) in the shell "
			"that starts the job, then start it again%s.",
			f->ulimit, f->hard_s, f->nums);
		fix_add(out, FIX_ALTERNATIVE,
			"To make it permanent: `%s soft memlock unlimited` in /etc/security/limits.d/ "
			"(and `%s hard memlock unlimited` where the hard limit is finite) and a new login.",
			f->user, f->user);
	} else {
		fix_add(out, FIX_PRIMARY,
			"Add `%s soft memlock unlimited` and `%s hard memlock unlimited` to "
			"/etc/security/limits.d/99-memlock.conf and log in again (pam_limits sets them at "
			"login)%s.",
			f->user, f->user, f->nums);
		fix_add(out, FIX_NOTE,
			"`ulimit -l unlimited` alone fails here: an unprivileged shell cannot raise its "
			"soft limit above the hard limit%s%s%s.",
			f->have_hard ? " (" : "", f->have_hard ? f->hard_s : "", f->have_hard ? ")" : "");
	}
}

static void fix_unknown(const struct facts *f, struct fix_list *out)
{
	fix_add(out, FIX_PRIMARY,
		"Raise RLIMIT_MEMLOCK where the job is started%s: a systemd unit needs "
		"`LimitMEMLOCK=infinity`; a container needs `--ulimit memlock=-1:-1` (or its runtime "
		"daemon's LimitMEMLOCK); a login shell needs limits.conf (`* hard memlock unlimited`) and "
		"a new login, then `ulimit -l unlimited`.",
		f->nums);
}

/* ---- NCCL-side stopgaps ----------------------------------------------------- */

static const char *range(const struct nccl_estimate *e, char *buf, size_t len)
{
	char lo[32], hi[32];
	fmt_bytes(e->host_min, lo, sizeof(lo));
	fmt_bytes(e->host_max, hi, sizeof(hi));
	if (e->host_min == e->host_max)
		snprintf(buf, len, "%s", hi);
	else
		snprintf(buf, len, "%s-%s", lo, hi);
	return buf;
}

static void nccl_stopgaps(const struct fix_input *in, const struct facts *f, struct fix_list *out)
{
	const struct nccl_info *n = in->nccl;
	if (!n)
		return;
	for (int i = 0; i < n->lint.n; i++) {
		const struct nccl_lint_finding *l = &n->lint.f[i];
		if (l->kind == NCCL_LINT_NONEXISTENT)
			fix_add(out, FIX_NOTE, "Set but ignored, so not a mitigation: %s", l->message);
	}
	if (!n->lib.found && !n->settings.n)
		return;

	const struct nccl_estimate *e = &n->estimate;
	char now[72], then[72], per[32], lim[96] = "";
	range(e, now, sizeof(now));
	fmt_bytes((uint64_t)(e->sends + e->recvs) * (uint64_t)e->nics * e->per_conn_host_no_gdr, per,
		  sizeof(per));

	if (e->simple_bytes > (1u << 20)) {
		/* what NCCL would pin with 1 MiB Simple buffers, same job shape
		 * and settings (estimated as if NCCL_BUFFSIZE said so: the
		 * settings are not copied) */
		struct nccl_estimate e2 = *e;
		struct nccl_estimate_params p = { .channels = e->channels, .sends = e->sends,
						  .recvs = e->recvs, .nics = e->nics, .buffsize = 1048576 };
		nccl_estimate(&n->settings, &p, &e2);
		range(&e2, then, sizeof(then));
		if (f->have_limit && f->limit != CTX_UNLIMITED && e2.host_min > f->limit)
			snprintf(lim, sizeof(lim), "; still above the limit (%s), so not enough alone",
				 f->limit_s);
		fix_add(out, FIX_STOPGAP,
			"Until the limit is raised NCCL can pin less (slower): `NCCL_BUFFSIZE=1048576` "
			"(plain bytes: NCCL reads \"1M\" as 1) takes its network buffers from about %s "
			"to %s%s.",
			now, then, lim);
	}
	fix_add(out, FIX_STOPGAP,
		"`NCCL_MAX_NCHANNELS` below the channel count NCCL picks saves about %s of pinned host "
		"memory per channel without GDR (estimate: %s).",
		per, e->assumptions);

	char nogdr[32], ll[32];
	fmt_bytes(e->host_no_gdr, nogdr, sizeof(nogdr));
	fmt_bytes(e->host_with_gdr, ll, sizeof(ll));
	if (e->gdr == NCCL_GDR_OFF)
		fix_add(out, FIX_NOTE,
			"NCCL_NET_GDR_LEVEL turns GPUDirect RDMA off, so LL128 and Simple buffers are "
			"pinned host memory (about %s); where GDR works through dma-buf (which memlock "
			"does not count), removing it leaves about %s.",
			nogdr, ll);
	else
		fix_add(out, FIX_STOPGAP,
			"`NCCL_NET_GDR_LEVEL=LOC` (GPUDirect RDMA off) helps only where registering GPU "
			"memory counts against memlock (MLNX_OFED peer memory / nvidia-peermem); it moves "
			"LL128 and Simple buffers into pinned host memory (about %s here), so on the "
			"dma-buf path it raises the need.",
			nogdr);
}

/* ---- memlock_limit / memlock_zero ------------------------------------------- */

void fixes_memlock(const struct fix_input *in, struct fix_list *out)
{
	struct facts f;
	gather(in, &f);
	bool zero = in->cause == CAUSE_MEMLOCK_ZERO || (f.have_limit && f.limit == 0);
	if (zero)
		fix_add(out, FIX_NOTE,
			"RLIMIT_MEMLOCK is 0: ib_umem_get refuses before pinning a single page (EPERM), so "
			"no NCCL setting can work around it; the limit itself must change.");

	switch (f.setting) {
	case CTX_SET_SYSTEMD_SERVICE:
	case CTX_SET_SYSTEMD_USER: fix_systemd(&f, out); break;
	case CTX_SET_DOCKER: fix_docker(&f, out); break;
	case CTX_SET_KUBERNETES: fix_kubernetes(&f, out); break;
	case CTX_SET_CONTAINERD: fix_containerd(&f, out); break;
	case CTX_SET_PODMAN: fix_podman(&f, out); break;
	case CTX_SET_CRIO: fix_crio(&f, out); break;
	case CTX_SET_CONTAINER: fix_container(&f, out); break;
	case CTX_SET_USERNS: fix_userns(&f, out); break;
	case CTX_SET_SLURM: fix_slurm(&f, out); break;
	case CTX_SET_MPI_REMOTE:
	case CTX_SET_MPI_LOCAL: fix_mpi(&f, out); break;
	case CTX_SET_SHELL: fix_shell(&f, out); break;
	case CTX_SET_UNKNOWN: fix_unknown(&f, out); break;
	}
	if (!zero)
		nccl_stopgaps(in, &f, out);
}
