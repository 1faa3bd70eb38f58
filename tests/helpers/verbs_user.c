// SPDX-License-Identifier: GPL-2.0-only
/* verbs_user - loads a libibverbs given by path (dlopen, like NCCL does),
 * waits, then calls ibv_reg_mr_iova2 on LEN bytes of fresh memory, or
 * ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) (NCCL's probe) with -d.
 * Usage: verbs_user [-d] [-k N | -t N | -f N] LIBPATH DELAY_S|@FILE [LEN]
 * @FILE waits until FILE exists (at most 60 s) instead of a fixed delay: the
 * test creates it once watch says it attached to the library.
 * -k N: after the wait, first N threads of a child process enter the call
 *       and are killed inside it (SIGKILL: their return probes never run),
 *       as in a crash loop; then the call is made.
 * -t N: before the wait, N threads are started and joined one after the
 *       other, then the call is made by a forked child (a tree whose threads
 *       come and go, then a new process).
 * -f N: as -t, with N child processes forked and reaped in turn.
 * Prints "pid=P result=OK|FAIL errno=E"; exit 0 / 1. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef void *(*reg_iova2_fn)(void *, void *, size_t, uint64_t, unsigned int);
typedef void *(*reg_dmabuf_fn)(void *, uint64_t, size_t, uint64_t, int, int);

#define FAKE_BLOCK_ACCESS 0x40000000 /* libibverbs_fake.c: blocks until killed */

static reg_iova2_fn reg_fn;
static atomic_int entered;
static char blocked_buf[4096];

static void *blocked_call(void *unused)
{
	(void)unused;
	atomic_fetch_add(&entered, 1);
	reg_fn((void *)0x1, blocked_buf, sizeof(blocked_buf), 0, FAKE_BLOCK_ACCESS);
	return NULL;
}

static void *no_op(void *unused)
{
	return unused;
}

static pthread_attr_t small_stacks(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	return a;
}

/* n threads enter the call in a child that is killed with them inside it. */
static void die_inside(int n)
{
	pid_t c = fork();
	if (c == 0) {
		pthread_attr_t a = small_stacks();
		for (int i = 0; i < n; i++) {
			pthread_t t;
			if (pthread_create(&t, &a, blocked_call, NULL))
				break;
		}
		while (atomic_load(&entered) < n)
			usleep(10000);
		sleep(1); /* every one of them is inside the call */
		kill(getppid(), SIGUSR1);
		for (;;)
			pause();
	}
	sigset_t set;
	int sig;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigwait(&set, &sig);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

/* n threads started and joined in turn */
static void threads_come_and_go(int n)
{
	pthread_attr_t a = small_stacks();
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &a, no_op, NULL))
			break;
		pthread_join(t, NULL);
	}
}

/* n processes forked and reaped in turn (vfork: no copy of the address
 * space, so thousands take seconds) */
static void processes_come_and_go(int n)
{
	static int i; /* not a register vfork's child could clobber */
	for (i = 0; i < n; i++) {
		pid_t c = vfork();
		if (c == 0)
			_exit(0);
		if (c < 0)
			break;
		waitpid(c, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	int dmabuf = 0, kill_n = 0, threads_n = 0, forks_n = 0, a = 1;
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-d"))
			dmabuf = 1;
		else if (!strcmp(argv[a], "-k") && a + 1 < argc)
			kill_n = atoi(argv[++a]);
		else if (!strcmp(argv[a], "-t") && a + 1 < argc)
			threads_n = atoi(argv[++a]);
		else if (!strcmp(argv[a], "-f") && a + 1 < argc)
			forks_n = atoi(argv[++a]);
		else
			break;
	}
	argc -= a - 1;
	argv += a - 1;
	if (argc < 3) {
		fprintf(stderr, "usage: verbs_user [-d] [-k N | -t N | -f N] LIBPATH DELAY_S|@FILE [LEN]\n");
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	reg_fn = (reg_iova2_fn)dlsym(lib, "ibv_reg_mr_iova2");
	if (threads_n > 0)
		threads_come_and_go(threads_n);
	if (forks_n > 0)
		processes_come_and_go(forks_n);
	const char *delay = argv[2];
	if (delay[0] == '@') { /* told when it was found */
		for (int i = 0; i < 6000 && access(delay + 1, F_OK); i++)
			usleep(10000);
	} else {
		usleep((useconds_t)(atof(delay) * 1e6)); /* time to be found */
	}
	if (kill_n > 0) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL); /* before the child can send it */
		die_inside(kill_n);
	}
	if (threads_n > 0 || forks_n > 0) {
		pid_t c = fork();
		if (c > 0) {
			int st = 0;
			waitpid(c, &st, 0);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		}
	}
	void *mr;
	if (dmabuf) {
		reg_dmabuf_fn f = (reg_dmabuf_fn)dlsym(lib, "ibv_reg_dmabuf_mr");
		mr = f((void *)0x1, 0, 0, 0, -1, 0);
	} else {
		size_t len = argc > 3 ? strtoull(argv[3], NULL, 0) : 1 << 20;
		void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		reg_iova2_fn f = (reg_iova2_fn)dlsym(lib, "ibv_reg_mr_iova2");
		mr = f((void *)0x1, buf, len, (uint64_t)(uintptr_t)buf, 7);
	}
	int e = errno;
	printf("pid=%d result=%s errno=%d\n", getpid(), mr ? "OK" : "FAIL", mr ? 0 : e);
	fflush(stdout);
	if (!mr)
		sleep(1); /* a real job lingers while it logs and aborts */
	return mr ? 0 : 1;
}
