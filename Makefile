# mrtrace - explain why RDMA memory registration failed.
#
#   make            build build/mrtrace and build/mrprobe
#   make test       install deps, build, run unit, host and VM tests (6.1 and 6.12)
#   make demo       boot the soft-RoCE VM and show a failing registration explained
#   make vmlinux    regenerate vmlinux/x86/*.h from Debian's stock kernel BTF
#   make bench      overhead benchmarks (ratios, never gating)
#
# Layout: bpf/*.bpf.c -> build/*.bpf.o -> build/*.skel.h; user/*.c (less main.c)
# -> build/libmrtrace.a, shared by build/mrtrace, build/mrprobe and the unit tests.
BUILD   ?= build
CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
ARCH    := x86
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers \
	   -I$(BUILD) -Iuser -Ibpf
LDLIBS  := -lbpf -lelf -lz -ljson-c -lm
BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Wno-unused-function \
	   -Ivmlinux/$(ARCH) -Ibpf

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/%.bpf.o)
SKELS     := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/%.skel.h)
LIB_SRCS  := $(filter-out user/main.c,$(wildcard user/*.c))
LIB_OBJS  := $(LIB_SRCS:user/%.c=$(BUILD)/user/%.o)
LIB       := $(BUILD)/libmrtrace.a
PROBE_SRCS := $(wildcard tools/mrprobe/*.c)
PROBE_OBJS := $(PROBE_SRCS:tools/mrprobe/%.c=$(BUILD)/mrprobe.o/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(BUILD)/tests/helpers/%)

.SECONDARY: $(BPF_OBJS)
.PHONY: all deps deps-build test unit host vm vm-6.1 vm-6.12 vm-5.10 vm-newest demo vmlinux bench clean
all: $(BUILD)/mrtrace $(BUILD)/mrprobe

deps-build:
	$(Q)tools/deps.sh build
deps:
	$(Q)tools/deps.sh all

$(BUILD) $(BUILD)/user $(BUILD)/mrprobe.o $(BUILD)/tests $(BUILD)/tests/helpers:
	$(Q)mkdir -p $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c bpf/*.h vmlinux/$(ARCH)/*.h | $(BUILD)
	@echo "  BPF     $@"
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)llvm-strip -g $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	@echo "  SKEL    $@"
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(BUILD)/user/%.o: user/%.c user/*.h bpf/mrtrace.h | $(BUILD)/user
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# only the loaders include the generated skeletons
$(BUILD)/user/attach.o $(BUILD)/user/uprobes.o: $(SKELS)

$(LIB): $(LIB_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/mrtrace: $(BUILD)/user/main.o $(LIB)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/mrprobe.o/%.o: tools/mrprobe/%.c tools/mrprobe/*.h user/*.h | $(BUILD)/mrprobe.o
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -Itools/mrprobe -c $< -o $@

$(BUILD)/mrprobe: $(PROBE_OBJS) $(LIB)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -libverbs -ldl

# Each unit test links its own file, the mrprobe library part (when it tests
# mrprobe) and libmrtrace.a; cmocka prints the per-binary count.
PROBE_LIB_OBJS := $(filter-out $(BUILD)/mrprobe.o/main.o,$(PROBE_OBJS))
$(BUILD)/tests/test_%: tests/unit/test_%.c $(PROBE_LIB_OBJS) $(LIB) | $(BUILD)/tests
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -Itools/mrprobe -Itests/unit -o $@ $< $(PROBE_LIB_OBJS) $(LIB) \
		$(LDLIBS) -libverbs -ldl -lcmocka

$(BUILD)/tests/helpers/%: tests/helpers/%.c | $(BUILD)/tests/helpers
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -fPIC -o $@ $< $(if $(findstring lib,$*),-shared,) -lpthread -libverbs -ldl

unit: $(UNIT_BINS)
	$(Q)tests/unit/run.sh $(UNIT_BINS)

host: all $(HELPER_BINS)
	$(Q)tests/host/run.sh

vm-6.1: all $(HELPER_BINS)
	$(Q)tests/vm/suite.sh 6.1
vm-6.12: all $(HELPER_BINS)
	$(Q)tests/vm/suite.sh 6.12
# Not in `vm`/`test` yet: the tracer does not handle these kernels yet.
vm-5.10: all $(HELPER_BINS)
	$(Q)tests/vm/suite.sh 5.10
vm-newest: all $(HELPER_BINS)
	$(Q)tests/vm/suite.sh newest
vm: vm-6.1 vm-6.12

test: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory -k unit host vm

demo: deps
	$(Q)$(MAKE) --no-print-directory all $(HELPER_BINS)
	$(Q)VM_QUIET=1 tests/vm/run.sh --kernel $${KERNEL:-6.12} tools/demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/bench.sh

vmlinux:
	$(Q)vmlinux/generate.sh

clean:
	rm -rf $(BUILD)
