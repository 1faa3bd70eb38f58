// SPDX-License-Identifier: GPL-2.0-only
/* test_factscache.c - the kernel facts cache (user/tracer/factscache.c):
 * the key from a kernel's notes and module list, a round trip, and every
 * way a file is refused (absent, corrupt, torn, another mrtrace, another
 * kernel or module set, values out of range behind a good checksum, a file
 * others may write) so that the caller gathers afresh. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracer/factscache.h"

#define VERSION "0.9.0+gtest"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mrt-factscache-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *in_dir(const char *name)
{
	static char path[4][256];
	static int n;
	char *p = path[n++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* /sys/kernel/notes as the kernel lays it out: a Xen note first, then the
 * GNU build id (namesz 4, descsz 20, type 3). */
static void write_notes(const char *path, unsigned char first)
{
	unsigned char n[64] = { 0 };
	uint32_t h1[3] = { 6, 4, 0x101 }, h2[3] = { 4, 20, 3 };

	memcpy(n, h1, 12);
	memcpy(n + 12, "Linux\0\0\0", 8);
	memcpy(n + 20, "\x01\x02\x03\x04", 4);
	memcpy(n + 24, h2, 12);
	memcpy(n + 36, "GNU", 4);
	for (int i = 0; i < 20; i++)
		n[40 + i] = (unsigned char)(first + i);
	write_file(path, n, 60);
}

static const char MODULES[] = "ib_uverbs 184320 2 rdma_ucm, Live 0xffffffffc0a00000\n"
			      "ib_core 450560 3 rdma_ucm,ib_uverbs, Live 0xffffffffc0900000\n";

static void key_of(struct factscache_key *k, unsigned char first, const char *modules)
{
	char err[256];

	write_notes(in_dir("notes"), first);
	write_file(in_dir("modules"), modules, strlen(modules));
	assert_int_equal(factscache_key(k, in_dir("notes"), in_dir("modules"), 42, err,
					sizeof(err)),
			 0);
}

static void facts_of(struct tracer_facts *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->kernel, sizeof(f->kernel), "6.12.0-test");
	f->kprobes = true;
	f->nfuncs = 2;
	snprintf(f->funcs[0].name, sizeof(f->funcs[0].name), "ib_umem_get");
	f->funcs[0].in_kallsyms = f->funcs[0].in_btf = true;
	f->funcs[0].ksym_count = 1;
	snprintf(f->funcs[0].ksym_module, sizeof(f->funcs[0].ksym_module), "ib_uverbs");
	snprintf(f->funcs[0].btf_module, sizeof(f->funcs[0].btf_module), "ib_uverbs");
	f->funcs[0].tramp = TRAMP_REFUSED;
	snprintf(f->funcs[0].tramp_why, sizeof(f->funcs[0].tramp_why),
		 "fexit load refused: Operation not permitted");
	snprintf(f->funcs[1].name, sizeof(f->funcs[1].name), "capable");
	f->funcs[1].tramp = TRAMP_OK;
	f->nfeatures = 1;
	snprintf(f->features[0].name, sizeof(f->features[0].name), "find_vma");
	f->features[0].present = true;
}

