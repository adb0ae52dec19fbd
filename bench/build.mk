# bench/: `make bench` runs every benchmark and prints `bench: NAME VALUE UNIT` lines.
# Each area adds its own rules and appends its runner target to BENCH_TARGETS.
BENCH_TARGETS :=
-include bench/recorder/build.mk
-include bench/reader/build.mk
-include bench/python/build.mk

.PHONY: bench
bench: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(BENCH_TARGETS)
