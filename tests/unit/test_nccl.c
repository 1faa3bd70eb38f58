// SPDX-License-Identifier: GPL-2.0-only
/* test_nccl.c - library detection, version scan, settings precedence, rank,
 * lint and the pinned-memory estimate (nccl.h). */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture_path.h"

#include "proc/context.h"
#include "nccl/nccl.h"

static const char *fixture(const char *scenario)
{
	return fixture_path("proc", scenario);
}

static struct proc_context *ctx_of(const char *scenario, int pid)
{
	struct proc_context *c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	assert_int_equal(proc_context_read(fixture(scenario), pid, c), 0);
	return c;
}

static struct nccl_settings *settings_of(const char *scenario, int pid)
{
	struct proc_context *c = ctx_of(scenario, pid);
	struct nccl_settings *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	assert_int_equal(nccl_settings_read(fixture(scenario), pid, &c->env, c->uid, s), 0);
	free(c);
	return s;
}

/* ---- version string ------------------------------------------------------ */

static void test_version_scan_buf(void **state)
{
	(void)state;
	struct nccl_lib l;
	static const char blob[] = "\x7f" "ELF junk NCCL version %s\0NCCL version mismatch\0"
				   "NCCL version 2.21.5 is out\0NCCL version 2.21.5+cuda12.4\0tail";
	memset(&l, 0, sizeof(l));
	assert_int_equal(nccl_version_scan_buf(blob, sizeof(blob) - 1, &l), 0);
	assert_true(l.version_known);
	assert_string_equal(l.version, "2.21.5");
	assert_int_equal(l.major, 2);
	assert_int_equal(l.minor, 21);
	assert_int_equal(l.patch, 5);
	assert_string_equal(l.cuda, "12.4");

	static const char suffixed[] = "NCCL version 2.19.0a0+cuda11.8";
	memset(&l, 0, sizeof(l));
	assert_int_equal(nccl_version_scan_buf(suffixed, sizeof(suffixed) - 1, &l), 0);
	assert_string_equal(l.version, "2.19.0a0");
	assert_string_equal(l.cuda, "11.8");

	static const char none[] = "NCCL version %s\0NCCL version 2.x\0";
	memset(&l, 0, sizeof(l));
	assert_int_equal(nccl_version_scan_buf(none, sizeof(none) - 1, &l), -ENOENT);
	assert_false(l.version_known);
}

static char *tmpfile_with(const void *data, size_t len, const void *pre, size_t prelen)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/mrtrace-nccl-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	if (pre)
		assert_int_equal(write(fd, pre, prelen), (ssize_t)prelen);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

/* The scanner reads 1 MiB windows: a literal split across two windows, and
 * one cut in the middle of its patch number, must both come out whole. */
static void test_version_scan_file_boundary(void **state)
{
	(void)state;
	static const char lit[] = "NCCL version 2.21.15+cuda12.4";
	size_t pre = (1u << 20) - 19;	/* the window ends after "NCCL version 2.21.1" */
	char *junk = malloc(pre);
	assert_non_null(junk);
	memset(junk, 'x', pre);
	char *path = tmpfile_with(lit, sizeof(lit), junk, pre);
	struct nccl_lib l;
	memset(&l, 0, sizeof(l));
	assert_int_equal(nccl_version_scan_file(path, &l), 0);
	assert_string_equal(l.version, "2.21.15");
	assert_string_equal(l.cuda, "12.4");
	unlink(path);

	/* the file ends in the middle of the literal: no version */
	path = tmpfile_with("NCCL version 2.2", 16, junk, 100);
	memset(&l, 0, sizeof(l));
	assert_int_equal(nccl_version_scan_file(path, &l), -ENOENT);
	unlink(path);
	free(junk);

	memset(&l, 0, sizeof(l));
	assert_int_equal(nccl_version_scan_file("/nonexistent/libnccl.so.2", &l), -ENOENT);
}

/* A minimal ELF64: a decoy literal in .data, the real one in .rodata.  Only
 * .rodata may be believed. */
