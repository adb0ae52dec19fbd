# bench/reader/: the reader's benchmark (`make bench`).  tests/reader/full.t also fills a small
# record's allocation table with bigcore.

# The benchmark: bigcore makes the large crash, measure times a command and its peak memory,
# run.sh does the rest and prints `bench: NAME VALUE UNIT` lines (docs/PERFORMANCE.md, "Reader").
$(BUILD)/bench/reader/bigcore: bench/reader/bigcore.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(BUILD)/bench/reader/measure: bench/reader/measure.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $<

.PHONY: bench-reader
bench-reader: $(BUILD)/bench/reader/bigcore $(BUILD)/bench/reader/measure
	@CI_BUILD=$(abspath $(BUILD)) bench/reader/run.sh

BENCH_TARGETS += bench-reader

# A 100 MiB kernel log added to a report (bench/reader/klog.sh; docs/PERFORMANCE.md, "Kernel log").
.PHONY: bench-reader-klog
bench-reader-klog: $(BUILD)/bench/reader/measure $(BUILD)/xidengine
	@CI_BUILD=$(abspath $(BUILD)) bench/reader/klog.sh

BENCH_TARGETS += bench-reader-klog

# `cudainspect merge` of 8 and 64 real ranks' snapshots and of 1,024 JSON documents
# (bench/reader/merge.sh; docs/PERFORMANCE.md, "Merge").
.PHONY: bench-reader-merge
bench-reader-merge: $(BUILD)/bench/reader/measure $(BUILD)/ncclengine $(BUILD)/cudainspect
	@CI_BUILD=$(abspath $(BUILD)) bench/reader/merge.sh

BENCH_TARGETS += bench-reader-merge

# Issue 23's table: each view and the crash at record sizes of 32M, 256M and 1G
# (bench/reader/scale.sh; docs/PERFORMANCE.md, "At scale").  BENCH_SCALE_BEFORE=DIR adds the
# figures of an older tree's build directory beside this one's.
BENCH_SCALE_BEFORE ?=
.PHONY: bench-reader-scale
bench-reader-scale: $(BUILD)/bench/reader/bigcore $(BUILD)/bench/reader/measure
	@CI_BUILD=$(abspath $(BUILD)) bench/reader/scale.sh \
		$(if $(BENCH_SCALE_BEFORE),--before $(BENCH_SCALE_BEFORE))

BENCH_TARGETS += bench-reader-scale

# A million live allocations: each view on mkrecord's record of them (and, with
# BENCH_ALLOCS_CORE=1, on bigcore's core of them under the recorder) (bench/reader/allocs.sh;
# docs/PERFORMANCE.md, "At scale").  BENCH_ALLOCS_BEFORE=DIR adds an older build's figures.
BENCH_ALLOCS_BEFORE ?=
BENCH_ALLOCS_CORE ?=
.PHONY: bench-reader-allocs
bench-reader-allocs: $(BUILD)/bench/reader/bigcore $(BUILD)/bench/reader/measure \
		$(BUILD)/tests/reader-input/mkrecord $(BUILD)/cudainspect
	@CI_BUILD=$(abspath $(BUILD)) bench/reader/allocs.sh \
		$(if $(BENCH_ALLOCS_CORE),--core) $(if $(BENCH_ALLOCS_BEFORE),--before $(BENCH_ALLOCS_BEFORE))

BENCH_TARGETS += bench-reader-allocs
