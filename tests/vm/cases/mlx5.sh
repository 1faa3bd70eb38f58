# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/mlx5.sh - mlx5 needs hardware we do not have, but its
# modules load without it: every mlx5 probe must load and attach on the real
# module BTF of this stock kernel.  (The firmware verdicts themselves are
# proven by replaying recorded trails: tests/unit/test_explain.c.)
. "$TOP/tests/vm/mrt-lib.sh"

check modprobe_mlx5_ib modprobe mlx5_ib
if kernel_older_than 5.11; then
	skip_check mlx5_btf "no module BTF before 5.11 (CONFIG_DEBUG_INFO_BTF_MODULES) on $(uname -r)"
else
	check mlx5_btf test -e /sys/kernel/btf/mlx5_ib -a -e /sys/kernel/btf/mlx5_core
fi
"$MRTRACE" watch --list-probes --json > "$CASE_OUT/probes.json" 2> "$CASE_OUT/probes.err"
check list_probes_ok test $? = 0
sites=$(cat "$CASE_OUT/probes.json")
# in_kallsyms FUNC: the running kernel has FUNC (vmlinux or a loaded module)
in_kallsyms() { awk -v f="$1" '$3 == f { found = 1; exit } END { exit !found }' /proc/kallsyms; }
for s in mlx5_reg mlx5_dmabuf_reg mlx5_reg_create mlx5_create_mr mlx5_cmd; do
	# Kernels before 5.12 predate mlx5's dma-buf MRs and its MR rework
	# (mlx5_ib_reg_user_mr_dmabuf, create_real_mr): a function that is not
	# in the kernel at all cannot be armed. Newer kernels never skip here.
	fn=$(jq -r ".[] | select(.site==\"$s\") | .function" "$CASE_OUT/probes.json" 2>/dev/null)
	if kernel_older_than 5.12 && [ -n "$fn" ] && ! in_kallsyms "$fn"; then
		skip_check "${s}_armed" "$fn is not in $(uname -r) (kallsyms, mlx5_ib loaded)"
		continue
	fi
	# 7.x has no reg_create (create_real_mr, armed below, covers its
	# failure): the site must say so rather than be armed
	if [ "$s" = mlx5_reg_create ] && ! kernel_older_than 7.0 && [ -n "$fn" ] && ! in_kallsyms "$fn"; then
		skip_check "${s}_armed" "$fn is not in $(uname -r) (kallsyms, mlx5_ib loaded); mlx5_create_mr covers it"
		jq_true "${s}_says_absent" "$sites" ".[] | select(.site==\"$s\") | (.armed|not) and (.note|test(\"not in this kernel\"))"
		continue
	fi
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
