// SPDX-License-Identifier: GPL-2.0-only
/* twin.c - the log reader's second thread (twin.h).  A log is read on a
 * node after a failure, or on a workstation: where a second CPU is free the
 * classification of a batch is shared by two threads (issue 46: the reader
 * at disk speed); where it is not, nothing starts.  The work is handed out
 * a piece at a time under one lock, so a worker that the scheduler keeps
 * off its CPU (a loaded node) takes nothing and delays nothing: the caller
 * does the pieces itself and waits only for a piece in the worker's hands.
 * One worker per reader, started at its first batch worth it, joined at
 * its end. */
#include "logs/twin.h"
#include "logs/logline.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

static bool parallel_on = true;

void log_reader_parallel(bool on)
{
	parallel_on = on;
}

struct log_twin {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t go, idle;
	/* the current batch's work, under lock */
	void (*fn)(void *ctx, size_t from, size_t to);
	void *ctx;
	size_t n, piece, next;
	unsigned long batch; /* counts batches: the worker's wake-up */
	int held; /* pieces the worker is doing now (0 or 1) */
	unsigned long worker_pieces;
	bool stop;
};

/* the next piece of the current batch, under lock; false when none is left */
static bool take(struct log_twin *t, size_t *from, size_t *to)
{
	if (t->next >= t->n)
		return false;
	*from = t->next;
	*to = t->n - t->next > t->piece ? t->next + t->piece : t->n;
	t->next = *to;
	return true;
}

static void *worker(void *p)
{
	struct log_twin *t = p;
	unsigned long seen = 0;
	size_t from, to;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->stop && t->batch == seen)
			pthread_cond_wait(&t->go, &t->lock);
		if (t->stop)
			break;
		seen = t->batch;
		while (take(t, &from, &to)) {
			t->held++;
			t->worker_pieces++;
			void (*fn)(void *, size_t, size_t) = t->fn;
			void *ctx = t->ctx;
			pthread_mutex_unlock(&t->lock);
			fn(ctx, from, to);
			pthread_mutex_lock(&t->lock);
			if (!--t->held)
				pthread_cond_signal(&t->idle);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* CPUs this process may run on: a reader pinned to one (taskset, a
 * cgroup's cpuset) gains nothing from a second thread */
static int cpus_allowed(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

struct log_twin *log_twin_start(void)
{
	if (!parallel_on || cpus_allowed() < 2)
		return NULL;
	struct log_twin *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->go, NULL);
	pthread_cond_init(&t->idle, NULL);
	if (pthread_create(&t->thread, NULL, worker, t)) {
		pthread_mutex_destroy(&t->lock);
		pthread_cond_destroy(&t->go);
		pthread_cond_destroy(&t->idle);
		free(t);
		return NULL;
	}
	return t;
}

void log_twin_run(struct log_twin *t, void (*fn)(void *ctx, size_t from, size_t to), void *ctx,
		  size_t n, size_t piece)
{
	size_t from, to;

	pthread_mutex_lock(&t->lock);
	t->fn = fn;
	t->ctx = ctx;
	t->n = n;
	t->piece = piece ? piece : 1;
	t->next = 0;
	t->batch++;
	pthread_cond_signal(&t->go);
	while (take(t, &from, &to)) {
		pthread_mutex_unlock(&t->lock);
		fn(ctx, from, to);
		pthread_mutex_lock(&t->lock);
	}
	/* nothing left to take: only a piece the worker holds is waited for */
	while (t->held)
		pthread_cond_wait(&t->idle, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

unsigned long log_twin_worker_pieces(const struct log_twin *t)
{
	return t ? t->worker_pieces : 0;
}

void log_twin_stop(struct log_twin *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->go);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->go);
	pthread_cond_destroy(&t->idle);
	free(t);
}
