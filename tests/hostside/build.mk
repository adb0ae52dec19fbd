# tests/hostside/: programs that crash without the recorder, for the host-side report of their
# cores (corefile/hostside.c, tests/hostside/norecord.t).  Linked against the driver's stub
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
FUZZ_HS_OBJS := $(FUZZ_DIR)/obj/corefile/hostside.o $(FUZZ_DIR)/obj/corefile/hostside_render.o
$(FUZZ_DIR)/fuzz_hostside: tests/hostside/fuzz_hostside.c $(FUZZ_OBJS) $(FUZZ_OUT_OBJS) $(FUZZ_HS_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) \
		$(FUZZ_OUT_OBJS) $(FUZZ_HS_OBJS) -ldw -lelf -lzstd -lz
.SECONDARY: $(FUZZ_HS_OBJS)
TEST_DEPS += $(FUZZ_DIR)/fuzz_hostside
