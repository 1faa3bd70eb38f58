#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/ucx-shapes-to-c.sh TSV - UCX's line shapes (user/logs/ucx_shapes.tsv,
# written by tools/ucx-shapes.py from UCX's sources) as C initializers for
# user/logs/ucxshapes.c: UCX_FMT rows (the formats whose call has an
# operation, or whose DEVX object names one: "obj"), UCX_CALL rows (the
# MLNX_OFED experimental verbs UCX names, with their op), UCX_OBJ rows (the DEVX
# objects and their operations) and UCX_CQE rows (the mlx5 CQE texts with
# their work completion status).
# A table's includer defines the one kind it takes; the others are empty
# here, and all four are undefined after the rows.
set -eu
for k in 'UCX_FMT(f, c, o, b)' 'UCX_OBJ(n, o)' 'UCX_CALL(n, o)' 'UCX_CQE(t, s, n)'; do
	printf '#ifndef %s\n#define %s\n#endif\n' "${k%%(*}" "$k"
done
awk -F '\t' '
function q(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
$1 == "fmt" && $6 != "-" {
	op = $6 == "obj" ? "OP_NONE" : "OP_" toupper($6)
	printf "UCX_FMT(%s, %s, %s, %s)\n", q($7), q($5), op, $6 == "obj" ? "true" : "false"
}
$1 == "obj" { printf "UCX_OBJ(%s, OP_%s)\n", q($2), toupper($3) }
$1 == "call" { printf "UCX_CALL(%s, OP_%s)\n", q($2), toupper($3) }
$1 == "cqe" { printf "UCX_CQE(%s, %d, %s)\n", q($2), $6, q($7) }' "$1"
printf '#undef UCX_FMT\n#undef UCX_OBJ\n#undef UCX_CALL\n#undef UCX_CQE\n'
