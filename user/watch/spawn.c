// SPDX-License-Identifier: GPL-2.0-only
/* spawn.c - the held command of `watch -- COMMAND` (spawn.h). */
#include "watch/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (!S_ISREG(st.st_mode))
		return EACCES; /* execve's answer for a directory or a device */
	return access(path, X_OK) ? errno : 0;
}

int spawn_findable(const char *cmd)
{
	char full[PATH_MAX];
	int err = ENOENT;

	if (!cmd || !*cmd)
		return ENOENT;
	if (strchr(cmd, '/'))
		return runnable(cmd);
	/* as execvp searches: PATH, or its default when unset */
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int n = (int)(end - p);
		if (snprintf(full, sizeof(full), "%.*s%s%s", n, n ? p : ".", "/", cmd) <
		    (int)sizeof(full)) {
			int e = runnable(full);
			if (!e)
				return 0;
			if (e == EACCES) /* execvp reports EACCES when it saw one */
				err = EACCES;
		}
		if (!*end)
			break;
		p = end;
	}
	return err;
}

int spawn_held(struct spawn *s, char *const cmd[], void (*restore)(void))
{
	int hold[2], status[2];

	s->pid = -1;
	s->release_fd = s->status_fd = -1;
	if (pipe2(hold, O_CLOEXEC))
		return -1;
	if (pipe2(status, O_CLOEXEC)) {
		close(hold[0]);
		close(hold[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(hold[0]);
		close(hold[1]);
		close(status[0]);
		close(status[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		char c;
		if (restore)
			restore();
		close(hold[1]);
		close(status[0]);
		if (read(hold[0], &c, 1) != 1)
			_exit(127); /* mrtrace gave up: do not run untraced */
		execvp(cmd[0], cmd);
		int e = errno; /* status[1] is close-on-exec: only a failure writes */
		if (write(status[1], &e, sizeof(e)) != (ssize_t)sizeof(e))
			fprintf(stderr, "mrtrace: cannot run %s: %s\n", cmd[0], strerror(e));
		_exit(127);
	}
	close(hold[0]);
	close(status[1]);
	s->pid = pid;
	s->release_fd = hold[1];
	s->status_fd = status[0];
	return 0;
}

int spawn_release(struct spawn *s)
{
	int werr = 0, e = 0;
	ssize_t n;

	if (s->release_fd < 0)
		return 0;
	if (write(s->release_fd, "g", 1) != 1)
		werr = errno ? errno : EPIPE; /* it is gone already */
	close(s->release_fd);
	s->release_fd = -1;
	/* EOF: it exec'd; an errno: it did not.  The answer comes at once, so
	 * a signal for watch meanwhile does not end the wait. */
	do
		n = read(s->status_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(s->status_fd);
	s->status_fd = -1;
	if (n == (ssize_t)sizeof(e))
		return e ? e : EIO;
	return werr;
}

void spawn_abandon(struct spawn *s)
{
	if (s->release_fd >= 0) {
		close(s->release_fd);
		s->release_fd = -1;
		waitpid(s->pid, NULL, 0);
	}
	if (s->status_fd >= 0) {
		close(s->status_fd);
		s->status_fd = -1;
	}
}
