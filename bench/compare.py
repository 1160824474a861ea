#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""bench/compare.py — read the profiles the four profilers write, put them in
one shape (function -> samples or seconds), and compare them.

The bench scripts run the programs; this file only reads what they left.
Every profiler names a function its own way: perf adds symbol versions
(pthread_mutex_lock@@GLIBC_2.2.5) and picks one of several aliases at one
address (__memmove_avx_unaligned_erms where prof says
__memcpy_avx_unaligned_erms), gprof and pprof print their own tables.  So a
function is identified by (object file, ELF address of its symbol) when the
object's symbol table can say, and by its name without version otherwise.

The distance between two profiles is the total variation distance over a set
of functions, each side renormalised to 100 % within the set, in percentage
points: TVD = 1/2 * sum |p_i - q_i|.  0 means the same shares, 100 means
disjoint.

Subcommands (each prints a table, and a last line "TVD <pp>"):
  perf-vs-prof PERF_DATA MON_OUT PROG [TOP]
      one execution sampled by perf and by monprof; the set is perf's TOP
      (default 15) user-space functions.
  truth TRUTH_FILE TOOL PROFILE PROG
      one tool's profile against the program's own measurement (lines
      "name cpu_ns" written by the truth workloads); TOOL is monprof, perf,
      gperftools or gprof.  Prints TVD, samples and samples per CPU-second.
"""
import math
import os
import re
import subprocess
import sys

BIN = os.environ.get("MONPROF_BIN", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "build", "bin"))


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def plain(name):
    """A symbol name without its version suffix (@@GLIBC_2.2.5, @GLIBC_2.2.5)."""
    return name.split("@", 1)[0]


def debug_file(path):
    """The separate debug file of an ELF object found by its GNU build ID, or None."""
    try:
        notes = run(["readelf", "-n", path])
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    m = re.search(r"Build ID:\s*([0-9a-f]+)", notes)
    if not m:
        return None
    bid = m.group(1)
    cand = "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:])
    return cand if os.path.exists(cand) else None


_symcache = {}


def symbols(path):
    """name (plain) -> ELF address, from .symtab, the debug file and .dynsym."""
    path = os.path.realpath(path)
    if path in _symcache:
        return _symcache[path]
    table = {}
    sources = [["nm", "-D", "--defined-only", path], ["nm", "--defined-only", path]]
    dbg = debug_file(path)
    if dbg:
        sources.append(["nm", "--defined-only", dbg])
    for argv in sources:
        try:
            out = subprocess.run(argv, capture_output=True, text=True).stdout
        except FileNotFoundError:
            continue
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TtWwiI":
                table.setdefault(plain(f[2]), int(f[0], 16))
    _symcache[path] = table
    return table


def key(obj, name, addr=None):
    """The identity of a function: (real path of its object, ELF address)."""
    if obj and obj.startswith("/") or (obj and os.path.exists(obj)):
        real = os.path.realpath(obj)
        if addr is None:
            addr = symbols(real).get(plain(name))
        if addr is not None:
            return (real, addr)
    return ("?", plain(name))


# ---- readers: each returns a list of (key, display name, weight) ----------

def read_prof(mon_out, prog):
    """monprof: prof's CSV (ticks per function, bins shared by proportion)."""
    out = run([os.path.join(BIN, "prof"), "-m", mon_out, "--format=csv", prog])
    rows = []
    for line in out.splitlines()[1:]:
        f = next(iter(__import__("csv").reader([line])))
        name, kind, obj, addr, ticks = f[0], f[1], f[2], f[3], float(f[7])
        if kind == "function":
            rows.append((key(obj, name, int(addr, 16)), name, ticks))
        else:
            rows.append((("?", name), name, ticks))
    return rows


PERF_LINE = re.compile(r"^\s*(\d+)\s+(\S+)\s+(?:0x[0-9a-f]+\s+\S\s+)?\[(.)\]\s+(.*\S)\s*$")


def read_perf(data, comm=None):
    """perf: samples per (object, symbol) from perf report; user space only."""
    argv = ["perf", "report", "-i", data, "--stdio", "-v", "--sort", "dso,sym",
            "-F", "sample,dso,sym"]
    if comm:
        argv += ["--comm", comm]
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = PERF_LINE.match(line)
        if not m or m.group(3) != ".":
            continue
        n, dso, name = int(m.group(1)), m.group(2), m.group(4)
        rows.append((key(dso, name), name, n))
    return rows


