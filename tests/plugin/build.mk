# tests/plugin/: the programs the GDB tests (tests/plugin/*.t) run, and the unit tests of the
# plugin's pieces.
PLUGIN_TEST_DIR := $(BUILD)/tests/plugin

$(PLUGIN_TEST_DIR)/symimage-test: tests/plugin/symimage-test.c recorder/symimage.c recorder/symimage.h include/cudainspect/record.h tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tests/plugin/symimage-test.c recorder/symimage.c -lelf

TEST_DEPS += $(PLUGIN_TEST_DIR)/symimage-test

# GDB test programs (tests/plugin/*.t).  Built without sanitizers: they run under the recorder
# (LD_PRELOAD) and GDB.
$(PLUGIN_TEST_DIR)/gdbprobe: tests/plugin/gdbprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O0 -g -std=gnu11 $(WARNINGS) -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda

# A freestanding executable at a fixed address: the "JIT-compiled" object gdbprobe registers.
$(PLUGIN_TEST_DIR)/jitfn.elf: tests/plugin/jitfn.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -fno-pic -no-pie -nostdlib -static -fasynchronous-unwind-tables \
		-Wl,-Ttext-segment=0x30000000 -Wl,-e,jitted_call -Wl,--build-id=none -o $@ $<

TEST_DEPS += $(PLUGIN_TEST_DIR)/gdbprobe $(PLUGIN_TEST_DIR)/jitfn.elf

# GDB's side of the JIT reader interface, for tests of the reader without GDB (and under ASan).
$(PLUGIN_TEST_DIR)/reader-harness: tests/plugin/reader-harness.c $(PLUGIN_OBJS) $(BUILD)/libcudainspect.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PLUGIN_OBJS) $(BUILD)/libcudainspect.a \
		$(READER_LIBS) -ldl

TEST_DEPS += $(PLUGIN_TEST_DIR)/reader-harness

# The launcher's input parser (plugin/gdb_input.c): unit tests, and a libFuzzer harness run by
# tests/plugin/gdb-input.t (like the reader's harnesses) and `make fuzz`.
$(PLUGIN_TEST_DIR)/gdbinput_test: tests/plugin/gdbinput_test.c plugin/gdb_input.c plugin/gdb-input.h tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iplugin $(CFLAGS) $(LDFLAGS) -o $@ $< plugin/gdb_input.c

$(FUZZ_DIR)/fuzz_gdb_input: tests/plugin/fuzz_gdb_input.c plugin/gdb_input.c plugin/gdb-input.h
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -Iplugin $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< plugin/gdb_input.c

.PHONY: fuzz-gdb-input
fuzz-gdb-input: $(FUZZ_DIR)/fuzz_gdb_input
	@mkdir -p $(FUZZ_DIR)/corpus-fuzz_gdb_input $(FUZZ_DIR)/artifacts
	@echo "fuzz: fuzz_gdb_input for $(FUZZ_SECONDS)s"
	@$(FUZZ_DIR)/fuzz_gdb_input -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/fuzz_gdb_input- $(FUZZ_DIR)/corpus-fuzz_gdb_input \
		tests/plugin/gdb-input-seeds >$(FUZZ_DIR)/fuzz_gdb_input.log 2>&1 \
		|| { tail -40 $(FUZZ_DIR)/fuzz_gdb_input.log; exit 1; }
	@grep -E '^stat::number_of_executed_units' $(FUZZ_DIR)/fuzz_gdb_input.log

FUZZ_TARGETS += fuzz-gdb-input
TEST_DEPS += $(PLUGIN_TEST_DIR)/gdbinput_test $(FUZZ_DIR)/fuzz_gdb_input
