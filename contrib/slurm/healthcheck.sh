#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mrtrace Slurm node health check (slurm.conf: HealthCheckProgram=
# /usr/local/libexec/mrtrace/slurm-healthcheck, with HealthCheckInterval=):
# the prolog's check without a job; drains on FAIL and resumes a node that
# mrtrace drained once it passes again (slurm-prolog, --healthcheck).
exec /usr/local/libexec/mrtrace/slurm-prolog --healthcheck "$@"
