// SPDX-License-Identifier: BSD-2-Clause
//
// go_cgo — a Go program with cgo and goroutines, for monrun
// (tests/integ/monrun_go.sh).  Three goroutines each alternate Go code
// (goSpin, on the goroutine's own small stack) and C code (c_burn, on the
// thread's system stack) until os.Args[1] seconds of wall-clock time have
// passed; the program then returns from main, which Go's runtime ends with
// the exit_group system call itself.  Prints "rounds N".
package main

/*
static long c_burn(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	return s;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

//go:noinline
func goSpin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i ^ (s >> 3)
	}
	return s
}

func main() {
	secs := 2.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = v
		}
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var rounds int64
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := 0
			for time.Now().Before(end) {
				t += goSpin(2000000) + int(C.c_burn(2000000))
				atomic.AddInt64(&rounds, 1)
			}
			_ = t
		}()
	}
	wg.Wait()
	fmt.Println("rounds", atomic.LoadInt64(&rounds))
}
