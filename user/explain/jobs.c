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
#include "core/escape.h"
#include "proc/jobclaim.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* explain --jobs reads the records of a whole fleet: it streams them in
 * memory bounded by what is distinct (jobs, processes, hosts), not by
 * lines.  Per job it keeps its first cause, the counts, and the SHOWN_MAX
 * earliest records to list; per process (job, host, pid) its two latest
 * failure times, enough to tell at the end whether it failed after the
 * job's cause.  Every lookup is a hash (no pass over all records per job). */
#include <limits.h>
#include <stdint.h>

#define KEY_MAX 96
#define AFFECTED_MAX 16
#define SHOWN_MAX 64 /* records listed per job: the earliest */
#define PORTS_MAX 100000 /* port changes kept until the end, to be joined */

/* One record as a job lists it (shared by the jobs a port change hit). */
struct jrec {
	long long t_us; /* wall clock, microseconds; the start of a port's downtime */
	unsigned long seq; /* input order */
	int refs;
	bool port; /* port_change, else a failure */
	bool proven; /* kernel evidence */
	int host; /* interned */
	int pid;
	long rank;
	char comm[16];
	char *time, *what, *summary; /* as recorded; what: the cause, or the reason */
};

/* A port change, joined to its jobs at the end (a holder's failures may
 * come after it): job index, or -1 to be found by host and pid. */
struct jport {
	struct jrec *r;
	int naff;
	int aff_pid[AFFECTED_MAX];
	int aff_job[AFFECTED_MAX];
};

struct job {
	unsigned long order; /* the input position of its first record */
	unsigned long nrec;
	struct jrec *first; /* the earliest proven record */
	struct jrec *shown[SHOWN_MAX]; /* a max-heap on time: the earliest kept */
	int nshown;
	int procs, ranks, nodes; /* failed after the first cause (jobs_print) */
};

/* (job, host, pid): its two latest failures; pid -1 with node: the host */
struct jproc {
	int job, host, pid;
	bool node, rank;
	long long t[2];
	unsigned long seq[2];
	int n;
};

/* (host, pid) -> the job its first failure named */
struct jpid {
	int host, pid, job;
};

/* An open-addressing index of entries kept in an array elsewhere: a slot
 * holds an entry's index + 1, 0 when empty. */
struct ix {
	unsigned *slot;
	size_t nslot, n;
};

struct strs {
	char **s;
	int n, cap;
	struct ix ix;
};

struct jobs {
	struct strs hosts, keys; /* keys[i] names jobs[i] */
	struct job *job;
	struct jproc *proc;
	size_t nproc, capproc;
	struct ix procix;
	struct jpid *pid;
	size_t npid, cappid;
	struct ix pidix;
	struct jport *ports;
	size_t nports, capports;
	unsigned long seq, loose, ports_dropped;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	return h * 0x100000001b3ULL;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = mix(h, (unsigned char)*s);
	return h;
}

/* The slot of the entry eq() accepts, or the empty slot where it goes. */
static size_t ix_find(const struct ix *x, uint64_t h, bool (*eq)(const void *set, unsigned e, const void *key),
		      const void *set, const void *key)
{
	size_t i = h & (x->nslot - 1);
	while (x->slot[i] && !eq(set, x->slot[i] - 1, key))
		i = (i + 1) & (x->nslot - 1);
	return i;
}

/* Room for one more (load under one half): rehashed with hash(set, e). */
static bool ix_room(struct ix *x, uint64_t (*hash)(const void *set, unsigned e), const void *set)
{
	if (x->nslot && (x->n + 1) * 2 <= x->nslot)
		return true;
	size_t ns = x->nslot ? x->nslot * 2 : 1024;
	unsigned *slot = calloc(ns, sizeof(*slot));
	if (!slot)
		return false;
	for (size_t i = 0; i < x->nslot; i++) {
		if (!x->slot[i])
			continue;
		size_t k = hash(set, x->slot[i] - 1) & (ns - 1);
		while (slot[k])
			k = (k + 1) & (ns - 1);
		slot[k] = x->slot[i];
	}
	free(x->slot);
	x->slot = slot;
	x->nslot = ns;
	return true;
}

