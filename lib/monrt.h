/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrt.h — private interfaces of libmon's monitor(3) layer, the part that
 * sits on top of the profil(2) core (runtime.h):
 *   mcount.c    call counting: mcount (gcc -pg), __fentry__ (-mfentry),
 *               __cyg_profile_func_enter (-finstrument-functions), the
 *               lock-free arc and function tables, __monstartup/_mcleanup
 *   monitor.c   monitor(), monstartup(), moncontrol(): buffers, histogram,
 *               state; assembling a profile for the writer
 *   monfile.c   where the profile goes (PROFDIR) and writing it safely
 *               (temporary name, rename, one line on failure)
 *   fatal.c     writing on abort(), fatal signals and the snapshot signal
 * Nothing here is exported.
 */
#ifndef MON_MONRT_H
#define MON_MONRT_H

#include <stddef.h>
#include <stdint.h>

#include "mon.h"
#include "monout.h"
#include "runtime.h"

/* ---- mcount.c ---------------------------------------------------------- */

/* 1 while calls are being counted (between start and stop, not paused by
 * moncontrol(0)).  Read by the counting fast path without a lock. */
MON_HIDDEN extern int mon_counting;

/* Count one call of the function identified by selfpc from the call site
 * whose return address is frompc.  Async-signal-safe, lock-free, exact
 * under concurrency; uses general registers only (mcount's contract). */
MON_HIDDEN void mon_count(uintptr_t frompc, uintptr_t selfpc);

/* The compiler's start-up and exit hooks (gcrt1.o). */
void __monstartup(unsigned long lowpc, unsigned long highpc);
void _mcleanup(void);

/* Map the first tables (once).  0, or -1/ENOMEM. */
MON_HIDDEN int mon_count_init(void);

/* Give the next n functions (in order of their first call) the cells
 * cells[0..n) of a monitor() buffer.  0, or -1/ENOSPC if too many blocks. */
MON_HIDDEN int mon_count_add_block(struct cnt *cells, size_t n);

/* Zero every count, and the interval cut's readings (in a fork child:
 * its profile, its first interval, holds its own calls). */
MON_HIDDEN void mon_count_reset(void);
/* A new run after monitor(0) (monitor.3): the callers' cell blocks are
 * forgotten (left as they are: they are the program's), the arcs zeroed.
 * Counting must be off (mon_counting 0). */
MON_HIDDEN void mon_count_restart(void);

/* Add up each function's calls from its arcs, into the function table
 * and the monitor() buffer cells.  Async-signal-safe; one caller at a time
 * (the writer's lock). */
MON_HIDDEN void mon_count_sync(void);

/* Interval profiles (mcount.c): the arrays an interval's cut reads the
 * counts into, for every arc table mapped so far.  Not in a signal
 * handler (mon_alloc).  0, or -1/ENOMEM (the tables without them are read
 * by a later cut: see mon_count_cut). */
MON_HIDDEN int mon_count_part_prepare(void);
/* An interval's cut: mon_count_sync, then each arc cell's count read
 * once; until mon_count_cut_end, the function table and mon_count_put
 * hold the calls since the last advancing cut.  advance 1: the series
 * goes on (mon_count_cut_end(1) makes this reading the next base), 0: the
 * last interval.  Async-signal-safe; one caller at a time (the writer's
 * lock). */
MON_HIDDEN void mon_count_cut(int advance);
MON_HIDDEN void mon_count_cut_end(int advance);

/* Write the CALLS and ARCS records (after mon_count_sync or
 * mon_count_cut). */
MON_HIDDEN int mon_count_put(struct monout_writer *w);

/* Calls that could not be counted (no memory for a new arc). */
MON_HIDDEN uint64_t mon_count_lost(void);

/* 1 once a call wanted more arc cells than MONPROF_ARCS allows (counting
 * then stopped for good, and the profile is not to be written), else 0;
 * *limit is the limit (0: none).  Async-signal-safe. */
MON_HIDDEN int mon_count_overflowed(uint64_t *limit);

/* ---- monitor.c --------------------------------------------------------- */

#define MON_MODE_EXPLICIT 0	/* monitor()/monstartup(): PROFDIR/PID.mon.out */
#define MON_MODE_AUTO 1		/* cc -pg / -finstrument-functions: PID.progname */

/* Start whole-program profiling with default parameters, as the compiler's
 * instrumentation asks (once; later calls do nothing). */
