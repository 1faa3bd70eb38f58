# SPDX-License-Identifier: GPL-2.0-only
# mrtrace - explain why RDMA memory registration failed.
#
#   make            build build/mrtrace and build/mrprobe
#   make test       install deps, build, run unit, host and VM tests (5.10, 6.1,
#                   6.12 and sid's newest; a kernel the archive no longer
#                   serves is a loud SKIP), the arm64 cases arm64 and memlock
#                   on 6.12 (make vm-arm64-test), the unit and host tests again
#                   under ASan+UBSan (make asan) and each fuzz harness briefly
#                   (make fuzz-smoke): in two lanes at once, at most two VMs
#                   (tests/all.sh)
#   make demo       boot the soft-RoCE VM and show a failing registration explained
#   make vmlinux    regenerate vmlinux/x86/*.h from Debian's stock kernel BTF
#                   (make vmlinux-arm64: vmlinux/arm64/*.h)
#   make bench      overhead benchmarks (ratios, never gating)
#   make install    PREFIX=/usr/local DESTDIR=: binaries, man pages, unit,
#                   completion, Slurm/NHC/Kubernetes/Prometheus files, logrotate
#                   (docs/deploy.md)
#   make deb        the Debian package (debhelper) in build/deb/
#   make image      the OCI image for Kubernetes (mmdebstrap + buildah, slow)
#   make cross-arm64  build for arm64 into build-arm64/ (tools/cross-arm64.sh)
#   make vm-arm64   the arm64 VM suite (KERNEL=6.12|6.1|6.12-16k; make test
#                   runs only its arm64 and memlock cases on 6.12)
#
# Layout: bpf/*.bpf.c -> build/*.bpf.o -> build/*.skel.h (bpf/regpath/*.bpf.c,
# a unit per site family, are linked into build/regpath.bpf.o); user/<stage>/*.c ->
# build/user/<stage>/*.o -> build/libmrtrace.a, shared by build/mrtrace,
# build/mrprobe and the unit tests (docs/design.md, "Source layout").
BUILD   ?= build
CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
# The BPF target and the CO-RE header follow the machine (or ARCH=x86|arm64).
UNAME_M := $(shell uname -m)
ARCH    ?= $(if $(filter x86_64,$(UNAME_M)),x86,$(if $(filter aarch64 arm64,$(UNAME_M)),arm64,unsupported))
ifeq ($(filter x86 arm64,$(ARCH)),)
$(error mrtrace builds for x86_64 and arm64 only (uname -m says $(UNAME_M)); set ARCH=x86 or ARCH=arm64)
endif
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

# CPPFLAGS, CFLAGS and LDFLAGS are the builder's (dpkg-buildflags exports
# Debian's under `make deb`); without them the build hardens itself the same
# way: stack protector, fortify, full RELRO with BIND_NOW (PIE is gcc's
# default on Debian).  The project's own flags (MRT_CFLAGS) come after them,
# whatever the builder gave.  The BPF objects take BPF_CFLAGS only: host
# hardening flags mean nothing to the BPF target.
CPPFLAGS ?= -D_FORTIFY_SOURCE=2
CFLAGS  ?= -O2 -g -fstack-protector-strong -fstack-clash-protection
LDFLAGS ?= -Wl,-z,relro -Wl,-z,now
MRT_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers \
	   -I$(BUILD) -Iuser -Ibpf
ALL_CFLAGS = $(CPPFLAGS) $(CFLAGS) $(MRT_CFLAGS)
LDLIBS  := -lbpf -lelf -lz -ljson-c -lm
BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Wno-unused-function \
	   -Ivmlinux/$(ARCH) -Ibpf

