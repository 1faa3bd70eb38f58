/* SPDX-License-Identifier: GPL-2.0-only */
/* notify.h - tell systemd how the service is doing (Type=notify), without
 * libsystemd: one datagram of "KEY=value" lines to $NOTIFY_SOCKET.
 *
 * READY=1 once the sites are armed (so `systemctl start` returns when
 * failures can be seen, and units ordered after mrtrace start then),
 * STATUS= with the armed-site count (`systemctl status` shows it),
 * STOPPING=1 at the end. */
#ifndef MRTRACE_WATCH_NOTIFY_H
#define MRTRACE_WATCH_NOTIFY_H

/* Sends state to $NOTIFY_SOCKET ("@name" is an abstract socket).  0 sent,
 * 1 no NOTIFY_SOCKET (not under systemd: nothing to do), -errno. */
int notify_send(const char *state);

#endif
