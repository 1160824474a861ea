/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unwind_python.c — the runtime's stack unwinder (lib/unwind.c) through
 * libpython3.11 (built without frame pointers, as Debian ships it): embeds
 * the interpreter (dlopen, no headers needed), runs recursion, json, re and
 * sorted() under ticks every 250 microseconds of wall-clock time delivered
 * to this thread, walks each tick's stack in the SIGPROF handler, and counts
 * the walks that reach main (dladdr outside the handler).  The modules are
 * imported before mon_unwind_refresh, as whole-process mode refreshes after
 * every dlopen.  Exit 0 when >= 95 % of the walks reach main (issue 14's
 * goal for python), 1 when not, 77 when libpython3.11 is not installed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "unwind.h"

#define NWALK 4000
#define MAXD 256
static uintptr_t pcs[NWALK][MAXD];
static unsigned depth[NWALK], flags[NWALK];
static unsigned nwalks;

static void on_tick(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	unsigned i = __atomic_fetch_add(&nwalks, 1, __ATOMIC_RELAXED);
	if (i < NWALK)
		depth[i] = mon_unwind(ctx, pcs[i], MAXD, &flags[i]);
}

int main(void)
{
	void *py = dlopen("libpython3.11.so.1.0", RTLD_NOW | RTLD_GLOBAL);
	if (py == NULL) {
		printf("SKIP libpython3.11.so.1.0 cannot be loaded: %s\n", dlerror());
		return 77;
	}
	void (*init)(void) = (void (*)(void))dlsym(py, "Py_Initialize");
	int (*run)(const char *) = (int (*)(const char *))dlsym(py, "PyRun_SimpleString");
	if (init == NULL || run == NULL)
		return 1;
	init();
	run("import json, re");
	if (mon_unwind_refresh() != 0)
		return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	struct sigevent se;
	memset(&se, 0, sizeof se);
	se.sigev_notify = SIGEV_THREAD_ID;
	se.sigev_signo = SIGPROF;
	se._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_t t;
	if (timer_create(CLOCK_MONOTONIC, &se, &t) != 0)
		return 1;
	struct itimerspec its = { { 0, 250000 }, { 0, 250000 } };
	timer_settime(t, 0, &its, NULL);
	/* Until 1000 walks were taken (counted, not timed). */
	while (__atomic_load_n(&nwalks, __ATOMIC_RELAXED) < 1000)
		run("def f(n):\n    return 1 if n < 2 else f(n - 1) + f(n - 2)\n"
		    "f(18)\n"
		    "json.loads(json.dumps([{'a': 1, 'b': [1, 2, 3] * 50}] * 100))\n"
		    "re.findall(r'a+b', 'aaab' * 2000)\n"
		    "sorted(range(20000), key=lambda x: -x)\n");
	timer_delete(t);
	unsigned n = nwalks < NWALK ? nwalks : NWALK, good = 0, shown = 0;
	for (unsigned i = 0; i < n; i++) {
		int m = 0;
		for (unsigned j = 0; j < depth[i] && !m; j++) {
			Dl_info d;
			m = dladdr((void *)pcs[i][j], &d) && d.dli_sname && strcmp(d.dli_sname, "main") == 0;
		}
		good += m;
		if (!m && shown++ < 5) {
			printf("# main not reached: %u frames, flags %u:", depth[i], flags[i]);
			for (unsigned j = 0; j < depth[i] && j < 24; j++) {
				Dl_info d;
				int k = dladdr((void *)pcs[i][j], &d);
				printf(" %s", k && d.dli_sname ? d.dli_sname : k ? d.dli_fname : "?");
			}
			printf("\n");
		}
	}
	printf("python: %u walks, %u reach main (%.2f %%)\n", n, good, 100.0 * good / n);
	return good * 100 >= n * 95 ? 0 : 1;
}
