// SPDX-License-Identifier: BSD-2-Clause
//
// go_pure — a Go program without cgo, for monrun's refusal
// (tests/integ/monrun_go.sh): built with CGO_ENABLED=0 it is statically
// linked; with -ldflags=-linkmode=external, dynamically, but its runtime
// still makes its threads and signal handlers with system calls of its
// own.  Prints a sum.
package main

import "fmt"

func main() {
	s := 0
	for i := 0; i < 1000000; i++ {
		s += i ^ (s >> 3)
	}
	fmt.Println(s)
}
