# tests/reader-input/: the input side's fixtures and unit tests.  The fixtures that run as
# crashing or traced processes (crasher, mkrecord, the stand-in recorder library) are built
# without sanitizers even under SANITIZE=address: ASan disables core dumps and intercepts the
# crash.  The test driver and unit tests link the input stages (CI_INPUT_OBJS, corefile/
# build.mk) directly, sanitized like the library.
RI_DIR        := $(BUILD)/tests/reader-input
RI_SRC        := tests/reader-input
RI_PLAIN_CFLAGS  := $(filter-out -fsanitize=%,$(CFLAGS))
RI_PLAIN_LDFLAGS := $(filter-out -fsanitize=%,$(LDFLAGS))
RI_FIXTURE_DEPS  := $(RI_SRC)/synth.c $(RI_SRC)/synth.h include/cudainspect/record.h

$(RI_DIR)/mkrecord: $(RI_SRC)/mkrecord.c $(RI_FIXTURE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(RI_PLAIN_CFLAGS) $(RI_PLAIN_LDFLAGS) -o $@ $< $(RI_SRC)/synth.c

$(RI_DIR)/crasher: $(RI_SRC)/crasher.c $(RI_FIXTURE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(RI_PLAIN_CFLAGS) $(RI_PLAIN_LDFLAGS) -o $@ $< $(RI_SRC)/synth.c -lpthread -ldl

$(RI_DIR)/libcudainspect-rec-synth.so: $(RI_SRC)/fakerec.c include/cudainspect/record.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(RI_PLAIN_CFLAGS) $(RI_PLAIN_LDFLAGS) -shared -fPIC -o $@ $<

$(RI_DIR)/mkcore: $(RI_SRC)/mkcore.c $(RI_FIXTURE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(RI_PLAIN_CFLAGS) $(RI_PLAIN_LDFLAGS) -o $@ $< $(RI_SRC)/synth.c

$(RI_DIR)/killmid: $(RI_SRC)/killmid.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(RI_PLAIN_CFLAGS) $(RI_PLAIN_LDFLAGS) -o $@ $<

$(RI_DIR)/cidecode: $(RI_SRC)/cidecode.c $(RI_FIXTURE_DEPS) $(CI_INPUT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(RI_SRC)/synth.c $(CI_INPUT_OBJS) $(READER_LIBS)

$(RI_DIR)/test-%: $(RI_SRC)/test-%.c tests/lib/tap.h corefile/source/source.h $(RI_FIXTURE_DEPS) $(CI_INPUT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< $(RI_SRC)/synth.c $(CI_INPUT_OBJS) $(READER_LIBS)

RI_TESTS := $(patsubst $(RI_SRC)/%.c,$(RI_DIR)/%,$(wildcard $(RI_SRC)/test-*.c))
TEST_DEPS += $(RI_DIR)/mkrecord $(RI_DIR)/crasher $(RI_DIR)/libcudainspect-rec-synth.so \
             $(RI_DIR)/cidecode $(RI_DIR)/killmid $(RI_TESTS)
ifneq ($(wildcard $(RI_SRC)/mkcore.c),)
TEST_DEPS += $(RI_DIR)/mkcore
endif

# `make fuzz`: the input side's harnesses (corefile/fuzz/, built by corefile/build.mk) on the
# synthetic seeds of fuzz-seeds.sh.
.PHONY: fuzz-reader-input
fuzz-reader-input: $(FUZZ_HARNESSES) $(RI_DIR)/mkrecord $(RI_DIR)/mkcore $(RI_DIR)/crasher
	@for h in $(FUZZ_HARNESSES); do \
		n=$$(basename $$h); corpus=$(FUZZ_DIR)/corpus-$$n; mkdir -p $$corpus $(FUZZ_DIR)/artifacts; \
		tests/reader-input/fuzz-seeds.sh $(RI_DIR) $$corpus $$n || exit 1; \
		echo "fuzz: $$n for $(FUZZ_SECONDS)s (corpus $$corpus)"; \
		$$h -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_DIR)/artifacts/ $$corpus >$(FUZZ_DIR)/$$n.log 2>&1 \
			|| { tail -40 $(FUZZ_DIR)/$$n.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_DIR)/$$n.log | tail -2; \
	done
FUZZ_TARGETS += fuzz-reader-input
