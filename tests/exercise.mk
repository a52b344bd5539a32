# tests/exercise.mk - the lessons' assignments: build, grade, hand out (included by the Makefile).
#
# A lesson has an assignment when lessons/NN_name/exercise/rubric.txt exists. Its folder holds
# the README (the task), the skeleton the learner completes and the rubric; the rubric's
# `files:` line names the files the learner edits (and hands in). Staff solutions live in
# solutions/NN_name/ (the same files, completed), which the handout leaves out; a
# solutions/NN_name/wrong.patch turns the solution into a deliberately wrong one, to check that
# the grader notices.
#
#   make gradeNN              grade the learner's files in lessons/NN_name/exercise/
#   make gradeNN SUB=dir      grade a submission: the `files:` of the rubric, taken from dir
#   make exerciseNN [SUB=dir] build the lesson's binary with the learner's kernel (from dir
#                             with SUB) as variant "exercise" and point ./run at it
#                             (./run --variant exercise ...); prints ptxas's registers /
#                             stack frame / spills of the kernel
# SUB given empty, SUB not a folder or lacking a file of the rubric, and exerciseNN for an
# assignment without kernel.cu: one line, make's status 2, nothing built.
# The grader's status (tests/grade/grade.sh) is the last line it prints and "status" in
# report.json: 0 full marks, 1 points lost, 2 could not grade, 3 no points lost but the GPU part
# was not run (no GPU). `make gradeNN` exits 0 for 0 and 3 (nothing that ran lost a point: the
# last line says whether the GPU part ran), and fails for 1 and 2, where make ends with its
# own "Error N" line and status 2.
#   make grade-solutions      grade every staff solution (score table; exit 0 when all 100)
#   make grade-build          build every graded binary (skeletons, solutions, wrong ones) and
#                             copy Criterion's libraries into build/grade/lib, for a GPU machine
#   make grade-check          solutions 100, skeletons below 100, wrong ones lose correctness
#                             points (the table tests/grade/grade_all.sh prints)
#   make handout              build/handout.tar.gz: the course without solutions/
#
# What is built, for lesson L = NN_name and a source S of the learner's files (tag):
#   $(BUILD)/grade/L/<tag>/cpu   tests/test_exercise_NN.c + the .c files of S (Criterion)
#   $(BUILD)/grade/L/<tag>/run   $(BUILD)/L/gemm.o (the lesson, unchanged) + S/kernel.cu +
#                                tests/grade/grade_wrap.c, linked with --wrap=harness_main;
#                                compiled for the lesson's own targets when its lesson.mk
#                                sets them (NVCCFLAGS_L, GENCODE_L: lesson 09, sm_90a only)
# tags: exercise (S = lessons/L/exercise), solution (solutions/L), wrong (the solution with
# wrong.patch applied, in $(BUILD)/grade/L/wrong/src), sub_<name> (S = $(SUB); a folder
# already named sub_<name> keeps its name). Every compile's messages are kept in
# <tag>/*.build.log; tests/test_exercises.sh (make test) fails
# on a warning in the skeletons and solutions.