static void test_version_scan_elf_rodata(void **state)
{
	(void)state;
	unsigned char img[1024];
	memset(img, 0, sizeof(img));
	static const char data[] = "NCCL version 9.9.9+cuda9.9";
	static const char rodata[] = "some strings\0NCCL version 2.30.7+cuda13.0";
	static const char shstr[] = "\0.data\0.rodata\0.shstrtab";
	memcpy(img + 64, data, sizeof(data));
	memcpy(img + 128, rodata, sizeof(rodata));
	memcpy(img + 256, shstr, sizeof(shstr));
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shoff = 512;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 4;
	eh->e_shstrndx = 3;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + 512);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_offset = 64, .sh_size = sizeof(data) };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_PROGBITS, .sh_offset = 128, .sh_size = sizeof(rodata) };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = 256, .sh_size = sizeof(shstr) };
	char *path = tmpfile_with(img, 512 + 4 * sizeof(Elf64_Shdr), NULL, 0);
	struct nccl_lib l;
	memset(&l, 0, sizeof(l));
	assert_int_equal(nccl_version_scan_file(path, &l), 0);
	assert_string_equal(l.version, "2.30.7");
	assert_string_equal(l.cuda, "13.0");
	unlink(path);
}

/* ---- the mapped library --------------------------------------------------- */

static void test_lib_docker(void **state)
{
	(void)state;
	struct nccl_lib l;
	assert_int_equal(nccl_lib_detect(fixture("docker"), 4242, &l), 0);
	assert_true(l.found);
	assert_string_equal(l.path, "/usr/local/lib/python3.10/dist-packages/nvidia/nccl/lib/libnccl.so.2");
	assert_true(l.version_known);
	assert_string_equal(l.version, "2.21.5");
	assert_string_equal(l.cuda, "12.4");
	assert_string_equal(l.net_plugin, "/opt/amazon/ofi-nccl/lib/libnccl-net.so");
}

static void test_lib_via_map_files(void **state)
{
	(void)state;
	struct nccl_lib l;
	assert_int_equal(nccl_lib_detect(fixture("k8s_containerd"), 5151, &l), 0);
	assert_true(l.found);
	assert_string_equal(l.version, "2.23.4");
	assert_string_equal(l.cuda, "12.6");
}

static void test_lib_standin_and_absent(void **state)
{
	(void)state;
	struct nccl_lib l;
	assert_int_equal(nccl_lib_detect(fixture("shell"), 3333, &l), 0);
	assert_true(l.found);
	/* " (deleted)" is not part of the path */
	assert_string_equal(l.path, "/home/alice/mrtrace/build/tests/helpers/libnccl_standin");
	assert_string_equal(l.version, "2.21.5");

	assert_int_equal(nccl_lib_detect(fixture("mpirun_sshd"), 6100, &l), 0);
	assert_false(l.found);
	assert_false(l.version_known);

	assert_true(nccl_lib_detect(fixture("mpirun_sshd"), 424242, &l) < 0);
}

/* ---- settings ----------------------------------------------------------- */

static void assert_setting(const struct nccl_settings *s, const char *name, const char *value,
			   enum nccl_source src, const char *origin, bool overridden)
{
	const struct nccl_setting *v = nccl_setting_get(s, name);
	assert_non_null(v);
	assert_string_equal(v->value, value);
	assert_int_equal(v->source, src);
	assert_string_equal(v->origin, origin);
	assert_int_equal(v->overridden, overridden);
}

