/* hot_lines.c - the text report's "Hot lines": for the methods with the
 * most self time (samples, bytes, waits: the view's unit) whose source
 * lines are known, that self time by line (hot_lines.h). */
#include "report/hot_lines.h"
#include "common/escape.h"
#include "common/hash.h"
#include "common/idmap.h"
#include "report/source_lines.h"
#include "report/sort.h"
#include "report/views.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TOP_METHODS 5
#define TOP_LINES 8

typedef struct line_row {
    uint32_t frame;          /* a frame of one line */
    uint64_t count;
} line_row;

typedef struct method_row {
    const char *name;        /* the method (plain frame name) */
    uint64_t count;          /* its self count on known lines */
    line_row *lines;
    size_t nlines, cap;
} method_row;

static int by_count_method(const void *a, const void *b)
{
    const method_row *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->name, y->name);
}

static int by_count_line(const void *a, const void *b)
{
    const line_row *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : (x->frame > y->frame) - (x->frame < y->frame);
}

/* The frame a sample's self time is in: its leaf, or under a leaf the
 * builder added (the allocated type, the lock). */
static long self_frame(const rp_sample *s)
{
    uint32_t n = s->nframes;
    if (s->typed && n)
        n--;
    return n ? (long)s->frames[n - 1] : -1;
}

/* An assembly of the runtime's own (its shared framework, which ships
 * without PDBs): not worth a note. */
static int framework_path(const char *path)
{
    return strstr(path, "/shared/Microsoft.") != NULL || strstr(path, "/packs/") != NULL;
}

/* A note when the trace's frames have IL offsets but some of the
 * program's own assemblies had no symbols (none: the table is empty). */
static void no_symbols_note(const rp_trace *tr, int none, FILE *out)
{
    size_t shown = 0;
    const char *why;

    for (size_t i = 0; i < rp_lines_missing(tr->lines); i++) {
        const char *path = rp_lines_missing_path(tr->lines, i, &why);
        if (framework_path(path))
            continue;
        if (!shown++)
            fputs(none ? "\nHot lines: none, the program's symbols were not found:\n"
                       : "  no source lines where the program's symbols were not found:\n", out);
        if (shown > 3)
            continue;
        fputs("  ", out);
        esc_puts(out, why && why[0] ? why : path);
        fputc('\n', out);
    }
    if (shown > 3)
        fprintf(out, "  (and %zu more)\n", shown - 3);
    if (shown)
        fputs("  (build with portable PDBs, the SDK's default, keep them beside the assemblies or embedded, "
              "or give --symbols DIR)\n", out);
}

/* Whether the trace's stacks have IL offsets (an agent since source lines). */
static int has_il(const rp_trace *tr)
{
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if ((e->kind == TK_SAMPLE && e->sample.nil) || (e->kind == TK_ALLOC_SAMPLE && e->alloc_sample.nil) ||
            (e->kind == TK_CONTENTION && e->contention.nil))
            return 1;
    }
    return 0;
}

int rp_write_hot_lines(const rp_trace *tr, const rp_profile *shown, const char *thread, unsigned options, FILE *out)
{
    rp_profile own;
    const rp_profile *p = shown;
    method_row *m = NULL;
    size_t nm = 0, cm = 0;
    idmap by_name;
    uint64_t total;
    int rc = -1;

    if (!tr->lines || !shown || !shown->nsamples || !has_il(tr))
        return 0;               /* (a trace of an earlier agent: no offsets, nothing to look up) */
    if (!(shown->options & RP_PROFILE_LINES)) {
        if (rp_profile_build_opts(tr, shown->view, thread, options | RP_PROFILE_LINES, &own) < 0)
            return -1;
        p = &own;
    }
    idmap_init(&by_name);
    for (size_t i = 0; i < p->nsamples; i++) {
        const rp_sample *s = &p->samples[i];
        long f = self_frame(s);
        uint64_t key, v, c = rp_sample_count(p, s);
        method_row *r;
        if (f < 0 || !p->sources || !p->sources[f].at_line || !c)
            continue;
        key = cp_fnv1a_str(p->sources[f].name);
        if (!idmap_get(&by_name, key, &v) || strcmp(m[v].name, p->sources[f].name) != 0) {
            if (nm == cm) {
                size_t nc = cm ? cm * 2 : 16;
                method_row *nmr = realloc(m, nc * sizeof(*nmr));
                if (!nmr)
                    goto done;
                m = nmr;
                cm = nc;
            }
            memset(&m[nm], 0, sizeof(m[nm]));
            m[nm].name = p->sources[f].name;
            if (idmap_put(&by_name, key, nm) < 0)
                goto done;
            v = nm++;
        }
        r = &m[v];
        r->count += c;
        {
            size_t k;
            for (k = 0; k < r->nlines && r->lines[k].frame != (uint32_t)f; k++)
                ;
            if (k == r->nlines) {
                if (r->nlines == r->cap) {
                    size_t nc = r->cap ? r->cap * 2 : 8;
                    line_row *nl = realloc(r->lines, nc * sizeof(*nl));
                    if (!nl)
                        goto done;
                    r->lines = nl;
                    r->cap = nc;
                }
                r->lines[r->nlines++] = (line_row){ (uint32_t)f, 0 };
            }
            r->lines[k].count += c;
        }
    }
    total = rp_profile_count_total(p);
    if (nm == 0) {
        no_symbols_note(tr, 1, out);
        rc = 0;
        goto done;
    }
    rp_sort(m, nm, sizeof(*m), by_count_method);
    {
        const rp_view_info *vi = rp_view_of(p->view);
        fprintf(out, "\nHot lines (%s view): self %s by source line, in the methods with the most\n", vi->name,
                vi->counts_samples ? "samples" : vi->unit);
    }
    for (size_t i = 0; i < nm && i < TOP_METHODS; i++) {
        rp_sort(m[i].lines, m[i].nlines, sizeof(*m[i].lines), by_count_line);
        fputs("  ", out);
        esc_puts(out, m[i].name);
        fprintf(out, ": %" PRIu64 " (%.1f%%)\n", m[i].count, total ? 100.0 * (double)m[i].count / (double)total : 0.0);
        for (size_t k = 0; k < m[i].nlines && k < TOP_LINES; k++) {
            const rp_frame_source *src = &p->sources[m[i].lines[k].frame];
            fprintf(out, "    %8" PRIu64 " %6.1f%%  ", m[i].lines[k].count,
                    total ? 100.0 * (double)m[i].lines[k].count / (double)total : 0.0);
            esc_puts(out, src->base);
            fprintf(out, ":%u\n", src->line);
        }
        if (m[i].nlines > TOP_LINES)
            fprintf(out, "    (%zu more lines)\n", m[i].nlines - TOP_LINES);
    }
    no_symbols_note(tr, 0, out);
    rc = 0;
done:
    for (size_t i = 0; i < nm; i++)
        free(m[i].lines);
    free(m);
    idmap_free(&by_name);
    if (p == &own)
        rp_profile_free(&own);
    return rc;
}
