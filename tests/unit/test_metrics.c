// SPDX-License-Identifier: GPL-2.0-only
/* test_metrics.c - the watch service's textfile (watch/metrics.h): before
 * anything happened it holds a few dozen series (every output's error
 * counter and the drop counters at 0, no cause x op pair: 459 zeros per node
 * were millions on a fleet); a pair appears with its first failure and
 * stays; the heartbeat is there. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "watch/metrics.h"

static int count_lines(const char *text, const char *prefix)
{
	int n = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static void has_line(const char *text, const char *line)
{
	char want[256];
	snprintf(want, sizeof(want), "\n%s\n", line);
	if (!strstr(text, want))
		fail_msg("no line '%s' in:\n%s", line, text);
}

static void test_series_from_start(void **state)
{
	(void)state;
	size_t len;

	metrics_setup("unused", 5);
	char *t = metrics_render(false, &len);
	/* no pair before its first failure; the whole file stays small */
	assert_int_equal(count_lines(t, "mrtrace_watch_failures_total{"), 0);
	int series = 0;
	for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		series += *p != '#' && *p != '\n';
	if (series > 40)
		fail_msg("%d series before any failure (at most 40):\n%s", series, t);
	has_line(t, "mrtrace_watch_output_errors_total{output=\"journal\"} 0");
	has_line(t, "mrtrace_watch_output_errors_total{output=\"metrics_file\"} 0");
	has_line(t, "mrtrace_watch_events_dropped_total 0");
	has_line(t, "mrtrace_watch_cgroup_lookups_cut_total 0");
	/* no failure yet: no last-failure time (a 0 would be a date in 1970) */
	assert_int_equal(count_lines(t, "mrtrace_watch_last_failure_timestamp_seconds{"), 0);
	const char *hb = strstr(t, "\nmrtrace_watch_heartbeat_timestamp_seconds ");
	assert_non_null(hb);
	long long when = atoll(hb + strlen("\nmrtrace_watch_heartbeat_timestamp_seconds "));
	assert_true(llabs(when - (long long)time(NULL)) <= 2);
	free(t);

	/* a pair appears with its first failure, counted from there */
	metrics_failures("memlock_limit", "mlock", false, 3);
	metrics_failure("unknown", "new_op", false);
	metrics_failure("memlock_limit", "mlock", false);
	metrics_failure("memlock_limit", "probe", true); /* NCCL's probe: apart */
	metrics_output_error("journal");
	metrics_output_error("journal");
	metrics_output_error("no_such_output");
	metrics_cgroup_lookups(2); /* two exited processes' cgroups beyond the walk's bound */
	t = metrics_render(false, &len);
	has_line(t, "mrtrace_watch_cgroup_lookups_cut_total 2");
	has_line(t, "mrtrace_watch_failures_total{cause=\"memlock_limit\",op=\"mlock\"} 4");
	has_line(t, "mrtrace_watch_failures_total{cause=\"unknown\",op=\"new_op\"} 1");
	assert_int_equal(count_lines(t, "mrtrace_watch_failures_total{"), 2);
	has_line(t, "mrtrace_watch_nccl_probes_total 1");
	has_line(t, "mrtrace_watch_output_errors_total{output=\"journal\"} 2");
	has_line(t, "mrtrace_watch_output_errors_total{output=\"metrics_file\"} 0");
	free(t);
	/* the stop's writing keeps them */
	t = metrics_render(true, &len);
	assert_int_equal(count_lines(t, "mrtrace_watch_failures_total{"), 2);
	has_line(t, "mrtrace_watch_running 0");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_from_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
