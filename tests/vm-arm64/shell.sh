#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm-arm64/shell.sh - an interactive shell in the arm64 guest:
#     VM_INTERACTIVE=1 tests/vm-arm64/run.sh tests/vm-arm64/shell.sh
# (run.sh only runs scripts from the work tree, the one tree the guest sees.)
echo "arm64 guest: $(uname -r), page size $(getconf PAGESIZE); build/ is the arm64 build; exit or Ctrl-A X ends it"
exec bash -i
