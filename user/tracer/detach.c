// SPDX-License-Identifier: GPL-2.0-only
/* detach.c - many BPF links destroyed at once, from threads (detach.h). */
#include "tracer/detach.h"

#include <pthread.h>
#include <stddef.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#define DETACH_THREADS 16

/* items [0, n) are links, [n, n + nfds) fds: one index space, dealt out */
struct slice {
	struct bpf_link **links;
	int *fds;
	int n, nfds, first, step;
};

static void *destroy_slice(void *arg)
{
	struct slice *s = arg;

	for (int i = s->first; i < s->n + s->nfds; i += s->step) {
		if (i < s->n) {
			bpf_link__destroy(s->links[i]);
			s->links[i] = NULL;
		} else if (s->fds[i - s->n] >= 0) {
			close(s->fds[i - s->n]);
			s->fds[i - s->n] = -1;
		}
	}
	return NULL;
}

void tracer_links_destroy(struct bpf_link **links, int n)
{
	tracer_detach(links, n, NULL, 0);
}

void tracer_detach(struct bpf_link **links, int n, int *fds, int nfds)
{
	pthread_t th[DETACH_THREADS];
	struct slice sl[DETACH_THREADS] = { 0 };
	int all = n + nfds, nth = all < DETACH_THREADS ? all : DETACH_THREADS, started = 0;

	for (int k = 0; k < nth; k++) {
		sl[k] = (struct slice){ links, fds, n, nfds, k, nth };
		if (k && !pthread_create(&th[k], NULL, destroy_slice, &sl[k]))
			started |= 1 << k;
		else if (k)
			destroy_slice(&sl[k]); /* no thread: here, in turn */
	}
	if (nth)
		destroy_slice(&sl[0]);
	for (int k = 1; k < nth; k++)
		if (started & 1 << k)
			pthread_join(th[k], NULL);
}
