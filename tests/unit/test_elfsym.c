// SPDX-License-Identifier: GPL-2.0-only
/* test_elfsym.c - the function that holds a return address in a library
 * (tracer_elf_symbol_at): how watch names the libibverbs API from the user
 * stack the kernel took at a failure, with the registration calls not
 * probed.  Runs on this machine's libibverbs (skipped where there is none). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer/tracer.h"
#include "tracer/uprobes.h"
#include "host_libibverbs.h"
#include "tracer/elfsym.h"

static void test_inside_each_function(void **state)
{
	(void)state;
	const char *lib = host_libibverbs();
	char buf[128];
	if (!lib)
		skip();
	static const char *const names[] = { "ibv_reg_mr_iova2", "ibv_cmd_reg_mr", "ibv_reg_dmabuf_mr" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t off = tracer_elf_symbol_offset(lib, names[i]);
		assert_true(off > 0);
		/* a few bytes in: where a return address would be */
		assert_non_null(tracer_elf_symbol_at(lib, off + 8, buf, sizeof(buf)));
		assert_string_equal(buf, names[i]);
	}
	/* the ELF header is in no function */
	assert_null(tracer_elf_symbol_at(lib, 0, buf, sizeof(buf)));
	assert_null(tracer_elf_symbol_at("/nonexistent/libibverbs.so.1", 0x1000, buf, sizeof(buf)));
}

static void on_alarm(int sig)
{
	(void)sig;
	/* the open blocked: what a FIFO named by a user must never do */
	static const char msg[] = "test_elfsym: blocked opening a FIFO\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

/* A user's maps name any path: a FIFO there would stall watch's one loop,
 * a symlink to a device would make root open the device (a watchdog arms
 * itself when opened).  Both are refused, at once and without opening the
 * device. */
static void test_fifo_and_device_link_refused(void **state)
{
	(void)state;
	char dir[] = "/tmp/elfsym-XXXXXX", fifo[64], link[64], buf[128];
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/libibverbs.so.1", dir);
	snprintf(link, sizeof(link), "%s/libibverbs.so.2", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink("/dev/null", link), 0);
	signal(SIGALRM, on_alarm);
	alarm(5);
	assert_null(tracer_elf_symbol_at(fifo, 0x1000, buf, sizeof(buf)));
	assert_int_equal(tracer_elf_symbol_offset(fifo, "ibv_reg_mr"), 0);
	assert_true(tracer_elf_open(fifo, false, 0) < 0);
	assert_true(tracer_elf_open(link, false, 0) < 0);
	assert_true(tracer_elf_open(link, true, 0) < 0); /* followed: still a device */
	assert_null(tracer_elf_symbol_at(link, 0x1000, buf, sizeof(buf)));
	alarm(0);
	unlink(fifo);
	unlink(link);
	rmdir(dir);
}

/* The file a maps line names is the one opened, or none: another inode at
 * that path (the user swapped it) is refused. */
static void test_inode_checked(void **state)
{
	(void)state;
	const char *lib = host_libibverbs();
	struct stat st;
	if (!lib || stat(lib, &st))
		skip();
	int fd = tracer_elf_open(lib, true, st.st_ino);
	assert_true(fd >= 0);
	close(fd);
	assert_true(tracer_elf_open(lib, true, st.st_ino + 1) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inside_each_function),
		cmocka_unit_test(test_fifo_and_device_link_refused),
		cmocka_unit_test(test_inode_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
