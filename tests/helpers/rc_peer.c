// SPDX-License-Identifier: GPL-2.0-only
/* rc_peer - stands in for the remote node of rdma-core's ibv_rc_pingpong:
 * answers one client's connection exchange with a GID chosen by the test
 * (an address with no route, or one nobody owns), so that the real client
 * moves its QP to RTR towards a peer the kernel cannot resolve.  The
 * exchange is pingpong's text message, "LID:QPN:PSN:GID" with the GID's 16
 * bytes as 32 hex digits in memory order; nothing else is spoken.
 * Usage: rc_peer PORT GID32HEX      exit 0 one client served, 1 failure */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MSG_LEN sizeof("0000:000000:000000:00000000000000000000000000000000")

static int read_full(int fd, char *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char msg[MSG_LEN], done[sizeof("done")];
	int one = 1, ls, fd;

	if (argc != 3 || strlen(argv[2]) != 32 || strspn(argv[2], "0123456789abcdef") != 32) {
		fprintf(stderr, "usage: rc_peer PORT GID32HEX\n");
		return 2;
	}
	alarm(60); /* never outlive a test that forgot it */
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1)) {
		perror("rc_peer: listen");
		return 1;
	}
	fd = accept(ls, NULL, NULL);
	if (fd < 0 || read_full(fd, msg, sizeof(msg))) {
		perror("rc_peer: the client's message");
		return 1;
	}
	/* LID 0 (RoCE), QPN and PSN 1: the client fails before it would use them */
	snprintf(msg, sizeof(msg), "0000:000001:000001:%s", argv[2]);
	if (write(fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		perror("rc_peer: answer");
		return 1;
	}
	(void)read_full(fd, done, sizeof(done)); /* the client's "done", if it sends it */
	close(fd);
	close(ls);
	return 0;
}
