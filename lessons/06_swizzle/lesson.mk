# lessons/06_swizzle/lesson.mk - extra rules for lessons 05/06, included by the top-level Makefile.
#   build/tools/bank_conflicts            the CPU bank-conflict counter (./build/tools/bank_conflicts)
#   build/tests/test_plans_0506           Criterion: fragments, ldmatrix mapping, swizzle, banks
#   build/tests/gpu/ptx_ldmatrix_test     one-warp GPU test of common/ptx.h (SKIPs without a GPU)

$(BUILD)/tools/bank_conflicts: lessons/06_swizzle/bank_conflicts.c lessons/06_swizzle/plan.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@

$(BUILD)/tests/test_plans_0506: tests/test_plans_0506.c lessons/06_swizzle/plan.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

$(BUILD)/tests/gpu/ptx_ldmatrix_test: tests/gpu/ptx_ldmatrix_test.cu common/ptx.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< -o $@ -L$(CUDA_HOME)/lib64 -lcudart

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_0506
EXTRA_GPU_BINS  += $(BUILD)/tests/gpu/ptx_ldmatrix_test
all: $(BUILD)/tools/bank_conflicts