MON_HIDDEN void mon_auto_start(uintptr_t lowpc, uintptr_t highpc);

/* Start whole-process profiling (monrun's preload, lib/autostart.c):
 * every loaded object sampled, counting on, written at exit.  follow: fork
 * children go on profiling into files of their own (else they stop). */
MON_HIDDEN void mon_whole_start(int follow);

/* Stop (profil off, counting off) and write the profile, once. */
MON_HIDDEN void mon_finish(int reason);

/* Write the profile now.  Async-signal-safe when called from a handler
 * (then it uses only what was prepared earlier).  reason MONOUT_WHY_*,
 * signo the signal or 0, flags MONOUT_F_*.  0 or -1/errno; EBUSY if
 * another write is in progress. */
MON_HIDDEN int mon_write_profile(int reason, int signo, uint32_t flags, int in_handler);

/* Wait (at most about two seconds) until no other thread is writing the
 * profile: a fatal signal must not end the process half way through a
 * write made by another thread (at _exit, say).  Async-signal-safe. */
MON_HIDDEN void mon_write_wait(void);

/* 1 once profiling has been started in this process image. */
MON_HIDDEN int mon_started(void);

/* The process ends without atexit handlers (_exit, _Exit, quick_exit):
 * stop counting and write the profile, once.  Async-signal-safe.  Writes
 * nothing in a vfork child, nor in a fork child that took no sample. */
MON_HIDDEN void mon_write_at_exit(void);

/* One interval's file (control.c): its name, its INTERVAL record, its
 * start (CLOCK_MONOTONIC ns); advance 1 when the run goes on (the bins'
 * counts are taken, leaving zero, the stacks move to a fresh table and
 * the counters' base moves: the next file holds only what follows), 0 for
 * the last interval (the process ends or execs).  bytes: the file's size
 * once written. */
struct mon_interval_cut {
	const char *name;
	struct monout_interval rec;	/* samples_total is filled in by the write */
	uint64_t since_ns;
	uint64_t until_ns;	/* the cut (CLOCK_MONOTONIC): the interval's end */
	int advance;
	uint64_t bytes;
	int quiet;		/* a failed write says nothing on stderr */
	int taken;		/* set by the write: the interval's counts were taken (a
				 * failed write lost them) */
};
/* Write that interval's profile (writer's lock as mon_write_profile;
 * reason MONOUT_WHY_*).  advance must be 0 in a signal handler.  0 or
 * -1/errno (EBUSY: another write held the lock about two seconds). */
MON_HIDDEN int mon_write_interval(struct mon_interval_cut *cut, int reason, int signo,
				  int in_handler);
/* Nothing was sampled since the last interval (profiling was off): drop
 * what the histograms and stacks hold (a tick of the moment of switching)
 * and move the counters' and threads' base to now, writing nothing, so
 * that the next interval holds neither that time's CPU nor its ticks.
 * Not from a signal handler.  0 or -1/errno (EBUSY). */
MON_HIDDEN int mon_interval_skip(void);
/* 1 when the interval in progress holds nothing: it began with profiling
 * off (moncontrol(0), monctl off, a dormant start), stayed off, and no
 * tick was counted; its file is then not written (an interval series'
 * last, or one due while off).  Async-signal-safe. */
MON_HIDDEN int mon_interval_idle(void);
/* 0 not profiling (not started, or finished), 1 sampling, 2 paused
 * (moncontrol(0), monctl off, a dormant start not yet switched on). */
MON_HIDDEN int mon_profiling_state(void);
/* 1 if this image was started dormant (MONPROF_DORMANT=1) and never
 * switched on. */
MON_HIDDEN int mon_dormant(void);

/* What monitor.c calls in control.c (set by control.c's constructor; NULL
 * when it is not linked): starting() when whole-process profiling is set
 * up in this image, before its clocks start (the watcher; in a followed
 * fork child, forgetting the parent's thread), started() after it once
 * they have (also in a followed fork child: its own thread);
 * intervals() 1 while writes are interval files, and then write_last
 * writes every profile instead of mon_write_profile (reason, signo,
 * flags, in_handler as there: an interval cut short, or the last);
 * exec_failed() when an exec that wrote the last interval returned. */
struct mon_control_calls {
	void (*configure)(void);	/* read the settings (at setup, through mon_env) */
	void (*starting)(void);
	void (*started)(void);
	int (*intervals)(void);
	int (*write_last)(int reason, int signo, uint32_t flags, int in_handler);
	void (*exec_failed)(void);
	void (*wrote)(void);	/* the last profile was written (or none is due) */
};
MON_HIDDEN extern struct mon_control_calls mon_control_calls;