# The version every output carries: `git describe --tags --dirty` of the last
# release tag (v0.9.0 -> 0.9.0; 0.9.0-3-gabc1234 three commits after it);
# without a tag (or outside git) the VERSION file, plus +g<commit> in a git
# checkout.  A release: VERSION, debian/changelog and the tag v<VERSION>.
MRT_VERSION := $(patsubst v%,%,$(or $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null),$(shell cat VERSION 2>/dev/null)$(addprefix +g,$(shell git describe --always --dirty 2>/dev/null))))

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
# the registration path: one unit per site family, linked into one object
REG_SRCS  := $(wildcard bpf/regpath/*.bpf.c)
REG_OBJS  := $(REG_SRCS:bpf/regpath/%.bpf.c=$(BUILD)/regpath/%.bpf.o)
BPF_OBJS  := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/%.bpf.o) $(BUILD)/regpath.bpf.o
SKELS     := $(BPF_OBJS:$(BUILD)/%.bpf.o=$(BUILD)/%.skel.h)
USER_DIRS := core drivers proc nccl verdict report record tracer watch check diff explain logs
LIB_SRCS  := $(wildcard $(USER_DIRS:%=user/%/*.c))
LIB_OBJS  := $(LIB_SRCS:user/%.c=$(BUILD)/user/%.o)
USER_HDRS := user/*.h $(wildcard $(USER_DIRS:%=user/%/*.h))
LIB       := $(BUILD)/libmrtrace.a
PROBE_SRCS := $(wildcard tools/mrprobe/*.c)
PROBE_OBJS := $(PROBE_SRCS:tools/mrprobe/%.c=$(BUILD)/mrprobe.o/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(BUILD)/tests/helpers/%)

.SECONDARY: $(BPF_OBJS) $(REG_OBJS)
.PHONY: FORCE all deps deps-build deps-vm test test-prep unit host vm vm-6.1 vm-6.12 vm-5.10 vm-newest vm-harness demo vmlinux \
	bench clean install uninstall image cross-arm64 vm-arm64 vm-arm64-test vmlinux-arm64 \
	vm-stress gpu
all: $(BUILD)/mrtrace $(BUILD)/mrprobe

deps-build:
	$(Q)tools/deps.sh build
deps:
	$(Q)tools/deps.sh all
# make demo: the build and the VM bed only (no test bench daemons)
deps-vm:
	$(Q)tools/deps.sh vm

$(BUILD) $(BUILD)/mrprobe.o $(BUILD)/tests $(BUILD)/tests/helpers $(BUILD)/regpath:
	$(Q)mkdir -p $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c bpf/*.h vmlinux/$(ARCH)/*.h | $(BUILD)
	@echo "  BPF     $@"
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)llvm-strip -g $@

$(BUILD)/regpath/%.bpf.o: bpf/regpath/%.bpf.c bpf/*.h vmlinux/$(ARCH)/*.h | $(BUILD)/regpath
	@echo "  BPF     $@"
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)llvm-strip -g $@

# one object, so that one load arms the whole path (user/tracer/regload.c
# loads parts of it alone only to find a site that fails)
$(BUILD)/regpath.bpf.o: $(REG_OBJS)
	@echo "  BPFLINK $@"
	$(Q)$(BPFTOOL) gen object $@ $^

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	@echo "  SKEL    $@"
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(BUILD)/user/%.o: user/%.c $(USER_HDRS) bpf/mrtrace.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# rewritten only when the version changes, so nothing else rebuilds
$(BUILD)/mrtrace_version.h: FORCE | $(BUILD)
	$(Q)echo '#define MRTRACE_VERSION "$(MRT_VERSION)"' > $@.tmp; \
		if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/user/core/version.o: $(BUILD)/mrtrace_version.h
# Where `make install` puts docs/*.md (DOCDIR, from PREFIX): the outputs that
# point to a doc name the installed file.  Build with the PREFIX you install
# to (debian/rules does).
DOCDIR_USERS := user/watch/options.c user/check/cmd.c user/explain/cmd.c
$(BUILD)/mrtrace_docdir.h: FORCE | $(BUILD)
	$(Q)echo '#define MRTRACE_DOCDIR "$(DOCDIR)"' > $@.tmp; \
		if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(DOCDIR_USERS:user/%.c=$(BUILD)/user/%.o): $(BUILD)/mrtrace_docdir.h

# NCCL's line shapes are data (user/logs/nccl_shapes.tsv, tools/nccl-shapes.py
# reads them from NCCL's sources): compiled into user/logs/shapes.c
$(BUILD)/nccl_shapes.h: user/logs/nccl_shapes.tsv tools/shapes-to-c.sh | $(BUILD)
	$(Q)tools/shapes-to-c.sh $< > $@.tmp && mv $@.tmp $@
$(BUILD)/user/logs/shapes.o: $(BUILD)/nccl_shapes.h

# the call names and completion status texts are data as well
# (user/logs/calls.tsv, tools/call-names.py reads them from rdma-core's,
# libfabric's and the kernel's sources): compiled into util.c and completion.c
$(BUILD)/log_calls.h: user/logs/calls.tsv tools/calls-to-c.sh | $(BUILD)
	$(Q)tools/calls-to-c.sh $< > $@.tmp && mv $@.tmp $@
$(BUILD)/user/logs/util.o $(BUILD)/user/logs/completion.o: $(BUILD)/log_calls.h
# and CUDA's memory calls and error names (the same file, from NVIDIA's
# cuda.h): compiled into cudacall.c
$(BUILD)/log_cuda.h: user/logs/calls.tsv tools/calls-to-c.sh | $(BUILD)
	$(Q)tools/calls-to-c.sh --cuda $< > $@.tmp && mv $@.tmp $@
$(BUILD)/user/logs/cudacall.o: $(BUILD)/log_cuda.h
# UCX's failure formats and mlx5 CQE texts (user/logs/ucx_shapes.tsv,
# tools/ucx-shapes.py reads them from UCX's sources per release)
$(BUILD)/ucx_shapes.h: user/logs/ucx_shapes.tsv tools/ucx-shapes-to-c.sh | $(BUILD)
	$(Q)tools/ucx-shapes-to-c.sh $< > $@.tmp && mv $@.tmp $@
$(BUILD)/user/logs/ucxshapes.o: $(BUILD)/ucx_shapes.h

# only the tracer includes the generated skeletons
$(filter $(BUILD)/user/tracer/%,$(LIB_OBJS)): $(SKELS)

$(LIB): $(LIB_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/mrtrace: $(BUILD)/user/main.o $(LIB)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/mrprobe.o/%.o: tools/mrprobe/%.c tools/mrprobe/*.h $(USER_HDRS) | $(BUILD)/mrprobe.o
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Itools/mrprobe -c $< -o $@

$(BUILD)/mrprobe: $(PROBE_OBJS) $(LIB)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -libverbs -ldl

# Each unit test links its own file, the mrprobe library part (when it tests
# mrprobe) and libmrtrace.a; cmocka prints the per-binary count.
PROBE_LIB_OBJS := $(filter-out $(BUILD)/mrprobe.o/main.o,$(PROBE_OBJS))
$(BUILD)/tests/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(PROBE_LIB_OBJS) $(LIB) | $(BUILD)/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Itools/mrprobe -Itests/unit -o $@ $< $(PROBE_LIB_OBJS) $(LIB) \
		$(LDLIBS) -libverbs -ldl -lcmocka

# the consumer micro-benchmark: `make bench` only, never `make test`
$(BUILD)/bench-consumer: tools/bench-consumer.c $(LIB) | $(BUILD)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# the log reader's rate (issue 32): not part of `make test`
$(BUILD)/bench-logread: tools/bench-logread.c $(LIB) | $(BUILD)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/tests/helpers/%: tests/helpers/%.c | $(BUILD)/tests/helpers
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -fPIC -o $@ $< $(if $(findstring lib,$*),-shared,) -lpthread -libverbs -ldl

unit: $(UNIT_BINS) $(BPF_OBJS)
	$(Q)rc=0; tests/unit/run.sh $(UNIT_BINS) || rc=1; \
		BUILD=$(BUILD) tests/unit/structure.sh || rc=1; tests/unit/harness.sh || rc=1; exit $$rc

# tests/host/run.sh is the core live suite; each tests/host/suite-*.sh is a
# further runner with its own count line (one per topic, so they can grow apart).
host: all $(HELPER_BINS)
	$(Q)rc=0; for t in tests/host/run.sh $(sort $(wildcard tests/host/suite-*.sh)); do \
		$$t || rc=1; done; exit $$rc

vm-6.1: all $(HELPER_BINS)
	$(Q)tests/vm/suite.sh 6.1
vm-6.12: all $(HELPER_BINS)
	$(Q)tests/vm/suite.sh 6.12
vm-5.10: all $(HELPER_BINS)
	$(Q)tests/vm/suite.sh 5.10
vm-newest: all $(HELPER_BINS)
	$(Q)tests/vm/suite.sh newest
# The harness itself where a checkout lives under /tmp: the systemd boot from
# a copy of tests/vm under "/tmp/... with a space", out dir under /var/tmp,
# clutter beside it (tests/vm/tmp-checkout.sh; about a minute).
vm-harness:
	$(Q)tests/vm/tmp-checkout.sh 6.12
# One VM at a time, oldest kernel first, whatever -j says; every kernel runs
# even after a failure (the exit status still says one failed).
VM_KERNELS := 5.10 6.1 6.12 newest
vm: all $(HELPER_BINS)
	$(Q)rc=0; for k in $(VM_KERNELS); do tests/vm/suite.sh $$k || rc=1; done; exit $$rc

# The stress behind issue 24's intermittent hang on 6.1, not part of make
# test (about 5 min a kernel): start, failing registration, SIGINT, 30 times
# under CPU load, on every kernel of the matrix.
vm-stress: all $(HELPER_BINS)
	$(Q)rc=0; for k in $(VM_KERNELS); do \
		STRESS_ROUNDS=$${STRESS_ROUNDS:-30} CASE_TIMEOUT_MIN=1800 tests/vm/suite.sh $$k sigstress || rc=1; \
		done; exit $$rc

# The runners in two lanes side by side (tests/all.sh: host suites then the
# newest kernel and arm64; the package then the other kernels), every one
# even after a failure, closed by a summary of every count and failure line.
# test-prep: what both lanes use, built once before them.
test: deps
	$(Q)tests/all.sh $(BUILD)/test-output.log "$(MAKE)" "$(VM_KERNELS)"
test-prep: all $(HELPER_BINS)

demo: deps-vm
	$(Q)$(MAKE) --no-print-directory all $(HELPER_BINS)
	$(Q)VM_QUIET=1 tests/vm/run.sh --kernel $${KERNEL:-6.12} tools/demo.sh

# On a machine with an NVIDIA GPU (tests/gpu/run.sh; a loud skip without
# one, never part of make test).
gpu: all
	$(Q)tests/gpu/run.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/bench-consumer
	$(Q)tools/bench.sh

vmlinux:
	$(Q)vmlinux/generate.sh
vmlinux-arm64:
	$(Q)vmlinux/generate.sh arm64

# arm64 from this x86_64 host: a cross build (build-arm64/) run in an arm64
# guest under qemu-system-aarch64 (tests/vm-arm64/README.md).
cross-arm64:
	$(Q)tools/deps.sh arm64
	+$(Q)tools/cross-arm64.sh
vm-arm64: cross-arm64
	$(Q)tests/vm-arm64/suite.sh $${KERNEL:-6.12}
# make test's arm64 share: the arm64 case (ELF, page size, the unit tests on
# arm64) and memlock on 6.12; 5 min 49 s under TCG on the shared 2-core host.
vm-arm64-test: cross-arm64
	$(Q)tests/vm-arm64/suite.sh 6.12 arm64 memlock

clean:
	rm -rf $(BUILD) build-arm64 $(ASAN_BUILD) $(FUZZ_BUILD)

# ---- install: like any system tool; DESTDIR for packaging and the tests -------
# mrtrace is a root tool (sbin, section 8: watch needs root), but explain,
# diff and check (of the node, or of one's own process) need none, and a
# user's PATH has no sbin: $(BINDIR)/mrtrace is a relative link to it.
# mrprobe is a user's reproducer (bin, section 1).
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share/mrtrace
DOCDIR     ?= $(PREFIX)/share/doc/mrtrace
LIBEXECDIR ?= $(PREFIX)/libexec/mrtrace
UNITDIR    ?= $(PREFIX)/lib/systemd/system
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR ?= /etc
D := $(DESTDIR)
# the prolog, epilog, NHC check and units name the installed paths
INSTALL_SED := sed -e 's|/usr/sbin/mrtrace|$(SBINDIR)/mrtrace|g' \
	-e 's|/usr/local/libexec/mrtrace|$(LIBEXECDIR)|g' \
	-e 's|/usr/share/doc/mrtrace|$(DOCDIR)|g'
INSTALLED_DOCS := docs/causes.md docs/json.md docs/check.md docs/context.md \
	docs/deploy.md docs/mrprobe.md docs/logs.md
install: all
	$(Q)install -d $(D)$(BINDIR) $(D)$(SBINDIR) $(D)$(MANDIR)/man1 $(D)$(MANDIR)/man8 \
		$(D)$(COMPLETIONDIR) $(D)$(UNITDIR) $(D)$(TMPFILESDIR) \
		$(D)$(LIBEXECDIR) $(D)$(DATADIR)/nhc $(D)$(DATADIR)/k8s $(D)$(DATADIR)/prometheus \
		$(D)$(DOCDIR) $(D)$(SYSCONFDIR)/mrtrace/mrtrace.conf.d $(D)$(SYSCONFDIR)/logrotate.d
	$(Q)install -m 0755 $(BUILD)/mrtrace $(D)$(SBINDIR)/
	$(Q)[ "$(BINDIR)" = "$(SBINDIR)" ] || ln -sfr $(D)$(SBINDIR)/mrtrace $(D)$(BINDIR)/mrtrace
	$(Q)install -m 0755 $(BUILD)/mrprobe $(D)$(BINDIR)/
	$(Q)$(INSTALL_SED) docs/mrtrace.8 > $(D)$(MANDIR)/man8/mrtrace.8 && \
		chmod 0644 $(D)$(MANDIR)/man8/mrtrace.8
	$(Q)install -m 0644 docs/mrprobe.1 $(D)$(MANDIR)/man1/
	$(Q)install -m 0644 contrib/bash-completion/mrtrace $(D)$(COMPLETIONDIR)/mrtrace
	$(Q)ln -sf mrtrace $(D)$(COMPLETIONDIR)/mrprobe
	$(Q)for u in mrtrace.service mrtrace-check.service mrtrace-check.timer; do \
		$(INSTALL_SED) contrib/systemd/$$u > $(D)$(UNITDIR)/$$u && \
		chmod 0644 $(D)$(UNITDIR)/$$u || exit 1; done
	$(Q)install -m 0644 contrib/systemd/mrtrace.tmpfiles $(D)$(TMPFILESDIR)/mrtrace.conf
	$(Q)$(INSTALL_SED) contrib/slurm/prolog.sh > $(D)$(LIBEXECDIR)/slurm-prolog
	$(Q)$(INSTALL_SED) contrib/slurm/epilog.sh > $(D)$(LIBEXECDIR)/slurm-epilog
	$(Q)$(INSTALL_SED) contrib/slurm/healthcheck.sh > $(D)$(LIBEXECDIR)/slurm-healthcheck
	$(Q)chmod 0755 $(D)$(LIBEXECDIR)/slurm-prolog $(D)$(LIBEXECDIR)/slurm-epilog \
		$(D)$(LIBEXECDIR)/slurm-healthcheck
	$(Q)$(INSTALL_SED) contrib/nhc/mrtrace.nhc > $(D)$(DATADIR)/nhc/mrtrace.nhc
	$(Q)chmod 0644 $(D)$(DATADIR)/nhc/mrtrace.nhc
	$(Q)install -m 0644 contrib/prometheus/mrtrace.rules.yml contrib/prometheus/mrtrace.rules.test.yml \
		$(D)$(DATADIR)/prometheus/
	$(Q)install -m 0644 deploy/k8s/*.yaml deploy/k8s/Containerfile $(D)$(DATADIR)/k8s/
	$(Q)# the installed DaemonSet names the image `make image` builds of this version
	$(Q)sed 's|image: localhost/mrtrace:latest|image: $(IMAGE)|' deploy/k8s/daemonset.yaml \
		> $(D)$(DATADIR)/k8s/daemonset.yaml
	$(Q)install -d $(D)$(DATADIR)/k8s/monitoring && \
		install -m 0644 deploy/k8s/monitoring/*.yaml $(D)$(DATADIR)/k8s/monitoring/
	$(Q)install -d $(D)$(DATADIR)/k8s/seccomp && \
		install -m 0644 deploy/k8s/seccomp/mrtrace-watch.json $(D)$(DATADIR)/k8s/seccomp/
	$(Q)# the docs the outputs and the man page point to, at the path they name
	$(Q)install -m 0644 $(INSTALLED_DOCS) $(D)$(DOCDIR)/
	$(Q)# external BTF for kernels whose modules have none (docs/design.md section 8)
	$(Q)install -d $(D)$(DATADIR)/btf && install -m 0644 btf/*.btf $(D)$(DATADIR)/btf/
	$(Q)# an existing configuration is the operator's: never overwritten
	$(Q)[ -e $(D)$(SYSCONFDIR)/mrtrace/mrtrace.conf ] || \
		install -m 0644 contrib/mrtrace.conf $(D)$(SYSCONFDIR)/mrtrace/mrtrace.conf
	$(Q)[ -e $(D)$(SYSCONFDIR)/logrotate.d/mrtrace ] || \
		install -m 0644 contrib/logrotate/mrtrace $(D)$(SYSCONFDIR)/logrotate.d/mrtrace
	@echo "  INSTALL $(D)$(PREFIX) (config in $(D)$(SYSCONFDIR)/mrtrace)"

uninstall:
	rm -f $(D)$(SBINDIR)/mrtrace $(D)$(BINDIR)/mrtrace $(D)$(BINDIR)/mrprobe \
		$(D)$(MANDIR)/man8/mrtrace.8 \
		$(D)$(MANDIR)/man1/mrprobe.1 $(D)$(COMPLETIONDIR)/mrtrace $(D)$(COMPLETIONDIR)/mrprobe \
		$(D)$(UNITDIR)/mrtrace.service $(D)$(UNITDIR)/mrtrace-check.service \
		$(D)$(UNITDIR)/mrtrace-check.timer $(D)$(TMPFILESDIR)/mrtrace.conf
	rm -rf $(D)$(LIBEXECDIR) $(D)$(DATADIR) $(D)$(DOCDIR)

# ---- the Debian package (debian/, docs/deploy.md) --------------------------------
# dpkg-buildpackage -b from this tree: Debian's build flags, make install into
# debian/mrtrace, the .deb in DEB_OUT.  `make version` prints what the
# binaries will say (debian/changelog must name the same release: the fleet
# suite compares them).
DEB_OUT ?= $(BUILD)/deb
.PHONY: deb version
version:
	@echo $(MRT_VERSION)
deb:
	$(Q)tools/deps.sh deb
	$(Q)tools/build-deb.sh $(DEB_OUT)

# The Kubernetes image, built here from Debian packages without a registry.
IMAGE ?= localhost/mrtrace:$(subst +,_,$(MRT_VERSION))
image: all
	$(Q)tools/deps.sh image
	$(Q)deploy/k8s/build-image.sh $(BUILD)/mrtrace $(IMAGE) $(BUILD)/mrtrace-image.oci

# ---- sanitizers and fuzzing ---------------------------------------------------
# make asan        mrtrace and the unit tests again with ASan+UBSan in
#                  build-asan/; the unit tests, then the host runners against
#                  build-asan/mrtrace (MRTRACE=..., helpers from build/)
# make fuzz-smoke  each libFuzzer harness of tests/fuzz/ for FUZZ_SECONDS (10)
#                  from its seed corpus (clang's libFuzzer, ASan+UBSan)
# make fuzz        the same, FUZZ_LONG (600) seconds each
ASAN_BUILD ?= build-asan
SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# UBSan stops at the first report; LSan runs at every exit (root may ptrace)
# and any leak fails the run: no suppressions.  Malloc stacks by the fast
# (frame pointer) unwinder: the full one (fast_unwind_on_malloc=0) made
# every allocation walk the stack, and the ASan step took 880 s of make
# test (test_diff_hostile 171 s instead of 18 s).  A leak is found either
# way; its stack may stop inside json-c or libbpf, built without frame
# pointers: rerun that test with ASAN_OPTIONS=fast_unwind_on_malloc=0 (and
# the rest of SAN_ENV) for the whole path.
SAN_ENV    := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
	      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
FUZZ_BUILD ?= build-fuzz
FUZZ_CC    ?= clang
FUZZ_SECONDS ?= 10
FUZZ_LONG  ?= 600
FUZZ_DIRS  := core drivers proc nccl verdict report record check diff logs
FUZZ_LIB_OBJS := $(patsubst user/%.c,$(FUZZ_BUILD)/user/%.o,$(wildcard $(FUZZ_DIRS:%=user/%/*.c)))
FUZZ_LIB_OBJS += $(FUZZ_BUILD)/user/explain/jobs.o # explain --jobs: fuzz_records
FUZZ_LIB_OBJS += $(FUZZ_BUILD)/user/explain/stream.o # the record stream's log lines: fuzz_logs
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_CFLAGS := -O1 -g -std=c11 -D_GNU_SOURCE -Iuser -Ibpf -I$(BUILD) $(SAN_FLAGS)
.PHONY: asan asan-build fuzz-smoke fuzz
.SECONDARY: $(FUZZ_LIB_OBJS)
$(FUZZ_BUILD)/user/core/version.o: $(BUILD)/mrtrace_version.h
$(FUZZ_BUILD)/user/check/cmd.o: $(BUILD)/mrtrace_docdir.h
$(FUZZ_BUILD)/user/logs/shapes.o: $(BUILD)/nccl_shapes.h
$(FUZZ_BUILD)/user/logs/util.o $(FUZZ_BUILD)/user/logs/completion.o: $(BUILD)/log_calls.h
$(FUZZ_BUILD)/user/logs/cudacall.o: $(BUILD)/log_cuda.h
$(FUZZ_BUILD)/user/logs/ucxshapes.o: $(BUILD)/ucx_shapes.h

# the BPF objects are the same with or without sanitizers: reused
asan: all $(HELPER_BINS)
	$(Q)mkdir -p $(ASAN_BUILD) && cp -p $(BUILD)/*.bpf.o $(BUILD)/*.skel.h $(ASAN_BUILD)/
	$(Q)# fortify checks and ASan interceptors overlap: none under ASan
	$(Q)$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) CC="$(CC) $(SAN_FLAGS)" CPPFLAGS= asan-build
	$(Q)rc=0; out=$$($(SAN_ENV) tests/unit/run.sh $(UNIT_SRCS:tests/unit/%.c=$(ASAN_BUILD)/tests/%)) || rc=1; \
		printf '%s\n' "$$out" | sed 's/^unit:/asan-unit:/'; \
		for t in tests/host/run.sh $(sort $(wildcard tests/host/suite-*.sh)); do \
			n=$$(basename $$t .sh); \
			out=$$($(SAN_ENV) MRTRACE=$(CURDIR)/$(ASAN_BUILD)/mrtrace HOST_OUT=$(CURDIR)/$(ASAN_BUILD)/host-$$n $$t 2>&1) || rc=1; \
			printf '%s\n' "$$out" | grep -E '^FAIL|^==[0-9]+==ERROR|runtime error' | head -20; \
			printf '%s\n' "$$out" | tail -1 | sed 's/^/asan-/'; \
		done; exit $$rc
asan-build: $(BUILD)/mrtrace $(UNIT_BINS)

$(FUZZ_BUILD)/user/%.o: user/%.c $(USER_HDRS) bpf/mrtrace.h
	@mkdir -p $(@D)
	@echo "  FUZZCC  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJS)
	@echo "  FUZZLD  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) -ljson-c -lz -lm

$(FUZZ_BUILD)/seeds/elf/seed_libnccl.so: tests/fuzz/seed_libnccl.c
	@mkdir -p $(@D)
	$(Q)$(CC) -O1 -shared -fPIC -nostdlib -o $@ $<

fuzz-smoke: $(FUZZ_BINS) $(FUZZ_BUILD)/seeds/elf/seed_libnccl.so
	$(Q)tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_BINS)
fuzz: $(FUZZ_BINS) $(FUZZ_BUILD)/seeds/elf/seed_libnccl.so
	$(Q)tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_LONG) $(FUZZ_BINS)
