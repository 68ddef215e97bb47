/* heap_model.c - heap snapshots as graphs, their dominator tree and
 * retained sizes (heap_model.h). */
#include "report/heap_model.h"
#include "trace/heap_codec.h"
#include "report/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable arrays ---- */

typedef struct vec {
    void *p;
    size_t n, cap, elem;
} vec;

static void *vec_push(vec *v)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 1024;
        void *p = realloc(v->p, cap * v->elem);
        if (!p)
            return NULL;
        v->p = p;
        v->cap = cap;
    }
    return (char *)v->p + v->elem * v->n++;
}

typedef struct raw_obj { uint64_t addr, size; uint32_t type, flags; } raw_obj;
typedef struct raw_ref { uint64_t from, to; } raw_ref;   /* (its slot: building.slots, same index) */
typedef struct raw_root { uint64_t object, id; uint32_t kind, flags; } raw_root;

typedef struct building {
    vec objs, refs, roots;
    vec slots;                       /* uint32_t: refs[i]'s slot (0: not known) */
    int any_slot;
} building;

static int cmp_obj(const void *a, const void *b)
{
    uint64_t x = ((const raw_obj *)a)->addr, y = ((const raw_obj *)b)->addr;
    return x < y ? -1 : x > y;
}

/* Index of addr in the sorted addresses, or RP_HEAP_NONE. */
static int cmp_field(const void *a, const void *b)
{
    const struct rp_heap_field *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

const char *rp_heap_field_name(const rp_heap *h, uint32_t type, uint32_t slot)
{
    uint64_t off = (uint64_t)slot * 8;
    size_t lo = 0, hi = h->nfields;

    if (slot == 0 || h->nfields == 0)
        return NULL;
    /* the last field of type at or below off: the reference itself, or the struct that holds it */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct rp_heap_field *f = &h->fields[mid];
        if (f->type < type || (f->type == type && f->offset <= off))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || h->fields[lo - 1].type != type)
        return NULL;
    return h->fields[lo - 1].name;
}

static uint32_t find(const uint64_t *addr, size_t n, uint64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && addr[lo] == a ? (uint32_t)lo : RP_HEAP_NONE;
}

static rp_heap_snapshot *snapshot_of(rp_heap *h, uint32_t index)
{
    for (size_t i = 0; i < h->nsnap; i++)
        if (h->snap[i].index == index)
            return &h->snap[i];
    return NULL;
}

static int cmp_frame(const void *a, const void *b)
{
    uint64_t x = ((const struct rp_heap_frame *)a)->id, y = ((const struct rp_heap_frame *)b)->id;
    return x < y ? -1 : x > y;
}

/* A name record (heap_type, heap_root_name) as read: its index, and its
 * place in the trace so that a later record of the same index wins. */
typedef struct raw_name { uint32_t index; size_t order; const char *name; } raw_name;

static int cmp_raw_name(const void *a, const void *b)
{
    const raw_name *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts the names by index and keeps the last of each index; returns how
 * many are left.  (Names are kept as sorted pairs, not in a table indexed
 * by the index read: an index from the trace sizes nothing.) */
static size_t unique_names(raw_name *v, size_t n)
{
    size_t k = 0;

    if (n == 0)
        return 0;
    rp_sort(v, n, sizeof(*v), cmp_raw_name);
    for (size_t i = 0; i < n; i++) {
        if (k && v[k - 1].index == v[i].index)
            k--;
        v[k++] = v[i];
    }
    return k;
}

/* Position of index in the sorted ids, or RP_HEAP_NONE. */
static uint32_t find_u32(const uint32_t *ids, size_t n, uint32_t index)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ids[lo] == index ? (uint32_t)lo : RP_HEAP_NONE;
}

/* The type table: the named types in order of their trace index, then
 * one slot for the objects whose index no heap_type record names. */
static int set_types(rp_heap *h, raw_name *v, size_t n)
{
    n = unique_names(v, n);
    h->type_names = malloc((n + 1) * sizeof(*h->type_names));
    h->type_ids = malloc((n + 1) * sizeof(*h->type_ids));
    if (!h->type_names || !h->type_ids)
        return -1;
    for (size_t i = 0; i < n; i++) {
        h->type_names[i] = v[i].name;
        h->type_ids[i] = v[i].index;
    }
    h->type_names[n] = NULL;
    h->ntype_names = n + 1;
    return 0;
}

