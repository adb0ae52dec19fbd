# corefile/: the reader library, a folder per stage in the order the data takes (base/ holds the
# helpers of every stage), each with its one private header; and the `cudainspect` CLI
# (corefile/cli/*.c).  Library objects are built with -fPIC so that the GDB plugin (a shared
# object) can link them.  Sources include the headers of other stages by their path under
# corefile/ ("model/model.h").

CI_STAGES   := base source gpucore model evidence diagnose symbolize report merge
READER_SRCS := $(foreach s,$(CI_STAGES),$(wildcard corefile/$(s)/*.c))
READER_OBJS := $(READER_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_SRCS    := $(wildcard corefile/cli/*.c)
CLI_OBJS    := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
# jansson is used by merge's JSON reader alone (merge/facts_json.o), which only the CLI pulls
# from the archive: the GDB plugin and its launcher link without it (READER_LIBS_NO_MERGE), so
# they never need it at run time, --as-needed or not (tests/merge/deps.t); the wheel and `make
# gpu-bundle` carry it with the CLI's other libraries.
READER_LIBS_NO_MERGE := -ldw -lelf -lzstd -lz -lpthread
READER_LIBS := $(READER_LIBS_NO_MERGE) -ljansson

$(BUILD)/obj/corefile/%.o: corefile/%.c include/cudainspect/cudainspect.h include/cudainspect/record.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile -Icommon $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# The library holds the helpers it shares with the recorder (common/build.mk).
$(BUILD)/libcudainspect.a: $(READER_OBJS) $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/cudainspect: $(CLI_OBJS) $(BUILD)/libcudainspect.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(BUILD)/libcudainspect.a $(READER_LIBS)

ifneq ($(READER_SRCS),)
ALL += $(BUILD)/libcudainspect.a
endif
ifneq ($(CLI_SRCS),)
ALL += $(BUILD)/cudainspect
endif

-include $(READER_OBJS:.o=.d) $(CLI_OBJS:.o=.d)

# CUresult names, descriptions and stickiness, generated from cuda.h (corefile/base/names-curesult.awk).
CI_GEN := $(BUILD)/gen
$(CI_GEN)/cuda-results.h: corefile/base/names-curesult.awk $(CUDA_H)
	@mkdir -p $(dir $@)
	awk -f corefile/base/names-curesult.awk $(CUDA_H) > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/corefile/base/names.o: $(CI_GEN)/cuda-results.h
$(BUILD)/obj/corefile/base/names.o: CPPFLAGS += -I$(CI_GEN)

# ---------------------------------------------------------------------------------------------
# The input stages on their own (the input side's tests, fuzzers and tools link these).
CI_INPUT_SRCS := $(foreach s,base source model evidence,$(wildcard corefile/$(s)/*.c)) $(COMMON_SRCS)
CI_INPUT_OBJS := $(CI_INPUT_SRCS:%.c=$(BUILD)/obj/%.o)

# ---------------------------------------------------------------------------------------------
# libFuzzer harnesses (corefile/fuzz/): the input stages rebuilt with clang and
# -fsanitize=fuzzer-no-link,address,undefined into $(BUILD)/fuzz/.  `make fuzz` runs each for
# FUZZ_SECONDS on a seed corpus of synthetic records and cores (tests/reader-input/fuzz-seeds.sh);
# tests/reader-input/fuzz.t runs each for 60 seconds as part of `make check`.
FUZZ_DIR      := $(BUILD)/fuzz
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS   := -O1 -g -std=gnu11 -fno-omit-frame-pointer $(WARNINGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_OBJS     := $(CI_INPUT_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_HARNESSES := $(patsubst corefile/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard corefile/fuzz/fuzz_*.c))

$(FUZZ_DIR)/obj/%.o: %.c include/cudainspect/cudainspect.h include/cudainspect/record.h $(wildcard corefile/*/*.h common/*.h) $(CI_GEN)/cuda-results.h
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -Icorefile -Icommon -I$(CI_GEN) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/fuzz_%: corefile/fuzz/fuzz_%.c $(FUZZ_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) -lelf -lzstd -lz

# Keep the instrumented objects: make would delete them as intermediates of the pattern chain.
.SECONDARY: $(FUZZ_OBJS)
TEST_DEPS += $(FUZZ_HARNESSES)

# ---------------------------------------------------------------------------------------------
# The kernel-log parser (corefile/evidence/kernel_log.c, header corefile/evidence/evidence.h, described in
# docs/KERNEL-LOG.md): its unit tests and dump tool in tests/kernel-log/, linked against the
# objects it needs, and its libFuzzer harness, which has its own seeds (tests/kernel-log/
# fuzz-seeds.sh) and its own `make fuzz` target, so the input side's loop above leaves it out.
KLOG_OBJS := $(BUILD)/obj/corefile/evidence/kernel_log.o $(BUILD)/obj/corefile/base/errors.o \
             $(BUILD)/obj/common/utf8.o
KLOG_DIR  := $(BUILD)/tests/kernel-log
$(KLOG_DIR)/%: tests/kernel-log/%.c corefile/evidence/evidence.h tests/lib/tap.h $(KLOG_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< $(KLOG_OBJS) -lz
TEST_DEPS += $(KLOG_DIR)/test-kernel-log $(KLOG_DIR)/klog-dump

FUZZ_KLOG_OBJS := $(FUZZ_DIR)/obj/corefile/evidence/kernel_log.o $(FUZZ_DIR)/obj/corefile/base/errors.o \
                  $(FUZZ_DIR)/obj/common/utf8.o
$(FUZZ_DIR)/fuzz_kernel_log: corefile/fuzz/fuzz_kernel_log.c corefile/evidence/evidence.h $(FUZZ_KLOG_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_KLOG_OBJS) -lz
.SECONDARY: $(FUZZ_KLOG_OBJS)
FUZZ_HARNESSES := $(filter-out $(FUZZ_DIR)/fuzz_kernel_log,$(FUZZ_HARNESSES))
TEST_DEPS += $(FUZZ_DIR)/fuzz_kernel_log

.PHONY: fuzz-kernel-log
fuzz-kernel-log: $(FUZZ_DIR)/fuzz_kernel_log
	@corpus=$(FUZZ_DIR)/corpus-fuzz_kernel_log; mkdir -p $$corpus $(FUZZ_DIR)/artifacts; \
	tests/kernel-log/fuzz-seeds.sh $$corpus || exit 1; \
	echo "fuzz: fuzz_kernel_log for $(FUZZ_SECONDS)s (corpus $$corpus)"; \
	$(FUZZ_DIR)/fuzz_kernel_log -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/fuzz_kernel_log- $$corpus \
		>$(FUZZ_DIR)/fuzz_kernel_log.log 2>&1 || { tail -40 $(FUZZ_DIR)/fuzz_kernel_log.log; exit 1; }; \
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_kernel_log.log | tail -2
FUZZ_TARGETS += fuzz-kernel-log

# ---------------------------------------------------------------------------------------------
# The merge's JSON reader (corefile/merge/facts_json.c: documents from other hosts, parsed by
# jansson within bounds): its libFuzzer harness, on seeds of real documents
# (tests/merge/fuzz-seeds.sh), run by tests/merge/fuzz.t and `make fuzz-merge-json`.
FUZZ_MJ_OBJS := $(FUZZ_DIR)/obj/corefile/merge/facts_json.o $(FUZZ_DIR)/obj/corefile/report/job_words.o \
                $(FUZZ_DIR)/obj/corefile/base/errors.o $(FUZZ_DIR)/obj/corefile/base/names.o \
                $(FUZZ_DIR)/obj/corefile/base/text.o $(FUZZ_DIR)/obj/corefile/base/demangle.o \
                $(FUZZ_DIR)/obj/common/utf8.o
$(FUZZ_DIR)/fuzz_merge_json: corefile/fuzz/fuzz_merge_json.c corefile/merge/merge.h $(FUZZ_MJ_OBJS)
	$(CLANG) $(CPPFLAGS) -Icorefile $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_MJ_OBJS) -ljansson
.SECONDARY: $(FUZZ_MJ_OBJS)
FUZZ_HARNESSES := $(filter-out $(FUZZ_DIR)/fuzz_merge_json,$(FUZZ_HARNESSES))
TEST_DEPS += $(FUZZ_DIR)/fuzz_merge_json

.PHONY: fuzz-merge-json
fuzz-merge-json: $(FUZZ_DIR)/fuzz_merge_json
	@corpus=$(FUZZ_DIR)/corpus-fuzz_merge_json; mkdir -p $$corpus $(FUZZ_DIR)/artifacts; \
	tests/merge/fuzz-seeds.sh $$corpus || exit 1; \
	echo "fuzz: fuzz_merge_json for $(FUZZ_SECONDS)s (corpus $$corpus)"; \
	$(FUZZ_DIR)/fuzz_merge_json -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/fuzz_merge_json- $$corpus \
		>$(FUZZ_DIR)/fuzz_merge_json.log 2>&1 || { tail -40 $(FUZZ_DIR)/fuzz_merge_json.log; exit 1; }; \
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_merge_json.log | tail -2
FUZZ_TARGETS += fuzz-merge-json
