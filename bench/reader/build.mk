# bench/reader/: the reader's benchmark (`make bench`), plus the build rules of the reader's
# output-side unit tests (tests/reader/*.c -> $(BUILD)/tests/reader/, run by tests/reader/*.t).

READER_TEST_SRCS := $(wildcard tests/reader/*_test.c)
READER_TESTS     := $(READER_TEST_SRCS:tests/reader/%.c=$(BUILD)/tests/reader/%)

$(BUILD)/tests/reader/%: tests/reader/%.c tests/reader/model.h tests/lib/tap.h \
		$(BUILD)/libcudainspect.a include/cudainspect/cudainspect.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icorefile $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcudainspect.a $(READER_LIBS)

TEST_DEPS += $(READER_TESTS)
