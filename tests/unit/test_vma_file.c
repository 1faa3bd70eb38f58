// SPDX-License-Identifier: GPL-2.0-only
/* test_vma_file.c - cause pin_fsdax: the reader of the file a process maps
 * and its mount (proc/vma_file.c) on lines and on trees made here (the
 * process alive, and gone with only the kernel's name of the file left),
 * gates_collect() reading it only for a pin the kernel marked fs-dax, the
 * JSON round trip (evidence.gates.vma_file, raw.vma_file) and the verdict
 * and fixes of the record sites:fsdax made on 6.12. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture_path.h"
#include "tree_make.h"
#include "proc/gates.h"
#include "proc/vma_file.h"
#include "record/record.h"
#include "verdict/explain.h"

#define ADDR 0x7eff90795000ULL
/* 259:0 as the kernel's s_dev (major << 20 | minor) */
#define KDEV (259ULL << 20)

/* ---- lines ---------------------------------------------------------------------- */

static void test_maps_line(void **state)
{
	(void)state;
	struct vma_file f;

	memset(&f, 0, sizeof(f));
	assert_false(vma_file_maps_line("7eff90795000-7eff907b5000 rw-s 00000000 103:00 12   /mnt/dax/kv.bin\n",
					ADDR + 0x20000, &f));
	assert_false(f.read);
	assert_true(vma_file_maps_line("7eff90795000-7eff907b5000 rw-s 00000000 103:00 12   /mnt/dax/my kv.bin\n",
				       ADDR, &f));
	assert_true(f.read);
	assert_int_equal(f.major, 259); /* maps prints hex */
	assert_int_equal(f.minor, 0);
	assert_int_equal(f.ino, 12);
	assert_int_equal(f.end, ADDR + 0x20000);
	assert_string_equal(f.path, "/mnt/dax/my kv.bin");
	/* anonymous: no path */
	memset(&f, 0, sizeof(f));
	assert_true(vma_file_maps_line("7eff90795000-7eff907b5000 rw-p 00000000 00:00 0\n", ADDR, &f));
	assert_string_equal(f.path, "");
	/* the kernel named another file: the line holds the address, but is not it */
	memset(&f, 0, sizeof(f));
	f.from_kernel = true;
	f.ino = 13;
	f.major = 259;
	assert_true(vma_file_maps_line("7eff90795000-7eff907b5000 rw-s 00000000 103:00 12   /x\n", ADDR, &f));
	assert_string_equal(f.path, "");
	/* not a maps line */
	assert_false(vma_file_maps_line("garbage\n", ADDR, &f));
}

static void test_options_dax(void **state)
{
	(void)state;
	assert_true(vma_file_options_dax("rw,dax=always"));
	assert_true(vma_file_options_dax("rw,relatime,dax"));
	assert_true(vma_file_options_dax("dax=inode,rw"));
	assert_false(vma_file_options_dax("rw,dax=never"));
	assert_false(vma_file_options_dax("rw,relatime"));
	assert_false(vma_file_options_dax("rw,daxx,nodax,dax="));
	assert_false(vma_file_options_dax(""));
}

static void test_mount_line(void **state)
{
	(void)state;
	struct vma_file f;

	memset(&f, 0, sizeof(f));
	f.major = 259;
	assert_false(vma_file_mount_line("40 31 259:1 / /mnt/other rw - ext4 /dev/pmem0p1 rw,dax=always\n", &f));
	assert_false(vma_file_mount_line("40 31 259:0 / /mnt/dax rw no-dash ext4\n", &f));
	assert_true(vma_file_mount_line("41 31 259:0 / /mnt/dax rw,relatime shared:1 - ext4 /dev/pmem0 rw,dax=always\n", &f));
	assert_true(f.mount_found && f.dax);
	assert_string_equal(f.mount_point, "/mnt/dax");
	assert_string_equal(f.fstype, "ext4");
	assert_string_equal(f.source, "/dev/pmem0");
	assert_string_equal(f.options, "rw,dax=always");
}

/* ---- trees ----------------------------------------------------------------------- */

static const char mountinfo[] =
	"22 1 0:21 / / rw - ext4 /dev/vda1 rw\n"
	/* a bind mount of a directory of the pmem file system first */
	"40 22 259:0 /sub /srv/sub rw - ext4 /dev/pmem0 rw,dax=inode\n"
	"41 22 259:0 / /mnt/dax rw - ext4 /dev/pmem0 rw,dax=inode\n";