EX_LESSONS := $(sort $(patsubst lessons/%/exercise/rubric.txt,%,$(wildcard lessons/*/exercise/rubric.txt)))
EX_NN = $(firstword $(subst _, ,$(1)))
# the files the learner edits (rubric's "files:" line)
EX_FILES = $(strip $(shell sed -n 's/^files://p' lessons/$(1)/exercise/rubric.txt))
# the kernel.cu a source is graded with ($(1) lesson, $(2) source folder): the source's own when
# the learner edits it (it is among the rubric's files), else the skeleton's (lesson 08: the
# learner's rule is a header that the given kernel.cu compiles in)
EX_KERNEL = $(if $(filter kernel.cu,$(call EX_FILES,$(1))),$(2)/kernel.cu,lessons/$(1)/exercise/kernel.cu)
GRADE_PROBE := $(BUILD)/grade/gpu_probe
GRADE_WRAP  := $(BUILD)/grade/grade_wrap.o
SUB ?=
# the submission's tag: sub_<name of its folder> (a folder already named sub_x keeps its name)
SUB_NAME = $(subst .,_,$(notdir $(patsubst %/,%,$(SUB))))
SUB_TAG := $(if $(SUB),sub_$(patsubst sub_%,%,$(SUB_NAME)))

# Bad requests, refused before anything is built, in one line each (make's $(error): status 2):
# SUB given but empty, SUB not a folder, a SUB that lacks a file of the rubric, and exerciseNN
# for an assignment without a kernel (lesson 02's is graded on the CPU alone).
EX_LESSON_OF = $(firstword $(foreach l,$(EX_LESSONS),$(if $(filter $(1),$(call EX_NN,$(l))),$(l))))
EX_GOAL_NNS := $(sort $(patsubst grade%,%,$(filter $(addprefix grade,$(foreach l,$(EX_LESSONS),$(call EX_NN,$(l)))),$(MAKECMDGOALS))) \
                      $(patsubst exercise%,%,$(filter $(addprefix exercise,$(foreach l,$(EX_LESSONS),$(call EX_NN,$(l)))),$(MAKECMDGOALS))))
EX_SUB_DIR = $(patsubst %/,%,$(SUB))
# $(1) the goal (grade01), $(2) the lesson
EX_SUB_MISSING = $(strip $(foreach f,$(call EX_FILES,$(2)),$(if $(wildcard $(EX_SUB_DIR)/$(f)),,$(f))))
define EX_CHECK_GOAL
$(if $(and $(filter exercise$(call EX_NN,$(2)),$(MAKECMDGOALS)),$(if $(wildcard lessons/$(2)/exercise/kernel.cu),,y)),\
  $(error exercise$(call EX_NN,$(2)): lesson $(call EX_NN,$(2))'s assignment has no kernel to build (it is graded on the CPU alone): make grade$(call EX_NN,$(2))))
$(if $(and $(filter command line,$(origin SUB)),$(if $(SUB),,y)),\
  $(error $(1): SUB is empty: name a submission's folder (make $(1) SUB=dir), or leave SUB out for lessons/$(2)/exercise))
$(if $(SUB),$(if $(shell test -d '$(EX_SUB_DIR)' && echo y),,\
  $(error $(1): SUB=$(SUB) is not a folder)))
$(if $(SUB),$(if $(call EX_SUB_MISSING,$(1),$(2)),\
  $(if $(filter-out $(call EX_SUB_MISSING,$(1),$(2)),$(call EX_FILES,$(2))),\
    $(error $(1): $(SUB) lacks $(call EX_SUB_MISSING,$(1),$(2)) (lesson $(call EX_NN,$(2))'s rubric takes $(call EX_FILES,$(2)))),\
    $(error $(1): $(SUB) holds none of the files lesson $(call EX_NN,$(2))'s rubric takes ($(call EX_FILES,$(2)))))))
endef
$(foreach nn,$(EX_GOAL_NNS),$(eval $(call EX_CHECK_GOAL,$(firstword $(filter grade$(nn) exercise$(nn),$(MAKECMDGOALS))),$(call EX_LESSON_OF,$(nn)))))

$(GRADE_WRAP): tests/grade/grade_wrap.c tests/grade/exercise.h common/harness.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror -Itests/grade -c $< -o $@

$(GRADE_PROBE): tests/grade/gpu_probe.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ -L$(CUDA_HOME)/lib64 -lcudart

# $(1) lesson, $(2) tag, $(3) source folder, $(4) prerequisites standing for the source files,
# $(5) the source's name in the report
define GRADE_BUILD
$(BUILD)/grade/$(1)/$(2)/cpu: tests/test_exercise_$(call EX_NN,$(1)).c $(4) $(wildcard lessons/$(1)/exercise/*.h lessons/$(1)/*.h) common/layout.h common/layout_print.h $(BUILD)/common/layout_print.o
	@mkdir -p $$(@D) && rm -f $$@
	@echo "building the CPU grader of $(1) with $(3)"
	@$(CC) $(CFLAGS_C) -I$(3) -Ilessons/$(1)/exercise -Ilessons/$(1) $$< $(addprefix $(3)/,$(filter %.c,$(call EX_FILES,$(1)))) $(BUILD)/common/layout_print.o -o $$@ $$(CRITERION_LIBS) -lm 2> $$@.build.log || { cat $$@.build.log; exit 1; }
	@cat $$@.build.log

$(BUILD)/grade/$(1)/$(2)/kernel.o: $(4) $(if $(filter kernel.cu,$(call EX_FILES,$(1))),,lessons/$(1)/exercise/kernel.cu) $(wildcard lessons/$(1)/exercise/*.h lessons/$(1)/*.h lessons/$(1)/*.cuh lessons/$(1)/gemm.cu) $(wildcard common/*.h) tests/grade/exercise.h
	@mkdir -p $$(@D) && rm -f $$@ $$(@D)/run
	@echo "compiling $(call EX_KERNEL,$(1),$(3)) for $$(or $$(ARCH_$(1)),$(foreach a,$(ARCH),sm_$(a))) ..."
	@$(NVCC) $$(or $$(NVCCFLAGS_$(1)),$$(NVCCFLAGS)) -Xptxas -v -I$(3) -Ilessons/$(1)/exercise -Ilessons/$(1) -Itests/grade -c $(call EX_KERNEL,$(1),$(3)) -o $$@ 2> $$@.build.log || { bash tests/grade/ptxas_summary.sh $$@.build.log; exit 1; }
	@bash tests/grade/ptxas_summary.sh $$@.build.log

$(BUILD)/grade/$(1)/$(2)/run: $(BUILD)/$(1)/gemm.o $(BUILD)/grade/$(1)/$(2)/kernel.o $(GRADE_WRAP) $(HARNESS_OBJS)
	$(NVCC) $$(or $$(GENCODE_$(1)),$$(GENCODE)) $$^ -o $$@ $(LDLIBS) -Xlinker --wrap=harness_main

# A part that does not compile scores 0 for its checks (grade.sh says so); the grade goes on.
# Status 3 (no GPU, nothing lost) is a finished grade, not a failure: make exits 0 there.
grade-$(1)-$(2): $(GRADE_PROBE)
	@$(MAKE) --no-print-directory -k $(if $(wildcard tests/test_exercise_$(call EX_NN,$(1)).c),$(BUILD)/grade/$(1)/$(2)/cpu) $(if $(wildcard lessons/$(1)/exercise/kernel.cu),$(BUILD)/grade/$(1)/$(2)/run) || \
	  echo "grade $(1): a part of $(5) does not build (the messages are above); its checks score 0"
	@st=0; GRADE_VIA_MAKE=1 BUILD=$(BUILD) bash tests/grade/grade.sh --lesson $(1) --rubric lessons/$(1)/exercise/rubric.txt --src "$(5)" --report $(BUILD)/grade/$(1)/$(2) $(if $(wildcard tests/test_exercise_$(call EX_NN,$(1)).c),--cpu $(BUILD)/grade/$(1)/$(2)/cpu) $(if $(wildcard lessons/$(1)/exercise/kernel.cu),--run $(BUILD)/grade/$(1)/$(2)/run) --probe $(GRADE_PROBE) || st=$$$$?; \
	  case $$$$st in 0|3) ;; *) exit $$$$st ;; esac

GRADE_TARGETS_$(2) += $(if $(wildcard tests/test_exercise_$(call EX_NN,$(1)).c),$(BUILD)/grade/$(1)/$(2)/cpu) $(if $(wildcard lessons/$(1)/exercise/kernel.cu),$(BUILD)/grade/$(1)/$(2)/run)
.PHONY: grade-$(1)-$(2)
endef

# $(1) lesson
define EXERCISE_RULES
$(eval $(call GRADE_BUILD,$(1),exercise,lessons/$(1)/exercise,$(addprefix lessons/$(1)/exercise/,$(call EX_FILES,$(1))),lessons/$(1)/exercise))
$(if $(wildcard solutions/$(1)),$(eval $(call GRADE_BUILD,$(1),solution,solutions/$(1),$(addprefix solutions/$(1)/,$(call EX_FILES,$(1))),solutions/$(1))))
$(if $(wildcard solutions/$(1)/wrong.patch),$(eval $(call GRADE_BUILD,$(1),wrong,$(BUILD)/grade/$(1)/wrong/src,$(BUILD)/grade/$(1)/wrong/src/.stamp,solutions/$(1) + wrong.patch)))
$(if $(SUB),$(eval $(call GRADE_BUILD,$(1),$(SUB_TAG),$(patsubst %/,%,$(SUB)),$(addprefix $(patsubst %/,%,$(SUB))/,$(call EX_FILES,$(1))),$(SUB))))

# the deliberately wrong solution: the staff solution with wrong.patch applied
$(BUILD)/grade/$(1)/wrong/src/.stamp: $(addprefix solutions/$(1)/,$(call EX_FILES,$(1))) solutions/$(1)/wrong.patch
	@rm -rf $$(@D) && mkdir -p $$(@D)
	@cp $(addprefix solutions/$(1)/,$(call EX_FILES,$(1))) $$(@D)/
	@patch -s -d $$(@D) -p1 < solutions/$(1)/wrong.patch
	@touch $$@

.PHONY: grade$(call EX_NN,$(1)) exercise$(call EX_NN,$(1))
grade$(call EX_NN,$(1)): grade-$(1)-$(if $(SUB),$(SUB_TAG),exercise)

exercise$(call EX_NN,$(1)): $(BUILD)/grade/$(1)/$(if $(SUB),$(SUB_TAG),exercise)/run
	@ln -sfn $(BUILD)/grade/$(1)/$(if $(SUB),$(SUB_TAG),exercise)/run run
	@echo "built $(BUILD)/grade/$(1)/$(if $(SUB),$(SUB_TAG),exercise)/run and pointed ./run at it. Next (on a GPU): ./run --variant exercise --check-only --layout all"
endef
$(foreach l,$(EX_LESSONS),$(eval $(call EXERCISE_RULES,$(l))))

.PHONY: grade-solutions grade-build grade-check grade-bundle handout
# Grade every staff solution. Without a GPU: the CPU parts (grade_all.sh's status 3, "GPU part
# not run"), and make exits 0 as for gradeNN; points lost anywhere: make fails.
grade-solutions: $(GRADE_TARGETS_solution) $(GRADE_PROBE)
	@st=0; BUILD=$(BUILD) bash tests/grade/grade_all.sh --tags solution $(EX_LESSONS) || st=$$?; \
	  [ $$st != 3 ] || echo "grade-solutions: no points lost, GPU parts not run (no usable GPU); make exits 0"; \
	  case $$st in 0|3) ;; *) exit $$st ;; esac

grade-build: $(GRADE_TARGETS_solution) $(GRADE_TARGETS_exercise) $(GRADE_TARGETS_wrong) $(GRADE_PROBE) grade-bundle

grade-check: grade-build
	@BUILD=$(BUILD) bash tests/grade/grade_all.sh --check --tags "solution exercise wrong" $(EX_LESSONS)

# Criterion and the shared libraries it loads (not glibc's), for machines without Criterion:
# tests/grade/grade.sh puts $(BUILD)/grade/lib on LD_LIBRARY_PATH when it exists.
grade-bundle: $(firstword $(GRADE_TARGETS_solution))
	@mkdir -p $(BUILD)/grade/lib
	@ldd $(firstword $(filter %/cpu,$(GRADE_TARGETS_solution) $(GRADE_TARGETS_exercise))) | \
	  awk '$$2 == "=>" && $$3 ~ /^\// {print $$3}' | \
	  grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' | \
	  xargs -r -I{} cp -L {} $(BUILD)/grade/lib/
	@echo "copied $$(ls $(BUILD)/grade/lib | wc -l) libraries to $(BUILD)/grade/lib"

handout:
	@BUILD=$(BUILD) bash tests/grade/handout.sh $(BUILD)/handout.tar.gz

EXTRA_TEST_SCRIPTS += tests/test_exercises.sh

# make test builds the skeletons' and the solutions' graded binaries (tests/test_exercises.sh
# grades them without a GPU)
test-cpu: $(GRADE_TARGETS_solution) $(GRADE_TARGETS_exercise) $(GRADE_PROBE)
