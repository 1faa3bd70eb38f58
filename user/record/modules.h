/* SPDX-License-Identifier: GPL-2.0-only */
/* modules.h - RDMA modules that loaded or went away while watching, and
 * the sites the re-plan armed and detached: JSON "modules_changed". */
#ifndef MRTRACE_RECORD_MODULES_H
#define MRTRACE_RECORD_MODULES_H

struct record_kind;

struct record_module_site {
	const char *site, *mechanism, *module;
};

struct record_modules {
	const char *loaded, *unloaded; /* "ib_uverbs, rdma_rxe"; "" none */
	const struct record_module_site *armed, *detached;
	int narmed, ndetached;
	int armed_sites; /* armed after the change */
	double rearm_s, facts_s;
};

/* Its row of the table of record kinds (record/kind.h). */
extern const struct record_kind record_kind_modules;

#endif
