#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/calls-to-c.sh TSV - the call names and work-completion status texts of
# user/logs/calls.tsv (written by tools/call-names.py from rdma-core's,
# libfabric's and the kernel's sources) as C initializers for user/logs/util.c
# and user/logs/completion.c: LOG_CALL rows (the calls that have an operation,
# sorted by name for a binary search) and LOG_WC_STATUS rows.
set -eu
LC_ALL=C awk -F '\t' '$1 == "call" && $3 != "-" { printf "LOG_CALL(\"%s\", \"%s\")\n", $2, $3 }' "$1" | LC_ALL=C sort
awk -F '\t' '$1 == "wc_status" { n = split($4, w, " "); printf "LOG_WC_STATUS(\"%s\", %d, \"%s\")\n", $2, $3, w[n] }' "$1"