static bool grow(void **a, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 256;
	void *na = realloc(*a, c * size);
	if (!na)
		return false;
	*a = na;
	*cap = c;
	return true;
}

static bool str_eq(const void *set, unsigned e, const void *key)
{
	return !strcmp(((const struct strs *)set)->s[e], key);
}

static uint64_t str_rehash(const void *set, unsigned e)
{
	return str_hash(((const struct strs *)set)->s[e]);
}

/* The index of s in t, added when new; -1: out of memory. */
static int intern(struct strs *t, const char *s, bool *added)
{
	if (added)
		*added = false;
	if (!ix_room(&t->ix, str_rehash, t))
		return -1;
	size_t i = ix_find(&t->ix, str_hash(s), str_eq, t, s);
	if (t->ix.slot[i])
		return (int)t->ix.slot[i] - 1;
	size_t cap = (size_t)t->cap;
	if (t->n == INT_MAX || !grow((void **)&t->s, &cap, (size_t)t->n, sizeof(*t->s)))
		return -1;
	t->cap = (int)cap;
	if (!(t->s[t->n] = strdup(s)))
		return -1;
	t->ix.slot[i] = (unsigned)t->n + 1;
	t->ix.n++;
	if (added)
		*added = true;
	return t->n++;
}

static void strs_free(struct strs *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->ix.slot);
}

static void rec_put(struct jrec *r)
{
	if (r && --r->refs == 0) {
		free(r->time);
		free(r->what);
		free(r->summary);
		free(r);
	}
}

static struct jrec *rec_get(struct jrec *r)
{
	r->refs++;
	return r;
}

struct jobs *jobs_new(void)
{
	return calloc(1, sizeof(struct jobs));
}

void jobs_free(struct jobs *j)
{
	if (!j)
		return;
	for (int i = 0; i < j->keys.n; i++) {
		rec_put(j->job[i].first);
		for (int k = 0; k < j->job[i].nshown; k++)
			rec_put(j->job[i].shown[k]);
	}
	for (size_t i = 0; i < j->nports; i++)
		rec_put(j->ports[i].r);
	strs_free(&j->hosts);
	strs_free(&j->keys);
	free(j->job);
	free(j->proc);
	free(j->procix.slot);
	free(j->pid);
	free(j->pidix.slot);
	free(j->ports);
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
	/* a recorded year far out (strptime takes any digits) overflows */
	long long t;
	if (__builtin_mul_overflow((long long)timegm(&tm), 1000000LL, &t) ||
	    __builtin_add_overflow(t, us, &t))
		return 0;
	return t;
}

/* the job of a process: its Slurm job, its pod.  A Slurm job only its
 * environment names (slurm_job_source "environment") is a claim anyone can
 * make: a pod (from the cgroup) wins over it, and it is a job of its own,
 * "slurm job N (claimed)", never grouped with the job the cgroup places -
 * a forged SLURM_JOB_ID must not put its failure, or its comm, among a
 * job's.  A record older than slurm_job_source is taken as it was written. */
static void job_key(long slurm, const char *source, const char *ns, const char *pod,
		    const char *pod_uid, char *key)
{
	bool claimed = job_source_from_name(source) == JOB_SOURCE_ENVIRONMENT;

	if (slurm >= 0 && !claimed)
		snprintf(key, KEY_MAX, "slurm job %ld", slurm);
	else if (pod && *pod)
		snprintf(key, KEY_MAX, "pod %.40s/%.40s", ns && *ns ? ns : "default", pod);
	else if (pod_uid && *pod_uid)
		snprintf(key, KEY_MAX, "pod %.60s", pod_uid);
	else if (slurm >= 0)
		snprintf(key, KEY_MAX, "slurm job %ld" JOB_CLAIMED_SUFFIX, slurm);
	else
		key[0] = 0;
}

/* a before b: wall time, then input order */
static bool earlier(const struct jrec *a, const struct jrec *b)
{
	return a->t_us < b->t_us || (a->t_us == b->t_us && a->seq < b->seq);
}