/* NCCL_CONF_FILE set: it replaces ~/.nccl.conf; env > that file > /etc. */
static void test_settings_conf_file_precedence(void **state)
{
	(void)state;
	struct nccl_settings *s = settings_of("systemd_service", 777);
	assert_true(s->conf_file_read);
	assert_false(s->user_conf_read);
	assert_true(s->system_conf_read);
	assert_setting(s, "NCCL_BUFFSIZE", "67108864", NCCL_SRC_ENV, "", true);
	assert_setting(s, "NCCL_DEBUG", "WARN", NCCL_SRC_CONF_FILE, "/opt/job/nccl.conf", true);
	assert_setting(s, "NCCL_MAX_NCHANNELS", "4", NCCL_SRC_CONF_FILE, "/opt/job/nccl.conf", true);
	assert_setting(s, "NCCL_IB_HCA", "mlx5_0", NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf", false);
	assert_null(nccl_setting_get(s, "NCCL_PROTO"));	/* only in ~/.nccl.conf */
	free(s);
}

/* No NCCL_CONF_FILE: ~/.nccl.conf (home from the container's passwd) wins
 * over /etc, the environment over both; NCCL's line rules apply. */
static void test_settings_user_conf(void **state)
{
	(void)state;
	struct nccl_settings *s = settings_of("shell", 3333);
	assert_true(s->user_conf_read);
	assert_string_equal(s->user_conf, "/home/alice/.nccl.conf");
	assert_setting(s, "NCCL_DEBUG", "WARN", NCCL_SRC_ENV, "", true);
	assert_setting(s, "NCCL_SOCKET_IFNAME", "eth0", NCCL_SRC_USER_CONF, "/home/alice/.nccl.conf", false);
	assert_setting(s, "NCCL_IB_GID_INDEX", "3", NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf", false);
	assert_setting(s, "NCCL_IB_HCA", "mlx5_2\r", NCCL_SRC_USER_CONF, "/home/alice/.nccl.conf", false);
	assert_null(nccl_setting_get(s, "NCCL_PROTO"));		/* commented out */
	assert_null(nccl_setting_get(s, "NCCL_IB_TIMEOUT"));	/* the name is "NCCL_IB_TIMEOUT " */
	assert_int_equal(s->n_bad_names, 1);
	assert_string_equal(s->bad_names[0], "NCCL_IB_TIMEOUT ");
	free(s);

	/* uid unknown: no ~/.nccl.conf, /etc still applies */
	struct nccl_settings *t = calloc(1, sizeof(*t));
	nccl_settings_read(fixture("shell"), 3333, NULL, -1, t);
	assert_false(t->user_conf_read);
	assert_setting(t, "NCCL_DEBUG", "INFO", NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf", false);
	free(t);
}

static void test_settings_line_rules(void **state)
{
	(void)state;
	struct nccl_settings *s = calloc(1, sizeof(*s));
	nccl_settings_apply_conf(s,
				 "#NCCL_DEBUG=INFO\nNCCL_ALGO\nNCCL_COMM_ID=host:1234=x\nCUDA_VISIBLE_DEVICES=0\n"
				 "NCCL_PROTO=\nNCCL_ALGO=Ring\nNCCL_ALGO=Tree",
				 NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf");
	assert_null(nccl_setting_get(s, "NCCL_DEBUG"));
	assert_string_equal(nccl_setting_get(s, "NCCL_COMM_ID")->value, "host:1234=x");
	assert_null(nccl_setting_get(s, "CUDA_VISIBLE_DEVICES"));	/* not NCCL's: not kept */
	assert_string_equal(nccl_setting_get(s, "NCCL_PROTO")->value, "");
	/* setenv(..., 0): the first line of a file wins too */
	assert_string_equal(nccl_setting_get(s, "NCCL_ALGO")->value, "Ring");
	assert_true(nccl_setting_get(s, "NCCL_ALGO")->overridden);
	assert_int_equal(s->n, 3);
	free(s);
}

/* ---- rank ------------------------------------------------------------------ */

static void test_rank(void **state)
{
	(void)state;
	struct nccl_rank r;
	struct proc_context *c = ctx_of("docker", 4242);
	nccl_rank_from_env(&c->env, &r);
	assert_int_equal(r.rank, 3);
	assert_int_equal(r.local_rank, 3);
	assert_int_equal(r.world_size, 16);
	assert_string_equal(r.rank_var, "RANK");
	free(c);

	c = ctx_of("mpirun_sshd", 6100);
	nccl_rank_from_env(&c->env, &r);
	assert_int_equal(r.rank, 9);
	assert_int_equal(r.local_rank, 1);
	assert_int_equal(r.world_size, 16);
	assert_string_equal(r.rank_var, "OMPI_COMM_WORLD_RANK");
	free(c);

	c = ctx_of("slurm_step", 3010);
	nccl_rank_from_env(&c->env, &r);
	assert_int_equal(r.rank, 5);
	assert_int_equal(r.local_rank, 1);
	assert_int_equal(r.world_size, 16);
	assert_string_equal(r.rank_var, "SLURM_PROCID");
	free(c);

	struct ctx_env empty = { 0 };
	nccl_rank_from_env(&empty, &r);
	assert_int_equal(r.rank, -1);
	assert_int_equal(r.local_rank, -1);
	assert_int_equal(r.world_size, -1);
	assert_null(r.rank_var);
}

/* ---- lint ------------------------------------------------------------------ */

static const struct nccl_lint_finding *finding(const struct nccl_lint *l, const char *name,
					       enum nccl_lint_kind kind)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->f[i].name, name) && l->f[i].kind == kind)
			return &l->f[i];
	return NULL;
}

static void test_lint_k8s(void **state)
{
	(void)state;
	struct nccl_settings *s = settings_of("k8s_containerd", 5151);
	struct nccl_lint l;
	nccl_lint_settings(s, &l);
	const struct nccl_lint_finding *f;

	f = finding(&l, "NCCL_IB_DISABLE_GDR", NCCL_LINT_NONEXISTENT);
	assert_non_null(f);
	assert_int_equal(f->severity, NCCL_LINT_WARN);
	assert_string_equal(f->suggestion, "NCCL_NET_GDR_LEVEL=LOC");
	assert_non_null(strstr(f->message, "NOT disabled"));

	f = finding(&l, "NCCL_NCHANNELS", NCCL_LINT_NONEXISTENT);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "NCCL_MAX_NCHANNELS"));

	f = finding(&l, "NCCL_SOCKET_IFNAM", NCCL_LINT_TYPO);
	assert_non_null(f);
	assert_string_equal(f->suggestion, "NCCL_SOCKET_IFNAME");

	f = finding(&l, "NCCL_SOME_PLUGIN_KNOB", NCCL_LINT_UNKNOWN);
	assert_non_null(f);
	assert_int_equal(f->severity, NCCL_LINT_INFO);

	f = finding(&l, "NCCL_BUFFSIZE", NCCL_LINT_VALUE);	/* "8M" */
	assert_non_null(f);
	assert_non_null(strstr(f->message, "means 8"));

	/* NCCL_NET_GDR_LEVEL=LOC is right: nothing said about it */
	assert_null(finding(&l, "NCCL_NET_GDR_LEVEL", NCCL_LINT_VALUE));
	assert_int_equal(l.n, 5);
	free(s);
}

