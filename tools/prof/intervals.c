/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * intervals.c — the call counts of an interval file of an older series.
 *
 * An interval file (INTERVAL record, monrun --interval: docs/mon.out.5)
 * holds what happened in its interval, so that a series adds up to the
 * run.  Its CALLS, ARCS and RUN's calls lost did so only from INTERVAL
 * flag 4 (MONOUT_INTERVAL_OWN_CALLS) on; files written before it hold the
 * process's calls so far, and summing them overcounts.  For such a file
 * prof takes the difference from the same process's previous interval:
 * the file beside it (same directory) whose INTERVAL has the sequence
 * number one less, whose RUN has the same pid, which ended no later than
 * this one began, and whose every arc is in this one with no larger a
 * count (counts only grew within a process image; an image exec'd later
 * starts a series of its own at 1, with counts from zero; so does a fork
 * child).  Interval 1 is its own part.  When no such file is there
 * (removed by --keep, or not copied along) the file's calls are left out,
 * never overcounted, and the caller says so.
 */
#include "prof.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "monout.h"

static int cmp_call(const void *x, const void *y)
{
	const struct monout_call *a = x, *b = y;
	return a->selfpc < b->selfpc ? -1 : a->selfpc > b->selfpc;
}

static int cmp_arc(const void *x, const void *y)
{
	const struct monout_arc *a = x, *b = y;
	if (a->selfpc != b->selfpc)
		return a->selfpc < b->selfpc ? -1 : 1;
	return a->frompc < b->frompc ? -1 : a->frompc > b->frompc;
}

/* Sorted, one entry a key (counts added up), no zero counts; the new
 * number of entries. */
static size_t tidy_calls(struct monout_call *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_call);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].selfpc == 0 || v[i].count == 0)
			continue;
		if (k && v[k - 1].selfpc == v[i].selfpc)
			v[k - 1].count += v[i].count;
		else
			v[k++] = v[i];
	}
	return k;
}

static size_t tidy_arcs(struct monout_arc *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_arc);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].selfpc == 0 || v[i].count == 0)
			continue;
		if (k && cmp_arc(&v[k - 1], &v[i]) == 0)
			v[k - 1].count += v[i].count;
		else
			v[k++] = v[i];
	}
	return k;
}

/* cur -= prev entry by entry (both tidy): 0, or -1 when prev has an entry
 * cur lacks or a larger count (not its predecessor).  Entries left at zero
 * are dropped: *ncur shrinks. */
static int less_calls(struct monout_call *cur, size_t *ncur, const struct monout_call *prev,
		      size_t nprev)
{
	size_t j = 0, k = 0;
	for (size_t i = 0; i < *ncur; i++) {
		if (j < nprev && prev[j].selfpc < cur[i].selfpc)
			return -1;	/* a function called before and not since */
		if (j < nprev && prev[j].selfpc == cur[i].selfpc) {
			if (prev[j].count > cur[i].count)
				return -1;
			cur[i].count -= prev[j++].count;
		}
		if (cur[i].count)
			cur[k++] = cur[i];
	}
	if (j < nprev)
		return -1;
	*ncur = k;
	return 0;
}

static int less_arcs(struct monout_arc *cur, size_t *ncur, const struct monout_arc *prev,
		     size_t nprev)
{
	size_t j = 0, k = 0;
	for (size_t i = 0; i < *ncur; i++) {
		if (j < nprev && cmp_arc(&prev[j], &cur[i]) < 0)
			return -1;
		if (j < nprev && cmp_arc(&prev[j], &cur[i]) == 0) {
			if (prev[j].count > cur[i].count)
				return -1;
			cur[i].count -= prev[j++].count;
		}
		if (cur[i].count)
			cur[k++] = cur[i];
	}
	if (j < nprev)
		return -1;
	*ncur = k;
	return 0;
}

/* Does name (a directory entry) look like an interval file of pid with
 * sequence number seq (monfile.c's PID.PROGRAM.iSEQ.TIME, after an
 * optional output name and a dot)? */
