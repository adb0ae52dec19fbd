# plugin/: the GDB integration without Python (docs/GDB.md) and its tests.
#   $(BUILD)/cudainspect.so   JIT-reader plugin (`jit-reader-load cudainspect.so`)
#   $(BUILD)/cudainspect.gdb  native `cuda ...` commands, from plugin/cudainspect.gdb.in
# The symbol image (recorder/symimage.c) is built into the recorder by recorder/build.mk; its
# unit test is built here.

PLUGIN_TEST_DIR := $(BUILD)/tests/plugin

$(PLUGIN_TEST_DIR)/symimage-test: tests/plugin/symimage-test.c recorder/symimage.c recorder/symimage.h include/cudainspect/record.h tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tests/plugin/symimage-test.c recorder/symimage.c -lelf

TEST_DEPS += $(PLUGIN_TEST_DIR)/symimage-test
