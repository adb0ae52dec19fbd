# tests/hostside/: programs that crash without the recorder, for the host-side report of their
# cores (corefile/report/hostside.c, tests/hostside/norecord.t).  Linked against the driver's stub
# library; run on the simulated driver.
HS_TEST := $(BUILD)/tests/hostside

$(HS_TEST)/assertprobe: tests/hostside/assertprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(HS_TEST)/throwprobe: tests/hostside/throwprobe.cc
	@mkdir -p $(dir $@)
	$(CXX) -D_GNU_SOURCE -I$(CUDA_HOME)/include -O1 -g -fno-omit-frame-pointer -Wall -Wextra \
		$(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

TEST_DEPS += $(HS_TEST)/assertprobe $(HS_TEST)/throwprobe

# The host-side report's libFuzzer harness (tests/hostside/fuzz_hostside.c, run by
# tests/hostside/fuzz.t): the input side's instrumented objects, the output side's (unwinding,
# demangling) and the two host-side files.
FUZZ_HS_OBJS := $(FUZZ_DIR)/obj/corefile/report/hostside.o $(FUZZ_DIR)/obj/corefile/report/hostside_render.o
$(FUZZ_DIR)/fuzz_hostside: tests/hostside/fuzz_hostside.c $(FUZZ_OBJS) $(FUZZ_OUT_OBJS) $(FUZZ_HS_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) \
		$(FUZZ_OUT_OBJS) $(FUZZ_HS_OBJS) -ldw -lelf -lzstd -lz
.SECONDARY: $(FUZZ_HS_OBJS)
TEST_DEPS += $(FUZZ_DIR)/fuzz_hostside

.PHONY: fuzz-hostside
fuzz-hostside: $(FUZZ_DIR)/fuzz_hostside $(RI_DIR)/mkcore
	@corpus=$(FUZZ_DIR)/corpus-fuzz_hostside; mkdir -p $$corpus $(FUZZ_DIR)/artifacts; \
	tests/reader-input/fuzz-seeds.sh $(RI_DIR) $$corpus fuzz_core || exit 1; \
	echo "fuzz: fuzz_hostside for $(FUZZ_SECONDS)s (corpus $$corpus)"; \
	$(FUZZ_DIR)/fuzz_hostside -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/fuzz_hostside- $$corpus \
		>$(FUZZ_DIR)/fuzz_hostside.log 2>&1 || { tail -40 $(FUZZ_DIR)/fuzz_hostside.log; exit 1; }; \
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_hostside.log | tail -2
FUZZ_TARGETS += fuzz-hostside
