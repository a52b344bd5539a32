# tests/plans.mk - CPU proofs of the lessons 03/04 thread partitions (included by the Makefile).
$(BUILD)/tests/test_plans_0304: tests/test_plans_0304.c $(wildcard lessons/03_tiled/*.h lessons/04_copy/*.h) common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_0304
