# offcpu.mk: the off-CPU test workload (tests/workloads/offcpu.c), built
# with frame pointers so -g stacks of the waits reach the thread functions.
all: $(B)/workloads/offcpu

$(B)/workloads/offcpu: tests/workloads/offcpu.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-omit-frame-pointer -pthread -o $@ $<
