// SPDX-License-Identifier: GPL-2.0-only
/* twin.c - the log reader's second thread (twin.h).  A log is read on a
 * node after a failure, or on a workstation: where a second CPU is free
 * the classification of a batch is split between two threads (issue 46:
 * the reader at disk speed); where it is not, nothing starts.  One worker
 * per reader, started at its first batch and joined at its end; the
 * hand-over is a mutex and two condition variables, once per batch. */
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
	pthread_cond_t go, done;
	void (*fn)(void *);
	void *arg;
	unsigned long asked, finished; /* batches handed over, batches done */
	bool stop;
};

static void *worker(void *p)
{
	struct log_twin *t = p;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->stop && t->asked == t->finished)
			pthread_cond_wait(&t->go, &t->lock);
		if (t->stop)
			break;
		void (*fn)(void *) = t->fn;
		void *arg = t->arg;
		pthread_mutex_unlock(&t->lock);
		fn(arg);
		pthread_mutex_lock(&t->lock);
		t->finished++;
		pthread_cond_signal(&t->done);
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
	pthread_cond_init(&t->done, NULL);
	if (pthread_create(&t->thread, NULL, worker, t)) {
		pthread_mutex_destroy(&t->lock);
		pthread_cond_destroy(&t->go);
		pthread_cond_destroy(&t->done);
		free(t);
		return NULL;
	}
	return t;
}

void log_twin_run(struct log_twin *t, void (*fn)(void *), void *here, void *there)
{
	pthread_mutex_lock(&t->lock);
	t->fn = fn;
	t->arg = there;
	t->asked++;
	pthread_cond_signal(&t->go);
	pthread_mutex_unlock(&t->lock);
	fn(here);
	pthread_mutex_lock(&t->lock);
	while (t->finished != t->asked)
		pthread_cond_wait(&t->done, &t->lock);
	pthread_mutex_unlock(&t->lock);
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
	pthread_cond_destroy(&t->done);
	free(t);
}
