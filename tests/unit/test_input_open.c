// SPDX-License-Identifier: GPL-2.0-only
/* test_input_open.c - what `mrtrace explain FILE` (explain/stream.c
 * replay_stream_open) and the log reader (logs/open.c log_input_open) open
 * by name, as root, on a path a user of the node may control (issue 34,
 * item 13): the check is made on the inode the name resolved to (an O_PATH
 * descriptor), and only that inode is opened for reading, so a swap between
 * a check and an open cannot make them open a FIFO or a device.
 *
 *  - a named FIFO (with a writer that never writes: reading it would wait
 *    for ever) is refused, at once;
 *  - a character device, by its name and through a symbolic link, is
 *    refused;
 *  - an anonymous pipe named by /proc/self/fd/N (what <(...) gives) and a
 *    regular file through a symbolic link are still read.
 * An alarm guards every case: a blocked open or read fails the test. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "explain/stream.h"
#include "logs/logline.h"

static char dir[] = "/tmp/mrtrace-input-XXXXXX";

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "test_input_open: blocked (alarm)\n";
	(void)!write(2, m, sizeof(m) - 1);
	_exit(3);
}

static int setup(void **state)
{
	(void)state;
	signal(SIGALRM, on_alarm);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* both openers refuse path, with why in the message, without blocking */
static void expect_refused(const char *path, const char *why)
{
	char err[512] = "";
	bool gz;

	alarm(5);
	struct replay_stream *s = replay_stream_open(path, err, sizeof(err));
	if (s) {
		/* what was accepted would be read: that is where a FIFO waits */
		struct json_object *o;
		long line;
		while (replay_stream_next(s, &o, &line, err, sizeof(err)) == 1)
			json_object_put(o);
		replay_stream_free(s);
	}
	assert_null(s);
	assert_non_null(strstr(err, why));
	err[0] = 0;
	FILE *f = log_input_open(path, &gz, err, sizeof(err));
	if (f)
		fclose(f);
	assert_null(f);
	assert_non_null(strstr(err, why));
	alarm(0);
}

static int count_values(const char *path)
{
	char err[512] = "";
	struct json_object *o;
	long line;
	int n = 0;

	alarm(5);
	struct replay_stream *s = replay_stream_open(path, err, sizeof(err));
	if (!s)
		fprintf(stderr, "%s\n", err);
	assert_non_null(s);
	while (replay_stream_next(s, &o, &line, err, sizeof(err)) == 1) {
		json_object_put(o);
		n++;
	}
	replay_stream_free(s);
	alarm(0);
	return n;
}

static void fifo_refused_without_blocking(void **state)
{
	(void)state;
	char fifo[256];
	snprintf(fifo, sizeof(fifo), "%s/events.jsonl", dir);
	assert_int_equal(mkfifo(fifo, 0666), 0);
	/* a writer that holds it open and never writes */
	pid_t w = fork();
	assert_true(w >= 0);
	if (!w) {
		/* gone with the test, even when it fails or is stopped by its alarm */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(20);
		int fd = open(fifo, O_WRONLY);
		(void)fd;
		pause();
		_exit(0);
	}
	expect_refused(fifo, "FIFO");
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	unlink(fifo);
}

static void device_refused(void **state)
{
	(void)state;
	char link[256];
	expect_refused("/dev/null", "device");
	snprintf(link, sizeof(link), "%s/rotated.jsonl.1.gz", dir);
	assert_int_equal(symlink("/dev/null", link), 0);
	expect_refused(link, "device");
	unlink(link);
}

static void pipe_and_file_read(void **state)
{
	(void)state;
	static const char recs[] = "{\"event\":\"start\",\"schema\":\"mrtrace-watch/1\"}\n"
				   "{\"event\":\"stop\"}\n";
	char path[256], link[256], self[64];
	int p[2];

	/* <(...): an anonymous pipe by a /proc/self/fd name */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], recs, sizeof(recs) - 1), (ssize_t)(sizeof(recs) - 1));
	close(p[1]);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", p[0]);
	assert_int_equal(count_values(self), 2);
	close(p[0]);

	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(recs, f);
	fclose(f);
	snprintf(link, sizeof(link), "%s/latest.jsonl", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(count_values(path), 2);
	assert_int_equal(count_values(link), 2);
	unlink(link);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fifo_refused_without_blocking),
		cmocka_unit_test(device_refused),
		cmocka_unit_test(pipe_and_file_read),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
