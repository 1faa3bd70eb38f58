/* SPDX-License-Identifier: GPL-2.0-only */
/* parse.h - the reader's parts, one source family each (internal to
 * user/logs).  Each takes the line with the launcher's decorations already
 * stripped (decor.c) and returns true when the line is its family's; it
 * then sets ev->kind and what the line names. */
#ifndef MRTRACE_LOGS_PARSE_H
#define MRTRACE_LOGS_PARSE_H

#include "core/strbuf.h" /* str_copy_n: the bounded copy of a part of a line */
#include "logs/logline.h"

/* strips `[1,12]<stdout>:`, `node01: `, timestamps, syslog and kernel
 * stamps, srun's `0: ` in front of s; fills who and when; returns where
 * the content starts.  *kernel: a syslog or journal prefix said `kernel:`
 * or a `[  12.345]` stamp was there */
const char *log_strip(const char *s, const char *end, struct log_event *ev, bool *kernel);

bool log_parse_nccl(const char *s, const char *end, struct log_event *ev);
/* an NCCL message without its prefix (torch's "Last error:" follow-up) */
bool log_parse_nccl_message(const char *s, const char *end, char level, struct log_event *ev);
bool log_parse_framework(const char *s, const char *end, struct log_event *ev);
bool log_parse_ucx(const char *s, const char *end, struct log_event *ev);
bool log_parse_libfabric(const char *s, const char *end, struct log_event *ev);
bool log_parse_rdma_core(const char *s, const char *end, struct log_event *ev);
/* system tools' own failure lines (util-linux fallocate(1)): LOG_SRC_TOOL */
bool log_parse_tools(const char *s, const char *end, struct log_event *ev);
/* force: the prefix said kernel (then any line is a kernel line) */
bool log_parse_kernel(const char *s, const char *end, bool force, struct log_event *ev);
/* a known call (log_op_of_call's) that a line of no known source says
 * failed: "pidfd_getfd: Operation not permitted", "X failed: TEXT" (anycall.c) */
bool log_parse_anycall(const char *s, const char *end, struct log_event *ev);
/* a CUDA memory call a line says failed, with the driver's error: a
 * LOG_CTX_CUDA context line, never an errno (cudacall.c) */
bool log_parse_cuda_call(const char *s, const char *end, struct log_event *ev);
/* builds its table of anchors (log_anycall_prepare calls it) */
void log_cudacall_prepare(void);
/* UCX's own shapes (user/logs/ucx_shapes.tsv, ucxshapes.c): its verbs and
 * mlx5 DEVX failure formats, after the generic "CALL(...) failed: TEXT";
 * and its mlx5 CQE error line "TEXT on DEV:PORT/LL (synd 0x..": a completion
 * error with the status rdma-core's mlx5 provider gives the syndrome */
bool log_parse_ucx_shape(const char *s, const char *end, struct log_event *ev);
bool log_parse_ucx_cqe(const char *s, const char *end, struct log_event *ev);
/* the op of an MLNX_OFED experimental verb UCX names (ibv_exp_reg_mr:
 * OP_REG_MR); OP_NONE for another name */
enum rdma_op log_ucx_call_op(const char *call);
/* a work completion's error status in any program's words (completion.c) */
bool log_parse_completion(const char *s, const char *end, struct log_event *ev);
/* a line that names the job (job.c): srun's, salloc's, slurmstepd's, an
 * echoed SLURM_JOB_ID=; LOG_CONTEXT with ev->job */
bool log_parse_job(const char *s, const char *end, struct log_event *ev);
/* a JSON line; *line (held by *keep, put by the caller) when it is a
 * journald entry whose MESSAGE is to be classified as a line itself */
bool log_parse_json(const char *s, const char *end, struct log_event *ev, int depth,
		    struct json_object **keep, const char **line);

/* the parts' tables, built at their first use; before two threads
 * classify lines (twin.c) they are built here, once */
void log_shapes_prepare(void);
void log_anycall_prepare(void);
void log_bufword_prepare(void);
/* what raw..n says of its buffer: 1 GPU memory, -1 host memory, 0 nothing
 * (bufword.c) */
int log_buffer_word(const char *raw, size_t n);
void log_parts_prepare(void);

/* the whole classification of one stripped-or-not line */
void log_classify(const char *s, const char *end, struct log_event *ev, int depth);

/* helpers */
int log_errno_from_text(const char *s, size_t n); /* strerror text -> errno, 0 */
/* the errno whose strerror text starts S (the longest, ending at a space or
 * punctuation), 0 none: "Cannot allocate memory. Please set ..." -> ENOMEM */
int log_errno_at_start(const char *s, size_t n);
const char *log_find_n(const char *s, const char *end, const char *lit, size_t n);
/* the same, letters in either case ("failed to modify QP to RTR") */
const char *log_find_nocase_n(const char *s, const char *end, const char *lit, size_t n);
/* lit's length is counted where the call is: the parts pass literals, so
 * the compiler counts it and a two-word log_starts is a compare of its
 * own, not two calls (issue 46: the reader at disk speed) */
static inline const char *log_find(const char *s, const char *end, const char *lit)
{
	return log_find_n(s, end, lit, __builtin_strlen(lit));
}
static inline const char *log_find_nocase(const char *s, const char *end, const char *lit)
{
	return log_find_nocase_n(s, end, lit, __builtin_strlen(lit));
}
static inline bool log_starts(const char *s, const char *end, const char *lit)
{
	size_t n = __builtin_strlen(lit);

	return (size_t)(end - s) >= n && !__builtin_memcmp(s, lit, n);
}
long long log_num(const char *s, size_t n, int base); /* bounded strtoll */
/* An errno a line printed as a number (either sign): its magnitude when it
 * is one (1..4095, the kernel's -MAX_ERRNO range), else 0 - "no errno".
 * A number from a line is the line's to choose: err(-2147483648) cast to
 * int and negated stayed negative. */
int log_errno_num(long long v);
enum rdma_op log_op_of_call(const char *call);
/* UCX's md registration "ibv_reg_mr(address=%p, length=%lu, access=0x%x)"
 * at c: its range into ev (has_range); false when not that shape */
bool log_reg_range(const char *c, const char *end, struct log_event *ev);
/* the errno a line prints in any shape errnos.c knows ("errno: 12",
 * "[error code: 14]", "ret=-22", "(-95)", "Unknown error 524", an E-name),
 * the first marker of its table that holds one; 0 none */
int log_errno_scan(const char *s, size_t n);

#endif
