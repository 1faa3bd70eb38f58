#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/calls-to-c.sh TSV - the call names and work-completion status texts of
# user/logs/calls.tsv (written by tools/call-names.py from rdma-core's,
# libfabric's and the kernel's sources) as C initializers for user/logs/util.c
# and user/logs/completion.c: LOG_CALL rows (the calls that have an operation,
# sorted by name for a binary search) and LOG_WC_STATUS rows.
# tools/calls-to-c.sh --cuda TSV: the CUDA memory calls and error names of the
# same file for user/logs/cudacall.c: LOG_CUDA_CALL(name, what) rows and
# LOG_CUDA_ERROR(name, number) rows, each sorted by name.
set -eu
if [ "$1" = --cuda ]; then
	LC_ALL=C awk -F '\t' '$1 == "cuda_call" { printf "LOG_CUDA_CALL(\"%s\", \"%s\")\n", $2, $3 }' "$2" | LC_ALL=C sort
	LC_ALL=C awk -F '\t' '$1 == "cuda_error" { printf "LOG_CUDA_ERROR(\"%s\", %d)\n", $2, $3 }' "$2" | LC_ALL=C sort
	exit 0
fi
# the operation as its enum rdma_op constant (user/core/ops.h: "reg_mr" is
# OP_REG_MR), so a name the vocabulary lacks fails the build, not a lookup
LC_ALL=C awk -F '\t' '$1 == "call" && $3 != "-" { printf "LOG_CALL(\"%s\", OP_%s)\n", $2, toupper($3) }' "$1" | LC_ALL=C sort
awk -F '\t' '$1 == "wc_status" { n = split($4, w, " "); printf "LOG_WC_STATUS(\"%s\", %d, \"%s\")\n", $2, $3, w[n] }' "$1"
