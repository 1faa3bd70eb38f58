/* SPDX-License-Identifier: GPL-2.0-only */
/* cma_facts.h - how much of the node is MIGRATE_CMA pageblocks, beside what
 * /proc/meminfo's CmaTotal says a CMA area accounts for.
 *
 * A long-term pin (every RDMA registration) must migrate a page out of a
 * CMA pageblock first; when that fails the registration fails with ENOMEM
 * (cause pin_migrate).  Pageblocks can be MIGRATE_CMA without a CMA area
 * behind them (the kexec-handover scratch memory of some arm64 systems):
 * then CmaTotal reads about zero while much of memory is CMA.  One reader
 * for `mrtrace check` (check/cma.c) and for the facts read at a failed
 * registration (proc/gates.c), so both judge the same numbers; the record
 * writes and reads them back through cma_facts_json.h. */
#ifndef MRTRACE_PROC_CMA_FACTS_H
#define MRTRACE_PROC_CMA_FACTS_H
#include <stdbool.h>

/* zones kept by name (nodes x zones of a large machine); the pageblocks of
 * zones past the table still count in cma_blocks, and are counted */
#define CMA_FACTS_ZONES 32
/* /proc/pagetypeinfo of a many-node machine fits; more is not read */
#define CMA_FACTS_READ_MAX (256u << 10)
/* no kernel has smaller pages: the size assumed when the node's is unknown */
#define CMA_FACTS_MIN_PAGE 4096ull

struct cma_zone {
	int node;
	char zone[16];
	unsigned long long blocks;        /* its MIGRATE_CMA pageblocks */
};

struct cma_facts {
	bool read;                        /* looked at (false: never read) */
	int pti_error;                    /* reading /proc/pagetypeinfo: 0 or -errno (root only) */
	bool cma_column;                  /* the kernel has CONFIG_CMA */
	unsigned order;                   /* "Page block order: 9" */
	unsigned long pages_per_block;    /* "Pages per block:  512" */
	unsigned long long page_size;     /* the node's, bytes; 0 unknown */
	unsigned long long cma_blocks;    /* over all zones */
	int n_zones;
	unsigned zones_dropped;           /* zones with a CMA column past the table */
	struct cma_zone zones[CMA_FACTS_ZONES];
	bool have_cma_total;              /* /proc/meminfo has CmaTotal */
	unsigned long long cma_total_kb, cma_free_kb;
};

/* What the facts say of a failed long-term pin. */
enum cma_state {
	CMA_STATE_UNKNOWN = 0,            /* not read, or not readable */
	CMA_STATE_ORDINARY,               /* CMA pageblocks about what CmaTotal says (or none) */
	CMA_STATE_HIDDEN,                 /* far more CMA pageblocks than CmaTotal accounts for */
};

/* Reads /proc/pagetypeinfo (at most CMA_FACTS_READ_MAX), /proc/meminfo and
 * the page size under root ("/" or NULL: this node; else a recorded tree,
 * whose page size comes from MemFree against vmstat's nr_free_pages).
 * Never fails: a read error is kept in pti_error. */
void cma_facts_read(const char *root, struct cma_facts *c);

/* Parses pagetypeinfo text (modified in place) into c's pageblock members. */
void cma_facts_parse_pagetypeinfo(char *text, struct cma_facts *c);

/* Bytes of the CMA pageblocks, of zone i (-1: all), counted with
 * CMA_FACTS_MIN_PAGE when the page size is unknown (a lower bound). */
unsigned long long cma_facts_bytes(const struct cma_facts *c, int zone);

/* The pageblock size in bytes (0 unknown). */
unsigned long long cma_facts_pageblock_bytes(const struct cma_facts *c);

/* CMA pageblocks "far above" CmaTotal: CmaTotal under half of what the
 * pageblocks hold, even counted with the smallest page size. */
bool cma_facts_hidden(const struct cma_facts *c);

enum cma_state cma_facts_state(const struct cma_facts *c);

#endif
