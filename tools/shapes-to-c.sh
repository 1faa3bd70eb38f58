#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/shapes-to-c.sh TSV - the table of NCCL line shapes (user/logs/nccl_shapes.tsv,
# written by tools/nccl-shapes.py) as C initializers for user/logs/shapes.c: the
# build compiles the data in, so a new NCCL release is rows in the TSV, no code.
set -eu
awk -F '\t' '
function q(s) { if (s == "-") return "NULL"; gsub(/"/, "\\\"", s); return "\"" s "\"" }
/^#/ || NF < 11 { next }
{
	how = $9 == "strerror" ? "LOG_ERRNO_STRERROR" : $9 == "number" ? "LOG_ERRNO_NUMBER" : $9 == "rc" ? "LOG_ERRNO_RC" : "LOG_ERRNO_NONE"
	kind = $5 == "failure_call" ? "LOG_FAILURE_CALL" : $5 == "failure_nocall" ? "LOG_FAILURE_NOCALL" : "LOG_CONTEXT"
	nc = $6 == "completion" ? "LOG_NC_COMPLETION" : $6 == "async" ? "LOG_NC_ASYNC" : $6 == "cuda" ? "LOG_NC_CUDA" : $6 == "gdr_disabled" ? "LOG_NC_GDR_DISABLED" : "LOG_NC_NONE"
	lvl = $2 == "WARN" ? "W" : $2 == "INFO" ? "I" : "D"
	op = $8 == "-" ? "OP_NONE" : "OP_" toupper($8)
	printf "\t{ %s, %s, %s, %s, %s, %s, %s, %s, %s, '\''%s'\'', %s },\n", q($1), q($11), q($3), q($4), q($7), op, how, kind, nc, lvl, q($10)
}' "$1"
