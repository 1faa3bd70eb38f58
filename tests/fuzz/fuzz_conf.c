// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_conf.c - libFuzzer harness: the configuration parsers a job or a node
 * feeds mrtrace: NCCL conf files and the lint, limits.conf, systemd limit
 * values, /proc/PID/status credentials, mrtrace's own configuration file,
 * sizes, pids and durations. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/areas.h"
#include "core/args.h"
#include "core/config.h"
#include "core/escape.h"
#include "core/fscreds.h"
#include "core/units.h"
#include "nccl/nccl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	static struct nccl_settings s;
	static struct nccl_lint l;
	memset(&s, 0, sizeof(s));
	nccl_settings_apply_conf(&s, text, NCCL_SRC_CONF_FILE, "/fuzz/nccl.conf");
	nccl_lint_settings(&s, &l);
	struct nccl_estimate e;
	nccl_estimate(&s, NULL, &e);

	static struct chk_limits_entry le[64];
	chk_parse_limits_conf(text, "/fuzz/limits.conf", le, 64);
	uint64_t a, b;
	chk_parse_systemd_limit(text, &a, &b);
	parse_bytes(text, &a);
	unsigned long long ull;
	cfg_parse_bytes(text, &ull);
	struct mrt_config cfg = { 0 };
	char cerr[256];
	cfg_parse_text(text, "/fuzz/mrtrace.conf", &cfg, cerr, sizeof(cerr));
	cfg_free(&cfg);
	int pid;
	double secs;
	args_pid(text, &pid);
	args_seconds(text, &secs);

	struct fscreds c;
	if (!fscreds_parse_status(text, &c))
		fscreds_free(&c);

	char esc_buf[64];
	esc_text(text, esc_buf, sizeof(esc_buf));
	char *j = json_utf8_fix(text);
	free(j);
	free(text);
	return 0;
}
