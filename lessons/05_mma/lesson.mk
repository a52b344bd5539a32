# lessons/05_mma/lesson.mk - extra rules for lesson 05, included by the top-level Makefile.
#   build/tests/test_plans_05           Criterion: lesson 05's layouts (fragments, ldmatrix, copy)
#   build/tests/gpu/ptx_ldmatrix_test   one-warp GPU test of common/ptx.h (SKIPs without a GPU)

$(BUILD)/tests/test_plans_05: tests/test_plans_05.c tests/plans_tc.h lessons/05_mma/plan.h lessons/06_swizzle/bank_model.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

$(BUILD)/tests/gpu/ptx_ldmatrix_test: tests/gpu/ptx_ldmatrix_test.cu common/ptx.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< -o $@ -L$(CUDA_HOME)/lib64 -lcudart

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_05
EXTRA_GPU_BINS  += $(BUILD)/tests/gpu/ptx_ldmatrix_test
