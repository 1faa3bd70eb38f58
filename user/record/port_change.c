// SPDX-License-Identifier: GPL-2.0-only
/* port_change.c - the port_change record (port_change.h): its JSON, its
 * text, and what it means for a job that held QPs on the port. */
#include "record/port_change.h"
#include "record/kind.h"
#include "record/json_util.h"
#include "proc/rdmares.h"
#include "core/escape.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static bool is_return(const struct record_port_change *c)
{
	return c->down_ms >= 0;
}

static bool is_gid(const struct record_port_change *c)
{
	return c->reason && !strcmp(c->reason, "gid_change");
}

static bool is_reason(const struct record_port_change *c, const char *r)
{
	return c->reason && !strcmp(c->reason, r);
}

/* a change of the subnet manager's doing: LIDs, the SM, a reregister */
static bool is_sm(const struct record_port_change *c)
{
	return is_reason(c, "lid_change") || is_reason(c, "sm_change") ||
	       is_reason(c, "client_reregister");
}

/* "(carrier lost on dummy0)" */
static void why_down(const struct record_port_change *c, char *buf, size_t len)
{
	const char *r = c->reason ? c->reason : "unknown";
	const char *nd = c->netdev[0] ? c->netdev : "its interface";

	if (!strcmp(r, "carrier_lost"))
		snprintf(buf, len, " (carrier lost on %s)", nd);
	else if (!strcmp(r, "admin_down"))
		snprintf(buf, len, " (%s set down)", nd);
	else if (!strcmp(r, "port_err"))
		snprintf(buf, len, " (link down)");
	else if (!strcmp(r, "device_fatal"))
		snprintf(buf, len, " (device fatal error)");
	else
		buf[0] = 0;
}

/* Why the holders could not be read (proc/rdmares.h): the words a record
 * may carry back. */
static const char *const affected_whys[] = { RDMARES_WHY_TOOL, RDMARES_WHY_BIG, RDMARES_WHY_JSON,
					      RDMARES_WHY_MEMORY, RDMARES_WHY_SLOW, RDMARES_WHY_STUCK,
					      RDMARES_WHY_STOPPED, RDMARES_WHY_BUSY, "another reason" };

static void held(const struct record_port_change *c, bool now, char *buf, size_t len)
{
	if (!c->affected_known)
		snprintf(buf, len, "; the QPs on it could not be read (rdma res: %s)",
			 c->affected_why ? c->affected_why : "not said");
	else if (!c->naffected)
		snprintf(buf, len, "; no process %s QPs on it", now ? "holds" : "held");
	else
		snprintf(buf, len, "; %d process%s %s %d QP%s on it", c->naffected,
			 c->naffected == 1 ? "" : "es", now ? (c->naffected == 1 ? "holds" : "hold") : "held",
			 c->affected_qps, c->affected_qps == 1 ? "" : "s");
}

