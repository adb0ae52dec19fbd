# tests/python/: the Python walker's libFuzzer harness (fuzz_python.c, with the walker and the
# merge rebuilt under clang's instrumentation) and its seed builder (pyseed.c).  The walker
# and the merge link the input side's objects (python_core.c reads through the source) and
# -ldw (its interpreter search).  tests/python/fuzz.t runs it for 60 seconds; make fuzz-python longer.
PY_TEST_DIR := $(BUILD)/tests/python
FUZZ_PY_OBJS := $(FUZZ_DIR)/obj/corefile/symbolize/python.o $(FUZZ_DIR)/obj/corefile/symbolize/python_core.o
$(FUZZ_DIR)/fuzz_python: tests/python/fuzz_python.c corefile/symbolize/symbolize.h include/cudainspect/pylayout.h $(FUZZ_PY_OBJS) $(FUZZ_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_PY_OBJS) $(FUZZ_OBJS) -ldw -lelf -lzstd -lz
.SECONDARY: $(FUZZ_PY_OBJS)
$(FUZZ_PY_OBJS): include/cudainspect/pylayout.h
$(PY_TEST_DIR)/pyseed: tests/python/pyseed.c include/cudainspect/pylayout.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<
TEST_DEPS += $(FUZZ_DIR)/fuzz_python $(PY_TEST_DIR)/pyseed

.PHONY: fuzz-python
fuzz-python: $(FUZZ_DIR)/fuzz_python $(PY_TEST_DIR)/pyseed
	@corpus=$(FUZZ_DIR)/corpus-fuzz_python; mkdir -p $$corpus $(FUZZ_DIR)/artifacts; \
	$(PY_TEST_DIR)/pyseed $$corpus || exit 1; \
	echo "fuzz: fuzz_python for $(FUZZ_SECONDS)s (corpus $$corpus)"; \
	$(FUZZ_DIR)/fuzz_python -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/fuzz_python- $$corpus \
		>$(FUZZ_DIR)/fuzz_python.log 2>&1 || { tail -40 $(FUZZ_DIR)/fuzz_python.log; exit 1; }; \
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_python.log | tail -2
FUZZ_TARGETS += fuzz-python
