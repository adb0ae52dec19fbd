# tests/reader/: the reader's output-side unit tests (tests/reader/*_test.c -> $(BUILD)/tests/
# reader/, run by tests/reader/*.t) and its libFuzzer harness.

READER_TEST_SRCS := $(wildcard tests/reader/*_test.c)
READER_TESTS     := $(READER_TEST_SRCS:tests/reader/%.c=$(BUILD)/tests/reader/%)

$(BUILD)/tests/reader/%: tests/reader/%.c tests/reader/model.h tests/reader/compare.h tests/lib/tap.h \
		$(BUILD)/libcudainspect.a include/cudainspect/cudainspect.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcudainspect.a $(READER_LIBS)

TEST_DEPS += $(READER_TESTS)
# tests/reader/full.t fills a small record's allocation table with bigcore (bench/reader/build.mk).
TEST_DEPS += $(BUILD)/bench/reader/bigcore

# The output side's libFuzzer harness (tests/reader/fuzz_report.c): decode (complete and
# sparse), diagnose and render, built like the input side's harnesses (corefile/build.mk) from
# its objects plus the output stages.  `make fuzz` runs it for FUZZ_SECONDS on synthetic
# records; tests/reader/fuzz.t for a short while in `make check`.
FUZZ_OUT_OBJS := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(foreach s,diagnose symbolize report,\
                   $(filter-out corefile/report/hostside%.c,$(wildcard corefile/$(s)/*.c))))

$(FUZZ_DIR)/fuzz_report: tests/reader/fuzz_report.c $(FUZZ_OBJS) $(FUZZ_OUT_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) \
		$(FUZZ_OUT_OBJS) -ldw -lelf -lzstd -lz

.PHONY: fuzz-reader-output
fuzz-reader-output: $(FUZZ_DIR)/fuzz_report $(RI_DIR)/mkrecord
	@corpus=$(FUZZ_DIR)/corpus-fuzz_report; mkdir -p $$corpus $(FUZZ_DIR)/artifacts; \
	tests/reader-input/fuzz-seeds.sh $(RI_DIR) $$corpus fuzz_record || exit 1; \
	echo "fuzz: fuzz_report for $(FUZZ_SECONDS)s (corpus $$corpus)"; \
	$(FUZZ_DIR)/fuzz_report -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/fuzz_report- $$corpus \
		>$(FUZZ_DIR)/fuzz_report.log 2>&1 || { tail -40 $(FUZZ_DIR)/fuzz_report.log; exit 1; }; \
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_report.log | tail -2

FUZZ_TARGETS += fuzz-reader-output
TEST_DEPS += $(FUZZ_DIR)/fuzz_report
