# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/mlx5.sh - mlx5 needs hardware we do not have, but its
# modules load without it: every mlx5 probe must load and attach on the real
# module BTF of this stock kernel.  (The firmware verdicts themselves are
# proven by replaying recorded trails: tests/unit/test_explain.c.)
. "$TOP/tests/vm/mrt-lib.sh"

check modprobe_mlx5_ib modprobe mlx5_ib
check mlx5_btf test -e /sys/kernel/btf/mlx5_ib -a -e /sys/kernel/btf/mlx5_core
"$MRTRACE" watch --list-probes --json > "$CASE_OUT/probes.json" 2> "$CASE_OUT/probes.err"
check list_probes_ok test $? = 0
sites=$(cat "$CASE_OUT/probes.json")
for s in mlx5_reg mlx5_dmabuf_reg mlx5_reg_create mlx5_create_mr mlx5_cmd; do
	jq_true "${s}_armed" "$sites" ".[] | select(.site==\"$s\") | .armed and (.module|test(\"mlx5\"))"
done
note "mlx5 mechanisms: $(jq -r '[.[] | select(.site|test("mlx5")) | "\(.site)=\(.mechanism)"] | join(" ")' "$CASE_OUT/probes.json")"
# MLNX_OFED's peer-memory path does not exist in a stock kernel: unarmed, said so
jq_true peer_get_unarmed_with_reason "$sites" '.[] | select(.site=="peer_get") | (.armed|not) and (.note|test("not in this kernel"))'
if [ -d /sys/kernel/tracing/events/mlx5 ]; then
	note "mlx5 tracepoints: $(ls /sys/kernel/tracing/events/mlx5 | tr '\n' ' ')"
fi
# attached for real, not only probed: a watch session starts with them armed
check watch_starts mrt_start mlx5
start=$(grep -m1 '"event":"start"' "$MRT_OUT")
jq_true watch_mlx5_cmd_armed "$start" '.sites[] | select(.site=="mlx5_cmd") | .armed'
check watch_stops mrt_stop
