// SPDX-License-Identifier: GPL-2.0-only
/* memlock.c - RLIMIT_MEMLOCK, the usual cause of errno 12 from
 * ibv_reg_mr*: ib_umem_get adds the request to mm->pinned_vm and refuses
 * (ENOMEM) when that exceeds the soft limit and the process lacks
 * CAP_IPC_LOCK in the *initial* user namespace; a zero limit is EPERM.
 *
 * With -p it judges the process itself (through context.h).  Without -p it
 * shows the defaults new jobs get, each labelled with where it applies;
 * the operator's own `ulimit -l` is shown last and labelled as saying
 * nothing about the job. */
#include "check/builder.h"
#include "check/areas.h"
#include "verdict/fixes.h"
#include "core/sysroot.h"
#include "core/units.h"

#include <stdlib.h>
#include <string.h>

/* Below this a multi-node NCCL job cannot fit its network buffers without
 * GPUDirect (about 9.2 MiB per connection, docs/design.md section 4), and even with
 * it a few dozen connections of 512 KiB LL buffers use it up. */
#define MLK_FLOOR (64ULL << 20)

static const char *B(uint64_t v, char *buf)
{
	return fmt_bytes(v, buf, 32);
}

static uint64_t mem_total(const char *root)
{
	char text[8192];
	if (sr_read_all(root, "/proc/meminfo", text, sizeof(text), NULL))
		return 0;
	const char *p = strstr(text, "MemTotal:");
	return p ? strtoull(p + 9, NULL, 10) * 1024 : 0;
}

/* ok / warn / fail for a finite or unlimited limit that applies to a job. */
static enum chk_verdict judge(uint64_t soft, uint64_t memtotal)
{
	if (soft == UINT64_MAX || (memtotal && soft >= memtotal))
		return CHK_OK;
	if (soft == 0)
		return CHK_FAIL;
	return soft < MLK_FLOOR ? CHK_FAIL : CHK_WARN;
}

static void add_fixes(struct chk_item *it, const struct chk_report *r, enum cause cause)
{
	struct fix_input in = { .cause = cause, .ctx = r->have_target ? r->target : NULL,
				.nccl = r->nccl };
	if (r->have_target && (r->target->have & CTX_HAVE_MEMLOCK)) {
		in.have_limit = true;
		in.limit_bytes = r->target->memlock_soft;
	}
	if (r->have_target && (r->target->have & CTX_HAVE_VMPIN)) {
		in.have_pinned = true;
		in.pinned_before = r->target->vm_pin;
	}
	struct fix_list fl;
	if (fixes_for(&in, &fl) <= 0)
		return;
	/* The primary fix fits where this process runs; one alternative is
	 * enough on a 3 a.m. screen, the rest is in `watch` output. */
	int shown = 0;
	for (int i = 0; i < fl.n && shown < 2; i++)
		if (fl.items[i].kind == FIX_PRIMARY || fl.items[i].kind == FIX_ALTERNATIVE) {
			chk_fix(it, "%s", fl.items[i].text);
			shown++;
		}
}

