/* SPDX-License-Identifier: GPL-2.0-only */
/* causes.h - what mrtrace knows of each cause, one row per cause
 * (causes.c): the stable name it prints (docs/causes.md), who fixes it (the
 * class operators split ncclSystemError into), the generator of its fixes,
 * which explain.h entry points can decide it from a record, and the errnos
 * docs/causes.md says the application sees.  The name, class and fix
 * lookups of names.h and fixes.c read these rows; tests/unit/test_causes.c
 * checks docs/causes.md's table against them.  Adding a cause is a row here
 * (with its enum value in verdict.h) and its fix generator. */
#ifndef MRTRACE_VERDICT_CAUSES_H
#define MRTRACE_VERDICT_CAUSES_H

#include "core/ops.h"
#include "verdict/fix_input.h"
#include "verdict/verdict.h"

/* The two families operators split ncclSystemError into: who fixes it;
 * and the outcomes of a log no kernel call refused (CAUSE__COUNT on). */
enum cause_class { CLASS_ENVIRONMENT = 0, CLASS_INFINIBAND, CLASS_NO_REFUSAL };

/* The entry points of explain.h that decide a cause (a bit each): which
 * record kind can carry the evidence of it.  0: no record does (check's). */
enum cause_explainer {
	EXPLAINER_REGISTRATION = 1u << 0, /* explain_registration: a kernel trail */
	EXPLAINER_MLOCK = 1u << 1,        /* explain_mlock: mlock/mlock2/mlockall */
	EXPLAINER_USER_CALL = 1u << 2,    /* explain_user_call: libibverbs alone */
	EXPLAINER_FAILURE = 1u << 3,      /* explain_failure: the refusals beyond registration */
};

/* The log side of a cause (inferred.c): a failure line of one of ops that
 * carries one of err[] can mean it, with the prior score (higher leads;
 * only the order is meaningful) and why a reader should believe it.  The
 * line's context moves it (flags); the node's facts move it later
 * (inferred_weigh.c).  A cause's priors end with a row whose ops is 0. */
#define PRIOR_OP(op) (1u << (op))
#define PRIOR_QUEUES (PRIOR_OP(OP_CREATE_QP) | PRIOR_OP(OP_CREATE_CQ) | PRIOR_OP(OP_ALLOC_PD))
#define PRIOR_NO_ERRNO (-1) /* in err[]: a line that carries no errno */
#define PRIOR_ANY_ERRNO (-2) /* in err[]: any errno, or none */
enum prior_flag {
	PRIOR_IF_GDR = 1u << 0,         /* only when the log says GPU Direct RDMA is on */
	PRIOR_IF_NOT_DMABUF = 1u << 1,  /* only when the call is not a dma-buf registration */
	PRIOR_GPU_BUFFER = 1u << 2,     /* raised by a line that says GPU memory, lowered by host */
	PRIOR_HOST_BUFFER = 1u << 3,    /* raised by a line that says host memory (or by default) */
	PRIOR_DMABUF_CALL = 1u << 4,    /* raised (+35) when a dma-buf registration says an errno */
	PRIOR_NOT_GPU_BUFFER = 1u << 5, /* lowered by a line that says GPU memory */
};
struct cause_prior {
	unsigned int ops;          /* PRIOR_OP() bits of enum rdma_op */
	int err[4];                /* errnos (0: unused), PRIOR_NO_ERRNO, PRIOR_ANY_ERRNO */
	int score;
	unsigned int flags;        /* enum prior_flag */
	const char *why;
};

struct cause_row {
	const char *name;          /* the stable identifier, never renamed */
	enum cause_class class;    /* CAUSE_UNKNOWN's depends on the op: cause_class() */
	fix_generator fix;         /* NULL: no fix (unknown is not guessed at) */
	unsigned int explainers;   /* enum cause_explainer bits */
	const char *errnos;        /* docs/causes.md's errno column, verbatim */
	const struct cause_prior *priors; /* NULL: no log line means it by itself */
};

/* The row of c (up to CAUSE__ALL); the row of CAUSE_UNKNOWN for a value
 * out of range. */
const struct cause_row *cause_row(enum cause c);
/* The row's name; "unknown" out of range.  cause_from_name: a verdict's
 * cause (below CAUSE__COUNT) by name, CAUSE__COUNT for an unknown name. */
const char *cause_name(enum cause c);
enum cause cause_from_name(const char *name);
/* Any row's cause by name, no-refusal ones included (the inferred side's
 * records read back); CAUSE__ALL for an unknown name.  cause_from_name
 * (names.h) knows only a verdict's (below CAUSE__COUNT). */
enum cause cause_from_any_name(const char *name);

#endif
