// SPDX-License-Identifier: GPL-2.0-only
/* fabric.c - the addressing NCCL will get wrong, before the job runs: for
 * every ACTIVE port NCCL would use (NCCL_IB_HCA), the GID index NCCL will
 * take (NCCL_IB_GID_INDEX, else its own search: nccl/gidselect.h, for the
 * loaded NCCL version), whether that entry is a routable RoCE v2 address of
 * the port's own interface, whether the job can read the port's gid_attrs
 * in its own mount namespace (NCCL reads them itself), NCCL_IB_MTU against
 * the port's active MTU, and the link error counters.
 *
 * With -p the settings, the NCCL version and the sysfs view are the job's
 * (/proc/PID/root); without it /etc/nccl.conf, NCCL's defaults and the
 * newest NCCL's rules, from this mount namespace. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"
#include "nccl/gidselect.h"
#include "proc/gidtable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define IB "/sys/class/infiniband"

/* the counters that tell a flapping or failing link (ports/N/counters) */
static const char *const link_counters[] = {
	"link_downed", "link_error_recovery", "symbol_error", "port_rcv_errors",
	"local_link_integrity_errors",
};
#define NLINK_COUNTERS (sizeof(link_counters) / sizeof(link_counters[0]))

/* NCCL_IB_HCA as NCCL matches it: "[^][=]name[:port],..."; without '='
 * each name is a prefix, a port limits the entry to that port. */
static bool hca_uses(const char *value, const char *dev, int port)
{
	char buf[512], *save, *tok;
	bool exclude, exact, any = false;

	if (!value || !value[0])
		return true;
	exclude = *value == '^';
	value += exclude;
	exact = *value == '=';
	value += exact;
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ",", &save); tok && !any; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		int want = colon ? atoi(colon + 1) : -1;
		if (colon)
			*colon = 0;
		any = (exact ? !strcmp(tok, dev) : !strncmp(dev, tok, strlen(tok))) &&
		      (want < 0 || want == port);
	}
	return exclude ? !any : any;
}

/* ports/N/state says ACTIVE */
static bool port_active(const char *root, const char *dev, int port)
{
	char p[256], s[32];
	snprintf(p, sizeof(p), IB "/%s/ports/%d/state", dev, port);
	return !sr_read_line(root, p, s, sizeof(s)) && strstr(s, "ACTIVE");
}

static const char *how_name(enum nccl_gid_how h)
{
	static const char *const n[] = { "pinned", "selected", "ib_flid", "fails", "crashes" };
	return (unsigned)h < sizeof(n) / sizeof(n[0]) ? n[h] : "?";
}

/* the first routable (NCCL-valid) RoCE v2 entry on the port's own netdev */
static const struct gid_entry *routable_v2(const struct gid_table *t, const char *netdev)
{
	for (int i = 0; i < t->n; i++) {
		const struct gid_entry *e = &t->e[i];
		if (e->populated && nccl_gid_valid(e->raw) && e->roce_version == 2 &&
		    (!netdev[0] || !strcmp(e->netdev, netdev)))
			return e;
	}
	return NULL;
}

static json_object *gids_json(const struct gid_table *t)
{
	json_object *a = json_object_new_array();
	for (int i = 0; i < t->n; i++) {
		const struct gid_entry *e = &t->e[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "index", json_object_new_int(e->index));
		json_object_object_add(o, "gid", json_object_new_string(e->text));
		json_object_object_add(o, "populated", json_object_new_boolean(e->populated));
		chk_json_str(o, "type", e->type);
		chk_json_str(o, "netdev", e->netdev);
		json_object_object_add(o, "family", json_object_new_string(
					       nccl_gid_family(e->raw) == AF_INET ? "AF_INET" : "AF_INET6"));
		json_object_object_add(o, "routable", json_object_new_boolean(nccl_gid_valid(e->raw)));
		const char *en = e->type_errno ? strerrorname_np(e->type_errno) : NULL;
		chk_json_str(o, "type_error", en ? en : e->type_errno ? "error" : "");
		json_object_array_add(a, o);
	}
	return a;
}