static void process_limit(struct chk_report *r, json_object *sec)
{
	const struct proc_context *c = r->target;
	char b1[32], b2[32], b3[32], b4[32];
	uint64_t memtotal = mem_total(r->opt.root);
	bool have = c->have & CTX_HAVE_MEMLOCK;
	bool caps = c->have & CTX_HAVE_CAPS, userns_known = c->have & CTX_HAVE_USERNS;
	/* capable() looks at the initial user namespace: a rootless container's
	 * "root" with CAP_IPC_LOCK still hits the limit. */
	bool cap_counts = caps && c->cap_ipc_lock && !(userns_known && c->in_userns);
	bool cap_userns_only = caps && c->cap_ipc_lock && userns_known && c->in_userns;

	json_object *p = json_object_new_object();
	json_object_object_add(p, "pid", json_object_new_int(c->pid));
	json_object_object_add(p, "soft_bytes", have ? chk_json_limit(c->memlock_soft) : NULL);
	json_object_object_add(p, "hard_bytes", (c->have & CTX_HAVE_MEMLOCK_HARD) ?
			       chk_json_limit(c->memlock_hard) : NULL);
	json_object_object_add(p, "vm_pin_bytes", (c->have & CTX_HAVE_VMPIN) ?
			       json_object_new_int64((int64_t)c->vm_pin) : NULL);
	json_object_object_add(p, "vm_lck_bytes", (c->have & CTX_HAVE_VMLCK) ?
			       json_object_new_int64((int64_t)c->vm_lck) : NULL);
	json_object_object_add(p, "cap_ipc_lock", caps ? json_object_new_boolean(c->cap_ipc_lock) : NULL);
	json_object_object_add(p, "cap_ipc_lock_effective", caps ? json_object_new_boolean(cap_counts) : NULL);
	json_object_object_add(p, "in_userns", userns_known ? json_object_new_boolean(c->in_userns) : NULL);
	json_object_object_add(sec, "process", p);

	struct chk_item *it;
	if (!have) {
		chk_add(r, "memlock", "memlock.limit", CHK_UNKNOWN, CHK_CLS_ENV, "limit",
			"pid %d: /proc/%d/limits unreadable", c->pid, c->pid);
	} else {
		enum chk_verdict v = cap_counts ? CHK_OK : judge(c->memlock_soft, memtotal);
		it = chk_add(r, "memlock", "memlock.limit", v, CHK_CLS_ENV, "limit",
			     "soft %s, hard %s%s", B(c->memlock_soft, b1),
			     (c->have & CTX_HAVE_MEMLOCK_HARD) ? B(c->memlock_hard, b2) : "?",
			     cap_counts && c->memlock_soft != UINT64_MAX ?
			     " (not enforced: CAP_IPC_LOCK)" : "");
		if (v == CHK_FAIL && c->memlock_soft == 0) {
			chk_note(it, "A zero limit makes every registration fail with EPERM "
				 "(ib_umem_get: can_do_mlock() is false).");
			add_fixes(it, r, CAUSE_MEMLOCK_ZERO);
		} else if (v != CHK_OK) {
			chk_note(it, "ib_umem_get refuses with ENOMEM (errno 12) once the process's "
				 "pinned memory would pass %s; free RAM does not matter.",
				 B(c->memlock_soft, b1));
			if (c->memlock_soft < MLK_FLOOR)
				chk_note(it, "Without GPUDirect NCCL pins about 9.2 MiB per network "
					 "connection; %s does not hold a multi-node job.", B(c->memlock_soft, b1));
			add_fixes(it, r, CAUSE_MEMLOCK_LIMIT);
		}
	}

	if (c->have & CTX_HAVE_VMPIN) {
		enum chk_verdict v = CHK_OK;
		char pct[48] = "";
		if (have && !cap_counts && c->memlock_soft != UINT64_MAX && c->memlock_soft) {
			uint64_t pc = c->vm_pin * 100 / c->memlock_soft;
			snprintf(pct, sizeof(pct), " (%llu%% of the limit)", (unsigned long long)pc);
			if (pc >= 90)
				v = CHK_FAIL;
		}
		it = chk_add(r, "memlock", "memlock.pinned", v, CHK_CLS_ENV, "pinned now",
			     "VmPin %s%s, VmLck %s", B(c->vm_pin, b3), pct,
			     (c->have & CTX_HAVE_VMLCK) ? B(c->vm_lck, b4) : "?");
		if (v == CHK_FAIL)
			chk_note(it, "The next registration that does not fit in the %s left fails; "
				 "pinned_vm counts every live MR, overlapping ones twice.",
				 B(c->memlock_soft > c->vm_pin ? c->memlock_soft - c->vm_pin : 0, b1));
	}

	if (!caps) {
		chk_add(r, "memlock", "memlock.cap_ipc_lock", CHK_UNKNOWN, CHK_CLS_ENV, "CAP_IPC_LOCK",
			"capabilities unreadable");
	} else if (cap_userns_only) {
		it = chk_add(r, "memlock", "memlock.cap_ipc_lock",
			     have && c->memlock_soft == UINT64_MAX ? CHK_OK : CHK_WARN, CHK_CLS_ENV,
			     "CAP_IPC_LOCK", "held only inside a user namespace: does not lift the limit");
		chk_note(it, "The kernel checks CAP_IPC_LOCK in the initial user namespace "
			 "(rootless containers, userns-remapped runtimes); only the limit counts here.");
	} else {
		chk_add(r, "memlock", "memlock.cap_ipc_lock", CHK_OK, CHK_CLS_ENV, "CAP_IPC_LOCK",
			"%s", c->cap_ipc_lock ? "held: the memlock limit does not apply" :
			"not held: the limit applies");
	}

	/* What NCCL's network buffers need, beside the limit. */
	if (r->nccl && r->nccl->lib.found && have && !cap_counts) {
		const struct nccl_estimate *e = &r->nccl->estimate;
		enum chk_verdict v = c->memlock_soft == UINT64_MAX ? CHK_OK :
				     c->memlock_soft < e->host_min ? CHK_FAIL :
				     c->memlock_soft < e->host_max ? CHK_WARN : CHK_OK;
		it = chk_add(r, "memlock", "memlock.nccl_need", v, CHK_CLS_ENV, "NCCL needs",
			     "about %s with GPUDirect, %s without (limit %s)", B(e->host_min, b1),
			     B(e->host_max, b2), B(c->memlock_soft, b3));
		if (e->assumptions[0])
			chk_note(it, "Estimate: %s.", e->assumptions);
		json_object *n = json_object_new_object();
		json_object_object_add(n, "host_min_bytes", json_object_new_int64((int64_t)e->host_min));
		json_object_object_add(n, "host_max_bytes", json_object_new_int64((int64_t)e->host_max));
		json_object_object_add(sec, "nccl_estimate", n);
	}
}

