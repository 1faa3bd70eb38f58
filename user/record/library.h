/* SPDX-License-Identifier: GPL-2.0-only */
/* library.h - a libibverbs copy `watch` found and attached to after start
 * (a container's, a conda environment's): JSON "library_attached". */
#ifndef MRTRACE_RECORD_LIBRARY_H
#define MRTRACE_RECORD_LIBRARY_H

struct record_kind;

struct record_library {
	const char *path; /* as attached (may be /proc/PID/root/...) */
	int entry_points; /* attached in it */
};

/* Its row of the table of record kinds (record/kind.h). */
extern const struct record_kind record_kind_library;

#endif
