// SPDX-License-Identifier: BSD-2-Clause
//
// go_cshared — a Go library built with -buildmode=c-shared, for a C
// program that loads it (go_cshared_host.c, tests/integ/monrun_go.sh).
// GoWork runs three goroutines of Go code (goSpin, on the goroutines'
// small stacks) for the given seconds of wall-clock time and returns the
// rounds they did.  Go's runtime here installs no handler of its own on
// the signals the program has not claimed: only what the library's own
// build ID note tells libmon keeps the ticks off the goroutine stacks.
package main

import "C"

import (
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

//export GoWork
func GoWork(secs C.double) C.long {
	end := time.Now().Add(time.Duration(float64(secs) * float64(time.Second)))
	var rounds int64
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				goSpin(2000000)
				atomic.AddInt64(&rounds, 1)
			}
		}()
	}
	wg.Wait()
	return C.long(atomic.LoadInt64(&rounds))
}

func main() {}
