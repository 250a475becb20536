# record.mk: the recorder's test workloads (tests/workloads/record_*.c),
# built with frame pointers so -g stacks are complete.
RECORD_WL_SRC := $(wildcard tests/workloads/record_*.c)
RECORD_WL_BIN := $(RECORD_WL_SRC:tests/workloads/%.c=$(B)/workloads/%)

all: $(RECORD_WL_BIN)

$(B)/workloads/record_%: tests/workloads/record_%.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -fno-omit-frame-pointer -pthread -o $@ $<
