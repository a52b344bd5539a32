# tests/readme.mk - the tool output shown in the READMEs (included by the top-level Makefile).
#   make readme-blocks   rewrite every `$ build/tools/...` block of README.md and lessons/*/README.md
#                        with what the tool prints now (scripts/readme_blocks.py --write)
#   make test            runs tests/test_readme_blocks.sh: every such block must be the tool's output
README_TOOLS := $(BUILD)/tools/layouts $(BUILD)/tools/bank_conflicts
.PHONY: readme-blocks
readme-blocks: $(README_TOOLS)
	@BUILD=$(BUILD) python3 scripts/readme_blocks.py --write

EXTRA_TEST_SCRIPTS += tests/test_readme_blocks.sh
test-cpu: $(README_TOOLS)
