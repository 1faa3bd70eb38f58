// SPDX-License-Identifier: GPL-2.0-only
/* sink_notify.c - systemd's notification socket (notify.h): READY=1 with
 * the armed sites once they are armed, STOPPING=1 at the end.  Outside
 * systemd (no NOTIFY_SOCKET) every send is nothing. */
#include "watch/sink.h"
#include "watch/watch.h"

#include <stdlib.h>
#include <unistd.h>

#include "core/clock.h"
#include "watch/notify.h"

struct notify_state {
	double every, last;
};

static void notify_start(struct watch_sink *s, struct watch *w)
{
	int armed[WATCH_MECHS], n = 0;
	char status[400];

	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	struct notify_state *st = calloc(1, sizeof(*st));

	if (st && usec && (!pid || atol(pid) == (long)getpid()))
		st->every = atof(usec) / 3e6;
	s->state = st;
	watch_sites_by_mech(w, armed);
	for (int k = 0; k < WATCH_MECHS; k++)
		n += armed[k];
	int off = snprintf(status, sizeof(status), "READY=1\nSTATUS=watching: %d of %d sites armed (",
			   n, w->nsites);
	for (int k = 0, first = 1; k < WATCH_MECHS && off < (int)sizeof(status); k++)
		if (armed[k]) {
			off += snprintf(status + off, sizeof(status) - off, "%s%s %d", first ? "" : ", ",
					watch_mech_names[k], armed[k]);
			first = 0;
		}
	if (off < (int)sizeof(status))
		snprintf(status + off, sizeof(status) - off, ")%s",
			 tracer_armed_count(w->t, true) ? "" : "; registration path NOT armed");
	/* READY only now: the sites are armed, failures from here on are seen */
	notify_send(status);
}

/* WatchdogSec= in the unit: WATCHDOG=1 from the event loop, three times per
 * period, so systemd restarts a loop that stopped turning. */

static void notify_tick(struct watch_sink *s, struct watch *w)
{
	struct notify_state *n = s->state;
	double now = clock_mono_s();

	(void)w;
	if (n && n->every > 0 && now - n->last >= n->every) {
		notify_send("WATCHDOG=1");
		n->last = now;
	}
}

static void notify_stop(struct watch_sink *s, struct watch *w)
{
	(void)s;
	(void)w;
	notify_send("STOPPING=1\nSTATUS=stopping");
}

const struct watch_sink_ops sink_notify = {
	.name = "notify",
	.start = notify_start,
	.tick = notify_tick,
	.stop = notify_stop,
};