/* "3 ::ffff:10.0.0.1 (RoCE v2, eth0)" */
static void entry_said(const struct gid_table *t, int index, char *buf, size_t len)
{
	const struct gid_entry *e = gid_table_entry(t, index);
	if (!e) {
		snprintf(buf, len, "%d (empty)", index);
		return;
	}
	snprintf(buf, len, "%d %s (%s%s%s)", index, e->text, e->type[0] ? e->type : "type ?",
		 e->netdev[0] ? ", " : "", e->netdev);
}

struct port_view {
	const char *dev;
	int port;
	const char *nccl;           /* "NCCL 2.21.5", "NCCL (version unknown)" */
	struct gid_table node;      /* the node's table */
	struct gid_table job;       /* as the job reads it (== node without -p) */
	bool job_view;              /* -p: job read from its own root */
	bool job_lists;             /* the job could list the port's gids */
	char netdev[32];            /* the port's own interface (index 0's) */
	struct nccl_gid_params p;
	struct nccl_gid_choice c, own; /* what NCCL does; its own search alone */
};

static void judge_gid(struct chk_report *r, struct port_view *v)
{
	char id[128], title[48], chosen[160], best[160] = "";
	const struct gid_table *t = &v->job;
	const struct gid_entry *e = v->c.index >= 0 ? gid_table_entry(t, v->c.index) : NULL;
	const struct gid_entry *r2 = routable_v2(t, v->netdev);
	struct chk_item *it;

	snprintf(id, sizeof(id), "fabric.%s.port%d.gid", v->dev, v->port);
	snprintf(title, sizeof(title), "%.30s port %d GID", v->dev, v->port);
	if (v->own.index >= 0)
		entry_said(t, v->own.index, best, sizeof(best));
	if (v->c.how == NCCL_GID_CRASHES) {
		it = chk_add(r, "fabric", id, CHK_FAIL, CHK_CLS_ENV, title,
			     "%s crashes reading NCCL_IB_ADDR_RANGE without '/len'", v->nccl);
		chk_note(it, "NCCL 2.21 and 2.22 dereference the missing '/' (fixed in 2.23).");
		chk_fix(it, "Write NCCL_IB_ADDR_RANGE as address/length (10.0.0.0/16), or unset it.");
		return;
	}
	if (v->c.how == NCCL_GID_FAILS) {
		it = chk_add(r, "fabric", id, CHK_FAIL, CHK_CLS_ENV, title,
			     "%s stops with ncclSystemError: it cannot %s gid_attrs/types/%d (%s)%s",
			     v->nccl, v->c.fail_open ? "open" : "read", v->c.fail_index,
			     strerrorname_np(v->c.fail_errno) ? strerrorname_np(v->c.fail_errno) : "?",
			     v->job_view ? " in the job's mount namespace" : "");
		chk_note(it, "NCCL's GID search reads each candidate's RoCE type from sysfs itself; "
			 "a file it cannot open ends NCCL's init (every version), a read that fails "
			 "too before 2.26 (from 2.26 a read failing with EINVAL skips the entry).");
		chk_fix(it, "Pin a routable RoCE v2 entry with NCCL_IB_GID_INDEX%s%s (NCCL then reads "
			"no type), or give the container the host's /sys/class/infiniband.",
			best[0] ? " (NCCL's choice here would be " : "", best[0] ? best : "");
		if (best[0])
			str_appendf(it->fix, sizeof(it->fix), ")");
		return;
	}
	entry_said(t, v->c.index, chosen, sizeof(chosen));
	const char *by = v->c.how == NCCL_GID_PINNED
				 ? (v->p.gid_index_set ? "pinned by NCCL_IB_GID_INDEX"
						       : "NCCL's default before 2.21")
			 : v->c.how == NCCL_GID_IB_FLID ? "InfiniBand: NCCL's FLID rule"
							: "NCCL's own selection";
	enum chk_verdict verdict = CHK_OK;
	const char *problem = NULL;
	if (v->c.how == NCCL_GID_SELECTED) {
		/* NCCL's own choice is only wrong when it found nothing routable */
		if (!e || !nccl_gid_valid(e->raw)) {
			verdict = CHK_WARN;
			problem = "is not routable: NCCL's selection found no GID of the family, "
				  "range and RoCE version asked for";
		}
	} else if (v->c.how == NCCL_GID_PINNED) {
		if (!e) {
			verdict = CHK_FAIL;
			problem = "is empty: QPs cannot reach RTR (bad_gid_index)";
		} else if (gid_is_link_local(e->raw) && r2) {
			verdict = CHK_WARN;
			problem = "is IPv6 link-local: it reaches only the same L2 segment, and "
				  "link-local GIDs route nowhere";
		} else if (e->roce_version == 1 && r2) {
			verdict = CHK_WARN;
			problem = "is RoCE v1: not routable over IP, and peers using v2 cannot talk to it";
		} else if (v->netdev[0] && e->netdev[0] && strcmp(e->netdev, v->netdev) && r2) {
			verdict = CHK_WARN;
			problem = "belongs to another interface than the port's own";
		} else if (!nccl_gid_valid(e->raw) && !r2) {
			verdict = CHK_WARN;
			problem = "is not routable, and the port has no routable RoCE v2 GID";
		}
	}
	if (verdict == CHK_OK || !problem) {
		it = chk_add(r, "fabric", id, CHK_OK, CHK_CLS_ENV, title, "%s uses index %s (%s)",
			     v->nccl, chosen, by);
		return;
	}
	it = chk_add(r, "fabric", id, verdict, v->c.how == NCCL_GID_SELECTED && !r2 ? CHK_CLS_IB
						      : CHK_CLS_ENV,
		     title, "%s uses index %s (%s), which %s", v->nccl, chosen, by, problem);
	if (r2) {
		char good[160];
		entry_said(t, r2->index, good, sizeof(good));
		chk_note(it, "The port has a routable RoCE v2 entry: %s.%s%s", good,
			 best[0] && v->own.index != r2->index ? " NCCL's own selection would take " : "",
			 best[0] && v->own.index != r2->index ? best : "");
		if (v->c.how == NCCL_GID_PINNED && !v->p.gid_index_set)
			chk_fix(it, "Set NCCL_IB_GID_INDEX=%d (NCCL before 2.21 always takes index 0 "
				"otherwise), or use NCCL 2.21 or later, which choose %s themselves.",
				r2->index, best[0] ? best : "one");
		else if (v->c.how == NCCL_GID_PINNED)
			chk_fix(it, "Unset NCCL_IB_GID_INDEX (NCCL 2.21 and later then choose %s "
				"themselves) or set NCCL_IB_GID_INDEX=%d.",
				best[0] ? best : "one", r2->index);
		else
			chk_fix(it, "Set NCCL_IB_GID_INDEX=%d, or NCCL_IB_ADDR_FAMILY / "
				"NCCL_IB_ADDR_RANGE so that NCCL's selection finds it.", r2->index);
	} else {
		chk_note(it, "No routable RoCE v2 GID on this port: %s has no IP address NCCL "
			 "can use, so NCCL falls back to what it found.",
			 v->netdev[0] ? v->netdev : "its interface");
		chk_fix(it, "Give %s an IPv4 address (RoCE v2 GIDs follow the interface's "
			"addresses), or set NCCL_IB_ADDR_FAMILY=AF_INET6 if the fabric is IPv6.",
			v->netdev[0] ? v->netdev : "the port's interface");
	}
}

