/* SPDX-License-Identifier: GPL-2.0-only */
/* logline.h - the logs a user already has, one line at a time (issue 32).
 *
 * A dead job leaves its output: an NCCL_DEBUG=INFO log (with or without the
 * `host:pid:tid [dev]` prefix, behind `[1,12]<stdout>:`, `node01: `, srun's
 * `0: ` or a timestamp), the framework line that wraps it (ncclSystemError,
 * `unhandled system error`, torch's DistBackendError), UCX, libfabric,
 * aws-ofi-nccl and rdma-core lines, the kernel log (dmesg, journalctl -k,
 * journalctl -o json) and mrtrace's own records.  The reader says, for every
 * line, which of these it is and what it names, detected by content: one
 * file may mix them all.  It explains nothing: user/explain does, from the
 * events (the call, the errno or the lack of one, the NCCL releases that
 * print the line that way, this line's rank and host).
 *
 * Memory is bounded whatever the input: a line is cut at LOG_LINE_MAX (the
 * rest is read and counted, not kept), a stream may be any size.  `.gz`
 * inputs are read transparently (by their magic, not their name).  Every
 * line lands in exactly one bucket of struct log_counts. */
#ifndef MRTRACE_LOGS_LOGLINE_H
#define MRTRACE_LOGS_LOGLINE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/ops.h"

/* the longest line kept whole; longer ones are matched on their start */
#define LOG_LINE_MAX 8192
/* how much of a line an event keeps for the printer (escaped there) */
#define LOG_RAW_MAX 200

enum log_kind {
	LOG_NOT_FAILURE = 0, /* recognised, nothing failed (INFO chatter, a blank line) */
	LOG_UNRECOGNISED, /* no source and shape known: counted, first kept */
	LOG_CONTEXT, /* says something about the job: ctx says what */
	LOG_FAILURE_CALL, /* a call that failed, one the kernel can refuse: call, op, errno */
	LOG_FAILURE_NOCALL, /* a failure no refusing kernel call explains: nocall says what */
	LOG_FAILURE_SUMMARY, /* a wrapper's summary (ncclSystemError, NCCL error in: ...): result */
	LOG_RECORD, /* an mrtrace JSON record or journald MRTRACE_* entry: json */
};

enum log_source {
	LOG_SRC_UNKNOWN = 0,
	LOG_SRC_NCCL, /* NCCL's own WARN/INFO lines */
	LOG_SRC_FRAMEWORK, /* PyTorch and other wrappers of NCCL's result */
	LOG_SRC_UCX,
	LOG_SRC_LIBFABRIC,
	LOG_SRC_OFI_NCCL, /* aws-ofi-nccl, NET/OFI */
	LOG_SRC_RDMA_CORE, /* libibverbs, the providers, perftest's messages */
	LOG_SRC_KERNEL, /* dmesg, journalctl -k, journald's _TRANSPORT=kernel */
	LOG_SRC_MRTRACE, /* a record mrtrace watch --json wrote */
	LOG_SRC_JOURNALD, /* a journalctl -o json entry with MRTRACE_* fields */
	LOG_SRC_TOOL, /* a system tool's own failure line: util-linux fallocate(1) */
};

/* LOG_FAILURE_NOCALL: why no kernel refusal explains it */
enum log_nocall {
	LOG_NC_NONE = 0,
	LOG_NC_COMPLETION, /* a work completion with an error status: wc */
	LOG_NC_ASYNC, /* an async event (port error, GID change, fatal): async_event */
	LOG_NC_CUDA, /* Cuda failure '...': cuda_error */
	LOG_NC_GDR_DISABLED, /* INFO `GPU Direct RDMA Disabled for HCA`: device */
	LOG_NC_USERSPACE_READ, /* NCCL read a file itself and failed (RoCE GID type) */
	LOG_NC_KERNEL_EVENT, /* a kernel-log event: health, port down, fatal error */
};