static void test_read_alive(void **state)
{
	(void)state;
	char top[] = "/tmp/mrtrace-vmafile-XXXXXX";
	char maps[16384];
	struct vma_file f;

	assert_non_null(mkdtemp(top));
	/* a line longer than any path before it: skipped, not cut into a false line */
	int n = snprintf(maps, sizeof(maps), "00400000-00401000 r-xp 00000000 fe:01 5 /usr/bin/x\n"
					     "7eff90795000-7eff907b5000 rw-s 00000000 103:00 99 /");
	memset(maps + n, 'a', 5000);
	n += 5000;
	n += snprintf(maps + n, sizeof(maps) - (size_t)n,
		      "\n7eff90795000-7eff907b5000 rw-s 00000000 103:00 12 /mnt/dax/kv.bin\n");
	tree_make(top, "proc/42/maps", maps, false);
	tree_make(top, "proc/42/mountinfo", mountinfo, false);
	vma_file_read(top, 42, ADDR, KDEV, 12, "kv.bin", &f);
	assert_true(f.read && f.from_kernel);
	assert_string_equal(f.path, "/mnt/dax/kv.bin");
	assert_string_equal(f.name, "kv.bin");
	assert_int_equal(f.maps_error, 0);
	assert_true(f.mount_found && !f.host_table && f.dax);
	assert_string_equal(f.mount_point, "/mnt/dax"); /* the file system's root, not the bind mount */
	assert_string_equal(f.options, "rw,dax=inode");
	/* no kernel name (a --hot-sites record): the maps alone */
	vma_file_read(top, 42, ADDR, 0, 0, NULL, &f);
	assert_true(f.read && !f.from_kernel);
	assert_int_equal(f.ino, 12); /* the over-long line (inode 99) was skipped whole */
	assert_string_equal(f.path, "/mnt/dax/kv.bin");
	tree_remove(top);
}

static void test_read_gone(void **state)
{
	(void)state;
	char top[] = "/tmp/mrtrace-vmafile-XXXXXX";
	struct vma_file f;
	char name[32];

	assert_non_null(mkdtemp(top));
	tree_make(top, "proc/1/mountinfo", mountinfo, false);
	/* the record's name fills all 32 bytes: no NUL in it */
	memset(name, 'n', sizeof(name));
	vma_file_read(top, 42, ADDR, KDEV, 12, name, &f);
	assert_true(f.read && f.from_kernel);
	assert_int_equal(f.maps_error, ENOENT);
	assert_string_equal(f.path, "");
	assert_int_equal(strlen(f.name), 31);
	assert_true(f.mount_found && f.host_table);
	assert_string_equal(f.mount_point, "/mnt/dax");
	/* nothing from the kernel and no maps: nothing known */
	vma_file_read(top, 42, ADDR, 0, 0, NULL, &f);
	assert_false(f.read);
	assert_int_equal(f.maps_error, ENOENT);
	assert_false(f.mount_found);
	tree_remove(top);
}

/* ---- the record sites:fsdax made on 6.12 ------------------------------------------ */

static struct json_object *fixture(void)
{
	struct json_object *o = json_object_from_file(
		fixture_path("trails", "pin_fsdax.perftest-mmap.6.12.json"));
	assert_non_null(o);
	return o;
}

static struct mrt_event fsdax_event(void)
{
	char err[256];
	struct mrt_event ev;
	struct json_object *o = fixture();

	assert_int_equal(record_raw_from_json(o, &ev, err, sizeof(err)), 0);
	json_object_put(o);
	assert_int_equal(ev.kind, MRT_EV_REG_FAILURE);
	assert_int_equal(ev.vma_dev, KDEV);
	assert_int_equal(ev.vma_ino, 12);
	assert_string_equal(ev.vma_name, "kv.bin");
	return ev;
}

static void test_gates_only_for_marked_pin(void **state)
{
	(void)state;
	char top[] = "/tmp/mrtrace-vmafile-XXXXXX";
	struct mrt_event ev = fsdax_event();
	static struct gate_facts g;
	const struct mrt_step *s;

	assert_non_null(mkdtemp(top));
	tree_make(top, "proc/1/mountinfo", mountinfo, false);
	assert_non_null(s = gates_pin_fsdax_step(&ev));
	assert_true(gates_record_wants_facts(&ev));
	gates_collect(top, (int)ev.pid, &ev, &g);
	assert_true(g.vma_file.read && g.vma_file.host_table);
	assert_string_equal(g.vma_file.name, "kv.bin");
	assert_false(g.cma.read);
	/* the mark gone (a kernel that could not read the VMA): nothing read */
	int i = (int)(s - ev.steps);
	ev.steps[i].a2 &= ~MRT_VMA_FSDAX;
	assert_null(gates_pin_fsdax_step(&ev));
	assert_false(gates_record_wants_facts(&ev));
	gates_collect(top, (int)ev.pid, &ev, &g);
	assert_false(g.vma_file.read);
	/* marked, but another errno: not this refusal */
	ev = fsdax_event();
	ev.steps[i].ret = -EFAULT;
	assert_null(gates_pin_fsdax_step(&ev));
	tree_remove(top);
}

