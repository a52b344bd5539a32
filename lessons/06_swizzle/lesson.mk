# lessons/06_swizzle/lesson.mk - extra rules for lesson 06, included by the top-level Makefile.
#   build/tools/bank_conflicts     the CPU bank-conflict counter (./build/tools/bank_conflicts)
#   build/tests/test_plans_06      Criterion: the swizzled tile, ldmatrix, copy, banks

$(BUILD)/tools/bank_conflicts: lessons/06_swizzle/bank_conflicts.c lessons/06_swizzle/plan.h lessons/06_swizzle/bank_model.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@

$(BUILD)/tests/test_plans_06: tests/test_plans_06.c tests/plans_tc.h lessons/06_swizzle/plan.h lessons/06_swizzle/bank_model.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_06
all: $(BUILD)/tools/bank_conflicts
test-cpu: $(BUILD)/tools/bank_conflicts   # tests/test_cli.sh checks its command line
