// SPDX-License-Identifier: GPL-2.0-only
/* test_escape.c - nothing raw reaches a terminal or a JSON reader: a comm,
 * cmdline, path or NCCL_* value holding ESC [2J, a newline, a C1 control, a
 * bidi override or invalid UTF-8 comes out escaped in every text output
 * (watch's explanation, check, diff), and check's JSON is valid UTF-8. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "core/escape.h"
#include "diff/diff.h"
#include "record/record.h"

#define HOSTILE "a\x1b[2J\x1b]0;owned\x07" "b\nforged: line\r\xc2\x9b" "31m\xe2\x80\xae" "cod\xff\xfe"

/* No control byte but '\n' (the output's own lines), no C1 or bidi
 * override, and valid UTF-8 throughout. */
static void assert_clean(const char *what, const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		int l = utf8_seq(p + i, len - i);
		if (l <= 0)
			fail_msg("%s: invalid UTF-8 byte 0x%02x at %zu: ...%.40s", what, p[i], i,
				 text + (i > 20 ? i - 20 : 0));
		if (l == 1 && ((p[i] < 0x20 && p[i] != '\n') || p[i] == 0x7f))
			fail_msg("%s: raw control byte 0x%02x at %zu: ...%.40s", what, p[i], i,
				 text + (i > 20 ? i - 20 : 0));
		if (l == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)
			fail_msg("%s: raw C1 control at %zu", what, i);
		if (l == 3 && p[i] == 0xe2 && p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae)
			fail_msg("%s: raw bidi override at %zu", what, i);
		i += (size_t)l;
	}
	/* the forged line must not start a line of its own */
	if (strstr(text, "\nforged: line"))
		fail_msg("%s: a value's newline started a new output line", what);
}

static void test_escape_function(void **state)
{
	(void)state;
	char b[128];
	assert_string_equal(esc_text("x\x1b[2Jy", b, sizeof(b)), "x\\e[2Jy");
	assert_string_equal(esc_text("a\nb\tc\rd", b, sizeof(b)), "a\\nb\\tc\\rd");
	assert_string_equal(esc_text("\x01\x7f", b, sizeof(b)), "\\x01\\x7f");
	assert_string_equal(esc_text("caf\xc3\xa9 \xe2\x82\xac", b, sizeof(b)), "caf\xc3\xa9 \xe2\x82\xac");
	assert_string_equal(esc_text("\xc2\x9b" "1m", b, sizeof(b)), "\\x9b1m");
	assert_string_equal(esc_text("\xe2\x80\xae" "txt", b, sizeof(b)), "\\u202etxt");
	assert_string_equal(esc_text("bad\xff\xc0\x80", b, sizeof(b)), "bad\\xff\\xc0\\x80");
	assert_string_equal(esc_text("\xed\xa0\x80", b, sizeof(b)), "\\xed\\xa0\\x80"); /* surrogate */
	assert_string_equal(esc_text("cut\xe2\x82", b, sizeof(b)), "cut\\xe2\\x82");
	assert_string_equal(esc_text("back\\slash", b, sizeof(b)), "back\\slash");
	/* too long: cut on a character, marked */
	assert_string_equal(esc_text("0123456789", b, 8), "0123...");
	assert_string_equal(esc_text("\x1b\x1b\x1b", b, 6), "\\e...");
	assert_string_equal(esc(HOSTILE), "a\\e[2J\\e]0;owned\\x07b\\nforged: line\\r\\x9b31m"
					  "\\u202ecod\\xff\\xfe");
	/* JSON: invalid bytes only; valid multi-byte text kept */
	char *j = json_utf8_fix("{\"v\":\"caf\xc3\xa9\xff\xe2\x82\"}");
	assert_string_equal(j, "{\"v\":\"caf\xc3\xa9\\\\xff\\\\xe2\\\\x82\"}");
	free(j);
}

