# bench/reader/: the reader's benchmark (`make bench`), plus the build rules of the reader's
# output-side unit tests (tests/reader/*.c -> $(BUILD)/tests/reader/, run by tests/reader/*.t).

READER_TEST_SRCS := $(wildcard tests/reader/*_test.c)
READER_TESTS     := $(READER_TEST_SRCS:tests/reader/%.c=$(BUILD)/tests/reader/%)

$(BUILD)/tests/reader/%: tests/reader/%.c tests/reader/model.h tests/lib/tap.h \
		$(BUILD)/libcudainspect.a include/cudainspect/cudainspect.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcudainspect.a $(READER_LIBS)

TEST_DEPS += $(READER_TESTS)
# tests/reader/full.t fills a small record's allocation table with bigcore (below).
TEST_DEPS += $(BUILD)/bench/reader/bigcore

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
