# stacks.s — the executable whose symbols the call-stack golden outputs
# name (tests/integ/prof_stacks.sh and the stacks cases of prof_golden.sh).
# Assembled and linked as golden.s is (as(1), ld(1), .text at 0x401000), so
# every address below is the same on every machine.  Offsets from 0x401000,
# each function 64 bytes of no-ops after _start's 16:
#   0x000 _start   0x010 main   0x050 hard   0x090 easy
#   0x0d0 work     0x110 rec    0x150 worker
	.text
	.globl	_start
	.type	_start, @function
_start:
	.fill	16, 1, 0x90
	.size	_start, 16

	.irp	fn, main, hard, easy, work, rec, worker
	.globl	\fn
	.type	\fn, @function
\fn:
	.fill	64, 1, 0x90
	.size	\fn, 64
	.endr

# A lock word for the wall-clock golden cases (prof_lib.inc's wall_inputs):
# a futex the WALL record names by its ELF address, which prof names by
# this data symbol.
	.data
	.globl	queue_lock
	.type	queue_lock, @object
queue_lock:
	.fill	40, 1, 0
	.size	queue_lock, 40
