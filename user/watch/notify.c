// SPDX-License-Identifier: GPL-2.0-only
/* notify.c - the sd_notify protocol, written out (notify.h). */
#include "watch/notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t plen;

	if (!path || !*path)
		return 1;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = 0; /* abstract namespace */
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* never waits: a manager that does not read must not hold watch */
	ssize_t n = sendto(fd, state, strlen(state), MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sa,
			   offsetof(struct sockaddr_un, sun_path) + plen);
	int e = errno;
	close(fd);
	return n < 0 ? -e : 0;
}
