/* collapsed.c - `report --format collapsed`: the profile as collapsed
 * stacks, one `root;...;leaf count` line per distinct stack (per thread and
 * stack with --by-thread), sorted by frame names, as flamegraph.pl reads
 * them.  The count is the stack's samples in the cpu and wall views, its
 * weight in the view's unit in the others (bytes, objects, nanoseconds:
 * rp_sample_count); an allocation's leaf frame is its type, a wait's the
 * lock's type. */
#include "report/report.h"
#include "common/escape.h"
#include "report/sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const rp_profile *cmp_profile;
static int cmp_by_thread;

static int cmp_samples(const void *a, const void *b)
{
    const rp_sample *x = &cmp_profile->samples[*(const size_t *)a];
    const rp_sample *y = &cmp_profile->samples[*(const size_t *)b];
    if (cmp_by_thread && x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    for (uint32_t k = 0; k < x->nframes && k < y->nframes; k++)
        if (x->frames[k] != y->frames[k])
            return strcmp(cmp_profile->frames[x->frames[k]], cmp_profile->frames[y->frames[k]]);
    return x->nframes < y->nframes ? -1 : x->nframes > y->nframes;
}

static int same_stack(const rp_profile *p, const rp_sample *x, const rp_sample *y, int by_thread)
{
    if ((by_thread && x->thread != y->thread) || x->nframes != y->nframes)
        return 0;
    return memcmp(x->frames, y->frames, x->nframes * sizeof(uint32_t)) == 0;
}

/* A frame or thread name as collapsed-stack text: escaped, and ';', which
 * separates frames, as \x3b. */
static void put_frame(FILE *out, const char *name)
{
    esc_write(out, name, strlen(name), ";");
}

int rp_write_collapsed(const rp_profile *p, int by_thread, FILE *out)
{
    size_t *order = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*order));
    if (!order)
        return -1;
    for (size_t i = 0; i < p->nsamples; i++)
        order[i] = i;
    cmp_profile = p;
    cmp_by_thread = by_thread;
    rp_sort(order, p->nsamples, sizeof(*order), cmp_samples);
    for (size_t i = 0; i < p->nsamples;) {
        const rp_sample *s = &p->samples[order[i]];
        size_t j = i + 1;
        uint64_t count = rp_sample_count(p, s);
        while (j < p->nsamples && same_stack(p, s, &p->samples[order[j]], by_thread))
            count += rp_sample_count(p, &p->samples[order[j++]]);
        if (count == 0) {           /* (signal samples whose CPU rounded to no period) */
            i = j;
            continue;
        }
        if (by_thread) {
            put_frame(out, p->threads[s->thread].name);
            if (s->nframes)
                putc(';', out);
        }
        for (uint32_t k = 0; k < s->nframes; k++) {
            if (k)
                putc(';', out);
            put_frame(out, p->frames[s->frames[k]]);
        }
        if (!by_thread && s->nframes == 0)
            fputs("[no managed frames]", out);
        fprintf(out, " %" PRIu64 "\n", count);
        i = j;
    }
    free(order);
    return ferror(out) ? -1 : 0;
}