/* The job named key, made when new; -1: out of memory. */
static int job_of(struct jobs *j, const char *key, unsigned long seq)
{
	bool added;
	size_t cap = (size_t)j->keys.cap;
	int k = intern(&j->keys, key, &added);

	if (k < 0 || !added)
		return k;
	/* jobs[] follows keys[]: grown to the same capacity */
	if ((size_t)j->keys.cap != cap || !j->job) {
		struct job *nj = realloc(j->job, (size_t)j->keys.cap * sizeof(*nj));
		if (!nj)
			return -1;
		j->job = nj;
	}
	memset(&j->job[k], 0, sizeof(j->job[k]));
	j->job[k].order = seq;
	return k;
}

static void heap_swap(struct jrec **h, int a, int b)
{
	struct jrec *t = h[a];
	h[a] = h[b];
	h[b] = t;
}

/* A record joins a job: counted, a candidate for its first cause, and
 * listed while it is among the SHOWN_MAX earliest. */
static void job_take(struct job *jb, struct jrec *r)
{
	jb->nrec++;
	if (r->seq < jb->order)
		jb->order = r->seq;
	if (r->proven && (!jb->first || earlier(r, jb->first))) {
		rec_put(jb->first);
		jb->first = rec_get(r);
	}
	struct jrec **h = jb->shown;
	int i;
	if (jb->nshown < SHOWN_MAX) {
		h[i = jb->nshown++] = rec_get(r);
		for (; i > 0 && earlier(h[(i - 1) / 2], h[i]); i = (i - 1) / 2)
			heap_swap(h, i, (i - 1) / 2);
		return;
	}
	if (!earlier(r, h[0]))
		return;
	rec_put(h[0]);
	h[0] = rec_get(r);
	for (i = 0;;) {
		int l = 2 * i + 1, rr = l + 1, m = i;
		if (l < jb->nshown && earlier(h[m], h[l]))
			m = l;
		if (rr < jb->nshown && earlier(h[m], h[rr]))
			m = rr;
		if (m == i)
			break;
		heap_swap(h, i, m);
		i = m;
	}
}

static uint64_t proc_hash3(int job, int host, int pid, bool node)
{
	return mix(mix(mix(mix(0xcbf29ce484222325ULL, (unsigned)job), (unsigned)host), (unsigned)pid), node);
}

static bool proc_eq(const void *set, unsigned e, const void *key)
{
	const struct jproc *a = &((const struct jobs *)set)->proc[e], *b = key;
	return a->job == b->job && a->host == b->host && a->pid == b->pid && a->node == b->node;
}

static uint64_t proc_rehash(const void *set, unsigned e)
{
	const struct jproc *a = &((const struct jobs *)set)->proc[e];
	return proc_hash3(a->job, a->host, a->pid, a->node);
}

/* A failure of a process (or, node, of a host) in a job: its two latest. */
static bool proc_note(struct jobs *j, int job, int host, int pid, bool node, const struct jrec *r)
{
	struct jproc k = { .job = job, .host = host, .pid = node ? -1 : pid, .node = node };

	if (!ix_room(&j->procix, proc_rehash, j))
		return false;
	size_t i = ix_find(&j->procix, proc_hash3(k.job, k.host, k.pid, k.node), proc_eq, j, &k);
	if (!j->procix.slot[i]) {
		if (j->nproc >= UINT_MAX - 1 || !grow((void **)&j->proc, &j->capproc, j->nproc, sizeof(k)))
			return false;
		j->proc[j->nproc] = k;
		j->procix.slot[i] = (unsigned)++j->nproc;
		j->procix.n++;
	}
	struct jproc *p = &j->proc[j->procix.slot[i] - 1];
	p->rank |= r->rank >= 0;
	/* kept in order, latest first */
	int at = p->n;
	while (at > 0 && (p->t[at - 1] < r->t_us || (p->t[at - 1] == r->t_us && p->seq[at - 1] < r->seq)))
		at--;
	if (at >= 2)
		return true;
	if (at == 0 && p->n > 0) {
		p->t[1] = p->t[0];
		p->seq[1] = p->seq[0];
	}
	p->t[at] = r->t_us;
	p->seq[at] = r->seq;
	if (p->n < 2)
		p->n++;
	return true;
}

static uint64_t pid_hash(int host, int pid)
{
	return mix(mix(0xcbf29ce484222325ULL, (unsigned)host), (unsigned)pid);
}

