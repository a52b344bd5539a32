# tests/epilogue.mk - the CPU tests of the harness's epilogue (included by the Makefile).
#   build/tests/test_epilogue     Criterion: options, GELU, bias axes, order of operations,
#                                 tolerances, refusals, plans, table and CSV (tests/test_epilogue.c)

$(BUILD)/tests/test_epilogue: tests/test_epilogue.c tests/harness_tests.h $(HARNESS_OBJS) common/harness.h common/harness_epilogue.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< $(HARNESS_OBJS) -o $@ $(CRITERION_LIBS) $(LDLIBS) -lstdc++ -lm

EXTRA_TEST_BINS += $(BUILD)/tests/test_epilogue
