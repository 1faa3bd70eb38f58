// SPDX-License-Identifier: GPL-2.0-only
/* bench-consumer.c - how many records per second the user-space consumer
 * of `mrtrace watch` explains: synthetic records from a trail fixture go
 * through the correlator (join with their libibverbs call, the live /proc
 * readers on this very process), the explanation engine and the output
 * (text as watch prints it, text with every record in full, JSON lines),
 * written to /dev/null.  No BPF, no root.
 *
 *   build/bench-consumer [RECORDS [FIXTURE.json]]
 *
 * Prints records per CPU second for each output (the machine may be
 * shared; wall time is shown beside), and what the consumer read: /proc
 * reads counted by the correlator and read(2) calls counted by the kernel
 * (/proc/self/io syscr).  Both stay constant whatever RECORDS is: /proc is
 * read once per process, never per record, plus one start-time check per
 * process per wall second (CORR_RECHECK_S). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "record/record.h"
#include "watch/correlate.h"

struct sink_state {
	FILE *out;
	bool json, verbose;
};

static void sink(void *arg, const struct report *r, unsigned long nth)
{
	struct sink_state *s = arg;

	if (s->json) {
		struct json_object *o = record_report_json(r);
		fprintf(s->out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		fflush(s->out);
		json_object_put(o);
	} else if (nth > 1) {
		report_print_repeat(s->out, r, nth);
	} else {
		report_print_text(s->out, r, s->verbose);
	}
}

/* CPU time of this (single-threaded) process: the machine may be shared,
 * and what matters is whether one core keeps up; wall time is shown too. */
static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* read(2)-family calls of this process so far (syscr), or -1. */
static long long read_calls(void)
{
	char buf[512], *p;
	FILE *f = fopen("/proc/self/io", "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "syscr:");
	return p ? strtoll(p + 6, NULL, 10) : -1;
}

/* tests/fixtures/trails/<name> beside the binary (build/bench-consumer),
 * else from the current directory. */
static const char *fixture(const char *arg)
{
	static char path[PATH_MAX + 128];
	char exe[PATH_MAX];
	ssize_t n;

	if (strchr(arg, '/'))
		return arg;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(path, sizeof(path), "%s/../tests/fixtures/trails/%s", exe, arg);
		if (!access(path, R_OK))
			return path;
	}
	snprintf(path, sizeof(path), "tests/fixtures/trails/%s", arg);
	return path;
}

/* an address in this binary's text, for the stack below */
static void run_marker(void)
{
}

/* The libibverbs call the kernel record came from, with a user stack in
 * this binary (so attribution really walks the cached maps). */
static void user_call_of(const struct mrt_event *k, struct mrt_event *u)
{
	memset(u, 0, sizeof(*u));
	u->kind = MRT_EV_USER_CALL;
	u->pid = k->pid;
	u->tid = k->tid;
	u->uid = k->uid;
	u->ts_ns = k->ts_ns + 1000;
	memcpy(u->comm, k->comm, sizeof(u->comm));
	u->err = k->err;
	u->opener = MRT_API_REG_MR_IOVA2;
	u->cmd_start = k->ml.addr;
	u->cmd_length = k->ml.len;
	u->cmd_iova = k->ml.addr;
	u->cmd_access = 0x10000f;
	u->cmd_valid = 3;
	u->dmabuf_fd = -1;
	u->cmd_reached = 1;
	u->nustack = 3;
	u->ustack[0] = (uintptr_t)&fprintf;
	u->ustack[1] = (uintptr_t)&user_call_of;
	u->ustack[2] = (uintptr_t)&run_marker;
}

static int run(const char *label, const struct mrt_event *base, long n, bool json, bool verbose)
{
	static struct mrt_event k, u;
	struct sink_state s = { .json = json, .verbose = verbose };
	struct corr_config cfg = { .join = true, .dedupe = !json && !verbose, .cgroup_root = "/" };
	struct corr_ops ops;
	static struct corr_live live = { .root = "/" };
	struct corr *c;

	if (!(s.out = fopen("/dev/null", "w")))
		return -1;
	corr_live_ops(&ops, &live);
	ops.sink = sink;
	ops.sink_arg = &s;
	if (!(c = corr_new(&ops, &cfg))) {
		fclose(s.out);
		fprintf(stderr, "bench-consumer: out of memory\n");
		return -1;
	}
	k = *base;
	k.pid = getpid(); /* the live readers read this process */
	long long r0 = read_calls();
	double t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
	for (long i = 0; i < n; i += 2) {
		k.tid = k.pid + 1 + (unsigned int)(i % 64); /* several threads */
		k.ts_ns = base->ts_ns + (unsigned long long)i * 1000;
		corr_push(c, &k);
		user_call_of(&k, &u);
		corr_push(c, &u);
	}
	corr_flush(c);
	double secs = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0, wall = clock_s(CLOCK_MONOTONIC) - w0;
	long long r1 = read_calls();
	const struct corr_stats *st = corr_stats(c);

	printf("%-32s %8.0f records/s  %6.2f us/record (CPU; wall %.2f)  /proc reads: %lu context, "
	       "%lu nccl, %lu maps; read(2) calls in all: %lld\n",
	       label, n / secs, secs * 1e6 / n, wall * 1e6 / n, st->context_reads, st->nccl_reads,
	       st->maps_reads, r0 >= 0 && r1 >= 0 ? r1 - r0 - 1 : -1LL);
	/* every pair became one joined report, or the numbers mean nothing */
	bool whole = st->reported == (unsigned long)n / 2 && st->joined == st->reported;
	if (!whole)
		fprintf(stderr, "bench-consumer: %lu reports, %lu joined, for %ld records\n",
			st->reported, st->joined, n);
	corr_free(c);
	fclose(s.out);
	return whole ? 0 : -1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	const char *path = fixture(argc > 2 ? argv[2] : "memlock_limit.nobody64k.6.12.json");
	static struct mrt_event base;
	struct json_object *o;
	char err[256];

	n += n % 2; /* pairs */
	if (n < 2 || argc > 3) {
		fprintf(stderr, "usage: bench-consumer [RECORDS (>= 2) [FIXTURE.json]]\n");
		return 2;
	}
	if (!(o = json_object_from_file(path)) || record_raw_from_json(o, &base, err, sizeof(err))) {
		fprintf(stderr, "bench-consumer: %s: %s\n", path, o ? err : json_util_get_last_err());
		return 1;
	}
	json_object_put(o);
	if (base.kind != MRT_EV_REG_FAILURE) {
		fprintf(stderr, "bench-consumer: %s is not a kernel registration record\n", path);
		return 1;
	}
	printf("consumer: %ld records (a kernel record and its libibverbs call, joined) from %s\n", n,
	       strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	if (run("text (as watch prints it)", &base, n, false, false) ||
	    run("text, every record in full (-v)", &base, n, false, true) ||
	    run("json", &base, n, true, false))
		return 1;
	return 0;
}
