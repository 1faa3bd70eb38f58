// SPDX-License-Identifier: GPL-2.0-only
/* test_stamp.c - the wall-clock time and host on watch's records
 * (user/watch/stamp.c): the RFC 3339 form, the conversion of a
 * CLOCK_MONOTONIC time, "time" from a record's own ts_ns, the host from
 * --host-root's /etc/hostname.  (-o's appending and reopening are in
 * test_outfile.c.) */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "watch/stamp.h"

static long long ns_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" back to ns since the epoch */
static long long parse(const char *t)
{
	struct tm tm = { 0 };
	long us = -1;
	char z = 0;

	assert_int_equal(strlen(t), 27);
	assert_int_equal(sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2d.%6ld%c", &tm.tm_year, &tm.tm_mon,
				&tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &us, &z),
			 8);
	assert_int_equal(z, 'Z');
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm) * 1000000000LL + us * 1000LL;
}

static void test_time_of_a_monotonic_stamp(void **state)
{
	(void)state;
	char t[64];
	long long mono = ns_of(CLOCK_MONOTONIC), real = ns_of(CLOCK_REALTIME);

	/* a failure 5 s ago is 5 s ago on the wall clock too */
	stamp_time((unsigned long long)(mono - 5000000000LL), t, sizeof(t));
	long long got = parse(t), want = real - 5000000000LL;
	assert_true(got > want - 50000000LL && got < want + 50000000LL);
	stamp_time(0, t, sizeof(t)); /* 0: now */
	got = parse(t);
	assert_true(got > real - 50000000LL && got < real + 1000000000LL);
}

static void test_json_records_get_time_and_host(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrt-stamp-XXXXXX", path[256];
	struct json_object *o = json_object_new_object(), *v;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/etc", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/etc/hostname", dir);
	FILE *f = fopen(path, "w");
	fputs("gpu-node-17\n", f);
	fclose(f);
	stamp_init(dir); /* --host-root: the node's name, not the container's */
	assert_string_equal(stamp_host(), "gpu-node-17");

	long long mono = ns_of(CLOCK_MONOTONIC), real = ns_of(CLOCK_REALTIME);
	json_object_object_add(o, "ts_ns", json_object_new_uint64(mono - 60000000000LL));
	stamp_json(o);
	assert_true(json_object_object_get_ex(o, "time", &v));
	long long got = parse(json_object_get_string(v));
	assert_true(got > real - 60100000000LL && got < real - 59900000000LL);
	assert_true(json_object_object_get_ex(o, "host", &v));
	assert_string_equal(json_object_get_string(v), "gpu-node-17");
	json_object_put(o);

	stamp_init(NULL);
	char h[256] = "";
	gethostname(h, sizeof(h) - 1);
	assert_string_equal(stamp_host(), h);

	/* a FIFO planted as the node's etc/hostname: not read (it hung watch
	 * before anything was armed), this machine's name instead; SIGALRM
	 * ends the test if it blocks */
	unlink(path);
	assert_int_equal(mkfifo(path, 0666), 0);
	alarm(10);
	stamp_init(dir);
	alarm(0);
	assert_string_equal(stamp_host(), h);
	/* a symlink out of the tree is followed inside it: the node's file */
	unlink(path);
	char target[300];
	snprintf(target, sizeof(target), "%s/etc/real-hostname", dir);
	f = fopen(target, "w");
	fputs("node-in-tree\n", f);
	fclose(f);
	assert_int_equal(symlink("/etc/real-hostname", path), 0);
	stamp_init(dir);
	assert_string_equal(stamp_host(), "node-in-tree");
	unlink(target);
	unlink(path);
	snprintf(path, sizeof(path), "%s/etc", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_of_a_monotonic_stamp),
		cmocka_unit_test(test_json_records_get_time_and_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
