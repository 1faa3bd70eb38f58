/* SPDX-License-Identifier: GPL-2.0-only */
/* spawn.h - `watch -- COMMAND`: the command looked up before anything is
 * armed, forked but held on a pipe until its pid is in the filter and the
 * probes are attached, then released; a failed exec is told back, so
 * watch can say it and stop instead of watching a command that never ran
 * (issue 24 row 13: it exited 127, the man page said 2). */
#ifndef MRTRACE_WATCH_SPAWN_H
#define MRTRACE_WATCH_SPAWN_H

#include <sys/types.h>

/* A held command: its pid, the pipe that releases it, and the pipe its
 * exec failure comes back on (closed by a successful exec). */
struct spawn {
	pid_t pid;
	int release_fd, status_fd;
};

/* Whether execvp would find cmd and could run it (a directory on PATH
 * named cmd, or a file without x, does not count): 0, or the errno to say
 * (ENOENT, EACCES, ...). */
int spawn_findable(const char *cmd);

/* Forks cmd held.  The child first calls restore (NULL: nothing), to give
 * the command the signal dispositions watch was started with.  0, or -1
 * with errno. */
int spawn_held(struct spawn *s, char *const cmd[], void (*restore)(void));

/* Releases it: 0 once it has exec'd, else the errno of its failed exec
 * (the child then exits 127 without having run anything). */
int spawn_release(struct spawn *s);

/* Gives up a command never released: it exits 127 without running, and is
 * reaped. */
void spawn_abandon(struct spawn *s);

#endif
