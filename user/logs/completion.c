// SPDX-License-Identifier: GPL-2.0-only
/* completion.c - a work completion's error status in any program's words:
 * UCX's rc_verbs/dc_verbs "send completion with error: local protection
 * error", "Send completion with error on qp 0x226c3: transport retry counter
 * exceeded syndrome 0x81", rdma-core's pingpong examples "Failed status
 * transport retry counter exceeded (12) for wr_id 2".  The status texts are
 * libibverbs' ibv_wc_status_str() strings with their numbers, read from
 * rdma-core's sources (user/logs/calls.tsv, tools/call-names.py): a line is
 * a completion error when it says so and names one of them.  No kernel
 * refusal is behind it (LOG_NC_COMPLETION): the judge reads the status. */
#include "logs/parse.h"

#include <string.h>

static const struct {
	const char *text;
	int status;
	const char *name; /* "IBV_WC_RETRY_EXC_ERR", as NCCL 2.28+ prints it */
} wc_statuses[] = {
#define LOG_CALL(c, o)
#define LOG_WC_STATUS(t, n, sym) { t, n, sym },
#include "log_calls.h"
#undef LOG_CALL
#undef LOG_WC_STATUS
};

/* the words that say a completion failed, in either case */
static const char *const completion_words[] = { "completion with error", "failed status ",
						"completion error" };

bool log_parse_completion(const char *s, const char *end, struct log_event *ev)
{
	const char *w = NULL;

	for (size_t i = 0; !w && i < sizeof(completion_words) / sizeof(completion_words[0]); i++)
		w = log_find_nocase(s, end, completion_words[i]);
	if (!w)
		return false;
	/* the longest text that stands after the words: "remote invalid RD
	 * request" holds none of the others, but "fatal error" must not win
	 * over a longer text that holds it */
	size_t best = 0;
	int status = -1;
	const char *name = NULL;
	for (size_t i = 0; i < sizeof(wc_statuses) / sizeof(wc_statuses[0]); i++) {
		size_t n = strlen(wc_statuses[i].text);
		if (wc_statuses[i].status == 0 || n <= best || !log_find_nocase(w, end, wc_statuses[i].text))
			continue;
		best = n, status = wc_statuses[i].status, name = wc_statuses[i].name;
	}
	if (status < 0)
		return false;
	ev->kind = LOG_FAILURE_NOCALL;
	ev->nocall = LOG_NC_COMPLETION;
	ev->wc.status = status;
	str_copy_n(ev->wc.status_name, sizeof(ev->wc.status_name), name, strlen(name));
	return true;
}