/* The table index of a type index read from the trace. */
static uint32_t type_slot(const rp_heap *h, uint32_t index)
{
    uint32_t k = find_u32(h->type_ids, h->ntype_names - 1, index);
    return k == RP_HEAP_NONE ? (uint32_t)(h->ntype_names - 1) : k;
}

static int set_root_names(rp_heap *h, raw_name *v, size_t n)
{
    n = unique_names(v, n);
    if ((h->root_names = malloc((n + 1) * sizeof(*h->root_names))) == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        h->root_names[i] = (struct rp_heap_root_name){ v[i].index, v[i].name };
    h->nroot_names = n;
    return 0;
}

/* The fields by table type; a field of a type no heap_type record names
 * is dropped (no object can be shown as that type). */
static void map_field_types(rp_heap *h)
{
    size_t k = 0;

    for (size_t i = 0; i < h->nfields; i++) {
        uint32_t t = find_u32(h->type_ids, h->ntype_names - 1, h->fields[i].type);
        if (t == RP_HEAP_NONE)
            continue;
        h->fields[k] = h->fields[i];
        h->fields[k++].type = t;
    }
    h->nfields = k;
}

static int decode_objects(rp_heap *h, building *b, const rec_heap_objects *r)
{
    heap_dec d;
    heap_obj o;
    uint64_t *refs = malloc(((size_t)r->data_len + 1) * sizeof(uint64_t));
    uint32_t *slots = malloc(((size_t)r->data_len + 1) * sizeof(uint32_t));
    int rc;

    if (!refs || !slots) {
        free(refs);
        free(slots);
        return -1;
    }
    heap_dec_init(&d, r->data, r->data_len);
    while ((rc = heap_dec_object_slots(&d, &o, refs, slots, (size_t)r->data_len + 1)) == 1) {
        if (!(o.flags & HEAP_OBJ_CONT)) {
            raw_obj *ro = vec_push(&b->objs);
            if (!ro)
                goto oom;
            *ro = (raw_obj){ o.addr, o.size, o.type, o.flags };
        }
        for (size_t k = 0; k < o.nrefs; k++) {
            raw_ref *rr = vec_push(&b->refs);
            uint32_t *rs = vec_push(&b->slots);
            if (!rr || !rs)
                goto oom;
            *rr = (raw_ref){ o.addr, refs[k] };
            *rs = slots[k];
            b->any_slot |= slots[k] != 0;
        }
    }
    if (rc < 0)
        h->malformed++;
    free(refs);
    free(slots);
    return 0;
oom:
    free(refs);
    free(slots);
    return -1;
}

static int decode_roots(rp_heap *h, building *b, const rec_heap_roots *r)
{
    heap_dec d;
    heap_root hr;
    int rc;

    heap_dec_init(&d, r->data, r->data_len);
    while ((rc = heap_dec_root(&d, &hr)) == 1) {
        raw_root *rr = vec_push(&b->roots);
        if (!rr)
            return -1;
        *rr = (raw_root){ hr.object, hr.id, hr.kind, hr.flags };
    }
    if (rc < 0)
        h->malformed++;
    return 0;
}

/* The collected entries of one snapshot as its sorted, indexed graph (the
 * objects' types as indexes of h's type table). */
static int finish(const rp_heap *h, rp_heap_snapshot *s, building *b)
{
    raw_obj *ro = b->objs.p;
    raw_ref *rr = b->refs.p;
    raw_root *rt = b->roots.p;
    size_t n = 0, nedges = 0;
    uint32_t *from = NULL;

    if (b->objs.n)
        rp_sort(ro, b->objs.n, sizeof(*ro), cmp_obj);
    s->addr = malloc((b->objs.n + 1) * sizeof(uint64_t));
    s->size = malloc((b->objs.n + 1) * sizeof(uint64_t));
    s->type = malloc((b->objs.n + 1) * sizeof(uint32_t));
    s->flags = malloc(b->objs.n + 1);
    s->edge_start = calloc(b->objs.n + 2, sizeof(size_t));
    if (!s->addr || !s->size || !s->type || !s->flags || !s->edge_start)
        return -1;
    for (size_t i = 0; i < b->objs.n; i++) {
        if (n && s->addr[n - 1] == ro[i].addr) {
            s->duplicate_objects++;
            s->flags[n - 1] |= (uint8_t)ro[i].flags;     /* (a frozen object: walked, then marked) */
            continue;
        }
        s->addr[n] = ro[i].addr;
        s->size[n] = ro[i].size;
        s->type[n] = type_slot(h, ro[i].type);
        s->unnamed_types += s->type[n] == h->ntype_names - 1;
        s->flags[n] = (uint8_t)ro[i].flags;
        s->total_bytes += ro[i].size;
        n++;
    }
    s->nobjects = n;
    for (size_t i = 0; i < n; i++)
    {
        s->frozen += (s->flags[i] & HEAP_OBJ_FROZEN) != 0;
        s->seen += (s->flags[i] & HEAP_OBJ_SEEN) != 0;
    }

    /* references (and dependent handles: key -> value) as index pairs */
    from = malloc((b->refs.n + b->roots.n + 1) * sizeof(uint32_t));
    s->edges = malloc((b->refs.n + b->roots.n + 1) * sizeof(uint32_t));
    s->roots = malloc((b->roots.n + 1) * sizeof(rp_heap_root));
    if (b->any_slot)
        s->edge_slot = malloc((b->refs.n + b->roots.n + 1) * sizeof(uint32_t));
    if (!from || !s->edges || !s->roots || (b->any_slot && !s->edge_slot)) {
        free(from);
        return -1;
    }
    for (size_t i = 0; i < b->refs.n + b->roots.n; i++) {
        uint64_t f, t;
        uint32_t fi, ti;
        if (i < b->refs.n) {
            f = rr[i].from;
            t = rr[i].to;
        } else {
            const raw_root *x = &rt[i - b->refs.n];
            if (x->kind != HEAP_ROOT_DEPENDENT)
                continue;
            f = x->id;
            t = x->object;
        }
        fi = find(s->addr, n, f);
        ti = find(s->addr, n, t);
        if (fi == RP_HEAP_NONE || ti == RP_HEAP_NONE) {
            s->dropped_refs++;
            continue;
        }
        from[nedges] = fi;
        if (s->edge_slot)
            s->edge_slot[nedges] = i < b->refs.n ? ((const uint32_t *)b->slots.p)[i] : 0;
        s->edges[nedges++] = ti;
        s->edge_start[fi + 1]++;
    }
    /* counting sort of the pairs by their source: CSR */
    for (size_t i = 0; i < n; i++)
        s->edge_start[i + 1] += s->edge_start[i];
    {
        uint32_t *sorted = malloc((nedges + 1) * sizeof(uint32_t));
        uint32_t *sorted_slot = s->edge_slot ? malloc((nedges + 1) * sizeof(uint32_t)) : NULL;
        size_t *pos = malloc((n + 1) * sizeof(size_t));
        if (!sorted || !pos || (s->edge_slot && !sorted_slot)) {
            free(sorted);
            free(sorted_slot);
            free(pos);
            free(from);
            return -1;
        }
        memcpy(pos, s->edge_start, (n + 1) * sizeof(size_t));
        for (size_t i = 0; i < nedges; i++) {
            size_t at = pos[from[i]]++;
            sorted[at] = s->edges[i];
            if (sorted_slot)
                sorted_slot[at] = s->edge_slot[i];
        }
        free(s->edges);
        s->edges = sorted;
        free(s->edge_slot);
        s->edge_slot = sorted_slot;
        free(pos);
    }
    free(from);
    s->nedges = nedges;

    for (size_t i = 0; i < b->roots.n; i++) {
        uint32_t oi;
        if (rt[i].kind == HEAP_ROOT_DEPENDENT)
            continue;
        if ((oi = find(s->addr, n, rt[i].object)) == RP_HEAP_NONE)
            continue;
        s->roots[s->nroots++] = (rp_heap_root){ rt[i].kind, rt[i].flags, oi, rt[i].id };
    }
    return 0;
}

int rp_heap_build(const rp_trace *tr, rp_heap *h)
{
    building *b = NULL;
    size_t fields_cap = 0;
    vec types = { .elem = sizeof(raw_name) }, roots = { .elem = sizeof(raw_name) };
    raw_name *rn;
    size_t unnamed;
    int rc = -1;

    memset(h, 0, sizeof(*h));
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_HEAP_BEGIN && !snapshot_of(h, tr->ev[i].heap_begin.snapshot)) {
            rp_heap_snapshot *p = realloc(h->snap, (h->nsnap + 1) * sizeof(*p));
            if (!p)
                return -1;
            h->snap = p;
            memset(&p[h->nsnap], 0, sizeof(*p));
            p[h->nsnap].index = tr->ev[i].heap_begin.snapshot;
            p[h->nsnap].method = tr->ev[i].heap_begin.method;
            p[h->nsnap].t_begin = tr->ev[i].t;
            h->nsnap++;
        }
    if (h->nsnap == 0)
        return 0;
    if ((b = calloc(h->nsnap, sizeof(*b))) == NULL)
        return -1;
    for (size_t k = 0; k < h->nsnap; k++) {
        b[k].objs.elem = sizeof(raw_obj);
        b[k].refs.elem = sizeof(raw_ref);
        b[k].roots.elem = sizeof(raw_root);
        b[k].slots.elem = sizeof(uint32_t);
    }
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        rp_heap_snapshot *s;
        switch (e->kind) {
        case TK_HEAP_TYPE:
            if ((rn = vec_push(&types)) == NULL)
                goto out;
            *rn = (raw_name){ e->heap_type.index, i, e->heap_type.name };
            break;
        case TK_HEAP_ROOT_NAME:
            if ((rn = vec_push(&roots)) == NULL)
                goto out;
            *rn = (raw_name){ e->heap_root_name.index, i, e->heap_root_name.name };
            break;
        case TK_HEAP_FIELD: {
            struct rp_heap_field *f;
            if (h->nfields == fields_cap) {
                size_t cap = fields_cap ? fields_cap * 2 : 256;
                if ((f = realloc(h->fields, cap * sizeof(*f))) == NULL)
                    goto out;
                h->fields = f;
                fields_cap = cap;
            }
            h->fields[h->nfields++] = (struct rp_heap_field){ e->heap_field.type, e->heap_field.offset,
                                                               e->heap_field.name };
            break;
        }
        case TK_HEAP_FRAME_NAME: {
            struct rp_heap_frame *f = realloc(h->frames, (h->nframes + 1) * sizeof(*f));
            if (!f)
                goto out;
            h->frames = f;
            f[h->nframes].id = e->heap_frame_name.function_id;
            f[h->nframes++].name = e->heap_frame_name.name;
            break;
        }
        case TK_HEAP_OBJECTS:
            if ((s = snapshot_of(h, e->heap_objects.snapshot)) != NULL &&
                decode_objects(h, &b[s - h->snap], &e->heap_objects) < 0)
                goto out;
            break;
        case TK_HEAP_ROOTS:
            if ((s = snapshot_of(h, e->heap_roots.snapshot)) != NULL &&
                decode_roots(h, &b[s - h->snap], &e->heap_roots) < 0)
                goto out;
            break;
        case TK_HEAP_END:
            if ((s = snapshot_of(h, e->heap_end.snapshot)) != NULL) {
                s->complete = 1;
                s->t_end = e->t;
                s->status = e->heap_end.status;
                s->end_flags = e->heap_end.flags;
                s->pause_ns = e->heap_end.pause_ns;
            }
            break;
        default:
            break;
        }
    }
    if (set_types(h, types.p, types.n) < 0 || set_root_names(h, roots.p, roots.n) < 0)
        goto out;
    map_field_types(h);
    for (size_t k = 0; k < h->nsnap; k++)
        if (finish(h, &h->snap[k], &b[k]) < 0)
            goto out;
    unnamed = 0;
    for (size_t k = 0; k < h->nsnap; k++)
        unnamed += h->snap[k].unnamed_types;
    if (!unnamed)
        h->ntype_names--;                    /* (the slot for unnamed types: not needed) */
    if (h->nframes)
        rp_sort(h->frames, h->nframes, sizeof(*h->frames), cmp_frame);
    if (h->nfields)
        rp_sort(h->fields, h->nfields, sizeof(*h->fields), cmp_field);
    rc = 0;
