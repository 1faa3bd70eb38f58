// SPDX-License-Identifier: GPL-2.0-only
/* nccl.c - the target's NCCL: library and version, the effective
 * NCCL_* settings with their source, and the lint from nccl.h (variables no
 * NCCL release reads are the classic false mitigation).  Adds one check that
 * needs this node's hardware: NCCL_IB_HCA naming devices that do not exist.
 * Without -p, lints /etc/nccl.conf, which every job on the node inherits. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"

#include <stdlib.h>
#include <string.h>

static json_object *settings_json(const struct nccl_settings *s)
{
	json_object *a = json_object_new_array();
	for (int i = 0; i < s->n; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(s->v[i].name));
		json_object_object_add(o, "value", json_object_new_string(s->v[i].value));
		json_object_object_add(o, "source", json_object_new_string(nccl_source_name(s->v[i].source)));
		chk_json_str(o, "origin", s->v[i].origin);
		json_object_array_add(a, o);
	}
	return a;
}

static void lint_items(struct chk_report *r, const struct nccl_lint *l, json_object *sec)
{
	json_object *a = json_object_new_array();
	json_object_object_add(sec, "lint", a);
	for (int i = 0; i < l->n; i++) {
		const struct nccl_lint_finding *f = &l->f[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "kind", json_object_new_string(nccl_lint_kind_name(f->kind)));
		json_object_object_add(o, "severity", json_object_new_string(
					       f->severity == NCCL_LINT_WARN ? "warn" : "info"));
		json_object_object_add(o, "name", json_object_new_string(f->name));
		chk_json_str(o, "suggestion", f->suggestion);
		json_object_object_add(o, "message", json_object_new_string(f->message));
		json_object_array_add(a, o);

		char id[96];
		snprintf(id, sizeof(id), "nccl.lint.%s", f->name);
		struct chk_item *it = chk_add(r, "nccl", id, f->severity == NCCL_LINT_WARN ?
					      CHK_WARN : CHK_OK, CHK_CLS_ENV, f->name, "%s", f->message);
		if (it && f->suggestion[0])
			chk_fix(it, "Use %s instead.", f->suggestion);
	}
}

/* NCCL_IB_HCA: "[^][=]name[:port],..."; without '=' each entry is a prefix. */
static bool hca_matches(const char *entry, bool exact, const char *dev)
{
	char name[64];
	snprintf(name, sizeof(name), "%s", entry);
	name[strcspn(name, ":")] = '\0';
	return exact ? !strcmp(name, dev) : !strncmp(dev, name, strlen(name));
}

static void ib_hca(struct chk_report *r, const struct nccl_settings *s, json_object *sec)
{
	const struct nccl_setting *h = nccl_setting_get(s, "NCCL_IB_HCA");
	if (!h || !h->value[0] || r->inv.n_rdma == 0)
		return;
	const char *v = h->value;
	bool exclude = *v == '^';
	v += exclude;
	bool exact = *v == '=';
	v += exact;
	char buf[CTX_ENV_VALUE_MAX], unmatched[160] = "";
	snprintf(buf, sizeof(buf), "%s", v);
	int used = 0;
	json_object *o = json_object_new_object();
	json_object *um = json_object_new_array();
	json_object_object_add(o, "value", json_object_new_string(h->value));
	json_object_object_add(o, "unmatched", um);
	json_object_object_add(sec, "ib_hca", o);
	char *save, *tok = strtok_r(buf, ",", &save);
	for (; tok; tok = strtok_r(NULL, ",", &save)) {
		bool any = false;
		for (int i = 0; i < r->inv.n_rdma; i++)
			any |= hca_matches(tok, exact, r->inv.rdma[i].name);
		if (!any) {
			json_object_array_add(um, json_object_new_string(tok));
			str_appendf(unmatched, sizeof(unmatched), "%s%s", unmatched[0] ? "," : "", tok);
		}
	}
	for (int i = 0; i < r->inv.n_rdma; i++) {
		bool m = false;
		snprintf(buf, sizeof(buf), "%s", v);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			m |= hca_matches(tok, exact, r->inv.rdma[i].name);
		used += exclude ? !m : m;
	}
	json_object_object_add(o, "devices_used", json_object_new_int(used));
	struct chk_item *it;
	if (used == 0) {
		it = chk_add(r, "nccl", "nccl.ib_hca", CHK_FAIL, CHK_CLS_ENV, "NCCL_IB_HCA",
			     "%s selects none of this node's %d RDMA devices", h->value, r->inv.n_rdma);
		chk_note(it, "NCCL finds no IB device and falls back to sockets, or fails when "
			 "the job requires the network plugin.");
	} else if (unmatched[0] && !exclude) {
		it = chk_add(r, "nccl", "nccl.ib_hca", CHK_WARN, CHK_CLS_ENV, "NCCL_IB_HCA",
			     "%s: %s match%s no device here (%d used)", h->value, unmatched,
			     strchr(unmatched, ',') ? "" : "es", used);
		chk_note(it, "Nodes with different device names get different rails: "
			 "compare with `mrtrace diff`.");
	} else {
		chk_add(r, "nccl", "nccl.ib_hca", CHK_OK, CHK_CLS_ENV, "NCCL_IB_HCA",
			"%s selects %d of %d devices", h->value, used, r->inv.n_rdma);
	}
}

