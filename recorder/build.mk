# recorder/: the flight recorder, $(BUILD)/libcudainspect-rec.so (LD_PRELOAD it, or link it).
# Every recorder/*.c is part of it (symimage.c included).  Objects are position-independent
# and hidden by default: only the cu* wrappers, dlsym, dlclose, the signal-disposition functions
# (sigaction, signal, ...) and cudainspect_record are exported.  The helpers it shares with the
# reader (the size parser, the UTF-8 encoder, the safe-file helper, the kernel-log reader) are
# common/'s, linked into both (common/build.mk).
#
# The recorder includes only record.h of the project's headers: its version string is taken
# from the reader's header here, and the CUresult table (names, stickiness) is the one generated
# from cuda.h for the reader ($(BUILD)/gen/cuda-results.h, rule in corefile/build.mk).

REC_SRCS := $(wildcard recorder/*.c)
REC_OBJS := $(REC_SRCS:%.c=$(BUILD)/obj/%.o)
REC_LIB  := $(BUILD)/libcudainspect-rec.so
REC_VERSION := $(shell sed -n 's/^\#define CUDAINSPECT_VERSION "\(.*\)"/\1/p' include/cudainspect/cudainspect.h)
REC_CFLAGS := -fPIC -fvisibility=hidden -fno-strict-aliasing -I$(BUILD)/gen -Icommon \
              -DCI_RECORDER_VERSION='"$(REC_VERSION)"'
REC_LDLIBS := -ldl -lpthread
REC_DEPS := recorder/recorder.h recorder/api.h recorder/hooks.h recorder/symimage.h \
            $(wildcard common/*.h) include/cudainspect/record.h \
            $(BUILD)/gen/cuda-results.h

$(BUILD)/obj/recorder/%.o: recorder/%.c $(REC_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(REC_CFLAGS) -MMD -MP -c $< -o $@

$(REC_LIB): $(REC_OBJS) $(COMMON_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libcudainspect-rec.so -Wl,-z,defs \
		-Wl,-Bsymbolic-functions -o $@ $(REC_OBJS) $(COMMON_OBJS) $(REC_LDLIBS)

ALL += $(REC_LIB)

-include $(REC_OBJS:.o=.d)

# ---- tests (tests/recorder/) -------------------------------------------------------------------
REC_TEST := $(BUILD)/tests/recorder

# recdump prints a record as the reader library decodes it.
$(REC_TEST)/recdump: tests/recorder/recdump.c tests/recorder/sections.h $(BUILD)/libcudainspect.a \
		testcases/engine/storm.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcudainspect.a $(READER_LIBS)

# Unit tests link the recorder's objects (and the reader, to decode what they wrote).
$(REC_TEST)/rec_unit: tests/recorder/rec_unit.c tests/recorder/sections.h $(REC_OBJS) \
		$(BUILD)/libcudainspect.a tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(REC_OBJS) $(BUILD)/libcudainspect.a \
		$(READER_LIBS) $(REC_LDLIBS)

TEST_DEPS += $(REC_TEST)/recdump $(REC_TEST)/rec_unit

$(REC_TEST)/doorprobe: tests/recorder/doorprobe.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda -ldl

$(REC_TEST)/libnexta.so: tests/recorder/nextlib.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -DNEXT_A -fPIC -shared -o $@ $< -ldl

$(REC_TEST)/libnextb.so: tests/recorder/nextlib.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -DNEXT_B -fPIC -shared -o $@ $< -ldl

$(REC_TEST)/nextprobe: tests/recorder/nextprobe.c $(REC_TEST)/libnexta.so $(REC_TEST)/libnextb.so
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(REC_TEST) -Wl,-rpath,'$$ORIGIN' \
		-Wl,--no-as-needed -lnexta -lnextb

TEST_DEPS += $(REC_TEST)/doorprobe $(REC_TEST)/nextprobe

$(REC_TEST)/crumbprobe: tests/recorder/crumbprobe.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

TEST_DEPS += $(REC_TEST)/crumbprobe

$(REC_TEST)/graphprobe: tests/recorder/graphprobe.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

TEST_DEPS += $(REC_TEST)/graphprobe

$(REC_TEST)/shareprobe: tests/recorder/shareprobe.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

TEST_DEPS += $(REC_TEST)/shareprobe

$(REC_TEST)/timeprobe: tests/recorder/timeprobe.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

TEST_DEPS += $(REC_TEST)/timeprobe

# First CUDA calls from library constructors (start.t).
$(REC_TEST)/libctorearly.so: tests/recorder/ctorlib.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fPIC -shared -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(REC_TEST)/libctorthread.so: tests/recorder/ctorlib.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -DCTOR_THREAD -fPIC -shared -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(REC_TEST)/ctorprobe: tests/recorder/ctorprobe.c tests/recorder/probe.h $(REC_TEST)/libctorearly.so
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(REC_TEST) -Wl,-rpath,'$$ORIGIN' \
		-Wl,--no-as-needed -lctorearly -L$(CUDA_HOME)/lib64/stubs -lcuda

$(REC_TEST)/ctorprobe-dlopen: tests/recorder/ctorprobe.c tests/recorder/probe.h \
		$(REC_TEST)/libctorthread.so
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -DCTOR_DLOPEN -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda -ldl

TEST_DEPS += $(REC_TEST)/ctorprobe $(REC_TEST)/ctorprobe-dlopen

# A program that reaches the driver only through dlopen + dlsym, and the library it loads and
# launches from (dlopen.t).  Both build with frame pointers and no sibling calls: the test reads
# the library's frames in a recorded stack.
$(REC_TEST)/dlprobe: tests/recorder/dlprobe.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fno-optimize-sibling-calls $(LDFLAGS) -o $@ $< -ldl

$(REC_TEST)/libdlmod-a.so $(REC_TEST)/libdlmod-b.so: $(REC_TEST)/libdlmod-%.so: tests/recorder/dlmod.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fno-optimize-sibling-calls $(LDFLAGS) -fPIC -shared -o $@ $<

TEST_DEPS += $(REC_TEST)/dlprobe $(REC_TEST)/libdlmod-a.so $(REC_TEST)/libdlmod-b.so

# A ThreadSanitizer build of the recorder for the launch-storm test (storm.t).
REC_TSAN_OBJS := $(REC_SRCS:%.c=$(REC_TEST)/tsan/obj/%.o) $(COMMON_SRCS:%.c=$(REC_TEST)/tsan/obj/%.o)
$(REC_TEST)/tsan/obj/%.o: %.c $(REC_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -fsanitize=%,$(CFLAGS)) $(REC_CFLAGS) -fsanitize=thread -Wno-tsan \
		-c $< -o $@

$(REC_TEST)/tsan/libcudainspect-rec.so: $(REC_TSAN_OBJS)
	$(CC) -shared -fsanitize=thread -Wl,-soname,libcudainspect-rec.so -o $@ $(REC_TSAN_OBJS) \
		$(REC_LDLIBS)

TEST_DEPS += $(REC_TEST)/tsan/libcudainspect-rec.so

$(REC_TEST)/crashprobe: tests/recorder/crashprobe.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

TEST_DEPS += $(REC_TEST)/crashprobe

# A CUDA program inside a seccomp filter (seccomp.t), and a forger of record headers
# (recordcli.t).
$(REC_TEST)/seccompprobe: tests/recorder/seccompprobe.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

$(REC_TEST)/recpatch: tests/recorder/recpatch.c include/cudainspect/record.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

TEST_DEPS += $(REC_TEST)/seccompprobe $(REC_TEST)/recpatch

# crashprobe linked with the recorder (not preloaded), as a set-user-ID program would use it
# (files.t): absolute run paths, since a secure-execution process ignores LD_LIBRARY_PATH.
$(REC_TEST)/crashprobe-linked: tests/recorder/crashprobe.c tests/recorder/probe.h $(REC_LIB) \
		$(BUILD)/sim/libcuda.so.1
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(BUILD) -lcudainspect-rec \
		-Wl,--no-as-needed -L$(BUILD)/sim -l:libcuda.so.1 \
		-Wl,-rpath,$(abspath $(BUILD)):$(abspath $(BUILD))/sim

TEST_DEPS += $(REC_TEST)/crashprobe-linked

# The kernel-log reader's libFuzzer harness (tests/recorder/fuzz_kmsg.c, run by
# tests/recorder/fuzz-kmsg.t), built like the reader's (corefile/build.mk: clang, ASan, UBSan).
$(BUILD)/fuzz/fuzz_kmsg: tests/recorder/fuzz_kmsg.c common/kmsgread.c common/kmsgread.h
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ tests/recorder/fuzz_kmsg.c \
		common/kmsgread.c
TEST_DEPS += $(BUILD)/fuzz/fuzz_kmsg

.PHONY: fuzz-kmsg
fuzz-kmsg: $(BUILD)/fuzz/fuzz_kmsg
	@corpus=$(BUILD)/fuzz/corpus-fuzz_kmsg; mkdir -p $$corpus $(BUILD)/fuzz/artifacts; \
	cp tests/kernel-log/fixtures/*.log tests/kernel-log/fixtures/*.txt $$corpus/; \
	echo "fuzz: fuzz_kmsg for $(FUZZ_SECONDS)s (corpus $$corpus)"; \
	$(BUILD)/fuzz/fuzz_kmsg -max_total_time=$(FUZZ_SECONDS) -max_len=20000 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/artifacts/fuzz_kmsg- \
		$$corpus >$(BUILD)/fuzz/fuzz_kmsg.log 2>&1 || { tail -40 $(BUILD)/fuzz/fuzz_kmsg.log; exit 1; }; \
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(BUILD)/fuzz/fuzz_kmsg.log | tail -2
FUZZ_TARGETS += fuzz-kmsg
