/* SPDX-License-Identifier: GPL-2.0-only */
/* kind.h - one row per record kind: where it comes from, how it is
 * explained, written as JSON and as text, and read back.
 *
 * The table is kinds.c; each kind's row and cells live in its own unit
 * (start.c, reg_failure.c, nccl_probe.c, storm.c, user_call.c,
 * mlock_failure.c, failure.c, rlimit.c, library.c, modules.c, port_change.c,
 * stop.c), which
 * never call back into the table: what a cell needs of another row comes
 * in struct record (base).  Every
 * dispatch on a record's kind goes through a row: nothing else in user/
 * tests enum mrt_kind.  A NULL cell is "nothing to do for this kind", said
 * at its row.  Adding a kind: its unit, with its row, and one line in the
 * table (kinds.c; a kind that watch makes rather than decodes declares its
 * row in its header too, for watch). */
#ifndef MRTRACE_RECORD_KIND_H
#define MRTRACE_RECORD_KIND_H

#include "record/record.h"

/* The record is an explained failure: its data is a struct report, and the
 * sinks that count or journal failures take it. */
#define RECORD_EXPLAINED 0x1
/* It always carries the memlock numbers (mlock's own), not only when
 * ib_umem_get was reached. */
#define RECORD_MEMLOCK 0x2
/* The gate facts (proc/gates.h) are read at the failure, while the
 * process still exists (a registration's: its GPU-memory or CMA facts,
 * for the records gates_record_wants_facts() picks). */
#define RECORD_GATES 0x4
/* A harmless verdict of this kind is not NCCL's dma-buf probe (a node
 * without any RDMA device: NCCL uses its sockets). */
#define RECORD_NO_PROBE 0x8

/* How a ring-buffer record meets the other records of its failure
 * (watch/correlate.c). */
enum record_join {
	RECORD_ALONE = 0, /* reported as it comes */
	RECORD_WAITS_FOR_CALL, /* a kernel trail: waits for the libibverbs call that caused it */
	RECORD_IS_CALL, /* a libibverbs call: joins the kernel trail that waits for it */
};

/* The cells of an explained kind.  nccl_probe and storm_summary stand for
 * a record of another kind (NULL cells: that record's). */
struct record_explained {
	/* the engine (verdict/) that judges it: fills r->v, returns the cause */
	enum cause (*explain)(struct report *r);
	/* the call, when no libibverbs call is known ("reg_mr", "mlock"); NULL: none */
	const char *(*api)(const struct mrt_event *ev);
	/* what failed, for people: "registration" ("registration failed") */
	const char *(*what)(const struct mrt_event *ev);
	/* JSON members right after "event" (NULL: none) */
	void (*head)(struct json_object *o, const struct report *r);
	/* "len": the bytes the failure was about */
	unsigned long long (*len)(const struct mrt_event *ev);
	/* "evidence": the kind's members, in their order */
	void (*evidence)(struct json_object *e, const struct report *r);
	/* its journal entry: syslog priority and MESSAGE_ID (watch/journal.c) */
	const char *priority, *message_id;
};

struct record_kind {
	const char *name; /* for people and the tests: "registration failure" */
	const char *event; /* its JSON "event"; NULL: the event of the record it stands for */
	const char *alias; /* another "event" it is read from, or NULL */
	/* the ring-buffer kind (enum mrt_kind) it is decoded from; 0: not a
	 * ring-buffer record (judged from one, or made by watch) */
	unsigned int ring;
	unsigned int flags; /* RECORD_* */
	enum record_join join;
	const struct record_explained *explained; /* NULL: not a failure */
	/* its time, CLOCK_MONOTONIC ns (the kernel's clock); NULL: when written */
	unsigned long long (*ts_ns)(const struct record *rec);
	struct json_object *(*to_json)(const struct record *rec);
	/* its "severity" when it is not a failure (record_severity); NULL:
	 * "info" */
	const char *(*severity)(const struct record *rec);
	/* NULL: not in the text stream (watch says it on stderr) */
	bool (*to_text)(FILE *out, const struct record *rec, bool verbose, const char *when);
	/* what follows "raw" (record_read() reads that first and asks the row
	 * of its kind); NULL: not read back (`mrtrace explain` skips and
	 * counts it) */
	int (*from_json)(struct json_object *o, struct record_in *in, char *err, size_t errlen);
};

/* The table, in the order docs/json.md lists the kinds. */
int record_kind_count(void);
const struct record_kind *record_kind_at(int i);
/* The row of a ring-buffer kind, NULL when none. */
const struct record_kind *record_kind_of_ring(unsigned int ring);
/* The explained row of a kernel record: that of its kind; a kind this
 * mrtrace does not know is explained as a registration, as it always was. */
const struct record_kind *record_kind_of_event(const struct mrt_event *ev);
/* The "event" a record is written with. */
const char *record_event_name(const struct record *rec);
/* An explained record's journal entry (watch/journal.c): its kind's
 * syslog priority and MESSAGE_ID, or those of the record it stands for. */
const char *record_priority(const struct record *rec);
const char *record_message_id(const struct record *rec);
/* Its journal PRIORITY: that of its kind, "7" (debug) for a harmless one. */
const char *record_journal_priority(const struct record *rec);
/* Its JSON "severity" (docs/json.md): a failure's is the syslog name of its
 * journal PRIORITY, so that the file and the journal agree ("error",
 * "warning", "debug"); another kind's is its row's, "info" by default. */
const char *record_severity(const struct record *rec);
/* Whether the record carries the memlock numbers. */
bool record_has_memlock(const struct mrt_event *ev);

/* ---- what the explained kinds share (explained.c, evidence.c) ------------------- */

unsigned long long explained_ts_ns(const struct record *rec);
struct json_object *explained_to_json(const struct record *rec);
bool explained_to_text(FILE *out, const struct record *rec, bool verbose, const char *when);
int explained_from_json(struct json_object *o, struct record_in *in, char *err, size_t errlen);
/* the same for a record that is the libibverbs call itself */
int explained_call_from_json(struct json_object *o, struct record_in *in, char *err,
			     size_t errlen);
/* pieces of "evidence", each written when its condition holds */
void evidence_memlock(struct json_object *e, const struct mrt_event *ev);
void evidence_command(struct json_object *e, const struct mrt_event *ev, bool dmabuf);
void evidence_decisive(struct json_object *e, const struct report *r);
void evidence_ids(struct json_object *e, const struct mrt_event *ev);
/* "len" of a registration: the umem's when ib_umem_get was reached, else
 * the command's */
unsigned long long evidence_reg_len(const struct mrt_event *ev);

#endif