void port_change_summary(const struct record_port_change *c, char *buf, size_t len)
{
	char why[96], h[96];

	why_down(c, why, sizeof(why));
	held(c, !is_return(c), h, sizeof(h));
	if (is_gid(c))
		snprintf(buf, len, "%s port %u %s GID index %d %s%s%s%s%s%s", c->device, c->port,
			 c->new_gid[0] ? "changed" : "lost", c->gid_index, c->old_gid,
			 c->new_gid[0] ? " -> " : "", c->new_gid, c->gid_type[0] ? " (" : "",
			 c->gid_type, c->gid_type[0] ? ")" : "");
	else if (c->reason && !strcmp(c->reason, "client_reregister"))
		snprintf(buf, len, "%s port %u: the subnet manager (SM LID 0x%llx) asked its clients to "
			 "register again", c->device, c->port, (unsigned long long)c->new_lid);
	else if (c->reason && !strcmp(c->reason, "pkey_change"))
		snprintf(buf, len, "%s port %u: its P_Key table changed", c->device, c->port);
	else if (c->reason && !strcmp(c->reason, "sm_change") && c->old_lid == c->new_lid)
		snprintf(buf, len, "%s port %u: the subnet manager changed (SM LID 0x%llx)", c->device,
			 c->port, (unsigned long long)c->new_lid);
	else if (c->reason && (!strcmp(c->reason, "lid_change") || !strcmp(c->reason, "sm_change")))
		snprintf(buf, len, "%s port %u %s changed from 0x%llx to 0x%llx", c->device, c->port,
			 !strcmp(c->reason, "lid_change") ? "LID" : "SM LID",
			 (unsigned long long)c->old_lid, (unsigned long long)c->new_lid);
	else if (is_return(c))
		snprintf(buf, len, "%s port %u went %s%s for %.1f s", c->device, c->port,
			 c->previous, why, (double)c->down_ms / 1000.0);
	else
		snprintf(buf, len, "%s port %u went %s%s", c->device, c->port, c->state, why);
	size_t n = strlen(buf);
	if (is_gid(c) && c->address[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, ": %s", c->address);
	if (n < len)
		snprintf(buf + n, len - n, "%s", h);
}

static const char *explanation(const struct record_port_change *c)
{
	if (is_gid(c))
		return "A RoCE GID is the interface's IP address: when the address goes, the entry "
		       "goes, and QPs addressed from it send with a source the peer cannot answer. "
		       "Their work requests time out (NCCL: \"NET/IB : Got completion from peer ... "
		       "with status=IBV_WC_RETRY_EXC_ERR(12)\", then ncclRemoteError or "
		       "ncclSystemError), and new connections from the index NCCL chose at init fail "
		       "at RTR (bad_gid_index).";
	if (is_reason(c, "device_fatal"))
		return "The device reported a fatal error (firmware or hardware): every QP, CQ and MR "
		       "on it is gone, and the driver must reset the device before it works again. "
		       "NCCL prints \"Got async event : local catastrophic error\" and aborts with "
		       "ncclSystemError or ncclRemoteError; nothing in the job can recover it, the job "
		       "must restart, on another node if the device does not come back.";
	if (is_reason(c, "pkey_change"))
		return "The port's P_Key table changed: a QP whose P_Key index now names another "
		       "partition (or none) no longer reaches its peers, and new connections made "
		       "with NCCL_IB_PKEY's index may fail at RTR.";
	if (is_sm(c))
		return "QPs address their peers by LID: a subnet manager that re-assigns LIDs "
		       "(a failover, a re-sweep) leaves them sending to addresses that no longer "
		       "lead anywhere; NCCL sees retry-exceeded completions "
		       "(IBV_WC_RETRY_EXC_ERR) and aborts.";
	return "While the port is down every QP on it stops: its work requests time out and "
	       "complete in error once the retry budget (NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT) is "
	       "spent. NCCL prints \"NET/IB : Got completion from peer ... with "
	       "status=IBV_WC_RETRY_EXC_ERR(12)\" (or IBV_WC_WR_FLUSH_ERR) and \"Got async event "
	       ": port error\", and aborts with ncclRemoteError or ncclSystemError; its QPs do "
	       "not recover when the port comes back, the job must restart.";
}

/* what to look at, most specific first */
static int checks(const struct record_port_change *c, char out[][200], int max)
{
	int n = 0;
	const char *r = c->reason ? c->reason : "";
	const char *nd = c->netdev[0] ? c->netdev : "the interface";
#define ADD(...) (n < max ? snprintf(out[n++], 200, __VA_ARGS__) : 0)
	if (is_gid(c)) {
		ADD("who removed the address from %s (a DHCP lease, NetworkManager, netplan, a "
		    "script: journalctl around the time); give RDMA interfaces static addresses", nd);
		ADD("mrtrace check: the GID index NCCL will use now");
	} else if (!strcmp(r, "admin_down")) {
		ADD("who set %s down (journalctl around the time: NetworkManager, a script, an operator)", nd);
	} else if (!strcmp(r, "lid_change") || !strcmp(r, "sm_change") ||
		   !strcmp(r, "client_reregister")) {
		ADD("the subnet manager (sminfo, its log): a failover or re-sweep");
	} else if (!strcmp(r, "pkey_change")) {
		ADD("the subnet manager's partition configuration (partitions.conf): which P_Keys "
		    "the port holds now (/sys/class/infiniband/%.40s/ports/%u/pkeys/)", c->device,
		    c->port);
	} else if (!strcmp(r, "device_fatal")) {
		ADD("the kernel log around the time: the driver's health report for %s (mlx5_core: "
		    "\"device's health compromised\", its syndrome)", c->device);
		ADD("the firmware version and whether the device came back after the driver's "
		    "reset (mrtrace check); drain the node if it did not");
	} else {
		ADD("the cable, transceiver and switch port of %s port %u", c->device, c->port);
		ADD("the counters (link_downed and link_error_recovery grow with each flap, "
		    "symbol_error with a marginal link)%s%s", c->netdev[0] ? "; ip -s link show " : "",
		    c->netdev);
		ADD("mlxlink -d %s on ConnectX; ibstat and iblinkinfo on InfiniBand", c->device);
	}
#undef ADD
	return n;
}

static struct json_object *affected_json(const struct record_port_change *c)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < c->naffected; i++) {
		const struct port_affected *p = &c->affected[i];
		struct json_object *o = json_object_new_object();
		jput_i64(o, "pid", p->pid);
		jput_str(o, "comm", p->comm);
		jput_i64(o, "qps", p->qps);
		if (p->nccl_mapped) {
			struct json_object *n = json_object_new_object();
			jput_str(n, "version", p->nccl[0] ? p->nccl : NULL);
			if (p->rank >= 0)
				jput_i64(n, "rank", p->rank);
			json_object_object_add(o, "nccl", n);
		}
		if (p->slurm_job >= 0) {
			jput_i64(o, "slurm_job", p->slurm_job);
			if (job_source_name(p->job_source))
				jput_str(o, "slurm_job_source", job_source_name(p->job_source));
		}
		/* only beside a cgroup's job: a zeroed holder claims nothing */
		if (p->job_source == JOB_SOURCE_CGROUP && p->job_claimed >= 0)
			jput_i64(o, "slurm_job_claimed", p->job_claimed);
		if (p->pod_uid[0])
			jput_str(o, "pod_uid", p->pod_uid);
		if (p->container[0])
			jput_str(o, "container_id", p->container);
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *port_change_to_json(const struct record *rec)
{
	const struct record_port_change *c = rec->data;
	struct json_object *o = json_object_new_object(), *x;
	char sum[512], ck[4][200];
	int n;

	jput_str(o, "event", rec->kind->event);
	jput_u64(o, "ts_ns", c->ts_ns);
	jput_str(o, "source", c->source);
	jput_str(o, "class", "infiniband");
	jput_str(o, "device", c->device);
	jput_u64(o, "port", c->port);
	jput_str(o, "state", c->state);
	jput_str(o, "previous", c->previous);
	jput_str(o, "link_layer", c->link_layer[0] ? c->link_layer : NULL);
	jput_str(o, "netdev", c->netdev[0] ? c->netdev : NULL);
	jput_str(o, "reason", c->reason ? c->reason : "unknown");
	if (c->down_ms >= 0)
		jput_i64(o, "down_ms", c->down_ms);
	else
		json_object_object_add(o, "down_ms", NULL);
	if (is_gid(c)) {
		x = json_object_new_object();
		jput_i64(x, "index", c->gid_index);
		jput_str(x, "old", c->old_gid[0] ? c->old_gid : NULL);
		jput_str(x, "new", c->new_gid[0] ? c->new_gid : NULL);
		jput_str(x, "type", c->gid_type[0] ? c->gid_type : NULL);
		jput_str(x, "address", c->address[0] ? c->address : NULL);
		json_object_object_add(o, "gid", x);
	}
	if (is_sm(c)) {
		x = json_object_new_object();
		jput_i64(x, "old", c->old_lid);
		jput_i64(x, "new", c->new_lid);
		json_object_object_add(o, !strcmp(c->reason, "lid_change") ? "lid" : "sm_lid", x);
	}
	jput_bool(o, "affected_known", c->affected_known);
	if (!c->affected_known && c->affected_why)
		jput_str(o, "affected_unknown_reason", c->affected_why);
	jput_i64(o, "affected_processes", c->naffected + c->affected_dropped);
	jput_i64(o, "affected_qps", c->affected_qps);
	json_object_object_add(o, "affected", affected_json(c));
	x = json_object_new_object();
	for (int i = 0; i < c->ncounters; i++) {
		struct json_object *v = json_object_new_object();
		jput_u64(v, "value", c->counters[i].value);
		jput_i64(v, "delta", c->counters[i].delta);
		json_object_object_add(x, c->counters[i].name, v);
	}
	json_object_object_add(o, "counters", x);
	port_change_summary(c, sum, sizeof(sum));
	jput_str(o, "summary", sum);
	jput_str(o, "explanation", explanation(c));
	x = json_object_new_array();
	n = checks(c, ck, 4);
	for (int i = 0; i < n; i++)
		json_object_array_add(x, json_object_new_string(ck[i]));
	json_object_object_add(o, "checks", x);
	return o;
}

static bool port_change_to_text(FILE *out, const struct record *rec, bool verbose, const char *when)
{
	const struct record_port_change *c = rec->data;
	char sum[512], ck[4][200];
	int n;

	(void)verbose;
	/* device, netdev, GIDs, comm, NCCL, pod come from sysfs, processes and
	 * (read back by explain) other nodes' records: escaped for the
	 * terminal (core/escape.h) */
	port_change_summary(c, sum, sizeof(sum));
	fprintf(out, "infiniband: %s%s%s\n", esc(sum), when && *when ? ", at " : "", when ? esc(when) : "");
	for (int i = 0; i < c->naffected; i++) {
		const struct port_affected *p = &c->affected[i];
		fprintf(out, "  pid %d (%s): %d QP%s", p->pid, esc(p->comm), p->qps, p->qps == 1 ? "" : "s");
		if (p->nccl_mapped)
			fprintf(out, ", NCCL %s", p->nccl[0] ? esc(p->nccl) : "(version ?)");
		if (p->rank >= 0)
			fprintf(out, ", rank %ld", p->rank);
		if (p->slurm_job >= 0)
			fprintf(out, ", Slurm job %ld%s", p->slurm_job,
				p->job_source == JOB_SOURCE_ENVIRONMENT ? " claimed by the process's environment" : "");
		if (p->job_source == JOB_SOURCE_CGROUP && p->job_claimed >= 0)
			fprintf(out, " (its environment claims job %ld, which contradicts the cgroup)", p->job_claimed);
		if (p->pod_uid[0])
			fprintf(out, ", pod %s", esc(p->pod_uid));
		fputc('\n', out);
	}
	if (c->affected_dropped)
		fprintf(out, "  ... and %d more processes\n", c->affected_dropped);
	if (c->ncounters) {
		fprintf(out, "  counters:");
		for (int i = 0; i < c->ncounters; i++)
			fprintf(out, " %s %llu (%+lld)", esc(c->counters[i].name), c->counters[i].value,
				c->counters[i].delta);
		fputc('\n', out);
	}
	fprintf(out, "  what the job sees: %s\n", explanation(c));
	n = checks(c, ck, 4);
	for (int i = 0; i < n; i++)
		fprintf(out, "  check: %s\n", esc(ck[i]));
	return true;
}

/* ---- back from JSON ----------------------------------------------------------------- */

static const char *const reasons[] = { "carrier_lost", "admin_down", "port_err", "port_active",
	"gid_change", "lid_change", "sm_change", "pkey_change", "device_fatal", "client_reregister",
	"unknown" };
static const char *const sources[] = { "sysfs", "rtnetlink", "kernel" };

static const char *known(const char *s, const char *const *names, size_t n, const char *def)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return names[i];
	return def;
}