static void test_key_from_notes_and_modules(void **state)
{
	(void)state;
	struct factscache_key a, b, c;
	char path[512];

	key_of(&a, 0x10, MODULES);
	assert_string_equal(a.build, "101112131415161718191a1b1c1d1e1f20212223");
	assert_int_equal(a.asked, 42);
	assert_true(a.release[0]);
	/* refcounts and addresses move; names and sizes are the module set */
	key_of(&b, 0x10,
	       "ib_uverbs 184320 0 - Live 0xffffffffc0b00000\n"
	       "ib_core 450560 1 ib_uverbs, Live 0xffffffffc0c00000\n");
	assert_int_equal(a.modules, b.modules);
	key_of(&c, 0x10,
	       "mlx5_ib 557056 0 - Live 0xffffffffc0d00000\n"
	       "ib_uverbs 184320 2 rdma_ucm, Live 0xffffffffc0a00000\n"
	       "ib_core 450560 3 rdma_ucm,ib_uverbs, Live 0xffffffffc0900000\n");
	assert_true(a.modules != c.modules);
	/* the same set in another order (a module unloaded and loaded again
	 * comes first in /proc/modules) is the same set */
	struct factscache_key d;
	key_of(&d, 0x10,
	       "ib_uverbs 184320 2 rdma_ucm, Live 0xffffffffc0a00000\n"
	       "mlx5_ib 557056 0 - Live 0xffffffffc0d00000\n"
	       "ib_core 450560 3 rdma_ucm,ib_uverbs, Live 0xffffffffc0900000\n");
	assert_int_equal(c.modules, d.modules);
	key_of(&c, 0x11, MODULES);
	assert_string_not_equal(a.build, c.build);
	/* without a build id note, the kernel's uname -v stands in */
	write_file(in_dir("notes"), "\0\0\0\0", 4);
	assert_int_equal(factscache_key(&c, in_dir("notes"), in_dir("modules"), 42, path, 256), 0);
	assert_true(c.build[0] && strcmp(c.build, a.build));

	/* the file is named by release and binary under the directory asked
	 * for: two mrtrace builds on one kernel keep a file each, instead of
	 * replacing each other's at every start */
	assert_int_equal(factscache_path(path, sizeof(path), "/x/y", &a), 0);
	assert_true(!strncmp(path, "/x/y/", 5) && strstr(path, ".facts") && strstr(path, a.release));
	char other[sizeof(path)];
	c = a;
	c.asked ^= 1; /* another binary (gather.c hashes it into `asked`) */
	assert_int_equal(factscache_path(other, sizeof(other), "/x/y", &c), 0);
	assert_string_not_equal(path, other);
	/* and by module set: a set seen before finds its own file again */
	c = a;
	c.modules ^= 1;
	assert_int_equal(factscache_path(other, sizeof(other), "/x/y", &c), 0);
	assert_string_not_equal(path, other);
	setenv("MRTRACE_CACHE_DIR", "/elsewhere", 1);
	assert_int_equal(factscache_path(path, sizeof(path), NULL, &a), 0);
	assert_true(!strncmp(path, "/elsewhere/", 11));
	unsetenv("MRTRACE_CACHE_DIR");
	assert_int_equal(factscache_path(path, sizeof(path), NULL, &a), 0);
	assert_true(!strncmp(path, FACTSCACHE_DIR "/", strlen(FACTSCACHE_DIR) + 1));
	snprintf(a.release, sizeof(a.release), "../../etc");
	assert_int_equal(factscache_path(path, sizeof(path), "/x", &a), -1);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct factscache_key k;
	struct tracer_facts f, g;
	char why[256] = "";
	struct stat st;
	char path[256];

	snprintf(path, sizeof(path), "%s", in_dir("deep/er/6.12.0-test.facts"));

	key_of(&k, 0x20, MODULES);
	facts_of(&f);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "absent");
	/* the directory is created; nothing is left beside the file */
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	memset(&g, 0xaa, sizeof(g));
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), 0);
	assert_memory_equal(&f, &g, sizeof(f));
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s/deep/er' | wc -l) = 1", dir);
	assert_int_equal(system(cmd), 0);
	/* rewritten in place */
	f.funcs[1].tramp = TRAMP_REFUSED;
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), 0);
	assert_int_equal(g.funcs[1].tramp, TRAMP_REFUSED);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* flips one byte at off (from the end when negative) */
static void flip(const char *path, long off)
{
	int fd = open(path, O_RDWR);
	unsigned char c;

	assert_true(fd >= 0);
	if (off < 0)
		off += file_size(path);
	assert_int_equal(pread(fd, &c, 1, off), 1);
	c ^= 0x5a;
	assert_int_equal(pwrite(fd, &c, 1, off), 1);
	close(fd);
}

static void test_corrupt_and_torn(void **state)
{
	(void)state;
	struct factscache_key k;
	struct tracer_facts f, g;
	char why[256];
	char path[256];

	snprintf(path, sizeof(path), "%s", in_dir("c.facts"));

	key_of(&k, 0x30, MODULES);
	facts_of(&f);
	/* a byte of the payload */
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	flip(path, -100);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "corrupt");
	/* the magic */
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	flip(path, 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "corrupt");
	/* torn by a crash */
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(truncate(path, file_size(path) / 2), 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "corrupt");
	/* junk */
	write_file(path, "hello\n", 6);
	chmod(path, 0644);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "corrupt");
	/* and a good store over it is read again */
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), 0);
}

