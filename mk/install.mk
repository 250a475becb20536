# install.mk: what turns build/ into an installed system tool.
#  - the version (scripts/version.sh: VERSION file, git tag or commit) in
#    $(B)/gen/version.h, rewritten only when it changes;
#  - man pages: docs/man/*.scd (scdoc, with "%include" fragments resolved by
#    scripts/man-src.sh) -> $(B)/man/*.1;
#  - bash and zsh completion generated from the same page sources
#    (scripts/gen-completion.sh), so an option is written down once;
#  - make install / uninstall with PREFIX and DESTDIR; make dist.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR     ?= $(PREFIX)/share/man
DOCDIR     ?= $(PREFIX)/share/doc/scorch
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
INSTALL    ?= install

SCORCH_VERSION ?= $(shell scripts/version.sh)
MAN_SRC  := $(wildcard docs/man/*.scd)
MAN_INC  := $(wildcard docs/man/include/*.scd)
MAN_OUT  := $(MAN_SRC:docs/man/%.scd=build/man/%)
COMPLETION := build/completion/scorch build/completion/_scorch
DOC_FILES := README.md $(wildcard docs/*.md)

.PHONY: man completion install uninstall dist FORCE
all: man completion
man: $(MAN_OUT)
completion: $(COMPLETION)

$(B)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define SCORCH_VERSION "$(SCORCH_VERSION)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(B)/obj/src/cli/scorch.o: $(B)/gen/version.h

build/man/%: docs/man/%.scd $(MAN_INC) scripts/man-src.sh
	@mkdir -p $(dir $@)
	scripts/man-src.sh page $< | scdoc > $@.tmp && mv -f $@.tmp $@

build/completion/scorch: $(MAN_SRC) $(MAN_INC) scripts/man-src.sh scripts/gen-completion.sh completion/scorch.bash
	@mkdir -p $(dir $@)
	scripts/gen-completion.sh bash > $@.tmp && mv -f $@.tmp $@
build/completion/_scorch: $(MAN_SRC) $(MAN_INC) scripts/man-src.sh scripts/gen-completion.sh completion/_scorch.zsh
	@mkdir -p $(dir $@)
	scripts/gen-completion.sh zsh > $@.tmp && mv -f $@.tmp $@

# scorch-perfparser: a relative link to bin/scorch (hotspot runs it through
# HOTSPOT_PERFPARSER, `scorch hotspot` sets that).
PERFPARSER_LINK = $(shell realpath -m --relative-to=$(LIBEXECDIR)/scorch $(BINDIR)/scorch)

install: build/scorch $(MAN_OUT) $(COMPLETION)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/scorch $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 755 build/scorch $(DESTDIR)$(BINDIR)/scorch
	ln -sfn $(PERFPARSER_LINK) $(DESTDIR)$(LIBEXECDIR)/scorch/scorch-perfparser
	$(INSTALL) -m 644 $(MAN_OUT) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 build/completion/scorch $(DESTDIR)$(BASHCOMPDIR)/scorch
	$(INSTALL) -m 644 build/completion/_scorch $(DESTDIR)$(ZSHCOMPDIR)/_scorch
	$(INSTALL) -m 644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/

# Removes what install put there, and the directories only scorch uses.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/scorch $(DESTDIR)$(LIBEXECDIR)/scorch/scorch-perfparser \
		$(MAN_OUT:build/man/%=$(DESTDIR)$(MANDIR)/man1/%) \
		$(DESTDIR)$(BASHCOMPDIR)/scorch $(DESTDIR)$(ZSHCOMPDIR)/_scorch \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_FILES)))
	-rmdir $(DESTDIR)$(LIBEXECDIR)/scorch $(DESTDIR)$(DOCDIR)

# A release tarball: the tracked files and a VERSION file.
dist:
	@mkdir -p build
	git archive --prefix=scorch-$(SCORCH_VERSION)/ -o build/scorch-$(SCORCH_VERSION).tar HEAD
	rm -rf build/dist && mkdir -p build/dist/scorch-$(SCORCH_VERSION)
	echo $(SCORCH_VERSION) > build/dist/scorch-$(SCORCH_VERSION)/VERSION
	tar -rf build/scorch-$(SCORCH_VERSION).tar -C build/dist scorch-$(SCORCH_VERSION)/VERSION
	gzip -f build/scorch-$(SCORCH_VERSION).tar
	@echo build/scorch-$(SCORCH_VERSION).tar.gz
