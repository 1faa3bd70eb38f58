// SPDX-License-Identifier: GPL-2.0-only
/* stamp.c - wall-clock time and host name on every watch record (stamp.h). */
#include "watch/stamp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/beneath.h"

static char host[256] = "unknown";

static void trim(char *s)
{
	s[strcspn(s, " \t\r\n")] = '\0';
}

void stamp_init(const char *host_root)
{
	int root;
	char *text = NULL;
	size_t len;

	/* the node's file, read inside the node's tree and only if it is a
	 * regular file of a host name's size: a FIFO planted there hung watch
	 * before it armed anything (issue 24 row 6) */
	if (host_root && strcmp(host_root, "/") && (root = beneath_root(host_root)) >= 0 &&
	    !beneath_read(root, "/etc/hostname", sizeof(host) - 1, &text, &len)) {
		snprintf(host, sizeof(host), "%s", text);
		free(text);
		trim(host);
		if (host[0])
			return;
	}
	if (gethostname(host, sizeof(host) - 1) || !host[0])
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
}

const char *stamp_host(void)
{
	return host;
}

static long long ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void stamp_time(unsigned long long mono_ns, char *buf, size_t len)
{
	long long real = ns_of(CLOCK_REALTIME);
	long long wall = mono_ns ? real - (ns_of(CLOCK_MONOTONIC) - (long long)mono_ns) : real;
	time_t secs = (time_t)(wall / 1000000000LL);
	struct tm tm;
	char day[32];

	gmtime_r(&secs, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06lldZ", day, (wall % 1000000000LL) / 1000);
}

void stamp_json(struct json_object *o)
{
	struct json_object *ts;
	char t[64];

	if (!json_object_is_type(o, json_type_object))
		return;
	stamp_time(json_object_object_get_ex(o, "ts_ns", &ts) ? json_object_get_uint64(ts) : 0, t,
		   sizeof(t));
	json_object_object_add(o, "time", json_object_new_string(t));
	json_object_object_add(o, "host", json_object_new_string(host));
}
