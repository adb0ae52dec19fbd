# tests/gpucore/: the GPU core reader (corefile/gpucore/*.c, private header corefile/gpucore/gpucore.h,
# described in docs/GPUCORE.md): its dump tool, the programs its tests run, and its libFuzzer
# harness (run by tests/gpucore/fuzz.t, seeded by tests/gpucore/fuzz-seeds.sh).
GC_DIR := $(BUILD)/tests/gpucore

$(GC_DIR)/gpucore-dump: tests/gpucore/gpucore-dump.c corefile/gpucore/gpucore.h $(BUILD)/libcudainspect.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcudainspect.a $(READER_LIBS)
TEST_DEPS += $(GC_DIR)/gpucore-dump

$(BUILD)/obj/corefile/gpucore/gpucore.o $(BUILD)/obj/corefile/gpucore/gpucore_cubin.o $(BUILD)/obj/corefile/gpucore/gpucore_sass.o: corefile/gpucore/gpucore.h

FUZZ_GC_OBJS := $(FUZZ_DIR)/obj/corefile/gpucore/gpucore.o $(FUZZ_DIR)/obj/corefile/gpucore/gpucore_cubin.o \
		$(FUZZ_DIR)/obj/corefile/gpucore/gpucore_sass.o $(FUZZ_DIR)/obj/corefile/report/render_gpucore.o \
		$(FUZZ_DIR)/obj/corefile/report/json_writer.o
$(FUZZ_DIR)/fuzz_gpucore: tests/gpucore/fuzz_gpucore.c corefile/gpucore/gpucore.h $(FUZZ_OBJS) $(FUZZ_GC_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(FUZZ_GC_OBJS) \
		-lelf -lzstd -lz
.SECONDARY: $(FUZZ_GC_OBJS)
TEST_DEPS += $(FUZZ_DIR)/fuzz_gpucore

# gcprobe: one launch for the simulator to fault, linked like an application against the stub.
$(GC_DIR)/gcprobe: tests/gpucore/gcprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda
TEST_DEPS += $(GC_DIR)/gcprobe

$(GC_DIR)/test-gpucore: tests/gpucore/test-gpucore.c corefile/gpucore/gpucore.h tests/lib/tap.h $(BUILD)/libcudainspect.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcudainspect.a $(READER_LIBS)
TEST_DEPS += $(GC_DIR)/test-gpucore

.PHONY: fuzz-gpucore
fuzz-gpucore: $(FUZZ_DIR)/fuzz_gpucore $(GC_DIR)/gcprobe $(GC_DIR)/gpucore-dump $(SIM_LIB)
	@corpus=$(FUZZ_DIR)/corpus-fuzz_gpucore; mkdir -p $$corpus $(FUZZ_DIR)/artifacts; \
	tests/gpucore/fuzz-seeds.sh $(abspath $(BUILD)) $$corpus || exit 1; \
	echo "fuzz: fuzz_gpucore for $(FUZZ_SECONDS)s (corpus $$corpus)"; \
	$(FUZZ_DIR)/fuzz_gpucore -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/fuzz_gpucore- $$corpus \
		>$(FUZZ_DIR)/fuzz_gpucore.log 2>&1 || { tail -40 $(FUZZ_DIR)/fuzz_gpucore.log; exit 1; }; \
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_gpucore.log | tail -2
FUZZ_TARGETS += fuzz-gpucore