static void test_verdict_and_round_trip(void **state)
{
	(void)state;
	struct mrt_event ev = fsdax_event();
	static struct gate_facts g, back;
	static struct report r, r2;
	struct json_object *rec = fixture();

	/* the facts as the record holds them */
	assert_true(record_gates_from_json(rec, &g));
	json_object_put(rec);
	assert_true(g.vma_file.read && g.vma_file.from_kernel && g.vma_file.dax);
	record_explain(&r, &ev, NULL, NULL, NULL, &g);
	assert_int_equal(r.v.cause, CAUSE_PIN_FSDAX);
	assert_int_equal(r.v.certainty, CERT_PROVEN);
	assert_non_null(strstr(r.v.summary, "fs-dax: a file named kv.bin) (EOPNOTSUPP)"));
	assert_non_null(strstr(r.v.explanation, "(device 259:0, inode 12) on /dev/pmem0, ext4 "
						"mounted rw,dax=always at /mnt/dax"));
	assert_non_null(strstr(r.v.explanation, "had exited before its maps"));
	assert_non_null(strstr(r.v.fixes.items[0].text, "devdax"));
	assert_non_null(strstr(r.v.fixes.items[1].text, "mount /mnt/dax without DAX"));
	/* to JSON and back: the same facts, the same verdict */
	struct json_object *o = record_report_json(&r);
	assert_true(record_gates_from_json(o, &back));
	assert_memory_equal(&back.vma_file, &g.vma_file, sizeof(g.vma_file));
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(text, "\"vma_file\":[271581184,12,\"kv.bin\"]"));
	assert_non_null(strstr(text, "\"vma_fsdax\":true"));
	struct mrt_event ev2;
	char err[256];
	assert_int_equal(record_raw_from_json(o, &ev2, err, sizeof(err)), 0);
	assert_memory_equal(ev2.vma_name, ev.vma_name, sizeof(ev.vma_name));
	json_object_put(o);
	record_explain(&r2, &ev2, NULL, NULL, NULL, &back);
	assert_string_equal(r2.v.summary, r.v.summary);
	/* alive: the path; dax=inode: the per-file fix */
	snprintf(g.vma_file.path, sizeof(g.vma_file.path), "/mnt/dax/kv.bin");
	snprintf(g.vma_file.options, sizeof(g.vma_file.options), "rw,dax=inode");
	record_explain(&r, &ev, NULL, NULL, NULL, &g);
	assert_non_null(strstr(r.v.summary, "fs-dax: /mnt/dax/kv.bin)"));
	assert_null(strstr(r.v.explanation, "had exited"));
	assert_non_null(strstr(r.v.fixes.items[1].text, "chattr -x' /mnt/dax/kv.bin"));
	/* a path that is the process's to choose cannot drive the terminal */
	snprintf(g.vma_file.path, sizeof(g.vma_file.path), "/mnt/dax/\x1b[2Jx");
	record_explain(&r, &ev, NULL, NULL, NULL, &g);
	assert_null(strchr(r.v.summary, '\x1b'));
	assert_null(strchr(r.v.fixes.items[0].text, '\x1b'));
	/* no facts (an older record): the cause from the kernel's mark alone */
	record_explain(&r, &ev, NULL, NULL, NULL, NULL);
	assert_int_equal(r.v.cause, CAUSE_PIN_FSDAX);
	assert_non_null(strstr(r.v.fixes.items[0].text, "copy to and from FILE"));
}

/* a malformed raw.vma_file is refused, never read past */
static void test_raw_vma_file_malformed(void **state)
{
	(void)state;
	const char *bad[] = { "{}", "[1,2]", "[1,2,3]", "[\"a\",2,\"n\"]", "7" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json_object *o = fixture(), *raw, *v = json_tokener_parse(bad[i]);
		struct mrt_event ev;
		char err[256];
		assert_true(json_object_object_get_ex(o, "raw", &raw));
		json_object_object_add(raw, "vma_file", v);
		assert_int_equal(record_raw_from_json(o, &ev, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "raw.vma_file"));
		json_object_put(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_line),
		cmocka_unit_test(test_options_dax),
		cmocka_unit_test(test_mount_line),
		cmocka_unit_test(test_read_alive),
		cmocka_unit_test(test_read_gone),
		cmocka_unit_test(test_gates_only_for_marked_pin),
		cmocka_unit_test(test_verdict_and_round_trip),
		cmocka_unit_test(test_raw_vma_file_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