/* LOG_CONTEXT: which fact the line gives */
enum log_ctx {
	LOG_CTX_NONE = 0,
	LOG_CTX_NCCL_VERSION, /* `NCCL version 2.18.3+cuda12.2`: nccl_version */
	LOG_CTX_SETTING, /* `NCCL_X set by environment to Y`: setting_name/value */
	LOG_CTX_RANK, /* `comm 0x.. rank R nranks N cudaDev D ... commId 0x..`: comm */
	LOG_CTX_HOST, /* a line that only names the host (Bootstrap, hostname) */
	LOG_CTX_RETURN, /* NCCL's `file.cc:LINE -> N` trail of a failure: result_code */
	LOG_CTX_JOB, /* a line that names the job (srun: job 12345 ..., slurmstepd's *** JOB ...): job */
	/* a CUDA memory call that failed (`cuMemGetHandleForAddressRange failed:
	 * CUDA_ERROR_NOT_SUPPORTED`): call, cuda_error (the driver's error, never
	 * an errno: user/logs/cudacall.c) */
	LOG_CTX_CUDA,
};

/* How a matched NCCL shape carries the error (user/logs/nccl_shapes.tsv) */
enum log_errno_how {
	LOG_ERRNO_NONE = 0, /* the line carries no errno: the release printed none */
	LOG_ERRNO_STRERROR, /* strerror text ("Cannot allocate memory") */
	LOG_ERRNO_NUMBER, /* an errno number (%d) */
	LOG_ERRNO_RC, /* a return code of the call (may be -errno or a status) */
};

/* One row of the table of NCCL line shapes, compiled in from
 * user/logs/nccl_shapes.tsv (tools/nccl-shapes.py writes it from NCCL's
 * sources, per release tag). */
struct log_shape {
	const char *id; /* stable name: "ibvwrap.reg_mr_iova2.err" */
	const char *fmt; /* NCCL's printf format as in its source */
	const char *first_tag, *last_tag; /* releases printing it ("v2.13.4-1") */
	const char *call; /* "ibv_reg_mr_iova2", or NULL */
	enum rdma_op op; /* core/ops.h (docs/json.md's ops): OP_REG_MR, OP_CREATE_QP ... */
	enum log_errno_how how;
	enum log_kind kind; /* FAILURE_CALL / FAILURE_NOCALL / CONTEXT ... */
	enum log_nocall nocall;
	char level; /* 'W' (WARN), 'I' (INFO), 'D' (a detail printed inside another: %s) */
	const char *fields; /* what each conversion names: "device,port,err_text,-" */
};

struct log_event {
	enum log_kind kind;
	enum log_source source;
	enum log_nocall nocall;
	enum log_ctx ctx;

	/* where: the input's name (as opened) and its line (from 1) */
	const char *input;
	long lineno;

	/* who: from NCCL's prefix, the launcher's decoration, a syslog prefix */
	char host[64]; /* "" when unknown */
	int pid, tid; /* 0 when unknown */
	int cuda_dev; /* -1 when unknown */
	int rank; /* the launcher's tag ([1,12]<stdout>: -> 12, srun `12: `), -1 none */
	/* the job, as `explain --jobs` names it ("slurm job 12345"): from the
	 * line (LOG_CTX_JOB, journald's SLURM_JOB_ID or _SYSTEMD_CGROUP's
	 * job_N, _SYSTEMD_UNIT), else the last one the input named, else the
	 * input's name (slurm-12345.out); "" unknown (user/logs/job.c) */
	char job[40];
	bool has_time; /* time_ns is wall-clock UTC */
	int64_t time_ns;
	bool has_boot_time; /* boot_ns: a kernel `[  12.345678]` stamp */
	int64_t boot_ns;

	/* NCCL's own place: misc/ibvwrap.cc:187 */
	char src_file[48];
	int src_line;
	bool nccl_warn; /* NCCL WARN (else INFO) */

