# GEMM course - top-level build.
#
#   make lesson01      build build/01_naive/run and point ./run at it (any lessonNN)
#   make all           every lesson and tool
#   make test          everything that runs without a GPU (CPU tests, compile checks, SASS)
#   make test-gpu      the GPU tests (needs an NVIDIA GPU, sm_80 or newer)
#   make bench         benchmarks -> plots/data/<device>.csv
#   make plots         charts from the committed CSV (no GPU needed)
#   make clean
#   make help          these targets and the lessons, with their assignments
#
# Variables: ARCH="80 90" (SM architectures to compile for), NVCC, CC, BUILD.

NVCC      ?= nvcc
CC        := gcc
BUILD     ?= build
ARCH      ?= 80 90
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(shell command -v $(NVCC) 2>/dev/null)))
ifeq ($(CUDA_HOME),)
CUDA_HOME := /usr/local/cuda
endif

GENCODE   := $(foreach a,$(ARCH),-gencode arch=compute_$(a),code=sm_$(a))
CFLAGS_C  := -std=c11 -O2 -Wall -Wextra -pedantic -Icommon -I$(CUDA_HOME)/include
NVCCFLAGS := -std=c++17 -O3 -lineinfo $(GENCODE) -Icommon -Xcompiler -Wall,-Wextra \
             -Xptxas -warn-spills,-warn-lmem-usage
# nvcc -split-compile 0: the device optimizer (cicc) and ptxas share out one file's kernels
# among threads, one per CPU. It can change the machine code (with nvcc 13.0 it did for
# lessons 05, 07 and 08), so a lesson's lesson.mk adds it only where cuobjdump -sass shows the
# same code with and without it (notes/perf.md, "Build times"). Empty where nvcc lacks it.
SPLIT_COMPILE := $(shell $(NVCC) --help 2>/dev/null | grep -q -e '--split-compile ' && echo -split-compile 0)
LDLIBS    := -L$(CUDA_HOME)/lib64 -lcublasLt -lcublas -lcudart

