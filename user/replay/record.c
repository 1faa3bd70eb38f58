// SPDX-License-Identifier: GPL-2.0-only
/* record.c - a `watch --json` record back into the kernel record, the
 * libibverbs call, the process context and NCCL data (see record.h).  The
 * members are those report/json.c writes (docs/json.md).
 *
 * Length: over the usual 500 lines: every member of a watch record is read back with
 * its type checked and its name in the error; splitting by member would only
 * scatter one table.
 */
#include "replay/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "report/report.h"

/* ---- members ---------------------------------------------------------------------- */

struct where {
	const char *obj; /* "process", "nccl", ... for messages */
	char *err;
	size_t errlen;
};

static const char *type_word(json_type t)
{
	switch (t) {
	case json_type_boolean: return "a boolean";
	case json_type_int: return "a number";
	case json_type_string: return "a string";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	default: return "a value";
	}
}

/* 1 when obj.key is there with type t (numbers: int or double), 0 when it
 * is absent or null, -1 (with the message) when it has another type. */
static int member(struct json_object *obj, const char *key, json_type t, struct json_object **v,
		  const struct where *w)
{
	struct json_object *x;

	if (!json_object_object_get_ex(obj, key, &x) || !x)
		return 0;
	bool ok = t == json_type_int ? json_object_is_type(x, json_type_int) ||
					       json_object_is_type(x, json_type_double)
				     : json_object_is_type(x, t);
	if (!ok) {
		snprintf(w->err, w->errlen, "%s.%s: not %s", w->obj, key, type_word(t));
		return -1;
	}
	*v = x;
	return 1;
}

static int get_str(struct json_object *o, const char *key, char *buf, size_t len, const struct where *w)
{
	struct json_object *x;
	int rc = member(o, key, json_type_string, &x, w);

	if (rc == 1)
		snprintf(buf, len, "%s", json_object_get_string(x));
	return rc;
}

static int get_u64(struct json_object *o, const char *key, uint64_t *v, const struct where *w)
{
	struct json_object *x;
	int rc = member(o, key, json_type_int, &x, w);

	if (rc == 1)
		*v = json_object_get_uint64(x);
	return rc;
}

static int get_i64(struct json_object *o, const char *key, long long *v, const struct where *w)
{
	struct json_object *x;
	int rc = member(o, key, json_type_int, &x, w);

	if (rc == 1)
		*v = json_object_get_int64(x);
	return rc;
}

static int get_bool(struct json_object *o, const char *key, bool *v, const struct where *w)
{
	struct json_object *x;
	int rc = member(o, key, json_type_boolean, &x, w);

	if (rc == 1)
		*v = json_object_get_boolean(x);
	return rc;
}

/* A limit: bytes, or "unlimited" (RLIM_INFINITY). */
static int get_limit(struct json_object *o, const char *key, uint64_t *v, const struct where *w)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !x)
		return 0;
	if (json_object_is_type(x, json_type_string) && !strcmp(json_object_get_string(x), "unlimited")) {
		*v = CTX_UNLIMITED;
		return 1;
	}
	if (json_object_is_type(x, json_type_int)) {
		*v = json_object_get_uint64(x);
		return 1;
	}
	snprintf(w->err, w->errlen, "%s.%s: not a number or \"unlimited\"", w->obj, key);
	return -1;
}

/* ---- names back to values ------------------------------------------------------------ */

static int api_from_name(const char *s)
{
	for (unsigned int a = MRT_API_NONE + 1; a < MRT_API_MAX; a++)
		if (!strcmp(api_name(a), s))
			return (int)a;
	return -1;
}

static int errno_from_name(const char *s)
{
	/* errno_name covers the Linux errnos and the kernel-internal 512..530 */
	for (int e = 1; e < 600; e++)
		if (!strcmp(errno_name(e), s))
			return e;
	return -1;
}

static int runtime_from_name(const char *s)
{
	for (int r = CTX_RT_NONE; r <= CTX_RT_UNKNOWN; r++)
		if (!strcmp(ctx_runtime_name(r), s))
			return r;
	return -1;
}

static int source_from_name(const char *s)
{
	for (int r = NCCL_SRC_DEFAULT; r <= NCCL_SRC_SYSTEM_CONF; r++)
		if (!strcmp(nccl_source_name(r), s))
			return r;
	return -1;
}

static int lint_kind_from_name(const char *s)
{
	for (int k = NCCL_LINT_NONEXISTENT; k <= NCCL_LINT_DROPPED; k++)
		if (!strcmp(nccl_lint_kind_name(k), s))
			return k;
	return -1;
}