static int named_as(const char *name, uint64_t pid, uint64_t seq)
{
	char p[32], s[32];
	snprintf(p, sizeof p, "%llu.", (unsigned long long)pid);
	snprintf(s, sizeof s, ".i%06llu.", (unsigned long long)seq);
	if (strstr(name, s) == NULL)
		return 0;
	if (strncmp(name, p, strlen(p)) == 0)
		return 1;
	char dp[34];
	snprintf(dp, sizeof dp, ".%s", p);
	return strstr(name, dp) != NULL;
}

/* Reads path into *m when it is the interval seq of pid of an older
 * series that ended by end_ns: 1; not such a file (or unreadable): 0. */
static int read_prev(const char *path, uint64_t pid, uint64_t seq, uint64_t end_ns,
		     struct monout *m)
{
	unsigned char *buf;
	size_t len;
	char e[256];
	if (prof_slurp(path, &buf, &len, e, sizeof e) < 0)
		return 0;
	int rc = monout_parse_opts(buf, len, m, MONOUT_PARSE_SPARSE, e, sizeof e);
	free(buf);
	if (rc < 0)
		return 0;
	if (m->have_interval && m->interval.seq == seq && m->run.pid == pid &&
	    m->interval.end_ns <= end_ns && !(m->interval.flags & MONOUT_INTERVAL_OWN_CALLS))
		return 1;
	monout_free(m);
	return 0;
}

/* Calls fn(p, arg) for each file beside path (same directory) named as an
 * interval file of pid with sequence number seq (named_as), p its path,
 * until fn returns nonzero.  0, or -1 without memory. */
static int each_beside(const char *path, uint64_t pid, uint64_t seq,
		       int (*fn)(const char *p, void *arg), void *arg)
{
	/* The directory: path up to its last '/'. */
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *dir = malloc(dlen + 2);
	if (dir == NULL)
		return -1;
	memcpy(dir, path, dlen);
	strcpy(dir + dlen, dlen ? "" : ".");
	DIR *d = opendir(dir);
	int rc = 0;
	for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
		if (!named_as(e->d_name, pid, seq))
			continue;
		size_t n = dlen + strlen(e->d_name) + 1;
		char *p = malloc(n);
		if (p == NULL) {
			rc = -1;
			break;
		}
		snprintf(p, n, "%.*s%s", (int)dlen, path, e->d_name);
		int stop = fn(p, arg);
		free(p);
		if (stop)
			break;
	}
	if (d != NULL)
		closedir(d);
	free(dir);
	return rc;
}

struct prev_search {
	const struct monout *m;
	struct monout prev;
	int found;
};

/* each_beside's fn for prof_interval_calls: the latest candidate. */
static int take_prev(const char *p, void *arg)
{
	struct prev_search *ps = arg;
	const struct monout *m = ps->m;
	struct monout cand;
	if (read_prev(p, m->run.pid, m->interval.seq - 1, m->interval.start_ns, &cand)) {
		/* The latest such file (an image exec'd since has a series
		 * of its own, begun later). */
		if (!ps->found || cand.interval.end_ns > ps->prev.interval.end_ns) {
			if (ps->found)
				monout_free(&ps->prev);
			ps->prev = cand;
			ps->found = 1;
		} else {
			monout_free(&cand);
		}
	}
	return 0;
}