# Every folder lessons/NN_name with a gemm.cu is a lesson.
LESSONS   := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard lessons/*/gemm.cu)))))
RUNS      := $(foreach l,$(LESSONS),$(BUILD)/$(l)/run)

# The commit baked into every result row; the stamp file changes only when the commit does.
COMMIT    := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
               git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
$(shell mkdir -p $(BUILD)/common && \
  (test "$$(cat $(BUILD)/commit.txt 2>/dev/null)" = "$(COMMIT)" || echo "$(COMMIT)" > $(BUILD)/commit.txt))

.PHONY: all test test-cpu test-gpu bench plots clean deps help $(foreach l,$(LESSONS),lesson$(firstword $(subst _, ,$(l))))
.DEFAULT_GOAL := all

all: $(RUNS) $(BUILD)/tools/probe $(BUILD)/tools/lt_algos

# The ceilings probe (FFMA, mma.sync, HBM, cuBLAS) used by the roofline and the READMEs.
$(BUILD)/tools/probe: tools/probe.cu common/check.h $(BUILD)/commit.txt
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -DGEMM_GIT_COMMIT='"$(COMMIT)"' $< -o $@ $(LDLIBS)

# ---- the harness --------------------------------------------------------------------------
HARNESS_OBJS := $(BUILD)/common/harness.o $(BUILD)/common/harness_kernels.o \
                $(BUILD)/common/harness_commit.o $(BUILD)/common/harness_epilogue.o \
                $(BUILD)/common/harness_epilogue_kernels.o

# cuBLASLt's algorithm configurations for one problem, each timed (lesson 08, section Profiling).
$(BUILD)/tools/lt_algos: tools/lt_algos.cu common/check.h common/harness_dev.h \
                         common/harness_epilogue.h $(HARNESS_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< $(HARNESS_OBJS) -o $@ $(LDLIBS) -lm

$(BUILD)/common/harness.o: common/harness.c common/harness.h common/harness_dev.h common/check.h common/harness_epilogue.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -c $< -o $@

# the epilogue's side of the harness (--out, --epilogue ...): cuBLASLt, float64, the
# reference / unfused elementwise kernel
$(BUILD)/common/harness_epilogue.o: common/harness_epilogue.c common/harness_epilogue.h common/harness.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -c $< -o $@

$(BUILD)/common/harness_epilogue_kernels.o: common/harness_epilogue_kernels.cu common/harness_epilogue.h common/harness.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# The commit stamp lives in its own object: a new commit recompiles it and relinks the
# lessons, but no kernel is recompiled.
$(BUILD)/common/harness_commit.o: common/harness_commit.c $(BUILD)/commit.txt
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -DGEMM_GIT_COMMIT='"$(COMMIT)"' -c $< -o $@

$(BUILD)/common/harness_kernels.o: common/harness_kernels.cu common/harness_dev.h common/harness.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# ---- lessons ------------------------------------------------------------------------------
# build/NN_name/run from lessons/NN_name/gemm.cu (+ any header of that folder and common/):
# a lesson's lesson.mk may set GENCODE_NN_name / NVCCFLAGS_NN_name / ARCH_NN_name to build
# for other targets than $(ARCH) (lesson 09: sm_90a only).
# compiled to gemm.o (ptxas's register/spill report in ptxas.txt; lesson 04 takes a few
# minutes), then linked with the harness.
define LESSON_RULE
$(BUILD)/$(1)/gemm.o: lessons/$(1)/gemm.cu $(wildcard lessons/$(1)/*.h lessons/$(1)/*.cuh) $(wildcard common/*.h)
	@mkdir -p $$(@D)
	@echo "compiling lessons/$(1)/gemm.cu for $$(or $$(ARCH_$(1)),$(foreach a,$(ARCH),sm_$(a))) ..."
	$(NVCC) $$(or $$(NVCCFLAGS_$(1)),$$(NVCCFLAGS)) -Xptxas -v -c lessons/$(1)/gemm.cu -o $$@ 2> $(BUILD)/$(1)/ptxas.txt || { cat $(BUILD)/$(1)/ptxas.txt; exit 1; }
	@grep -v -E '^ptxas info|^ptxas  *info|bytes stack frame|Used [0-9]+ registers|Compiling entry|Function properties' $(BUILD)/$(1)/ptxas.txt || true

$(BUILD)/$(1)/run: $(BUILD)/$(1)/gemm.o $(HARNESS_OBJS)
	$(NVCC) $$(or $$(GENCODE_$(1)),$$(GENCODE)) $$< $(HARNESS_OBJS) -o $$@ $(LDLIBS)

lesson$(firstword $(subst _, ,$(1))): $(BUILD)/$(1)/run
	@ln -sfn $(BUILD)/$(1)/run run
	@echo "built $(BUILD)/$(1)/run and pointed ./run at it. Next: ./run   (options: ./run --help)"
endef
$(foreach l,$(LESSONS),$(eval $(call LESSON_RULE,$(l))))

# Lessons and tests may add rules of their own (extra tools, CPU tests).
-include $(wildcard lessons/*/lesson.mk) $(wildcard tests/*.mk)

# ---- goals that name no lesson or no assignment: one line, before anything is built ------
LESSON_GOALS := $(foreach l,$(LESSONS),lesson$(firstword $(subst _, ,$(l))))
GRADE_GOALS  := $(foreach l,$(EX_LESSONS),grade$(firstword $(subst _, ,$(l))) exercise$(firstword $(subst _, ,$(l))))
BAD_LESSON_GOALS := $(filter-out $(LESSON_GOALS),$(filter lesson%,$(MAKECMDGOALS)))
BAD_GRADE_GOALS  := $(filter-out $(GRADE_GOALS) grade-%,$(filter grade% exercise%,$(MAKECMDGOALS)))
ifneq ($(BAD_LESSON_GOALS),)
$(error make $(firstword $(BAD_LESSON_GOALS)): no such lesson; the lessons are $(LESSON_GOALS) (make help))
endif
ifneq ($(BAD_GRADE_GOALS),)
$(error make $(firstword $(BAD_GRADE_GOALS)): no such assignment; the assignments are $(filter grade%,$(GRADE_GOALS))$(if $(filter-out $(EX_LESSONS),$(LESSONS)), ($(filter-out $(EX_LESSONS),$(LESSONS)) has none)); make help)
endif

help:
	@echo "make lessonNN      build lesson NN (build/NN_name/run) and point ./run at it; then ./run --help"
	@echo "make gradeNN       grade lesson NN's assignment (lessons/NN_name/exercise/README.md); SUB=dir grades a submission"
	@echo "make exerciseNN    build lesson NN with the assignment's kernel as variant 'exercise' (./run --variant exercise)"
	@echo "make all           every lesson and tool (make -j2 all: 23 minutes on 2 cores)"
	@echo "make test          everything that runs without a GPU; make test-gpu on a GPU machine"
	@echo "make plots         the charts from the committed measurements; make bench measures (GPU)"
	@echo "make build/tools/layouts      the layout explorer (build/tools/layouts --help)"
	@echo "make build/tools/bank_conflicts   lesson 06's shared-memory bank-conflict counter"
	@echo "make clean"
	@echo "the lessons, in learning order:"
	@$(foreach l,$(LESSONS),printf '  make lesson%s  %-12s %s\n' $(firstword $(subst _, ,$(l))) $(l) "$(if $(filter $(l),$(EX_LESSONS)),assignment: make grade$(firstword $(subst _, ,$(l))),no assignment)";)

# ---- tests --------------------------------------------------------------------------------
CRITERION_LIBS = $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)
TEST_BINS := $(BUILD)/tests/test_harness $(EXTRA_TEST_BINS)

deps:
	@NVCC=$(NVCC) scripts/ensure_deps.sh

$(BUILD)/tests/test_harness: tests/test_harness.c tests/harness_tests.h $(HARNESS_OBJS) common/harness.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) $< $(HARNESS_OBJS) -o $@ $(CRITERION_LIBS) $(LDLIBS) -lstdc++ -lm

test: deps
	@$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) test-cpu

test-cpu: $(RUNS) $(TEST_BINS) $(BUILD)/tools/lt_algos
	@set -e; for t in $(TEST_BINS); do echo "== $$t"; ./$$t --jobs 2; done
	@BUILD=$(BUILD) bash tests/test_cli.sh
	@BUILD=$(BUILD) bash tests/test_sass.sh $(LESSONS)
	@for s in $(EXTRA_TEST_SCRIPTS); do echo "== $$s"; BUILD=$(BUILD) bash $$s || exit 1; done
	@echo "make test: all CPU tests passed"

test-gpu: $(RUNS) $(BUILD)/tools/probe $(EXTRA_GPU_BINS)
	@BUILD=$(BUILD) bash tests/gpu/run_gpu_tests.sh $(LESSONS) -- $(EXTRA_GPU_BINS)

bench: $(RUNS)
	@BUILD=$(BUILD) bash scripts/bench.sh $(LESSONS)

clean:
	rm -rf $(BUILD) run