/* ---- monfile.c --------------------------------------------------------- */

/* The name decision an image started by a followed exec goes on with
 * (follow.c's mon_follow_inherited). */
struct mon_file_inherited {
	pid_t root;		/* the process owning the plain name */
	const char *dir;	/* the directory decided */
	int with_pid;		/* 1 for the PROFDIR form */
};
/* Decide the output name from PROFDIR (once per process image), or go on
 * with inherited (NULL: this image was not started by a followed exec).
 * mode MON_MODE_*.  0, or -1 with errno ECANCELED (PROFDIR set and empty:
 * no profiling) or ENOMEM. */
MON_HIDDEN int mon_file_setup(int mode, const struct mon_file_inherited *inherited);

/* Name of the file for the calling process (pid-dependent); NULL before
 * setup or when disabled.  Async-signal-safe (fills a buffer made at
 * setup). */
MON_HIDDEN const char *mon_file_name(void);

/* Write a profile: open a temporary file beside the target, let fill()
 * write the records, then rename it into place.  On failure one line on
 * stderr says so and why (unless quiet), and -1/errno is returned.
 * Async-signal-safe. */
MON_HIDDEN int mon_file_write(uint32_t flags, int (*fill)(struct monout_writer *, void *),
			      void *arg, int quiet);

/* mon_file_write to name (not mon_file_name's); *bytes (when not NULL)
 * the file's size once written.  Async-signal-safe. */
MON_HIDDEN int mon_file_write_as(const char *name, uint32_t flags,
				 int (*fill)(struct monout_writer *, void *), void *arg, int quiet,
				 uint64_t *bytes);
/* The name of interval seq (>= 1) that started at start_sec (seconds
 * since the Epoch), per the rule at the top of monfile.c, with ".execN"
 * after it when exec_no N > 0 (the file an exec cut writes: the new
 * image's series, starting at 1 in the same second, must not take its
 * name), formatted in
 * buf[0..cap) (cap at least mon_file_name_room() bytes); buf, or NULL
 * before setup or when cap is short.  Async-signal-safe. */
MON_HIDDEN const char *mon_file_interval_name(char *buf, size_t cap, uint64_t seq,
					      uint64_t start_sec, int exec_no);
/* N while this image is about to exec its follower (the file it writes
 * then is NAME.execN; an interval's name ends in .execN when the caller
 * passes it as exec_no), else 0. */
MON_HIDDEN int mon_file_exec_suffix(void);
/* The name of the last profile this image wrote (any form), or NULL before
 * the first.  Async-signal-safe. */
MON_HIDDEN const char *mon_file_last_written(void);
/* The bytes a name buffer needs (0 before setup). */
MON_HIDDEN size_t mon_file_name_room(void);
/* The program's name (argv[0]'s last part) as this image started, kept by
 * the first mon_file_setup: never the title a server writes over argv[0]
 * later.  "?" before setup or when the C library had none. */
MON_HIDDEN const char *mon_file_program(void);
/* Remove a file this process wrote (a name from mon_file_interval_name),
 * relative to the held directory.  0 or -1/errno of unlinkat(2).
 * Async-signal-safe. */
MON_HIDDEN int mon_file_remove(const char *name);

/* What was decided: the directory (absolute, no trailing slash), 1 for
 * the PROFDIR form (PID.name), the -o file (absolute) or NULL. */
MON_HIDDEN void mon_file_decision(const char **dir, int *with_pid, const char **out);

/* n > 0: this image is about to exec another; its file name gets ".execN"
 * (follow.c).  0: the usual name again (the exec failed). */
MON_HIDDEN void mon_file_set_exec_suffix(int n);

/* ---- follow.c: exec is followed in whole-process mode ------------------- */

/* Gather what a followed exec needs (libmon.so's path, the settings, the
 * state inherited through MONPROF_EXEC).  Once per image, before
 * mon_file_setup. */
MON_HIDDEN void mon_follow_setup(void);

/* 1 if this image was started by a followed exec: *root the process
 * owning the plain name, *dir and *with_pid the name decision. */
MON_HIDDEN int mon_follow_inherited(pid_t *root, const char **dir, int *with_pid);

/* 1 if libmon is a shared object we can preload into a new image. */
MON_HIDDEN int mon_follow_possible(void);

