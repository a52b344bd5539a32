# tests/layout.mk -- build and test rules for the layout library (common/layout.h).
# Included by the top-level Makefile; also works alone:
#     make -f tests/layout.mk test-layout
#     make -f tests/layout.mk build/tools/layouts
ifeq ($(origin CC),default)
CC := gcc
endif
CC       ?= gcc
NVCC     ?= nvcc
BUILD    ?= build
CFLAGS_C ?= -std=c11 -O2 -Wall -Wextra -pedantic -Icommon
LAY_WERROR ?= -Werror
CRITERION_CFLAGS ?= $(shell pkg-config --cflags criterion 2>/dev/null)
CRITERION_LIBS   ?= $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

LAYOUT_HDRS := common/layout.h common/layout_tv.h common/layout_print.h

$(BUILD)/common/layout_print.o: common/layout_print.c $(LAYOUT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(LAY_WERROR) -c $< -o $@

$(BUILD)/tests/test_layout: tests/test_layout.c $(BUILD)/common/layout_print.o $(LAYOUT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(LAY_WERROR) $(CRITERION_CFLAGS) \
	    -DLAYOUT_VECTORS='"tests/data/layout_vectors.txt"' \
	    $< $(BUILD)/common/layout_print.o -o $@ $(CRITERION_LIBS)

$(BUILD)/tests/test_layout_tv: tests/test_layout_tv.c $(BUILD)/common/layout_print.o $(LAYOUT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(LAY_WERROR) $(CRITERION_CFLAGS) $< $(BUILD)/common/layout_print.o -o $@ $(CRITERION_LIBS)

$(BUILD)/tools/layouts: tools/layouts.c $(BUILD)/common/layout_print.o $(LAYOUT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(LAY_WERROR) $< $(BUILD)/common/layout_print.o -o $@

.PHONY: test-layout test-layout-cpu test-zero-cost
test-layout: test-layout-cpu test-zero-cost

test-layout-cpu: $(BUILD)/tests/test_layout $(BUILD)/tests/test_layout_tv $(BUILD)/tools/layouts
	./$(BUILD)/tests/test_layout
	./$(BUILD)/tests/test_layout_tv

test-zero-cost:
	NVCC="$(NVCC)" BUILD="$(BUILD)" sh tests/test_zero_cost.sh

# Part of the top-level `make test`.
EXTRA_TEST_BINS    += $(BUILD)/tests/test_layout $(BUILD)/tests/test_layout_tv
EXTRA_TEST_SCRIPTS += tests/test_zero_cost.sh tests/test_layouts_cli.sh
test-cpu: $(BUILD)/tools/layouts
all: $(BUILD)/tools/layouts
