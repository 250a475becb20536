#!/bin/sh
# demo.sh: profile a small program and show what scorch reads from it.
set -e
cd "$(dirname "$0")/.."
mkdir -p build/demo
cat > build/demo/demo.c <<'C'
#include <stdio.h>
static volatile double sink;
__attribute__((noinline)) static void compute(int n) { for (int i = 0; i < n; i++) sink += i * 0.5; }
__attribute__((noinline)) static void parse(int n) { compute(n); }
__attribute__((noinline)) static void render(int n) { compute(n / 2); }
int main(void) { for (int k = 0; k < 2000; k++) { parse(200000); render(200000); } printf("%f\n", sink); return 0; }
C
cc -O1 -g -fno-omit-frame-pointer -o build/demo/demo build/demo/demo.c
perf record -q -e cpu-clock -g -o build/demo/perf.data build/demo/demo > /dev/null
build/scorch stats -i build/demo/perf.data | head -12
