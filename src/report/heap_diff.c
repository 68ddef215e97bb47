/* heap_diff.c - the change between two heap snapshots, per type (heap_diff.h). */
#include "report/heap_diff.h"
#include "trace/heap_codec.h"
#include "report/sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct named {
    const char *name;
    const rp_heap_type_stat *st;
    uint64_t fresh;
} named;

static int cmp_named(const void *x, const void *y)
{
    return strcmp(((const named *)x)->name, ((const named *)y)->name);
}

static int cmp_row(const void *x, const void *y)
{
    const rp_heap_diff_row *a = x, *b = y;
    int64_t ra = (int64_t)(a->retained[1] - a->retained[0]), rb = (int64_t)(b->retained[1] - b->retained[0]);
    int64_t sa = (int64_t)(a->shallow[1] - a->shallow[0]), sb = (int64_t)(b->shallow[1] - b->shallow[0]);
    if (ra != rb)
        return ra > rb ? -1 : 1;
    if (sa != sb)
        return sa > sb ? -1 : 1;
    return strcmp(a->type, b->type);
}

/* The types of s with their names, sorted by name; fresh counts when asked. */
static named *by_name(const rp_heap *h, const rp_heap_snapshot *s, int count_fresh)
{
    named *v = malloc((s->ntypes + 1) * sizeof(*v));
    uint64_t *fresh = NULL;
    uint32_t maxtype = 0;

    if (!v)
        return NULL;
    if (count_fresh) {
        for (size_t i = 0; i < s->ntypes; i++)
            if (s->types[i].type > maxtype)
                maxtype = s->types[i].type;
        if ((fresh = calloc((size_t)maxtype + 1, sizeof(uint64_t))) == NULL) {
            free(v);
            return NULL;
        }
        for (size_t i = 0; i < s->nobjects; i++)
            if (!(s->flags[i] & (HEAP_OBJ_SEEN | HEAP_OBJ_FROZEN)) && s->type[i] <= maxtype)
                fresh[s->type[i]]++;
    }
    for (size_t i = 0; i < s->ntypes; i++) {
        v[i].name = rp_heap_type_name(h, s->types[i].type);
        v[i].st = &s->types[i];
        v[i].fresh = fresh ? fresh[s->types[i].type] : 0;
    }
    free(fresh);
    rp_sort(v, s->ntypes, sizeof(*v), cmp_named);
    return v;
}

int rp_heap_diff_build(const rp_heap *ha, const rp_heap_snapshot *a, const rp_heap *hb, const rp_heap_snapshot *b,
                       int same_trace, rp_heap_diff *d)
{
    int identity = same_trace && rp_heap_identity(b) && b->index == a->index + 1;
    named *va = by_name(ha, a, 0), *vb = by_name(hb, b, identity);
    size_t i = 0, j = 0, n = 0;

    memset(d, 0, sizeof(*d));
    d->rows = malloc((a->ntypes + b->ntypes + 1) * sizeof(*d->rows));
    if (!va || !vb || !d->rows) {
        free(va);
        free(vb);
        free(d->rows);
        d->rows = NULL;
        return -1;
    }
    while (i < a->ntypes || j < b->ntypes) {
        int c = i == a->ntypes ? 1 : j == b->ntypes ? -1 : strcmp(va[i].name, vb[j].name);
        rp_heap_diff_row *r = &d->rows[n++];
        memset(r, 0, sizeof(*r));
        if (c <= 0) {
            r->type = va[i].name;
            r->count[0] = va[i].st->count;
            r->shallow[0] = va[i].st->shallow;
            r->retained[0] = va[i].st->retained;
            i++;
        }
        if (c >= 0) {
            r->type = vb[j].name;
            r->count[1] = vb[j].st->count;
            r->shallow[1] = vb[j].st->shallow;
            r->retained[1] = vb[j].st->retained;
            r->fresh = vb[j].fresh;
            j++;
        }
    }
    free(va);
    free(vb);
    rp_sort(d->rows, n, sizeof(*d->rows), cmp_row);
    d->nrows = n;
    d->identity = identity;
    d->t_between_ns = same_trace && b->t_end > a->t_end ? b->t_end - a->t_end : 0;
    return 0;
}

void rp_heap_diff_free(rp_heap_diff *d)
{
    free(d->rows);
    memset(d, 0, sizeof(*d));
}
