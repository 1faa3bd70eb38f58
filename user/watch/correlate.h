/* SPDX-License-Identifier: GPL-2.0-only */
/* correlate.h - from ring-buffer records to explained reports.
 *
 * Three jobs between the tracer and the output:
 *
 *  - the join: a kernel record of a failed registration waits briefly for
 *    the libibverbs call that caused it (the uprobe's record arrives after
 *    the kernel's, at the library's return), so the two become one report:
 *    same thread, kernel record first;
 *  - the process cache: what /proc says about a process (context, NCCL, its
 *    mappings for the user stack) is read once per process, keyed by pid
 *    and the process's start time, not once per record; with it, NCCL's
 *    dma-buf probe outcome, told with the GPU-memory failures that follow;
 *  - repeats: with dedupe on, the sink learns which occurrence of its
 *    (process, cause) a report is;
 *  - storms: the kernel folds identical failures (bpf/mrtrace.h); the
 *    record that opened a run is kept, and corr_storm() reports the folded
 *    ones as that record again, with their count (report.count).
 *
 * The clock, the /proc readers and the sink are injected (struct corr_ops),
 * so the unit tests need no /proc, no BPF and no sleep; corr_live_ops()
 * gives the real ones.  No record is dropped: a kernel record leaves the
 * pending table only as a report (joined, after the wait, early when the
 * table is full, or at corr_flush), and each way is counted.
 */
#ifndef MRTRACE_WATCH_CORRELATE_H
#define MRTRACE_WATCH_CORRELATE_H

#include <stdbool.h>
#include <stdint.h>

#include "report/report.h"

/* Kernel records wait this long for their libibverbs call. */
#define CORR_PENDING_MAX 64
#define CORR_PENDING_WAIT_S 0.3

/* Processes whose /proc data is kept.  An entry's identity (start time) is
 * checked at most every CORR_RECHECK_S, its context re-read at most every
 * CORR_REFRESH_S (the numbers it prints as "now" and the inferred verdicts
 * use: VmPin, limits); NCCL data is read once per process. */
#define CORR_PROCS_MAX 32
/* Records kept for storm summaries: the last one of each storm key. */
#define CORR_STORMS_MAX 128
#define CORR_RECHECK_S 1.0
#define CORR_REFRESH_S 10.0

/* One line of a process's maps: the range, the inode the kernel lists and
 * the path as the process named it (hostile input: it may end in
 * " (deleted)", name a FIFO, or have been swapped since). */
struct corr_mapping {
	unsigned long long lo, hi, ino;
	const char *path;
};

struct corr_ops {
	/* monotonic seconds */
	double (*now)(void *arg);
	/* the start time of process pid (clock ticks after boot, field 22 of
	 * /proc/PID/stat), 0 when it is gone */
	unsigned long long (*start_time)(void *arg, int pid);
	/* 0, or -errno when the process is gone (then ctx is undefined) */
	int (*read_context)(void *arg, int pid, struct proc_context *ctx);
	/* 0, or -errno when nothing could be read */
	int (*read_nccl)(void *arg, const struct proc_context *ctx, struct nccl_info *nccl);
	/* the gate facts of a MRT_EV_FAILURE record, or of a registration of
	 * GPU memory or with a failed long-term pin (gates_record_wants_facts),
	 * read at once (the process may exit); NULL op: none (tests) */
	void (*read_gates)(void *arg, int pid, const struct mrt_event *ev, struct gate_facts *g);
	/* the text of /proc/PID/maps (malloc'd, the correlator frees it), or NULL */
	char *(*read_maps)(void *arg, int pid);
	/* The name of the function of the ELF file mapped at m (a line of the
	 * process's maps) that holds file offset off: buf, or NULL.  NULL op:
	 * none. */
	const char *(*symbol_at)(void *arg, int pid, const struct corr_mapping *m, uint64_t off,
				 char *buf, size_t len);
	/* The same by the inode number of a libibverbs file the tracer knows,
	 * for a process gone before its maps were read.  NULL op: none. */
	const char *(*symbol_of_inode)(void *arg, unsigned long long ino, uint64_t off, char *buf,
				       size_t len);
	void *arg; /* of the readers above */
	/* One report.  nth: 0 when dedupe is off, else which occurrence of
	 * (pid, cause) this is (1 = first).  r and what it points to are valid
	 * only during the call. */
	void (*sink)(void *sink_arg, const struct report *r, unsigned long nth);
	void *sink_arg;
};

struct corr_config {
	bool join; /* uprobes armed: kernel records wait for their call */
	/* the registration calls are not probed: a REG_MR record's libibverbs
	 * call is made from the record and the user stack the kernel took */
	bool kernel_calls;
	/* ...and it is taken raw (before 5.17): user space finds the frames
	 * through the process's maps, kept from its first device context */
	bool stack_raw;
	bool dedupe; /* count repeats per (pid, cause) */
	bool keep_harmless; /* give NCCL's probes to the sink too */
	/* root for the cgroup-id lookup of an exited process's record
	 * (proc_context_from_event); NULL: no lookup */
	const char *cgroup_root;
};

