# lessons/07_epilogue/lesson.mk - extra rules for lesson 07, included by the top-level Makefile.
#   build/tests/test_plans_07      Criterion: lesson 07's layouts

$(BUILD)/tests/test_plans_07: tests/test_plans_07.c tests/plans_tc.h lessons/07_epilogue/plan.h lessons/06_swizzle/bank_model.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_07

# every line of gpu_cases.txt plans without a refusal (no GPU needed)
EXTRA_TEST_SCRIPTS += lessons/07_epilogue/check_cases.sh
