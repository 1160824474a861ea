/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * warn.c — prof's one warnings mechanism.
 *
 * prof never leaves a profile's gaps unsaid (the house rule "never
 * silent"): whatever makes the picture incomplete — no samples, samples
 * saturated or dropped, an object shown only by its unwind ranges, a file
 * read with an assumed rate, profiles of different programs summed — is
 * a warning, given by default.  Every part of prof reports one through
 * prof_warn(); each warning is kept in a list (JSON carries them as
 * "warnings") and handed to one sink, which by default writes
 * "prof: warning: TEXT" on standard error, so a report on standard output
 * (text, JSON, CSV, or a binary one) stays clean.
 */
#include "prof.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static struct prof_warning *list;
static size_t nlist, caplist;
static prof_warn_sink *sink_fn;
static void *sink_arg;
/* prof_warn_hold: the warnings given since, not yet shown. */
static int holding;
static struct prof_warning *held;
static size_t nheld, capheld;
/* prof_warn_about: the file the warnings given now are about, and its role. */
static const char *about_name, *about_role;
/* Warnings one file at a time that say the same of each (a shell's ten
 * fork-and-exec children read from one directory gave ten): of each
 * program's files (prof_warn_scope), the first is shown, the others
 * counted, and prof_warn_repeats says how many. */
static const struct {
	/* The sentence after "N more profiles ... read": for N of 1, for more */
	const char *code, *one, *many;
} per_file[] = {
	{ "exec-images",
	  "is of a process that ran several programs, one exec'ing the next, as above: it "
	  "shows the part of its last program",
	  "are of processes that ran several programs, one exec'ing the next, as above: each "
	  "shows the part of its last program" },
	{ "unfollowed-forks",
	  "is of a process that forked children without following them (monrun without -f): "
	  "their time is in no profile; monrun -f profiles each child in a file of its own",
	  "are of processes that forked children without following them (monrun without "
	  "-f): their time is in no profile; monrun -f profiles each child in a file of its "
	  "own" },
};
static struct repeat {
	size_t kind;	/* index in per_file */
	char *scope;	/* the program, or NULL */
	size_t repeats;
} *repeats;
static size_t nrepeats;
static const char *scope;	/* prof_warn_scope's */
static int summing;		/* prof_warn_repeats at work: nothing counted */

/* 1 if a warning of code in the current scope was shown before (counted
 * then), 0 if it is to be shown (and noted). */
static int repeated(const char *code)
{
	size_t k = 0;
	if (summing)
		return 0;
	while (k < sizeof per_file / sizeof *per_file && strcmp(code, per_file[k].code) != 0)
		k++;
	if (k == sizeof per_file / sizeof *per_file)
		return 0;
	for (size_t i = 0; i < nrepeats; i++)
		if (repeats[i].kind == k && (repeats[i].scope == NULL) == (scope == NULL) &&
		    (scope == NULL || strcmp(repeats[i].scope, scope) == 0)) {
			repeats[i].repeats++;
			return 1;
		}
	struct repeat *v = realloc(repeats, (nrepeats + 1) * sizeof *v);
	char *sc = scope ? strdup(scope) : NULL;
	if (v == NULL || (scope && sc == NULL)) {
		free(sc);
		if (v)
			repeats = v;
		return 0;	/* shown: never silent */
	}
	repeats = v;
	repeats[nrepeats++] = (struct repeat){ k, sc, 0 };
	return 0;
}

void prof_warn_scope(const char *program)
{
	scope = program;
}

void prof_warn_set_sink(prof_warn_sink *fn, void *arg)
{
	sink_fn = fn;
	sink_arg = arg;
}

void prof_warn_about(const char *name, const char *role)
{
	about_name = name;
	about_role = role ? role : "";
}