/* ---- kinds ------------------------------------------------------------------------- */

enum replay_kind replay_kind_of(struct json_object *o, const char **event)
{
	struct json_object *x;

	*event = NULL;
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "event", &x) ||
	    !json_object_is_type(x, json_type_string))
		return REPLAY_NO_EVENT;
	*event = json_object_get_string(x);
	if (!strcmp(*event, "reg_failure") || !strcmp(*event, "mlock_failure") ||
	    !strcmp(*event, "failure") || !strcmp(*event, "user_call"))
		return REPLAY_FAILURE;
	if (!strcmp(*event, "nccl_probe"))
		return REPLAY_PROBE;
	return REPLAY_OTHER;
}

/* ---- process ---------------------------------------------------------------------- */

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
		       const struct where *w)
{
	char path[512], line[600], s[128];
	long long job = -1;
	int rc;

	if ((rc = get_str(p, "cgroup", path, sizeof(path), w)) <= 0)
		return rc;
	snprintf(line, sizeof(line), "0::%s\n", path);
	proc_context_parse_cgroup(line, c);
	if ((rc = get_str(p, "runtime", s, sizeof(s), w)) < 0)
		return -1;
	if (rc && runtime_from_name(s) >= 0)
		c->runtime = runtime_from_name(s);
	if (get_str(p, "container_id", c->container_id, sizeof(c->container_id), w) == 0)
		c->container_id[0] = '\0';
	if (get_str(p, "pod_uid", c->pod_uid, sizeof(c->pod_uid), w) == 0)
		c->pod_uid[0] = '\0';
	snprintf(s, sizeof(s), "%s", c->systemd_unit);
	if ((rc = get_str(p, "systemd_unit", c->systemd_unit, sizeof(c->systemd_unit), w)) == 0)
		c->systemd_unit[0] = '\0';
	else if (rc == 1 && strcmp(s, c->systemd_unit))
		c->systemd_user_unit = !strcmp(setting, "systemd_user_service");
	if ((rc = get_i64(p, "slurm_job", &job, w)) < 0)
		return -1;
	if (!rc)
		job = -1;
	if (job != c->slurm_job)
		c->slurm_step[0] = '\0'; /* the step is known only from the path */
	c->slurm_job = job;
	return w->err[0] ? -1 : 0; /* a member of the wrong type above said so */
}

static int read_process(struct json_object *p, const struct mrt_event *ev, struct proc_context *c,
			char *setting, size_t setting_len, const struct where *w)
{
	char chain[1024];
	long long uid = 0;
	bool b = false;
	int rc;

	proc_context_init(c, (int)ev->pid);
	memcpy(c->comm, ev->comm, sizeof(c->comm) - 1);
	c->have |= CTX_HAVE_COMM;
	if ((rc = get_str(p, "exe", c->exe, sizeof(c->exe), w)) == 1)
		c->have |= CTX_HAVE_EXE;
	if (rc >= 0 && (rc = get_str(p, "cmdline", c->cmdline, sizeof(c->cmdline), w)) == 1)
		c->have |= CTX_HAVE_CMDLINE;
	if (rc >= 0 && (rc = get_i64(p, "uid", &uid, w)) == 1) {
		c->uid = c->euid = (uint32_t)uid;
		c->have |= CTX_HAVE_UID;
	}
	if (rc >= 0 && (rc = get_limit(p, "memlock_soft_bytes", &c->memlock_soft, w)) == 1)
		c->have |= CTX_HAVE_MEMLOCK;
	if (rc >= 0 && (rc = get_limit(p, "memlock_hard_bytes", &c->memlock_hard, w)) == 1)
		c->have |= CTX_HAVE_MEMLOCK_HARD;
	if (rc >= 0 && (rc = get_u64(p, "vm_pin_bytes", &c->vm_pin, w)) == 1)
		c->have |= CTX_HAVE_VMPIN;
	if (rc >= 0 && (rc = get_u64(p, "vm_lck_bytes", &c->vm_lck, w)) == 1)
		c->have |= CTX_HAVE_VMLCK;
	if (rc >= 0 && (rc = get_bool(p, "cap_ipc_lock_effective", &b, w)) == 1) {
		c->cap_ipc_lock = b;
		c->cap_eff = b ? 1ULL << CTX_CAP_IPC_LOCK : 0;
		c->have |= CTX_HAVE_CAPS;
	}
	if (rc >= 0 && (rc = get_bool(p, "user_namespace", &b, w)) == 1) {
		c->in_userns = b;
		c->have |= CTX_HAVE_USERNS;
	}
	if (rc >= 0 && (rc = get_str(p, "setting", setting, setting_len, w)) == 0)
		setting[0] = '\0';
	if (rc >= 0)
		rc = read_cgroup(p, c, setting, w);
	if (rc >= 0 && (rc = get_str(p, "launchers", chain, sizeof(chain), w)) == 1)
		read_launchers(chain, c);
	c->cgroup_id = ev->cgroup_id;
	c->have |= CTX_HAVE_CGROUP_ID;
	return rc < 0 ? -1 : 0;
}

