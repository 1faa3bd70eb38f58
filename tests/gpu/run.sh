#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/gpu/run.sh - mrtrace on a real NVIDIA GPU (issue 21, item 5).  Without
# one it says so loudly and exits 0 in well under a second: never a CI
# failure, and not part of `make test`.  With one (a lent GPU machine, which
# has no RDMA device and may not allow BPF):
#   check_json       `mrtrace check --json` on the real driver: the gpudirect
#                    section's driver version and module flavour, every GPU's
#                    BAR1 from sysfs and, with libnvidia-ml, from NVML
#   cuda_dmabuf      `mrprobe --no-device --gpu --api dmabuf`: GPU memory
#                    from the CUDA driver API, exported as a dma-buf
#                    (cuMemGetHandleForAddressRange); nothing registered
#   torch_nccl_*     `mrtrace check -p` on a PyTorch process that initialised
#                    NCCL (backend nccl, world size 1): the real libnccl's
#                    version and settings
# Needs build/mrtrace and build/mrprobe (make), jq; PyTorch for the last.
# Writes build/gpu-tests/; ends with "gpu: N passed, N failed, N skipped".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MRTRACE=$TOP/build/mrtrace
MRPROBE=$TOP/build/mrprobe
OUT=$TOP/build/gpu-tests
pass=0 fail=0 skipped=0

ok() { pass=$((pass + 1)); echo "ok gpu:$1"; }
bad() { fail=$((fail + 1)); echo "FAIL gpu:$1 $2"; }
skip() { skipped=$((skipped + 1)); echo "SKIP gpu:$1: $2"; }
finish() { echo "gpu: $pass passed, $fail failed, $skipped skipped"; [ "$fail" = 0 ]; exit $?; }
# jcheck NAME FILE JQ: the JSON in FILE makes JQ true
jcheck() {
	if jq -e "$3" "$2" > /dev/null 2>&1; then ok "$1"; else bad "$1" "false: $3"; fi
}

# ---- is there an NVIDIA GPU at all? ---------------------------------------------
gpus=0
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] || continue
	case "$(cat "$d/class" 2>/dev/null)" in 0x0302* | 0x0300*) gpus=$((gpus + 1)) ;; esac
done
if [ "$gpus" = 0 ] || { [ ! -e /proc/driver/nvidia/version ] && [ ! -e /sys/module/nvidia/version ]; }; then
	echo "################################################################################"
	echo "# SKIP tests/gpu: no NVIDIA GPU with its driver on this machine ($gpus on PCI)."
	echo "# These checks need one; nothing was tested.                                    "
	echo "################################################################################"
	skip all "no NVIDIA GPU"
	finish
fi
for b in "$MRTRACE" "$MRPROBE"; do
	[ -x "$b" ] || { bad setup "missing $b: run make"; finish; }
done
command -v jq > /dev/null || { bad setup "needs jq"; finish; }
rm -rf "$OUT"; mkdir -p "$OUT"
echo "note: $gpus NVIDIA GPU(s); $(head -1 /proc/driver/nvidia/version 2>/dev/null)"

# ---- check on the real driver -----------------------------------------------------
"$MRTRACE" check --json > "$OUT/check.json" 2> "$OUT/check.err"
jcheck check_json "$OUT/check.json" '.gpudirect.nvidia_driver != null and .gpudirect.gpus > 0'
jcheck check_flavour "$OUT/check.json" '.gpudirect.nvidia_open_module != null'
jcheck check_bar1_sysfs "$OUT/check.json" '[.gpudirect.devices[] | .bar1_bytes > 0] | all'
jcheck check_items "$OUT/check.json" '[.items[] | select(.id=="gpudirect.bar1" or .id=="gpudirect.class" or .id=="gpudirect.peermem" or .id=="gpudirect.dmabuf")] | length == 4'
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then
	jcheck check_bar1_nvml "$OUT/check.json" '[.gpudirect.devices[] | .nvml.bar1_total_bytes > 0 and .nvml.memory_bytes > 0] | all'
else
	skip check_bar1_nvml "no libnvidia-ml.so.1 on this machine"
fi
jq -c '{gpudirect, items: [.items[] | select(.area=="gpudirect")]}' "$OUT/check.json" | cut -c1-2000

# ---- GPU memory through the CUDA driver API, as a dma-buf --------------------------
"$MRPROBE" --no-device --gpu --api dmabuf --size 2M --json > "$OUT/mrprobe.jsonl" 2> "$OUT/mrprobe.err"
rc=$?
cat "$OUT/mrprobe.jsonl"
if [ $rc = 0 ] && grep -q 'exported as dma-buf fd' "$OUT/mrprobe.jsonl"; then
	ok cuda_dmabuf
else
	bad cuda_dmabuf "rc=$rc: $(tail -1 "$OUT/mrprobe.err")"
fi

# ---- a real PyTorch process with NCCL ----------------------------------------------
if ! python3 -c 'import torch, torch.distributed' 2> /dev/null; then
	skip torch_nccl "no PyTorch (python3 -c 'import torch')"
	finish
fi
cat > "$OUT/nccl_rank.py" <<'PY'
import os, sys, time
import torch
import torch.distributed as dist
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
dist.init_process_group("nccl", rank=0, world_size=1)
t = torch.ones(1 << 20, device="cuda")
dist.all_reduce(t)
torch.cuda.synchronize()
print("ready", flush=True)
time.sleep(float(sys.argv[1]))
dist.destroy_process_group()
PY
NCCL_DEBUG=WARN NCCL_IB_DISABLE=1 python3 "$OUT/nccl_rank.py" 60 > "$OUT/torch.out" 2>&1 &
pid=$!
for i in $(seq 120); do grep -q ready "$OUT/torch.out" && break; sleep 0.5; done
if ! grep -q ready "$OUT/torch.out"; then
	bad torch_nccl_started "$(tail -3 "$OUT/torch.out")"
	kill "$pid" 2> /dev/null
	finish
fi
ok torch_nccl_started
"$MRTRACE" check -p "$pid" --json > "$OUT/check-p.json" 2> "$OUT/check-p.err"
jcheck torch_nccl_library "$OUT/check-p.json" '.nccl.library.found == true and (.nccl.library.version | test("^2\\."))'
jcheck torch_nccl_settings "$OUT/check-p.json" '[.nccl.settings[] | select(.name=="NCCL_IB_DISABLE" and .value=="1")] | length == 1'
jcheck torch_libcuda "$OUT/check-p.json" '.gpudirect.libcuda != null'
jq -c '{nccl: .nccl.library, libcuda: .gpudirect.libcuda, dmabuf: .gpudirect.dmabuf}' "$OUT/check-p.json"
kill "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
finish