/* ---- defaults (no -p) ------------------------------------------------------ */

/* A default only hurts the jobs its launcher starts, and without -p we do
 * not know which launcher that is: defaults never go beyond a warning. */
static enum chk_verdict judge_default(uint64_t soft, uint64_t memtotal)
{
	return judge(soft, memtotal) == CHK_OK ? CHK_OK : CHK_WARN;
}

static json_object *limit_json(const struct chk_limit *l)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "found", json_object_new_boolean(l->exists));
	json_object_object_add(o, "set", json_object_new_boolean(l->set));
	json_object_object_add(o, "soft_bytes", l->set ? chk_json_limit(l->soft) : NULL);
	json_object_object_add(o, "hard_bytes", l->set ? chk_json_limit(l->hard) : NULL);
	chk_json_str(o, "source", l->source);
	return o;
}

/* systemd's built-in DefaultLimitMEMLOCK when nothing sets it: 8 MiB with
 * current systemd and kernels (the kernel default was 64 KiB before 5.16). */
#define SYSTEMD_BUILTIN (8ULL << 20)

static const struct { const char *unit, *what; } job_units[] = {
	{ "slurmd.service", "Slurm jobs" },
	{ "containerd.service", "containers and Kubernetes pods (containerd)" },
	{ "docker.service", "Docker containers" },
	{ "crio.service", "Kubernetes pods (CRI-O)" },
	{ "kubelet.service", "kubelet" },
};

/* How many job-starting units exist, and how many of them inherit the
 * default instead of setting LimitMEMLOCK themselves. */
static void count_units(const char *root, int *found, int *inheriting)
{
	*found = *inheriting = 0;
	for (size_t i = 0; i < sizeof(job_units) / sizeof(job_units[0]); i++) {
		struct chk_limit u;
		chk_unit_memlock(root, job_units[i].unit, &u);
		*found += u.exists;
		*inheriting += u.exists && !u.set;
	}
}

static void defaults_systemd(struct chk_report *r, json_object *sec, uint64_t memtotal,
			     uint64_t *unit_default)
{
	struct chk_limit d;
	char b1[32], b2[32];
	int found, inheriting;
	chk_systemd_default_memlock(r->opt.root, &d);
	count_units(r->opt.root, &found, &inheriting);
	json_object_object_add(sec, "systemd_default", limit_json(&d));
	*unit_default = d.set ? d.soft : SYSTEMD_BUILTIN;
	if (!d.exists)
		return;
	/* A small default only matters if something that starts jobs
	 * inherits it (or we found nothing that starts jobs). */
	enum chk_verdict v = judge(*unit_default, memtotal) == CHK_OK ? CHK_OK : CHK_WARN;
	if (v == CHK_WARN && found > 0 && inheriting == 0)
		v = CHK_OK;
	const char *tail = v == CHK_OK && judge(*unit_default, memtotal) != CHK_OK ?
			   "; the job units below set their own" : "";
	struct chk_item *it;
	if (d.set)
		it = chk_add(r, "memlock", "memlock.systemd_default", v, CHK_CLS_ENV,
			     "systemd services", "DefaultLimitMEMLOCK %s:%s (%s)%s", B(d.soft, b1),
			     B(d.hard, b2), d.source, tail);
	else
		it = chk_add(r, "memlock", "memlock.systemd_default", v, CHK_CLS_ENV,
			     "systemd services",
			     "DefaultLimitMEMLOCK not set: systemd's built-in default, 8 MiB%s", tail);
	if (it && it->verdict != CHK_OK) {
		chk_note(it, "Services started by systemd (slurmd, containerd, dockerd, kubelet) "
			 "and everything they start get this unless the unit sets LimitMEMLOCK; "
			 "limits.conf does not apply to them.");
		chk_fix(it, "LimitMEMLOCK=infinity in the job-starting unit (systemctl edit "
			"slurmd.service, then restart it), or DefaultLimitMEMLOCK=infinity in "
			"/etc/systemd/system.conf.d/ and systemctl daemon-reexec.");
	}
}