static bool pid_eq(const void *set, unsigned e, const void *key)
{
	const struct jpid *a = &((const struct jobs *)set)->pid[e], *b = key;
	return a->host == b->host && a->pid == b->pid;
}

static uint64_t pid_rehash(const void *set, unsigned e)
{
	const struct jpid *a = &((const struct jobs *)set)->pid[e];
	return pid_hash(a->host, a->pid);
}

/* The job of the first failure of (host, pid): set once; job -1 looks up. */
static int pid_job(struct jobs *j, int host, int pid, int job)
{
	struct jpid k = { .host = host, .pid = pid, .job = job };

	if (job < 0 && !j->pidix.nslot)
		return -1;
	if (job >= 0 && !ix_room(&j->pidix, pid_rehash, j))
		return -1;
	size_t i = ix_find(&j->pidix, pid_hash(host, pid), pid_eq, j, &k);
	if (j->pidix.slot[i])
		return j->pid[j->pidix.slot[i] - 1].job;
	if (job < 0 || j->npid >= UINT_MAX - 1 || !grow((void **)&j->pid, &j->cappid, j->npid, sizeof(k)))
		return -1;
	j->pid[j->npid] = k;
	j->pidix.slot[i] = (unsigned)++j->npid;
	j->pidix.n++;
	return job;
}

static struct jrec *rec_new(struct json_object *o, bool port, int host)
{
	struct jrec *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->refs = 1;
	r->port = port;
	r->host = host;
	r->rank = -1;
	r->time = strdup(str(o, "time"));
	r->summary = strndup(str(o, "summary"), 319);
	r->what = strndup(str(o, port ? "reason" : "cause"), 47);
	if (!r->time || !r->summary || !r->what) {
		rec_put(r);
		return NULL;
	}
	r->t_us = wall_us(r->time);
	return r;
}

bool jobs_add(struct jobs *j, struct json_object *o)
{
	const char *ev = str(o, "event");
	bool port = !strcmp(ev, "port_change");
	char key[KEY_MAX], host[64];

	if (!port && strcmp(ev, "reg_failure") && strcmp(ev, "failure") && strcmp(ev, "mlock_failure"))
		return false;
	if (get(o, "harmless", json_type_boolean) && json_object_get_boolean(get(o, "harmless", json_type_boolean)))
		return false;
	snprintf(host, sizeof(host), "%s", str(o, "host"));
	int h = intern(&j->hosts, host, NULL);
	struct jrec *r = h < 0 ? NULL : rec_new(o, port, h);
	if (!r)
		return false;
	r->seq = j->seq++;
	if (port) {
		long long down = num(o, "down_ms", -1), down_us;
		r->proven = true; /* the kernel's own port state and GID table */
		/* a crafted down_ms must not overflow: then the return's own time */
		if (down > 0 && !__builtin_mul_overflow(down, 1000LL, &down_us) && down_us <= r->t_us)
			r->t_us -= down_us; /* (a port down since before 1970 is not one) */
		if (j->nports >= PORTS_MAX ||
		    !grow((void **)&j->ports, &j->capports, j->nports, sizeof(*j->ports))) {
			j->ports_dropped++;
			rec_put(r);
			return true;
		}
		struct jport *p = &j->ports[j->nports++];
		p->r = r;
		p->naff = 0;
		struct json_object *a = get(o, "affected", json_type_array);
		for (size_t i = 0; a && i < json_object_array_length(a) && p->naff < AFFECTED_MAX; i++) {
			struct json_object *x = json_object_array_get_idx(a, i);
			p->aff_pid[p->naff] = (int)num(x, "pid", 0);
			job_key(num(x, "slurm_job", -1), str(x, "slurm_job_source"), NULL, NULL, str(x, "pod_uid"), key);
			p->aff_job[p->naff++] = key[0] ? job_of(j, key, r->seq) : -1;
		}
		return true;
	}
	struct json_object *proc = get(o, "process", json_type_object);
	struct json_object *k8s = get(o, "kubernetes", json_type_object);
	r->proven = !strcmp(str(o, "certainty"), "proven");
	r->pid = (int)num(o, "pid", 0);
	snprintf(r->comm, sizeof(r->comm), "%s", str(o, "comm"));
	r->rank = (long)num(get(o, "nccl", json_type_object), "rank", -1);
	job_key(num(proc, "slurm_job", -1), str(proc, "slurm_job_source"), str(k8s, "namespace"),
		str(k8s, "pod"), NULL, key);
	int ji = key[0] ? job_of(j, key, r->seq) : -1;
	if (!key[0])
		j->loose++;
	bool ok = true;
	if (ji >= 0) {
		job_take(&j->job[ji], r);
		pid_job(j, h, r->pid, ji);
		ok = proc_note(j, ji, h, r->pid, false, r) && proc_note(j, ji, h, 0, true, r);
	}
	rec_put(r);
	return ok && (ji >= 0 || !key[0]);
}

