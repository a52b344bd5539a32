# tests/exercise.mk - graders of the lessons' assignments (included by the top-level Makefile).
#
# A lesson NN with an assignment has lessons/NN_name/exercise/answers.c (the skeleton the
# student fills in), lessons/NN_name/exercise/solution/answers.c (the staff solution) and a
# Criterion grader tests/test_exercise_NN.c. For each such lesson:
#   make gradeNN                      builds build/tests/grade_NN = grader + the student's
#                                     answers.c, and runs it (fails until every answer is right)
#   build/tests/test_exercise_NN      grader + the staff solution: in `make test` (via
#                                     EXTRA_TEST_BINS), so a broken grader or library shows up in
#                                     CI while the skeleton, which fails by design, stays out.
# A copy for students without solution/ simply has no test_exercise_NN in `make test`.
# Graders link the layout library's printer/parser (build/common/layout_print.o, tests/layout.mk)
# and may include headers of their lesson folder and of its exercise/ folder.

EX_GRADERS := $(sort $(wildcard tests/test_exercise_[0-9][0-9].c))

# $(1) = NN, $(2) = lessons/NN_name
define EXERCISE_RULE
$(BUILD)/tests/grade_$(1): tests/test_exercise_$(1).c $(2)/exercise/answers.c $(wildcard $(2)/*.h $(2)/exercise/*.h) common/layout.h common/layout_print.h $(BUILD)/common/layout_print.o
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS_C) -I$(2) -I$(2)/exercise $$< $(2)/exercise/answers.c $(BUILD)/common/layout_print.o -o $$@ $$(CRITERION_LIBS)

.PHONY: grade$(1)
grade$(1): $(BUILD)/tests/grade_$(1)
	./$(BUILD)/tests/grade_$(1)

ifneq ($(wildcard $(2)/exercise/solution/answers.c),)
$(BUILD)/tests/test_exercise_$(1): tests/test_exercise_$(1).c $(2)/exercise/solution/answers.c $(wildcard $(2)/*.h $(2)/exercise/*.h) common/layout.h common/layout_print.h $(BUILD)/common/layout_print.o
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS_C) -Werror -I$(2) -I$(2)/exercise $$< $(2)/exercise/solution/answers.c $(BUILD)/common/layout_print.o -o $$@ $$(CRITERION_LIBS)

EXTRA_TEST_BINS += $(BUILD)/tests/test_exercise_$(1)
endif
endef

$(foreach g,$(EX_GRADERS),$(foreach nn,$(patsubst tests/test_exercise_%.c,%,$(g)),\
  $(foreach d,$(firstword $(patsubst %/exercise/answers.c,%,$(wildcard lessons/$(nn)_*/exercise/answers.c))),\
    $(eval $(call EXERCISE_RULE,$(nn),$(d))))))