out:
    free(types.p);
    free(roots.p);
    for (size_t k = 0; k < h->nsnap && b; k++) {
        free(b[k].objs.p);
        free(b[k].refs.p);
        free(b[k].roots.p);
        free(b[k].slots.p);
    }
    free(b);
    return rc;
}

/* ---- dominators ---- */

/* Lengauer-Tarjan's EVAL with path compression, without recursion: the
 * vertex of least semidominator on the path from v up to (not including)
 * the root of its tree in the forest.  Works on preorder numbers. */
static uint32_t lt_eval(uint32_t v, uint32_t *ancestor, uint32_t *label, const uint32_t *semi, uint32_t *path)
{
    size_t np = 0;
    uint32_t x = v;

    if (ancestor[v] == UINT32_MAX)
        return v;
    while (ancestor[ancestor[x]] != UINT32_MAX) {    /* the path to compress, bottom up */
        path[np++] = x;
        x = ancestor[x];
    }
    while (np--) {                                     /* top down */
        uint32_t y = path[np];
        if (semi[label[ancestor[y]]] < semi[label[y]])
            label[y] = label[ancestor[y]];
        ancestor[y] = ancestor[ancestor[y]];
    }
    return label[v];
}

int rp_dominators(size_t n, const size_t *start, const uint32_t *edges, uint32_t *idom)
{
    /* by preorder number: */
    uint32_t *vertex = malloc((n + 1) * sizeof(uint32_t));   /* the node */
    uint32_t *parent = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *semi = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *ancestor = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *label = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *dom = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *bucket = malloc((n + 1) * sizeof(uint32_t));   /* head of the bucket of each number */
    uint32_t *bnext = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *path = malloc((n + 1) * sizeof(uint32_t));
    /* by node: */
    uint32_t *pre = malloc((n + 1) * sizeof(uint32_t));      /* preorder number, or UINT32_MAX */
    size_t *next = malloc((n + 1) * sizeof(size_t));
    size_t *pstart = calloc(n + 2, sizeof(size_t));
    uint32_t *preds = NULL, *stack = path;
    size_t sp = 0, nr = 0;
    int rc = -1;

    if (!vertex || !parent || !semi || !ancestor || !label || !dom || !bucket || !bnext || !path || !pre ||
        !next || !pstart)
        goto out;
    for (size_t v = 0; v < n; v++) {
        pre[v] = UINT32_MAX;
        idom[v] = UINT32_MAX;
        next[v] = start[v];
    }
    if (n == 0) {
        rc = 0;
        goto out;
    }
    /* iterative depth-first search from 0: preorder numbers and DFS-tree parents */
    pre[0] = 0;
    vertex[0] = 0;
    parent[0] = UINT32_MAX;
    nr = 1;
    stack[sp++] = 0;
    while (sp) {
        uint32_t v = stack[sp - 1];
        if (next[v] < start[v + 1]) {
            uint32_t w = edges[next[v]++];
            if (pre[w] == UINT32_MAX) {
                pre[w] = (uint32_t)nr;
                vertex[nr] = w;
                parent[nr] = pre[v];
                nr++;
                stack[sp++] = w;
            }
        } else {
            sp--;
        }
    }
    /* predecessors (as preorder numbers) of reached nodes, by preorder number */
    for (size_t v = 0; v < n; v++)
        if (pre[v] != UINT32_MAX)
            for (size_t k = start[v]; k < start[v + 1]; k++)
                pstart[pre[edges[k]] + 1]++;
    for (size_t i = 0; i < nr; i++)
        pstart[i + 1] += pstart[i];
    if ((preds = malloc((pstart[nr] + 1) * sizeof(uint32_t))) == NULL)
        goto out;
    memcpy(next, pstart, nr * sizeof(size_t));
    for (size_t v = 0; v < n; v++)
        if (pre[v] != UINT32_MAX)
            for (size_t k = start[v]; k < start[v + 1]; k++)
                preds[next[pre[edges[k]]]++] = pre[v];

    for (size_t i = 0; i < nr; i++) {
        semi[i] = (uint32_t)i;
        label[i] = (uint32_t)i;
        ancestor[i] = UINT32_MAX;
        bucket[i] = UINT32_MAX;
        dom[i] = 0;
    }
    for (size_t i = nr - 1; i >= 1; i--) {
        uint32_t w = (uint32_t)i, p = parent[w];
        for (size_t k = pstart[w]; k < pstart[w + 1]; k++) {
            uint32_t u = lt_eval(preds[k], ancestor, label, semi, path);
            if (semi[u] < semi[w])
                semi[w] = semi[u];
        }
        bnext[w] = bucket[semi[w]];               /* w into the bucket of its semidominator */
        bucket[semi[w]] = w;
        ancestor[w] = p;                          /* LINK(parent, w) */
        for (uint32_t v = bucket[p]; v != UINT32_MAX; v = bnext[v]) {
            uint32_t u = lt_eval(v, ancestor, label, semi, path);
            dom[v] = semi[u] < semi[v] ? u : p;
        }
        bucket[p] = UINT32_MAX;
    }
    for (size_t i = 1; i < nr; i++)
        if (dom[i] != semi[i])
            dom[i] = dom[dom[i]];
    idom[0] = 0;
    for (size_t i = 1; i < nr; i++)
        idom[vertex[i]] = vertex[dom[i]];
    rc = 0;
out:
    free(vertex);
    free(parent);
    free(semi);
    free(ancestor);
    free(label);
    free(dom);
    free(bucket);
    free(bnext);
    free(path);
    free(pre);
    free(next);
    free(pstart);
    free(preds);
    return rc;
}