/* ---- nccl --------------------------------------------------------------------------- */

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

static int read_settings(struct json_object *n, struct nccl_settings *s, const struct where *w)
{
	struct json_object *set, *src = NULL, *x;
	int rc;

	if ((rc = member(n, "settings", json_type_object, &set, w)) <= 0)
		return rc;
	if (member(n, "setting_sources", json_type_object, &src, w) < 0)
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
		snprintf(v->value, sizeof(v->value), "%s", json_object_get_string(val));
		/* records written before setting_sources: NCCL_SRC_DEFAULT, "not said" */
		if (src && json_object_object_get_ex(src, name, &x) &&
		    json_object_is_type(x, json_type_string) &&
		    source_from_name(json_object_get_string(x)) >= 0)
			v->source = source_from_name(json_object_get_string(x));
	}
	return 0;
}

static int read_lint(struct json_object *n, struct nccl_lint *l, const struct where *w)
{
	struct json_object *arr;
	int rc;

	if ((rc = member(n, "lint", json_type_array, &arr, w)) <= 0)
		return rc;
	for (size_t i = 0; i < json_object_array_length(arr) && l->n < NCCL_MAX_LINTS; i++) {
		struct json_object *f = json_object_array_get_idx(arr, i);
		struct nccl_lint_finding *x = &l->f[l->n];
		char kind[64] = "";
		struct where wi = *w;
		char obj[32];

		snprintf(obj, sizeof(obj), "nccl.lint[%zu]", i);
		wi.obj = obj;
		if (!json_object_is_type(f, json_type_object)) {
			snprintf(w->err, w->errlen, "%s: not an object", obj);
			return -1;
		}
		memset(x, 0, sizeof(*x));
		if (get_str(f, "kind", kind, sizeof(kind), &wi) < 0 ||
		    get_str(f, "name", x->name, sizeof(x->name), &wi) < 0 ||
		    get_str(f, "message", x->message, sizeof(x->message), &wi) < 0)
			return -1;
		if (lint_kind_from_name(kind) < 0)
			continue; /* a kind this mrtrace does not know: not ours to act on */
		x->kind = lint_kind_from_name(kind);
		x->severity = NCCL_LINT_WARN; /* not recorded; nothing reads it */
		l->n++;
	}
	return 0;
}

static int read_nccl(struct json_object *n, struct nccl_info *out, const struct where *w)
{
	char var[CTX_ENV_NAME_MAX] = "";
	long long rank = -1;
	int rc;

	memset(out, 0, sizeof(*out));
	out->rank.rank = out->rank.local_rank = out->rank.world_size = -1;
	if (get_bool(n, "found", &out->lib.found, w) < 0 ||
	    get_str(n, "library", out->lib.path, sizeof(out->lib.path), w) < 0)
		return -1;
	if ((rc = get_str(n, "version", out->lib.version, sizeof(out->lib.version), w)) < 0)
		return -1;
	if (rc) {
		out->lib.version_known = true;
		sscanf(out->lib.version, "%d.%d.%d", &out->lib.major, &out->lib.minor, &out->lib.patch);
		snprintf(out->settings.nccl_version, sizeof(out->settings.nccl_version), "%s",
			 out->lib.version);
	}
	if ((rc = get_i64(n, "rank", &rank, w)) < 0 || get_str(n, "rank_variable", var, sizeof(var), w) < 0)
		return -1;
	if (rc)
		read_rank(rank, var, &out->rank);
	if (read_settings(n, &out->settings, w) < 0 || read_lint(n, &out->lint, w) < 0)
		return -1;
	nccl_estimate(&out->settings, NULL, &out->estimate);
	return 0;
}

/* ---- user_call ------------------------------------------------------------------------ */

static int read_user_call(struct json_object *u, const struct mrt_event *ev, struct mrt_event *uev,
			  struct ustack_attr *ua, const struct where *w)
{
	char s[64];
	long long v = 0;
	bool b = false;
	int rc;

