# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/cases/kretmiss.sh - issue 34 item 6: kretprobes that miss their
# returns (the kprobe flavour, 5.10).  A kretprobe has maxactive instances;
# 5.10's default without CONFIG_PREEMPTION (Debian's kernel) is one per
# possible CPU, two in this guest, so a third thread asleep inside the
# registration path at once loses its return.  tests/helpers/kretmiss puts
# 16 threads of one process in ib_umem_get at once (they sleep on the mmap
# lock, which a 17th thread keeps taking for writing with mprotect),
# then, after 1 s of quiet, fails one registration on each thread, one
# thread at a time (PROT_NONE: EFAULT).  Each thread whose return was missed kept a context
# that every later registration of it nested into: the late failures were
# swallowed (none reported before the staleness check), and the misses
# were not counted anywhere before missed_returns.  The quiet was 12 s
# while only age (10 s) told a dead context; since 2026-12-06 the late
# opener's stack pointer does (entered no deeper than the dead context's
# outermost opener: a later call), so 1 s is enough, and with 1 s this case
# fails without that test.
# A userfaultfd range does not hold a thread here: 5.10's long-term pin
# faults without FAULT_FLAG_ALLOW_RETRY, and handle_userfault then fails the
# fault at once (measured: EFAULT after 7 ms; `kretmiss uffd` notes it).
# Skipped where reg_mr is not a kretprobe.  On 6.12 (module sites armed by
# kprobes so that no unload is refused) it misses as well and passes; there a
# userfaultfd range does block the pin (measured: still inside after 2 s).
# From 6.7 the kernel counts a kprobe's misses itself (issue 48): the case
# runs on newest too, for that count (the stop record's probes_missed_by,
# the closing line, the metric; ~30 s); on 5.10 it proves the stop record
# says that the kernel does not count them (probes_miss_uncounted), never 0.
# 6.1 and 6.12 skip it (KRETMISS_ALL=1 runs it there).
# vm-timeout: 300
. "$TOP/tests/vm/mrt-lib.sh"
KRETMISS=$TOP/build/tests/helpers/kretmiss
THREADS=16

# make test runs it where the issue lies, the kprobe flavour of the whole
# trail (5.x): on 6.x the module sites' kretprobes miss alike and the case
# passed (6.12: 41 s), but it repeats the same trail code at ~40 s a kernel
# and its 17 threads of kprobe hits made TCG's text-patching race kill a
# 6.12 boot (measured 2026-12-05).  KRETMISS_ALL=1 in the guest runs it anyway.
kmajor=$(uname -r | cut -d. -f1)
kminor=$(uname -r | cut -d. -f2)
# ...and where the kernel counts a kprobe's misses itself (6.7: the link's
# info says them; issue 48): that count must show what the trail found
counts=false
{ [ "$kmajor" -gt 6 ] || { [ "$kmajor" = 6 ] && [ "$kminor" -ge 7 ]; }; } && counts=true
# make test runs it on 5.x (the trail) and on 7.x (the count): 6.12 counts
# as 7.x does, and its ~40 s there would prove nothing newest does not
[ "$kmajor" -lt 6 ] || [ "$kmajor" -ge 7 ] || [ "${KRETMISS_ALL:-0}" = 1 ] ||
	skip "kernel $(uname -r): the kprobe-flavour trail is 5.x's, the kernel's miss count newest's (make test's time; KRETMISS_ALL=1 runs it)"
mech=$("$MRTRACE" watch --list-probes --json 2>/dev/null | jq -r '.[] | select(.site=="reg_mr") | .mechanism')
[ "$mech" = kprobe ] || skip "reg_mr is armed by ${mech:-nothing} here, not a kretprobe"

note "$("$KRETMISS" uffd rxe0 2>&1) (a userfaultfd range: does the pinning fault wait?)"

PROM=$CASE_OUT/kretmiss.prom
check watch_starts mrt_start kretmiss --metrics-textfile="$PROM" --metrics-interval=1
timeout 200 "$KRETMISS" contend rxe0 "$THREADS" 5 1 > "$CASE_OUT/helper.txt" 2>&1
cat "$CASE_OUT/helper.txt"
pid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$CASE_OUT/helper.txt")
check helper_late_failures grep -q "late_failures=$THREADS errno=14" "$CASE_OUT/helper.txt"
sleep 3 # the storm's summaries: identical failures of one process fold
check watch_stops mrt_stop

stop=$(grep -m1 '"event":"stop"' "$MRT_OUT")
note "stop: $(echo "$stop" | jq -c '{registrations_seen,failures_seen,stale_contexts,missed_returns,drops}')"
# the misses are counted...
jq_true missed_returns_counted "$stop" '.missed_returns > 0'
# ...and the contexts they left were dropped at each thread's late failure
jq_true stale_contexts_dropped "$stop" '.stale_contexts > 0 and .drops==0 and .context_map_full==0'
# the kernel trail saw every late failure (the helper's are the only ones
# while watch runs)...
# ...and every late failure is a record of its own with the kernel's trail
# (sent, or folded into a storm whose counts add up to it), none swallowed as
# a nested step (the libibverbs uprobe alone would report it without a trail)
late=$(jq -s "[.[] | select(.event==\"reg_failure\" and .pid==${pid:-0} and .errno==14 and (.trail | length) > 0) | (.count // 1)] | add // 0" "$MRT_OUT")
if [ "$kmajor" -lt 6 ] || [ "${KRETMISS_ALL:-0}" = 1 ]; then
	jq_true trail_saw_late_failures "$stop" ".failures_seen==$THREADS"
	check late_failures_reported test "$late" = "$THREADS"
else
	# 7.2 (measured 2026-12-07): the entry kprobes miss too (6 to 217 per
	# site, the kernel's count), and in one run of two 3 of the 16 late
	# failures went unseen: not the trail's loss but the kernel's, so here
	# the case asks that no loss is silent
	note "late failures reported: $late of $THREADS"
	jq_true lost_failures_are_counted "$stop" "(.failures_seen==$THREADS and $late==$THREADS) or .probes_missed > 0"
fi
# the kernel's own count of the probes that missed (issue 48): from 6.7 on
# the kretprobes' exhausted instances are said per site; before, the stop
# record and the closing line say that this kernel does not count them
if $counts; then
	jq_true kernel_counts_probe_misses "$stop" '.probes_missed > 0 and
		([.probes_missed_by[]? | select(.side=="exit" and .missed > 0)] | length) > 0'
	check closing_line_names_misses grep -q 'probe hits missed: their programs never ran' "$MRT_OUT.err"
	check metrics_probes_missed awk '$1=="mrtrace_watch_probes_missed_total" { found=1; n=$2 }
		END { print "mrtrace_watch_probes_missed_total " n; exit !(found && n > 0) }' "$PROM"
else
	jq_true uncounted_probes_said "$stop" '.probes_miss_uncounted > 0 and .probes_missed == 0'
	check closing_line_says_uncounted grep -q 'this kernel does not count the misses of' "$MRT_OUT.err"
fi
note "misses: $(echo "$stop" | jq -c '{probes_missed,probes_miss_uncounted,probes_missed_by}')"
check metrics_missed_returns awk '$1=="mrtrace_watch_missed_returns_total" { found=1; n=$2 }
	END { print "mrtrace_watch_missed_returns_total " n; exit !(found && n > 0) }' "$PROM"
