/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * folded.c — collapsed stacks ("folded"), the input of flamegraph.pl,
 * inferno and speedscope: one line per distinct stack, its frames root
 * first joined by ';', a space, and its samples (of the event --sample
 * asks for: CPU samples by default, wall-clock or off-CPU samples) as an
 * integer:
 *
 *   main;hard;work 950
 *   main;easy;work 48
 *
 * Frames are named as in the flat profile; a function's inline frames
 * (a location's lines) each count as one frame.  Stacks whose names agree
 * (different PCs of the same functions) are one line.  Lines are sorted
 * bytewise.  With --threads the thread is the root frame, "NAME-TID".
 * Walks that ended early start with "[truncated]", those that stopped at
 * JIT code with "[jit]" (the model's markers).  A profile without stacks
 * gives one line per function with samples, its samples rounded to an
 * integer (System V's split of a bin makes fractions).
 */
#include "out.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct line {
	char *text;
	double count;
};

static int cmp_line(const void *x, const void *y)
{
	return strcmp(((const struct line *)x)->text, ((const struct line *)y)->text);
}

/* Appends s to the growing buffer *b (length *n, capacity *cap). */
static int put(char **b, size_t *n, size_t *cap, const char *s)
{
	size_t l = strlen(s);
	if (*n + l + 1 > *cap) {
		size_t c = *cap ? *cap : 256;
		while (*n + l + 1 > c)
			c *= 2;
		char *nb = realloc(*b, c);
		if (!nb)
			return -1;
		*b = nb;
		*cap = c;
	}
	memcpy(*b + *n, s, l + 1);
	*n += l;
	return 0;
}

int prof_render_folded(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	int stacks = prof_event_facts_of(p, o)->have_stacks;
	int vs = prof_event_of(p, o)->count;
	struct line *v = calloc(p->nsamples ? p->nsamples : 1, sizeof *v);
	size_t nv = 0;
	char *b = NULL;
	size_t cap = 0;
	int rc = -1;
	if (!v)
		goto out;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		if ((stacks && !s->stack) || s->value[vs] <= 0)
			continue;
		size_t n = 0;
		int first = 1;
		if (o->threads && stacks) {
			char label[64];
			if (put(&b, &n, &cap, prof_thread_label(p, s->thread, label, sizeof label)))
				goto out;
			first = 0;
		}
		for (size_t k = s->nlocations; k-- > 0;) {
			const struct prof_location *l = &p->locations[s->locations[k]];
			for (size_t j = l->nlines; j-- > 0;) {
				if ((!first && put(&b, &n, &cap, ";")) ||
				    put(&b, &n, &cap, p->functions[l->lines[j].function].name))
					goto out;
				first = 0;
			}
		}
		if ((v[nv].text = strdup(b ? b : "")) == NULL)
			goto out;
		v[nv++].count = s->value[vs];
	}
	qsort(v, nv, sizeof *v, cmp_line);
	for (size_t i = 0; i < nv;) {
		size_t j = i;
		double c = 0;
		for (; j < nv && strcmp(v[j].text, v[i].text) == 0; j++)
			c += v[j].count;
		unsigned long long k = (unsigned long long)llround(c);
		if (k > 0)
			fprintf(out, "%s %llu\n", v[i].text, k);
		i = j;
	}
	rc = 0;
out:
	for (size_t i = 0; v && i < nv; i++)
		free(v[i].text);
	free(v);
	free(b);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}
