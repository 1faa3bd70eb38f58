// SPDX-License-Identifier: GPL-2.0-only
/* rdmares_async.c - `rdma -j res show [TYPE]` without waiting for it
 * (rdmares_async.h).
 *
 * The output is parsed as it arrives (json-c's tokener takes it in pieces),
 * so neither the wait nor the parse of a large answer is paid at once by
 * the loop: a call reads at most STEP_MAX bytes. */
#include "proc/rdmares_async.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/clock.h"

extern char **environ;

#define OUT_MAX (64u << 20)    /* ~300,000 QPs of `rdma -j res show qp` */
#define STEP_MAX (256u << 10) /* read and parsed per call at most: ~20 ms under ASan */
#define PIPE_SIZE (1 << 20)    /* the tool writes on while the loop does other work */
#define DEADLINE_S 10.0

struct rdmares_query {
	char type[4];               /* "", "pd", "cq" or "qp" */
	double deadline_s;
	/* the run: a child while pid > 0 (running, or killed and not reaped) */
	pid_t pid;
	int fd;                     /* its output, -1 once at its end */
	bool running;               /* askers wait for it */
	double started;
	size_t got;                 /* bytes read */
	bool nonspace;              /* one that is not white space was read */
	struct json_tokener *tok;
	struct json_object *parsed; /* the complete value, as it came */
	const char *bad;            /* why this run cannot answer, NULL so far */
	/* the last answer */
	bool have, ok;
	struct json_object *arr;    /* NULL with ok: the tool printed nothing (no object) */
	const char *why;
	double answer_at, asked_at;
};

struct rdmares_query *rdmares_query_new(const char *type, double deadline_s)
{
	struct rdmares_query *q;

	/* a fixed set: the type becomes an argument of a tool run as root */
	if (strcmp(type, "") && strcmp(type, "pd") && strcmp(type, "cq") && strcmp(type, "qp"))
		return NULL;
	if (!(q = calloc(1, sizeof(*q))))
		return NULL;
	snprintf(q->type, sizeof(q->type), "%s", type);
	q->deadline_s = deadline_s > 0 ? deadline_s : DEADLINE_S;
	q->fd = -1;
	return q;
}

/* A killed tool is reaped as soon as it has exited; a few tries, never a
 * wait without end (one stuck in the kernel may take long). */