int prof_interval_calls(const char *path, struct monout *m)
{
	if (!m->have_interval || (m->interval.flags & MONOUT_INTERVAL_OWN_CALLS))
		return 0;
	m->ncalls = tidy_calls(m->calls, m->ncalls);
	m->narcs = tidy_arcs(m->arcs, m->narcs);
	if (m->interval.seq <= 1 || (m->ncalls == 0 && m->narcs == 0 && m->run.calls_lost == 0))
		return 0;	/* its own calls (from the start, the fork or the exec) */
	struct prev_search ps;
	memset(&ps, 0, sizeof ps);
	ps.m = m;
	int rc = each_beside(path, m->run.pid, m->interval.seq - 1, take_prev, &ps) < 0 ? -1 : 1;
	struct monout prev = ps.prev;
	int found = ps.found;
	if (rc < 0) {
		if (found)
			monout_free(&prev);
		return -1;
	}
	if (found) {
		prev.ncalls = tidy_calls(prev.calls, prev.ncalls);
		prev.narcs = tidy_arcs(prev.arcs, prev.narcs);
		size_t nc = m->ncalls, na = m->narcs;
		if (less_calls(m->calls, &nc, prev.calls, prev.ncalls) == 0 &&
		    less_arcs(m->arcs, &na, prev.arcs, prev.narcs) == 0 &&
		    prev.run.calls_lost <= m->run.calls_lost) {
			m->ncalls = nc;
			m->narcs = na;
			m->run.calls_lost -= prev.run.calls_lost;
			rc = 0;
		}
		monout_free(&prev);
	}
	if (rc == 1) {
		/* No predecessor that fits: the calls are left out, never
		 * counted twice. */
		m->ncalls = m->narcs = 0;
		m->run.calls_lost = 0;
		prof_warn("interval-calls", "%s: interval %llu of an older series, whose files hold "
			  "the calls so far: the file of interval %llu of process %llu is not beside "
			  "it, so its calls are left out (its samples are read); keep a series' "
			  "files together, or profile again (files written now hold their own "
			  "interval's calls)", path, (unsigned long long)m->interval.seq,
			  (unsigned long long)(m->interval.seq - 1), (unsigned long long)m->run.pid);
	}
	return rc;
}

struct next_search {
	const struct monout *m;
	int failed;
};

/* The path of m's main program (its OBJECT flagged MAIN), "" if none. */
static const char *main_object(const struct monout *m)
{
	for (size_t i = 0; i < m->nobjects; i++)
		if ((m->objects[i].flags & MONOUT_OBJ_MAIN) && m->objects[i].path)
			return m->objects[i].path;
	return "";
}

/* How many images m lists up to the one it profiles (IMAGES' entries
 * before and at THIS): 1 for a file without IMAGES (one image). */
static size_t images_to_this(const struct monout *m)
{
	for (size_t i = 0; i < m->nimages; i++)
		if (m->images[i].role == MONOUT_IMAGE_THIS)
			return i + 1;
	return 1;
}

/* each_beside's fn for prof_exec_failed: a continuation of m's image. */
static int take_next(const char *p, void *arg)
{
	struct next_search *ns = arg;
	const struct monout *m = ns->m;
	unsigned char *buf;
	size_t len;
	char e[256];
	struct monout c;
	if (prof_slurp(p, &buf, &len, e, sizeof e) < 0)
		return 0;
	int rc = monout_parse_opts(buf, len, &c, MONOUT_PARSE_SPARSE, e, sizeof e);
	free(buf);
	if (rc < 0)
		return 0;
	/* The same image went on: the same process's next interval, begun
	 * when m ended (exec_failed restarts the series' clock at once; 10 s
	 * leaves room for a loaded machine, not for another run whose
	 * process had the same pid), of the same program, with the same
	 * images up to the one it profiles.  A new image's series starts at
	 * 1 and lists m's image as one that ran before it; a file that tried
	 * another exec ends with its own NEXT, left aside. */
	size_t k = images_to_this(&c), mk = m->nimages - 1;
	int same = c.have_interval && c.run.pid == m->run.pid &&
		   c.interval.seq == m->interval.seq + 1 &&
		   c.interval.start_ns >= m->interval.end_ns &&
		   c.interval.start_ns - m->interval.end_ns < 10000000000ull && k == mk &&
		   strcmp(main_object(&c), main_object(m)) == 0;
	for (size_t i = 0; same && c.nimages && i < k; i++)
		same = strcmp(c.images[i].path, m->images[i].path) == 0;
	ns->failed = same;
	monout_free(&c);
	return ns->failed;
}

int prof_exec_failed(const char *path, const struct monout *m)
{
	if (!m->have_interval || m->nimages < 2 ||
	    m->images[m->nimages - 1].role != MONOUT_IMAGE_NEXT)
		return 0;
	struct next_search ns = { m, 0 };
	if (each_beside(path, m->run.pid, m->interval.seq + 1, take_next, &ns) < 0)
		return -1;
	return ns.failed;
}
