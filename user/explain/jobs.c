// SPDX-License-Identifier: GPL-2.0-only
/* jobs.c - the job a failure killed, across nodes (jobs.h).
 *
 * A multi-node job dies on every rank, but one node holds the cause.  Each
 * record keeps its host, wall time, what it is and which job it belongs
 * to: a failure by its process (process.slurm_job, the Kubernetes pod); a
 * port_change by the processes that held QPs on the port (their own job
 * members, or the failure records of the same host and pid).  Per job the
 * first record with kernel evidence (a port_change, a failure whose
 * certainty is "proven") leads; a port's return is dated when it went
 * down.  Everything that failed after it is counted as what it killed. */
#include "explain/jobs.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEY_MAX 96
#define AFFECTED_MAX 16

struct jrec {
	char host[64];
	long long t_us;          /* wall clock, microseconds; the start of a port's downtime */
	char time[40];           /* as recorded */
	bool port;               /* port_change, else a failure */
	bool proven;             /* kernel evidence */
	char what[48];           /* the cause, or port_change's reason */
	char summary[320];
	int pid;
	char comm[16];
	long rank;
	char key[KEY_MAX];       /* the job; "" unknown */
	int naff;
	int aff_pid[AFFECTED_MAX];
	char aff_key[AFFECTED_MAX][KEY_MAX];
};

struct jobs {
	struct jrec *r;
	int n, cap;
};

struct jobs *jobs_new(void)
{
	return calloc(1, sizeof(struct jobs));
}

void jobs_free(struct jobs *j)
{
	if (j)
		free(j->r);
	free(j);
}

static struct json_object *get(struct json_object *o, const char *k, json_type t)
{
	struct json_object *x;
	return o && json_object_object_get_ex(o, k, &x) && json_object_is_type(x, t) ? x : NULL;
}

static const char *str(struct json_object *o, const char *k)
{
	struct json_object *x = get(o, k, json_type_string);
	return x ? json_object_get_string(x) : "";
}

static long long num(struct json_object *o, const char *k, long long def)
{
	struct json_object *x = get(o, k, json_type_int);
	return x ? json_object_get_int64(x) : def;
}

/* "2025-06-01T12:34:56.123456Z" -> microseconds since the epoch; 0 unknown */
static long long wall_us(const char *s)
{
	struct tm tm = { 0 };
	const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	long long us = 0;
	int digits = 0;

	if (!rest)
		return 0;
	if (*rest == '.')
		for (rest++; *rest >= '0' && *rest <= '9'; rest++)
			if (digits < 6) {
				us = us * 10 + (*rest - '0');
				digits++;
			}
	while (digits++ < 6)
		us *= 10;
	return (long long)timegm(&tm) * 1000000LL + us;
}

/* the job of a process: its Slurm job, its pod */
static void job_key(long slurm, const char *ns, const char *pod, const char *pod_uid, char *key)
{
	if (slurm >= 0)
		snprintf(key, KEY_MAX, "slurm job %ld", slurm);
	else if (pod && *pod)
		snprintf(key, KEY_MAX, "pod %.40s/%.40s", ns && *ns ? ns : "default", pod);
	else if (pod_uid && *pod_uid)
		snprintf(key, KEY_MAX, "pod %.60s", pod_uid);
	else
		key[0] = 0;
}

