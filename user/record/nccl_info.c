// SPDX-License-Identifier: GPL-2.0-only
/* nccl_info.c - "nccl": the mapped libnccl, its version, rank, settings
 * with their sources, lint findings and pinned-memory estimate, and back
 * (the estimate is computed again from the settings). */
#include "record/parts.h"

#include <stdio.h>
#include <string.h>

struct json_object *nccl_info_to_json(const struct nccl_info *n)
{
	struct json_object *o = json_object_new_object(), *set = json_object_new_object();
	struct json_object *src = json_object_new_object(), *lint = json_object_new_array();

	jput_bool(o, "found", n->lib.found);
	if (n->lib.found)
		jput_str(o, "library", n->lib.path);
	if (n->lib.version_known)
		jput_str(o, "version", n->lib.version);
	if (n->rank.rank >= 0) {
		jput_i64(o, "rank", n->rank.rank);
		jput_str(o, "rank_variable", n->rank.rank_var);
	}
	for (int i = 0; i < n->settings.n; i++) {
		jput_str(set, n->settings.v[i].name, n->settings.v[i].value);
		jput_str(src, n->settings.v[i].name, nccl_source_name(n->settings.v[i].source));
	}
	json_object_object_add(o, "settings", set);
	json_object_object_add(o, "setting_sources", src);
	for (int i = 0; i < n->lint.n; i++) {
		struct json_object *f = json_object_new_object();
		jput_str(f, "kind", nccl_lint_kind_name(n->lint.f[i].kind));
		jput_str(f, "name", n->lint.f[i].name);
		jput_str(f, "message", n->lint.f[i].message);
		json_object_array_add(lint, f);
	}
	json_object_object_add(o, "lint", lint);
	jput_u64(o, "estimated_pinned_host_min_bytes", n->estimate.host_min);
	jput_u64(o, "estimated_pinned_host_max_bytes", n->estimate.host_max);
	return o;
}

/* rank_var must be one of nccl.c's static names: let nccl_rank_from_env
 * pick the variable again from a one-variable environment. */
static void read_rank(long long rank, const char *var, struct nccl_rank *out)
{
	static struct ctx_env env; /* ~20 KiB */

	memset(&env, 0, sizeof(env));
	env.n = 1;
	snprintf(env.vars[0].name, sizeof(env.vars[0].name), "%s", var);
	snprintf(env.vars[0].value, sizeof(env.vars[0].value), "%lld", rank);
	nccl_rank_from_env(&env, out);
	if (!out->rank_var) {
		out->rank = rank;
		out->rank_var = "as recorded";
	}
}

static int read_settings(struct json_object *n, struct nccl_settings *s, const struct jwhere *w)
{
	struct json_object *set, *src = NULL, *x;
	int rc;

	if ((rc = jget_member(n, "settings", json_type_object, &set, w)) <= 0)
		return rc;
	if (jget_member(n, "setting_sources", json_type_object, &src, w) < 0)
		return -1;
	json_object_object_foreach(set, name, val)
	{
		if (!json_object_is_type(val, json_type_string)) {
			snprintf(w->err, w->errlen, "nccl.settings.%s: not a string", name);
			return -1;
		}
		if (s->n == NCCL_MAX_SETTINGS) {
			s->truncated = true;
			break;
		}
		struct nccl_setting *v = &s->v[s->n++];
		snprintf(v->name, sizeof(v->name), "%s", name);
		jcopy_str(v->value, sizeof(v->value), json_object_get_string(val));
		/* records written before setting_sources: NCCL_SRC_DEFAULT, "not said" */
		if (src && json_object_object_get_ex(src, name, &x) &&
		    json_object_is_type(x, json_type_string) &&
		    nccl_source_from_name(json_object_get_string(x)) >= 0)
			v->source = nccl_source_from_name(json_object_get_string(x));
	}
	return 0;
}

static int read_lint(struct json_object *n, struct nccl_lint *l, const struct jwhere *w)
{
	struct json_object *arr;
	int rc;

	if ((rc = jget_member(n, "lint", json_type_array, &arr, w)) <= 0)
		return rc;
	for (size_t i = 0; i < json_object_array_length(arr) && l->n < NCCL_MAX_LINTS; i++) {
		struct json_object *f = json_object_array_get_idx(arr, i);
		struct nccl_lint_finding *x = &l->f[l->n];
		char kind[64] = "";
		struct jwhere wi = *w;
		char obj[32];

		snprintf(obj, sizeof(obj), "nccl.lint[%zu]", i);
		wi.obj = obj;
		if (!json_object_is_type(f, json_type_object)) {
			snprintf(w->err, w->errlen, "%s: not an object", obj);
			return -1;
		}
		memset(x, 0, sizeof(*x));
		if (jget_str(f, "kind", kind, sizeof(kind), &wi) < 0 ||
		    jget_str(f, "name", x->name, sizeof(x->name), &wi) < 0 ||
		    jget_str(f, "message", x->message, sizeof(x->message), &wi) < 0)
			return -1;
		if (nccl_lint_kind_from_name(kind) < 0)
			continue; /* a kind this mrtrace does not know: not ours to act on */
		x->kind = nccl_lint_kind_from_name(kind);
		x->severity = NCCL_LINT_WARN; /* not recorded; nothing reads it */
		l->n++;
	}
	return 0;
}

int nccl_info_from_json(struct json_object *n, struct nccl_info *out, const struct jwhere *w)
{
	char var[CTX_ENV_NAME_MAX] = "";
	long long rank = -1;
	int rc;

	memset(out, 0, sizeof(*out));
	out->rank.rank = out->rank.local_rank = out->rank.world_size = -1;
	if (jget_bool(n, "found", &out->lib.found, w) < 0 ||
	    jget_str(n, "library", out->lib.path, sizeof(out->lib.path), w) < 0)
		return -1;
	if ((rc = jget_str(n, "version", out->lib.version, sizeof(out->lib.version), w)) < 0)
		return -1;
	if (rc) {
		out->lib.version_known = true;
		sscanf(out->lib.version, "%d.%d.%d", &out->lib.major, &out->lib.minor, &out->lib.patch);
		snprintf(out->settings.nccl_version, sizeof(out->settings.nccl_version), "%s",
			 out->lib.version);
	}
	if ((rc = jget_i64(n, "rank", &rank, w)) < 0 || jget_str(n, "rank_variable", var, sizeof(var), w) < 0)
		return -1;
	if (rc)
		read_rank(rank, var, &out->rank);
	if (read_settings(n, &out->settings, w) < 0 || read_lint(n, &out->lint, w) < 0)
		return -1;
	nccl_estimate(&out->settings, NULL, &out->estimate);
	return 0;
}