static void test_watch_text(void **state)
{
	(void)state;
	static struct report r;
	static struct mrt_event ev;
	memset(&r, 0, sizeof(r));
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRT_EV_MLOCK_FAILURE;
	ev.pid = 42;
	snprintf(ev.comm, sizeof(ev.comm), "x\x1b[2Jy\nz");
	r.ev = &ev;
	r.api = "mlock";
	static struct proc_context ctx;
	static struct nccl_info nccl;
	proc_context_init(&ctx, 42);
	ctx.have = CTX_HAVE_CMDLINE | CTX_HAVE_CGROUP;
	snprintf(ctx.cmdline, sizeof(ctx.cmdline), "%s", HOSTILE);
	snprintf(ctx.systemd_unit, sizeof(ctx.systemd_unit), "%s", HOSTILE);
	snprintf(ctx.container_id, sizeof(ctx.container_id), "\x1b[2J");
	r.ctx = &ctx;
	memset(&nccl, 0, sizeof(nccl));
	nccl.lib.found = true;
	nccl.lib.version_known = true;
	snprintf(nccl.lib.version, sizeof(nccl.lib.version), "2.21\x1b[5m");
	nccl.rank.rank = -1;
	nccl.settings.n = 1;
	snprintf(nccl.settings.v[0].name, sizeof(nccl.settings.v[0].name), "NCCL_X\x1b");
	snprintf(nccl.settings.v[0].value, sizeof(nccl.settings.v[0].value), "%s", HOSTILE);
	nccl.lint.n = 1;
	snprintf(nccl.lint.f[0].message, sizeof(nccl.lint.f[0].message), "NCCL_X=%s", HOSTILE);
	r.nccl = &nccl;
	r.v.fixes.n = 1;
	snprintf(r.v.fixes.items[0].text, sizeof(r.v.fixes.items[0].text), "edit %s", HOSTILE);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	report_print_text(f, &r, true);
	fclose(f);
	assert_clean("watch text", text, len);
	assert_non_null(strstr(text, "x\\e[2Jy\\nz"));
	free(text);
}

static void test_check_text_and_json(void **state)
{
	(void)state;
	struct chk_report r;
	struct chk_options o = { .root = fixture_path("check", "h100"), .pid = 0 };
	assert_int_equal(chk_run(&o, &r), 0);
	/* as if the node's hostname and a setting were hostile */
	snprintf(r.hostname, sizeof(r.hostname), "%s", HOSTILE);
	snprintf(r.items[0].value, sizeof(r.items[0].value), "%s", HOSTILE);
	snprintf(r.items[0].note, sizeof(r.items[0].note), "%s", HOSTILE);
	r.items[0].verdict = CHK_WARN;
	json_object *h;
	assert_true(json_object_object_get_ex(r.doc, "host", &h));
	json_object_object_add(h, "hostname", json_object_new_string(HOSTILE));
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	chk_print_text(&r, f);
	fclose(f);
	assert_clean("check text", text, len);
	free(text);
	const char *js = chk_json_string(&r);
	/* JSON has its own escapes for controls; only UTF-8 is at stake */
	for (size_t i = 0, n = strlen(js); i < n;) {
		int l = utf8_seq((const unsigned char *)js + i, n - i);
		if (l <= 0)
			fail_msg("check --json: invalid UTF-8 at byte %zu", i);
		i += (size_t)l;
	}
	json_object *back = json_tokener_parse(js);
	assert_non_null(back);
	json_object_put(back);
	chk_report_free(&r);
}

static void test_diff_text(void **state)
{
	(void)state;
	char dir[] = "/tmp/mrtrace-esc-XXXXXX", a[64], b[64];
	assert_non_null(mkdtemp(dir));
	const char *hosts[2] = { "node\x1b[2J\xff", "node-b" };
	const char *paths[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		struct chk_report r;
		struct chk_options o = { .root = fixture_path("check", i ? "portdown" : "h100") };
		assert_int_equal(chk_run(&o, &r), 0);
		json_object *d = json_tokener_parse(chk_json_string(&r)), *h;
		chk_report_free(&r);
		assert_true(json_object_object_get_ex(d, "host", &h));
		json_object_object_add(h, "hostname", json_object_new_string(hosts[i]));
		snprintf((char *)paths[i], 64, "%s/%d.json", dir, i);
		assert_int_equal(json_object_to_file_ext(paths[i], d, JSON_C_TO_STRING_PLAIN), 0);
		json_object_put(d);
	}
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(diff_files(2, paths, f, NULL, err, sizeof(err)), 1);
	fclose(f);
	assert_clean("diff text", text, len);
	free(text);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_function),
		cmocka_unit_test(test_watch_text),
		cmocka_unit_test(test_check_text_and_json),
		cmocka_unit_test(test_diff_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
