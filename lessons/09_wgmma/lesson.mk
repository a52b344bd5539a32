# lessons/09_wgmma/lesson.mk - lesson 09 builds for sm_90a only (wgmma and setmaxnreg exist in
# the architecture-specific Hopper target alone), and its CPU test of plan.h.
GENCODE_09_wgmma   := -gencode arch=compute_90a,code=sm_90a
# Its 26 kernels are compiled on all CPUs (-split-compile; the same machine code, byte for byte).
NVCCFLAGS_09_wgmma := $(subst $(GENCODE),$(GENCODE_09_wgmma),$(NVCCFLAGS)) $(SPLIT_COMPILE)
ARCH_09_wgmma      := sm_90a

$(BUILD)/tests/test_plans_09: tests/test_plans_09.c lessons/09_wgmma/plan.h common/layout.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror -Ilessons/09_wgmma $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_09
