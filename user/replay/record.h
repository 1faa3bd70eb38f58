/* SPDX-License-Identifier: GPL-2.0-only */
/* record.h - a record written by `mrtrace watch --json` read back into what
 * the explanation engine works from: the kernel record ("raw"), the
 * libibverbs call ("user_call"), and the process context ("process") and
 * NCCL data ("nccl") as they were when the failure happened.
 *
 * The context is rebuilt for the fields explain/ and fixes use: memlock
 * limits, VmPin/VmLck, CAP_IPC_LOCK, user namespace, the cgroup with what it
 * implies (container, pod, systemd unit, Slurm job), the launchers (kinds
 * from their names) and so the setting; NCCL's library, version, rank,
 * settings (with their sources when the record has "setting_sources"), the
 * lint findings as recorded, and the pinned-memory estimate computed again.
 * Never carried: the environment (never recorded) and the user stack (the
 * recorded attribution is kept instead). */
#ifndef MRTRACE_REPLAY_RECORD_H
#define MRTRACE_REPLAY_RECORD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "mrtrace.h"
#include "nccl/nccl.h"
#include "proc/context.h"
#include "proc/gates.h"
#include "proc/ustack.h"

enum replay_kind {
	REPLAY_OTHER = 0, /* start, stop, library_attached, memlock_limit_set, ... */
	REPLAY_FAILURE, /* reg_failure, mlock_failure, user_call */
	REPLAY_PROBE, /* nccl_probe: NCCL's harmless dma-buf probe */
	REPLAY_NO_EVENT, /* not an object, or no string "event" member */
};

/* What a JSON value is; *event gets the "event" string (owned by o) or NULL. */
enum replay_kind replay_kind_of(struct json_object *o, const char **event);

struct replay_record {
	struct mrt_event ev; /* from "raw" */
	bool have_uev; /* "user_call", or raw.kind is a user call (then uev == ev) */
	struct mrt_event uev; /* the call's arguments; no stack */
	struct ustack_attr ua; /* the recorded attribution of that stack */
	bool have_ctx;
	struct proc_context ctx;
	char setting[32]; /* process.setting as recorded ("" when absent) */
	bool have_nccl;
	struct nccl_info nccl;
	bool have_gates; /* a failure record's evidence.gates */
	struct gate_facts gates;
};

/* Reads a reg_failure / mlock_failure / failure / nccl_probe record.  A member that is
 * absent stays unknown; one of the wrong type is an error.
 * Returns 0, or -1 with a message naming the member in err. */
int replay_record_read(struct json_object *o, struct replay_record *out, char *err, size_t errlen);

/* The libibverbs call the report is about: NULL, &rec->uev, or &rec->ev for
 * a call that reached no kernel site. */
const struct mrt_event *replay_uev(const struct replay_record *rec);

#endif