/* jget_member, with *v NULL when the member is absent or null */
static int member(struct json_object *o, const char *k, json_type t, struct json_object **v,
		  const struct jwhere *w)
{
	*v = NULL;
	return jget_member(o, k, t, v, w);
}

int port_change_from_json(struct json_object *o, struct record_port_change *c, char *err,
			  size_t errlen)
{
	struct jwhere w = { .obj = "port_change", .err = err, .errlen = errlen };
	struct json_object *x, *a;
	char buf[64] = "";
	long long v = 0;
	uint64_t u = 0;

	memset(c, 0, sizeof(*c));
	err[0] = 0;
	c->down_ms = -1;
	c->gid_index = -1;
	if (jget_str(o, "device", c->device, sizeof(c->device), &w) <= 0 ||
	    jget_str(o, "state", c->state, sizeof(c->state), &w) <= 0) {
		if (!err[0])
			snprintf(err, errlen, "port_change: device and state are required");
		return -1;
	}
	if (jget_u64(o, "ts_ns", &u, &w) < 0 || jget_i64(o, "port", &v, &w) < 0)
		return -1;
	c->ts_ns = u;
	if (member(o, "port", json_type_int, &x, &w) > 0)
		c->port = (unsigned)json_object_get_int64(x);
	if (jget_str(o, "previous", c->previous, sizeof(c->previous), &w) < 0 ||
	    jget_str(o, "link_layer", c->link_layer, sizeof(c->link_layer), &w) < 0 ||
	    jget_str(o, "netdev", c->netdev, sizeof(c->netdev), &w) < 0)
		return -1;
	if (jget_str(o, "reason", buf, sizeof(buf), &w) < 0)
		return -1;
	c->reason = known(buf, reasons, sizeof(reasons) / sizeof(reasons[0]), "unknown");
	buf[0] = 0;
	if (jget_str(o, "source", buf, sizeof(buf), &w) < 0)
		return -1;
	c->source = known(buf, sources, sizeof(sources) / sizeof(sources[0]), NULL);
	if (member(o, "down_ms", json_type_int, &x, &w) < 0)
		return -1;
	if (x)
		c->down_ms = json_object_get_int64(x);
	if (member(o, "gid", json_type_object, &x, &w) < 0)
		return -1;
	if (x) {
		struct jwhere g = { .obj = "port_change.gid", .err = err, .errlen = errlen };
		if (jget_i64(x, "index", &v, &g) < 0 || jget_str(x, "old", c->old_gid, sizeof(c->old_gid), &g) < 0 ||
		    jget_str(x, "new", c->new_gid, sizeof(c->new_gid), &g) < 0 ||
		    jget_str(x, "type", c->gid_type, sizeof(c->gid_type), &g) < 0 ||
		    jget_str(x, "address", c->address, sizeof(c->address), &g) < 0)
			return -1;
		if (member(x, "index", json_type_int, &a, &g) > 0)
			c->gid_index = (int)json_object_get_int64(a);
	}
	for (int k = 0; k < 2; k++) {
		if (member(o, k ? "sm_lid" : "lid", json_type_object, &x, &w) < 0)
			return -1;
		if (x) {
			struct jwhere l = { .obj = k ? "port_change.sm_lid" : "port_change.lid", .err = err,
					    .errlen = errlen };
			if (jget_i64(x, "old", &c->old_lid, &l) < 0 || jget_i64(x, "new", &c->new_lid, &l) < 0)
				return -1;
		}
	}
	if (jget_bool(o, "affected_known", &c->affected_known, &w) < 0)
		return -1;
	if (member(o, "affected_unknown_reason", json_type_string, &x, &w) < 0)
		return -1;
	c->affected_why = NULL;
	/* the reasons are static strings: a recorded one this build does not
	 * know reads as another's words would (kept out of the struct) */
	for (size_t i = 0; x && i < sizeof(affected_whys) / sizeof(affected_whys[0]); i++)
		if (!strcmp(json_object_get_string(x), affected_whys[i]))
			c->affected_why = affected_whys[i];
	if (x && !c->affected_why)
		c->affected_why = "another reason";
	if (member(o, "affected_qps", json_type_int, &x, &w) < 0)
		return -1;
	if (x)
		c->affected_qps = (int)json_object_get_int64(x);
	if (member(o, "affected", json_type_array, &a, &w) < 0)
		return -1;
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		struct json_object *p = json_object_array_get_idx(a, i), *n;
		struct jwhere pw = { .obj = "port_change.affected[]", .err = err, .errlen = errlen };
		if (!json_object_is_type(p, json_type_object)) {
			snprintf(err, errlen, "port_change.affected[%zu]: not an object", i);
			return -1;
		}
		if (c->naffected == PORT_AFFECTED_MAX) {
			c->affected_dropped++;
			continue;
		}
		struct port_affected *f = &c->affected[c->naffected++];
		long long job = -1;
		f->rank = f->slurm_job = f->job_claimed = -1;
		long long claimed = -1;
		char src[16] = "";
		if (jget_i64(p, "pid", &v, &pw) < 0)
			return -1;
		f->pid = (int)v;
		v = 0;
		if (jget_i64(p, "qps", &v, &pw) < 0 || jget_str(p, "comm", f->comm, sizeof(f->comm), &pw) < 0 ||
		    jget_str(p, "pod_uid", f->pod_uid, sizeof(f->pod_uid), &pw) < 0 ||
		    jget_str(p, "container_id", f->container, sizeof(f->container), &pw) < 0 ||
		    jget_i64(p, "slurm_job", &job, &pw) < 0 ||
		    jget_str(p, "slurm_job_source", src, sizeof(src), &pw) < 0 ||
		    jget_i64(p, "slurm_job_claimed", &claimed, &pw) < 0)
			return -1;
		f->qps = (int)v;
		f->slurm_job = (long)job;
		/* an older record says no source: its job was taken as the cgroup's */
		f->job_source = job < 0 ? JOB_SOURCE_NONE : src[0] ? job_source_from_name(src) : JOB_SOURCE_CGROUP;
		f->job_claimed = (long)claimed;
		if (member(p, "nccl", json_type_object, &n, &pw) < 0)
			return -1;
		if (n) {
			long long r = -1;
			f->nccl_mapped = true;
			if (jget_str(n, "version", f->nccl, sizeof(f->nccl), &pw) < 0 ||
			    jget_i64(n, "rank", &r, &pw) < 0)
				return -1;
			f->rank = (long)r;
		}
	}
	if (member(o, "affected_processes", json_type_int, &x, &w) < 0)
		return -1;
	/* a crafted count is clamped: naffected + affected_dropped is an int */
	if (x && json_object_get_int64(x) > c->naffected)
		c->affected_dropped = json_object_get_int64(x) - c->naffected > INT_MAX - c->naffected ?
					      INT_MAX - c->naffected :
					      (int)(json_object_get_int64(x) - c->naffected);
	if (member(o, "counters", json_type_object, &x, &w) < 0)
		return -1;
	if (x) {
		json_object_object_foreach(x, name, val)
		{
			struct jwhere cw = { .obj = "port_change.counters", .err = err, .errlen = errlen };
			if (c->ncounters == PORT_COUNTERS_MAX || !json_object_is_type(val, json_type_object))
				continue;
			struct port_counter *k = &c->counters[c->ncounters++];
			u = 0;
			snprintf(k->name, sizeof(k->name), "%s", name);
			if (jget_u64(val, "value", &u, &cw) < 0 || jget_i64(val, "delta", &k->delta, &cw) < 0)
				return -1;
			k->value = u;
		}
	}
	return 0;
}

static unsigned long long port_change_ts(const struct record *rec)
{
	return ((const struct record_port_change *)rec->data)->ts_ns;
}

/* A port going away under running jobs breaks their QPs: a warning (an
 * error when the device itself failed); a port back, or a change while
 * nothing ran on it, is information. */
static const char *port_change_severity(const struct record *rec)
{
	const struct record_port_change *c = rec->data;

	if (c->reason && !strcmp(c->reason, "device_fatal"))
		return "error";
	if (c->down_ms >= 0 || (c->reason && !strcmp(c->reason, "port_active")))
		return "info";
	return c->affected_known && !c->naffected && !c->affected_dropped ? "info" : "warning";
}

const struct record_kind record_kind_port_change = {
	.name = "port change",
	.event = "port_change",
	.ts_ns = port_change_ts,
	.to_json = port_change_to_json,
	.severity = port_change_severity,
	.to_text = port_change_to_text,
	/* not read back as a failure: `mrtrace explain` reads it as a job's
	 * cause (explain/jobs.c) */
};