struct corr_stats {
	unsigned long records; /* pushed */
	unsigned long reported; /* given to the sink */
	unsigned long harmless; /* NCCL probes, given to the sink or not */
	unsigned long joined; /* kernel record + libibverbs call as one report */
	unsigned long alone; /* user calls without a kernel record */
	unsigned long waited_out; /* kernel records whose call did not come in time */
	unsigned long flushed_early; /* kernel records reported alone: pending table full */
	unsigned long flushed_at_end; /* still waiting at corr_flush, or when joining stopped */
	unsigned long context_reads; /* read_context calls (first read, reuse, refresh) */
	unsigned long nccl_reads;
	unsigned long maps_reads;
	unsigned long gone; /* processes first seen after they exited */
	/* records whose /proc/PID was another process (pid reused) or another
	 * program (exec): reported with the record's own context */
	unsigned long mismatched;
	unsigned long contacts; /* first device contexts: snapshots taken */
	unsigned long environs; /* the kernel's copies of what places a process */
	unsigned long env_cut_entries; /* their entries lost where a copy was cut */
	unsigned long summaries; /* storm summaries given to the sink (in reported) */
	unsigned long folded; /* failures those summaries stand for */
	unsigned long summaries_unmatched; /* ...of which without their first record */
	/* failed REG_MRs' raw user stacks (before 5.17), and those libibverbs'
	 * code was not found for by the kernel (no libibverbs* file mapped, or
	 * not in the first MRT_USTACK_RAW_VMAS VMAs): their frames came from
	 * maps read while the process lived, if it did long enough */
	unsigned long raw_stacks, raw_stacks_unplaced;
};

struct corr;

/* NULL when out of memory.  The ops are copied. */
struct corr *corr_new(const struct corr_ops *ops, const struct corr_config *cfg);
void corr_free(struct corr *c);

/* Whether kernel records wait for their libibverbs call (the uprobes can be
 * armed and disarmed while watching).  Turning it off flushes the waiting. */
void corr_set_join(struct corr *c, bool join);
/* corr_config.kernel_calls, as the tracer decided it. */
void corr_set_kernel_calls(struct corr *c, bool on);
/* corr_config.stack_raw, as the tracer decided it. */
void corr_set_stack_raw(struct corr *c, bool on);

/* One ring-buffer record of an explained kind (record/kind.h): a kernel
 * trail waits for its libibverbs call, a call joins the trail that waits
 * for it, the others are explained alone; a kind that is not a failure is
 * ignored. */
void corr_push(struct corr *c, const struct mrt_event *ev);

/* A process's first device context (MRT_EV_CONTACT): its context and NCCL
 * are read now, while it lives, into the process cache; its failures use
 * them should it exit the instant a call fails (a live one is read again
 * at its first failure).  No report. */
void corr_contact(struct corr *c, const struct mrt_event *ev);
/* A raw user stack (MRT_EV_USTACK_RAW, size bytes of it), kept for the
 * failed REG_MR record of the same thread that follows it. */
void corr_ustack_raw(struct corr *c, const struct mrt_ustack_raw *r, size_t size);

/* The kernel's copy of what places a process (MRT_EV_ENVIRON, `size`
 * bytes as the ring gave them): parsed through the allow-list at once and
 * kept with the process; its records use it while they are the same
 * process (start time, executable, uid).  No report. */
void corr_environ(struct corr *c, const struct mrt_environ *e, size_t size);

/* Reports the kernel records that waited CORR_PENDING_WAIT_S in vain. */
void corr_tick(struct corr *c);

/* Reports every waiting record (at the end of a run). */
void corr_flush(struct corr *c);

/* Failures the kernel folded (a storm, tracer_storms()): count of them,
 * the first and last at first_ts_ns and last_ts_ns, identical to the last
 * record reported under key.  Reported as that record with report.count
 * set: 0.  -1 when that record has not been reported yet (it waits for its
 * libibverbs call): ask again.  With force (the end of a run) a key whose
 * record never came (lost with a full ring buffer) is reported from the
 * key alone. */
int corr_storm(struct corr *c, const struct mrt_storm_key *key, unsigned long long count,
	       unsigned long long first_ts_ns, unsigned long long last_ts_ns, bool force);

/* Records waiting for their call now. */
int corr_pending(const struct corr *c);

const struct corr_stats *corr_stats(const struct corr *c);

/* The live system: CLOCK_MONOTONIC, /proc under live->root, the tracer's
 * libibverbs files; its state (the root, a cache of symbol names) is
 * *live, which must outlive the correlator.  sink and sink_arg are left
 * for the caller. */
struct corr_live {
	const char *root; /* "/" or the host's root seen from a container (--host-root) */
	bool redact; /* --redact: command lines and NCCL_* values reduced as read */
	/* where symbol_of_inode finds a file by its inode number (the tracer's
	 * libibverbs files): a path or NULL, and in *dev the device that
	 * file was on when the tracer saw it */
	const char *(*path_of)(void *arg, unsigned long long ino, uint64_t *dev);
	void *path_arg;
	/* names of return addresses: a process in trouble fails again and
	 * again from the same few */
	struct {
		int pid;
		uint64_t off;
		unsigned long long ino;
		char path[256], name[128];
		bool found;
	} syms[32];
	unsigned int next_sym;
	/* maps read in part: a line too long or too many mappings
	 * (proc/execmaps.h); in the stop record */
	unsigned long maps_cut;
};
void corr_live_ops(struct corr_ops *ops, struct corr_live *live);

#endif
