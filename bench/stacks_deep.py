# SPDX-License-Identifier: BSD-2-Clause
# bench/stacks_deep.py — the deep interpreter of bench/stacks_depth.sh (issue 23, item 6).
# Deep C stacks in CPython 3.11: each level of recursion goes through a
# builtin (map, sorted's key, a class's __call__), so the interpreter's C
# frames nest as in real programs (callbacks, decorators, ORMs, parsers).
import sys
sys.setrecursionlimit(10000)

class Call:
    def __call__(self, n):
        return step(n)

call = Call()

def step(n):
    if n <= 0:
        s = 0
        for i in range(200):
            s += i * i
        return s
    k = n % 3
    if k == 0:
        return sum(map(step, [n - 1]))
    if k == 1:
        return sorted([n - 1], key=step)[0]
    return call(n - 1)

def run(rounds, levels):
    t = 0
    for r in range(rounds):
        t += step(r % levels)
    return t

# stacks_deep.py ROUNDS LEVELS: ROUNDS recursions of 0 .. LEVELS-1 levels,
# each level about 5 C frames of the interpreter (measured by the script).
print(run(int(sys.argv[1]) if len(sys.argv) > 1 else 20000,
          int(sys.argv[2]) if len(sys.argv) > 2 else 30))
