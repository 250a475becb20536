# perfparser.mk: helper targets for `scorch perfparser` (hotspot's parser).
#   make perfparser-bench       bench/perfparser_bench.sh (records make -j2)
#   make hotspot-screenshot     docs/hotspot.png via Xvfb
#   make perfparser-test        the perfparser unit and e2e tests only
.PHONY: perfparser-bench hotspot-screenshot perfparser-test

perfparser-bench: $(B)/scorch $(B)/scorch-perfparser
	bench/perfparser_bench.sh

hotspot-screenshot: $(B)/scorch $(B)/scorch-perfparser
	scripts/hotspot_screenshot.sh

perfparser-test: all asan
	tests/run.sh perfparser