/* the job cannot read some entries' types in its own mount namespace */
static void judge_gid_attrs(struct chk_report *r, const struct port_view *v)
{
	char id[128], title[48], list[128] = "";
	int bad = 0, err = 0;

	if (!v->job_view)
		return;
	snprintf(id, sizeof(id), "fabric.%s.port%d.gid_attrs", v->dev, v->port);
	snprintf(title, sizeof(title), "%.30s port %d gid_attrs", v->dev, v->port);
	if (!v->job_lists) {
		struct chk_item *it = chk_add(r, "fabric", id, CHK_WARN, CHK_CLS_ENV, title,
					      "the job cannot list %s/%s/ports/%d/gids in its mount "
					      "namespace", IB, v->dev, v->port);
		chk_note(it, "NCCL reads GID types from sysfs as the job sees it: without them "
			 "its GID search stops NCCL (ncclSystemError).");
		chk_fix(it, "Mount the host's sysfs in the container (Docker does by default; "
			"check a custom /sys mount), or pin NCCL_IB_GID_INDEX.");
		return;
	}
	for (int i = 0; i < v->job.n; i++)
		if (v->job.e[i].populated && v->job.e[i].type_errno) {
			err = v->job.e[i].type_errno;
			if (bad++ < 6)
				str_appendf(list, sizeof(list), "%s%d", bad > 1 ? "," : "",
					    v->job.e[i].index);
		}
	if (!bad) {
		chk_add(r, "fabric", id, CHK_OK, CHK_CLS_ENV, title,
			"the job reads the type of all %d populated entries", v->job.populated);
		return;
	}
	bool stops = v->c.how == NCCL_GID_FAILS, at_open = false;
	for (int i = 0; i < v->job.n; i++)
		at_open |= v->job.e[i].populated && v->job.e[i].type_open_failed;
	struct chk_item *it = chk_add(
		r, "fabric", id, stops ? CHK_FAIL : CHK_WARN, CHK_CLS_ENV, title,
		"the job cannot %s gid_attrs/types of %d entr%s (%s%s): %s", at_open ? "open" : "read",
		bad, bad == 1 ? "y" : "ies", list, bad > 6 ? ",..." : "",
		strerrorname_np(err) ? strerrorname_np(err) : "?");
	if (stops)
		chk_note(it, "NCCL's GID search reads them and stops with ncclSystemError.");
	else if (at_open)
		chk_note(it, "NCCL's GID search stops with ncclSystemError (every version) as soon "
			 "as it reads one of them; with these settings it does not get that far.");
	else
		chk_note(it, "NCCL before 2.26 stops with ncclSystemError when its GID search "
			 "reads one of them (2.26 and later skip an entry whose read fails with "
			 "EINVAL); with these settings it does not get that far.");
	chk_fix(it, "Give the job the host's view of /sys/class/infiniband, or pin "
		"NCCL_IB_GID_INDEX to a routable RoCE v2 entry.");
}

