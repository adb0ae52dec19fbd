# tests/gpucore/: the GPU core reader (corefile/gpucore*.c, private header corefile/gpucore.h,
# described in docs/GPUCORE.md): its dump tool, the programs its tests run, and its libFuzzer
# harness (run by tests/gpucore/fuzz.t, seeded by tests/gpucore/fuzz-seeds.sh).
GC_DIR := $(BUILD)/tests/gpucore

$(GC_DIR)/gpucore-dump: tests/gpucore/gpucore-dump.c corefile/gpucore.h $(BUILD)/libcudainspect.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcudainspect.a $(READER_LIBS)
TEST_DEPS += $(GC_DIR)/gpucore-dump

$(BUILD)/obj/corefile/gpucore.o $(BUILD)/obj/corefile/gpucore_cubin.o $(BUILD)/obj/corefile/gpucore_sass.o: corefile/gpucore.h

FUZZ_GC_OBJS := $(FUZZ_DIR)/obj/corefile/gpucore.o $(FUZZ_DIR)/obj/corefile/gpucore_cubin.o \
		$(FUZZ_DIR)/obj/corefile/gpucore_sass.o
$(FUZZ_DIR)/fuzz_gpucore: tests/gpucore/fuzz_gpucore.c corefile/gpucore.h $(FUZZ_OBJS) $(FUZZ_GC_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(FUZZ_GC_OBJS) \
		-lelf -lzstd -lz
.SECONDARY: $(FUZZ_GC_OBJS)
TEST_DEPS += $(FUZZ_DIR)/fuzz_gpucore

# gcprobe: one launch for the simulator to fault, linked like an application against the stub.
$(GC_DIR)/gcprobe: tests/gpucore/gcprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda
TEST_DEPS += $(GC_DIR)/gcprobe
