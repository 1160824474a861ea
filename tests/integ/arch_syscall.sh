#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The machine's reading of a signal's context at a system call
# (lib/arch/ARCH/arch.h: mon_arch_context_result, mon_arch_after_syscall),
# by which the itimer clock tells that its tick ended a call of the
# program's with EINTR (lib/clock.c itimer_cut), against what this kernel
# really gives a handler (tests/progs/arch_syscall_context.c; the aarch64
# build is checked the same way under qemu-user, tests/aarch64/qemu.sh):
#   arch_syscall_eintr       a read a signal ended (no SA_RESTART): the
#                            result -EINTR, the system call's instruction
#                            before the PC
#   arch_syscall_restart     a read the kernel restarts (SA_RESTART): the PC
#                            at the instruction, not taken for an ended call,
#                            and it reads the byte
#   arch_syscall_after_call  a loop of getppid calls: contexts just after the
#                            instruction, none taken for an ended call
#   arch_syscall_result_reg  -EINTR in the result register outside any call:
#                            none taken for an ended call
# Mutations (x86-64 and aarch64 under qemu alike): after_syscall always 1
# fails result_reg; the result always -EINTR fails after_call; SYSCALL's
# bytes reversed (0x0f05) fails eintr and after_call; the result from
# another register fails eintr.  Time limit: 30 s.
. "$(dirname "$0")/lib.sh"
arch=$($CC -dumpmachine 2>/dev/null | cut -d- -f1)
[ -f "$ROOT/lib/arch/$arch/arch.h" ] || arch=x86_64
# shellcheck disable=SC2086
$CC -O1 -g -D_GNU_SOURCE -I"$ROOT/include" -I"$ROOT/lib" -I"$ROOT/lib/arch/$arch" -I"$ROOT/format" \
	-o "$T/asc" "$ROOT/tests/progs/arch_syscall_context.c" -lpthread ||
	{ not_ok arch_syscall_build; exit 0; }
out=$(timeout 30 "$T/asc" arch_syscall 2>&1); rc=$?
printf '%s\n' "$out"
case $out in
*"ok arch_syscall_eintr"*"ok arch_syscall_restart"*"ok arch_syscall_after_call"*"ok arch_syscall_result_reg"*) ;;
*) not_ok arch_syscall_ran "exit $rc, not all four cases reported" ;;
esac
