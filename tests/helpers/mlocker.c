// SPDX-License-Identifier: GPL-2.0-only
/* mlocker - lock LEN bytes of fresh anonymous memory with mlock() (or
 * mlockall with -a), print the result, exit 0 on success and 1 on failure.
 * A host test workload: mlock is held to the same RLIMIT_MEMLOCK as MRs.
 * The line ends with proc_pid=, the pid as the mounted /proc numbers it: in
 * a pid namespace of its own under the host's /proc that is the host pid a
 * record's `pid` carries, while pid= is the process's own (the record's
 * `ns_pid`), so a test can join the two.
 *
 * Further arguments are ignored: they stand for a job's own (the redaction
 * check puts a token there).  MLOCKER_LINGER_MS=N stays N ms after the
 * result, so that watch can still read the process's /proc.
 *
 * Usage: mlocker [-a] LEN_BYTES [ARGS...] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int all = argc > 1 && !strcmp(argv[1], "-a");
	if (argc < 2 + all) {
		fprintf(stderr, "usage: %s [-a] LEN_BYTES [ARGS...]\n", argv[0]);
		return 2;
	}
	size_t len = strtoull(argv[1 + all], NULL, 0);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	int r = all ? mlockall(MCL_CURRENT) : mlock(p, len);
	int e = errno;
	char proc_pid[32] = "?";
	ssize_t n = readlink("/proc/self", proc_pid, sizeof(proc_pid) - 1);
	if (n > 0)
		proc_pid[n] = '\0';
	printf("pid=%d %s len=%zu result=%s errno=%d proc_pid=%s\n", getpid(), all ? "mlockall" : "mlock",
	       len, r ? "FAIL" : "OK", r ? e : 0, proc_pid);
	fflush(stdout);
	const char *linger = getenv("MLOCKER_LINGER_MS");
	if (linger)
		usleep((useconds_t)strtoul(linger, NULL, 10) * 1000);
	return r ? 1 : 0;
}
