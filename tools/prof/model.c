/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model.c — releasing prof's model of one profile (struct prof_data,
 * prof.h).  Kept apart from the readers so that the unit tests can link the
 * readers without libelf.
 */
#include "prof.h"

#include <stdlib.h>
#include <string.h>

void prof_data_free(struct prof_data *d)
{
	for (size_t i = 0; i < d->nobjs; i++) {
		free(d->objs[i].path);
		for (size_t k = 0; k < d->objs[i].nxsyms; k++)
			free(d->objs[i].xsyms[k].name);
		free(d->objs[i].xsyms);
	}
	free(d->threads);
	free(d->objs);
	for (size_t i = 0; i < d->nhists; i++) {
		free(d->hists[i].bins);
		free(d->hists[i].idx);
	}
	free(d->hists);
	free(d->counts);
	free(d->arcs);
	free(d->stacks);
	for (size_t i = 0; i < d->nwaits; i++)
		free(d->waits[i].text);
	free(d->waits);
	free(d->wall_threads);
	free(d->wall_samples);
	free(d->run.command);
	free(d->run.images);
	const char *file = d->file;
	memset(d, 0, sizeof *d);
	d->file = file;
}
