// SPDX-License-Identifier: GPL-2.0-only
/* summary.c - the verdict an experienced operator gives first: is this
 * an environment problem (limits, privileges, container passthrough, drivers,
 * settings) or an InfiniBand resource problem (port, subnet manager, LID,
 * PKey)?  The split decides who acts and what to run next, so the summary
 * names it and lists the next commands, most specific first. */
#include "check/builder.h"
#include "check/areas.h"

#include <string.h>

static bool any(const struct chk_report *r, const char *prefix, enum chk_verdict min)
{
	for (int i = 0; i < r->n_items; i++)
		if (r->items[i].verdict >= min && r->items[i].verdict != CHK_UNKNOWN &&
		    !strncmp(r->items[i].id, prefix, strlen(prefix)))
			return true;
	return false;
}

/* which: "" any port, "PKey" PKey problems, "Ethernet" / "InfiniBand" by
 * link layer (the port items' values name it). */
static bool any_ib_port(const struct chk_report *r, enum chk_verdict min, const char *which)
{
	for (int i = 0; i < r->n_items; i++) {
		const struct chk_item *it = &r->items[i];
		if (it->cls != CHK_CLS_IB || it->verdict < min || it->verdict == CHK_UNKNOWN)
			continue;
		if (!strcmp(which, "PKey") ? strstr(it->note, "PKey") != NULL :
		    !*which || strstr(it->value, which))
			return true;
	}
	return false;
}

static void next(json_object *a, const char *s)
{
	json_object_array_add(a, json_object_new_string(s));
}

void check_summary(struct chk_report *r)
{
	int count[4] = { 0 }, env[4] = { 0 }, ib[4] = { 0 };
	for (int i = 0; i < r->n_items; i++) {
		const struct chk_item *it = &r->items[i];
		count[it->verdict]++;
		if (it->cls == CHK_CLS_ENV)
			env[it->verdict]++;
		else if (it->cls == CHK_CLS_IB)
			ib[it->verdict]++;
	}
	/* Failures decide the class; warnings only when nothing fails. */
	enum chk_verdict lvl = count[CHK_FAIL] ? CHK_FAIL : CHK_WARN;
	bool e = env[lvl] > 0, f = ib[lvl] > 0;
	const char *cls = e && f ? "both" : e ? "environment" : f ? "infiniband" : "none";
	enum chk_verdict overall = chk_overall(r);

	const char *headline;
	char na[300];
	if (r->rdma_na) {
		snprintf(na, sizeof(na), "%s: no memory registration with an RDMA NIC can happen "
			 "here, so nothing here is judged", r->rdma_na_text);
		headline = na;
	} else if (!strcmp(cls, "both"))
		headline = "environment and InfiniBand problems: fix the environment first "
			   "(it fails before the fabric is used), then the fabric";
	else if (!strcmp(cls, "environment"))
		headline = lvl == CHK_FAIL ?
			   "environment problem: limits, privileges, container passthrough, "
			   "drivers or settings; the fabric is not the first suspect" :
			   "no blocking problem found; environment warnings below";
	else if (!strcmp(cls, "infiniband"))
		headline = lvl == CHK_FAIL ?
			   "InfiniBand resource problem: port, subnet manager, LID or PKey; "
			   "no environment check fails" :
			   "no blocking problem found; InfiniBand warnings below";
	else
		headline = overall == CHK_UNKNOWN ?
			   "nothing found that breaks registration, but some items could not be read" :
			   "nothing on this node explains a registration failure";

	json_object *s = json_object_new_object();
	json_object_object_add(s, "verdict", json_object_new_string(chk_verdict_name(overall)));
	json_object_object_add(s, "class", json_object_new_string(cls));
	json_object_object_add(s, "headline", json_object_new_string(headline));
	json_object_object_add(s, "rdma_expected", json_object_new_boolean(!r->rdma_na));
	json_object *c = json_object_new_object();
	for (int v = 0; v < 4; v++)
		json_object_object_add(c, chk_verdict_name(v), json_object_new_int(count[v]));
	json_object_object_add(s, "counts", c);

	json_object *a = json_object_new_array();
	bool proc = r->opt.pid > 0;
	if (any(r, "memlock.", CHK_WARN) && !proc)
		next(a, "mrtrace check -p <PID of one rank>: the limit the kernel enforces for the "
			"job, its VmPin and CAP_IPC_LOCK (your shell's ulimit -l is not the job's)");
	if (any(r, "memlock.", CHK_FAIL) && proc)
		next(a, "apply the memlock fix above where the job starts, restart the job, and "
			"confirm with mrtrace check -p <new PID>");
	if (any(r, "rdma.", CHK_FAIL) && !any_ib_port(r, CHK_FAIL, ""))
		next(a, "give the job the RDMA devices (/dev/infiniband/uverbs*, ib_uverbs loaded), "
			"then rerun mrtrace check");
	if (any_ib_port(r, CHK_FAIL, "InfiniBand"))
		next(a, "ibstat and ibv_devinfo -v for the port, sminfo to see whether a subnet "
			"manager answers, iblinkinfo for the cable and switch side");
	if (any_ib_port(r, CHK_FAIL, "Ethernet"))
		next(a, "RoCE: rdma link show and ip link show <netdev> for carrier and state, "
			"ip addr for the GIDs' addresses, then the switch port");
	if (any_ib_port(r, CHK_WARN, "PKey"))
		next(a, "compare PKeys across nodes: mrtrace check --json > $(hostname).json on each "
			"node, then mrtrace diff *.json");
	if (any(r, "nccl.", CHK_WARN))
		next(a, "remove or correct the NCCL settings flagged above: a variable NCCL does not "
			"read is a mitigation that is not active");
	next(a, proc ? "mrtrace watch -p <PID> while the job registers memory: names the kernel "
		       "site and errno behind ncclSystemError" :
		       "mrtrace watch -- <your launch command> (or -p PID): names the kernel site "
		       "and errno behind ncclSystemError");
	next(a, "mrtrace check --json on every node of the job, then mrtrace diff *.json: one odd "
		"node fails the whole job");
	json_object_object_add(s, "next", a);
	json_object_object_add(r->doc, "summary", s);
}
