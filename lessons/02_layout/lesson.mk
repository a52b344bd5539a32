# lessons/02_layout/lesson.mk - extra rules for lesson 02 (included by the top-level Makefile).
#   build/tools/layouts                the layout explorer used throughout the README (rule in
#                                      tests/layout.mk): build/tools/layouts show '(4,8):(8,1)'
#   make grade02                       grade the assignment lessons/02_layout/exercise/answers.c
#   build/tests/test_exercise_02       the grader run on the staff solution + the check that
#                                      plan.h's layouts give the hand-written offsets (make test)
# The grade02 / test_exercise_02 rules come from tests/exercise.mk (one rule for every lesson
# with an exercise); this file only makes `make all` build the explorer with the lesson.
all: $(BUILD)/tools/layouts
