#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/suite-fleet.sh - mrtrace on every node: install, identity, the
# systemd service (verify, security score, sd_notify, journald fields),
# Prometheus (promtool, node_exporter scrape), Slurm (a real single-node
# slurmctld + slurmd with munge on a private socket: prolog drains, epilog
# collects, limit propagation), Kubernetes (manifests against the API
# models, pod names from a kubelet-like tree, the image), the configuration
# file, and least privilege (watch under setpriv with the documented set,
# and without each capability).
#
# Everything runs with Debian's packages alone (tools/deps.sh fleet); a part
# whose package is missing is skipped with the reason and counted.  Needs
# root.  Ends with "host-fleet: N passed, M failed, K skipped".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MRTRACE=$TOP/build/mrtrace
MLOCKER=$TOP/build/tests/helpers/mlocker
OUT=$TOP/build/host-fleet
PY=/usr/bin/python3 # Debian's, with python3-kubernetes and python3-yaml
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"
T0=$(date +%s)
have() { command -v "$1" >/dev/null 2>&1; }
has() { [[ $1 == *"$2"* ]]; }      # has STRING PART
hasnt() { [[ $1 != *"$2"* ]]; }
is() { [ "$1" = "$2" ]; }
one_line80() { [ ${#1} -le 80 ] && [[ $1 != *$'\n'* ]]; }
finish() {
	echo "host-fleet: $PASS passed, $FAIL failed, $SKIP skipped ($(( $(date +%s) - T0 )) s)"
	[ "$FAIL" = 0 ]
	exit
}
# start_watch NAME ARGS...: mrtrace watch --json (no configuration file),
# run by the command in WATCH_UNDER (an array) when set
WATCH_UNDER=()
start_watch() {
	local name=$1; shift
	W=$OUT/$name.jsonl
	"${WATCH_UNDER[@]}" "$MRTRACE" watch --no-config --json "$@" > "$W" 2> "$W.err" &
	WPID=$!
	wait_line "$W" '"event":"start"' 30 || { cat "$W.err"; return 1; }
}
stop_watch() {
	kill -INT "$WPID" 2>/dev/null
	local i
	for i in $(seq 100); do kill -0 "$WPID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$WPID" 2>/dev/null && { kill -KILL "$WPID"; return 1; }
	wait "$WPID"
}
pid_of() { sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$1"; }
event_of() { # KIND PID
	wait_line "$W" "\"event\":\"$1\",[^}]*\"pid\":$2," 10
	jq -c "select(.event==\"$1\" and .pid==$2)" "$W"
}
# a failing mlock as nobody under a 64 KiB limit; prints the helper's pid
fail_mlock() { # [ENV=V...] -- extra environment for the helper
	env "$@" prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 > "$OUT/ml.txt" 2>&1
	pid_of "$OUT/ml.txt"
}
# The same, from a process that stays a moment (as a failing job does), so
# its /proc (environment, executable) can be read: python's mlock via ctypes.
LINGER_PY='
import ctypes, mmap, os, time
libc = ctypes.CDLL(None, use_errno=True)
m = mmap.mmap(-1, 1 << 20)
r = libc.mlock(ctypes.addressof(ctypes.c_char.from_buffer(m)), 1 << 20)
print("pid=%d mlock result=%s errno=%d" % (os.getpid(), "FAIL" if r else "OK", ctypes.get_errno()), flush=True)
time.sleep(1.5)
'
fail_mlock_linger() { # [ENV=V...]
	env "$@" prlimit --memlock=65536:65536 $NOBODY "$PY" -c "$LINGER_PY" > "$OUT/mll.txt" 2>&1
	pid_of "$OUT/mll.txt"
}
# A datagram listener: each datagram decoded (journald native protocol or
# sd_notify's KEY=value lines) to one JSON object per line in OUTFILE.
LISTEN_PY='
import json, os, socket, struct, sys, time
path, out, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path); s.settimeout(0.2)
end = time.time() + secs
with open(out, "a") as f:
    while time.time() < end:
        try:
            d = s.recv(1 << 20)
        except socket.timeout:
            continue
        fields, i = {}, 0
        while i < len(d):
            nl = d.find(b"\n", i)
            nl = len(d) if nl < 0 else nl
            line = d[i:nl]
            if b"=" in line:
                k, v = line.split(b"=", 1); i = nl + 1
            else:
                k = line; n = struct.unpack("<Q", d[nl + 1:nl + 9])[0]
                v = d[nl + 9:nl + 9 + n]; i = nl + 9 + n + 1
            fields[k.decode()] = v.decode("utf-8", "replace")
        fields["_t"] = time.time()  # when it came (when the watchdog kicked)
        f.write(json.dumps(fields) + "\n"); f.flush()
'
listen() { # SOCKET OUTFILE SECONDS: in the background, LPID
	rm -f "$1" "$2"; touch "$2"
	"$PY" -c "$LISTEN_PY" "$1" "$2" "$3" & LPID=$!
	local i; for i in $(seq 50); do [ -S "$1" ] && return 0; sleep 0.1; done
	return 1
}

[ "$(id -u)" = 0 ] || { echo "host-fleet needs root"; echo "host-fleet: 0 passed, 1 failed, 0 skipped"; exit 1; }
for b in "$MRTRACE" "$MLOCKER"; do
	[ -x "$b" ] || { echo "missing $b: run 'make host'"; echo "host-fleet: 0 passed, 1 failed, 0 skipped"; exit 1; }
done
have jq || { echo "jq missing (tools/deps.sh test)"; echo "host-fleet: 0 passed, 1 failed, 0 skipped"; exit 1; }
HAVE_PY=0; [ -x "$PY" ] && HAVE_PY=1

echo "  [$(( $(date +%s) - T0 ))s]"

# ---- 1. identity: --version, schema and version in every JSON document ---
v=$("$MRTRACE" --version)
check version_line sh -c "printf '%s' '$v' | grep -Eq '^mrtrace [0-9A-Za-z][0-9A-Za-z.+_-]*$'"
check version_short_flag test "$("$MRTRACE" -V)" = "$v"
check version_on_subcommand test "$("$MRTRACE" check --version)" = "$v"
ver=${v#mrtrace }
doc=$("$MRTRACE" check --no-config --json)
jq_true check_json_schema_version "$doc" ".schema==\"mrtrace-check/1\" and .mrtrace_version==\"$ver\""
"$MRTRACE" watch --no-config --json -d 1 > "$OUT/id.jsonl" 2>/dev/null
n_all=$(wc -l < "$OUT/id.jsonl")
n_stamped=$(jq -c "select(.schema==\"mrtrace-watch/1\" and .mrtrace_version==\"$ver\")" "$OUT/id.jsonl" | wc -l)
check watch_every_record_stamped test "$n_all" -ge 2 -a "$n_all" = "$n_stamped"

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 2. configuration file ---------------------------------------------------
C=$OUT/conf
prlimit --memlock=8388608:8388608 $NOBODY sleep 10 & SLP0=$!   # a process without CAP_IPC_LOCK
wait_exec $SLP0 sleep
mkdir -p "$C/m.conf.d"
printf '# thresholds\n[check]\nrequire-rdma = yes\nmin-memlock = 1T\nhealth-ignore = rdma.*\n' > "$C/m.conf"
line=$("$MRTRACE" check --config "$C/m.conf" --health -p $SLP0); rc=$?
check config_threshold_applies has "$rc $line" "2 mrtrace: FAIL memlock: process limit"
printf '[check]\nmin-memlock = 64K\n' > "$C/m.conf.d/50-small.conf"
line=$("$MRTRACE" check --config "$C/m.conf" --health -p $SLP0); rc=$?
check config_dropin_overrides hasnt "$line" "FAIL memlock"
rm -f "$C/m.conf.d/50-small.conf"
line=$("$MRTRACE" check --config "$C/m.conf" --min-memlock=64K --health -p $SLP0); rc=$?
kill $SLP0
check config_command_line_wins hasnt "$line" "FAIL memlock"
printf '[check]\nmin-memlok = 1G\n' > "$C/typo.conf"
"$MRTRACE" check --config "$C/typo.conf" --health > /dev/null 2> "$OUT/typo.err"; rc=$?
check config_typo_names_file_line sh -c "[ $rc = 3 ] && grep -q 'typo.conf:2.*min-memlok' '$OUT/typo.err'"
# issue 31: a misspelt section and a bad value from the file name file:line
printf '[watch]\njson = yes\n[wach]\nsyscalls = on\n' > "$C/sec.conf"
"$MRTRACE" watch --config "$C/sec.conf" -d 1 > /dev/null 2> "$OUT/sec.err"; rc=$?
check config_unknown_section_names_file_line sh -c "[ $rc = 2 ] && grep -q 'sec.conf:3: unknown section \[wach\]' '$OUT/sec.err'"
printf '[service]\nmetrics-interval = often\n' > "$C/val.conf"
"$MRTRACE" watch --config "$C/val.conf" --service -d 1 > /dev/null 2> "$OUT/val.err"; rc=$?
check config_bad_value_names_file_line sh -c "[ $rc != 0 ] && grep -q 'val.conf:2: invalid --metrics-interval' '$OUT/val.err'"
check config_missing_named_file sh -c "'$MRTRACE' check --config '$C/none.conf' --health; [ \$? = 3 ]"
printf '[watch]\nsyscalls = on\n[service]\njournal = no\nmetrics-textfile = %s\n' "$C/svc.prom" > "$C/w.conf"
"$MRTRACE" watch --config "$C/w.conf" --service -d 1 > "$OUT/svc.jsonl" 2>/dev/null
check config_service_section_applies test -s "$C/svc.prom"
jq_true config_service_means_json "$(head -1 "$OUT/svc.jsonl")" '.event=="start"'
"$MRTRACE" watch --config "$C/w.conf" -d 1 > /dev/null 2>&1
check config_service_section_only_with_service sh -c "rm -f '$C/svc.prom'; '$MRTRACE' watch --config '$C/w.conf' -d 1 >/dev/null 2>&1; [ ! -e '$C/svc.prom' ]"

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 3. make install into a temporary DESTDIR ---------------------------------
# In a build directory of its own: PREFIX=/usr is built into the binaries
# (the docs' path), so an install from build/ relinked build/mrtrace for
# /usr, and the next `make all` relinked it back, under the VM suites that
# run it from build/ in make test's other lane (and it made 5.10's systemd
# boot rebuild the package: its binary was newer than the lane's .deb).
D=$OUT/destdir
IB=$OUT/install-build
inst() { make -s -C "$TOP" BUILD="$IB" DESTDIR="$D" PREFIX=/usr "$@"; }
if inst install > "$OUT/install.log" 2>&1; then
	ok install_runs
	# the installed build's own version (the tree may have moved since
	# build/ was made)
	ver=$("$D/usr/sbin/mrtrace" --version); ver=${ver#mrtrace }
	(cd "$D" && find . -type f -o -type l | sort) > "$OUT/files.txt"
	want="./etc/mrtrace/mrtrace.conf ./usr/lib/systemd/system/mrtrace-check.service
		./usr/lib/systemd/system/mrtrace-check.timer ./usr/lib/systemd/system/mrtrace.service
		./usr/lib/tmpfiles.d/mrtrace.conf
		./usr/libexec/mrtrace/slurm-epilog ./usr/libexec/mrtrace/slurm-prolog
		./usr/bin/mrprobe ./usr/sbin/mrtrace ./usr/bin/mrtrace
		./usr/share/bash-completion/completions/mrtrace
		./usr/share/bash-completion/completions/mrprobe
		./usr/share/doc/mrtrace/deploy.md ./usr/share/man/man1/mrprobe.1
		./usr/share/doc/mrtrace/causes.md ./usr/share/doc/mrtrace/json.md
		./usr/share/doc/mrtrace/check.md ./usr/share/doc/mrtrace/context.md
		./usr/share/doc/mrtrace/mrprobe.md ./usr/share/doc/mrtrace/logs.md
		./etc/logrotate.d/mrtrace ./usr/share/mrtrace/prometheus/mrtrace.rules.yml
		./usr/share/mrtrace/prometheus/mrtrace.rules.test.yml ./usr/libexec/mrtrace/slurm-healthcheck
		./usr/share/man/man8/mrtrace.8 ./usr/share/mrtrace/nhc/mrtrace.nhc
		./usr/share/mrtrace/k8s/daemonset.yaml ./usr/share/mrtrace/k8s/service.yaml
		./usr/share/mrtrace/k8s/configmap.yaml ./usr/share/mrtrace/k8s/namespace.yaml
		./usr/share/mrtrace/k8s/Containerfile ./usr/share/mrtrace/k8s/monitoring/podmonitor.yaml
		./usr/share/mrtrace/k8s/seccomp/mrtrace-watch.json"
	# the external BTF files for kernels without module BTF
	want="$want $(cd "$TOP" && ls btf/*.btf | sed 's|^|./usr/share/mrtrace/|')"
	missing=
	for f in $want; do grep -qxF "$f" "$OUT/files.txt" || missing="$missing $f"; done
	check install_file_list test -z "$missing"
	[ -z "$missing" ] || echo "  missing:$missing"
	check install_nothing_unexpected test "$(wc -l < "$OUT/files.txt")" = "$(echo $want | wc -w)"
	check install_binaries_run "$D/usr/sbin/mrtrace" --version
	# explain, check and diff need no root, and a user's PATH has no sbin
	# (issue 48 item E): /usr/bin/mrtrace, a relative link to the binary
	check install_user_path_link test "$(readlink "$D/usr/bin/mrtrace")" = ../sbin/mrtrace
	check install_user_path_runs "$D/usr/bin/mrtrace" --version
	# the installed DaemonSet names the image `make image` tags for this build
	tags=$("$TOP/deploy/k8s/build-image.sh" --tags "$D/usr/sbin/mrtrace")
	img=$(sed -n 's/^ *image: //p' "$D/usr/share/mrtrace/k8s/daemonset.yaml" | sort -u)
	check install_daemonset_image_is_built_tag sh -c "[ '$img' = \"\$(printf '%s\n' '$tags' | head -1)\" ] && [ '$img' = 'localhost/mrtrace:${ver//+/_}' ]"
	check install_unit_execstart_follows_prefix grep -q '^ExecStart=/usr/sbin/mrtrace watch --service$' "$D/usr/lib/systemd/system/mrtrace.service"
	# every doc an output or the man page points to is installed at the path it names
	docs_named() { { "$D/usr/sbin/mrtrace" watch --help; "$D/usr/sbin/mrtrace" check --help
		"$D/usr/sbin/mrtrace" explain --help; cat "$D/usr/share/man/man8/mrtrace.8"; } |
		tr -s ' \n' '  ' | grep -o '/usr/share/doc/mrtrace/[a-z]*\.md' | sort -u; }
	named=$(docs_named)
	check install_help_names_installed_json grep -q /usr/share/doc/mrtrace/json.md <<< "$named"
	check install_help_names_installed_check grep -q /usr/share/doc/mrtrace/check.md <<< "$named"
	check install_man_names_installed_causes grep -q /usr/share/doc/mrtrace/causes.md <<< "$named"
	# which inputs explain reads (issue 48 item F)
	check install_help_names_installed_logs grep -q /usr/share/doc/mrtrace/logs.md <<< "$named"
	missing=; for f in $named; do [ -f "$D$f" ] || missing="$missing $f"; done
	check install_named_docs_exist test -z "$missing"
	[ -z "$missing" ] || echo "  named, not installed:$missing"
	echo '# mine' >> "$D/etc/mrtrace/mrtrace.conf"
	inst install > /dev/null 2>&1
	check install_keeps_operator_config grep -q '^# mine$' "$D/etc/mrtrace/mrtrace.conf"
	# the man pages render without a warning
	for m in man8/mrtrace.8 man1/mrprobe.1; do
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$D/usr/share/man/$m" 2>&1 >/dev/null)
		n=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$D/usr/share/man/$m" 2>/dev/null | wc -l)
		m=${m#*/}; m=${m%.*}
		check "man_${m}_renders" test -z "$w" -a "$n" -gt 40
	done
	# the SYNOPSIS names every option each command's --help lists (long
	# or short form), and the page has an ENVIRONMENT section
	syn=$(LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$D/usr/share/man/man8/mrtrace.8" 2>/dev/null | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p')
	missing=
	for c in watch check diff explain; do
		while IFS='|' read -r short long; do
			grep -qE -- "(^|[^a-z-])($long|${short:-@})([^a-z-]|$)" <<< "$syn" || missing="$missing $c:$long"
		done < <("$MRTRACE" $c --help | sed -n 's/^ *\(-[A-Za-z?]\)\?,\? *\(--[a-z][a-z0-9-]*\).*/\1 \2/p' |
			awk 'NF == 1 { print "|" $1; next } { print $1 "|" $2 }' | grep -vE -- '--(usage|help|version)$')
	done
	check man_synopsis_complete test -z "$missing"
	[ -z "$missing" ] || echo "  not in SYNOPSIS:$missing"
	check man_environment_section sh -c "man -l '$D/usr/share/man/man8/mrtrace.8' 2>/dev/null | grep -q '^ENVIRONMENT' && man -l '$D/usr/share/man/man8/mrtrace.8' 2>/dev/null | grep -q 'WATCHDOG_USEC'"
	check man_documents_capabilities sh -c "man -l '$D/usr/share/man/man8/mrtrace.8' 2>/dev/null | grep -q CAP_SYS_PTRACE"
	# bash completion: syntax, then a real completion
	COMP=$D/usr/share/bash-completion/completions/mrtrace
	check completion_syntax bash -n "$COMP"
	got=$(bash -c "source '$COMP'; COMP_WORDS=('$MRTRACE' watch --metr); COMP_CWORD=2; _mrtrace; echo \"\${COMPREPLY[*]}\"")
	check completion_watch_options has "$got" "--metrics-interval --metrics-textfile"
	got=$(bash -c "source '$COMP'; COMP_WORDS=('$MRTRACE' ch); COMP_CWORD=1; _mrtrace; echo \"\${COMPREPLY[*]}\"")
	check completion_subcommand test "$got" = check
	comp() { # WORDS...: what completing the last word offers
		local w; w=$(printf "'%s' " "$@")
		bash -c "source '$COMP'; COMP_WORDS=($w); COMP_CWORD=$(($# - 1)); _${1##*/}; echo \"\${COMPREPLY[*]}\""
	}
	check completion_every_subcommand test "$(comp "$MRTRACE" '')" = "watch check diff explain help -h --help -V --version"
	check completion_explain_options has "$(comp "$MRTRACE" explain --a)" "--all"
	check completion_syscalls_value test "$(comp "$MRTRACE" watch --syscalls o)" = "on off"
	check completion_syscalls_equals_value test "$(comp "$MRTRACE" watch --syscalls = a)" = "auto"
	check completion_journal_value test "$(comp "$MRTRACE" watch --journal '')" = "yes no auto"
	check completion_require_rdma_value test "$(comp "$MRTRACE" check --require-rdma p)" = "partition:"
	check completion_health_options has "$(comp "$MRTRACE" check --he)" "--health --health-ignore"
	check completion_mrprobe_options has "$(comp "${MRTRACE%/*}/mrprobe" --find)" "--find-max"
	check completion_mrprobe_api test "$(comp mrprobe --api '')" = "reg_mr iova2 dmabuf"
	check completion_mrprobe_installed test "$(readlink "$D/usr/share/bash-completion/completions/mrprobe")" = mrtrace
	# every subcommand takes -h
	for c in watch check diff explain; do
		check "help_short_$c" sh -c "'$MRTRACE' $c -h | grep -q '^Usage: mrtrace $c'"
	done
	check help_short_mrprobe sh -c "'${MRTRACE%/*}/mrprobe' -h | grep -q '^Usage: mrprobe'"
	check help_short_not_after_dashdash sh -c "'$MRTRACE' watch --no-config -d 1 -- sh -c 'echo \"\$1\"' x -h 2>/dev/null | grep -qx -- -h"
	inst uninstall > /dev/null 2>&1
	check uninstall_leaves_only_config test "$(cd "$D" && find . -type f -o -type l | grep -v '^./etc/' | wc -l)" = 0
else
	bad install_runs "$(tail -3 "$OUT/install.log")"
fi

echo "  [$(( $(date +%s) - T0 ))s]"
ver=$("$MRTRACE" --version); ver=${ver#mrtrace }
# ---- 4. the systemd unit -----------------------------------------------------
UNIT_SET="CAP_BPF CAP_PERFMON CAP_SYS_ADMIN CAP_SYS_PTRACE CAP_DAC_READ_SEARCH"
unit_caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$TOP/contrib/systemd/mrtrace.service")
check unit_capability_set test "$unit_caps" = "$UNIT_SET"
if have systemd-analyze; then
	U=$OUT/units
	mkdir -p "$U"
	for u in mrtrace.service mrtrace-check.service mrtrace-check.timer; do
		sed "s|/usr/sbin/mrtrace|$MRTRACE|g" "$TOP/contrib/systemd/$u" > "$U/$u"
	done
	check unit_verify sh -c "cd '$U' && systemd-analyze verify --man=no ./mrtrace.service ./mrtrace-check.service ./mrtrace-check.timer"
	# the exposure score, offline; the bound is docs/deploy.md's
	score=$(cd "$U" && systemd-analyze security --offline=true ./mrtrace.service 2>/dev/null |
		sed -n 's/.*Overall exposure level for mrtrace.service: \([0-9.]*\).*/\1/p')
	# (2.6: ProtectKernelTunables= would hide /proc/kallsyms, docs/deploy.md)
	echo "  exposure score: ${score:-?} (bound 2.6)"
	check unit_security_score_bound awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.6) }'
	check unit_after_rdma grep -q '^After=.*rdma-hw.target' "$U/mrtrace.service"
	# What SystemCallFilter= lets through: the allow list less every later
	# `~` list (systemd.exec(5)), groups expanded. Every kprobe, tracepoint
	# and pre-6.6 uprobe attaches through perf_event_open (in @debug).
	filter_syscalls() {
		local i x
		for i in "$@"; do
			case $i in
			@*) systemd-analyze syscall-filter "$i" 2>/dev/null | sed -n '2,$s/^ *//p' |
				grep -v -e '^#' -e '^$' | while read -r x; do filter_syscalls "$x"; done ;;
			*) echo "$i" ;;
			esac
		done
	}
	allow=$(filter_syscalls $(sed -n 's/^SystemCallFilter=\([^~]\)/\1/p' "$U/mrtrace.service") | sort -u)
	deny=$(filter_syscalls $(sed -n 's/^SystemCallFilter=~//p' "$U/mrtrace.service") | sort -u)
	effective=$(comm -23 <(echo "$allow") <(echo "$deny"))
	check unit_allows_bpf_perf_event_open sh -c "echo '$effective' | grep -qx bpf && echo '$effective' | grep -qx perf_event_open"
	check unit_denies_ptrace_module sh -c "! echo '$effective' | grep -qx -e ptrace -e pidfd_getfd -e init_module"
	families=$(sed -n 's/^RestrictAddressFamilies=//p' "$U/mrtrace.service")
	check unit_address_families test "$families" = "AF_UNIX AF_NETLINK"
	check unit_host_network sh -c "! grep -q '^PrivateNetwork=yes' '$U/mrtrace.service'"
else
	skip unit_verify "systemd-analyze not installed"
fi

# tools/deps.sh installs the test bench's daemons but leaves none to start at
# the next boot (issue 31): the tests start them privately
enabled=
for p in slurmctld slurmd munge prometheus prometheus-node-exporter rdma-core; do
	for u in $(dpkg -L "$p" 2>/dev/null | grep -E '^(/usr)?/lib/systemd/system/[^/@]+\.(service|timer|socket|path)$' | sed 's|.*/||'); do
		[ "$(systemctl is-enabled "$u" 2>/dev/null)" = enabled ] && enabled="$enabled $u"
	done
done
check deps_left_no_unit_enabled sh -c "echo 'enabled:${enabled:- none}'; [ -z '$enabled' ]"

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 5. sd_notify: READY once the sites are armed, with their count ----------
if [ "$HAVE_PY" = 1 ]; then
	if listen "$OUT/notify.sock" "$OUT/notify.jsonl" 8; then
		NOTIFY_SOCKET=$OUT/notify.sock "$MRTRACE" watch --no-config --json -d 2 > "$OUT/n.jsonl" 2>/dev/null
		wait "$LPID" 2>/dev/null
		ready=$(jq -c 'select(.READY=="1")' "$OUT/notify.jsonl" | head -1)
		armed=$(jq -r 'select(.event=="start") | .armed_sites' "$OUT/n.jsonl")
		jq_true notify_ready_with_status "$ready" ".STATUS|test(\"^watching: $armed of [0-9]+ sites armed\")"
		check notify_stopping sh -c "jq -e 'select(.STOPPING==\"1\")' '$OUT/notify.jsonl' >/dev/null"
	else
		bad notify_listener "cannot bind $OUT/notify.sock"
	fi
	# WatchdogSec= (WATCHDOG_USEC 0.6 s): WATCHDOG=1 from the event loop,
	# none while the loop is stopped (SIGSTOP), again once it turns
	if listen "$OUT/wd.sock" "$OUT/wd.jsonl" 10; then
		WATCHDOG_USEC=600000 NOTIFY_SOCKET=$OUT/wd.sock "$MRTRACE" watch --no-config --json -d 6 > /dev/null 2>&1 & WDPID=$!
		wait_line "$OUT/wd.jsonl" '"READY": "1"' 20
		sleep 1.2
		t_stop=$(date +%s.%N); kill -STOP "$WDPID"; sleep 1.5
		t_cont=$(date +%s.%N); kill -CONT "$WDPID"
		wait "$WDPID"; kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null
		n_before=$(jq -s "[.[] | select(.WATCHDOG==\"1\" and ._t < $t_stop)] | length" "$OUT/wd.jsonl")
		n_stalled=$(jq -s "[.[] | select(.WATCHDOG==\"1\" and ._t > $t_stop + 0.05 and ._t < $t_cont - 0.05)] | length" "$OUT/wd.jsonl")
		n_after=$(jq -s "[.[] | select(.WATCHDOG==\"1\" and ._t > $t_cont)] | length" "$OUT/wd.jsonl")
		echo "  watchdog kicks: $n_before before, $n_stalled while stopped, $n_after after"
		check watchdog_kicks_from_loop test "$n_before" -ge 3
		check watchdog_silent_while_stalled test "$n_stalled" = 0 -a "$n_after" -ge 2
		check unit_has_watchdog sh -c "grep -q '^WatchdogSec=' '$TOP/contrib/systemd/mrtrace.service'"
	else
		bad watchdog_listener "cannot bind $OUT/wd.sock"
	fi
else
	skip notify "no $PY"
fi

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 6. journald fields, native protocol: on our socket, then real journald --
if [ "$HAVE_PY" = 1 ] && listen "$OUT/journal.sock" "$OUT/jentries.jsonl" 20; then
	if start_watch journal --syscalls=on --journal --journal-socket="$OUT/journal.sock"; then
		pid=$(fail_mlock)
		lpid=$(fail_mlock_linger SLURM_JOB_ID=4242)
		ev=$(event_of mlock_failure "$lpid")
		stop_watch
		# every entry was sent before watch stopped; the listener writes
		# each one as it reads it: wait for as many as there are records
		n_r=$(jq -c 'select(.event=="mlock_failure")' "$W" | wc -l)
		for i in $(seq 100); do [ "$(wc -l < "$OUT/jentries.jsonl")" -ge "$n_r" ] && break; sleep 0.1; done
		kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null
		e=$(jq -c "select(.MRTRACE_PID==\"$pid\")" "$OUT/jentries.jsonl")
		jq_true journal_fields "$e" '.MRTRACE_CAUSE=="memlock_limit" and .MRTRACE_OP=="mlock" and .MRTRACE_COMM=="mlocker" and .MRTRACE_EVENT=="mlock_failure" and .SYSLOG_IDENTIFIER=="mrtrace"'
		jq_true journal_priority_by_severity "$e" '.PRIORITY=="4"'
		jq_true journal_one_entry_multiline_message "$e" '(.MESSAGE|split("\n")|length) > 3'
		jq_true journal_slurm_job_from_environment "$(jq -c "select(.MRTRACE_PID==\"$lpid\")" "$OUT/jentries.jsonl")" '.MRTRACE_SLURM_JOB=="4242"'
		jq_true json_slurm_job_from_environment "$ev" '.process.slurm_job==4242'
		n_j=$(wc -l < "$OUT/jentries.jsonl")
		n_r=$(jq -c 'select(.event=="mlock_failure")' "$W" | wc -l)
		# (other processes on this machine may fail an mlock meanwhile: count all)
		check journal_one_entry_per_failure test "$n_j" = "$n_r" -a "$n_j" -ge 2
	else
		bad journal_watch_starts "$(tail -2 "$W.err")"
	fi
else
	skip journal_socket "no $PY or no socket"
fi
# redaction (issue 23 item 5): a token in a failing process's command line
# reaches neither the JSON record nor the journal entry with --redact, nor
# with --service (whose default it is); without it the same line carries
# it, so the check cannot pass on a command line that was never read
TOKEN=ghp_R3dactM3N0w0123456789abcdefGHIJ
fail_mlock_token() { # prints the helper's pid; it stays 1.5 s for /proc
	MLOCKER_LINGER_MS=1500 prlimit --memlock=65536:65536 $NOBODY "$MLOCKER" 1048576 \
		--hf-token="$TOKEN" --data=/home/alice/corpus > "$OUT/mlt.txt" 2>&1
	pid_of "$OUT/mlt.txt"
}
no_token() { ! grep -qF "${TOKEN#ghp_}" "$@"; }
if [ "$HAVE_PY" = 1 ] && listen "$OUT/jredact.sock" "$OUT/jredact.jsonl" 30; then
	if start_watch redact --syscalls=on --redact --journal --journal-socket="$OUT/jredact.sock"; then
		pid=$(fail_mlock_token)
		ev=$(event_of mlock_failure "$pid")
		stop_watch
		for i in $(seq 50); do grep -q "$pid" "$OUT/jredact.jsonl" && break; sleep 0.1; done
		kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null
		e=$(jq -c "select(.MRTRACE_PID==\"$pid\")" "$OUT/jredact.jsonl")
		jq_true redact_cmdline_reduced "$ev" ".process.cmdline==\"$MLOCKER [redacted]\""
		check redact_token_not_in_json no_token "$W"
		jq_true redact_journal_entry "$e" '.MRTRACE_EVENT=="mlock_failure"'
		check redact_token_not_in_journal no_token "$OUT/jredact.jsonl"
		jq_true severity_json "$ev" '.severity=="warning"'
		jq_true severity_journal "$e" '.MRTRACE_SEVERITY=="warning" and .PRIORITY=="4"'
		jq_true severity_start_stop "$(jq -c 'select(.event=="start" or .event=="stop") | .severity' "$W" | sort -u)" '.=="info"'
	else
		bad redact_watch_starts "$(tail -2 "$W.err")"
	fi
	if start_watch redact-service --service --journal=no --metrics-textfile= --syscalls=on; then
		pid=$(fail_mlock_token)
		ev=$(event_of mlock_failure "$pid")
		stop_watch
		jq_true redact_default_with_service "$ev" ".process.cmdline==\"$MLOCKER [redacted]\""
		check redact_service_token_not_in_json no_token "$W"
	else
		bad redact_service_watch_starts "$(tail -2 "$W.err")"
	fi
	if start_watch redact-plain --syscalls=on; then
		pid=$(fail_mlock_token)
		ev=$(event_of mlock_failure "$pid")
		stop_watch
		jq_true redact_off_without_service "$ev" ".process.cmdline|contains(\"$TOKEN\")"
	else
		bad redact_plain_watch_starts "$(tail -2 "$W.err")"
	fi
else
	skip redact "no $PY or no socket"
fi
JD=/lib/systemd/systemd-journald
if [ -x "$JD" ] && have journalctl && have unshare; then
	cat > "$OUT/journald.sh" <<EOF
set -u
mount -t tmpfs tmpfs /run || exit 3
mkdir -p /run/systemd/journal /run/log/journal /run/jconf
printf '[Journal]\nStorage=volatile\nReadKMsg=no\nForwardToSyslog=no\nForwardToKMsg=no\nForwardToConsole=no\nForwardToWall=no\n' > /run/jconf/journald.conf
mount --bind /run/jconf/journald.conf /etc/systemd/journald.conf || exit 3
$JD & J=\$!
for i in \$(seq 50); do [ -S /run/systemd/journal/socket ] && break; sleep 0.1; done
'$MRTRACE' watch --no-config --json --syscalls=on --journal -d 4 > '$OUT/jd.jsonl' 2>/dev/null & M=\$!
for i in \$(seq 100); do grep -q '"event":"start"' '$OUT/jd.jsonl' 2>/dev/null && break; sleep 0.1; done
prlimit --memlock=65536:65536 $NOBODY '$MLOCKER' 1048576 > /dev/null 2>&1
wait \$M
# journald stores what it received in its own time: until the entry is there
for i in \$(seq 100); do
	journalctl -D /run/log/journal -o json --no-pager SYSLOG_IDENTIFIER=mrtrace > '$OUT/jd-read.jsonl'
	jq -e 'select(.MRTRACE_EVENT=="mlock_failure")' '$OUT/jd-read.jsonl' > /dev/null 2>&1 && break
	sleep 0.1
done
kill \$J; wait \$J 2>/dev/null
EOF
	unshare -m --propagation private bash "$OUT/journald.sh" > "$OUT/journald.log" 2>&1
	if [ $? = 3 ]; then
		skip journald_private "cannot make a private /run here"
	else
		e=$(jq -c 'select(.MRTRACE_EVENT=="mlock_failure")' "$OUT/jd-read.jsonl" | head -1)
		jq_true journald_reads_back_fields "$e" '.MRTRACE_CAUSE=="memlock_limit" and .PRIORITY=="4" and ._TRANSPORT=="journal" and (.MRTRACE_PID|test("^[0-9]+$"))'
	fi
else
	skip journald_private "systemd-journald/journalctl/unshare missing"
fi

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 7. Prometheus: textfile, promtool, node_exporter on 127.0.0.1 -----------
TF=$OUT/textfile
mkdir -p "$TF"
if start_watch metrics --syscalls=on --metrics-textfile="$TF/mrtrace.prom" --metrics-interval=0.2; then
	wait_line "$TF/mrtrace.prom" '^mrtrace_watch_running 1' 5 && cp "$TF/mrtrace.prom" "$OUT/start.prom"
	fail_mlock > /dev/null
	fail_mlock > /dev/null
	wait_line "$TF/mrtrace.prom" 'mrtrace_watch_failures_total\{cause="memlock_limit",op="mlock"\} 2' 5
	cp "$TF/mrtrace.prom" "$OUT/live.prom"
	stop_watch
	check metrics_failures_by_cause_op grep -q '^mrtrace_watch_failures_total{cause="memlock_limit",op="mlock"} 2$' "$OUT/live.prom"
	check metrics_sites_by_mechanism grep -q '^mrtrace_watch_sites_armed{mechanism="tracepoint"} [1-9]' "$OUT/live.prom"
	check metrics_last_failure_timestamp grep -q '^mrtrace_watch_last_failure_timestamp_seconds{cause="memlock_limit"} [0-9]\{10\}$' "$OUT/live.prom"
	check metrics_build_info grep -q "^mrtrace_build_info{version=\"$ver\",command=\"watch\"} 1$" "$OUT/live.prom"
	check metrics_no_pid_labels sh -c "! grep -Eq '(pid|comm|uid|path)=' '$OUT/live.prom'"
	check metrics_final_write_marks_stop grep -q '^mrtrace_watch_running 0$' "$TF/mrtrace.prom"
	check metrics_no_temp_left sh -c "[ \$(ls '$TF' | wc -l) = 1 ]"
	# before any failure: no cause x op series (459 zeros per node were
	# millions on a fleet; the alert catches a series born above 0), the
	# whole file a few dozen series
	n_pairs=$(grep -c '^mrtrace_watch_failures_total{' "$OUT/start.prom")
	n_series=$(grep -vc '^#' "$OUT/start.prom")
	echo "  series at start: $n_series, failure pairs: $n_pairs"
	check metrics_few_series_at_start sh -c "[ $n_pairs = 0 ] && [ $n_series -le 40 ]"
	check metrics_output_errors_zero_from_start sh -c "grep -q '^mrtrace_watch_output_errors_total{output=\"journal\"} 0$' '$OUT/start.prom' && grep -q '^mrtrace_watch_output_errors_total{output=\"metrics_file\"} 0$' '$OUT/start.prom'"
	hb=$(sed -n 's/^mrtrace_watch_heartbeat_timestamp_seconds //p' "$OUT/live.prom")
	check metrics_heartbeat_recent test "$(( $(date +%s) - ${hb:-0} ))" -le 10
	check metrics_failure_op_of_failure_records sh -c "! grep -q 'op=\"?\"' '$OUT/live.prom'"
else
	bad metrics_watch_starts "$(tail -2 "$W.err")"
fi
# write errors are counted: a journal socket nobody listens on, and a
# metrics directory that disappears for a while
TF3=$OUT/textfile-errors
mkdir -p "$TF3"
if start_watch errors --syscalls=on --journal --journal-socket="$OUT/nobody.sock" \
	--metrics-textfile="$TF3/mrtrace.prom" --metrics-interval=0.2; then
	rm -rf "$TF3"
	fail_mlock > /dev/null
	# the directory comes back once watch has failed to write into it
	wait_line "$W.err" 'cannot write the metrics file' 10
	mkdir -p "$TF3"
	fail_mlock > /dev/null
	wait_line "$TF3/mrtrace.prom" 'failures_total\{cause="memlock_limit",op="mlock"\} 2' 5
	stop_watch
	check metrics_counts_journal_errors grep -q '^mrtrace_watch_output_errors_total{output="journal"} [2-9]$' "$TF3/mrtrace.prom"
	check metrics_counts_own_write_errors grep -q '^mrtrace_watch_output_errors_total{output="metrics_file"} [1-9]' "$TF3/mrtrace.prom"
else
	bad metrics_errors_watch_starts "$(tail -2 "$W.err")"
fi
"$MRTRACE" check --no-config --prom="$TF/mrtrace-check.prom"; rc=$?
check check_prom_file_exit0 test "$rc" = 0
check check_prom_items grep -q '^mrtrace_check_items{verdict="fail",class="environment"} [0-9]' "$TF/mrtrace-check.prom"
check check_prom_memlock_by_source grep -q '^mrtrace_check_memlock_default_bytes{source="this_shell"} 8388608$' "$TF/mrtrace-check.prom"
check check_prom_health grep -q '^mrtrace_check_health_status [012]$' "$TF/mrtrace-check.prom"
if have promtool; then
	check promtool_watch_metrics sh -c "promtool check metrics < '$OUT/live.prom'"
	check promtool_check_metrics sh -c "promtool check metrics < '$TF/mrtrace-check.prom'"
	"$MRTRACE" check --no-config --prom -p $$ > "$OUT/p.prom"
	check promtool_check_process_metrics sh -c "promtool check metrics < '$OUT/p.prom' && grep -q 'mrtrace_check_memlock_process_bytes{limit=\"soft\"}' '$OUT/p.prom'"
	# the shipped alert rules: valid, each alert unit-tested, and naming only
	# metrics mrtrace writes
	PR=$TOP/contrib/prometheus
	check promtool_rules_valid promtool check rules "$PR/mrtrace.rules.yml"
	(cd "$PR" && promtool test rules mrtrace.rules.test.yml) > "$OUT/rules-test.txt" 2>&1
	check promtool_rules_unit_tests sh -c "grep -q SUCCESS '$OUT/rules-test.txt' && ! grep -q FAILED '$OUT/rules-test.txt'"
	untested=
	for a in $(sed -n 's/^ *- alert: //p' "$PR/mrtrace.rules.yml"); do
		grep -q "alertname: $a\$" "$PR/mrtrace.rules.test.yml" || untested="$untested $a"
	done
	check promtool_every_alert_tested test -z "$untested"
	unknown=
	# (metric names: not the external label the runbook links may use)
	for mname in $(grep -v '^ *#' "$PR/mrtrace.rules.yml" | sed 's/\$externalLabels\.[a-z_]*//g' |
		grep -o 'mrtrace_[a-z_]*' | sort -u); do
		grep -qh "^$mname[ {]" "$OUT/live.prom" "$TF/mrtrace-check.prom" "$TF3/mrtrace.prom" || unknown="$unknown $mname"
	done
	check promtool_rules_name_real_metrics test -z "$unknown"
	[ -z "$unknown$untested" ] || echo "  untested:$untested; not written by mrtrace:$unknown"
else
	skip promtool "prometheus (promtool) not installed"
fi
NE=$(command -v prometheus-node-exporter || command -v node_exporter)
if [ -n "$NE" ]; then
	port=$(( 20000 + RANDOM % 20000 ))
	"$NE" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$TF" \
		--web.listen-address="127.0.0.1:$port" > "$OUT/ne.log" 2>&1 & NEPID=$!
	scraped=
	for i in $(seq 50); do
		scraped=$("$PY" -c "import urllib.request,sys; print(urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=2).read().decode())" 2>/dev/null) && break
		sleep 0.1
	done
	kill "$NEPID" 2>/dev/null; wait "$NEPID" 2>/dev/null
	printf '%s\n' "$scraped" > "$OUT/scrape.txt"
	check node_exporter_serves_watch grep -q '^mrtrace_watch_failures_total{cause="memlock_limit",op="mlock"} 2$' "$OUT/scrape.txt"
	check node_exporter_serves_check grep -q '^mrtrace_check_items{' "$OUT/scrape.txt"
	check node_exporter_both_build_infos test "$(grep -c '^mrtrace_build_info{' "$OUT/scrape.txt")" = 2
	check node_exporter_no_textfile_error sh -c "! grep -q '^node_textfile_scrape_error 1' '$OUT/scrape.txt'"
else
	skip node_exporter "prometheus-node-exporter not installed"
fi

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 8. check --health: one line <= 80, 0/1/2 --------------------------------
FX=$TOP/tests/fixtures/check
for c in container:2:uverbs0 portdown:2:port h100:0:OK; do
	IFS=: read -r tree want word <<< "$c"
	line=$("$MRTRACE" check --no-config --health --sysroot "$FX/$tree"); rc=$?
	check "health_${tree}_exit_$want" is "$rc" "$want"
	check "health_${tree}_one_line_80" one_line80 "$line"
	check "health_${tree}_says_$word" has "$line" "$word"
done
prlimit --memlock=8388608:8388608 $NOBODY sleep 10 & SLP=$!
wait_exec $SLP sleep
line=$("$MRTRACE" check --no-config --health --require-rdma=yes --health-ignore=rdma.* --min-memlock=1G -p $SLP); rc=$?
check health_memlock_threshold has "$rc $line" "2 mrtrace: FAIL memlock: process limit 8 MiB < 1 GiB"
# where RDMA is not expected, nothing of it is judged: OK and why
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ] &&
	! "$MRTRACE" check --no-config --prom | grep -q '^mrtrace_check_rdma_expected 1'; then
	line=$("$MRTRACE" check --no-config --health --min-memlock=1G -p $SLP); rc=$?
	check health_no_rdma_is_na is "$rc $line" "0 mrtrace: OK no RDMA on this node"
	# issue 31: check, --health and --prom give one verdict here, and say why
	"$MRTRACE" check --no-config > "$OUT/norapid.txt"; rc=$?
	check check_no_rdma_agrees sh -c "[ $rc = 0 ] && grep -q '^RESULT  OK    no RDMA on this node' '$OUT/norapid.txt'"
	check check_json_no_rdma_agrees sh -c "'$MRTRACE' check --no-config --json | jq -e '.summary.verdict==\"ok\" and .summary.rdma_expected==false' >/dev/null"
	check prom_no_rdma_agrees sh -c "'$MRTRACE' check --no-config --prom | grep -q '^mrtrace_check_verdict{verdict=\"ok\"} 1' && '$MRTRACE' check --no-config --prom | grep -q '^mrtrace_check_health_status 0'"
	"$MRTRACE" check --no-config --health --require-rdma=partition:gpu* --slurm-partition=gpu7 -p $SLP > /dev/null; rc=$?
	check health_partition_requires_rdma is "$rc" 2
	check health_require_rdma_typo_refused sh -c "'$MRTRACE' check --no-config --health --require-rdma=partiton:gpu 2>&1 | grep -q \"'partiton:gpu' is not\""
else
	skip health_no_rdma_is_na "this host has RDMA hardware"
fi
kill $SLP

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 9. Slurm: stubbed scontrol always, a real slurmctld + slurmd if possible --
S=$OUT/slurm
mkdir -p "$S"
# scontrol: logs what it is asked; "show node" answers with $S/reason
cat > "$S/scontrol" <<EOF
#!/bin/sh
echo "\$*" >> '$S/scontrol.log'
case "\$1 \$2" in
"show job") echo "   StdOut=$S/job.out";;
"show node") echo "NodeName=n1 State=IDLE+DRAIN ActiveFeatures=\$(cat '$S/features' 2>/dev/null) Reason=\$(cat '$S/reason' 2>/dev/null)";;
esac
EOF
cat > "$S/mrtrace-fail" <<'EOF'
#!/bin/sh
echo "mrtrace: FAIL memlock: slurmd hard limit 8 MiB < 64 MiB"; exit 2
EOF
printf '#!/bin/sh\necho "mrtrace: OK"; exit 0\n' > "$S/mrtrace-ok"
printf '#!/bin/sh\necho "mrtrace check: bad option" >&2; exit 2\n' > "$S/mrtrace-broken"
printf '#!/bin/sh\nsleep 60\n' > "$S/mrtrace-hangs"
printf '#!/bin/sh\necho "$*" > "%s/args"; echo "mrtrace: OK"\n' "$S" > "$S/mrtrace-args"
chmod +x "$S"/scontrol "$S"/mrtrace-*
PRO=$TOP/contrib/slurm/prolog.sh EPI=$TOP/contrib/slurm/epilog.sh
stub_prolog() { # MRTRACE-STUB [ENV=V...] PROLOG [ARGS]: with the stubbed scontrol
	local m=$1; shift
	rm -f "$S/scontrol.log"
	env MRTRACE="$S/mrtrace-$m" SCONTROL="$S/scontrol" SLURMD_NODENAME=n1 \
		MRTRACE_STATE_DIR="$S/state" MRTRACE_EVENTS="$S/events.jsonl" "$@" 2>"$S/prolog.err"
}
stub_prolog fail "$PRO"; rc=$?
check prolog_stub_fail_drains sh -c "[ $rc = 1 ] && grep -q 'update NodeName=n1 State=DRAIN Reason=mrtrace: FAIL memlock' '$S/scontrol.log'"
stub_prolog ok "$PRO"; rc=$?
check prolog_stub_ok_runs sh -c "[ $rc = 0 ] && [ ! -e '$S/scontrol.log' ]"
stub_prolog broken "$PRO"; rc=$?
check prolog_stub_broken_checker_no_drain sh -c "[ $rc = 0 ] && [ ! -e '$S/scontrol.log' ]"
t=$(date +%s)
stub_prolog hangs MRTRACE_TIMEOUT=1 "$PRO"; rc=$?
check prolog_stub_hung_checker_times_out sh -c "[ $rc = 0 ] && [ $(( $(date +%s) - t )) -le 8 ] && [ ! -e '$S/scontrol.log' ] && grep -q 'timed out after 1 s' '$S/prolog.err'"
# the job's partition, and the node's features only when a selector asks
stub_prolog args SLURM_JOB_PARTITION=gpu "$PRO"
check prolog_passes_partition sh -c "grep -q -- '--slurm-partition=gpu' '$S/args' && ! grep -q -- '--node-features' '$S/args' && [ ! -e '$S/scontrol.log' ]"
echo ib,a100 > "$S/features"
stub_prolog args SLURM_JOB_PARTITION=gpu MRTRACE_CHECK_ARGS=--require-rdma=feature:ib "$PRO"
check prolog_asks_features_for_selector grep -q -- '--node-features=ib,a100' "$S/args"
stub_prolog args MRTRACE_NODE_FEATURES=x,y "$PRO"
check prolog_features_from_environment sh -c "grep -q -- '--node-features=x,y' '$S/args' && [ ! -e '$S/scontrol.log' ]"
# --healthcheck: drains on FAIL, resumes only what mrtrace drained
stub_prolog fail "$PRO" --healthcheck; rc=$?
check healthcheck_fail_drains sh -c "[ $rc = 0 ] && grep -q 'State=DRAIN Reason=mrtrace: FAIL' '$S/scontrol.log'"
echo "mrtrace: FAIL memlock: slurmd hard limit 8 MiB < 64 MiB [root@2026-12-01T10:00:00]" > "$S/reason"
stub_prolog ok "$PRO" --healthcheck
check healthcheck_resumes_mrtrace_drain grep -q 'update NodeName=n1 State=RESUME' "$S/scontrol.log"
echo "Kill task failed [root@2026-12-01T10:00:00]" > "$S/reason"
stub_prolog ok "$PRO" --healthcheck
check healthcheck_leaves_other_drains sh -c "! grep -q RESUME '$S/scontrol.log'"
# the epilog reads from the prolog's mark: a record of job 77 written before
# the job started is not the job's
one_failure() { # JOB [head|tail]: a recorded mlock failure, as job JOB's
	grep '"event":"mlock_failure"' "$OUT/metrics.jsonl" 2>/dev/null | "${2:-head}" -1 |
		jq -c ".process.slurm_job = $1"
}
one_failure 77 | jq -c '.summary = "before the job"' > "$S/events.jsonl"
SLURM_JOB_ID=77 stub_prolog ok "$PRO"
check prolog_marks_events_end test "$(cat "$S/state/77.offset" 2>/dev/null)" = "$(stat -c '%i %s' "$S/events.jsonl")"
one_failure 77 >> "$S/events.jsonl"
one_failure 78 tail >> "$S/events.jsonl"
: > "$S/job.out"; chown nobody "$S/job.out"
epilog() { # JOB [ENV=V...]: the epilog as the job's user nobody's
	local j=$1; shift
	env SLURM_JOB_ID="$j" SLURM_JOB_UID=65534 SLURM_JOB_GID=65534 MRTRACE_EVENTS="$S/events.jsonl" \
		MRTRACE_JOB_DIR="$S/jobs" MRTRACE_STATE_DIR="$S/state" SCONTROL="$S/scontrol" "$@" "$EPI" 2>/dev/null
}
epilog 77
check epilog_per_job_file sh -c "grep -q '1 failure(s) in job 77' '$S/jobs/77.txt' && grep -q 'cause memlock_limit' '$S/jobs/77.txt'"
check epilog_reads_from_mark sh -c "! grep -q 'before the job' '$S/jobs/77.txt' && [ ! -e '$S/state/77.offset' ]"
check epilog_appends_job_output sh -c "grep -q 'job 77' '$S/job.out' && [ \$(stat -c %U '$S/job.out') = nobody ]"
check epilog_report_readable_by_job_user $NOBODY grep -q 'job 77' "$S/jobs/77.txt"
check epilog_report_not_readable_by_others sh -c "! setpriv --reuid=12345 --regid=12345 --clear-groups -- cat '$S/jobs/77.txt' 2>/dev/null && ! $NOBODY ls '$S/jobs' >/dev/null 2>&1"
epilog 79
check epilog_quiet_without_findings test ! -e "$S/jobs/79.txt"
# a copytruncate between prolog and epilog: the job's start is in the copy
SLURM_JOB_ID=80 stub_prolog ok "$PRO"
one_failure 80 >> "$S/events.jsonl"
cp "$S/events.jsonl" "$S/events.jsonl.1" && : > "$S/events.jsonl"
one_failure 80 tail >> "$S/events.jsonl"
epilog 80 MRTRACE_JOB_OUTPUT=no
check epilog_across_copytruncate grep -q '2 failure(s) in job 80' "$S/jobs/80.txt"
# without a prolog mark: the file's tail only
rm -f "$S/events.jsonl.1"
{ one_failure 81; head -c 200000 /dev/zero | tr '\0' '\n'; one_failure 81 tail; } > "$S/events.jsonl"
epilog 81 MRTRACE_TAIL=100000 MRTRACE_JOB_OUTPUT=no
check epilog_without_mark_reads_tail grep -q '1 failure(s) in job 81' "$S/jobs/81.txt"
# issue 48 item H: a proven refusal that is no registration (a failure
# record: modify_qp here) reaches the job too, and nothing a record holds
# reaches the user's files raw (a comm set by prctl to escape sequences)
TRF=$TOP/tests/fixtures/trails
# (records of the job's cgroup: issue 47's epilog files no other's claim)
{ jq -c '.process.slurm_job = 82 | .process.slurm_job_source = "cgroup"' "$TRF/bad_gid_index.gid.6.12.json"
  jq -c '.process.slurm_job = 82 | .process.slurm_job_source = "cgroup" | .comm = "\u001b[2J\u001b]0;x\u0007evil"' \
	"$TRF/memlock_limit.mlock.host-6.18.json"; } > "$S/events.jsonl"
epilog 82
check epilog_failure_records grep -q 'failure on .*: modify_qp ENODATA, cause bad_gid_index' "$S/jobs/82.txt"
check epilog_counts_every_failure grep -q '2 failure(s) in job 82' "$S/jobs/82.txt"
check epilog_escapes_comm grep -qF '(\e[2J\e]0;x\x07evil)' "$S/jobs/82.txt"
for f in "$S/jobs/82.txt" "$S/job.out"; do
	check "epilog_no_control_bytes_${f##*/}" sh -c "! grep -q \"\$(printf '[\\001-\\010\\013-\\037\\177]')\" '$f'"
done

slurm_real() {
	local H R=$S/real
	H=$(hostname -s)
	mkdir -p "$R/spool" "$R/state" "$R/munge" "$R/log"
	chmod 700 "$R/munge"
	dd if=/dev/urandom of="$R/munge/munge.key" bs=1024 count=1 2>/dev/null; chmod 600 "$R/munge/munge.key"
	local p1=$(( 21000 + RANDOM % 20000 )); local p2=$((p1 + 1))
	cat > "$R/slurm.conf" <<EOF
ClusterName=mrtfleet
SlurmctldHost=$H
SlurmctldPort=$p1
SlurmdPort=$p2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$R/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$R/state
SlurmdSpoolDir=$R/spool
SlurmctldPidFile=$R/slurmctld.pid
SlurmdPidFile=$R/slurmd.pid
SlurmctldLogFile=$R/log/slurmctld.log
SlurmdLogFile=$R/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/linear
SchedulerType=sched/builtin
Prolog=$R/prolog
Epilog=$R/epilog
NodeName=$H CPUs=$(nproc) State=UNKNOWN
PartitionName=t Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	# the installed prolog/epilog, with the test's thresholds and files
	cat > "$R/prolog" <<EOF
#!/bin/sh
MRTRACE='$MRTRACE' MRTRACE_CHECK_ARGS="\$(cat '$R/prolog.args')" MRTRACE_EVENTS='$R/events.jsonl' \
	MRTRACE_STATE_DIR='$R/marks' exec '$PRO'
EOF
	cat > "$R/epilog" <<EOF
#!/bin/sh
MRTRACE_EVENTS='$R/events.jsonl' MRTRACE_JOB_DIR='$R/jobs' MRTRACE_STATE_DIR='$R/marks' exec '$EPI'
EOF
	chmod +x "$R/prolog" "$R/epilog"
	export SLURM_CONF=$R/slurm.conf
	munged --socket="$R/munge/munge.socket" --key-file="$R/munge/munge.key" \
		--pid-file="$R/munge/munged.pid" --log-file="$R/munge/munged.log" \
		--seed-file="$R/munge/seed" --force || return 1
	local t0; t0=$(date +%s%N)
	slurmctld -f "$SLURM_CONF" -i || return 1
	# slurmd's limits: soft 2 MiB, hard 4 MiB (jobs can be given at most 4 MiB)
	prlimit --memlock=2097152:4194304 slurmd -f "$SLURM_CONF" || return 1
	local i
	for i in $(seq 100); do sinfo -h -o %T 2>/dev/null | grep -q '^idle' && break; sleep 0.1; done
	echo "  slurmctld + slurmd idle after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	sinfo -h -o %T | grep -q '^idle' || return 1
	return 0
}
slurm_stop() {
	local R=$S/real f
	for f in "$R/slurmd.pid" "$R/slurmctld.pid" "$R/munge/munged.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 0.3
	unset SLURM_CONF
}
if have slurmctld && have slurmd && have munged && have srun; then
	if slurm_real; then
		R=$S/real
		ok slurm_single_node_starts
		# This host has no RDMA: with the defaults (min-memlock 64 MiB against
		# slurmd's 4 MiB) RDMA is n/a here and the job runs
		echo "--no-config" > "$R/prolog.args"
		got=$(timeout 20 srun -N1 echo ran 2>"$OUT/srun-nordma.err")
		check slurm_node_without_rdma_runs_jobs test "$got" = ran
		check slurm_node_without_rdma_not_drained sh -c "! sinfo -h -o %T | grep -q drain"
		# PropagateResourceLimits (default ALL): the job's limit is srun's,
		# capped by slurmd's hard limit (4 MiB)
		got=$(prlimit --memlock=1048576:1048576 timeout 20 srun -N1 sh -c 'ulimit -l')
		check slurm_job_limit_follows_srun test "$got" = 1024
		got=$(prlimit --memlock=8388608:8388608 timeout 20 srun -N1 sh -c 'ulimit -l')
		check slurm_job_limit_capped_by_slurmd_hard test "$got" = 4096
		# RDMA required here: memlock is judged; 4 MiB hard >= 1 MiB asked passes
		MEMLOCK_ARGS="--no-config --require-rdma=yes --health-ignore=rdma.*"
		echo "$MEMLOCK_ARGS --min-memlock=1M" > "$R/prolog.args"
		got=$(timeout 20 srun -N1 echo ran 2>"$OUT/srun-pass.err")
		check slurm_passing_prolog_job_runs test "$got" = ran
		# the epilog: a job whose task fails an mlock, seen by the service
		if start_watch slurm --syscalls=on; then
			ln -sf "$W" "$R/events.jsonl"
			# the task is the job's user's (root here, CAP_IPC_LOCK dropped
			# from its bounding set so that the 64 KiB limit holds): this
			# host's Slurm keeps no job cgroup, so the job id is the
			# task's claim, which the epilog files only for the job's
			# own uid (issue 47); nobody's task in root's job is not filed
			timeout 30 sbatch -W -o "$R/job-%j.out" --wrap "prlimit --memlock=65536:65536 setpriv --bounding-set=-ipc_lock -- $PY -c '$LINGER_PY'" > "$OUT/sbatch.txt" 2>&1
			jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$OUT/sbatch.txt")
			for i in $(seq 50); do grep -q mrtrace "$R/job-$jid.out" 2>/dev/null && break; sleep 0.1; done
			stop_watch
			check slurm_epilog_job_file sh -c "grep -q 'in job $jid' '$R/jobs/$jid.txt' && grep -q 'cause memlock_limit' '$R/jobs/$jid.txt'"
			check slurm_epilog_in_job_output grep -q "mrtrace: mlock_failure" "$R/job-$jid.out"
			# the prolog marked where the job began; the epilog took the mark
			check slurm_epilog_used_prolog_mark sh -c "[ -d '$R/marks' ] && [ ! -e '$R/marks/$jid.offset' ]"
			# the fix for a Slurm job says what was just measured
			check slurm_fix_says_srun_capped_by_slurmd grep -q "take the memlock limit of the shell srun/sbatch ran in, capped by slurmd's hard limit" "$R/jobs/$jid.txt"
		fi
		# a failing prolog: 4 MiB is below the 1 GiB asked -> drained with our reason
		echo "$MEMLOCK_ARGS --min-memlock=1G" > "$R/prolog.args"
		timeout 20 srun -N1 --immediate=5 echo ran > "$OUT/srun-fail.txt" 2>&1
		check slurm_failing_prolog_job_not_run sh -c "! grep -qx ran '$OUT/srun-fail.txt'"
		for i in $(seq 30); do sinfo -h -o %T | grep -q drain && break; sleep 0.1; done
		check slurm_failing_prolog_drains sh -c "sinfo -h -o %T | grep -q drain"
		reason=$(sinfo -h -o %E)
		echo "  drain reason: $reason"
		check slurm_drain_reason_is_mrtrace has "$reason" "mrtrace: FAIL memlock: slurmd hard limit 4 MiB < 1 GiB"
		# the health check resumes what mrtrace drained once the node passes
		MRTRACE=$MRTRACE MRTRACE_CHECK_ARGS="$MEMLOCK_ARGS --min-memlock=1M" "$PRO" --healthcheck 2>"$OUT/healthcheck.err"
		for i in $(seq 30); do sinfo -h -o %T | grep -qx idle && break; sleep 0.1; done
		check slurm_healthcheck_resumes sh -c "sinfo -h -o %T | grep -qx idle && grep -q 'resuming' '$OUT/healthcheck.err'"
		# a broken expectation: mrtrace.conf requires RDMA in partition t
		# (this node's), which has none: the job's prolog drains the node
		printf '[check]\nrequire-rdma = partition:t\n' > "$R/mrtrace.conf"
		echo "--config $R/mrtrace.conf" > "$R/prolog.args"
		timeout 20 sbatch -o "$R/broken-%j.out" --wrap "echo ran" > "$OUT/sbatch-broken.txt" 2>&1
		bjid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$OUT/sbatch-broken.txt")
		for i in $(seq 100); do sinfo -h -o %T | grep -q drain && break; sleep 0.1; done
		reason=$(sinfo -h -o %E)
		echo "  drain reason: $reason"
		check slurm_broken_expectation_drains sh -c "sinfo -h -o %T | grep -q drain"
		check slurm_broken_expectation_reason has "$reason" "mrtrace: FAIL devices: no /sys/class/infiniband"
		# what Slurm does with the job (docs/deploy.md): requeued, held
		for i in $(seq 50); do scontrol show job "$bjid" 2>/dev/null | grep -q 'JobState=PENDING' && break; sleep 0.1; done
		scontrol show job "$bjid" > "$OUT/broken-job.txt" 2>&1
		echo "  job after the failed prolog: $(grep -o 'JobState=[^ ]*\|Reason=[^ ]*\|Restarts=[^ ]*' "$OUT/broken-job.txt" | tr '\n' ' ')"
		check slurm_prolog_failure_requeues_job_held sh -c "grep -q 'JobState=PENDING' '$OUT/broken-job.txt' && grep -q 'Reason=launch_failed_requeued_held' '$OUT/broken-job.txt' && ! grep -qx ran '$R/broken-$bjid.out'"
		scancel "$bjid" 2>/dev/null
		slurm_stop
	else
		skip slurm_real "slurmctld/slurmd did not start here ($(tail -1 "$S/real/log/slurmctld.log" 2>/dev/null)); scripts tested with stubs"
		slurm_stop
	fi
else
	skip slurm_real "slurmctld, slurmd, munge or slurm-client not installed; scripts tested with stubs"
fi

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 10. Kubernetes --------------------------------------------------------------
K=$TOP/deploy/k8s
ds_caps=$(sed -n 's/^ *add: \[\(.*\)\]$/\1/p' "$K/daemonset.yaml" | tr -d '" ' | tr , ' ' | sed 's/[A-Z_]*/CAP_&/g')
check k8s_daemonset_capability_set test "$ds_caps" = "$UNIT_SET"
# the image the tree's manifest names is one `make image` makes
img=$(sed -n 's/^ *image: //p' "$K/daemonset.yaml" | sort -u)
check k8s_daemonset_image_is_built_tag sh -c "'$K/build-image.sh' --tags '$MRTRACE' | grep -qxF '$img'"
if [ "$HAVE_PY" = 1 ] && "$PY" -c 'import kubernetes, yaml' 2>/dev/null; then
	check k8s_manifests_valid "$PY" "$K/validate.py" "$K"/*.yaml
	# RDMA nodes only by default; the PodMonitor selects the DaemonSet's
	# pods and scrapes the sidecar's named port
	check k8s_daemonset_rdma_nodes_only "$PY" -c "
import yaml
ds = yaml.safe_load(open('$K/daemonset.yaml'))
assert ds['spec']['template']['spec']['nodeSelector'] == {'feature.node.kubernetes.io/rdma.capable': 'true'}"
	check k8s_podmonitor_matches_daemonset "$PY" -c "
import yaml
ds = yaml.safe_load(open('$K/daemonset.yaml'))
pm = yaml.safe_load(open('$K/monitoring/podmonitor.yaml'))
t = ds['spec']['template']
ports = [p['name'] for c in t['spec']['containers'] for p in c.get('ports', [])]
assert pm['kind'] == 'PodMonitor' and pm['metadata']['namespace'] == ds['metadata']['namespace']
assert pm['spec']['namespaceSelector']['matchNames'] == [ds['metadata']['namespace']]
assert all(t['metadata']['labels'].get(k) == v for k, v in pm['spec']['selector']['matchLabels'].items())
assert all(e['port'] in ports for e in pm['spec']['podMetricsEndpoints'])"
	# rtnetlink and `rdma res` see the node's links only in its namespace
	check k8s_daemonset_host_network "$PY" -c "
import yaml, sys
ds = yaml.safe_load(open('$K/daemonset.yaml'))
sys.exit(0 if ds['spec']['template']['spec'].get('hostNetwork') is True else 1)"
	sed 's/hostPID: true/hostPid: true/' "$K/daemonset.yaml" > "$OUT/bad-ds.yaml"
	check k8s_validator_catches_typo sh -c "! '$PY' '$K/validate.py' '$OUT/bad-ds.yaml' >/dev/null"
	# the watcher runs under the Localhost profile its init container puts
	# where the kubelet reads it (the hostPath under /var/lib/kubelet/seccomp)
	check k8s_daemonset_seccomp_localhost "$PY" -c "
import yaml
s = yaml.safe_load(open('$K/daemonset.yaml'))['spec']['template']['spec']
c = {x['name']: x for x in s['containers']}['mrtrace']
prof = c['securityContext']['seccompProfile']
assert prof == {'type': 'Localhost', 'localhostProfile': 'mrtrace/watch.json'}, prof
init = {x['name']: x for x in s['initContainers']}['seccomp-profile']
mnt = {m['name']: m['mountPath'] for m in init['volumeMounts']}
vol = {v['name']: v for v in s['volumes']}
host = vol['kubelet-seccomp']['hostPath']['path']
assert host == '/var/lib/kubelet/seccomp/mrtrace', host
assert init['command'][-1] == mnt['kubelet-seccomp'] + '/watch.json', init['command']
assert init['command'][-2] == '/usr/share/mrtrace/k8s/seccomp/mrtrace-watch.json'
assert init['securityContext']['capabilities']['drop'] == ['ALL'] and 'add' not in init['securityContext']['capabilities']"
	# the current AppArmor field, not the deprecated annotation
	check k8s_daemonset_apparmor_field "$PY" -c "
import yaml
t = yaml.safe_load(open('$K/daemonset.yaml'))['spec']['template']
assert not any('apparmor' in k for k in t['metadata'].get('annotations', {})), t['metadata']
c = {x['name']: x for x in t['spec']['containers']}['mrtrace']
assert c['securityContext']['appArmorProfile'] == {'type': 'Unconfined'}"
	sed 's/type: Unconfined/type: Unconfinde/' "$K/daemonset.yaml" > "$OUT/bad-aa.yaml"
	check k8s_validator_checks_apparmor sh -c "! '$PY' '$K/validate.py' '$OUT/bad-aa.yaml' >/dev/null"
	# the sidecar on the node's network listens on the node's address only
	check k8s_metrics_on_node_ip "$PY" -c "
import yaml
t = yaml.safe_load(open('$K/daemonset.yaml'))['spec']['template']
c = {x['name']: x for x in t['spec']['containers']}['metrics']
env = {e['name']: e for e in c['env']}
assert env['HOST_IP']['valueFrom']['fieldRef']['fieldPath'] == 'status.hostIP'
assert '--web.listen-address=\$(HOST_IP):9465' in c['args'], c['args']"
else
	skip k8s_manifests "python3-kubernetes or python3-yaml not installed"
fi
# The seccomp profile is the unit's filter (seccomp-profile.py's output
# for contrib/systemd/mrtrace.service, with this host's systemd), refuses
# what lets a watcher leave its namespaces or touch other processes, and is
# enough for watch itself: run under it (libseccomp, as runc loads it), watch
# starts, records a real failing mlock and stops; mount, unshare and nsenter
# into PID 1 are refused.
SP=$K/seccomp/mrtrace-watch.json
if command -v systemd-analyze > /dev/null && [ "$HAVE_PY" = 1 ]; then
	check k8s_seccomp_profile_is_the_units sh -c "'$PY' '$K/seccomp-profile.py' '$TOP/contrib/systemd/mrtrace.service' | diff - '$SP'"
else
	skip k8s_seccomp_profile_is_the_units "systemd-analyze or $PY not available"
fi
allowed=$(jq -r '.syscalls[] | select(.action=="SCMP_ACT_ALLOW" and (.args // [] | length) == 0) | .names[]' "$SP")
refused=
for c in mount umount2 setns unshare ptrace pidfd_getfd pivot_root kexec_load init_module finit_module setrlimit clone3; do
	printf '%s\n' "$allowed" | grep -qx "$c" && refused="$refused $c"
done
check k8s_seccomp_refuses_escapes test -z "$refused"
allows() { local c; for c; do printf '%s\n' "$allowed" | grep -qx "$c" || return 1; done; }
check k8s_seccomp_allows_bpf allows bpf perf_event_open
jq_true k8s_seccomp_default_eperm "$(cat "$SP")" '.defaultAction=="SCMP_ACT_ERRNO" and .defaultErrnoRet==1'
RUNSC=$TOP/tests/helpers/seccomp-run.py
if [ "$HAVE_PY" = 1 ] && "$PY" -c 'import seccomp' 2>/dev/null; then
	WATCH_UNDER=("$PY" "$RUNSC" "$SP")
	if start_watch seccomp --syscalls=on; then
		pid=$(fail_mlock)
		ev=$(event_of mlock_failure "$pid")
		stop_watch; st=$?
		jq_true k8s_seccomp_watch_records "$ev" '.errno==12'
		check k8s_seccomp_watch_stops test "$st" = 0
		check k8s_seccomp_watch_stop_record grep -q '"event":"stop"' "$W"
	else
		bad k8s_seccomp_watch_starts "$(tail -2 "$W.err")"
	fi
	WATCH_UNDER=()
	"$PY" "$RUNSC" "$SP" mount -t tmpfs none "$OUT" > "$OUT/sc-mount.txt" 2>&1
	check k8s_seccomp_no_mount sh -c "! mountpoint -q '$OUT' && grep -qi 'permission denied\|not permitted' '$OUT/sc-mount.txt'"
	check k8s_seccomp_no_unshare sh -c "! '$PY' '$RUNSC' '$SP' unshare -m true"
	check k8s_seccomp_no_setns sh -c "! '$PY' '$RUNSC' '$SP' nsenter -t 1 -m true"
	check k8s_seccomp_runs_commands "$PY" "$RUNSC" "$SP" sh -c 'ls / > /dev/null'
else
	skip k8s_seccomp_run "python3-seccomp not installed"
fi
# pod names from a kubelet-like tree: a process in a containerd pod cgroup on
# this node, seen through --host-root with the fixture's /var/log
KF=$TOP/tests/fixtures/k8s
HR=$OUT/hostroot
mkdir -p "$HR/var/log"
# bind mounts, as a DaemonSet's hostPath is: mrtrace resolves every path
# beneath the host root, so a symlink to / would (rightly) not lead out of it
for d in proc sys etc dev; do mkdir -p "$HR/$d" && mount --rbind "/$d" "$HR/$d" && mount --make-rprivate "$HR/$d"; done
mount --bind "$KF/var/log" "$HR/var/log"
trap 'for d in proc sys etc dev var/log; do umount -l "$HR/$d" 2>/dev/null; done' EXIT
CG2=$(awk '$3=="cgroup2" {print $2; exit}' /proc/self/mounts)
PODUID=3f7c2a1e-8b4d-4e6f-9a0b-1c2d3e4f5a6b
CID=9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e
POD=$CG2/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${PODUID//-/_}.slice/cri-containerd-$CID.scope
if [ -n "$CG2" ] && mkdir -p "$POD" 2>/dev/null; then
	if start_watch k8s --syscalls=on --host-root="$HR"; then
		sh -c "echo \$\$ > '$POD/cgroup.procs' && exec prlimit --memlock=65536:65536 $NOBODY '$MLOCKER' 1048576" > "$OUT/k8s-ml.txt" 2>&1
		pid=$(pid_of "$OUT/k8s-ml.txt")
		ev=$(event_of mlock_failure "$pid")
		stop_watch
		jq_true k8s_names_in_record "$ev" '.kubernetes.namespace=="ml-team" and .kubernetes.pod=="trainer-0" and .kubernetes.container=="nccl"'
		jq_true k8s_host_root_in_start "$(head -1 "$W")" ".host_root==\"$HR\""
	else
		bad k8s_watch_starts "$(tail -2 "$W.err")"
	fi
	rmdir "$POD" "${POD%/*}" 2>/dev/null
	rmdir "$CG2/kubepods.slice/kubepods-besteffort.slice" "$CG2/kubepods.slice" 2>/dev/null
else
	skip k8s_pod_names "no writable cgroup v2"
fi
# The image: mmdebstrap + buildah take minutes here, so `make image` builds
# it and this runner does only when MRTRACE_TEST_IMAGE=1.
if [ "${MRTRACE_TEST_IMAGE:-0}" = 1 ]; then
	if have mmdebstrap && have buildah; then
		t=$(date +%s)
		check k8s_image_builds "$K/build-image.sh" "$MRTRACE" localhost/mrtrace:fleet-test
		echo "  image build: $(( $(date +%s) - t )) s"
		check k8s_image_runs_mrtrace sh -c "c=\$(buildah from localhost/mrtrace:fleet-test) && buildah run --isolation chroot \$c -- /usr/sbin/mrtrace --version | grep -q '^mrtrace '; r=\$?; buildah rm \$c >/dev/null; exit \$r"
	else
		skip k8s_image "mmdebstrap or buildah not installed"
	fi
else
	skip k8s_image "slow (minutes): 'make image' builds it, MRTRACE_TEST_IMAGE=1 tests it here"
fi

echo "  [$(( $(date +%s) - T0 ))s]"
# ---- 11. least privilege: the documented set, and each capability missing -----
# as root (uid 0) with only these capabilities, as the unit and DaemonSet run it
capset() { # CAPS -> setpriv prefix
	echo "setpriv --inh-caps=-all,$1 --ambient-caps=-all,$1 --bounding-set=-all,$1 --"
}
FULL=+bpf,+perfmon,+sys_admin,+sys_ptrace,+dac_read_search
priv_run() { # NAME CAPS: watch under the set, one failing mlock of nobody with SLURM_JOB_ID
	local name=$1 caps=$2
	W=$OUT/priv-$name.jsonl
	$(capset "$caps") "$MRTRACE" watch --no-config --json --syscalls=on -d 6 > "$W" 2> "$W.err" &
	WPID=$!
	if ! wait_line "$W" '"event":"start"' 20; then
		wait "$WPID"
		return 1
	fi
	PPID_ML=$(fail_mlock_linger SLURM_JOB_ID=5151)
	PEV=$(event_of mlock_failure "$PPID_ML")
	kill -INT "$WPID"; wait "$WPID"
	PSTART=$(grep -m1 '"event":"start"' "$W")
	return 0
}
if priv_run full "$FULL"; then
	jq_true priv_full_set_arms_all "$PSTART" '(.sites[]|select(.site=="libibverbs")|.armed) and (.sites[]|select(.site=="sys_mlock")|.armed) and (.missing_capabilities|length)==0'
	jq_true priv_full_set_reads_other_users_proc "$PEV" '.process.exe and .process.slurm_job==5151'
	check priv_full_set_no_complaint sh -c "! grep -q 'needs CAP_\|without CAP_' '$W.err'"
else
	bad priv_full_set_starts "$(tail -2 "$W.err")"
fi
# uprobes: a perf-event uprobe is opened to CAP_SYS_ADMIN only; a
# uprobe_multi link (6.6+, what watch makes there: user/tracer/umulti.c)
# needs CAP_BPF and CAP_PERFMON like the rest
if priv_run no_sys_admin +bpf,+perfmon,+sys_ptrace,+dac_read_search; then
	if kernel_at_least 6.6; then
		jq_true priv_no_sys_admin_uprobe_multi_armed "$PSTART" '(.sites[]|select(.site=="libibverbs")|.armed and .mechanism=="uprobe") and (.sites[]|select(.site=="sys_mlock")|.armed) and ((.missing_capabilities // [])|index("CAP_SYS_ADMIN")|not)'
		check priv_no_sys_admin_no_uprobe_complaint sh -c "! grep -q 'libibverbs: needs CAP_SYS_ADMIN' '$W.err'"
	else
		jq_true priv_no_sys_admin_uprobes_unarmed "$PSTART" '(.sites[]|select(.site=="libibverbs")|.armed|not) and (.sites[]|select(.site=="sys_mlock")|.armed) and (.missing_capabilities|index("CAP_SYS_ADMIN"))'
		check priv_no_sys_admin_says_which grep -q 'libibverbs: needs CAP_SYS_ADMIN' "$W.err"
	fi
	jq_true priv_no_sys_admin_still_explains "$PEV" '.cause=="memlock_limit"'
else
	bad priv_no_sys_admin_starts "$(tail -2 "$W.err")"
fi
if priv_run no_sys_ptrace +bpf,+perfmon,+sys_admin,+dac_read_search; then
	check priv_no_sys_ptrace_says_which grep -q 'without CAP_SYS_PTRACE' "$W.err"
	jq_true priv_no_sys_ptrace_no_exe "$PEV" '(.process|has("exe")|not) and .cause=="memlock_limit"'
else
	bad priv_no_sys_ptrace_starts "$(tail -2 "$W.err")"
fi
if priv_run no_dac_read_search +bpf,+perfmon,+sys_admin,+sys_ptrace; then
	check priv_no_dac_read_search_says_which grep -q 'without CAP_DAC_READ_SEARCH' "$W.err"
	# /proc/PID/environ is closed to it, the kernel's copy is not (issue
	# 47): the job id is there, as the process's claim
	jq_true priv_no_dac_read_search_environment_from_kernel "$PEV" '.process.slurm_job==5151 and .process.slurm_job_source=="environment" and .process.exe'
else
	bad priv_no_dac_read_search_starts "$(tail -2 "$W.err")"
fi
# without CAP_BPF and CAP_SYS_ADMIN nothing loads: exit 1 and the reason
$(capset +perfmon,+sys_ptrace,+dac_read_search) "$MRTRACE" watch --no-config -d 1 > /dev/null 2> "$OUT/nobpf.err"; rc=$?
check priv_no_bpf_exit1_names_cap sh -c "[ $rc = 1 ] && grep -q 'CAP_BPF' '$OUT/nobpf.err'"
# the man page and README list exactly the unit's set
check priv_manpage_lists_set sh -c "grep -A40 '^\.SH CAPABILITIES' '$TOP/docs/mrtrace.8' | grep -q 'CAP_BPF CAP_PERFMON CAP_SYS_ADMIN CAP_SYS_PTRACE CAP_DAC_READ_SEARCH'"

finish
