// SPDX-License-Identifier: GPL-2.0-only
/* rdmares_res.c - `rdma -j res show TYPE` waited for, an answer per type
 * serving a burst (rdmares_res.h), on the runner that the port monitor
 * uses without waiting (rdmares_async.c): one way to run the tool, with
 * its deadline and bounds. */
#include "proc/rdmares_res.h"

#include <poll.h>
#include <string.h>

#include <json-c/json.h>

#include "core/clock.h"
#include "proc/rdmares_async.h"

/* One query per type for the life of the process: its answer serves the
 * refusals of a burst (rdmares_query_ask's reuse rule). */
#define TYPES 4

struct json_object *rdmares_res(const char *type, const char **why)
{
	static const char *const types[TYPES] = { "", "pd", "cq", "qp" };
	static struct rdmares_query *q[TYPES];
	int t = 0;

	while (t < TYPES && strcmp(types[t], type))
		t++;
	if (t == TYPES) {
		*why = RDMARES_WHY_TOOL;
		return NULL;
	}
	if (!q[t] && !(q[t] = rdmares_query_new(types[t], RDMARES_WAIT_S))) {
		*why = RDMARES_WHY_MEMORY;
		return NULL;
	}
	if (!rdmares_query_ask(q[t], clock_mono_s()))
		while (rdmares_query_running(q[t])) {
			/* a signal (watch's SIGHUP) only ends this wait early */
			struct pollfd p = { .fd = rdmares_query_fd(q[t]), .events = POLLIN };
			poll(&p, p.fd >= 0, 50);
			rdmares_query_step(q[t], clock_mono_s());
		}
	struct json_object *a = rdmares_query_array(q[t], why);
	if (a)
		return json_object_get(a);
	return *why ? NULL : json_object_new_array(); /* none of the type */
}
