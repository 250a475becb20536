# diff.mk: the diff tests' workload (tests/workloads/diff_work.c) built
# twice under the same name in two directories, as two releases of one
# program: base/ (every function one unit of work) and new/ (grow() does
# two), so a comparison has one known regression; clone/ is new with grow's
# symbol named like a GCC clone.
DIFF_WL := $(B)/workloads/diff
all: $(DIFF_WL)/base/diff_work $(DIFF_WL)/new/diff_work $(DIFF_WL)/clone/diff_work

$(DIFF_WL)/base/diff_work: tests/workloads/diff_work.c
	@mkdir -p $(dir $@)
	gcc -O1 -g -fno-omit-frame-pointer -DGROW=1 -o $@ $<
$(DIFF_WL)/new/diff_work: tests/workloads/diff_work.c
	@mkdir -p $(dir $@)
	gcc -O1 -g -fno-omit-frame-pointer -DGROW=2 -o $@ $<
# new's work, grow's symbol named as a GCC clone ("grow.constprop.0")
$(DIFF_WL)/clone/diff_work: tests/workloads/diff_work.c
	@mkdir -p $(dir $@)
	gcc -O1 -g -fno-omit-frame-pointer -DGROW=2 -DCLONE_NAMES -o $@ $<

.PHONY: diff-screenshot diff-bench
# docs/diff-flame.png (scripts/diff_screenshot.sh)
diff-screenshot: $(B)/scorch $(DIFF_WL)/base/diff_work $(DIFF_WL)/new/diff_work
	scripts/diff_screenshot.sh
# bench/diff_bench.sh: scorch diff against two reports and perf diff
diff-bench: $(B)/scorch $(DIFF_WL)/base/diff_work $(DIFF_WL)/new/diff_work
	bench/diff_bench.sh
