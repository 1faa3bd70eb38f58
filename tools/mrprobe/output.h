/* SPDX-License-Identifier: GPL-2.0-only */
/* output.h - what mrprobe prints: one line (or JSON object) per event.
 *
 * Text goes to stdout for people; --json writes one object per line with
 * "event" set to setup, note, mr, trial, find_max, summary or error.  Every
 * line is flushed at once so a harness or tracer sees it while the MRs are
 * still registered.  docs/mrprobe.md lists the fields. */
#ifndef MRPROBE_OUTPUT_H
#define MRPROBE_OUTPUT_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "findmax.h"
#include "names.h"
#include "procstat.h"

struct setup_report {
	const char *device;
	enum mr_api api;
	unsigned access;
	enum mem_kind mem;
	bool thread;
	struct proc_state ps;
	unsigned planned;       /* registrations to make (0 with --find-max) */
	uint64_t planned_bytes;
	const char *plan_text;  /* "4 connections x 9.2 MiB ..." */
};

struct mr_report {
	bool trial;             /* a --find-max trial, deregistered at once */
	unsigned index;
	const char *label;      /* NCCL buffer name or "" */
	enum mr_api api;
	enum mem_kind mem;
	uint64_t addr, len, iova, pages;
	int dmabuf_fd;
	unsigned access;
	int err;                /* 0: registered */
	uint32_t lkey;
	uint64_t cumulative_bytes; /* this process's live, memlock-accounted MRs */
	int64_t vmpin_bytes;
	pid_t tid;
};

struct findmax_report {
	struct findmax_result r;
	uint64_t page;
	uint64_t cap_bytes;
	int64_t pinned_before;  /* VmPin when the search started */
	struct proc_state ps;
};

struct summary_report {
	unsigned planned, attempted, ok, failed;
	unsigned trials;        /* --find-max: trial registrations, none kept */
	int first_fail_index;   /* -1: none */
	int first_errno;
	bool stopped_early;
	uint64_t cumulative_bytes;
	struct proc_state ps;
	int exit_status;
};

void mp_report_setup(bool json, const struct setup_report *s);
void mp_report_note(bool json, const char *text);
void mp_report_mr(bool json, const struct mr_report *m);
void mp_report_find_max(bool json, const struct findmax_report *f);
void mp_report_summary(bool json, const struct summary_report *s);
/* MRs stay registered for `seconds` from now. */
void mp_report_hold(bool json, double seconds, unsigned mrs, uint64_t cumulative_bytes);
/* A setup failure: always a sentence on stderr, and an error event with --json. */
void mp_report_error(bool json, const char *stage, const char *text);

/* "ENOMEM", or "E?" for numbers glibc cannot name. */
const char *mp_errno_name(int e);

#endif
