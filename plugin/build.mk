# plugin/: the GDB integration without Python (docs/GDB.md).
#   $(BUILD)/cudainspect.so        JIT-reader plugin (`jit-reader-load cudainspect.so`)
#   $(BUILD)/cudainspect.gdb       native `cuda ...` commands, from plugin/cudainspect.gdb.in and
#                                  the CLI's view table (`cudainspect --list-views`)
#   $(BUILD)/cudainspect-gdb-run   the commands' launcher (plugin/gdb_run.c)
# The symbol image (recorder/symimage.c) is built into the recorder by recorder/build.mk.  The
# tests' own programs are built by tests/plugin/build.mk.

PLUGIN_SRCS := plugin/jit_reader.c plugin/target.c
PLUGIN_OBJS := $(PLUGIN_SRCS:%.c=$(BUILD)/obj/%.o)

$(BUILD)/obj/plugin/%.o: plugin/%.c plugin/target.h plugin/gdb-input.h include/cudainspect/cudainspect.h include/cudainspect/record.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# Only GDB's two entry points are exported: the reader library inside stays private, so it
# cannot clash with anything GDB links.
$(BUILD)/cudainspect.so: $(PLUGIN_OBJS) $(BUILD)/libcudainspect.a plugin/exports.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,--version-script=plugin/exports.map -Wl,-z,defs \
		-o $@ $(PLUGIN_OBJS) $(BUILD)/libcudainspect.a $(READER_LIBS_NO_MERGE)

ALL += $(BUILD)/cudainspect.so

-include $(PLUGIN_OBJS:.o=.d)

# The launcher and the command file, for use from the build tree: they point at $(BUILD)'s CLI.
# `make install` builds copies that point at the installed paths.
PLUGIN_GDB_RUN := $(abspath $(BUILD))/cudainspect-gdb-run
GDB_RUN_OBJS := $(BUILD)/obj/plugin/gdb_run.o $(BUILD)/obj/plugin/gdb_input.o $(BUILD)/obj/plugin/target.o

$(BUILD)/obj/plugin/gdb_run.o: CPPFLAGS += -DCUDAINSPECT_CLI_PATH='"$(abspath $(BUILD))/cudainspect"'
$(BUILD)/cudainspect-gdb-run: $(GDB_RUN_OBJS) $(BUILD)/libcudainspect.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(GDB_RUN_OBJS) $(BUILD)/libcudainspect.a $(READER_LIBS_NO_MERGE)

$(BUILD)/cudainspect-views.txt: $(BUILD)/cudainspect
	$(BUILD)/cudainspect --list-views > $@.tmp && mv $@.tmp $@

$(BUILD)/cudainspect.gdb: plugin/cudainspect.gdb.in plugin/expand.awk $(BUILD)/cudainspect-views.txt
	@mkdir -p $(dir $@)
	awk -v RUN='$(PLUGIN_GDB_RUN)' -f plugin/expand.awk $(BUILD)/cudainspect-views.txt $< > $@.tmp && mv $@.tmp $@

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

# The installed launcher knows the installed CLI's path (one build per BINDIR).
$(BUILD)/install$(BINDIR)/cudainspect-gdb-run: plugin/gdb_run.c $(BUILD)/obj/plugin/gdb_input.o $(BUILD)/obj/plugin/target.o $(BUILD)/libcudainspect.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DCUDAINSPECT_CLI_PATH='"$(BINDIR)/cudainspect"' $(CFLAGS) $(LDFLAGS) -o $@ $< \
		$(BUILD)/obj/plugin/gdb_input.o $(BUILD)/obj/plugin/target.o $(BUILD)/libcudainspect.a $(READER_LIBS_NO_MERGE)

install-gdb: $(BUILD)/cudainspect.so plugin/cudainspect.gdb.in plugin/expand.awk $(BUILD)/cudainspect-views.txt $(BUILD)/install$(BINDIR)/cudainspect-gdb-run
	install -D -m 644 $(BUILD)/cudainspect.so $(DESTDIR)$(JIT_READER_DIR)/cudainspect.so
	mkdir -p $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/cudainspect \
		$(dir $(DESTDIR)$(GDB_AUTOLOAD_DIR)$(LIBDIR)/x)
	install -m 755 $(BUILD)/install$(BINDIR)/cudainspect-gdb-run $(DESTDIR)$(LIBEXECDIR)/cudainspect-gdb-run
	awk -v RUN='$(LIBEXECDIR)/cudainspect-gdb-run' -f plugin/expand.awk $(BUILD)/cudainspect-views.txt \
		plugin/cudainspect.gdb.in > $(DESTDIR)$(DATADIR)/cudainspect/cudainspect.gdb
	install -m 644 $(DESTDIR)$(DATADIR)/cudainspect/cudainspect.gdb \
		$(DESTDIR)$(GDB_AUTOLOAD_DIR)$(LIBDIR)/libcudainspect-rec.so-gdb.gdb

INSTALL_TARGETS += install-cli install-recorder install-gdb