static int cmp_type_stat(const void *a, const void *b)
{
    const rp_heap_type_stat *x = a, *y = b;
    if (x->retained != y->retained)
        return x->retained < y->retained ? 1 : -1;
    if (x->shallow != y->shallow)
        return x->shallow < y->shallow ? 1 : -1;
    return x->type < y->type ? -1 : x->type > y->type;
}

int rp_heap_analyse(rp_heap *h, rp_heap_snapshot *s)
{
    size_t n = s->nobjects + 1, ne = 0, rootedges = 0;
    size_t *start = calloc(n + 1, sizeof(size_t));
    uint32_t *edges = NULL, *idom = malloc(n * sizeof(uint32_t));
    uint8_t *reached = calloc(n, 1);
    uint32_t *queue = malloc(n * sizeof(uint32_t));
    size_t *kids_start = NULL;
    uint32_t *kids = NULL, *active = NULL;
    uint32_t maxtype = 0;
    int rc = -1;

    (void)h;
    if (!start || !idom || !reached || !queue)
        goto out;
    /* the virtual root's edges: retaining roots and frozen objects */
    for (size_t i = 0; i < s->nroots; i++)
        if (rp_heap_root_retains(&s->roots[i]))
            rootedges++;
    for (size_t i = 0; i < s->nobjects; i++)
        if (s->flags[i] & HEAP_OBJ_FROZEN)
            rootedges++;
    /* (room for an edge from the root to every object no root reaches) */
    if ((edges = malloc((rootedges + s->nobjects + s->nedges + 1) * sizeof(uint32_t))) == NULL)
        goto out;
    for (size_t i = 0; i < s->nroots; i++)
        if (rp_heap_root_retains(&s->roots[i]))
            edges[ne++] = s->roots[i].object + 1;
    for (size_t i = 0; i < s->nobjects; i++)
        if (s->flags[i] & HEAP_OBJ_FROZEN)
            edges[ne++] = (uint32_t)i + 1;
    /* reachability from those, breadth first */
    {
        size_t qh = 0, qt = 0;
        for (size_t k = 0; k < ne; k++)
            if (!reached[edges[k]]) {
                reached[edges[k]] = 1;
                queue[qt++] = edges[k];
            }
        while (qh < qt) {
            uint32_t v = queue[qh++] - 1;
            for (size_t k = s->edge_start[v]; k < s->edge_start[v + 1]; k++) {
                uint32_t w = s->edges[k] + 1;
                if (!reached[w]) {
                    reached[w] = 1;
                    queue[qt++] = w;
                }
            }
        }
    }
    s->unrooted = 0;
    for (size_t i = 0; i < s->nobjects; i++)
        if (!reached[i + 1]) {
            edges[ne++] = (uint32_t)i + 1;
            s->unrooted++;
        }
    start[1] = ne;
    for (size_t i = 0; i < s->nobjects; i++) {
        for (size_t k = s->edge_start[i]; k < s->edge_start[i + 1]; k++)
            edges[ne++] = s->edges[k] + 1;
        start[i + 2] = ne;
    }
    if (rp_dominators(n, start, edges, idom) < 0)
        goto out;
    for (size_t v = 1; v < n; v++)
        if (idom[v] == UINT32_MAX)       /* (every object is reached from the root by now) */
            idom[v] = 0;

    /* retained sizes: children before their dominator (postorder of the
     * dominator tree = any order where idom comes later: use depth via the
     * BFS over the dominator tree's children) */
    free(s->idom);
    free(s->retained);
    s->idom = malloc((s->nobjects + 1) * sizeof(uint32_t));
    s->retained = calloc(s->nobjects + 1, sizeof(uint64_t));
    kids_start = calloc(n + 1, sizeof(size_t));
    kids = malloc(n * sizeof(uint32_t));
    if (!s->idom || !s->retained || !kids_start || !kids)
        goto out;
    for (size_t v = 1; v < n; v++)
        kids_start[idom[v] + 1]++;
    for (size_t v = 0; v < n; v++)
        kids_start[v + 1] += kids_start[v];
    {
        size_t *pos = malloc(n * sizeof(size_t)), qh = 0, qt = 0;
        if (!pos)
            goto out;
        memcpy(pos, kids_start, n * sizeof(size_t));
        for (size_t v = 1; v < n; v++)
            kids[pos[idom[v]]++] = (uint32_t)v;
        free(pos);
        /* BFS order of the dominator tree into queue; sizes summed in reverse */
        queue[qt++] = 0;
        while (qh < qt) {
            uint32_t v = queue[qh++];
            for (size_t k = kids_start[v]; k < kids_start[v + 1]; k++)
                queue[qt++] = kids[k];
        }
        for (size_t i = 1; i < n; i++)
            s->retained[i - 1] = s->size[i - 1];
        for (size_t i = qt; i-- > 1;) {
            uint32_t v = queue[i];
            if (idom[v] != 0)
                s->retained[idom[v] - 1] += s->retained[v - 1];
        }
    }
    for (size_t v = 1; v < n; v++)
        s->idom[v - 1] = idom[v] == 0 ? RP_HEAP_NONE : idom[v] - 1;

    /* per type: count, shallow, and retained of the objects no object of
     * the same type dominates (a depth-first walk of the dominator tree
     * keeping, per type, how many of its objects are on the path) */
    for (size_t i = 0; i < s->nobjects; i++)
        if (s->type[i] > maxtype)
            maxtype = s->type[i];
    free(s->types);
    s->types = calloc(s->nobjects ? (size_t)maxtype + 1 : 1, sizeof(rp_heap_type_stat));
    active = calloc(s->nobjects ? (size_t)maxtype + 1 : 1, sizeof(uint32_t));
    if (!s->types || !active)
        goto out;
    {
        size_t *it = malloc(n * sizeof(size_t)), sp = 0;    /* queue reused as the stack */
        if (!it)
            goto out;
        queue[sp] = 0;
        it[sp++] = kids_start[0];
        while (sp) {
            uint32_t v = queue[sp - 1];
            if (it[sp - 1] < kids_start[v + 1]) {
                uint32_t w = kids[it[sp - 1]++], ty = s->type[w - 1];
                rp_heap_type_stat *t = &s->types[ty];
                t->count++;
                t->shallow += s->size[w - 1];
                if (active[ty]++ == 0)
                    t->retained += s->retained[w - 1];
                queue[sp] = w;
                it[sp++] = kids_start[w];
            } else {
                if (v != 0)
                    active[s->type[v - 1]]--;
                sp--;
            }
        }
        free(it);
    }
    s->ntypes = 0;
    for (size_t t = 0; s->nobjects && t <= maxtype; t++)
        if (s->types[t].count) {
            s->types[t].type = (uint32_t)t;
            s->types[s->ntypes++] = s->types[t];
        }
    rp_sort(s->types, s->ntypes, sizeof(*s->types), cmp_type_stat);
    rc = 0;
out:
    free(start);
    free(edges);
    free(idom);
    free(reached);
    free(queue);
    free(kids_start);
    free(kids);
    free(active);
    return rc;
}