static void test_lint_values(void **state)
{
	(void)state;
	struct nccl_settings *s = settings_of("systemd_service", 777);
	struct nccl_lint l;
	nccl_lint_settings(s, &l);
	const struct nccl_lint_finding *f = finding(&l, "NCCL_BUFFSIZE", NCCL_LINT_VALUE);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "64 MiB"));
	assert_non_null(strstr(f->message, "environment"));
	assert_string_equal(f->suggestion, "NCCL_BUFFSIZE=4194304");
	assert_int_equal(l.n, 1);
	free(s);

	s = settings_of("shell", 3333);
	nccl_lint_settings(s, &l);
	assert_non_null(finding(&l, "NCCL_IB_TIMEOUT ", NCCL_LINT_BAD_NAME));
	f = finding(&l, "NCCL_IB_HCA", NCCL_LINT_VALUE);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "carriage return"));
	assert_non_null(strstr(f->message, "/home/alice/.nccl.conf"));
	assert_int_equal(l.n, 2);
	free(s);

	s = calloc(1, sizeof(*s));
	nccl_settings_apply_conf(s, "NCCL_NET_GDR_LEVEL=OFF\nNCCL_MIN_NCHANNELS=8\nNCCL_MAX_NCHANNELS=4\n"
				 "NCCL_TESTS_SPLIT_MASK=0x7\nNCCL_IB_DISABLE=1\nNCCL_DEBUG=INFO\n",
				 NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf");
	nccl_lint_settings(s, &l);
	assert_non_null(finding(&l, "NCCL_NET_GDR_LEVEL", NCCL_LINT_VALUE));
	assert_non_null(finding(&l, "NCCL_MIN_NCHANNELS", NCCL_LINT_VALUE));
	assert_non_null(finding(&l, "NCCL_IB_DISABLE", NCCL_LINT_VALUE));
	assert_null(finding(&l, "NCCL_TESTS_SPLIT_MASK", NCCL_LINT_UNKNOWN));	/* nccl-tests' own */
	assert_int_equal(l.n, 3);
	free(s);

	assert_true(nccl_var_known("NCCL_NET_GDR_LEVEL"));
	assert_false(nccl_var_known("NCCL_IB_DISABLE_GDR"));
	assert_string_equal(nccl_lint_kind_name(NCCL_LINT_NONEXISTENT), "nonexistent_variable");
}

/* ---- estimate ------------------------------------------------------------- */

