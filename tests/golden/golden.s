# golden.s — the executable whose symbols the golden outputs name.
#
# Assembled and linked with as(1) and ld(1) alone (no compiler, no C
# library, .text placed at 0x401000), so that every function's address and
# size, and so every line of prof's report, is the same on every machine.
# The layout, offsets from 0x401000:
#   0x000  _start        global, 16 bytes
#   0x010  alpha         global, 64 bytes
#   0x050  beta          global, 48 bytes
#   0x080  gamma_local   local, 32 bytes
#   0x0a0  (no symbol)   32 bytes with an unwind (FDE) range: an "unwind" row
#   0x0c0  (no symbol)   32 bytes covered by nothing: a "gap" row
#   0x0e0  _ZN6golden4workEi   global, 64 bytes (golden::work(int), for -C)
#   0x120  omega         global, 32 bytes, never sampled (for -z)
	.text
	.globl	_start
	.type	_start, @function
_start:
	.fill	16, 1, 0x90
	.size	_start, 16

	.globl	alpha
	.type	alpha, @function
alpha:
	.fill	64, 1, 0x90
	.size	alpha, 64

	.globl	beta
	.type	beta, @function
beta:
	.fill	48, 1, 0x90
	.size	beta, 48

	.type	gamma_local, @function
gamma_local:
	.fill	32, 1, 0x90
	.size	gamma_local, 32

	.cfi_startproc
	.fill	32, 1, 0x90
	.cfi_endproc

	.fill	32, 1, 0x90

	.globl	_ZN6golden4workEi
	.type	_ZN6golden4workEi, @function
_ZN6golden4workEi:
	.fill	64, 1, 0x90
	.size	_ZN6golden4workEi, 64

	.globl	omega
	.type	omega, @function
omega:
	.fill	32, 1, 0x90
	.size	omega, 32

	.section .note.GNU-stack,"",@progbits