rp_heap_snapshot *rp_heap_pick(rp_heap *h)
{
    for (size_t k = h->nsnap; k-- > 0;)
        if (h->snap[k].complete)
            return &h->snap[k];
    return h->nsnap ? &h->snap[h->nsnap - 1] : NULL;
}

int rp_heap_partial(const rp_heap_snapshot *s)
{
    return !s->complete || s->status != 0 || (s->end_flags & (HEAP_END_WALK_STOPPED | HEAP_END_ABANDONED)) != 0;
}

int rp_heap_identity(const rp_heap_snapshot *s)
{
    return s->complete && !(s->end_flags & HEAP_END_NO_IDENTITY);
}

const char *rp_heap_type_name(const rp_heap *h, uint32_t type)
{
    return type < h->ntype_names && h->type_names[type] ? h->type_names[type] : "?";
}

static const char *frame_name(const rp_heap *h, uint64_t id)
{
    size_t lo = 0, hi = h->nframes;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->frames[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->nframes && h->frames[lo].id == id && h->frames[lo].name[0] ? h->frames[lo].name : NULL;
}

static const char *root_name(const rp_heap *h, uint64_t id)
{
    size_t lo = 0, hi = h->nroot_names;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->root_names[mid].index < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->nroot_names && h->root_names[lo].index == id ? h->root_names[lo].name : NULL;
}

const char *rp_heap_root_describe(const rp_heap *h, const rp_heap_root *r, char *buf, size_t cap)
{
    const char *name;

    switch (r->kind) {
    case HEAP_ROOT_STACK:
        name = r->id ? frame_name(h, r->id) : NULL;
        snprintf(buf, cap, "local in %s", name ? name : "a runtime frame");
        break;
    case HEAP_ROOT_FINALIZER:
        snprintf(buf, cap, "finalizer queue");
        break;
    case HEAP_ROOT_HANDLE:
        snprintf(buf, cap, "%s handle", (r->flags & HEAP_ROOT_FLAG_REFCOUNTED) ? "ref-counted" :
                                        (r->flags & HEAP_ROOT_FLAG_WEAKREF) ? "weak" :
                                        (r->flags & HEAP_ROOT_FLAG_PINNING) ? "pinned" : "strong");
        break;
    case HEAP_ROOT_STATIC:
        name = root_name(h, r->id);
        snprintf(buf, cap, "static %s", name ? name : "?");
        break;
    case HEAP_ROOT_DEPENDENT:
        snprintf(buf, cap, "dependent handle");
        break;
    default:
        snprintf(buf, cap, "other root");
        break;
    }
    return buf;
}

int rp_heap_root_retains(const rp_heap_root *r)
{
    return r->kind != HEAP_ROOT_DEPENDENT && !(r->flags & HEAP_ROOT_FLAG_WEAKREF);  /* (weak, or ref-counted not held) */
}

void rp_heap_free(rp_heap *h)
{
    for (size_t k = 0; k < h->nsnap; k++) {
        rp_heap_snapshot *s = &h->snap[k];
        free(s->addr);
        free(s->size);
        free(s->type);
        free(s->flags);
        free(s->edge_start);
        free(s->edges);
        free(s->edge_slot);
        free(s->roots);
        free(s->idom);
        free(s->retained);
        free(s->types);
    }
    free(h->snap);
    free(h->type_names);
    free(h->type_ids);
    free(h->root_names);
    free(h->frames);
    free(h->fields);
    memset(h, 0, sizeof(*h));
}