static void test_estimate_defaults(void **state)
{
	(void)state;
	struct nccl_estimate e;
	nccl_estimate(NULL, NULL, &e);
	assert_true(e.ll_bytes == 524288);
	assert_true(e.ll128_bytes == 4915200);
	assert_true(e.simple_bytes == 4194304);
	assert_true(e.per_conn_host_no_gdr == 9633792);	/* ~9.2 MiB */
	assert_int_equal(e.channels, 2);
	assert_int_equal(e.sends, 1);
	assert_int_equal(e.recvs, 1);
	assert_int_equal(e.gdr, NCCL_GDR_UNKNOWN);
	assert_true(e.host_no_gdr == 4ULL * 9633792);
	assert_true(e.host_with_gdr == 4ULL * 524288);
	assert_true(e.host_min == e.host_with_gdr);
	assert_true(e.host_max == e.host_no_gdr);
	assert_non_null(strstr(e.assumptions, "assumed"));
}

static void test_estimate_settings(void **state)
{
	(void)state;
	struct nccl_estimate e;
	/* k8s: GDR off (LOC) and NCCL_BUFFSIZE=8M, which NCCL reads as 8 bytes */
	struct nccl_settings *s = settings_of("k8s_containerd", 5151);
	nccl_estimate(s, NULL, &e);
	assert_int_equal(e.gdr, NCCL_GDR_OFF);
	assert_true(e.simple_bytes == 8);
	assert_true(e.host_min == e.host_max);
	assert_true(e.host_max == 4ULL * (524288 + 4915200 + 8));
	free(s);

	s = calloc(1, sizeof(*s));
	nccl_settings_apply_conf(s, "NCCL_BUFFSIZE=1048576\nNCCL_MIN_NCHANNELS=8\nNCCL_NET_GDR_READ=0\n",
				 NCCL_SRC_ENV, "");
	nccl_estimate(s, NULL, &e);
	assert_int_equal(e.channels, 8);
	uint64_t conn = 524288 + 4915200 + 1048576;
	assert_true(e.host_no_gdr == 8 * 2 * conn);
	/* GDR read off: send buffers stay in host memory even with GDR */
	assert_true(e.host_with_gdr == 8 * (conn + 524288));
	free(s);

	s = calloc(1, sizeof(*s));
	nccl_settings_apply_conf(s, "NCCL_MAX_NCHANNELS=1\n", NCCL_SRC_ENV, "");
	struct nccl_estimate_params p = { .sends = 2, .recvs = 3, .nics = 2 };
	nccl_estimate(s, &p, &e);
	assert_int_equal(e.channels, 1);
	assert_true(e.host_no_gdr == 1ULL * 2 * 5 * 9633792);
	p.channels = 16;	/* observed by the caller: settings no longer clamp it */
	nccl_estimate(s, &p, &e);
	assert_int_equal(e.channels, 16);
	assert_null(strstr(e.assumptions, "assumed"));
	free(s);
}

/* ---- all together --------------------------------------------------------- */

static void test_info_docker(void **state)
{
	(void)state;
	struct proc_context *c = ctx_of("docker", 4242);
	struct nccl_info *n = calloc(1, sizeof(*n));
	assert_int_equal(nccl_info_read(fixture("docker"), c, n), 0);
	assert_string_equal(n->lib.version, "2.21.5");
	assert_setting(&n->settings, "NCCL_DEBUG", "INFO", NCCL_SRC_ENV, "", false);
	assert_setting(&n->settings, "NCCL_IB_HCA", "mlx5_0,mlx5_1", NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf",
		       false);
	assert_int_equal(n->rank.rank, 3);
	assert_true(n->estimate.host_max == 4ULL * 9633792);
	free(n);
	free(c);
}

/* The service's NCCL is 2.18.3, which predates NCCL_CONF_FILE (2.23): it
 * reads ~/.nccl.conf instead, and the lint says so. */
static void test_conf_file_old_nccl(void **state)
{
	(void)state;
	struct proc_context *c = ctx_of("systemd_service", 777);
	struct nccl_info *n = calloc(1, sizeof(*n));
	assert_int_equal(nccl_info_read(fixture("systemd_service"), c, n), 0);
	assert_string_equal(n->lib.version, "2.18.3");
	const struct nccl_settings *s = &n->settings;
	assert_true(s->conf_file_ignored);
	assert_false(s->conf_file_read);
	assert_true(s->user_conf_read);
	assert_setting(s, "NCCL_PROTO", "Simple", NCCL_SRC_USER_CONF, "/var/lib/trainer/.nccl.conf", false);
	assert_setting(s, "NCCL_DEBUG", "INFO", NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf", false);
	assert_setting(s, "NCCL_MAX_NCHANNELS", "8", NCCL_SRC_SYSTEM_CONF, "/etc/nccl.conf", false);
	const struct nccl_lint_finding *f = finding(&n->lint, "NCCL_CONF_FILE", NCCL_LINT_VALUE);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "2.18.3"));
	free(n);
	free(c);
}

