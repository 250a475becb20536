# outputs.mk: the flame graph template (src/output/flame.html) compiled
# into the binary as a byte array header, $(B)/gen/flame_html.h, included by
# src/output/flame.c. od (coreutils) writes the bytes, so no xxd is needed.

$(B)/gen/flame_html.h: src/output/flame.html
	@mkdir -p $(dir $@)
	od -An -v -tx1 < $< | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g' > $@.tmp && mv $@.tmp $@

$(B)/obj/src/output/flame.o: $(B)/gen/flame_html.h

.PHONY: npm-deps
# The npm packages the browser tests use (speedscope, playwright-core), in
# build/node_modules; see scripts/npm-deps.sh.
npm-deps:
	scripts/npm-deps.sh