static void reap(struct rdmares_query *q, int tries)
{
	for (int i = 0; q->pid > 0 && i < tries; i++) {
		if (waitpid(q->pid, NULL, WNOHANG) != 0) {
			q->pid = 0;
			break;
		}
		if (i + 1 < tries)
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
}

static void answer(struct rdmares_query *q, double now, bool ok, const char *why)
{
	json_object_put(q->arr);
	q->arr = NULL;
	q->have = true;
	q->ok = ok;
	q->why = ok ? NULL : why;
	q->answer_at = q->asked_at = now;
}

/* The run is over (its child exited with status st, or was killed): its
 * answer. */
static void finish(struct rdmares_query *q, double now, bool exited_ok)
{
	json_tokener_free(q->tok);
	q->tok = NULL;
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	q->running = false;
	if (q->bad || !exited_ok) {
		answer(q, now, false, q->bad ? q->bad : RDMARES_WHY_TOOL);
	} else if (q->parsed && json_object_is_type(q->parsed, json_type_array)) {
		answer(q, now, true, NULL);
		q->arr = q->parsed;
		q->parsed = NULL;
	} else {
		/* no QP at all prints nothing: that is an answer (the tool succeeded) */
		answer(q, now, !q->parsed && !q->nonspace, RDMARES_WHY_JSON);
	}
	json_object_put(q->parsed);
	q->parsed = NULL;
}

static void kill_run(struct rdmares_query *q, double now, const char *why)
{
	if (!q->bad)
		q->bad = why;
	if (q->pid > 0)
		kill(q->pid, SIGKILL);
	reap(q, 20);
	finish(q, now, false);
}

static int spawn_tool(struct rdmares_query *q)
{
	char *const argv[] = { "rdma", "-j", "res", "show", q->type[0] ? q->type : NULL, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int p[2], e;

	if (pipe2(p, O_CLOEXEC))
		return errno;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	fcntl(p[0], F_SETPIPE_SZ, PIPE_SIZE); /* a smaller pipe only means more turns */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* watch ignores SIGPIPE and may have signals blocked: not the tool */
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	e = posix_spawnp(&q->pid, "rdma", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (e) {
		close(p[0]);
		q->pid = 0;
		return e;
	}
	q->fd = p[0];
	return 0;
}

bool rdmares_query_ask(struct rdmares_query *q, double now)
{
	if (q->running)
		return false;
	if (q->have && now - q->asked_at < RDMARES_REUSE_S && now - q->answer_at < RDMARES_REUSE_MAX_S) {
		q->asked_at = now; /* the burst goes on while ports are asked */
		return true;
	}
	reap(q, 1);
	if (q->pid > 0) { /* one run at a time, a killed one included */
		answer(q, now, false, RDMARES_WHY_STUCK);
		return true;
	}
	q->got = 0;
	q->nonspace = false;
	q->bad = NULL;
	if (!(q->tok = json_tokener_new())) {
		answer(q, now, false, RDMARES_WHY_MEMORY);
		return true;
	}
	if (spawn_tool(q)) {
		json_tokener_free(q->tok);
		q->tok = NULL;
		answer(q, now, false, RDMARES_WHY_TOOL);
		return true;
	}
	q->running = true;
	q->started = now;
	return false;
}

/* A piece of the output into the tokener; what follows the value is not
 * read as more of it. */
static void feed(struct rdmares_query *q, const char *buf, size_t n)
{
	if (!q->nonspace)
		for (size_t i = 0; i < n && !q->nonspace; i++)
			q->nonspace = !strchr(" \t\r\n", buf[i]);
	if (q->parsed || q->bad || !q->nonspace)
		return;
	q->parsed = json_tokener_parse_ex(q->tok, buf, (int)n);
	if (!q->parsed && json_tokener_get_error(q->tok) != json_tokener_continue)
		q->bad = RDMARES_WHY_JSON;
}

bool rdmares_query_step(struct rdmares_query *q, double now)
{
	char buf[65536];
	size_t budget = STEP_MAX;

	if (!q->running) {
		reap(q, 1);
		return false;
	}
	while (q->fd >= 0 && budget > 0) {
		ssize_t r = read(q->fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r <= 0) { /* its end (or a pipe that failed: the exit status says) */
			close(q->fd);
			q->fd = -1;
			break;
		}
		budget -= (size_t)r < budget ? (size_t)r : budget;
		q->got += (size_t)r;
		if (q->got > OUT_MAX) {
			kill_run(q, now, RDMARES_WHY_BIG);
			return true;
		}
		feed(q, buf, (size_t)r);
	}
	if (q->fd < 0) {
		int st;
		pid_t w = waitpid(q->pid, &st, WNOHANG);
		if (w == q->pid || (w < 0 && errno == ECHILD)) {
			bool exited_ok = w > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
			q->pid = 0;
			finish(q, now, exited_ok);
			return true;
		}
	}
	if (now - q->started >= q->deadline_s) {
		kill_run(q, now, RDMARES_WHY_SLOW);
		return true;
	}
	return false;
}

int rdmares_query_fd(const struct rdmares_query *q)
{
	return q && q->running ? q->fd : -1;
}

bool rdmares_query_running(const struct rdmares_query *q)
{
	return q && q->running;
}

bool rdmares_query_cancel(struct rdmares_query *q)
{
	if (!q || !q->running)
		return false;
	kill_run(q, clock_mono_s(), RDMARES_WHY_STOPPED);
	return true;
}

struct json_object *rdmares_query_array(const struct rdmares_query *q, const char **why)
{
	*why = !q->have ? RDMARES_WHY_TOOL : q->ok ? NULL : q->why;
	return q->have && q->ok ? q->arr : NULL;
}

int rdmares_query_holders(const struct rdmares_query *q, const char *device, unsigned port,
			  struct rdma_qp_holders *out)
{
	memset(out, 0, sizeof(*out));
	if (!q->have || !q->ok) {
		out->why = q->have ? q->why : RDMARES_WHY_TOOL;
		return -1;
	}
	if (q->arr)
		rdmares_holders_of(q->arr, device, port, out);
	return 0;
}

void rdmares_query_free(struct rdmares_query *q)
{
	if (!q)
		return;
	if (q->running)
		kill_run(q, 0, RDMARES_WHY_STOPPED);
	reap(q, 20);
	json_object_put(q->arr);
	free(q);
}