/* Rootless podman: host uid 1000 is root inside; ~/.nccl.conf is /root's. */
static void test_info_rootless_home(void **state)
{
	(void)state;
	struct proc_context *c = ctx_of("rootless_podman", 9001);
	struct nccl_info *n = calloc(1, sizeof(*n));
	assert_int_equal(nccl_info_read(fixture("rootless_podman"), c, n), 0);
	assert_true(n->settings.user_conf_read);
	assert_setting(&n->settings, "NCCL_SOCKET_IFNAME", "tap0", NCCL_SRC_USER_CONF, "/root/.nccl.conf", false);
	assert_false(n->lib.found);
	assert_int_equal(n->rank.rank, 0);
	free(n);
	free(c);
}

/* The marker files each NCCL release tests (nccl/gdrmarkers.c, from the
 * tags of NVIDIA/nccl): nvidia_peermem's module file only from 2.23.4 */
static unsigned markers_of(const char *version)
{
	struct nccl_lib lib;
	memset(&lib, 0, sizeof(lib));
	lib.version_known = sscanf(version, "%d.%d.%d", &lib.major, &lib.minor, &lib.patch) == 3;
	return nccl_peer_markers(&lib);
}

static void test_peer_markers_by_version(void **state)
{
	(void)state;
	assert_int_equal(markers_of("2.8.4"), NCCL_PEER_NV_MEM);
	assert_int_equal(markers_of("2.9.6"), NCCL_PEER_NV_MEM);
	assert_int_equal(markers_of("2.9.8"), NCCL_PEER_NV_MEM | NCCL_PEER_NVIDIA_PEERMEM_DIR);
	assert_int_equal(markers_of("2.21.5"), NCCL_PEER_NV_MEM | NCCL_PEER_NVIDIA_PEERMEM_DIR);
	assert_int_equal(markers_of("2.22.3"), NCCL_PEER_NV_MEM | NCCL_PEER_NV_MEM_NC);
	assert_int_equal(markers_of("2.23.4"), NCCL_PEER_NV_MEM | NCCL_PEER_NV_MEM_NC | NCCL_PEER_MODULE);
	assert_int_equal(markers_of("2.28.9"), NCCL_PEER_NV_MEM | NCCL_PEER_NV_MEM_NC | NCCL_PEER_MODULE);
	assert_int_equal(markers_of("3.0.0"), NCCL_PEER_NV_MEM | NCCL_PEER_NV_MEM_NC | NCCL_PEER_MODULE);
	assert_int_equal(markers_of("unknown"), 0);
	assert_int_equal(nccl_peer_markers(NULL), 0);
	assert_string_equal(nccl_peer_marker_path(NCCL_PEER_MODULE), "/sys/module/nvidia_peermem/version");
	assert_string_equal(nccl_peer_marker_path(NCCL_PEER_NV_MEM), "/sys/kernel/mm/memory_peers/nv_mem/version");
	assert_string_equal(nccl_peer_marker_path(0), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_scan_buf),
		cmocka_unit_test(test_version_scan_file_boundary),
		cmocka_unit_test(test_version_scan_elf_rodata),
		cmocka_unit_test(test_lib_docker),
		cmocka_unit_test(test_lib_via_map_files),
		cmocka_unit_test(test_lib_standin_and_absent),
		cmocka_unit_test(test_settings_conf_file_precedence),
		cmocka_unit_test(test_settings_user_conf),
		cmocka_unit_test(test_settings_line_rules),
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_lint_k8s),
		cmocka_unit_test(test_lint_values),
		cmocka_unit_test(test_estimate_defaults),
		cmocka_unit_test(test_estimate_settings),
		cmocka_unit_test(test_info_docker),
		cmocka_unit_test(test_info_rootless_home),
		cmocka_unit_test(test_conf_file_old_nccl),
		cmocka_unit_test(test_peer_markers_by_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
