// SPDX-License-Identifier: GPL-2.0-only
/* bufword.c - what a line says of the buffer it registers (UCX's
 * "mem_type cuda", an application's "GPU memory", the allocator it names):
 * where the pin of an EFAULT went, for explain's judge (user/explain/logs.c
 * reads ev->buf_word).  Phrases, never "cuda" alone: a line may carry a
 * CUDA library's path whatever its buffer is.  The host's first: a line
 * that says "host memory" means it, whatever else it names.  In either
 * case.  Read with the line's classification, so that it runs where the
 * classification runs (in the reader's second thread, twin.c), not once
 * more per event in the judge. */
#include "logs/parse.h"
#include "logs/prefilter.h"

#include <string.h>

static const struct {
	const char *needle;
	bool gpu;
} words[] = {
	{ "host memory", false },   { "mem_type host", false },  { "memory type host", false },
	{ "GPU memory", true },     { "device memory", true },   { "cuda memory", true },
	{ "mem_type cuda", true },  { "memory type cuda", true }, { "cudaMalloc", true },
	{ "cuMemAlloc", true },     { "use_cuda", true },
	/* perftest's "allocated GPU buffer of a N address at 0x.. for type
	 * CUDA_MEM_DEVICE" (its cuMemAlloc line is gone in newer releases) */
	{ "GPU buffer", true },
	/* gpu_direct_rdma_access's "Couldn't register GPU MR" */
	{ "GPU MR", true },
};

static struct log_anchors anchors = { .nocase = true };

void log_bufword_prepare(void)
{
	if (anchors.built)
		return;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		log_anchors_add(&anchors, words[i].needle, strlen(words[i].needle));
	log_anchors_build(&anchors);
}

/* one scan of the line for all the phrases (their anchors, prefilter.c,
 * in either case) before the searches that find which one, in the
 * table's order (NCCL's INFO chatter holds none of them: "cudaDev" is no
 * phrase) */
int log_buffer_word(const char *raw, size_t n)
{
	log_bufword_prepare();
	if (!log_anchors_any(&anchors, raw, raw + n))
		return 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (log_find_nocase(raw, raw + n, words[i].needle))
			return words[i].gpu ? 1 : -1;
	return 0;
}
