# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/drivers.sh - the drivers mrtrace knows from their tables
# (user/drivers/) beyond rxe and mlx5 (the mlx5 case): their modules load
# without hardware, so each one Debian's kernel builds is loaded while a
# watch runs, and the watch must arm its sites on the module it was found
# in (the re-plan follows the table's modules), let it unload at once
# (kprobes hold no module) and detach them.  No registration runs through
# them (no device): their verdicts are the generic driver step's.  A
# driver this kernel does not build is a counted skip, said with the
# kernel's name.
. "$TOP/tests/vm/mrt-lib.sh"

in_kallsyms() { awk -v f="$1" '$3 == f { found = 1; exit } END { exit !found }' /proc/kallsyms; }
check watch_starts mrt_start drivers
n=0
# module: sites of its table (the reg_user_mr, then the dma-buf MR)
for spec in "irdma:irdma_reg irdma_dmabuf_reg" "bnxt_re:bnxt_re_reg bnxt_re_dmabuf_reg" \
	"efa:efa_reg efa_dmabuf_reg" "siw:siw_reg"; do
	mod=${spec%%:*}
	first=${spec#*:}
	first=${first%% *}
	if ! modinfo "$mod" > /dev/null 2>&1; then
		skip_check "${mod}_loads" "Debian's $(uname -r) does not build $mod"
		continue
	fi
	n=$((n + 1))
	check "${mod}_loads" modprobe "$mod"
	check "${mod}_armed_record" wait_for_line "$MRT_OUT" "\"event\":\"modules_changed\".*\"loaded\":\\[[^]]*\"$mod\"" 120
	changes=$(jq -c -s "[.[] | select(.event==\"modules_changed\" and ((.loaded // []) | index(\"$mod\")))] | last" "$MRT_OUT")
	for s in ${spec#*:}; do
		fn=$("$MRTRACE" watch --list-probes --json 2> /dev/null | jq -r ".[] | select(.site==\"$s\") | .function")
		if [ -n "$fn" ] && ! in_kallsyms "$fn"; then
			# the dma-buf MR came to irdma after 6.1: absent, and said so
			skip_check "${s}_armed" "$fn is not in $(uname -r) (kallsyms, $mod loaded)"
			continue
		fi
		jq_true "${s}_armed" "$changes" ".armed[] | select(.site==\"$s\") | .module==\"$mod\" and .mechanism==\"kprobe\""
	done
	note "$mod: $(echo "$changes" | jq -c '[.armed[] | "\(.site)=\(.mechanism)@\(.module)"]')"
	# never in the node's way: the module goes while watched, its sites go with it
	check "${mod}_unloads_while_watched" modprobe -r "$mod"
	check "${mod}_detached_record" wait_for_line "$MRT_OUT" "\"event\":\"modules_changed\".*\"unloaded\":\\[[^]]*\"$mod\".*\"site\":\"$first\"" 60
	check "${mod}_gone" sh -c "! grep -q '^$mod ' /proc/modules"
done
note "drivers loaded: $n"
check watch_stops mrt_stop
