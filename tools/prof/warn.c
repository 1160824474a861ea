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
}
