// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_diff.c - libFuzzer harness: one report from another machine (the
 * input) compared with a real one.  diff must end with 0, 1 or 2 and never
 * abort, hang or touch memory it does not own, whatever the input holds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check/check.h"
#include "diff/diff.h"

static char good[64], theirs[64];
static FILE *devnull;
static int tfd = -1;

/* A real report from the recorded h100 tree, once. */
static int init(void)
{
	const char *fix = getenv("MRTRACE_FIXTURES");
	char root[4096];
	snprintf(root, sizeof(root), "%s/check/h100", fix ? fix : "tests/fixtures");
	struct chk_report r;
	struct chk_options o = { .root = root };
	if (chk_run(&o, &r))
		return -1;
	int gfd = memfd_create("good.json", 0);
	const char *js = chk_json_string(&r);
	size_t n = 0;
	while (js[n])
		n++;
	if (gfd < 0 || write(gfd, js, n) != (ssize_t)n)
		return -1;
	chk_report_free(&r);
	tfd = memfd_create("theirs.json", 0);
	snprintf(good, sizeof(good), "/proc/self/fd/%d", gfd);
	snprintf(theirs, sizeof(theirs), "/proc/self/fd/%d", tfd);
	devnull = fopen("/dev/null", "w");
	return tfd < 0 || !devnull ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready)
		ready = init() ? -1 : 1;
	if (ready < 0)
		abort();
	if (ftruncate(tfd, 0) || pwrite(tfd, data, size, 0) != (ssize_t)size)
		return 0;
	const char *files[2] = { good, theirs };
	char err[512];
	int rc = diff_files(2, files, devnull, NULL, err, sizeof(err));
	if (rc < 0 || rc > 2)
		abort();
	return 0;
}
