/* heap_remap.c - object addresses carried through a GC by its moved and
 * surviving ranges (the contract is in heap_remap.h). */
#include "agent/heap/heap_remap.h"

#include <stdlib.h>
#include <string.h>

void heap_remap_init(heap_remap *m, size_t max_ranges)
{
    memset(m, 0, sizeof(*m));
    pthread_mutex_init(&m->lock, NULL);
    m->max_ranges = max_ranges ? max_ranges : HEAP_REMAP_DEFAULT_MAX_RANGES;
}

/* Frees the GC's ranges; the tracker is idle again. */
static void reset(heap_remap *m)
{
    free(m->condemned);
    free(m->moves);
    m->condemned = NULL;
    m->moves = NULL;
    m->ncondemned = m->nmoves = m->cap = 0;
    m->active = m->sealed = m->lost = 0;
}

void heap_remap_destroy(heap_remap *m)
{
    reset(m);
    pthread_mutex_destroy(&m->lock);
}

static int cmp_span(const void *a, const void *b)
{
    const heap_remap_span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_move(const void *a, const void *b)
{
    const heap_remap_move *x = a, *y = b;
    return x->old_start < y->old_start ? -1 : x->old_start > y->old_start;
}

int heap_remap_begin(heap_remap *m, const heap_remap_gen *gens, size_t n, uint32_t collected)
{
    size_t k = 0;
    int unfinished = m->active;

    reset(m);
    m->active = 1;
    if (!gens || unfinished) {              /* (the set never saw the last GC's ranges applied) */
        m->lost = 1;
        return -1;
    }
    if (n > m->max_ranges || !(m->condemned = malloc((n ? n : 1) * sizeof(*m->condemned)))) {
        m->lost = 1;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (gens[i].generation < 32 && (collected >> gens[i].generation & 1) && gens[i].len)
            m->condemned[k++] = (heap_remap_span){ gens[i].start, gens[i].start + gens[i].len };
    qsort(m->condemned, k, sizeof(*m->condemned), cmp_span);
    /* Merge touching or overlapping spans: one test per address later. */
    m->ncondemned = 0;
    for (size_t i = 0; i < k; i++) {
        heap_remap_span *last = m->ncondemned ? &m->condemned[m->ncondemned - 1] : NULL;
        if (last && m->condemned[i].start <= last->end) {
            if (m->condemned[i].end > last->end)
                last->end = m->condemned[i].end;
        } else {
            m->condemned[m->ncondemned++] = m->condemned[i];
        }
    }
    return 0;
}

void heap_remap_add(heap_remap *m, size_t n, const uint64_t *old_start, const uint64_t *new_start,
                    const uint64_t *len)
{
    pthread_mutex_lock(&m->lock);
    if (!m->active || m->sealed || m->lost || n == 0)
        goto out;
    if (n > m->max_ranges - m->nmoves) {
        m->lost = 1;
        goto out;
    }
    if (m->nmoves + n > m->cap) {
        size_t cap = m->cap ? m->cap : 512;
        while (cap < m->nmoves + n)
            cap *= 2;
        if (cap > m->max_ranges)
            cap = m->max_ranges;
        heap_remap_move *mv = realloc(m->moves, cap * sizeof(*mv));
        if (!mv) {
            m->lost = 1;
            goto out;
        }
        m->moves = mv;
        m->cap = cap;
    }
    for (size_t i = 0; i < n; i++)
        m->moves[m->nmoves++] = (heap_remap_move){ old_start[i], new_start ? new_start[i] : old_start[i],
                                                   len[i] };
out:
    pthread_mutex_unlock(&m->lock);
}

int heap_remap_seal(heap_remap *m)
{
    if (!m->active || m->lost)
        return -1;
    if (!m->sealed) {
        if (m->nmoves)                      /* (qsort's array must not be NULL, even when empty) */
            qsort(m->moves, m->nmoves, sizeof(*m->moves), cmp_move);
        m->sealed = 1;
    }
    return 0;
}

/* The last range starting at or before a (the ranges sorted by start), or
 * -1: the binary search of heap_remap_lookup. */
static ptrdiff_t last_move_at_or_before(const heap_remap *m, uint64_t a)
{
    size_t lo = 0, hi = m->nmoves;          /* first index with old_start > a */

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->moves[mid].old_start <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (ptrdiff_t)lo - 1;
}

static int in_condemned(const heap_remap *m, uint64_t a)
{
    size_t lo = 0, hi = m->ncondemned;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->condemned[mid].start <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && a < m->condemned[lo - 1].end;
}

uint64_t heap_remap_lookup(const heap_remap *m, uint64_t old)
{
    ptrdiff_t j = last_move_at_or_before(m, old);

    if (j >= 0 && old - m->moves[j].old_start < m->moves[j].len)
        return m->moves[j].new_start + (old - m->moves[j].old_start);
    return in_condemned(m, old) ? HEAP_REMAP_DIED : old;
}

void heap_remap_map(const heap_remap *m, const uint64_t *old, size_t n, uint64_t *out)
{
    /* Both sides sorted: one walk, each cursor only moves forward.  j
     * counts the ranges starting at or before the address, so j - 1 is the
     * range heap_remap_lookup's binary search finds; c is the first
     * condemned span that does not end at or before it. */
    size_t j = 0, c = 0;

    for (size_t i = 0; i < n; i++) {
        uint64_t a = old[i];
        while (j < m->nmoves && m->moves[j].old_start <= a)
            j++;
        if (j > 0 && a - m->moves[j - 1].old_start < m->moves[j - 1].len) {
            out[i] = m->moves[j - 1].new_start + (a - m->moves[j - 1].old_start);
            continue;
        }
        while (c < m->ncondemned && m->condemned[c].end <= a)
            c++;
        out[i] = c < m->ncondemned && m->condemned[c].start <= a ? HEAP_REMAP_DIED : a;
    }
}

/* Sorts a[0..n) ascending by merging its ascending runs pairwise (a
 * natural merge sort): O(n log runs).  Without the scratch memory, qsort. */
static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

void heap_remap_sort(uint64_t *a, size_t n)
{
    uint64_t *tmp, *src, *dst;
    int sorted = 1;

    for (size_t i = 1; i < n && sorted; i++)
        sorted = a[i - 1] <= a[i];
    if (sorted)
        return;
    if (!(tmp = malloc(n * sizeof(*tmp)))) {
        qsort(a, n, sizeof(*a), cmp_u64);
        return;
    }
    src = a;
    dst = tmp;
    for (;;) {
        size_t runs = 0, i = 0;
        while (i < n) {
            /* Two runs [i, mid) and [mid, end), merged into dst[i, end). */
            size_t mid = i + 1, end;
            while (mid < n && src[mid - 1] <= src[mid])
                mid++;
            end = mid < n ? mid + 1 : mid;
            while (end < n && src[end - 1] <= src[end])
                end++;
            size_t p = i, q = mid, o = i;
            while (p < mid && q < end)
                dst[o++] = src[q] < src[p] ? src[q++] : src[p++];
            while (p < mid)
                dst[o++] = src[p++];
            while (q < end)
                dst[o++] = src[q++];
            runs++;
            i = end;
        }
        uint64_t *t = src;
        src = dst;
        dst = t;
        if (runs <= 1)
            break;
    }
    if (src != a)
        memcpy(a, src, n * sizeof(*a));
    free(tmp);
}

int heap_remap_end(heap_remap *m, uint64_t *set, size_t *n)
{
    size_t k = 0;

    if (heap_remap_seal(m) != 0) {
        reset(m);
        return -1;
    }
    heap_remap_map(m, set, *n, set);
    for (size_t i = 0; i < *n; i++)
        if (set[i] != HEAP_REMAP_DIED)
            set[k++] = set[i];
    heap_remap_sort(set, k);
    *n = k;
    reset(m);
    return 0;
}

int heap_remap_seen(const uint64_t *set, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (set[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && set[lo] == addr;
}