static void defaults_units(struct chk_report *r, json_object *sec, uint64_t memtotal,
			   uint64_t unit_default)
{
	char b1[32], src[256] = "";
	json_object *units = json_object_new_object();
	json_object_object_add(sec, "units", units);
	for (size_t i = 0; i < sizeof(job_units) / sizeof(job_units[0]); i++) {
		struct chk_limit u;
		chk_unit_memlock(r->opt.root, job_units[i].unit, &u);
		if (!u.exists)
			continue;
		uint64_t eff = u.set ? u.soft : unit_default;
		json_object *o = limit_json(&u);
		json_object_object_add(o, "effective_soft_bytes", chk_json_limit(eff));
		json_object_object_add(units, job_units[i].unit, o);

		char id[96];
		snprintf(id, sizeof(id), "memlock.unit.%s", job_units[i].unit);
		bool docker = !strcmp(job_units[i].unit, "docker.service");
		struct chk_limit dj = { 0 };
		if (docker && chk_docker_default_memlock(r->opt.root, &dj) == 0 && dj.set) {
			/* daemon.json default-ulimits replaces the inherited
			 * limit for every container started without --ulimit. */
			json_object_object_add(sec, "docker_default_ulimit", limit_json(&dj));
			chk_add(r, "memlock", id, judge_default(dj.soft, memtotal), CHK_CLS_ENV,
				job_units[i].unit, "%s get %s (default-ulimits in %s)",
				job_units[i].what, B(dj.soft, b1), dj.source);
			continue;
		}
		struct chk_item *it = chk_add(r, "memlock", id, judge_default(eff, memtotal), CHK_CLS_ENV,
					      job_units[i].unit, "%s get %s (%s)", job_units[i].what,
					      B(eff, b1), u.set ? u.source :
					      "no LimitMEMLOCK: inherits the systemd default");
		if (it && it->verdict != CHK_OK) {
			chk_fix(it, "systemctl edit %s: [Service] LimitMEMLOCK=infinity, then restart it.",
				job_units[i].unit);
			if (docker)
				chk_fix(it, "Per container: docker run --ulimit memlock=-1:-1.");
			else if (strcmp(job_units[i].unit, "slurmd.service"))
				chk_note(it, "Kubernetes has no per-pod memlock setting: pods get the "
					 "runtime's limit.");
		}
		if (!strcmp(job_units[i].unit, "slurmd.service") &&
		    chk_slurm_propagates_memlock(r->opt.root, src, sizeof(src)) == 1) {
			json_object_object_add(sec, "slurm_propagates_memlock",
					       json_object_new_boolean(true));
			it = chk_add(r, "memlock", "memlock.slurm_propagate", CHK_WARN, CHK_CLS_ENV,
				     "Slurm propagation", "jobs get the submitting shell's limit (%s)", src);
			chk_note(it, "PropagateResourceLimits defaults to ALL: srun/sbatch copy the "
				 "memlock limit of the shell they ran in (often a login node) into "
				 "the job, capped by slurmd's hard limit.");
			chk_fix(it, "PropagateResourceLimitsExcept=MEMLOCK in slurm.conf, so jobs "
				"keep slurmd's limit.");
		}
	}
}