/* The port changes joined to their jobs: a holder's own job, else the job
 * of the failures of the same host and pid.  Once every record is in. */
static void port_jobs(struct jobs *j)
{
	for (size_t i = 0; i < j->nports; i++) {
		struct jport *p = &j->ports[i];
		int seen[AFFECTED_MAX], n = 0;
		for (int a = 0; a < p->naff; a++) {
			int ji = p->aff_job[a] >= 0 ? p->aff_job[a] : pid_job(j, p->r->host, p->aff_pid[a], -1);
			bool dup = ji < 0;
			for (int k = 0; k < n && !dup; k++)
				dup = seen[k] == ji;
			if (dup)
				continue;
			seen[n++] = ji;
			job_take(&j->job[ji], p->r);
		}
		j->loose += !n;
		rec_put(p->r);
	}
	j->nports = 0;
}

/* What failed after each job's first cause: processes, ranks, nodes. */
static void failed_after(struct jobs *j)
{
	for (size_t i = 0; i < j->nproc; i++) {
		const struct jproc *p = &j->proc[i];
		struct job *jb = &j->job[p->job];
		const struct jrec *f = jb->first;
		bool after = false;
		for (int k = 0; k < p->n && !after; k++)
			after = !f || (p->seq[k] != f->seq && p->t[k] >= f->t_us);
		if (!after)
			continue;
		if (p->node) {
			jb->nodes++;
		} else {
			jb->procs++;
			jb->ranks += p->rank;
		}
	}
}

static int by_time(const void *a, const void *b)
{
	const struct jrec *x = *(const struct jrec *const *)a, *y = *(const struct jrec *const *)b;
	return earlier(x, y) ? -1 : earlier(y, x);
}

/* "12:03:05.120" of a wall time in microseconds */
static void hms(long long us, char *buf, size_t len)
{
	time_t s = (time_t)(us / 1000000);
	struct tm tm = { 0 };
	if (!gmtime_r(&s, &tm)) /* a time out of range: 00:00:00 */
		memset(&tm, 0, sizeof(tm));
	snprintf(buf, len, "%02d:%02d:%02d.%03lld", tm.tm_hour, tm.tm_min, tm.tm_sec, (us % 1000000) / 1000);
}

