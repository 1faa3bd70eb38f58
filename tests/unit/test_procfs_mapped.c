// SPDX-License-Identifier: GPL-2.0-only
/* test_procfs_mapped.c - the NCCL library reader falls back to the mapped
 * file itself (/proc/PID/map_files/LO-HI) when the maps path does not open
 * as a regular file (nccl/library.c).  A user may map any device they can
 * open, under any name: a char device node called libnccl.so.2 is mapped,
 * and root must not open it again through map_files (procfs_open did:
 * O_NONBLOCK, but no regular-file check).  A regular mapping still opens. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/procfs.h"
#include "nccl/nccl.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mrt-mapped-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* map_files/LO-HI of the mapping at addr (its exact range in our maps) */
static void map_files_of(void *addr, char *rel, size_t len)
{
	char line[512];
	unsigned long lo, hi;
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	rel[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == (unsigned long)addr) {
			snprintf(rel, len, "map_files/%lx-%lx", lo, hi);
			break;
		}
	fclose(f);
	assert_true(rel[0]);
}

static void test_regular_mapping_opens(void **state)
{
	(void)state;
	char path[PATH_MAX], rel[64];
	snprintf(path, sizeof(path), "%s/libnccl.so.2", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	close(fd);
	map_files_of(m, rel, sizeof(rel));
	int got = procfs_open_mapped("/", getpid(), rel);
	assert_true(got >= 0);
	struct stat st;
	assert_int_equal(fstat(got, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(fcntl(got, F_GETFL) & O_NONBLOCK);
	close(got);
	munmap(m, 4096);
	unlink(path);
}

/* A device node named libnccl.so.2 (/dev/zero's numbers), mapped: the
 * regular-file rule refuses it where procfs_open opened it; and the whole
 * library reader, which found "libnccl.so.2" in the maps, opens nothing. */
static void test_device_mapping_refused(void **state)
{
	(void)state;
	char path[PATH_MAX], rel[64];
	snprintf(path, sizeof(path), "%s/libnccl.so.2", dir);
	if (mknod(path, S_IFCHR | 0644, makedev(1, 5))) {
		if (errno == EPERM)
			skip(); /* not root: no device node to make */
		fail_msg("mknod: %s", strerror(errno));
	}
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	close(fd);
	map_files_of(m, rel, sizeof(rel));
	int old = procfs_open("/", getpid(), rel); /* what library.c used */
	assert_true(old >= 0);
	close(old);
	assert_int_equal(procfs_open_mapped("/", getpid(), rel), -EINVAL);

	struct nccl_lib lib;
	memset(&lib, 0, sizeof(lib));
	assert_int_equal(nccl_lib_detect("/", getpid(), &lib), 0);
	assert_true(lib.found);
	assert_non_null(strstr(lib.path, "libnccl.so.2"));
	assert_false(lib.version_known); /* nothing read: nothing opened */
	munmap(m, 4096);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular_mapping_opens),
		cmocka_unit_test(test_device_mapping_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
