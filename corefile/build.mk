# corefile/: the reader library (every corefile/*.c) and the `cudainspect` CLI (corefile/cli/*.c).
# Library objects are built with -fPIC so that the GDB plugin (a shared object) can link them.

READER_SRCS := $(wildcard corefile/*.c)
READER_OBJS := $(READER_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_SRCS    := $(wildcard corefile/cli/*.c)
CLI_OBJS    := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
READER_LIBS := -ldw -lelf -lzstd -lz -lpthread

$(BUILD)/obj/corefile/%.o: corefile/%.c include/cudainspect/cudainspect.h include/cudainspect/record.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(BUILD)/libcudainspect.a: $(READER_OBJS)
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
