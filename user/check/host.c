// SPDX-License-Identifier: GPL-2.0-only
/* host.c - who and what the report is about: host name, kernel, and,
 * with -p, the target process (read once through context.h and shared by the
 * memlock and NCCL areas). */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void host_section(struct chk_report *r)
{
	const char *root = r->opt.root;
	json_object *h = json_object_new_object();
	char cmdline[4096] = "", version[512] = "";

	if (sr_read_line(root, "/proc/sys/kernel/hostname", r->hostname, sizeof(r->hostname)))
		snprintf(r->hostname, sizeof(r->hostname), "unknown");
	if (sr_read_line(root, "/proc/sys/kernel/osrelease", r->kernel, sizeof(r->kernel)))
		r->kernel[0] = '\0';
	sr_read_line(root, "/proc/version", version, sizeof(version));
	sr_read_line(root, "/proc/cmdline", cmdline, sizeof(cmdline));

	chk_json_str(h, "hostname", r->hostname);
	chk_json_str(h, "kernel", r->kernel);
	chk_json_str(h, "kernel_version", version);
	chk_json_str(h, "cmdline", cmdline);
	json_object_object_add(h, "sysroot", json_object_new_string(root && *root ? root : "/"));
	json_object_object_add(r->doc, "host", h);
}

static void target_section(struct chk_report *r)
{
	if (r->opt.pid <= 0) {
		json_object_object_add(r->doc, "target", NULL);
		return;
	}
	json_object *t = json_object_new_object();
	json_object_object_add(t, "pid", json_object_new_int(r->opt.pid));
	int e = proc_context_read(r->opt.root, r->opt.pid, r->target);
	json_object_object_add(t, "found", json_object_new_boolean(e == 0));
	json_object_object_add(r->doc, "target", t);
	if (e) {
		r->target_missing = e == -ESRCH;
		chk_add(r, "target", "target.process", CHK_UNKNOWN, CHK_CLS_NONE, "process",
			"pid %d: %s", r->opt.pid, e == -ESRCH ? "no such process" : strerror(-e));
		return;
	}
	const struct proc_context *c = r->target;
	/* Nothing of a job to judge: say what the pid is instead of a report
	 * of empty limits and mappings. */
	bool zombie = (c->have & CTX_HAVE_STATE) && (c->state == 'Z' || c->state == 'X');
	bool kthread = (c->have & CTX_HAVE_STATE) && c->kernel_thread;
	json_object_object_add(t, "zombie", json_object_new_boolean(zombie));
	json_object_object_add(t, "kernel_thread", json_object_new_boolean(kthread));
	if (zombie || kthread) {
		struct chk_item *it;
		if (zombie)
			it = chk_add(r, "target", "target.process", CHK_UNKNOWN, CHK_CLS_NONE, "process",
				     "pid %d is a zombie: it has exited and its parent (pid %d) has "
				     "not reaped it", r->opt.pid, c->ppid);
		else
			it = chk_add(r, "target", "target.process", CHK_UNKNOWN, CHK_CLS_NONE, "process",
				     "pid %d is a kernel thread (%s): it has no user memory to register",
				     r->opt.pid, c->comm);
		chk_note(it, "Its limits, mappings and settings are not a job's: give the pid of a "
			 "running rank (pgrep -f train.py).");
		chk_json_str(t, "comm", (c->have & CTX_HAVE_COMM) ? c->comm : "");
		return;
	}
	r->have_target = true;
	/* NCCL info is read once: memlock compares the limit with its
	 * estimate, the nccl area lints its settings. */
	r->nccl = nccl_info_alloc();
	if (r->nccl && nccl_info_read(r->opt.root, c, r->nccl)) {
		free(r->nccl);
		r->nccl = NULL;
	}
	char chain[512] = "";
	if (c->have & CTX_HAVE_LAUNCHERS)
		proc_context_launcher_chain(c, chain, sizeof(chain));
	chk_json_str(t, "comm", (c->have & CTX_HAVE_COMM) ? c->comm : "");
	chk_json_str(t, "exe", (c->have & CTX_HAVE_EXE) ? c->exe : "");
	chk_json_str(t, "cmdline", (c->have & CTX_HAVE_CMDLINE) ? c->cmdline : "");
	json_object_object_add(t, "setting",
			       json_object_new_string(ctx_setting_name(proc_context_setting(c))));
	if (c->have & CTX_HAVE_CGROUP) {
		chk_json_str(t, "cgroup", c->cgroup_path);
		chk_json_str(t, "runtime",
			     c->runtime != CTX_RT_NONE ? ctx_runtime_name(c->runtime) : "");
		chk_json_str(t, "container_id", c->container_id);
		chk_json_str(t, "systemd_unit", c->systemd_unit);
		json_object_object_add(t, "slurm_job", c->slurm_job >= 0 ?
				       json_object_new_int64(c->slurm_job) : NULL);
	}
	if (c->have & CTX_HAVE_USERNS)
		json_object_object_add(t, "in_userns", json_object_new_boolean(c->in_userns));
	chk_json_str(t, "launchers", chain);
}

void chk_host(struct chk_report *r)
{
	host_section(r);
	target_section(r);
}
