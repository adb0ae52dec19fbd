# docs/man/: the manual pages, generated with Debian's usual tools from what the programs and
# the docs already say, never written by hand:
#   cudainspect(1)          help2man from `cudainspect --help` and `--version`, with the views
#                           (from `--list-views`, the view table) and the sections of
#                           docs/man/cudainspect.h2m (environment, files, see also)
#   cudainspect-record(1)   help2man from `cudainspect record --help`
#   cudainspect-merge(1)    help2man from `cudainspect merge --help`
#   libcudainspect-rec(7)   scdoc from docs/ENVIRONMENT.md's tables (env.awk turns them into
#                           scdoc), the one place every CUDAINSPECT_* variable is documented
# `make man` builds them into $(BUILD)/man; `make install` installs them; tests/man/lint.t
# checks them with mandoc -Tlint.
MAN_DIR   := $(BUILD)/man
MAN_PAGES := $(MAN_DIR)/cudainspect.1 $(MAN_DIR)/cudainspect-record.1 $(MAN_DIR)/cudainspect-merge.1 \
             $(MAN_DIR)/libcudainspect-rec.7
MANDIR    ?= $(PREFIX)/share/man

$(MAN_DIR)/views.h2m: $(BUILD)/cudainspect docs/man/views.awk
	@mkdir -p $(dir $@)
	$(BUILD)/cudainspect --list-views | awk -f docs/man/views.awk > $@.tmp && mv $@.tmp $@

$(MAN_DIR)/cudainspect.1: $(BUILD)/cudainspect $(MAN_DIR)/views.h2m docs/man/cudainspect.h2m
	@mkdir -p $(dir $@)
	help2man --no-info --section=1 --source="cudainspect" \
		--name="say what the GPU was doing when a CUDA program died" \
		--include=$(MAN_DIR)/views.h2m --include=docs/man/cudainspect.h2m \
		--output=$@.tmp $(BUILD)/cudainspect && mv $@.tmp $@

# help2man names a page after the program it runs: a two-line wrapper named for the subcommand.
$(MAN_DIR)/cudainspect-record: $(BUILD)/cudainspect
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec "%s" record "$$@"\n' "$(abspath $(BUILD)/cudainspect)" > $@ && chmod +x $@

$(MAN_DIR)/cudainspect-record.1: $(MAN_DIR)/cudainspect-record docs/man/cudainspect-record.h2m
	help2man --no-info --section=1 --source="cudainspect" \
		--version-string="$$($(BUILD)/cudainspect --version | awk '{ print $$2 }')" \
		--name="run a program under the cudainspect flight recorder" \
		--include=docs/man/cudainspect-record.h2m --output=$@.tmp $< && mv $@.tmp $@

$(MAN_DIR)/cudainspect-merge: $(BUILD)/cudainspect
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec "%s" merge "$$@"\n' "$(abspath $(BUILD)/cudainspect)" > $@ && chmod +x $@

$(MAN_DIR)/cudainspect-merge.1: $(MAN_DIR)/cudainspect-merge docs/man/cudainspect-merge.h2m
	help2man --no-info --section=1 --source="cudainspect" \
		--version-string="$$($(BUILD)/cudainspect --version | awk '{ print $$2 }')" \
		--name="one report for the records of a whole multi-GPU job" \
		--include=docs/man/cudainspect-merge.h2m --output=$@.tmp $< && mv $@.tmp $@

$(MAN_DIR)/libcudainspect-rec.7: docs/ENVIRONMENT.md docs/man/env.awk
	@mkdir -p $(dir $@)
	awk -f docs/man/env.awk docs/ENVIRONMENT.md > $(MAN_DIR)/libcudainspect-rec.7.scd
	scdoc < $(MAN_DIR)/libcudainspect-rec.7.scd > $@.tmp && mv $@.tmp $@

.PHONY: man install-man
man: $(MAN_PAGES)
install-man: $(MAN_PAGES)
	install -D -m 644 $(MAN_DIR)/cudainspect.1 $(DESTDIR)$(MANDIR)/man1/cudainspect.1
	install -D -m 644 $(MAN_DIR)/cudainspect-record.1 $(DESTDIR)$(MANDIR)/man1/cudainspect-record.1
	install -D -m 644 $(MAN_DIR)/cudainspect-merge.1 $(DESTDIR)$(MANDIR)/man1/cudainspect-merge.1
	install -D -m 644 $(MAN_DIR)/libcudainspect-rec.7 $(DESTDIR)$(MANDIR)/man7/libcudainspect-rec.7

TEST_DEPS += $(MAN_PAGES)
INSTALL_TARGETS += install-man
