# lessons/02_layout/lesson.mk - extra rules for lesson 02 (included by the top-level Makefile).
#   build/tools/layouts                the layout explorer used throughout the README (rule in
#                                      tests/layout.mk): build/tools/layouts show '(4,8):(8,1)'
#   build/tests/test_plans_02          plan.h's layouts give the hand-written offsets (make test)
#   make grade02                       grade the assignment (exercise/README.md; the rules are
#                                      tests/exercise.mk's, common to every lesson's exercise)
all: $(BUILD)/tools/layouts

$(BUILD)/tests/test_plans_02: tests/test_plans_02.c lessons/02_layout/plan.h common/layout.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_C) -Werror -Ilessons/02_layout $< -o $@ $(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_plans_02