/* NCCL_IB_MTU (bytes or 1..5) against the port's active MTU */
static void judge_mtu(struct chk_report *r, const struct port_view *v, const struct nccl_settings *s,
		      long active_mtu, json_object *o)
{
	const struct nccl_setting *m = s ? nccl_setting_get(s, "NCCL_IB_MTU") : NULL;
	long long x;
	int trailing;
	char id[128], title[48];

	if (!m || !m->value[0] || nccl_parse_int(m->value, &x, &trailing))
		return;
	long long bytes = x >= 1 && x <= 5 ? 128LL << x : x;
	json_object_object_add(o, "nccl_ib_mtu", json_object_new_int64(bytes));
	snprintf(id, sizeof(id), "fabric.%s.port%d.mtu", v->dev, v->port);
	snprintf(title, sizeof(title), "%.30s port %d MTU", v->dev, v->port);
	if (active_mtu <= 0) {
		chk_add(r, "fabric", id, CHK_UNKNOWN, CHK_CLS_ENV, title,
			"NCCL_IB_MTU=%s; the port's active MTU is not known here", m->value);
		return;
	}
	if (bytes <= active_mtu) {
		chk_add(r, "fabric", id, CHK_OK, CHK_CLS_ENV, title,
			"NCCL_IB_MTU=%s within the active MTU %ld", m->value, active_mtu);
		return;
	}
	struct chk_item *it = chk_add(r, "fabric", id, CHK_WARN, CHK_CLS_ENV, title,
				      "NCCL_IB_MTU=%s (%lld bytes) exceeds the port's active MTU %ld",
				      m->value, bytes, active_mtu);
	chk_note(it, "A path MTU above the port's active MTU is refused or cut to it; NCCL's own "
		 "IB transport (2.3 to 2.30) does not read NCCL_IB_MTU at all and uses the smaller "
		 "active MTU of the two ports, so a plugin or tool that does read it gets a value "
		 "this port cannot carry.");
	chk_fix(it, "Set NCCL_IB_MTU to at most %ld, or raise the interface MTU (RoCE: the "
		"netdev's MTU minus the RoCE headers).", active_mtu);
}

