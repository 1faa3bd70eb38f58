# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tests/vm/boot-lib.sh - the host side of one VM boot, shared by
# tests/vm/run.sh (x86) and tests/vm-arm64/run.sh: watch the serial console,
# kill a silent guest, retry a boot that never reached the script, and turn
# what the guest left in $OUT into the exit status.
#
# Sourced after the caller has set up everything its qemu needs:
#   QEMU (array, the command without -serial/-monitor), RUN (private temp
#   dir), OUT (the shared out dir), KVER, ARGV (array, for messages), MEM,
#   SMP, STALL, TIMEOUT, RETRIES, QUIET, OUT_IS_TEMP, TAIL_PID (empty), and
#   the functions say and warn.
# Then `vm_boot` boots (and retries) and exits with the verdict.

# Seconds.centiseconds since $1 (a ${EPOCHREALTIME/./} stamp).
since() { local d=$(( ${EPOCHREALTIME/./} - $1 )); printf '%d.%02d' $((d / 1000000)) $(( d % 1000000 / 10000 )); }

# Reads qemu's serial output: timestamps each line into serial.log (and the
# terminal unless quiet), notes when the script started, and kills qemu
# after STALL s without a line. The verdict goes to $RUN/stamp.
vm_stamp_serial() {
	local line r killed='' started=''
	while :; do
		r=0; IFS= read -r -t "$STALL" line || r=$?
		if [ $r -gt 128 ]; then   # read timed out: no output for STALL s
			if [ -z "$killed" ]; then
				line="HOST: no serial output for ${STALL}s, killing qemu"
				printf '[+%7s] %s\n' "$(since "$Q0")" "$line" >> "$OUT/serial.log"
				[ -n "$QUIET" ] || printf '[+%7s] %s\n' "$(since "$Q0")" "$line"
				killed=1; echo stall >> "$RUN/stamp"
				kill "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null || kill "$QPID" 2>/dev/null
			else                  # still alive 1 STALL later: no mercy
				kill -KILL "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null
			fi
			continue
		fi
		[ $r = 0 ] || [ -n "$line" ] || break   # EOF
		line=${line%$'\r'}
		line=$(printf '[+%7s] %s' "$(since "$Q0")" "$line")
		printf '%s\n' "$line" >> "$OUT/serial.log"
		[ -n "$QUIET" ] || printf '%s\n' "$line"
		if [ -z "$started" ] && [[ $line == *"vm-init["*"]: running "* ]]; then
			started=1; echo "started $(since "$Q0")" >> "$RUN/stamp"
		fi
		[ $r = 0 ] || break
	done
}

# Boots until the script started (at most RETRIES more times), then exits
# with the script's status, or 124 (hung) / 125 (failed without a status).
vm_boot() {
	local attempt=0 qrc rc msg why BOOT WALL summary
	# From here on, failures are handled one by one: no errexit.
	set +e
	while :; do
		attempt=$((attempt + 1))
		rm -f "$RUN/qemu.pid" "$RUN/stamp" "$RUN/serial.fifo" "$OUT"/.vm-started "$OUT"/.vm-status "$OUT"/.vm-setup-error
		mkfifo "$RUN/serial.fifo"
		say "kernel $KVER (try $attempt), TCG${TCG_THREAD:+ thread=$TCG_THREAD} mem=${MEM}M smp=$SMP, stall ${STALL}s, timeout ${TIMEOUT}s: ${ARGV[*]}"
		Q0=${EPOCHREALTIME/./}
		# qemu runs in the background so that its pid is ours to kill;
		# timeout bounds the whole boot even if the guest keeps printing.
		timeout -k 10 "$TIMEOUT" "${QEMU[@]}" -monitor none -serial stdio \
			</dev/null >"$RUN/serial.fifo" 2>&1 &
		QPID=$!
		if [ -n "$QUIET" ]; then
			# The guest appends to script.log over 9p, so the host file
			# grows live: follow it. tail drains and ends once qemu is gone.
			tail -n +1 -s 0.2 -f --pid="$QPID" "$OUT/script.log" &
			TAIL_PID=$!
		fi
		vm_stamp_serial < "$RUN/serial.fifo"
		wait "$QPID"; qrc=$?
		QPID=
		if [ -n "$TAIL_PID" ]; then wait "$TAIL_PID" 2>/dev/null || true; TAIL_PID=; fi
		WALL=$(since "$Q0")
		[ $qrc = 124 ] && echo timeout >> "$RUN/stamp"
		[ -f "$OUT/.vm-started" ] && break
		[ "$attempt" -gt "$RETRIES" ] && break
		# Never reached the script: an early-boot failure (e.g. the TCG
		# "Oops: int3"), worth exactly one more boot.
		warn "boot $attempt never reached the script (qemu rc $qrc$(grep -q stall "$RUN/stamp" 2>/dev/null && echo ', stalled')); retrying; its console is in $OUT/serial.try$attempt.log"
		[ -f "$OUT/.vm-setup-error" ] && warn "guest setup error: $(cat "$OUT/.vm-setup-error")"
		mv -f "$OUT/serial.log" "$OUT/serial.try$attempt.log" 2>/dev/null || true
	done

	# ---- verdict: only the guest's status file can make this a success ----
	BOOT=$(awk '$1 == "started" { print $2 }' "$RUN/stamp" 2>/dev/null)
	if [ -f "$OUT/.vm-status" ] && [[ $(cat "$OUT/.vm-status") =~ ^[0-9]+$ ]]; then
		rc=$(cat "$OUT/.vm-status")
		msg="script exit $rc"
	else
		if grep -qE 'stall|timeout' "$RUN/stamp" 2>/dev/null; then
			rc=124
			grep -q stall "$RUN/stamp" && why="no serial output for ${STALL}s" || why="overall timeout ${TIMEOUT}s"
		else
			rc=125
			why="VM ended without a status (qemu rc $qrc)"
			grep -qE 'Kernel panic|Oops|BUG:' "$OUT/serial.log" 2>/dev/null &&
				why="$why; kernel: $(grep -m1 -E 'Kernel panic|Oops|BUG:' "$OUT/serial.log" | cut -c1-160)"
		fi
		[ -f "$OUT/.vm-setup-error" ] && why="$why; guest setup error: $(cat "$OUT/.vm-setup-error")"
		if [ -f "$OUT/.vm-started" ]; then msg="FAILED: script started but did not finish: $why"
		else msg="FAILED: boot never reached the script: $why"; fi
	fi
	[ -n "$BOOT" ] && BOOT=${BOOT}s || BOOT=n/a
	summary="kernel $KVER, boot-to-script $BOOT, wall ${WALL}s (try $attempt), $msg"
	if [ -n "$QUIET" ]; then
		if [ "$rc" != 0 ]; then
			warn "$summary"
			warn "out dir $OUT (serial.log, script.log)"
		elif [ -n "$OUT_IS_TEMP" ]; then
			rm -rf -- "$OUT"   # nobody could find it: it was never printed
		fi
	else
		say "$summary"
		say "out dir $OUT"
	fi
	exit "$rc"
}

# The EXIT trap of both runners: qemu, the console follower, the temp dir.
vm_cleanup() {
	local p
	for p in "$(cat "$RUN/qemu.pid" 2>/dev/null)" "$QPID" "$TAIL_PID"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null || true
	done
	rm -rf "$RUN"
}