def read_pprof(prof_file, prog):
    """gperftools: the flat column of google-pprof --text."""
    out = subprocess.run(["google-pprof", "--text", "--nodecount=100000", prog, prof_file],
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 6 and f[1].endswith("%") and f[0].replace(".", "").isdigit():
            name = " ".join(f[5:])
            rows.append((key(prog, name), name, float(f[0])))
    return rows


def read_gprof(gmon, prog):
    """glibc -pg + gprof: self seconds of the flat profile."""
    out = run(["gprof", "-p", "-b", prog, gmon])
    rows = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and re.match(r"^\d+\.\d+$", f[0]) and re.match(r"^\d+\.\d+$", f[2]):
            name = f[-1]
            rows.append((key(prog, name), name, float(f[2])))
    return rows


def merge(rows):
    """Sum weights of rows with one key; keep the first display name."""
    w, names = {}, {}
    for k, n, x in rows:
        w[k] = w.get(k, 0.0) + x
        names.setdefault(k, n)
    return w, names


def tvd(keys, a, b):
    """Total variation distance in pp between a and b restricted to keys."""
    sa = sum(a.get(k, 0.0) for k in keys) or 1.0
    sb = sum(b.get(k, 0.0) for k in keys) or 1.0
    return 50.0 * sum(abs(a.get(k, 0.0) / sa - b.get(k, 0.0) / sb) for k in keys)


def perf_vs_prof(perf_data, mon_out, prog, top=15):
    pw, pn = merge(read_perf(perf_data, comm=os.path.basename(prog)))
    mw, mn = merge(read_prof(mon_out, prog))
    keys = sorted(pw, key=lambda k: -pw[k])[:top]
    sp = sum(pw[k] for k in keys)
    sm = sum(mw.get(k, 0.0) for k in keys)
    print("%-36s %8s %8s %8s %8s %7s" % ("function (perf's top %d)" % top, "perf", "monprof",
                                          "perf%", "monprof%", "diff"))
    for k in keys:
        p = 100.0 * pw[k] / sp
        m = 100.0 * mw.get(k, 0.0) / sm if sm else 0.0
        name = pn[k] if mn.get(k, pn[k]) == pn[k] else "%s=%s" % (pn[k], mn[k])
        print("%-36s %8d %8.0f %8.2f %8.2f %+7.2f" % (name[:36], pw[k], mw.get(k, 0.0), p, m, m - p))
    print("samples in user space: perf %d, monprof %.0f; in the set: perf %d, monprof %.0f" %
          (sum(pw.values()), sum(mw.values()), sp, sm))
    print("sampling noise alone would give a TVD of about %.2f pp (expected value)" %
          noise_tvd([pw[k] / sp for k in keys], sp, sm))
    print("TVD %.2f" % tvd(keys, pw, mw))


def noise_tvd(shares, n1, n2):
    """Expected TVD in pp between two independent samples of n1 and n2 draws
    from the same shares: each difference is nearly normal with variance
    p(1-p)(1/n1 + 1/n2), and E|X| = sigma * sqrt(2/pi)."""
    if n1 <= 0 or n2 <= 0:
        return float("nan")
    return 50.0 * sum(math.sqrt(2 / math.pi * p * (1 - p) * (1 / n1 + 1 / n2)) for p in shares)


def read_truth(path):
    """The truth file: function -> CPU ns, and the process's CPU ns."""
    t, proc = {}, 0.0
    for line in open(path):
        f = line.split()
        if len(f) != 2:
            continue
        if f[0] == "_process":
            proc = float(f[1])
        else:
            t[f[0]] = t.get(f[0], 0.0) + float(f[1])
    return t, proc


def total_samples(tool, profile, prog):
    """Every sample the tool took of the program (user and kernel)."""
    if tool == "monprof":
        err = subprocess.run([os.path.join(BIN, "prof"), "-s", "-m", profile, prog],
                             capture_output=True, text=True).stderr
        m = re.search(r"samples: (\d+) taken", err)
        return float(m.group(1)) if m else float("nan")
    if tool == "perf":
        out = subprocess.run(["perf", "report", "-i", profile, "--stdio", "--sort", "comm",
                              "-F", "sample,comm", "--comm", os.path.basename(prog)],
                             capture_output=True, text=True).stdout
        return float(sum(int(l.split()[0]) for l in out.splitlines()
                         if l.strip() and not l.startswith("#") and l.split()[0].isdigit()))
    if tool == "gperftools":
        out = subprocess.run(["google-pprof", "--text", prog, profile],
                             capture_output=True, text=True).stdout
        m = re.search(r"Total: (\d+) samples", out)
        return float(m.group(1)) if m else float("nan")
    out = run(["gprof", "-p", "-b", prog, profile])
    m = re.search(r"Each sample counts as ([0-9.]+) seconds", out)
    secs = sum(w for _, _, w in read_gprof(profile, prog))
    return secs / float(m.group(1)) if m else float("nan")


def truth(truth_file, tool, profile, prog):
    t, proc = read_truth(truth_file)
    rows = {"monprof": lambda: read_prof(profile, prog),
            "perf": lambda: read_perf(profile, comm=None),
            "gperftools": lambda: read_pprof(profile, prog),
            "gprof": lambda: read_gprof(profile, prog)}[tool]()
    w, names = merge(rows)
    byname = {}
    for k, x in w.items():
        byname[plain(names[k])] = byname.get(plain(names[k]), 0.0) + x
    keys = sorted(t)
    st = sum(t.values())
    sw = sum(byname.get(k, 0.0) for k in keys)
    for k in keys:
        print("%-12s truth %6.2f%%  %-10s %6.2f%%" % (k, 100 * t[k] / st, tool,
                                                  100 * byname.get(k, 0.0) / sw if sw else 0))
    n = total_samples(tool, profile, prog)
    print("samples %.0f" % n)
    print("rate %.1f" % (n / (proc / 1e9) if proc > 0 else float("nan")))
    print("TVD %.3f" % tvd(keys, t, byname))


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "perf-vs-prof" and len(sys.argv) in (5, 6):
        perf_vs_prof(sys.argv[2], sys.argv[3], sys.argv[4],
                     int(sys.argv[5]) if len(sys.argv) == 6 else 15)
    elif cmd == "truth" and len(sys.argv) == 6:
        truth(*sys.argv[2:6])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
