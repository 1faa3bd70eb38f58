// SPDX-License-Identifier: GPL-2.0-only
/* sink_notify.c - systemd's notification socket (notify.h): READY=1 with
 * the armed sites once they are armed, STOPPING=1 at the end.  Outside
 * systemd (no NOTIFY_SOCKET) every send is nothing. */
#include "watch/sink.h"

#include "watch/notify.h"

static void notify_start(struct watch_sink *s, struct watch *w)
{
	int armed[WATCH_MECHS], n = 0;
	char status[400];

	(void)s;
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

static void notify_stop(struct watch_sink *s, struct watch *w)
{
	(void)s;
	(void)w;
	notify_send("STOPPING=1\nSTATUS=stopping");
}

const struct watch_sink_ops sink_notify = {
	.name = "notify",
	.start = notify_start,
	.stop = notify_stop,
};
