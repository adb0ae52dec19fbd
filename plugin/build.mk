# plugin/: the GDB integration without Python (docs/GDB.md) and its tests.
#   $(BUILD)/cudainspect.so   JIT-reader plugin (`jit-reader-load cudainspect.so`)
#   $(BUILD)/cudainspect.gdb  native `cuda ...` commands, from plugin/cudainspect.gdb.in
# The symbol image (recorder/symimage.c) is built into the recorder by recorder/build.mk; its
# unit test is built here.

PLUGIN_SRCS := plugin/jit_reader.c plugin/target.c
PLUGIN_OBJS := $(PLUGIN_SRCS:%.c=$(BUILD)/obj/%.o)
PLUGIN_TEST_DIR := $(BUILD)/tests/plugin

$(BUILD)/obj/plugin/%.o: plugin/%.c plugin/target.h include/cudainspect/cudainspect.h include/cudainspect/record.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# Only GDB's two entry points are exported: the reader library inside stays private, so it
# cannot clash with anything GDB links.
$(BUILD)/cudainspect.so: $(PLUGIN_OBJS) $(BUILD)/libcudainspect.a plugin/exports.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,--version-script=plugin/exports.map -Wl,-z,defs \
		-o $@ $(PLUGIN_OBJS) $(BUILD)/libcudainspect.a $(READER_LIBS)

ALL += $(BUILD)/cudainspect.so

$(PLUGIN_TEST_DIR)/symimage-test: tests/plugin/symimage-test.c recorder/symimage.c recorder/symimage.h include/cudainspect/record.h tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tests/plugin/symimage-test.c recorder/symimage.c -lelf

TEST_DEPS += $(PLUGIN_TEST_DIR)/symimage-test

-include $(PLUGIN_OBJS:.o=.d)

# The command file and its helper, for use from the build tree: they point at $(BUILD)'s CLI.
# `make install` writes copies that point at the installed paths.
PLUGIN_GDB_RUN := $(abspath $(BUILD))/cudainspect-gdb-run

$(BUILD)/cudainspect-gdb-run: plugin/cudainspect-gdb-run.in
	@mkdir -p $(dir $@)
	sed 's|@CLI@|$(abspath $(BUILD))/cudainspect|g' $< > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@

$(BUILD)/cudainspect.gdb: plugin/cudainspect.gdb.in plugin/expand.awk
	@mkdir -p $(dir $@)
	awk -v RUN='$(PLUGIN_GDB_RUN)' -f plugin/expand.awk $< > $@.tmp && mv $@.tmp $@

ALL += $(BUILD)/cudainspect-gdb-run $(BUILD)/cudainspect.gdb

# ---------------------------------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]: every product, at the places GDB and the shell
# look for them (docs/GDB.md, "Installing").
#   $(BINDIR)/cudainspect                    the CLI
#   $(LIBDIR)/libcudainspect-rec.so          the recorder
#   $(JIT_READER_DIR)/cudainspect.so         the JIT reader: GDB resolves `jit-reader-load NAME`
#                                            only in its configured directory (Debian:
#                                            /usr/lib/gdb), whatever PREFIX says
#   $(GDB_AUTOLOAD_DIR)$(LIBDIR)/libcudainspect-rec.so-gdb.gdb
#                                            the command file, auto-loaded by GDB for every
#                                            process that maps the installed recorder (the
#                                            OBJFILE-gdb.gdb rule; inside the default safe-path)
#   $(DATADIR)/cudainspect/cudainspect.gdb   the same file, for `source`
#   $(LIBEXECDIR)/cudainspect-gdb-run        the commands' helper
BINDIR           ?= $(PREFIX)/bin
LIBDIR           ?= $(PREFIX)/lib
LIBEXECDIR       ?= $(PREFIX)/libexec/cudainspect
DATADIR          ?= $(PREFIX)/share
JIT_READER_DIR   ?= /usr/lib/gdb
GDB_AUTOLOAD_DIR ?= /usr/share/gdb/auto-load

.PHONY: install-cli install-recorder install-gdb
install-cli: $(BUILD)/cudainspect
	install -D -m 755 $< $(DESTDIR)$(BINDIR)/cudainspect

install-recorder: $(BUILD)/libcudainspect-rec.so
	install -D -m 755 $< $(DESTDIR)$(LIBDIR)/libcudainspect-rec.so

install-gdb: $(BUILD)/cudainspect.so plugin/cudainspect.gdb.in plugin/expand.awk plugin/cudainspect-gdb-run.in
	install -D -m 644 $(BUILD)/cudainspect.so $(DESTDIR)$(JIT_READER_DIR)/cudainspect.so
	mkdir -p $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/cudainspect \
		$(dir $(DESTDIR)$(GDB_AUTOLOAD_DIR)$(LIBDIR)/x)
	sed 's|@CLI@|$(BINDIR)/cudainspect|g' plugin/cudainspect-gdb-run.in \
		> $(DESTDIR)$(LIBEXECDIR)/cudainspect-gdb-run
	chmod 755 $(DESTDIR)$(LIBEXECDIR)/cudainspect-gdb-run
	awk -v RUN='$(LIBEXECDIR)/cudainspect-gdb-run' -f plugin/expand.awk plugin/cudainspect.gdb.in \
		> $(DESTDIR)$(DATADIR)/cudainspect/cudainspect.gdb
	install -m 644 $(DESTDIR)$(DATADIR)/cudainspect/cudainspect.gdb \
		$(DESTDIR)$(GDB_AUTOLOAD_DIR)$(LIBDIR)/libcudainspect-rec.so-gdb.gdb

INSTALL_TARGETS += install-cli install-recorder install-gdb

# GDB test programs (tests/plugin/*.t).  Built without sanitizers: they run under the recorder
# (LD_PRELOAD) and GDB.
$(PLUGIN_TEST_DIR)/gdbprobe: tests/plugin/gdbprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O0 -g -std=gnu11 $(WARNINGS) -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda

# A freestanding executable at a fixed address: the "JIT-compiled" object gdbprobe registers.
$(PLUGIN_TEST_DIR)/jitfn.elf: tests/plugin/jitfn.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -fno-pic -no-pie -nostdlib -static -fasynchronous-unwind-tables \
		-Wl,-Ttext-segment=0x30000000 -Wl,-e,jitted_call -Wl,--build-id=none -o $@ $<

TEST_DEPS += $(PLUGIN_TEST_DIR)/gdbprobe $(PLUGIN_TEST_DIR)/jitfn.elf

# GDB's side of the JIT reader interface, for tests of the reader without GDB (and under ASan).
$(PLUGIN_TEST_DIR)/reader-harness: tests/plugin/reader-harness.c $(PLUGIN_OBJS) $(BUILD)/libcudainspect.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PLUGIN_OBJS) $(BUILD)/libcudainspect.a \
		$(READER_LIBS) -ldl

TEST_DEPS += $(PLUGIN_TEST_DIR)/reader-harness