/* the link error counters; none readable: nothing said */
static void judge_counters(struct chk_report *r, const struct port_view *v, json_object *o)
{
	const char *root = r->opt.root;
	char p[256], id[128], title[48], nonzero[256] = "";
	json_object *c = json_object_new_object();
	int read = 0;

	for (size_t i = 0; i < NLINK_COUNTERS; i++) {
		uint64_t x;
		snprintf(p, sizeof(p), IB "/%s/ports/%d/counters/%s", v->dev, v->port, link_counters[i]);
		if (sr_read_u64(root, p, &x)) {
			json_object_object_add(c, link_counters[i], NULL);
			continue;
		}
		read++;
		json_object_object_add(c, link_counters[i], json_object_new_int64((int64_t)x));
		if (x)
			str_appendf(nonzero, sizeof(nonzero), "%s%s %llu", nonzero[0] ? ", " : "",
				    link_counters[i], (unsigned long long)x);
	}
	if (v->netdev[0]) {
		uint64_t x;
		snprintf(p, sizeof(p), "/sys/class/net/%s/carrier_changes", v->netdev);
		json_object_object_add(c, "carrier_changes",
				       sr_read_u64(root, p, &x) ? NULL : json_object_new_int64((int64_t)x));
	}
	json_object_object_add(o, "counters", c);
	if (!read)
		return;
	snprintf(id, sizeof(id), "fabric.%s.port%d.counters", v->dev, v->port);
	snprintf(title, sizeof(title), "%.30s port %d errors", v->dev, v->port);
	if (!nonzero[0]) {
		chk_add(r, "fabric", id, CHK_OK, CHK_CLS_IB, title, "link error counters are 0");
		return;
	}
	struct chk_item *it = chk_add(r, "fabric", id, CHK_WARN, CHK_CLS_IB, title, "%s", nonzero);
	chk_note(it, "link_downed and link_error_recovery count flaps (the job sees retry-exceeded "
		 "completions, IBV_WC_RETRY_EXC_ERR); symbol and integrity errors a marginal cable "
		 "or transceiver. The counters run since the driver loaded: compare two readings.");
	chk_fix(it, "Check the cable, transceiver and switch port (mlxlink -d %s on ConnectX, "
		"perfquery on InfiniBand); reset the counters (perfquery -R) and watch whether "
		"they grow.", v->dev);
}