	/* what failed */
	const struct log_shape *shape; /* the NCCL shape that matched, or NULL */
	char call[40]; /* "ibv_reg_mr_iova2", "ibv_create_qp", "posix_fallocate" */
	enum rdma_op op; /* core/ops.h, the records' and the verdicts' ops
			  * (docs/json.md): OP_REG_MR, OP_CREATE_QP, ...; OP_NONE */
	char device[32]; /* "mlx5_0" when the line names it */
	int port; /* -1 when not named */
	int err; /* positive errno, 0 when the line carries none */
	bool no_errno; /* the line carries no errno (see shape's release range) */
	char err_text[64]; /* the strerror text as printed */
	bool has_rc;
	long rc; /* a return code as printed (aws-ofi-nccl's RC, ibv_* return) */
	char result[40]; /* ncclSystemError, ncclUnhandledCudaError ... */
	int result_code; /* NCCL's ncclResult_t number when printed (-> 2), else -1 */

	/* a registration's numbers (UCX, aws-ofi-nccl) */
	uint64_t addr, length;
	unsigned access;
	bool has_range;
	/* the process's RLIMIT_MEMLOCK as the line states it (UCX's "(current:
	 * 64 kbytes)", libibverbs' "RLIMIT_MEMLOCK is 65536 bytes"):
	 * UINT64_MAX unlimited */
	bool has_memlock;
	uint64_t memlock;

	/* modify_qp (2.24+ prints these) */
	struct {
		char cur_state[16], next_state[16];
		int gid_index; /* -1 when not printed */
		char local_gid[48], remote_gid[48];
	} qp;

	/* a completion error */
	struct {
		int status; /* -1 when not printed */
		char status_name[40]; /* 2.28+: "IBV_WC_RETRY_EXC_ERR" */
		int opcode; /* -1 */
		char opcode_name[32];
		long vendor_err; /* -1 */
		long len; /* -1 */
		char peer[64];
		char req_type[16];
		char hca[32];
	} wc;

	/* an async event */
	char async_event[48];
	int async_code; /* -1 */

	/* shared memory (and the UDS path) */
	char shm_path[128];
	uint64_t shm_size;

	/* mlx5 firmware command failures in the kernel log */
	struct {
		char cmd[24]; /* "CREATE_MKEY" */
		unsigned opcode, op_mod; /* 0x200, 0x0 */
		char status[40]; /* "limits exceeded" */
		unsigned status_code; /* 0x8 */
		unsigned syndrome;
		int err; /* err(-12) -> -12 */
		char pci[24]; /* mlx5_core 0000:08:00.0 */
	} mlx5;

	char cuda_error[96];

	/* context */
	char nccl_version[24]; /* on LOG_CTX_NCCL_VERSION; else the last one this input showed */
	char setting_name[48], setting_value[128];
	struct {
		uint64_t id; /* comm 0x... */
		int rank, nranks; /* -1 */
		char comm_id[24]; /* commId 0x... */
	} comm;

	/* LOG_RECORD: a reference the reader drops at the next call and at
	 * log_reader_free; take json_object_get() to keep it */
	struct json_object *json;

	/* the line as read (after nothing is stripped), its first LOG_RAW_MAX
	 * bytes, unescaped: may hold any byte but NUL */
	char raw[LOG_RAW_MAX + 1];
	bool raw_cut; /* the line was longer */
	/* what raw says of the buffer (bufword.c): 1 GPU memory ("GPU
	 * memory", "mem_type cuda", "cuMemAlloc" ...), -1 host memory, 0 none */
	signed char buf_word;
};

/* Every line of one input, in exactly one bucket:
 * lines == failures + not_failures + unrecognised + records */
struct log_counts {
	uint64_t lines, bytes;
	uint64_t failures; /* FAILURE_CALL, FAILURE_NOCALL, FAILURE_SUMMARY */
	uint64_t not_failures; /* NOT_FAILURE and CONTEXT */
	uint64_t context; /* of not_failures, the CONTEXT lines */
	uint64_t unrecognised;
	uint64_t records;
	uint64_t cut_lines; /* longer than LOG_LINE_MAX */
	uint64_t nul_lines; /* held a NUL byte */
	long first_unrecognised_line; /* 0 when none */
	char first_unrecognised[LOG_RAW_MAX + 1];
	bool gzip; /* the input was gzip-compressed */
	char nccl_version[24]; /* the last NCCL version the input named */
	char job[40]; /* the job the input last named (or its file name), "" none */
};

