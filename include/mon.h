/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * <mon.h> — monprof's public interface.
 *
 * The classic Unix execution profiler, kept for Linux:
 *   profil(2)        the PC-sampling histogram (declared in <unistd.h>;
 *                    libmon exports its own, which replaces the C library's)
 *   monitor(3)       System V's interface: histogram plus call counts,
 *                    written to mon.out (see monitor.3 and mon.out.5)
 *   monstartup(3), moncontrol(3)   the BSD names
 * plus monprof's own queries of the runtime (mon_getstats and friends).
 *
 * Link with -lmon (pkg-config mon), or run an unmodified program under
 * monrun(1), which preloads libmon.so.
 */
#ifndef MON_H
#define MON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * profil — sample the program counter into a histogram (profil(2)).
 *
 * Follows the BSD profil(2) page, with the Reliant UNIX / Solaris pages
 * where they say more.  The prototype is the C library's (<unistd.h>).
 *
 * buf     array of 16-bit bins, bufsiz BYTES long (bufsiz/2 bins; an odd
 *         last byte is unused).  Must be 2-byte aligned and writable.
 * offset  lowest PC sampled (bytes, a virtual address).
 * scale   16.16 fixed-point fraction, 0..65536.  A sample at pc lands in
 *         bin ((pc - offset) / 2) * scale / 65536 (exact, no overflow for
 *         any 64-bit pc); samples with pc < offset or a bin >= bufsiz/2 are
 *         dropped and counted as dropped.  65536 and 0xffff: 2 bytes of
 *         text per bin; 0x8000: 4; 0x4000: 8 (System V's default);
 *         2: 65536.  0 or 1 turns profiling off.
 *
 * Each tick of the profiling clock (see mon_getstats and profil.3: a
 * per-thread CPU clock at MONPROF_RATE Hz, default 1000 Hz) adds one to the
 * bin of the interrupted PC of the thread that used the CPU.  Bins saturate
 * at 65535 (counted as saturated) instead of wrapping.  One call covers every
 * thread of the process; fork() keeps profiling on in parent and child (each
 * counts into its own copy); exec turns it off.  Calling profil() while on
 * moves sampling to the new buffer at once; when profil() returns, no tick
 * writes into the previous buffer any more.  If the buffer stops being
 * writable while on, profiling turns itself off.
 *
 * Returns 0, or -1 with errno:
 *   EINVAL  scale > 65536, or buf not 2-byte aligned;
 *   EFAULT  buf is NULL or not writable for bufsiz bytes (nothing changes);
 *   ENOTSUP no profiling clock could be started (see MONPROF_CLOCK);
 *   EAGAIN  the kernel is out of timers or signals for now: try again;
 *   ENOMEM  the runtime could not allocate its thread table.
 * On any error the previous state is left as it was.
 */
int profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale);

/*
 * sprofil — profil() over several regions of text at once (sprofil.3),
 * glibc's interface (<sys/profil.h>, after IRIX 6.5's sprofil(2)); on
 * glibc that header is used, so both declare the same struct prof.
 *
 * profp    profcnt regions (profcnt >= 0), each:
 *   pr_base   its counters: pr_size BYTES of 16-bit counters (unsigned
 *             short, 2-byte aligned) or, with PROF_UINT, of 32-bit ones
 *             (unsigned int, 4-byte aligned); writable while profiling.
 *   pr_off    lowest PC of the region (bytes, a virtual address).
 *   pr_scale  16.16 fixed point, 2..0xffffffff: a sample at pc adds one
 *             to counter ((pc - pr_off) / W) * pr_scale / 65536, W = 2
 *             (PROF_USHORT) or 4 (PROF_UINT) bytes, while that is below
 *             pr_size / W; below 2 the region is left out.
 *   The region with pr_off 0 and pr_scale 2 is the overflow bin: its
 *   first counter counts the samples whose PC no other region covers.
 *   Where regions overlap, the one with the higher pr_off counts.
 * tvp      NULL, or gets the sampling period (1 / the profiling clock's
 *          rate: 1000 us at the default 1000 Hz; MONPROF_RATE,
 *          mon_setclock).
 * flags    PROF_USHORT (0) or PROF_UINT, optionally | PROF_FAST (no
 *          effect, as in glibc).
 * Counters saturate (65535 / 4294967295) instead of wrapping.  Sampling
 * covers every thread, like profil(); a call while sprofil() is on turns
 * it off, whatever its arguments (glibc's rule).
 *
 * Returns 0 (also when no region is left to sample into: nothing starts),
 * or -1 with errno:
 *   EINVAL  profcnt < 0, a flag other than PROF_UINT / PROF_FAST, a
 *           pr_scale above 0xffffffff, a pr_base not aligned for its
 *           counters, or an invalid MONPROF_* setting;
 *   EFAULT  profp NULL with profcnt > 0, or a region's counters NULL or
 *           not writable (nothing changes);
 *   ENOMEM  no memory for the region table;
 *   EBUSY   another thread started sprofil() during this call;
 *   ENOTSUP, EAGAIN  as for profil(): no clock could start.
 */
#if defined(__has_include)
#if __has_include(<sys/profil.h>)
#include <sys/profil.h>
#define MON_HAVE_SYS_PROFIL_H 1
#endif
#endif
#ifndef MON_HAVE_SYS_PROFIL_H
struct timeval;
struct prof {
	void *pr_base;			/* counters */
	size_t pr_size;			/* their size, bytes */
	size_t pr_off;			/* lowest PC */
	unsigned long int pr_scale;	/* 16.16 fixed point */
};
enum { PROF_USHORT = 0, PROF_UINT = 1 << 0, PROF_FAST = 1 << 1 };
#endif
int sprofil(struct prof *profp, int profcnt, struct timeval *tvp, unsigned int flags);

/* ---- monprof's runtime queries ------------------------------------------ */

/* The profiling clocks, in the order the runtime tries them.  These values
 * are stored in mon.out files (the RUN record's clock): append-only, a new
 * clock takes the next number and no number is ever reused or changed.
 * Their names: mon_clock_name (one table, format/clocks.h in the source). */
enum mon_clock {
	MON_CLOCK_NONE = 0,	/* nothing armed */
	MON_CLOCK_PERF = 1,	/* per-thread perf cpu-clock event, user CPU time */
	MON_CLOCK_THREAD = 2,	/* per-thread POSIX CPU-time timer, user+system */
	MON_CLOCK_ITIMER = 3	/* process ITIMER_PROF + SIGPROF, user+system */
};

/* Counters of the sampling runtime since the process started (or since
 * fork, in a child).  New fields go at the end only (see mon_getstats).  Ticks are counted in samples: a POSIX timer tick that
 * reports n overruns counts 1 + n. */
struct mon_stats {
	uint64_t samples;	/* ticks taken while profiling was on */
	uint64_t counted;	/* ticks added to a histogram bin */
	uint64_t dropped;	/* ticks whose PC fell outside the histogram */
	uint64_t saturated;	/* ticks lost to bins already at 65535 */
	uint64_t lost;		/* ticks not recorded: buffer changing or faulted, or
				 * not taken: CPU periods while the program held the
				 * itimer clock's SIGPROF (profil.3) */
	unsigned rate_hz;	/* rate asked of the clock, Hz (ticks per CPU-second) */
	int clock;		/* enum mon_clock in effect (NONE when off) */
	int on;			/* 1 while profil() profiling is on */
	unsigned threads;	/* threads whose clock is armed now */
	int faulted;		/* 1 if profiling turned itself off on a fault */
};

/*
 * mon_getstats — copy the runtime's counters into *st.
 *
 * st    the caller's struct mon_stats, size bytes long.
 * size  the caller's sizeof(struct mon_stats): pass sizeof *st.  Exactly
 *       min(size, sizeof(struct mon_stats)) bytes are written, the first
 *       ones of the struct as this library lays it out; if size is larger
 *       (a program built against a newer <mon.h>), the bytes past this
 *       library's struct, up to size, are set to 0.  Nothing is written
 *       past st + size.
 *
 * ABI: fields are only ever appended to struct mon_stats (never removed,
 * reordered or resized), so a program built against an older <mon.h> gets
 * the fields it knows and nothing past its struct; a field it does not
 * know reads 0 for a program newer than the library.  The same pattern as
 * libbpf's bpf_obj_get_info_by_fd(fd, info, &info_len).
 *
 * Returns 0, or -1 with errno EFAULT if st is NULL.  Async-signal-safe.
 */
int mon_getstats(struct mon_stats *st, size_t size);

/*
 * mon_clock_name — "perf-cpu-clock", "thread-cputime", "itimer-prof" or
 * "none" for an enum mon_clock; "unknown" for anything else.
 */
const char *mon_clock_name(int clock);

/* ---- monitor(3): System V's histogram plus call counts ------------------ */

/*
 * The System V <mon.h> names (monitor.3).  A monitor() buffer is bufsize
 * WORDs laid out as: one struct hdr, nfunc struct cnt call-count cells, then
 * the histogram (16-bit bins).  The cells are the first nfunc functions
 * called; their counts are brought up to date whenever the profile is
 * written (monitor(0, ...), exit, a snapshot); later functions are counted
 * too, in memory of libmon's own, and all of them go to the file.
 */
typedef unsigned short WORD;		/* a histogram bin */
#define MON_OUT "mon.out"		/* default output file */
#define MPROGS0 (150 * sizeof(WORD))	/* cells System V's cc -p asked for /2 */
#define MSCALE0 4			/* System V's default histogram divisor */

struct hdr {
	char *lpc;	/* lowest PC sampled (runtime address) */
	char *hpc;	/* first PC past the sampled range */
	size_t nfns;	/* number of struct cnt cells that follow */
};

struct cnt {
	char *fnpc;	/* address identifying the function (selfpc) */
	long mcnt;	/* calls counted (as of the last write) */
};

/* An address argument: a function (as System V declared it, int (*)()) or
 * any data address such as &etext.  Passed exactly like a pointer. */
#ifdef __cplusplus
typedef const void *mon_pc_t;
#else
typedef union {
	int (*mon_fn)(void);
	const void *mon_p;
} mon_pc_t __attribute__((transparent_union));
#endif

/*
 * monitor — profile [lowpc, highpc) into buffer and count calls (monitor.3,
 * after System V's monitor(3C)).
 *
 * buffer  bufsize WORDs (2 bytes each): struct hdr, nfunc struct cnt, then
 *         the histogram of the remaining WORDs.  Must stay valid and
 *         writable until profiling stops.
 * lowpc   lowest PC sampled; a value below the main program's text (the
 *         seed's (int (*)())2) means the start of the program's text, which
 *         on a position-independent executable lies wherever it was loaded.
 * highpc  first PC past the range (&etext: the end of the program's text).
 * The scale is histogram bytes / range bytes as a 16.16 fraction (capped
 * at 0xffff: 2 bytes of text per bin), as System V computed it.
 *
 * Calling monitor() again while profiling adds the new buffer's cells to
 * the call-count capacity and replaces (and restarts) the histogram.
 * monitor(0, 0, 0, 0, 0) (lowpc NULL) stops profiling and writes the file
 * (see PROFDIR in monitor.3: ./mon.out, PROFDIR/PID.mon.out, or none).
 *
 * Returns nothing; when nothing could start, errno says why:
 *   EINVAL  lowpc >= highpc (after the text adjustment), buffer NULL or
 *           not aligned like a pointer;
 *   ENOSPC  bufsize is too small for the header and nfunc cells plus at
 *           least one histogram bin;
 *   ECANCELED  PROFDIR is set and empty: profiling is disabled;
 *   errors of profil() (ENOTSUP, ENOMEM, EFAULT).
 * On success errno is left as it was.
 */
void monitor(mon_pc_t lowpc, mon_pc_t highpc, WORD *buffer, size_t bufsize, size_t nfunc);

/*
 * monstartup — the BSD interface: profile [lowpc, highpc) with a buffer
 * libmon allocates (one 16-bit bin per 4 bytes of text, per 8 bytes for
 * ranges over 64 MiB), counting calls; the file is written at exit
 * (PROFDIR/PID.mon.out form).  lowpc below the program text means its
 * start, as for monitor().  Returns 0, or -1 with errno EINVAL (lowpc >=
 * highpc), ENOMEM, ECANCELED (PROFDIR empty) or profil()'s errors.
 */
int monstartup(mon_pc_t lowpc, mon_pc_t highpc);

/*
 * moncontrol — pause (mode 0) or resume (mode != 0) PC sampling and call
 * counting, keeping what was gathered.  Returns the previous mode (1 on,
 * 0 off); -1 with errno EINVAL if profiling was never started.
 */
int moncontrol(int mode);

/*
 * mon_write — write the profile now (a snapshot: profiling goes on) to the
 * file monitor() would write at the end.  Returns 0, or -1 with errno from
 * open/write/rename (ENOENT if profiling was never started).
 */
int mon_write(void);

/*
 * mon_setclock — choose the profiling clock and its rate for the next start
 * of profiling in this process (monitor.3, "Rate and clock from code"),
 * from code rather than the environment before start-up.
 *
 * clock    enum mon_clock: MON_CLOCK_PERF, MON_CLOCK_THREAD or
 *          MON_CLOCK_ITIMER for that clock only (as MONPROF_CLOCK=perf,
 *          thread, itimer), MON_CLOCK_NONE (0) for the usual order (perf,
 *          then thread, then itimer).
 * rate_hz  samples per CPU-second, 1..20000 (as MONPROF_RATE; default
 *          1000).  Above 1000 Hz the perf clock's rate may still be
 *          lowered at start if a tick costs too much CPU (profil.3).
 *
 * The choice replaces MONPROF_CLOCK and MONPROF_RATE and takes effect the
 * next time the clocks start from off: profil() turning sampling on,
 * monitor(), monstartup(), moncontrol(1) after moncontrol(0).  Clocks
 * already running keep their rate (a mix of periods would skew the
 * profile); mon_getstats().rate_hz and .clock show what runs.  It holds
 * for this process image and its fork children, not for a program it
 * execs (that one reads its environment).  Not async-signal-safe.
 *
 * Returns 0, or -1 with errno EINVAL: clock is not one of enum mon_clock,
 * or rate_hz is 0 or above 20000 (nothing changes).
 */
int mon_setclock(int clock, unsigned rate_hz);

/*
 * mon_outname — the path the profile will be written to (recomputed for the
 * calling process's pid), or NULL if profiling never started or PROFDIR
 * disabled it.  The string stays valid until the next call.
 */
const char *mon_outname(void);

#ifdef __cplusplus
}
#endif
#endif /* MON_H */
