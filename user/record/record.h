/* SPDX-License-Identifier: GPL-2.0-only */
/* record.h - the records mrtrace produces and reads, whatever their kind:
 * one struct for all of them, and the few calls that work on any of them
 * through the table of record kinds (kind.h, kinds.c).
 *
 * A record is its kind and what the kind's unit reads: a struct report for
 * an explained failure (registration, libibverbs call, mlock, another
 * refusal, NCCL's probe, a storm summary), the kernel's struct mrt_event for
 * a memlock limit change (rlimit.h), the payloads of start.h, stop.h,
 * library.h and modules.h for what `watch` says about itself, and
 * port_change.h for a port or GID change under running jobs.  The JSON
 * contract of every kind (docs/json.md) is written and read in this folder
 * and nowhere else. */
#ifndef MRTRACE_RECORD_H
#define MRTRACE_RECORD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mrtrace.h"
#include "nccl/nccl.h"
#include "proc/context.h"
#include "proc/gates.h"
#include "proc/ustack.h"
#include "report/report.h"

struct record_kind;

struct record {
	const struct record_kind *kind;
	/* the kind of the record it stands for (a storm summary, NCCL's probe:
	 * the kernel record's); NULL: kind itself */
	const struct record_kind *base;
	const void *data; /* the kind's payload (above) */
	/* text: which occurrence of its (process, cause) an explained record
	 * is; 0 or 1 print it in full, more the one-line repeat */
	unsigned long nth;
};

/* ---- explained failures ------------------------------------------------------ */

/* Fills r for a kernel record ev joined with the libibverbs call uev (NULL:
 * none; ev == uev: the call alone), what is known of the process (ctx, nccl
 * may be NULL) and, for a record whose kind reads them, the gate facts read
 * at the failure (NULL: none), and explains it with its kind's engine.
 * r->ua is cleared: the caller attributes the user stack.  The pointers
 * must outlive r. */
/* The API a failure is named by: its libibverbs call's, else its kind's
 * (the uverbs command, the mlock call); NULL when its kind names none. */
const char *record_api(const struct mrt_event *ev, const struct mrt_event *uev);

void record_explain(struct report *r, const struct mrt_event *ev, const struct mrt_event *uev,
		    const struct proc_context *ctx, const struct nccl_info *nccl,
		    const struct gate_facts *gates);

/* The record of an explained report: its kind is that of its kernel record,
 * or nccl_probe when the verdict is harmless, or storm_summary with a count. */
void record_of_report(struct record *rec, const struct report *r, unsigned long nth);

/* ---- any record -------------------------------------------------------------- */

/* The record's JSON object without the envelope every `watch` line adds
 * (schema, version, time, host: watch/sink_json.c).  The caller owns it. */
struct json_object *record_to_json(const struct record *rec);
/* The same for an explained report (record_of_report, then record_to_json). */
struct json_object *record_report_json(const struct report *r);

/* When it happened (CLOCK_MONOTONIC ns); 0 for a record of now (start, stop). */
unsigned long long record_ts_ns(const struct record *rec);

/* The record for people.  when: its wall-clock time and host ("" or NULL:
 * not printed).  false when the kind has no text (what watch says about
 * itself goes to stderr as messages). */
bool record_print_text(FILE *out, const struct record *rec, bool verbose, const char *when);

/* ---- reading back ------------------------------------------------------------ */

/* What a `watch --json` line of an explained kind holds: the kernel record
 * ("raw"), the libibverbs call ("user_call"), and the process context
 * ("process") and NCCL data ("nccl") as they were at the failure.  The
 * context is rebuilt for the fields verdict/ and fixes use: memlock limits,
 * VmPin/VmLck, CAP_IPC_LOCK, user namespace, the cgroup with what it
 * implies (container, pod, systemd unit, Slurm job), the launchers (kinds
 * from their names) and so the setting; NCCL's library, version, rank,
 * settings (with their sources when the record has "setting_sources"), the
 * lint findings as recorded, and the pinned-memory estimate computed
 * again.  Never carried: the environment (never recorded) and the user
 * stack (the recorded attribution is kept instead). */
/* What every `watch` line says about itself (docs/json.md): the schema,
 * the build that wrote it, when and on which host.  `mrtrace explain`
 * writes them back as they were read.  Each points into the JSON object
 * read (valid while it is); NULL when the line has none. */
struct record_envelope {
	const char *schema, *version, *time, *host;
};

struct record_in {
	struct mrt_event ev; /* from "raw" */
	bool have_uev; /* "user_call", or raw.kind is a user call (then uev == ev) */
	struct mrt_event uev; /* the call's arguments; no stack */
	struct ustack_attr ua; /* the recorded attribution of that stack */
	bool have_ctx;
	struct proc_context ctx;
	char setting[32]; /* process.setting as recorded ("" when absent) */
	long env_job; /* with have_ctx: the job the process's environment claimed, -1
			 none (record_in_keep) */
	bool have_nccl;
	struct nccl_info nccl;
	bool have_gates; /* a failure record's evidence.gates */
	struct gate_facts gates;
	/* a storm summary's "count" (0: absent, the record stands for
	 * itself), "first_ts_ns" and "last_ts_ns" */
	unsigned long long count, first_ts_ns, last_ts_ns;
	struct record_envelope env;
};

/* The kind a JSON value says it is ("event"), NULL when it names none this
 * mrtrace knows; *event gets the "event" string (owned by o), NULL when o
 * is not an object with a string "event". */
const struct record_kind *record_kind_of_json(struct json_object *o, const char **event);
/* Whether records of this kind are read back (the explained ones). */
bool record_kind_readable(const struct record_kind *k);
/* Whether it is NCCL's harmless probe (shown by `explain --all` only). */
bool record_kind_is_probe(const struct record_kind *k);

/* Reads a line of a readable kind.  A member that is absent stays unknown;
 * one of the wrong type is an error.  0, or -1 with a message naming the
 * member in err. */
int record_read(struct json_object *o, struct record_in *out, char *err, size_t errlen);
/* The libibverbs call the report is about: NULL, &in->uev, or &in->ev for
 * a call that reached no kernel site. */
const struct mrt_event *record_in_uev(const struct record_in *in);
/* What r, explained from in (record_explain), keeps of the record beyond
 * what its engine derives: a storm summary's count and times. */
void record_in_keep(struct report *r, const struct record_in *in);

/* The envelope of a line (above): 0, or -1 when a member is there but not
 * a string (the message names it). */
int record_envelope_from_json(struct json_object *o, struct record_envelope *e, char *err,
			      size_t errlen);
/* Adds it to o as it was read; a line that had none gets this build's
 * "schema" and "mrtrace_version" (what `watch` would write), no "time" and
 * no "host" (nobody knows them). */
void record_envelope_put(struct json_object *o, const struct record_envelope *e);

/* The kernel record alone, from a line or from its "raw" object: every
 * member checked (docs/json.md, "raw").  0, or -1 with a message. */
int record_raw_from_json(struct json_object *obj, struct mrt_event *ev, char *err, size_t errlen);
/* The gate facts a recorded failure carried (evidence.gates); false when none. */
bool record_gates_from_json(struct json_object *obj, struct gate_facts *g);
/* The trail as JSON ("trail": the sites a registration passed through). */
struct json_object *record_trail_json(const struct mrt_event *ev);

#endif