static void one_job(struct jobs *j, struct job *jb, const char *key, bool json, FILE *out)
{
	const struct jrec **v = (const struct jrec **)jb->shown, *f = jb->first;
	int n = jb->nshown, procs = jb->procs, ranks = jb->ranks, nodes = jb->nodes;
	unsigned long omitted = jb->nrec - (unsigned long)n;
	char t[32];

	qsort(v, (size_t)n, sizeof(*v), by_time);
	if (json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();
		json_object_object_add(o, "event", json_object_new_string("job"));
		json_object_object_add(o, "job", json_object_new_string(key));
		if (f) {
			struct json_object *c = json_object_new_object();
			json_object_object_add(c, "host", json_object_new_string(j->hosts.s[f->host]));
			json_object_object_add(c, "time", json_object_new_string(f->time));
			json_object_object_add(c, "event", json_object_new_string(f->port ? "port_change" : "failure"));
			json_object_object_add(c, f->port ? "reason" : "cause", json_object_new_string(f->what));
			json_object_object_add(c, "summary", json_object_new_string(f->summary));
			json_object_object_add(o, "first_cause", c);
		} else {
			json_object_object_add(o, "first_cause", NULL);
		}
		struct json_object *fa = json_object_new_object();
		json_object_object_add(fa, "processes", json_object_new_int(procs));
		json_object_object_add(fa, "ranks", json_object_new_int(ranks));
		json_object_object_add(fa, "nodes", json_object_new_int(nodes));
		json_object_object_add(o, "failed_after", fa);
		for (int i = 0; i < n; i++) {
			struct json_object *e = json_object_new_object();
			json_object_object_add(e, "host", json_object_new_string(j->hosts.s[v[i]->host]));
			json_object_object_add(e, "time", json_object_new_string(v[i]->time));
			json_object_object_add(e, "event", json_object_new_string(v[i]->port ? "port_change" : "failure"));
			json_object_object_add(e, v[i]->port ? "reason" : "cause", json_object_new_string(v[i]->what));
			if (!v[i]->port)
				json_object_object_add(e, "pid", json_object_new_int(v[i]->pid));
			json_object_object_add(e, "summary", json_object_new_string(v[i]->summary));
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "records", a);
		if (omitted) /* beyond the SHOWN_MAX earliest */
			json_object_object_add(o, "records_omitted", json_object_new_int64((int64_t)omitted));
		fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return;
	}
	/* the text is other nodes' records (hosts, pods, comms, summaries):
	 * escaped for the terminal (core/escape.h), as JSON it is data */
	if (f) {
		hms(f->t_us, t, sizeof(t));
		fprintf(out, "%s: %s %s at %s; %d process%s", esc(key), esc(j->hosts.s[f->host]),
			esc(f->summary), t, procs, procs == 1 ? "" : "es");
		if (ranks)
			fprintf(out, " (%d rank%s)", ranks, ranks == 1 ? "" : "s");
		fprintf(out, " on %d node%s failed after it\n", nodes, nodes == 1 ? "" : "s");
	} else {
		fprintf(out, "%s: no record with kernel evidence; %lu record%s\n", esc(key), jb->nrec,
			jb->nrec == 1 ? "" : "s");
	}
	for (int i = 0; i < n; i++) {
		hms(v[i]->t_us, t, sizeof(t));
		fprintf(out, "  %s %s %-14s %s", v[i] == f ? "*" : " ", t, esc(j->hosts.s[v[i]->host]),
			v[i]->port ? "port_change" : esc(v[i]->what));
		if (!v[i]->port) {
			fprintf(out, "  pid %d (%s)", v[i]->pid, esc(v[i]->comm));
			if (v[i]->rank >= 0)
				fprintf(out, " rank %ld", v[i]->rank);
		}
		fprintf(out, ": %s\n", esc(v[i]->summary));
	}
	if (omitted)
		fprintf(out, "  ... and %lu later record%s\n", omitted, omitted == 1 ? "" : "s");
}

static const struct jobs *order_of;

static int by_order(const void *a, const void *b)
{
	unsigned long x = order_of->job[*(const int *)a].order, y = order_of->job[*(const int *)b].order;
	return x < y ? -1 : x > y;
}

void jobs_print(struct jobs *j, bool json, FILE *out)
{
	int *ord = calloc((size_t)j->keys.n + 1, sizeof(*ord));

	if (!ord)
		return;
	port_jobs(j);
	failed_after(j);
	/* the jobs, in the order their first record came */
	for (int i = 0; i < j->keys.n; i++)
		ord[i] = i;
	order_of = j;
	qsort(ord, (size_t)j->keys.n, sizeof(*ord), by_order);
	for (int i = 0; i < j->keys.n; i++)
		if (j->job[ord[i]].nrec)
			one_job(j, &j->job[ord[i]], j->keys.s[ord[i]], json, out);
	/* what belongs to no known job */
	if (j->loose && !json)
		fprintf(out, "%lu record%s belong to no job mrtrace could tell (no Slurm job, no pod)\n",
			j->loose, j->loose == 1 ? "" : "s");
	if (j->ports_dropped && !json)
		fprintf(out, "%lu port change%s beyond the first %d were not grouped\n", j->ports_dropped,
			j->ports_dropped == 1 ? "" : "s", PORTS_MAX);
	free(ord);
}
