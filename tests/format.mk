# tests/format.mk - the source style (included by the top-level Makefile).
#   make format    rewrite every file of tests/format_files.txt with clang-format (.clang-format)
#   make test      runs tests/test_format.sh: each listed file must already be formatted
.PHONY: format
EXTRA_TEST_SCRIPTS += tests/test_format.sh
CLANG_FORMAT ?= $(shell command -v clang-format-14 || command -v clang-format)

format:
	@test -n "$(CLANG_FORMAT)" || { echo "format: clang-format is not installed" >&2; exit 1; }
	$(CLANG_FORMAT) -i --style=file $(shell sed -e 's/#.*//' tests/format_files.txt)