	if (ev->kind == MRT_EV_USER_CALL) {
		*uev = *ev; /* the record is the call itself */
	} else {
		memset(uev, 0, sizeof(*uev));
		uev->kind = MRT_EV_USER_CALL;
		uev->pid = ev->pid;
		uev->tid = ev->tid;
		uev->uid = ev->uid;
		uev->ts_ns = ev->ts_ns;
		uev->cgroup_id = ev->cgroup_id;
		uev->userns_inum = ev->userns_inum;
		uev->userns_level = ev->userns_level;
		memcpy(uev->comm, ev->comm, sizeof(uev->comm));
		uev->err = ev->err;
		uev->cmd_valid = 3;
		uev->dmabuf_fd = -1;
		if ((rc = get_str(u, "api", s, sizeof(s), w)) < 0)
			return -1;
		if (rc && api_from_name(s) < 0) {
			snprintf(w->err, w->errlen, "user_call.api: unknown call '%s'", s);
			return -1;
		}
		uev->opener = rc ? (unsigned int)api_from_name(s) : MRT_API_NONE;
		if ((rc = get_i64(u, "tid", &v, w)) < 0)
			return -1;
		if (rc)
			uev->tid = (unsigned int)v;
		uint64_t start = 0, length = 0, iova = 0, access = 0;
		if (get_u64(u, uev->opener == MRT_API_REG_DMABUF_MR ? "offset" : "addr", &start, w) < 0 ||
		    get_u64(u, "length", &length, w) < 0 || get_u64(u, "iova", &iova, w) < 0 ||
		    get_u64(u, "access", &access, w) < 0)
			return -1;
		uev->cmd_start = start;
		uev->cmd_length = length;
		uev->cmd_iova = iova;
		uev->cmd_access = (unsigned int)access;
		if ((rc = get_i64(u, "fd", &v, w)) < 0)
			return -1;
		if (rc)
			uev->dmabuf_fd = (int)v;
		if ((rc = get_bool(u, "reached_kernel", &b, w)) < 0)
			return -1;
		uev->cmd_reached = rc && b;
		if ((rc = get_str(u, "kernel_errno_name", s, sizeof(s), w)) < 0)
			return -1;
		if (rc && errno_from_name(s) > 0)
			uev->err = errno_from_name(s);
	}
	memset(ua, 0, sizeof(*ua));
	int frames;
	if ((rc = get_bool(u, "via_nccl", &ua->via_nccl, w)) < 0 ||
	    get_str(u, "caller", ua->caller, sizeof(ua->caller), w) < 0 ||
	    (frames = get_i64(u, "stack_frames", &v, w)) < 0)
		return -1;
	ua->resolved = rc == 1; /* written only when the maps could be read */
	if (frames == 1)
		ua->frames = (int)v;
	return 0;
}

/* ---- a record ---------------------------------------------------------------------- */

int replay_record_read(struct json_object *o, struct replay_record *out, char *err, size_t errlen)
{
	struct json_object *x;
	struct where w = { .err = err, .errlen = errlen };
	int rc;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	if (event_from_json(o, &out->ev, err, errlen))
		return -1;
	out->have_gates = report_gates_from_json(o, &out->gates);
	if (out->ev.kind == MRT_EV_USER_CALL) {
		out->have_uev = true;
		out->uev = out->ev;
	}
	w.obj = "user_call";
	if ((rc = member(o, "user_call", json_type_object, &x, &w)) < 0)
		return -1;
	if (rc) {
		if (read_user_call(x, &out->ev, &out->uev, &out->ua, &w))
			return -1;
		out->have_uev = true;
	}
	w.obj = "process";
	if ((rc = member(o, "process", json_type_object, &x, &w)) < 0)
		return -1;
	if (rc) {
		if (read_process(x, &out->ev, &out->ctx, out->setting, sizeof(out->setting), &w))
			return -1;
		out->have_ctx = true;
	}
	w.obj = "nccl";
	if ((rc = member(o, "nccl", json_type_object, &x, &w)) < 0)
		return -1;
	if (rc) {
		if (read_nccl(x, &out->nccl, &w))
			return -1;
		out->have_nccl = true;
	}
	return 0;
}

const struct mrt_event *replay_uev(const struct replay_record *rec)
{
	if (rec->ev.kind == MRT_EV_USER_CALL)
		return &rec->ev;
	return rec->have_uev ? &rec->uev : NULL;
}