/* This image's number in its process (1 for the first). */
MON_HIDDEN int mon_follow_image_no(void);

/* In a fork child: the chain of images starts again. */
MON_HIDDEN void mon_follow_fork_child(void);

/* This image is about to exec path; file is the profile it wrote (NULL or
 * "" if none).  mon_follow_failed: the exec failed; the file is removed
 * (the image goes on, and its profile at the end holds it all) unless
 * keep_file (an interval's file: its counts were taken, the series goes
 * on from it). */
MON_HIDDEN void mon_follow_ending(const char *path, const char *file);
/* Before an exec of path (how, fd: runtime.h's MON_EXEC_*): look at the
 * file for what keeps the loader from preloading libmon into it
 * (runfacts.c mon_facts_next_image: FACTS say it).  Opens it for a moment (O_NONBLOCK); not in a
 * vfork child. */
MON_HIDDEN void mon_follow_looks_at(const char *path, int how, int fd);
MON_HIDDEN void mon_follow_failed(int keep_file);

/* Write the IMAGES record when the process ran or is about to run more
 * than one image.  Async-signal-safe. */
MON_HIDDEN int mon_follow_put(struct monout_writer *w);

/* The environment for the new image: bytes of stack needed (0: nothing to
 * add), then build it in buf[0..size): the program's envp without our
 * variables, plus ours.  Async-signal-safe, allocates nothing (vfork).
 * kind: MON_FOLLOW_EXEC (this process execs), MON_FOLLOW_VFORK (a vfork
 * child of it does: the memory is the parent's), MON_FOLLOW_SPAWN (for a
 * posix_spawn child: its pid is not known yet).  follow_forks: whether
 * the new image profiles its own fork children. */
#define MON_FOLLOW_EXEC 0
#define MON_FOLLOW_VFORK 1
#define MON_FOLLOW_SPAWN 2
MON_HIDDEN size_t mon_follow_env_size(char *const envp[], int kind, int follow_forks);
MON_HIDDEN char **mon_follow_env_build(char *const envp[], int kind, int follow_forks, void *buf,
				       size_t size);

/* ---- fatal.c ----------------------------------------------------------- */

/* What the handlers call (monitor.c's): started() 1 while a profile is
 * being taken; write_profile(reason, signo, flags, in_handler) writes it
 * (async-signal-safe); write_wait() waits for a write in another thread;
 * write_at_exit() writes it at an exit that skips atexit(3). */
struct mon_fatal_calls {
	int (*started)(void);
	int (*write_profile)(int reason, int signo, uint32_t flags, int in_handler);
	void (*write_wait)(void);
	void (*write_at_exit)(void);
};
/* Install the fatal-signal and snapshot handlers (where the program's
 * disposition is the default) and the quick_exit(3) handler, which call
 * calls (kept: static storage).  Once per process image; sigaction(2)
 * calls are routed through mon_fatal_sigaction from then on
 * (mon_sig_route, sigguard.c). */
MON_HIDDEN void mon_fatal_install(const struct mon_fatal_calls *calls);

/* 1 if sig is one of the signals whose default action ends the process
 * and that fatal.c catches (see its head comment). */
MON_HIDDEN int mon_fatal_signal_ok(int sig);

/* For a sigaction(2) interposer (chainable: another interposer may call
 * these).  mon_fatal_owns(sig): 1 if fatal.c keeps a handler of its own on
 * sig in place of the program's SIG_DFL (then route the call through
 * mon_fatal_sigaction).  mon_fatal_sigaction: sigaction(2) with the same
 * arguments, return value and errno, as the program must see it: a new
 * SIG_DFL installs our handler instead, the old action reported is the one
 * the program set.  For signals not owned it is the C library's sigaction.
 * Async-signal-safe. */
MON_HIDDEN int mon_fatal_owns(int sig);
/* 1, with the action in *sa, if fatal.c's handler is the kernel's action
 * for sig now (it stands in for the program's SIG_DFL): its flags, and
 * the tick signals hidden now (mon_sig_add_hidden) in its mask; else 0.
 * So sigguard.c can give it a changed mask without asking the kernel
 * first.  Async-signal-safe. */
MON_HIDDEN int mon_fatal_action(int sig, struct sigaction *sa);
MON_HIDDEN int mon_fatal_sigaction(int sig, const struct sigaction *act,
				   struct sigaction *oldact);

#endif /* MON_MONRT_H */
