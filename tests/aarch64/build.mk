# tests/aarch64: the recorder, the simulated driver and miniengine cross-built for aarch64 (Grace
# Hopper hosts) into $(BUILD)/aarch64/, for tests/aarch64/*.t, which run them under qemu-aarch64
# and read the cores with the x86-64 reader.  The same build.mk rules, in a second make with the
# cross compiler; miniengine links against the aarch64 simulated driver (the toolkit's stub is
# x86-64).  -Werror: the cross build is the only place some warnings show (gcc's view of the
# non-x86 paths).  Without the cross compiler (make deps installs gcc-aarch64-linux-gnu) this
# says so and builds nothing; the tests then skip.
AARCH64_CC    ?= aarch64-linux-gnu-gcc
AARCH64_BUILD := $(BUILD)/aarch64

.PHONY: aarch64
aarch64:
	@if ! command -v $(AARCH64_CC) >/dev/null 2>&1; then \
		echo "aarch64: no $(AARCH64_CC) (make deps installs gcc-aarch64-linux-gnu); the aarch64 build and its tests are skipped"; \
	else \
		$(MAKE) --no-print-directory BUILD=$(AARCH64_BUILD) CC=$(AARCH64_CC) SANITIZE= \
			WARNINGS='$(WARNINGS) -Werror' \
			ENGINE_LIBS='-L$(AARCH64_BUILD)/sim -l:libcuda.so.1 -lpthread -ldl' \
			$(AARCH64_BUILD)/libcudainspect-rec.so $(AARCH64_BUILD)/sim/libcuda.so.1 \
			$(AARCH64_BUILD)/miniengine $(AARCH64_BUILD)/tests/aarch64/libmapsdump.so \
			$(AARCH64_BUILD)/tests/aarch64/abortprobe; \
	fi
TEST_DEPS += aarch64

# A preloadable helper that copies the guest's memory map (qemu.t: the NT_FILE of the cores
# tests/aarch64/kernelcore.py rewrites); built in the aarch64 make only.
$(BUILD)/tests/aarch64/libmapsdump.so: tests/aarch64/mapsdump.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fPIC -shared -o $@ $<

# abortprobe: assert() fails, for glibc's abort message in an aarch64 core.
$(BUILD)/tests/aarch64/abortprobe: tests/aarch64/abortprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<
