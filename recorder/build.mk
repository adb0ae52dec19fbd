# recorder/: the flight recorder, $(BUILD)/libcudainspect-rec.so (LD_PRELOAD it, or link it).
# Every recorder/*.c is part of it (symimage.c included).  Objects are position-independent
# and hidden by default: only the cu* wrappers, dlsym and cudainspect_record are exported.

REC_SRCS := $(wildcard recorder/*.c)
REC_OBJS := $(REC_SRCS:%.c=$(BUILD)/obj/%.o)
REC_LIB  := $(BUILD)/libcudainspect-rec.so
REC_CFLAGS := -fPIC -fvisibility=hidden -fno-strict-aliasing
REC_LDLIBS := -ldl -lpthread

$(BUILD)/obj/recorder/%.o: recorder/%.c recorder/recorder.h recorder/api.h recorder/hooks.h \
		recorder/symimage.h include/cudainspect/record.h include/cudainspect/cudainspect.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(REC_CFLAGS) -MMD -MP -c $< -o $@

$(REC_LIB): $(REC_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libcudainspect-rec.so -Wl,-z,defs \
		-Wl,-Bsymbolic-functions -o $@ $(REC_OBJS) $(REC_LDLIBS)

ALL += $(REC_LIB)

-include $(REC_OBJS:.o=.d)
