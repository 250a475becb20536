// go_inline: sort.Ints inlined into a method (the Go compiler inlines it:
// a DW_TAG_inlined_subroutine whose abstract origin is the unit's
// DW_AT_inline subprogram "sort.Ints"); tests/e2e/peer_frames.sh.
package main

import (
	"fmt"
	"os"
	"sort"
)

type T struct{ v []int }

func (t *T) churn(seed int) int {
	for i := range t.v {
		seed = seed*1103515245 + 12345
		t.v[i] = (seed >> 8) & 0xffff
	}
	sort.Ints(t.v)
	return t.v[len(t.v)/2]
}

func main() {
	t := &T{v: make([]int, 4096)}
	s := 0
	for r := 0; r < 1500; r++ {
		s += t.churn(r)
	}
	fmt.Fprintln(os.Stderr, s)
}