static void test_version_and_key_mismatch(void **state)
{
	(void)state;
	struct factscache_key k, other;
	struct tracer_facts f, g;
	char why[256];
	char path[256];

	snprintf(path, sizeof(path), "%s", in_dir("v.facts"));

	key_of(&k, 0x40, MODULES);
	facts_of(&f);
	assert_int_equal(factscache_store(path, &k, "0.8.0", &f, why, sizeof(why)), 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "from mrtrace 0.8.0"));

	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	/* another kernel build */
	key_of(&other, 0x41, MODULES);
	assert_int_equal(factscache_load(path, &other, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "for another kernel or module set");
	/* a module loaded since */
	key_of(&other, 0x40, "rdma_rxe 151552 0 - Live 0xffffffffc0e00000\n");
	assert_int_equal(factscache_load(path, &other, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "for another kernel or module set");
	/* another binary or site table */
	other = k;
	other.asked++;
	assert_int_equal(factscache_load(path, &other, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "for another kernel or module set");
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), 0);
}

static void test_out_of_range_and_untrusted(void **state)
{
	(void)state;
	struct factscache_key k;
	struct tracer_facts f, g;
	char why[256];
	char path[256];

	snprintf(path, sizeof(path), "%s", in_dir("r.facts"));

	key_of(&k, 0x50, MODULES);
	/* a good checksum over values the reader must not index with */
	facts_of(&f);
	f.nfuncs = TRACER_FACTS_FUNCS + 1;
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "corrupt");
	facts_of(&f);
	memset(f.funcs[0].name, 'x', sizeof(f.funcs[0].name)); /* unterminated */
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "corrupt");
	facts_of(&f);
	f.funcs[1].tramp = (enum tracer_tramp)7;
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_string_equal(why, "corrupt");
	/* whole, but writable by others: not read */
	facts_of(&f);
	assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not trusted"));
	/* nor through a symbolic link */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(symlink(path, in_dir("link.facts")), 0);
	assert_int_equal(factscache_load(in_dir("link.facts"), &k, VERSION, &g, why, sizeof(why)),
			 -1);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), 0);
}

/* A FIFO planted as the cache file (issue 24, row 6): refused at once,
 * never a watch or --list-probes stuck in open(2) waiting for a writer.
 * alarm() turns a hang into a failed test. */
static void test_fifo_is_refused_without_blocking(void **state)
{
	(void)state;
	struct factscache_key k;
	struct tracer_facts g;
	char why[256];
	char path[256];

	snprintf(path, sizeof(path), "%s", in_dir("fifo.facts"));
	key_of(&k, 0x60, MODULES);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(5);
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), -1);
	alarm(0);
	assert_non_null(strstr(why, "not a regular file"));
	unlink(path);
}

/* The files of one kernel and binary are kept for FACTSCACHE_KEEP module
 * sets: the oldest go; another binary's, other files and links stay. */
static void test_prune_keeps_the_newest_sets(void **state)
{
	(void)state;
	struct factscache_key k, other;
	struct tracer_facts f;
	char why[256], path[512];
	struct stat st;

	key_of(&k, 0x70, MODULES);
	other = k;
	other.asked ^= 1;
	facts_of(&f);
	for (int i = 0; i < FACTSCACHE_KEEP + 3; i++) {
		k.modules = 1000 + i;
		assert_int_equal(factscache_path(path, sizeof(path), dir, &k), 0);
		assert_int_equal(factscache_store(path, &k, VERSION, &f, why, sizeof(why)), 0);
		struct timespec t[2] = { { .tv_sec = 1000000 + i }, { .tv_sec = 1000000 + i } };
		assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
	}
	assert_int_equal(factscache_path(path, sizeof(path), dir, &other), 0);
	assert_int_equal(factscache_store(path, &other, VERSION, &f, why, sizeof(why)), 0);
	assert_int_equal(factscache_prune(dir, &k, FACTSCACHE_KEEP), 3);
	for (int i = 0; i < FACTSCACHE_KEEP + 3; i++) {
		k.modules = 1000 + i;
		assert_int_equal(factscache_path(path, sizeof(path), dir, &k), 0);
		assert_int_equal(stat(path, &st) == 0, i >= 3);
	}
	assert_int_equal(factscache_path(path, sizeof(path), dir, &other), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(factscache_prune(dir, &k, FACTSCACHE_KEEP), 0);
	/* a kept set loads */
	k.modules = 1000 + FACTSCACHE_KEEP + 2;
	assert_int_equal(factscache_path(path, sizeof(path), dir, &k), 0);
	struct tracer_facts g;
	assert_int_equal(factscache_load(path, &k, VERSION, &g, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_from_notes_and_modules),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_corrupt_and_torn),
		cmocka_unit_test(test_version_and_key_mismatch),
		cmocka_unit_test(test_out_of_range_and_untrusted),
		cmocka_unit_test(test_fifo_is_refused_without_blocking),
		cmocka_unit_test(test_prune_keeps_the_newest_sets),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