static void defaults_pam(struct chk_report *r, json_object *sec, uint64_t memtotal)
{
	enum { MAX_LINES = 256 };
	struct chk_limits_entry *e = calloc(MAX_LINES, sizeof(*e));
	char b1[32];
	int n = e ? chk_limits_conf_read(r->opt.root, e, MAX_LINES) : 0;
	json_object *a = json_object_new_array();
	char list[256] = "";
	bool small = false, star_only = n > 0;
	for (int i = 0; i < n; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "domain", json_object_new_string(e[i].domain));
		json_object_object_add(o, "type", json_object_new_string(e[i].type));
		json_object_object_add(o, "bytes", chk_json_limit(e[i].value));
		json_object_object_add(o, "source", json_object_new_string(e[i].source));
		json_object_array_add(a, o);
		small |= judge(e[i].value, memtotal) != CHK_OK;
		star_only &= !strcmp(e[i].domain, "*");
		str_appendf(list, sizeof(list), "%s%s %s %s", list[0] ? ", " : "", e[i].domain,
			    e[i].type, B(e[i].value, b1));
	}
	json_object_object_add(sec, "limits_conf", a);
	struct chk_item *it;
	if (n == 0)
		it = chk_add(r, "memlock", "memlock.limits_conf", CHK_WARN, CHK_CLS_ENV,
			     "ssh/PAM sessions", "no memlock line in /etc/security/limits.conf(.d)");
	else
		it = chk_add(r, "memlock", "memlock.limits_conf", small ? CHK_WARN : CHK_OK,
			     CHK_CLS_ENV, "ssh/PAM sessions", "%s (%s)", list, e[n - 1].source);
	if (it && (n == 0 || small)) {
		chk_note(it, "Applies to PAM logins (ssh, su), so to mpirun's remote daemons "
			 "started over ssh; systemd services ignore it.");
		chk_fix(it, "'* soft memlock unlimited' and '* hard memlock unlimited' in "
			"/etc/security/limits.d/, plus the same lines for root.");
	} else if (it && star_only) {
		chk_note(it, "pam_limits does not apply '*' to root: jobs that run as root "
			 "need explicit 'root' lines.");
	}
	if (it && n == MAX_LINES)
		chk_note(it, "Only the first %d memlock lines were read; later lines (which win) "
			 "were not examined.", MAX_LINES);
	free(e);
}

static void defaults_shell(struct chk_report *r, json_object *sec, uint64_t memtotal)
{
	char self[32], b1[32], b2[32];
	struct proc_context *c = proc_context_alloc(0);
	if (!c || sr_link_base(r->opt.root, "/proc/self", self, sizeof(self)) ||
	    proc_context_read(r->opt.root, atoi(self), c) || !(c->have & CTX_HAVE_MEMLOCK)) {
		free(c);
		return;
	}
	json_object *o = json_object_new_object();
	json_object_object_add(o, "soft_bytes", chk_json_limit(c->memlock_soft));
	json_object_object_add(o, "hard_bytes", (c->have & CTX_HAVE_MEMLOCK_HARD) ?
			       chk_json_limit(c->memlock_hard) : NULL);
	json_object_object_add(sec, "this_shell", o);
	struct chk_item *it = chk_add(r, "memlock", "memlock.this_shell",
				      judge_default(c->memlock_soft, memtotal), CHK_CLS_ENV, "this shell only",
				      "soft %s, hard %s: `ulimit -l` here, not the job's",
				      B(c->memlock_soft, b1),
				      (c->have & CTX_HAVE_MEMLOCK_HARD) ? B(c->memlock_hard, b2) : "?");
	chk_note(it, "Your shell's limit says nothing about a job started by slurmd, "
		 "containerd, systemd or sshd; run `mrtrace check -p PID` on one rank to see "
		 "the limit that the kernel enforces for it.");
	free(c);
}

void check_memlock(struct chk_report *r)
{
	json_object *sec = chk_section(r, "memlock");
	uint64_t memtotal = mem_total(r->opt.root);
	json_object_object_add(sec, "mem_total_bytes",
			       memtotal ? json_object_new_int64((int64_t)memtotal) : NULL);
	if (r->opt.pid > 0) {
		json_object_object_add(sec, "scope", json_object_new_string("process"));
		if (r->have_target)
			process_limit(r, sec);
		return;
	}
	json_object_object_add(sec, "scope", json_object_new_string("defaults"));
	uint64_t unit_default;
	defaults_systemd(r, sec, memtotal, &unit_default);
	defaults_units(r, sec, memtotal, unit_default);
	defaults_pam(r, sec, memtotal);
	defaults_shell(r, sec, memtotal);
}
