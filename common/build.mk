# common/: the helpers the recorder and the reader both need, one copy with one behaviour, linked
# into both (libcudainspect-rec.so and libcudainspect.a): the size parser, the UTF-8 encoder, the
# safe-file helper and the kernel-log reader.  They depend on nothing but libc and the kernel;
# objects are position-independent and hidden (the recorder exports none of them).  Both sides
# include their headers by name (-Icommon).  Unit tests: tests/common/.

COMMON_SRCS := $(wildcard common/*.c)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(BUILD)/obj/%.o)

$(BUILD)/obj/common/%.o: common/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

-include $(COMMON_OBJS:.o=.d)

COMMON_TEST := $(BUILD)/tests/common
$(COMMON_TEST)/common_test: tests/common/common_test.c tests/lib/tap.h $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icommon $(CFLAGS) $(LDFLAGS) -o $@ $< $(COMMON_OBJS)
TEST_DEPS += $(COMMON_TEST)/common_test