bool jobs_add(struct jobs *j, struct json_object *o)
{
	const char *ev = str(o, "event");
	bool port = !strcmp(ev, "port_change");
	struct jrec r = { .rank = -1 };

	if (!port && strcmp(ev, "reg_failure") && strcmp(ev, "failure") && strcmp(ev, "mlock_failure"))
		return false;
	if (get(o, "harmless", json_type_boolean) && json_object_get_boolean(get(o, "harmless", json_type_boolean)))
		return false;
	snprintf(r.host, sizeof(r.host), "%s", str(o, "host"));
	snprintf(r.time, sizeof(r.time), "%s", str(o, "time"));
	r.t_us = wall_us(r.time);
	r.port = port;
	snprintf(r.summary, sizeof(r.summary), "%s", str(o, "summary"));
	if (port) {
		long long down = num(o, "down_ms", -1);
		r.proven = true; /* the kernel's own port state and GID table */
		snprintf(r.what, sizeof(r.what), "%s", str(o, "reason"));
		if (down > 0)
			r.t_us -= down * 1000;
		struct json_object *a = get(o, "affected", json_type_array);
		for (size_t i = 0; a && i < json_object_array_length(a) && r.naff < AFFECTED_MAX; i++) {
			struct json_object *p = json_object_array_get_idx(a, i);
			r.aff_pid[r.naff] = (int)num(p, "pid", 0);
			job_key(num(p, "slurm_job", -1), NULL, NULL, str(p, "pod_uid"), r.aff_key[r.naff]);
			r.naff++;
		}
	} else {
		struct json_object *proc = get(o, "process", json_type_object);
		struct json_object *k8s = get(o, "kubernetes", json_type_object);
		r.proven = !strcmp(str(o, "certainty"), "proven");
		snprintf(r.what, sizeof(r.what), "%s", str(o, "cause"));
		r.pid = (int)num(o, "pid", 0);
		snprintf(r.comm, sizeof(r.comm), "%s", str(o, "comm"));
		r.rank = (long)num(get(o, "nccl", json_type_object), "rank", -1);
		job_key(num(proc, "slurm_job", -1), str(k8s, "namespace"), str(k8s, "pod"), NULL, r.key);
	}
	if (j->n == j->cap) {
		int c = j->cap ? j->cap * 2 : 64;
		struct jrec *nr = realloc(j->r, (size_t)c * sizeof(*nr));
		if (!nr)
			return false;
		j->r = nr;
		j->cap = c;
	}
	j->r[j->n++] = r;
	return true;
}

/* A port change's jobs: its holders' own, else the failures of the same
 * host and pid.  Called once every record is in. */
static void port_jobs(struct jobs *j)
{
	for (int i = 0; i < j->n; i++) {
		struct jrec *p = &j->r[i];
		for (int a = 0; p->port && a < p->naff; a++) {
			if (p->aff_key[a][0])
				continue;
			for (int k = 0; k < j->n; k++)
				if (!j->r[k].port && j->r[k].key[0] && j->r[k].pid == p->aff_pid[a] &&
				    !strcmp(j->r[k].host, p->host)) {
					snprintf(p->aff_key[a], KEY_MAX, "%s", j->r[k].key);
					break;
				}
		}
	}
}

static bool in_job(const struct jrec *r, const char *key)
{
	if (!r->port)
		return !strcmp(r->key, key);
	for (int a = 0; a < r->naff; a++)
		if (!strcmp(r->aff_key[a], key))
			return true;
	return false;
}

static int by_time(const void *a, const void *b)
{
	const struct jrec *x = *(const struct jrec *const *)a, *y = *(const struct jrec *const *)b;
	return x->t_us < y->t_us ? -1 : x->t_us > y->t_us;
}