static void one_port(struct chk_report *r, const char *dev, int port, const struct nccl_settings *s,
		     const struct nccl_lib *lib, const char *job_root, json_object *ports)
{
	struct port_view *v = calloc(1, sizeof(*v));
	char nccl[64], p[256];
	json_object *o;

	if (!v)
		return;
	v->dev = dev;
	v->port = port;
	if (lib && lib->found && lib->version_known)
		snprintf(nccl, sizeof(nccl), "NCCL %d.%d", lib->major, lib->minor);
	else
		snprintf(nccl, sizeof(nccl), "NCCL");
	v->nccl = nccl;
	gid_table_read(r->opt.root, dev, (unsigned)port, &v->node);
	v->job = v->node;
	v->job_lists = true;
	if (job_root) {
		v->job_view = true;
		if (gid_table_read(job_root, dev, (unsigned)port, &v->job)) {
			/* NCCL still finds the GIDs (libibverbs asks the kernel), but
			 * not their types: every open fails */
			v->job_lists = false;
			v->job = v->node;
			for (int i = 0; i < v->job.n; i++) {
				v->job.e[i].type_errno = ENOENT;
				v->job.e[i].type_open_failed = true;
			}
		}
	}
	if (v->node.n && v->node.e[0].netdev[0])
		snprintf(v->netdev, sizeof(v->netdev), "%s", v->node.e[0].netdev);
	nccl_gid_params(s, lib, &v->p);
	nccl_gid_select(&v->job, &v->p, &v->c);
	struct nccl_gid_params own = v->p;
	own.gid_index = -1;
	own.range_crashes = false;
	if (own.version_known && (own.major < 2 || (own.major == 2 && own.minor < 21)))
		own.version_known = false; /* the search of NCCL 2.21+ */
	nccl_gid_select(&v->node, &own, &v->own); /* what it would take, could it read */

	o = json_object_new_object();
	json_object_object_add(o, "device", json_object_new_string(dev));
	json_object_object_add(o, "port", json_object_new_int(port));
	chk_json_str(o, "link_layer", v->node.link_layer);
	chk_json_str(o, "netdev", v->netdev);
	json_object_object_add(o, "gid_table_len", json_object_new_int(v->node.len));
	json_object_object_add(o, "gids_populated", json_object_new_int(v->node.populated));
	json_object_object_add(o, "gids", gids_json(&v->job));
	json_object *n = json_object_new_object();
	json_object_object_add(n, "how", json_object_new_string(how_name(v->c.how)));
	json_object_object_add(n, "index", v->c.index >= 0 ? json_object_new_int(v->c.index) : NULL);
	const struct gid_entry *e = v->c.index >= 0 ? gid_table_entry(&v->job, v->c.index) : NULL;
	chk_json_str(n, "gid", e ? e->text : "");
	chk_json_str(n, "type", e ? e->type : "");
	chk_json_str(n, "netdev", e ? e->netdev : "");
	json_object_object_add(n, "selection_index", v->own.index >= 0 ? json_object_new_int(v->own.index)
								       : NULL);
	json_object_object_add(n, "fail_index", v->c.fail_index >= 0 ? json_object_new_int(v->c.fail_index)
								     : NULL);
	json_object_object_add(n, "approximate", json_object_new_boolean(v->c.approximate));
	json_object_object_add(o, "nccl", n);
	json_object_object_add(o, "job_view", json_object_new_boolean(v->job_view));
	json_object_array_add(ports, o);

	long active_mtu = -1, mtu;
	if (v->netdev[0]) {
		snprintf(p, sizeof(p), "/sys/class/net/%s/mtu", v->netdev);
		if (!sr_read_int(r->opt.root, p, &mtu))
			active_mtu = chk_roce_mtu(mtu);
	}
	json_object_object_add(o, "active_mtu", active_mtu > 0 ? json_object_new_int64(active_mtu) : NULL);

	if (!strcmp(v->node.link_layer, "Ethernet")) {
		judge_gid(r, v);
		judge_gid_attrs(r, v);
	}
	judge_mtu(r, v, s, active_mtu, o);
	judge_counters(r, v, o);
	free(v);
}

void check_fabric(struct chk_report *r)
{
	json_object *sec = chk_section(r, "fabric");
	json_object *ports = json_object_new_array();
	const struct nccl_settings *s = NULL;
	const struct nccl_lib *lib = NULL;
	struct nccl_settings *conf = NULL;
	char job_root[512];
	bool job = r->have_target;

	json_object_object_add(sec, "scope", json_object_new_string(job ? "process" : "node"));
	json_object_object_add(sec, "ports", ports);
	if (job && r->nccl) {
		s = &r->nccl->settings;
		lib = &r->nccl->lib;
	} else if (!job && (conf = calloc(1, sizeof(*conf)))) {
		/* every job on the node inherits /etc/nccl.conf */
		static char text[65536];
		if (!sr_read_all(r->opt.root, "/etc/nccl.conf", text, sizeof(text), NULL))
			nccl_settings_apply_conf(conf, text, NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf");
		s = conf;
	}
	json_object_object_add(sec, "nccl_version", lib && lib->found && lib->version_known
							    ? json_object_new_string(lib->version) : NULL);
	if (job)
		snprintf(job_root, sizeof(job_root), "%s/proc/%d/root",
			 r->opt.root && strcmp(r->opt.root, "/") ? r->opt.root : "", r->opt.pid);
	const struct nccl_setting *hca = s ? nccl_setting_get(s, "NCCL_IB_HCA") : NULL;
	for (int i = 0; i < r->inv.n_rdma; i++) {
		const char *dev = r->inv.rdma[i].name;
		char pd[256], **names;
		snprintf(pd, sizeof(pd), IB "/%s/ports", dev);
		int n = sr_list(r->opt.root, pd, &names);
		for (int j = 0; j < n; j++) {
			int port = atoi(names[j]);
			/* a port that is down is the rdma area's failure already */
			if (!hca_uses(hca ? hca->value : NULL, dev, port) ||
			    !port_active(r->opt.root, dev, port))
				continue;
			one_port(r, dev, port, s, lib, job ? job_root : NULL, ports);
		}
		sr_free_names(names, n);
	}
	free(conf);
}
