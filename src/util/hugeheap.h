/*
 * hugeheap.h: run the analysis on a heap of transparent huge pages, by
 * starting the program once more with glibc's tunable set (hugeheap.c says
 * why and when not).
 */
#ifndef SCORCH_UTIL_HUGEHEAP_H
#define SCORCH_UTIL_HUGEHEAP_H

/* First thing in main, for the analysis commands: execv /proc/self/exe
 * with argv and GLIBC_TUNABLES plus glibc.malloc.hugetlb=1; in that second
 * start, put GLIBC_TUNABLES back as the user had it (so that programs run
 * from here see the user's environment). Returns when it does not start
 * again, or in the second start. */
void hugeheap_start(char **argv);

#endif
