# tests/plots.mk - charts and the README results table, included by the top-level Makefile.
#   make plots [DATA=plots/data/<device>.csv]   charts -> plots/out/<device>/*.png|svg (no GPU)
#   make readme [DATA=...]                      README.md's lesson table (from lessons/*/) and
#                                               results region, from the same CSV
# Default DATA: every plots/data/*.csv with a matching *_probe.csv. See plots/README.md.
.PHONY: plots readme
EXTRA_TEST_SCRIPTS += tests/test_plots.sh

plots:
	@BUILD=$(BUILD) bash plots/plots.sh $(DATA)

readme:
	@python3 scripts/readme_lessons.py $(if $(DATA),--csv $(DATA))
	@python3 scripts/readme_results.py $(if $(DATA),--csv $(DATA))