struct log_reader;

/* Opens path ("-": standard input): a regular file, a pipe or a FIFO,
 * gzip-compressed or not.  NULL with the reason in err. */
struct log_reader *log_reader_open(const char *path, char *err, size_t errlen);
/* Reads f, opened by log_input_open(path, &gz) (closed by log_reader_free,
 * or here when this fails), as log_reader_open would: the name, its job,
 * whether it was compressed.  NULL with the reason in err. */
struct log_reader *log_reader_adopt(FILE *f, const char *path, bool gz, char *err, size_t errlen);
/* Reads f (not closed by log_reader_free; gzip is not detected). */
struct log_reader *log_reader_new(FILE *f, const char *name);
/* 1 with the next line's event, 0 at the end, -1 on a read error (err). */
int log_reader_next(struct log_reader *r, struct log_event *ev);
/* One line read elsewhere (explain's record stream hands out the log lines
 * among records: a journald export with a job's output beside it), given
 * the same classification, counts and memory of the input as
 * log_reader_next; lineno > 0 is its line in that input.  For a reader
 * made by log_reader_new(NULL, name), which reads nothing itself. */
void log_reader_take(struct log_reader *r, const char *line, size_t len, long lineno,
		     struct log_event *ev);
const struct log_counts *log_reader_counts(const struct log_reader *r);
/* the read error, "" when none */
const char *log_reader_error(const struct log_reader *r);

/* What a CUDA memory call of user/logs/calls.tsv does to memory
 * ("dmabuf_export", "handle_export", "handle_import", "host_register",
 * "alloc", "map", "query"); NULL for another name. */
const char *log_cuda_call_what(const char *call);
/* Whether a CUDA error as LOG_CTX_CUDA keeps it says "not supported"
 * (CUDA_ERROR_NOT_SUPPORTED, cudaErrorNotSupported, the driver's text). */
bool log_cuda_error_unsupported(const char *err);
void log_reader_free(struct log_reader *r);
/* Where two CPUs are free to it, a reader classifies a batch of lines in
 * two threads (the events come out in order, the same events); on by
 * default, off for tests that compare the two. */
void log_reader_parallel(bool on);
/* whether a second thread classified any of r's lines */
bool log_reader_two_threads(const struct log_reader *r);

/* One line by itself (the tests, the fuzzer): the same matching as the
 * reader, without counters or the input's memory (version, last host). */
void log_line_parse(const char *line, size_t len, struct log_event *ev);

/* Opens path as a stream, decompressing gzip by its magic bytes; refuses a
 * directory, a device, a socket or a named FIFO, checked on the inode the
 * name resolved to (O_PATH) before that inode is opened.  *gz says whether
 * it was compressed.
 * Used by the reader and by user/explain/stream.c (rotated .gz records). */
FILE *log_input_open(const char *path, bool *gz, char *err, size_t errlen);

/* What an input starts with, decompressed, for a caller that must tell
 * records from a log before reading it (explain): known only for a regular
 * file, which is looked at without being read (a pipe can be read only
 * once). */
struct log_input_head {
	unsigned char b[512];
	size_t n;
	bool known;
};
/* As log_input_open, and *head filled (never for standard input): one open
 * of the name for both the look and the read (issue 48: explain opened the
 * name first to look at it, before the checks). */
FILE *log_input_open_head(const char *path, bool *gz, struct log_input_head *head, char *err,
			  size_t errlen);

/* The job a file's name says ("slurm-12345.out" -> "slurm job 12345"), ""
 * when it says none: what log_reader_open starts an input's job with. */
void log_job_from_name(const char *path, char *job, size_t len);

/* names for the printer and --json */
const char *log_kind_name(enum log_kind k);
const char *log_source_name(enum log_source s);
const char *log_nocall_name(enum log_nocall n);

/* the compiled table of NCCL shapes */
extern const struct log_shape log_nccl_shapes[];
extern const size_t log_nccl_shapes_n;

#endif
