/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monout.h — the mon.out file: its layout, an in-memory model of a profile,
 * and the one writer and the one reader of it.  docs/mon.out.5 is the
 * manual page.  Three files implement it:
 *   format/monout_write.c  the writer, async-signal-safe; linked into libmon
 *                          (the runtime) and into the tools and tests
 *   format/monout_read.c   the reader (allocates, formats, sorts); the tools
 *                          and tests only: libmon links no reader code
 *   format/crc32.c         the records' checksum, used by both
 * The bin formula of HIST records is format/bins.h's.
 *
 * Why a new format: the System V mon.out (System V's monitor(3C) manual
 * page; the illumos sources usr/src/head/mon.h and
 * usr/src/lib/libc/port/gen/mon.c) and the BSD gmon.out are
 * native-endian and undocumented, have one histogram range, 16-bit bins,
 * no profiling rate and no way to find the program's symbols again once a
 * position-independent executable or a shared library was loaded at an
 * address chosen at run time.  This one records all of that.
 *
 * Layout, version 1.  Every integer is unsigned, in the byte order named by
 * the header's byte-order byte (the writer uses the profiled process's own;
 * the reader accepts both).  Addresses are always stored in 64 bits; the
 * header's address size says how wide they were in the profiled process.
 * Addresses are RUNTIME virtual addresses; subtract an object's load bias to
 * get the ELF symbol value (st_value) of a position-independent object.
 *
 *   File header, 64 bytes, at offset 0:
 *     0  u8[8] magic        "\177MON.OUT"
 *     8  u16   version      MONOUT_VERSION (1); readers reject any other
 *    10  u8    byte order   1 = little-endian, 2 = big-endian
 *    11  u8    address size 4 or 8 (bytes of a pointer in the process)
 *    12  u32   header size  64
 *    16  u64   file size    total bytes, header included
 *    24  u32   records      number of records that follow
 *    28  u32   flags        MONOUT_F_* (why and how the file was written)
 *    32  u32   header CRC   CRC-32 (IEEE) of these 64 bytes with this field 0
 *    36  u32   minor        minor version (MONOUT_MINOR, 7): 1 added sparse
 *                           HIST records, 2 added FACTS, THREADS, PCS and
 *                           SYMS, 3 IMAGES, 4 STACKS, 5 WALL, 6 FILES, FORKS and INTERVAL, 7 SPAN; new
 *                           record types raise it
 *    40  u8[24] reserved, 0
 *
 *   Then `records` records, each starting at an 8-byte aligned offset:
 *     0  u32   type         MONOUT_REC_*; unknown types are skipped when
 *                           the minor version is above MONOUT_MINOR (a
 *                           newer writer), damage otherwise
 *     4  u32   CRC-32 of the payload
 *     8  u64   payload length in bytes (without the padding)
 *    16  payload, then 0..7 zero bytes of padding to an 8-byte boundary
 *
 *   RUN (1), exactly one, fixed part 112 bytes:
 *     0 pid u64, 8 ppid u64, 16 clock u32 (enum mon_clock), 20 rate u32 (Hz:
 *     ticks per CPU-second), 24 user CPU u64 (microseconds), 32 system CPU
 *     u64 (microseconds), 40 samples u64, 48 counted u64, 56 dropped u64,
 *     64 saturated u64, 72 lost u64 (ticks, as struct mon_stats), 80 calls
 *     lost u64 (calls not counted: no memory for a new arc), 88 time u64
 *     (seconds since the Epoch when written), 96 signal u32 (the fatal or
 *     snapshot signal, 0 if none), 100 reason u32 (MONOUT_WHY_*), 104 argc
 *     u32, 108 command-line length u32 (bytes), 112 the command line: argc
 *     strings, each ending in a NUL byte.
 *   OBJECT (2), one per loaded object, numbered 0, 1, ... in file order:
 *     0 load bias u64 (runtime address minus ELF address), 8 text low u64,
 *     16 text high u64 (runtime addresses, [low, high) of its executable
 *     segments), 24 flags u32 (MONOUT_OBJ_*), 28 build-ID length u32
 *     (bytes), 32 path length u32 (bytes, no NUL), 36 object set u32 (the
 *     runtime's object set in which this object was first seen loaded: 0
 *     for the objects loaded when profiling started, and in files written
 *     before this field existed), 40 build ID, then path.  Two objects
 *     may cover the same addresses when one was unloaded (dlclose) and the
 *     other loaded there later: a PC sampled in object set s belongs to the
 *     object covering it whose object set is the largest not above s.
 *   HIST (3), zero or more, one per sampled PC range:
 *     0 lowpc u64, 8 highpc u64 (range [lowpc, highpc)), 16 bins u64,
 *     24 scale u32 (profil(2)'s 16.16 fraction, 2..65536), 28 counter size
 *     u32 (bytes per bin in the file: 2, 4 or 8; not the bin width, the text
 *     a bin covers), 32 flags u32 (MONOUT_HIST_*),
 *     36 object u32 (index of the OBJECT it covers, or MONOUT_NO_OBJECT),
 *     40 the bins: `bins` counts of counter size bytes each or, with flag
 *     MONOUT_HIST_SPARSE, only the non-zero ones as n × {index u64, count
 *     u64}, n = (length - 40) / 16, index below `bins` and increasing,
 *     count non-zero (the other bins are zero; counter size then says how
 *     wide the bins were in memory).  A sample at pc is in bin
 *     ((pc - lowpc) / 2) * scale / 65536 (integer division, exact; format/bins.h):
 *     each bin covers 131072 / scale bytes of text (the bin width).  A bin
 *     counts samples; seconds = samples / rate.
 *   CALLS (4): n × {selfpc u64, count u64}, n = length / 16.  selfpc is the
 *     address that identifies the called function (the return address of
 *     its mcount call for -pg, the function's address for
 *     -finstrument-functions).  Several records may appear; a reader adds
 *     up counts of the same selfpc.
 *   ARCS (5): n × {frompc u64, selfpc u64, count u64}, n = length / 24.
 *     frompc is the return address in the caller.  Several records may
 *     appear; a reader adds up counts of the same (frompc, selfpc).
 *   FACTS (6, minor 2), at most one, 40 bytes: what the samples can be
 *     measured against.  0 elapsed u64 (microseconds of wall-clock time,
 *     CLOCK_MONOTONIC, from the start of profiling in this process — a fork
 *     child: from the fork — to the write), 8 asked rate u32 (Hz, as
 *     MONPROF_RATE or the default asked), 12 set rate u32 (Hz the clock ran
 *     at; below the asked one when the runtime lowered it, as RUN's rate),
 *     16 tick cost u32 (nanoseconds of CPU one tick cost, measured by the
 *     runtime when it checked the rate; 0: not measured), 20 flags u32
 *     (MONOUT_FACT_*), 24 threads not listed u32 (threads that ended
 *     the runtime's table could not list), 28 rate check u32 (microseconds
 *     of CPU the runtime spent on its own work in the program's threads
 *     after its start, not sampled: measuring the tick cost, taking in a
 *     dlopen's objects), 32 CPU
 *     before u64 (microseconds of the process's user + system CPU spent
 *     before profiling started: exec, dynamic linking, start-up, the
 *     runtime's own start; no clock ran then).
 *   THREADS (7, minor 2): n × 56 bytes, n = length / 56, one per thread of
 *     the process the runtime saw (sampled, ended, or alive at the write):
 *     0 tid u64, 8 user CPU u64, 16 system CPU u64 (microseconds, as the
 *     kernel counted them: at the thread's end, or at the write), 24
 *     samples u64 (ticks taken in that thread), 32 flags u32
 *     (MONOUT_THREAD_*), 36 late u32 (of the samples, those that came in
 *     ticks standing for more than 20 ms of the thread's CPU each: the
 *     thread clock's timer expired long before the kernel looked at it, so
 *     that time was charged where the thread was at the late tick; capped at
 *     2^32 - 1; 0 in files before 2026-12-05, whose field was reserved),
 *     40 name u8[16] (the thread's
 *     name, NUL-padded).
 *   PCS (8, minor 2): n × {pc u64, count u64}, n = length / 16: samples
 *     counted at PCs in no loaded object (anonymous executable memory: code
 *     a JIT generated).  Several records may appear; counts add up.
 *   SYMS (9, minor 2): function symbols the runtime saw in memory, for code
 *     no file describes: 0 object u32 (the OBJECT they belong to, e.g. the
 *     vDSO, or MONOUT_NO_OBJECT for anonymous memory: names from the
 *     program's /tmp/perf-PID.map), 4 reserved u32 0, then entries back to
 *     back: start u64 (runtime address), size u64 (bytes), name length u32,
 *     then the name (no NUL).
 *   IMAGES (10), at most one (minor 3), only when the process replaced its
 *     program by exec(2): the process's program images in the order they
 *     ran, n entries back to back, each {role u32 (MONOUT_IMAGE_*), path
 *     length u32, file length u32, reserved u32 0, path, file} (lengths in
 *     bytes, no NULs): path the image's executable, file the profile it
 *     wrote (empty if none).  Exactly one entry has role THIS: the image
 *     this file profiles.
 *   FORKS (16, minor 6), at most one, 8 bytes: 0 unfollowed u64 (times the
 *     process called fork(2) (the C library's fork, or clone without
 *     CLONE_VM) while profiled in whole-process mode without following its
 *     children, monrun without -f: children that wrote no profile; counted
 *     in the parent after each call, a failed one too).  Only when that
 *     count is not 0.
 *   SPAN (17, minor 7), at most one, 16 bytes: 0 start u64, 8 end u64
 *     (CLOCK_REALTIME, nanoseconds since the Epoch: when the profile this
 *     file holds began, and when it ended, which is when FACTS' elapsed
 *     time was read, so that end - start is that time; an interval file's
 *     are its interval's).  RUN's time, whole seconds read as the write
 *     began, is too coarse: readers place files on one time axis (a
 *     process tree, the runs of a directory) with SPAN when it is there.
 *   STACKS (11, minor 4), zero or more: sampled call stacks.  A reader
 *     adds up the counts of identical (object set, tid, flags, pcs).
 *
 *     STACKS (11, minor 4):
 *       fixed part, 32 bytes:
 *        0 max depth u32   (PCs the runtime kept per stack, MONPROF_STACK_DEPTH)
 *        4 object set u32  (the object set the entries' samples were taken in: see OBJECT; 0 in
 *                           files written before this field existed.  One record per object set)
 *        8 lost u64        (samples counted in the histograms whose stack the table had no room for)
 *       16 truncated u64   (samples whose walk ended early: the sum of counts of entries flagged TRUNCATED)
 *       24 reserved u64 0
 *       then entries back to back, each 24 + 8*depth bytes:
 *        0 count u64       (samples: the summed weights of the ticks that had this stack)
 *        8 tid u64         (the thread; names are in THREADS)
 *       16 depth u32       (1..max depth)
 *       20 flags u32       (MONOUT_STACK_TRUNCATED 1, MONOUT_STACK_JIT 2, MONOUT_STACK_DEPTH 4: as MON_STACK_*)
 *       24 pcs u64[depth]  leaf first; runtime addresses; pcs[0] the interrupted PC, the others an address
 *                          inside the instruction the frame was executing (return address - 1 for callers)
 *
 *   FILES (13, minor 6), at most one, after the OBJECT records it names:
 *     what tells the file of an object without a GNU build ID from a
 *     rebuilt one (prof compares it with the file it reads).  n × 32 bytes,
 *     n = length / 32:
 *        0 object u32      (index of its OBJECT record)
 *        4 flags u32       (MONOUT_FILE_STAT 1: size and mtime hold; MONOUT_FILE_TEXT 2: text CRC holds)
 *        8 size u64        (the file's st_size when the runtime first listed the object, bytes)
 *       16 mtime u64       (its st_mtim, nanoseconds since the Epoch)
 *       24 text CRC u32    (CRC-32 (IEEE, as the header's) of the bytes of its executable PT_LOAD
 *                          segments as loaded, p_filesz bytes each, in program-header order: the
 *                          code that ran)
 *       28 reserved u32 0
 *   WALL (12, minor 5), at most one: wall-clock samples of every thread
 *     (MONPROF_WALL, monrun --wall), taken by the runtime's wall sampler
 *     thread at `rate` Hz of wall-clock time whatever each thread's state.
 *     fixed part, 72 bytes:
 *        0 rate u32        (Hz of wall-clock time asked, MONPROF_WALL)
 *        4 max depth u32   (PCs kept per stack, 1..512)
 *        8 elapsed u64     (microseconds, CLOCK_MONOTONIC, from the sampler's start to the write)
 *       16 rounds u64      (rounds taken: each samples every thread once)
 *       24 missed u64      (rounds due in elapsed that were not taken: the sampler ran late)
 *       32 user u64        (microseconds of user CPU the sampler thread used: the profiler's own cost)
 *       40 system u64      (microseconds of system CPU the sampler thread used)
 *       48 flags u32       (MONOUT_WALL_F_*)
 *       52 threads not listed u32 (threads the sampler's table had no room for)
 *       56 lost u64        (samples taken but not recorded: the sample table was full)
 *       64 machine u32     (ELF e_machine of the profiled process, EM_X86_64 62, EM_AARCH64 183:
 *                          whose system call numbers SAMPLE's syscall are)
 *       68 reserved u32 0
 *     then entries back to back, each {kind u32, length u32 (bytes of the whole entry, this
 *     8-byte head included, a multiple of 8, at least 8)}; a reader skips a kind it does not know:
 *     THREAD (1), 80 bytes, one per thread sampled:
 *        8 tid u64
 *       16 expected u64    (samples due: rounds due, at start + k / rate, from first to last inclusive)
 *       24 taken u64       (samples taken whose state was read: the counts of its SAMPLE entries)
 *       32 unreadable u64  (rounds in which the thread existed but its state could not be read)
 *       40 first u64       (microseconds from the sampler's start to the thread's start, 0 if earlier)
 *       48 last u64        (microseconds from the sampler's start to the last round that saw it)
 *       56 flags u32       (MONOUT_WALL_THREAD_*)
 *       60 reserved u32 0
 *       64 name u8[16]     (NUL-padded)
 *     WAIT (3), 64 bytes + text: what blocked threads wait on, referred to by SAMPLE entries:
 *        8 id u32          (unique in the record)
 *       12 kind u32        (MONOUT_WAIT_FD, MONOUT_WAIT_FUTEX)
 *       16 fd u32          (the descriptor waited on; 0xffffffff none)
 *       20 fd kind u32     (MONOUT_FD_*)
 *       24 address u64     (futex: the lock word's runtime address; 0 otherwise)
 *       32 object u32      (the OBJECT whose mapping holds address, or MONOUT_NO_OBJECT)
 *       36 flags u32       (MONOUT_WAIT_*: OWNER owner is known, MUTEX, CONDVAR, JOIN)
 *       40 offset u64      (address minus that object's load bias: its ELF address; else address)
 *       48 owner u64       (futex of a glibc mutex: tid of the thread that held it; of a
 *                          pthread_join: the joined thread's tid; 0 unknown)
 *       56 text length u32 (bytes, no NUL)
 *       60 reserved u32 0
 *       64 text            (descriptor: /proc/self/fd/N's link, for a socket its family, type,
 *                          local and peer address, e.g. "tcp 127.0.0.1:8080 127.0.0.1:41234")
 *     SAMPLE (2), 48 + 8*depth bytes: samples of identical (tid, state, syscall, wait, stack):
 *        8 count u64       (samples, one per round)
 *       16 tid u64
 *       24 state u32       (MONOUT_WALL_*)
 *       28 syscall u32     (system call number the thread was blocked in, the kernel's numbering
 *                          for the file's machine; MONOUT_NO_SYSCALL when none or not known)
 *       32 wait u32        (id of a WAIT entry of this record, or MONOUT_NO_WAIT)
 *       36 depth u32       (PCs that follow, 0..max depth; 0: no stack, see below)
 *       40 flags u32       (MONOUT_STACK_*, as STACKS)
 *       44 object set u32  (the object set its PCs were taken in, as STACKS': see OBJECT; 0 in
 *                          files written before this field existed)
 *       48 pcs u64[depth]  leaf first, as STACKS (pcs[0] the PC where the thread blocked)
 *     A running or runnable thread's stack cannot be read without stopping
 *     it, so its samples have depth 0: they say how much of its wall time
 *     it ran (or waited for a CPU), and its CPU-clock STACKS say where.
 */
#ifndef MONOUT_H
#define MONOUT_H

#include <stddef.h>
#include <stdint.h>

#define MONOUT_MAGIC "\177MON.OUT"
#define MONOUT_MAGIC_LEN 8
#define MONOUT_VERSION 1
#define MONOUT_MINOR 7
#define MONOUT_HEADER_SIZE 64
#define MONOUT_REC_HEADER_SIZE 16

/* Byte order byte. */
#define MONOUT_LITTLE 1
#define MONOUT_BIG 2

/* Record types. */
#define MONOUT_REC_RUN 1
#define MONOUT_REC_OBJECT 2
#define MONOUT_REC_HIST 3
#define MONOUT_REC_CALLS 4
#define MONOUT_REC_ARCS 5
#define MONOUT_REC_FACTS 6
#define MONOUT_REC_THREADS 7
#define MONOUT_REC_PCS 8
#define MONOUT_REC_SYMS 9
#define MONOUT_REC_IMAGES 10
#define MONOUT_REC_STACKS 11
#define MONOUT_REC_WALL 12
#define MONOUT_REC_FILES 13
#define MONOUT_REC_FORKS 16	/* minor 6 */
#define MONOUT_FORKS_SIZE 8
#define MONOUT_REC_INTERVAL 14	/* minor 6: the file is one interval of a series */
#define MONOUT_REC_SPAN 17	/* minor 7: when the file's profile began and ended, in ns */

/* Fixed payload sizes. */
#define MONOUT_RUN_FIXED 112
#define MONOUT_OBJECT_FIXED 40
#define MONOUT_HIST_FIXED 40
#define MONOUT_CALL_SIZE 16
#define MONOUT_ARC_SIZE 24
#define MONOUT_FACTS_SIZE 40
#define MONOUT_THREAD_SIZE 56
#define MONOUT_PC_SIZE 16
#define MONOUT_SYMS_FIXED 8
#define MONOUT_SYM_FIXED 20
#define MONOUT_STACKS_FIXED 32
#define MONOUT_STACK_FIXED 24	/* an entry without its pcs */
#define MONOUT_WALL_FIXED 72
#define MONOUT_INTERVAL_SIZE 56
#define MONOUT_SPAN_SIZE 16
#define MONOUT_WALL_ENTRY_HEAD 8	/* kind u32, length u32 */
#define MONOUT_WALL_THREAD_SIZE 80
#define MONOUT_WALL_WAIT_FIXED 64	/* a WAIT entry without its text */
#define MONOUT_WALL_SAMPLE_FIXED 48	/* a SAMPLE entry without its pcs */
/* Longest WAIT text a reader takes (bytes). */
#define MONOUT_WAIT_TEXT_MAX 4096u

/* WALL entry kinds. */
#define MONOUT_WALL_THREAD 1
#define MONOUT_WALL_SAMPLE 2
#define MONOUT_WALL_WAIT 3

/* WALL SAMPLE states: what the thread was doing when the round read it
 * (its /proc/self/task/TID/stat state letter, R split in two). */
#define MONOUT_WALL_RUNNING 1	/* R, on a CPU */
#define MONOUT_WALL_RUNNABLE 2	/* R, waiting for a CPU (its run-queue wait grew) */
#define MONOUT_WALL_BLOCKED 3	/* S: interruptible sleep (a system call waiting) */
#define MONOUT_WALL_DISK 4	/* D: uninterruptible sleep (I/O, page fault) */
#define MONOUT_WALL_STOPPED 5	/* T or t: stopped by a signal or a tracer */
#define MONOUT_WALL_OTHER 6	/* any other letter (Z, X, P, I, ...) */
#define MONOUT_WALL_STATE_MAX 6
#define MONOUT_NO_SYSCALL 0xffffffffu
#define MONOUT_NO_WAIT 0xffffffffu
#define MONOUT_NO_FD 0xffffffffu

/* WALL fixed-part flags. */
#define MONOUT_WALL_F_THREADS_FULL 0x1	/* the thread table was full: threads_unlisted */
#define MONOUT_WALL_F_SAMPLES_FULL 0x2	/* the sample table was full: lost */
#define MONOUT_WALL_F_NO_SCHEDSTAT 0x4	/* no schedstat: R samples were all taken as running */
#define MONOUT_WALL_F_PAUSED 0x8	/* sampling was paused (moncontrol(0)) for part of the run */
#define MONOUT_WALL_F_NOT_DUMPABLE 0x10	/* the process was not dumpable: threads' system calls,
					 * waits and stacks could not be read, only their states */

/* WALL THREAD flags. */
#define MONOUT_WALL_THREAD_STARTED 0x1	/* started after the sampler did */
#define MONOUT_WALL_THREAD_ENDED 0x2	/* ended before the write */
#define MONOUT_WALL_THREAD_SAMPLER 0x4	/* the wall sampler's own thread (never sampled) */

/* WAIT kinds. */
#define MONOUT_WAIT_FD 1	/* a descriptor: read, write, recv*, send*, accept*, connect, poll, select, epoll_wait */
#define MONOUT_WAIT_FUTEX 2	/* a futex word: a mutex, condition variable, semaphore, join */
/* WAIT flags. */
#define MONOUT_WAIT_OWNER 0x1	/* owner holds the tid of the mutex's holder, or of the joined thread */
#define MONOUT_WAIT_MUTEX 0x2	/* the word is the lock of a glibc pthread_mutex_t */
#define MONOUT_WAIT_CONDVAR 0x4	/* the word lies in a glibc pthread_cond_t (a condition wait) */
#define MONOUT_WAIT_JOIN 0x8	/* the word is a thread's tid in its descriptor: pthread_join */
/* Descriptor kinds (WAIT fd kind). */
#define MONOUT_FD_UNKNOWN 0	/* closed, or its link could not be read */
#define MONOUT_FD_SOCKET 1
#define MONOUT_FD_PIPE 2
#define MONOUT_FD_FILE 3	/* a regular file or directory: text is its path */
#define MONOUT_FD_EVENTFD 4
#define MONOUT_FD_TIMERFD 5
#define MONOUT_FD_EPOLL 6
#define MONOUT_FD_SIGNALFD 7
#define MONOUT_FD_DEVICE 8	/* a character or block device, a terminal: text is its path */
#define MONOUT_FD_OTHER 9	/* another anonymous inode: text is the link */
#define MONOUT_FD_KIND_MAX 9

/* STACKS entry flags (the same bits as lib/unwind.h's MON_STACK_*). */
#define MONOUT_STACK_TRUNCATED 0x1u	/* the walk ended before the outermost frame */
#define MONOUT_STACK_JIT 0x2u	/* the walk reached code in no loaded object and stopped */
#define MONOUT_STACK_DEPTH 0x4u	/* the walk stopped at the depth limit */
/* Deepest stack a STACKS record may hold (MONPROF_STACK_DEPTH's maximum). */
#define MONOUT_STACK_MAX_DEPTH 512u

/* FACTS flags. */
#define MONOUT_FACT_SYSTEM 0x1	/* the clock counts system CPU (charged to the
				 * PC where the system call returns) */
#define MONOUT_FACT_USER_ONLY 0x2	/* the clock counted user CPU only: system
					 * time was not sampled (the kernel refused) */
#define MONOUT_FACT_RATE_LOWERED 0x4	/* the asked rate could not be held: the
					 * runtime lowered it to the set rate */
#define MONOUT_FACT_THREADS_FULL 0x8	/* more threads than the runtime's table:
					 * some are not listed */
#define MONOUT_FACT_CLOCK_TAKEN 0x10	/* the program installed its own SIGPROF
					 * handler while the itimer clock ran: the
					 * clock stopped there (profil(3)), and the
					 * CPU after it is counted in lost */
#define MONOUT_FACT_SIGQ_SHORT 0x20	/* the thread clock's timers would have taken
					 * more than a quarter of the program's
					 * pending-signal quota (RLIMIT_SIGPENDING):
					 * the itimer clock sampled instead from then
					 * on, or (under the perf clock) threads that
					 * needed a timer were not sampled */
#define MONOUT_FACT_CLOCKS_FULL 0x40	/* more threads alive at once than the
					 * per-thread clocks' table holds (4096):
					 * threads started then had no clock */
#define MONOUT_FACT_PROFILING_OFF 0x80	/* profiling was off for part of the file's
					 * span (moncontrol(0), monctl off, a dormant
					 * start): cpu_before_usec holds the process
					 * CPU meanwhile too; the threads' CPU (THREADS)
					 * does not leave it out */
#define MONOUT_FACT_CLOCK_CUT 0x100	/* the itimer clock stopped: its SIGPROF,
					 * given to a waiting thread while a thread
					 * that blocks every signal used the CPU,
					 * ended a system call with EINTR; the CPU
					 * after it is in unsampled_ticks */
#define MONOUT_FACT_NEXT_STATIC 0x200	/* the program this image exec'd (IMAGES'
					 * NEXT) is statically linked: no loader
					 * preloaded libmon into it, no profile */
#define MONOUT_FACT_NEXT_SETID 0x400	/* the program this image exec'd is
					 * set-user-ID or set-group-ID for this
					 * process: the loader ignored LD_PRELOAD,
					 * no profile */

/* THREADS flags. */
#define MONOUT_THREAD_ENDED 0x1	/* CPU counted when the thread ended */
#define MONOUT_THREAD_CPU 0x2	/* the CPU fields are known */
#define MONOUT_THREAD_NAME_LEN 16
#define MONOUT_IMAGE_FIXED 16

/* Header flags. */
#define MONOUT_F_SNAPSHOT 0x1	/* written while the program went on running */
#define MONOUT_F_SIGNAL 0x2	/* written from a fatal signal handler */
#define MONOUT_F_SUMMED 0x4	/* a sum of profiles (prof --output) */

/* RUN reason: why the file was written. */
#define MONOUT_WHY_EXIT 1	/* normal exit (atexit / _mcleanup) */
#define MONOUT_WHY_MONITOR 2	/* monitor(0, ...) */
#define MONOUT_WHY_SNAPSHOT 3	/* the snapshot signal */
#define MONOUT_WHY_SIGNAL 4	/* a fatal signal or abort() */
#define MONOUT_WHY_EXEC 5	/* the process was about to exec */
#define MONOUT_WHY_OTHER 6	/* a tool or test wrote it */
#define MONOUT_WHY_INTERVAL 7	/* an interval ended (monrun --interval) */

/* OBJECT flags. */
#define MONOUT_OBJ_MAIN 0x1	/* the main program */
#define MONOUT_OBJ_VDSO 0x2	/* the kernel's vDSO (no file) */

/* FILES entry flags (struct monout_object's file_flags). */
#define MONOUT_FILE_STAT 0x1	/* file_size and file_mtime_ns hold */
#define MONOUT_FILE_TEXT 0x2	/* text_crc holds */
#define MONOUT_FILE_ENTRY 32	/* bytes of a FILES entry */

/* IMAGES roles. */
#define MONOUT_IMAGE_EARLIER 0	/* ran before, in this process, and exec'd the next */
#define MONOUT_IMAGE_THIS 1	/* the image this file profiles */
#define MONOUT_IMAGE_NEXT 2	/* the image this one exec'd (profiled in a file of its own) */

/* HIST flags. */
#define MONOUT_HIST_SATURATES 0x1	/* bins stopped at their maximum (16-bit
					 * profil bins stop at 65535): a bin at
					 * 65535 may have lost ticks */
#define MONOUT_HIST_SPARSE 0x2	/* only the non-zero bins, as (index, count)
					 * pairs: a large text sampled in few places
					 * makes a small file */
#define MONOUT_NO_OBJECT 0xffffffffu
/* Readers refuse histograms of more bins than this (256 MiB of text at 4
 * bytes a bin): a sparse record's size does not bound its bin count. */
#define MONOUT_MAX_BINS ((uint64_t)1 << 26)

/* ---- the in-memory model ----------------------------------------------- */

struct monout_run {
	uint64_t pid, ppid;
	uint32_t clock;		/* enum mon_clock */
	uint32_t rate_hz;	/* ticks per CPU-second */
	uint64_t user_usec;	/* user CPU time, microseconds */
	uint64_t sys_usec;	/* system CPU time, microseconds */
	uint64_t samples, counted, dropped, saturated, lost;	/* ticks */
	uint64_t calls_lost;	/* calls not counted (arc memory exhausted) */
	uint64_t time;		/* seconds since the Epoch, when written */
	uint32_t signal;	/* signal number, 0 if none */
	uint32_t reason;	/* MONOUT_WHY_* */
	uint32_t argc;
	uint32_t cmdline_len;	/* bytes in cmdline */
	const char *cmdline;	/* argc NUL-terminated strings back to back */
};

struct monout_object {
	uint64_t load_bias;	/* runtime address - ELF address */
	uint64_t text_lo, text_hi;	/* runtime [lo, hi) of executable code */
	uint32_t flags;		/* MONOUT_OBJ_* */
	uint32_t build_id_len;	/* bytes */
	const uint8_t *build_id;
	uint32_t path_len;	/* bytes, no NUL (the reader adds one) */
	const char *path;
	uint32_t set;		/* object set it was first seen loaded in (0: at start) */
	/* Its FILES entry (minor 6; file_flags 0: none): the file's identity
	 * when it has no build ID. */
	uint32_t file_flags;	/* MONOUT_FILE_* */
	uint64_t file_size;	/* st_size, bytes */
	uint64_t file_mtime_ns;	/* st_mtim, nanoseconds since the Epoch */
	uint32_t text_crc;	/* CRC-32 of its executable segments' bytes */
};

struct monout_hist {
	uint64_t lowpc, highpc;	/* runtime addresses, [lowpc, highpc) */
	uint64_t nbins;
	uint32_t scale;		/* 16.16, 2..65536 */
	uint32_t bin_bytes;	/* counter size: bytes of a bin in the file, 2, 4 or 8 */
	uint32_t flags;		/* MONOUT_HIST_* */
	uint32_t object;	/* OBJECT index, or MONOUT_NO_OBJECT */
	/* Reader: nbins counts, widened to 64 bits (always set); with
	 * MONOUT_PARSE_SPARSE and a sparse record, nnz counts of the bins
	 * index[0..nnz).  Writer: used when raw is NULL (then written as
	 * bin_bytes wide). */
	uint64_t *counts;
	/* Writer only: nbins bins of bin_bytes each, native byte order (for
	 * instance a profil(2) buffer with bin_bytes 2).  Reader sets NULL. */
	const void *raw;
	/* Writer only, sparse histograms: when not NULL, a clear bit k (bit
	 * k % 64 of touched[k / 64]) says bins [k * touched_span, (k + 1) *
	 * touched_span) are all zero, so the writer does not even read them
	 * (most of a large text is never hit).  Reader sets NULL. */
	const uint64_t *touched;
	uint64_t touched_span;	/* bins per bit, > 0 when touched is set */
	/* Reader: see counts; NULL when dense.  Writer: when not NULL (and
	 * flags has MONOUT_HIST_SPARSE), the bins are the nnz pairs (index[k],
	 * counts[k]), index strictly increasing and below nbins: the writer's
	 * work is then proportional to nnz, not to nbins, so that a model the
	 * reader kept sparse is written back as it was read. */
	uint64_t *index;
	uint64_t nnz;		/* entries of index and counts */
};

struct monout_call {
	uint64_t selfpc;
	uint64_t count;
};

struct monout_arc {
	uint64_t frompc;
	uint64_t selfpc;
	uint64_t count;
};

struct monout_facts {
	uint64_t elapsed_usec;	/* wall-clock time of the profiled run */
	uint32_t rate_asked;	/* Hz asked */
	uint32_t rate_set;	/* Hz the clock ran at */
	uint32_t tick_cost_ns;	/* CPU a tick cost, 0 if not measured */
	uint32_t flags;		/* MONOUT_FACT_* */
	uint32_t threads_unlisted;	/* threads the table could not list */
	uint32_t check_usec;	/* CPU of the runtime's own work after its start: the
				 * rate check, a dlopen's objects (not sampled) */
	uint64_t cpu_before_usec;	/* process CPU not sampled by design: before
					 * profiling started, and while it was off
					 * (MONOUT_FACT_PROFILING_OFF) */
};

/* INTERVAL (14, minor 6): this file holds one interval of a series
 * (monrun --interval, MONPROF_INTERVAL): the samples, stacks and counters
 * of [start_ns, end_ns) only; the series' files add up to the whole run. */
struct monout_interval {
	uint64_t seq;		/* 1 for the first interval of the process, then 2, 3... */
	uint64_t start_ns;	/* CLOCK_REALTIME, nanoseconds since the Epoch */
	uint64_t end_ns;	/* the same clock: when the interval was cut */
	uint64_t samples_total;	/* samples of every interval so far, this one included */
	uint64_t runtime_cpu_usec;	/* CPU the runtime's control thread used so far */
	uint32_t period_ms;	/* the interval asked, milliseconds */
	uint32_t flags;		/* MONOUT_INTERVAL_* */
	uint32_t removed;	/* older files of the series removed so far (--keep, --max-bytes) */
	uint32_t cut_ticks;	/* ticks counted while the cut took the bins (see mon.out.5) */
};
#define MONOUT_INTERVAL_LAST 0x1	/* the last interval: the process ended or exec'd */
#define MONOUT_INTERVAL_SHORT 0x2	/* cut early (monctl snapshot, off) */
/* CALLS, ARCS and RUN's calls lost hold the calls made in the interval;
 * without it (files written before this flag) they hold the process's
 * calls so far (mon.out.5). */
#define MONOUT_INTERVAL_OWN_CALLS 0x4

/* SPAN (17, minor 7): the wall-clock instants the file's profile began
 * and ended, to the nanosecond: RUN's time is whole seconds, too coarse to
 * place a process tree's files on one time axis.  end_ns - start_ns is
 * FACTS' elapsed time (the end and that time are read at one instant). */
struct monout_span {
	uint64_t start_ns;	/* CLOCK_REALTIME, nanoseconds since the Epoch */
	uint64_t end_ns;	/* the same clock: when the file's profile ends */
};

struct monout_thread {
	uint64_t tid;
	uint64_t user_usec, sys_usec;	/* CPU as the kernel counted it */
	uint64_t samples;	/* ticks taken in the thread */
	uint32_t flags;		/* MONOUT_THREAD_* */
	char name[MONOUT_THREAD_NAME_LEN];	/* NUL-padded; the reader ends it with NUL */
	uint64_t late;		/* of samples, those of ticks of more than 20 ms each
				 * (written capped to 32 bits) */
};

struct monout_sym {		/* reader: one SYMS entry */
	uint32_t object;	/* OBJECT index, or MONOUT_NO_OBJECT */
	uint64_t start, size;	/* runtime address, bytes */
	char *name;		/* NUL-terminated */
};

struct monout_image {
	uint32_t role;		/* MONOUT_IMAGE_* */
	uint32_t path_len;	/* bytes, no NUL (the reader adds one) */
	const char *path;	/* the executable */
	uint32_t file_len;	/* bytes, no NUL (the reader adds one) */
	const char *file;	/* its profile, "" if none was written */
};

struct monout_wall_head {	/* WALL's fixed part */
	uint32_t rate_hz;	/* Hz of wall-clock time asked */
	uint32_t max_depth;	/* PCs kept per stack */
	uint64_t elapsed_usec;	/* from the sampler's start to the write */
	uint64_t rounds;	/* rounds taken */
	uint64_t missed;	/* rounds due that were not taken */
	uint64_t user_usec, sys_usec;	/* the sampler thread's own CPU */
	uint32_t flags;		/* MONOUT_WALL_F_* */
	uint32_t threads_unlisted;	/* threads the table had no room for */
	uint64_t lost;		/* samples taken, not recorded */
	uint32_t machine;	/* ELF e_machine: whose system call numbers */
};

struct monout_wall_thread {	/* one WALL THREAD entry */
	uint64_t tid;
	uint64_t expected;	/* samples due: time alive while sampled x rate */
	uint64_t taken;		/* samples whose state was read */
	uint64_t unreadable;	/* rounds whose read of its state failed */
	uint64_t first_usec;	/* start, from the sampler's start; 0 if before */
	uint64_t last_usec;	/* end, or the write, from the sampler's start */
	uint32_t flags;		/* MONOUT_WALL_THREAD_* */
	char name[MONOUT_THREAD_NAME_LEN];	/* NUL-padded; the reader ends it with NUL */
};

struct monout_wait {		/* one WALL WAIT entry */
	uint32_t id;		/* writer: unique in the record; reader: the index in m->waits */
	uint32_t kind;		/* MONOUT_WAIT_* */
	uint32_t fd;		/* descriptor, MONOUT_NO_FD if none */
	uint32_t fd_kind;	/* MONOUT_FD_* */
	uint64_t address;	/* futex word (runtime address), 0 if none */
	uint32_t object;	/* OBJECT index holding address, or MONOUT_NO_OBJECT */
	uint32_t flags;		/* MONOUT_WAIT_* */
	uint64_t offset;	/* address - the object's load bias (its ELF address) */
	uint64_t owner;		/* holder's tid (MONOUT_WAIT_OWNER), else 0 */
	uint32_t text_len;	/* bytes of text, no NUL (the reader adds one) */
	const char *text;	/* what the descriptor is ("pipe:[1234]", "tcp ...") */
};

struct monout_wall_sample {	/* one WALL SAMPLE entry */
	uint64_t count;		/* samples */
	uint64_t tid;
	uint32_t state;		/* MONOUT_WALL_RUNNING .. MONOUT_WALL_OTHER */
	uint32_t syscall;	/* system call number, MONOUT_NO_SYSCALL */
	uint32_t wait;		/* writer: a WAIT id; reader: an index in m->waits; or MONOUT_NO_WAIT */
	uint32_t depth;		/* PCs in pcs, 0..max depth */
	uint32_t flags;		/* MONOUT_STACK_* */
	uint64_t *pcs;		/* leaf first; NULL when depth is 0 */
	uint32_t set;		/* object set its PCs were taken in (OBJECT; 0 in older files) */
};

struct monout_stack {		/* one STACKS entry */
	uint64_t count;		/* samples that had this stack */
	uint64_t tid;		/* thread id (THREADS names it) */
	uint32_t depth;		/* PCs in pcs, 1..MONOUT_STACK_MAX_DEPTH */
	uint32_t flags;		/* MONOUT_STACK_* */
	uint64_t *pcs;		/* leaf first: pcs[0] the interrupted PC, the
				 * others inside the instruction each caller was
				 * executing (return address - 1) */
	uint32_t set;		/* object set of its samples (its record's; OBJECT) */
};

/* A whole profile.  The reader sorts and merges: calls by selfpc, arcs by
 * (selfpc, frompc), each key once; entries with a zero count or a zero
 * selfpc (an empty table cell, which the writer leaves out) are dropped. */
struct monout {
	uint16_t version;
	uint8_t byte_order;	/* MONOUT_LITTLE / MONOUT_BIG as found in the file */
	uint8_t addr_size;	/* 4 or 8 */
	uint32_t flags;		/* MONOUT_F_* */
	struct monout_run run;
	size_t nobjects;
	struct monout_object *objects;
	size_t nhists;
	struct monout_hist *hists;
	size_t ncalls;
	struct monout_call *calls;
	size_t narcs;
	struct monout_arc *arcs;
	int have_interval;	/* an INTERVAL record was read (minor 6) */
	struct monout_interval interval;
	int have_span;		/* a SPAN record was read (minor 7) */
	struct monout_span span;
	int have_facts;		/* a FACTS record was read (minor 2 and later) */
	struct monout_facts facts;
	int have_forks;		/* a FORKS record was read (minor 6), or is to be written */
	uint64_t forks_unfollowed;	/* its count: fork calls whose children were not profiled */
	size_t nthreads;
	struct monout_thread *threads;
	size_t npcs;		/* PCS entries, merged by pc and sorted */
	struct monout_call *pcs;	/* {pc, count} */
	size_t nsyms;
	struct monout_sym *syms;
	size_t nimages;		/* 0: the process ran one image (no IMAGES record) */
	struct monout_image *images;
	/* STACKS (minor 4).  have_stacks: at least one STACKS record was
	 * read (or is to be written by monout_write_fd).  The reader merges
	 * entries of identical (tid, flags, pcs), adding their counts, and
	 * sorts them by (tid, flags, depth, pcs); lost and truncated are the
	 * sums over the records, stack_max_depth the largest. */
	int have_stacks;
	uint32_t stack_max_depth;	/* PCs kept per stack at most */
	uint64_t stacks_lost;	/* samples whose stack the table had no room for */
	uint64_t stacks_truncated;	/* samples whose walk ended early */
	size_t nstacks;
	struct monout_stack *stacks;	/* each entry's pcs allocated by the reader */
	/* WALL (minor 5).  have_wall: a WALL record was read (or is to be
	 * written).  The reader sorts threads by tid (adding up entries of
	 * one tid), keeps each distinct wait once (samples' wait is then an
	 * index in waits), and merges samples of identical (tid, state,
	 * syscall, wait, flags, pcs), sorted in that order. */
	int have_wall;
	struct monout_wall_head wall;
	size_t nwall_threads;
	struct monout_wall_thread *wall_threads;
	size_t nwaits;
	struct monout_wait *waits;	/* each text allocated by the reader */
	size_t nwall_samples;
	struct monout_wall_sample *wall_samples;	/* pcs allocated by the reader */
};

/* ---- reading (monout_read.c) ------------------------------------------- */

/*
 * monout_parse — decode the mon.out image in buf[0..len) into *m.
 *
 * Allocates everything *m points to (free with monout_free); buf may be
 * freed afterwards.  Returns 0, or -1 with errno (EINVAL for a bad file,
 * ENOMEM) and a one-line English message in err[0..errlen) naming what is
 * wrong and where, e.g. "truncated: header says 4096 bytes, file has 1000",
 * "not a mon.out file (bad magic)", "version 2 not supported (this reader
 * reads version 1)", "record 3 (HIST) at offset 312: checksum mismatch".
 * Never crashes on any input.  *m is zeroed on failure.
 */
int monout_parse(const void *buf, size_t len, struct monout *m, char *err, size_t errlen);

/* monout_parse_opts — monout_parse with options.  MONOUT_PARSE_SPARSE:
 * a sparse HIST record stays sparse in memory (its index and counts hold
 * its nnz non-zero bins, in increasing bin order), so a reader's memory
 * grows with the bins a run touched, not with the text's size; dense
 * records are read as monout_parse reads them (index NULL). */
#define MONOUT_PARSE_SPARSE 1u
int monout_parse_opts(const void *buf, size_t len, struct monout *m, unsigned opts, char *err,
		      size_t errlen);

/*
 * monout_read_file — read and decode the file at path, as monout_parse.
 * An I/O error gives -1 with errno from the system call and a message
 * ("cannot open: No such file or directory").
 */
int monout_read_file(const char *path, struct monout *m, char *err, size_t errlen);
/* qsort(3) orders of struct monout_wall_sample (tid, state, syscall, wait,
 * flags, object set, depth, then the PCs) and struct monout_wall_thread
 * (tid), as the reader sorts and merges them: <0, 0, >0. */
int monout_wall_sample_cmp(const void *a, const void *b);
int monout_wall_thread_cmp(const void *a, const void *b);

/* monout_free — release what monout_parse allocated and zero *m. */
void monout_free(struct monout *m);

/* ---- writing (monout_write.c) ------------------------------------------ */

/*
 * The streaming writer.  Every function below is async-signal-safe: it
 * calls only write(2), pwrite(2), ftruncate(2) and memcpy/memset/strlen,
 * allocates nothing and takes no lock, so the runtime can write a profile from a fatal-signal handler
 * out of memory prepared in advance.  fd must be a regular file (lengths
 * and the header are patched in with pwrite) positioned at offset 0.
 *
 * Usage: monout_begin; any number of monout_put_*; monout_end.  Each put
 * returns 0, or -1 with errno from write(2) (EIO for a short write to a
 * full disk: ENOSPC); after an error the file is incomplete and the
 * following calls fail at once with the same errno.
 */
struct monout_writer {
	int fd;
	int error;		/* errno of the first failure, 0 if none */
	uint64_t offset;	/* bytes written so far */
	uint32_t records;
	uint32_t flags;		/* MONOUT_F_* for the header */
	uint64_t rec_start;	/* offset of the open record, UINT64_MAX if none */
	uint64_t rec_len;	/* payload bytes of the open record */
	uint32_t rec_crc;	/* running CRC of the open record */
	uint32_t rec_type;
	size_t fill;		/* bytes in chunk */
	unsigned char chunk[4096];
};

/* FORKS (16): unfollowed, the fork calls whose children were not
 * profiled.  0, or -1 with errno as the other monout_put_*.
 * Async-signal-safe. */
int monout_put_forks(struct monout_writer *w, uint64_t unfollowed);

int monout_begin(struct monout_writer *w, int fd, uint32_t flags);
int monout_put_run(struct monout_writer *w, const struct monout_run *r);
int monout_put_object(struct monout_writer *w, const struct monout_object *o);
/* h->raw (bin_bytes wide, native order) or h->counts (written bin_bytes
 * wide, clipped to its maximum).  With MONOUT_HIST_SPARSE in h->flags only
 * the non-zero bins are written, as (index, count) pairs; with h->index
 * too, those are its nnz pairs (a model the reader kept sparse).  -1 with
 * errno EINVAL: a bin width other than 2, 4 or 8, no counts, or index
 * without MONOUT_HIST_SPARSE, out of order or not below nbins. */
int monout_put_hist(struct monout_writer *w, const struct monout_hist *h);
/* Entries with selfpc == 0 or count == 0 are left out, so a sparse table
 * can be passed as it is.  Counts are read once each (atomically). */
int monout_put_calls(struct monout_writer *w, const struct monout_call *c, size_t n);
int monout_put_arcs(struct monout_writer *w, const struct monout_arc *a, size_t n);
/* ARCS of one interval (the runtime's cut): a[i]'s arc with the count
 * now[i] - base[i] (now NULL: a[i]'s own count, read once; base NULL:
 * zero); entries whose count is not above base[i] are left out.  now and
 * base have n elements. */
int monout_put_arcs_part(struct monout_writer *w, const struct monout_arc *a, const uint64_t *now,
			 const uint64_t *base, size_t n);
int monout_put_facts(struct monout_writer *w, const struct monout_facts *f);
/* The SPAN record (at most one a file; end_ns >= start_ns). */
int monout_put_span(struct monout_writer *w, const struct monout_span *s);
/* The INTERVAL record (at most one a file). */
int monout_put_interval(struct monout_writer *w, const struct monout_interval *v);
/* n threads; entries with tid 0 are left out. */
int monout_put_threads(struct monout_writer *w, const struct monout_thread *t, size_t n);
/* The same record entry by entry: open, add each (tid 0: left out), close. */
int monout_put_threads_open(struct monout_writer *w);
int monout_put_threads_add(struct monout_writer *w, const struct monout_thread *t);
int monout_put_threads_close(struct monout_writer *w);
/* {pc, count} pairs; entries with pc 0 or count 0 are left out. */
int monout_put_pcs(struct monout_writer *w, const struct monout_call *c, size_t n);
/* A SYMS record, streamed: open, any number of entries, close. */
int monout_syms_open(struct monout_writer *w, uint32_t object);
int monout_syms_add(struct monout_writer *w, uint64_t start, uint64_t size, const char *name,
		    uint32_t len);
int monout_syms_close(struct monout_writer *w);
/* A STACKS record, streamed like SYMS: open with the fixed part, any
 * number of entries, close.  monout_stacks_add leaves out an entry of
 * count 0 or depth 0 (an empty table cell) and writes at most
 * MONOUT_STACK_MAX_DEPTH of its pcs (leaf first, runtime addresses; a
 * deeper stack is cut there and flagged MONOUT_STACK_DEPTH); a max_depth
 * above MONOUT_STACK_MAX_DEPTH is written as that.  The caller reads each
 * count of a table still filling once, atomically, and passes the value.
 * Each returns 0 or -1 with errno, as the puts. */
struct monout_stacks_head {
	uint32_t max_depth;	/* PCs the runtime kept per stack */
	uint64_t lost;		/* samples whose stack the table had no room for */
	uint64_t truncated;	/* samples of entries flagged MONOUT_STACK_TRUNCATED */
	uint32_t set;		/* the object set of the entries that follow (OBJECT) */
};
int monout_stacks_open(struct monout_writer *w, const struct monout_stacks_head *h);
int monout_stacks_add(struct monout_writer *w, uint64_t count, uint64_t tid, uint32_t flags,
		      const uint64_t *pcs, uint32_t depth);
int monout_stacks_close(struct monout_writer *w);
/* Name of system call nr of ELF machine `machine` (EM_X86_64, EM_386,
 * EM_AARCH64: the numbers of their unistd.h), or NULL when not known.
 * Reader side (monout_read.c). */
const char *monout_syscall_name(uint32_t machine, uint32_t nr);
/* The WALL record, streamed: open with the fixed part; then threads,
 * waits and samples in any order; close.  monout_wall_sample leaves out an
 * entry of count 0 and cuts a stack deeper than MONOUT_STACK_MAX_DEPTH
 * (flag MONOUT_STACK_DEPTH); monout_wall_wait cuts text at
 * MONOUT_WAIT_TEXT_MAX bytes; entries of tid 0 are left out.  Each
 * returns 0 or -1 with errno, as the puts. */
int monout_wall_open(struct monout_writer *w, const struct monout_wall_head *h);
int monout_wall_thread(struct monout_writer *w, const struct monout_wall_thread *t);
int monout_wall_wait(struct monout_writer *w, const struct monout_wait *v);
int monout_wall_sample(struct monout_writer *w, const struct monout_wall_sample *s);
int monout_wall_close(struct monout_writer *w);
/* The FILES record: an entry for each of the n objects (OBJECT indexes
 * 0..n-1) whose file_flags is not 0; no record when there is none.
 * Returns 0 or -1 with errno, as the puts. */
int monout_put_files(struct monout_writer *w, const struct monout_object *o, size_t n);
/* The IMAGES record: n entries, one of role MONOUT_IMAGE_THIS. */
int monout_put_images(struct monout_writer *w, const struct monout_image *v, size_t n);
/* Patch in the header; the file is complete when this returns 0. */
int monout_end(struct monout_writer *w);

/*
 * monout_write_fd — write the whole profile *m to fd (a regular file at
 * offset 0) with the streaming writer.  Async-signal-safe.  Returns 0 or
 * -1 with errno.
 */
int monout_write_fd(int fd, const struct monout *m);

/*
 * monout_place_kind — how a finished file is to be put at target (relative
 * to dirfd, as openat(2) takes it).  MONOUT_PLACE_RENAME when target is a
 * regular file or does not exist: the file is written beside it and
 * renamed over it (rename(2)), so that a reader sees the old file or the
 * whole new one.  MONOUT_PLACE_INTO when it is anything else but a
 * directory: a character device (/dev/null), a FIFO, a socket, or a
 * symbolic link (/dev/stdout: renaming would put a file in the link's
 * place, as root in /dev): the file is written elsewhere (a memfd) and its
 * bytes written into target, following links (monout_copy_into).  -1 with
 * errno: EISDIR, or lstat's (EACCES, ELOOP, ENAMETOOLONG, ENOTDIR).
 * Async-signal-safe.
 */
#define MONOUT_PLACE_RENAME 0
#define MONOUT_PLACE_INTO 1
int monout_place_kind(int dirfd, const char *target);

/*
 * monout_copy_into — write the bytes of the regular file (or memfd) from,
 * from offset 0 to its end, into target (relative to dirfd), opened for
 * writing through symbolic links, created with mode (less the umask) if
 * missing, truncated if a regular file.  Without blocking: a FIFO with no
 * reader fails at once, one whose reader takes nothing for 10 s fails
 * then.  Async-signal-safe; a write into a FIFO whose reader left raises
 * SIGPIPE, which the caller blocks and discards.  0, or -1 with errno
 * (openat's: ENXIO a FIFO without a reader or a socket, EACCES, EISDIR;
 * ETIMEDOUT; sendfile's and write's: EIO, ENOSPC, EPIPE).
 */
int monout_copy_into(int from, int dirfd, const char *target, unsigned mode);
/* monout_copy_fd — the same, into the open descriptor out (prof
 * --output=-: standard output).  0, or -1 with errno (sendfile's, write's,
 * ETIMEDOUT). */
int monout_copy_fd(int from, int out);

/* ---- helpers ----------------------------------------------------------- */

/* MONOUT_LITTLE or MONOUT_BIG: the byte order of this process, which the
 * writer records and the reader compares with the file's. */
static inline int monout_host_order(void)
{
	const uint16_t one = 1;
	return *(const unsigned char *)&one ? MONOUT_LITTLE : MONOUT_BIG;
}

/* Reader side (monout_read.c).  Bin of pc in h, or UINT64_MAX when pc is
 * outside [lowpc, highpc) or past the last bin: bins.h's mon_bin_of. */
uint64_t monout_pc_to_bin(const struct monout_hist *h, uint64_t pc);
/* Lowest pc that falls in bin i of h (the first byte the bin covers):
 * bins.h's mon_bin_start; h->lowpc for scale 0. */
uint64_t monout_bin_lowpc(const struct monout_hist *h, uint64_t i);
/* When the profile of m began and ended, CLOCK_REALTIME nanoseconds since
 * the Epoch, in *start_ns and *end_ns (start <= end): INTERVAL's bounds,
 * else SPAN's, else RUN's time (whole seconds) less FACTS' elapsed time.
 * 1 when to the nanosecond (INTERVAL or SPAN), 0 when from RUN's whole
 * seconds, -1 when the file does not say (no time, or no FACTS; outputs
 * left alone). */
int monout_span_ns(const struct monout *m, uint64_t *start_ns, uint64_t *end_ns);
/* Name of a record type ("RUN", "HIST", ...), "unknown" otherwise. */
const char *monout_rec_name(uint32_t type);
/* crc32.c: CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of p[0..n)
 * continuing from crc (start with 0).  Async-signal-safe. */
uint32_t monout_crc32(uint32_t crc, const void *p, size_t n);
/* Fill its tables: a constructor, and called first by libmon's start-up,
 * which can run before ld.so runs libmon's constructors (lib/autostart.c):
 * a profile written then had every checksum wrong.  Once; not in a signal
 * handler. */
void monout_crc32_init(void);

#endif /* MONOUT_H */
