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

# CUresult names, descriptions and stickiness, generated from cuda.h (corefile/names-curesult.awk).
CI_GEN := $(BUILD)/gen
$(CI_GEN)/cuda-results.h: corefile/names-curesult.awk $(CUDA_H)
	@mkdir -p $(dir $@)
	awk -f corefile/names-curesult.awk $(CUDA_H) > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/corefile/names.o: $(CI_GEN)/cuda-results.h
$(BUILD)/obj/corefile/names.o: CPPFLAGS += -I$(CI_GEN)
# Every library object depends on the private header of the input side.
$(READER_OBJS): corefile/reader-internal.h
