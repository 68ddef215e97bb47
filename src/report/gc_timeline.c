/* gc_timeline.c - the garbage collections of a trace and their figures
 * (gc_timeline.h). */
#include "report/gc_timeline.h"

#include <stdlib.h>
#include <string.h>

const char *const rp_gc_gen_names[RP_GC_GENS] = { "gen0", "gen1", "gen2", "LOH", "POH" };

int rp_gc_sizes_known(const uint64_t *bytes)
{
    for (int g = 0; g < RP_GC_GENS; g++)
        if (bytes[g])
            return 1;
    return 0;
}

/* The oldest of 0..2 a GC collected: LOH and POH are collected with gen2. */
static int gc_generation(uint32_t mask)
{
    if (mask & 0x1c)
        return 2;
    if (mask & 0x2)
        return 1;
    return 0;
}

/* A suspension of the runtime for a GC: [start, end). */
typedef struct span { uint64_t start, end; int used; } span;

/* One reading of the heap (a GC's before or after) into the figures. */
static void see_sizes(rp_gc_timeline *tl, const uint64_t *b)
{
    uint64_t total = 0;

    if (!rp_gc_sizes_known(b))
        return;
    for (int g = 0; g < RP_GC_GENS; g++) {
        total += b[g];
        if (!tl->have_sizes)
            tl->first[g] = b[g];
        if (b[g] > tl->peak[g])
            tl->peak[g] = b[g];
        tl->last[g] = b[g];
    }
    if (!tl->have_sizes)
        tl->first[RP_GC_GENS] = total;
    if (total > tl->peak[RP_GC_GENS])
        tl->peak[RP_GC_GENS] = total;
    tl->last[RP_GC_GENS] = total;
    tl->have_sizes = 1;
}

int rp_gc_timeline_build(const rp_trace *tr, rp_gc_timeline *tl)
{
    span *sp = NULL;
    size_t nsp = 0, ngc = 0;

    memset(tl, 0, sizeof(*tl));
    tl->wall_ns = tr->end_t;
    for (size_t i = 0; i < tr->nev; i++) {
        if (tr->ev[i].kind == TK_GC_START)
            ngc++;
        else if (tr->ev[i].kind == TK_SUSPEND)
            nsp++;
    }
    tl->gc = calloc(ngc ? ngc : 1, sizeof(*tl->gc));
    sp = calloc(nsp ? nsp : 1, sizeof(*sp));
    if (!tl->gc || !sp) {
        free(sp);
        rp_gc_timeline_free(tl);
        return -1;
    }
    tl->from_suspensions = nsp > 0;     /* suspensions were collected (any reason) */

    /* The GCs, each end given to the start before it, and the GC
     * suspensions, in order of their ends (a suspension is recorded when
     * the runtime resumes). */
    nsp = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if (e->kind == TK_GC_START) {
            rp_gc *g = &tl->gc[tl->n++];
            const rec_gc_start *s = &e->gc_start;
            g->t = e->t;
            g->generations = s->generations;
            g->reason = s->reason;
            g->gen = gc_generation(s->generations);
            uint64_t b[RP_GC_GENS] = { s->gen0_bytes, s->gen1_bytes, s->gen2_bytes, s->loh_bytes, s->poh_bytes };
            memcpy(g->before, b, sizeof(b));
        } else if (e->kind == TK_GC_END && tl->n && !tl->gc[tl->n - 1].end_t) {
            rp_gc *g = &tl->gc[tl->n - 1];
            const rec_gc_end *s = &e->gc_end;
            g->end_t = e->t;
            uint64_t b[RP_GC_GENS] = { s->gen0_bytes, s->gen1_bytes, s->gen2_bytes, s->loh_bytes, s->poh_bytes };
            memcpy(g->after, b, sizeof(b));
        } else if (e->kind == TK_SUSPEND && (e->suspend.reason == 1 || e->suspend.reason == 7)) {
            uint64_t d = e->suspend.duration_ns;
            sp[nsp++] = (span){ d <= e->t ? e->t - d : 0, e->t, 0 };
        }
    }

    for (size_t i = 0; i < tl->n; i++) {
        rp_gc *g = &tl->gc[i];
        if (tl->from_suspensions) {
            /* the first suspension ending at or after the start (binary
             * search: the ends ascend), if it began before it */
            size_t lo = 0, hi = nsp;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (sp[mid].end < g->t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < nsp && sp[lo].start <= g->t && !sp[lo].used) {
                sp[lo].used = 1;                /* two GCs in one pause count it once */
                g->pause_ns = sp[lo].end - sp[lo].start;
                g->pause_start = sp[lo].start;
            }
        } else if (g->end_t) {
            g->pause_ns = g->end_t - g->t;
            g->pause_start = g->t;
        }
        tl->count[g->gen]++;
        tl->total_ns[g->gen] += g->pause_ns;
        if (g->pause_ns > tl->longest_ns[g->gen])
            tl->longest_ns[g->gen] = g->pause_ns;
        tl->paused_ns += g->pause_ns;
        tl->induced += g->reason == 1;
        see_sizes(tl, g->before);
        if (g->end_t)
            see_sizes(tl, g->after);
    }
    free(sp);
    return 0;
}

void rp_gc_timeline_free(rp_gc_timeline *tl)
{
    free(tl->gc);
    tl->gc = NULL;
    tl->n = 0;
}
