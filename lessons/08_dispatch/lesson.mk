# lessons/08_dispatch/lesson.mk - extra rules for lesson 08, included by the top-level Makefile.
#   build/tests/test_plans_08      Criterion: lesson 08's layouts

$(BUILD)/tests/test_plans_08: tests/test_plans_08.c tests/plans_tc.h lessons/08_dispatch/plan.h lessons/06_swizzle/bank_model.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_08

#   build/tests/test_dispatch_08   Criterion: the registry, the dispatcher, the split-K partition
$(BUILD)/tests/test_dispatch_08: tests/test_dispatch_08.c $(wildcard lessons/08_dispatch/*.h) common/harness.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_dispatch_08
