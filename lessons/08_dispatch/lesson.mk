# lessons/08_dispatch/lesson.mk - extra rules for lesson 08, included by the top-level Makefile.
#   build/tests/test_plans_08      Criterion: lesson 08's layouts
#   build/tests/test_dispatch_08   Criterion: the registry, the dispatcher, the split-K partition
#   build/tests/test_tune_08       Criterion: --tune's candidates, the --tuned table
#   make profile L=NN ARGS="..."   Nsight Compute on one launch (scripts/profile.sh)
#   check_cases.sh                 the epilogue lines of gpu_cases.txt plan without a refusal

$(BUILD)/tests/test_plans_08: tests/test_plans_08.c tests/plans_tc.h lessons/08_dispatch/plan.h lessons/06_swizzle/bank_model.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_08

#   build/tests/test_dispatch_08   Criterion: the registry, the dispatcher, the split-K partition
$(BUILD)/tests/test_dispatch_08: tests/test_dispatch_08.c $(wildcard lessons/08_dispatch/*.h) common/harness.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_dispatch_08

#   build/tests/test_tune_08       Criterion: --tune's candidates, the --tuned table
$(BUILD)/tests/test_tune_08: tests/test_tune_08.c $(wildcard lessons/08_dispatch/*.h) common/harness.h common/layout.h common/layout_tv.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_tune_08

# every epilogue line of gpu_cases.txt plans without a refusal (no GPU needed)
EXTRA_TEST_SCRIPTS += lessons/08_dispatch/check_cases.sh

# make profile L=NN ARGS="...": Nsight Compute on one launch of lesson NN after warm-up, the
# course's metrics as a short table (scripts/profile.sh; lesson 08's README is the guide).
.PHONY: profile
profile:
	@test -n "$(L)" || { echo 'profile: name a lesson: make profile L=08 ARGS="--size 4096x4096x4096"' >&2; exit 2; }
	@l=$$(cd lessons && ls -d $(L)*/ 2>/dev/null | head -1 | tr -d /); \
	  test -n "$$l" || { echo "profile: no lesson matches '$(L)' (lessons/$(L)*)" >&2; exit 2; }; \
	  $(MAKE) --no-print-directory $(BUILD)/$$l/run && BUILD=$(BUILD) bash scripts/profile.sh $(L) $(ARGS)