/* "12:03:05.120" of a wall time in microseconds */
static void hms(long long us, char *buf, size_t len)
{
	time_t s = (time_t)(us / 1000000);
	struct tm tm;
	gmtime_r(&s, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03lld", tm.tm_hour, tm.tm_min, tm.tm_sec, (us % 1000000) / 1000);
}

static void one_job(struct jobs *j, const char *key, bool json, FILE *out)
{
	const struct jrec **v = calloc((size_t)j->n, sizeof(*v));
	int n = 0, first = -1;
	char t[32];

	if (!v)
		return;
	for (int i = 0; i < j->n; i++)
		if (in_job(&j->r[i], key))
			v[n++] = &j->r[i];
	qsort(v, (size_t)n, sizeof(*v), by_time);
	for (int i = 0; i < n && first < 0; i++)
		if (v[i]->proven)
			first = i;
	/* what failed after the cause: processes (ranks) and nodes */
	int procs = 0, ranks = 0, nodes = 0;
	for (int i = 0; i < n; i++) {
		if (v[i]->port || i == first || (first >= 0 && v[i]->t_us < v[first]->t_us))
			continue;
		bool seen = false, host_seen = false;
		for (int k = 0; k < i; k++) {
			if (v[k]->port || k == first || (first >= 0 && v[k]->t_us < v[first]->t_us))
				continue;
			seen |= v[k]->pid == v[i]->pid && !strcmp(v[k]->host, v[i]->host);
			host_seen |= !strcmp(v[k]->host, v[i]->host);
		}
		procs += !seen;
		ranks += !seen && v[i]->rank >= 0;
		nodes += !host_seen;
	}
	if (json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();
		json_object_object_add(o, "event", json_object_new_string("job"));
		json_object_object_add(o, "job", json_object_new_string(key));
		if (first >= 0) {
			struct json_object *c = json_object_new_object();
			json_object_object_add(c, "host", json_object_new_string(v[first]->host));
			json_object_object_add(c, "time", json_object_new_string(v[first]->time));
			json_object_object_add(c, "event", json_object_new_string(
						       v[first]->port ? "port_change" : "failure"));
			json_object_object_add(c, v[first]->port ? "reason" : "cause",
					       json_object_new_string(v[first]->what));
			json_object_object_add(c, "summary", json_object_new_string(v[first]->summary));
			json_object_object_add(o, "first_cause", c);
		} else {
			json_object_object_add(o, "first_cause", NULL);
		}
		struct json_object *f = json_object_new_object();
		json_object_object_add(f, "processes", json_object_new_int(procs));
		json_object_object_add(f, "ranks", json_object_new_int(ranks));
		json_object_object_add(f, "nodes", json_object_new_int(nodes));
		json_object_object_add(o, "failed_after", f);
		for (int i = 0; i < n; i++) {
			struct json_object *e = json_object_new_object();
			json_object_object_add(e, "host", json_object_new_string(v[i]->host));
			json_object_object_add(e, "time", json_object_new_string(v[i]->time));
			json_object_object_add(e, "event", json_object_new_string(v[i]->port ? "port_change" : "failure"));
			json_object_object_add(e, v[i]->port ? "reason" : "cause", json_object_new_string(v[i]->what));
			if (!v[i]->port)
				json_object_object_add(e, "pid", json_object_new_int(v[i]->pid));
			json_object_object_add(e, "summary", json_object_new_string(v[i]->summary));
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "records", a);
		fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		free(v);
		return;
	}
	if (first >= 0) {
		hms(v[first]->t_us, t, sizeof(t));
		fprintf(out, "%s: %s %s at %s; %d process%s", key, v[first]->host, v[first]->summary, t,
			procs, procs == 1 ? "" : "es");
		if (ranks)
			fprintf(out, " (%d rank%s)", ranks, ranks == 1 ? "" : "s");
		fprintf(out, " on %d node%s failed after it\n", nodes, nodes == 1 ? "" : "s");
	} else {
		fprintf(out, "%s: no record with kernel evidence; %d record%s\n", key, n, n == 1 ? "" : "s");
	}
	for (int i = 0; i < n; i++) {
		hms(v[i]->t_us, t, sizeof(t));
		fprintf(out, "  %s %s %-14s %s", i == first ? "*" : " ", t, v[i]->host,
			v[i]->port ? "port_change" : v[i]->what);
		if (!v[i]->port) {
			fprintf(out, "  pid %d (%s)", v[i]->pid, v[i]->comm);
			if (v[i]->rank >= 0)
				fprintf(out, " rank %ld", v[i]->rank);
		}
		fprintf(out, ": %s\n", v[i]->summary);
	}
	free(v);
}

void jobs_print(struct jobs *j, bool json, FILE *out)
{
	char (*keys)[KEY_MAX] = calloc((size_t)j->n * (AFFECTED_MAX + 1) + 1, KEY_MAX);
	int nk = 0;

	if (!keys)
		return;
	port_jobs(j);
	/* the jobs, in the order their first record came */
	for (int i = 0; i < j->n; i++) {
		const struct jrec *r = &j->r[i];
		int nkeys = r->port ? r->naff : 1;
		for (int a = 0; a < nkeys; a++) {
			const char *k = r->port ? r->aff_key[a] : r->key;
			bool have = false;
			for (int x = 0; x < nk && !have; x++)
				have = !strcmp(keys[x], k);
			if (!have && *k)
				snprintf(keys[nk++], KEY_MAX, "%s", k);
		}
	}
	for (int x = 0; x < nk; x++)
		one_job(j, keys[x], json, out);
	/* what belongs to no known job, each node on its own */
	int loose = 0;
	for (int i = 0; i < j->n; i++) {
		const struct jrec *r = &j->r[i];
		bool known = !r->port ? r->key[0] != 0 : false;
		for (int a = 0; r->port && a < r->naff; a++)
			known |= r->aff_key[a][0] != 0;
		loose += !known;
	}
	if (loose && !json)
		fprintf(out, "%d record%s belong to no job mrtrace could tell (no Slurm job, no pod)\n",
			loose, loose == 1 ? "" : "s");
	free(keys);
}