static void node_conf(struct chk_report *r, json_object *sec)
{
	static char text[65536];
	json_object_object_add(sec, "scope", json_object_new_string("node"));
	if (sr_read_all(r->opt.root, "/etc/nccl.conf", text, sizeof(text), NULL)) {
		chk_add(r, "nccl", "nccl.conf", CHK_OK, CHK_CLS_ENV, "/etc/nccl.conf",
			"absent (settings come from each job's environment: use -p PID)");
		return;
	}
	struct nccl_settings *s = calloc(1, sizeof(*s));
	struct nccl_lint *l = calloc(1, sizeof(*l));
	if (!s || !l) {
		free(s);
		free(l);
		return;
	}
	nccl_settings_apply_conf(s, text, NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf");
	nccl_lint_settings(s, l);
	json_object_object_add(sec, "settings", settings_json(s));
	chk_add(r, "nccl", "nccl.conf", CHK_OK, CHK_CLS_ENV, "/etc/nccl.conf",
		"%d setting%s for every job on this node", s->n, s->n == 1 ? "" : "s");
	lint_items(r, l, sec);
	ib_hca(r, s, sec);
	free(s);
	free(l);
}

void check_nccl(struct chk_report *r)
{
	json_object *sec = chk_section(r, "nccl");
	if (r->opt.pid <= 0) {
		node_conf(r, sec);
		return;
	}
	json_object_object_add(sec, "scope", json_object_new_string("process"));
	if (!r->have_target)
		return;
	if (!r->nccl) {
		chk_add(r, "nccl", "nccl.library", CHK_UNKNOWN, CHK_CLS_ENV, "library",
			"pid %d: maps and environment unreadable", r->opt.pid);
		return;
	}
	const struct nccl_info *n = r->nccl;
	json_object *lib = json_object_new_object();
	json_object_object_add(lib, "found", json_object_new_boolean(n->lib.found));
	chk_json_str(lib, "path", n->lib.path);
	chk_json_str(lib, "version", n->lib.version_known ? n->lib.version : "");
	chk_json_str(lib, "cuda", n->lib.cuda);
	chk_json_str(lib, "net_plugin", n->lib.net_plugin);
	json_object_object_add(sec, "library", lib);
	json_object *rk = json_object_new_object();
	json_object_object_add(rk, "rank", n->rank.rank >= 0 ? json_object_new_int64(n->rank.rank) : NULL);
	json_object_object_add(rk, "local_rank", n->rank.local_rank >= 0 ?
			       json_object_new_int64(n->rank.local_rank) : NULL);
	json_object_object_add(rk, "world_size", n->rank.world_size >= 0 ?
			       json_object_new_int64(n->rank.world_size) : NULL);
	json_object_object_add(sec, "rank", rk);
	json_object_object_add(sec, "settings", settings_json(&n->settings));

	if (n->lib.found)
		chk_add(r, "nccl", "nccl.library", CHK_OK, CHK_CLS_ENV, "library", "NCCL %s%s%s (%s)",
			n->lib.version_known ? n->lib.version : "version ?",
			n->lib.cuda[0] ? "+cuda" : "", n->lib.cuda, n->lib.path);
	else
		chk_add(r, "nccl", "nccl.library", CHK_UNKNOWN, CHK_CLS_ENV, "library",
			"no libnccl mapped in pid %d (not loaded yet, or linked statically)", r->opt.pid);

	char list[256] = "";
	for (int i = 0; i < n->settings.n; i++) {
		str_appendf(list, sizeof(list), "%s%s=%s", list[0] ? " " : "", n->settings.v[i].name,
			    n->settings.v[i].value);
	}
	chk_add(r, "nccl", "nccl.settings", CHK_OK, CHK_CLS_ENV, "settings", "%s",
		list[0] ? list : "none set (NCCL defaults)");
	lint_items(r, &n->lint, sec);
	ib_hca(r, &n->settings, sec);
}