void prof_warn(const char *code, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (about_name && !holding) {
		/* "NAME ROLE: TEXT"; a text that begins with "NAME: " already
		 * has the name, and gets the role after it. */
		char t[1024];
		size_t n = strlen(about_name);
		const char *rest = strncmp(text, about_name, n) == 0 && text[n] == ':' &&
				   text[n + 1] == ' ' ? text + n + 2 : text;
		int k = snprintf(t, sizeof t, "%s%s: ", about_name, about_role);
		if (k > 0 && (size_t)k < sizeof t) {
			size_t m = strlen(rest), room = sizeof t - 1 - (size_t)k;
			if (m > room)
				m = room;
			memmove(t + k, rest, m);
			t[k + m] = '\0';
			memcpy(text, t, sizeof text);
		}
	}
	if (holding) {
		if (nheld == capheld) {
			size_t nc = capheld ? capheld * 2 : 8;
			struct prof_warning *nv = realloc(held, nc * sizeof *nv);
			if (nv) {
				held = nv;
				capheld = nc;
			}
		}
		char *t = nheld < capheld ? strdup(text) : NULL;
		if (t) {
			held[nheld++] = (struct prof_warning){ code, t };
			return;
		}
		/* No memory to hold it: shown now (never silent). */
	}
	if (repeated(code))
		return;
	struct prof_warning w = { code, NULL };
	if (nlist == caplist) {
		size_t nc = caplist ? caplist * 2 : 8;
		struct prof_warning *nv = realloc(list, nc * sizeof *nv);
		if (nv) {
			list = nv;
			caplist = nc;
		}
	}
	w.text = strdup(text);
	if (nlist < caplist && w.text)
		list[nlist++] = w;
	struct prof_warning shown = { code, w.text ? w.text : text };
	if (sink_fn)
		sink_fn(&shown, sink_arg);
	else
		fprintf(stderr, "prof: warning: %s\n", shown.text);
	if (!(nlist && list[nlist - 1].text == w.text))
		free(w.text);
}

void prof_warn_hold(void)
{
	holding = 1;
}

void prof_warn_release(int show)
{
	holding = 0;
	for (size_t i = 0; i < nheld; i++) {
		if (show)
			prof_warn(held[i].code, "%s", held[i].text);
		free(held[i].text);
	}
	nheld = 0;
}

void prof_warn_repeats(void)
{
	const char *was = about_name;
	about_name = NULL;
	summing = 1;
	for (size_t i = 0; i < nrepeats; i++) {
		size_t n = repeats[i].repeats;
		if (n == 0)
			continue;
		repeats[i].repeats = 0;
		const struct repeat *r = &repeats[i];
		prof_warn(per_file[r->kind].code, "%zu more %s%s%s read %s", n,
			  n == 1 ? "profile" : "profiles", r->scope ? " of " : "",
			  r->scope ? r->scope : "", n == 1 ? per_file[r->kind].one : per_file[r->kind].many);
	}
	summing = 0;
	about_name = was;
}

/* The CPU clocks' warnings: what their samples, counters and stack table
 * lacked (attribute.c, coverage.c, gmon.c, main.c's clocks-differ). */
static const char *const cpu_codes[] = {
	"no-samples", "saturated", "dropped", "lost", "late-ticks", "start-up", "coverage",
	"system-unsampled", "rate-lowered", "clock-taken", "clock-cut", "sigpending",
	"clocks-full", "clocks-differ", "assumed-rate", "stacks-lost", "stacks-truncated",
	"stacks-depth", "stacks-jit",
};

int prof_warning_concerns(const struct prof_warning *w, int cpu)
{
	if (strncmp(w->code, "wall-", 5) == 0)
		return !cpu;
	for (size_t i = 0; i < sizeof cpu_codes / sizeof *cpu_codes; i++)
		if (strcmp(w->code, cpu_codes[i]) == 0)
			return cpu;
	return 1;
}

const struct prof_warning *prof_warnings(size_t *n)
{
	*n = nlist;
	return list;
}

void prof_warnings_clear(void)
{
	prof_warn_release(0);
	free(held);
	held = NULL;
	capheld = 0;
	for (size_t i = 0; i < nlist; i++)
		free(list[i].text);
	free(list);
	list = NULL;
	nlist = caplist = 0;
	for (size_t i = 0; i < nrepeats; i++)
		free(repeats[i].scope);
	free(repeats);
	repeats = NULL;
	nrepeats = 0;
}
