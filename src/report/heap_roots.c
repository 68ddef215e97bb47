/* heap_roots.c - what each group of a snapshot's roots holds and retains
 * (heap_model.h, rp_heap_root_groups): held, by --why's own search (the
 * shortest path from a root, roots taken in its order), so that the table
 * and --why name the same root; retained, by a dominator tree of its own,
 * the virtual root over one node per root description over the objects
 * those roots hold, so that a group's retained bytes are what it alone
 * keeps alive however many roots it has. */
#include "report/heap_model.h"
#include "report/sort.h"
#include "trace/heap_codec.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

typedef struct root_item {
    char desc[RP_HEAP_ROOT_DESC];
    uint32_t object;
    uint32_t root;                           /* its index in the snapshot's roots */
} root_item;

static int cmp_item_desc(const void *a, const void *b)
{
    const root_item *x = a, *y = b;
    int c = strcmp(x->desc, y->desc);
    return c ? c : (x->object > y->object) - (x->object < y->object);
}

static int cmp_group(const void *a, const void *b)
{
    const rp_heap_root_group *x = a, *y = b;
    if (x->held != y->held)
        return x->held > y->held ? -1 : 1;
    return x->retained > y->retained ? -1 : x->retained < y->retained ? 1 : strcmp(x->desc, y->desc);
}

int rp_heap_root_groups(const rp_heap *h, const rp_heap_snapshot *s, rp_heap_root_group **out, size_t *nout)
{
    size_t nobj = s->nobjects, nit = 0, ng = 0, n, ne = 0, qh = 0, qt = 0;
    root_item *it = malloc((s->nroots + 1) * sizeof(*it));
    rp_heap_root_group *g = NULL;
    size_t *start = NULL;
    size_t *first = NULL;
    uint32_t *edges = NULL, *idom = NULL, *queue = NULL, *top = NULL, *rgroup = NULL;
    uint8_t *seen = NULL;
    int rc = -1;

    *out = NULL;
    *nout = 0;
    if (!it)
        return -1;
    for (size_t i = 0; i < s->nroots; i++)
        if (rp_heap_root_retains(&s->roots[i])) {
            rp_heap_root_describe(h, &s->roots[i], it[nit].desc, sizeof(it[nit].desc));
            it[nit].root = (uint32_t)i;
            it[nit++].object = s->roots[i].object;
        }
    rp_sort(it, nit, sizeof(*it), cmp_item_desc);
    /* the groups: runs of one description in it (sorted); first[k] is group k's first item */
    if (!(g = calloc(nit + 2, sizeof(*g))) || !(first = malloc((nit + 2) * sizeof(*first))))
        goto out;
    for (size_t i = 0; i < nit; i++) {
        int new_group = i == 0 || strcmp(it[i].desc, it[i - 1].desc) != 0;
        if (new_group) {
            first[ng] = i;
            memcpy(g[ng++].desc, it[i].desc, sizeof(it[i].desc));
        }
        g[ng - 1].roots++;
        if (new_group || it[i - 1].object != it[i].object)
            g[ng - 1].objects++;
    }
    first[ng] = nit;
    /* nodes: 0 the virtual root, 1..ng the groups, ng+1.. the objects */
    n = 1 + ng + nobj;
    if (!(start = calloc(n + 1, sizeof(*start))) || !(idom = malloc(n * sizeof(*idom))) ||
        !(queue = malloc(n * sizeof(*queue))) || !(seen = calloc(n, 1)) || !(top = malloc(n * sizeof(*top))) ||
        !(rgroup = malloc((s->nroots + 1) * sizeof(*rgroup))) ||
        !(edges = malloc((ng + nit + 2 * nobj + s->nedges + 1) * sizeof(*edges))))
        goto out;
    /* the root's edges: the groups, then the frozen objects, then (below) what neither reaches */
    for (size_t k = 0; k < ng; k++)
        edges[ne++] = (uint32_t)(1 + k);
    for (size_t i = 0; i < nobj; i++)
        if (s->flags[i] & HEAP_OBJ_FROZEN)
            edges[ne++] = (uint32_t)(1 + ng + i);
    /* reachability from those, to find the rest */
    for (size_t k = 0; k < ne; k++) {
        seen[edges[k]] = 1;
        queue[qt++] = edges[k];
    }
    while (qh < qt) {
        uint32_t v = queue[qh++];
        if (v <= ng) {
            for (size_t i = first[v - 1]; i < first[v]; i++)
                if (!seen[1 + ng + it[i].object]) {
                    seen[1 + ng + it[i].object] = 1;
                    queue[qt++] = (uint32_t)(1 + ng + it[i].object);
                }
            continue;
        }
        for (size_t e = s->edge_start[v - 1 - ng]; e < s->edge_start[v - ng]; e++) {
            uint32_t w = (uint32_t)(1 + ng + s->edges[e]);
            if (!seen[w]) {
                seen[w] = 1;
                queue[qt++] = w;
            }
        }
    }
    for (size_t i = 0; i < nobj; i++)
        if (!seen[1 + ng + i])
            edges[ne++] = (uint32_t)(1 + ng + i);
    start[1] = ne;
    for (size_t k = 0; k < ng; k++) {
        for (size_t i = first[k]; i < first[k + 1]; i++)
            edges[ne++] = (uint32_t)(1 + ng + it[i].object);
        start[2 + k] = ne;
    }
    for (size_t i = 0; i < nobj; i++) {
        for (size_t e = s->edge_start[i]; e < s->edge_start[i + 1]; e++)
            edges[ne++] = (uint32_t)(1 + ng + s->edges[e]);
        start[2 + ng + i] = ne;
    }
    if (rp_dominators(n, start, edges, idom) < 0)
        goto out;
    /* each object's group: its dominator's, in an order where the dominator
     * comes first (breadth first from the root: every path to an object,
     * the shortest too, passes through its dominator) */
    memset(seen, 0, n);
    qh = qt = 0;
    queue[qt++] = 0;
    seen[0] = 1;
    top[0] = UINT32_MAX;
    while (qh < qt) {
        uint32_t v = queue[qh++];
        if (v != 0)
            top[v] = v <= ng ? v : idom[v] == UINT32_MAX ? UINT32_MAX : top[idom[v]];
        for (size_t e = start[v]; e < start[v + 1]; e++)
            if (!seen[edges[e]]) {
                seen[edges[e]] = 1;
                queue[qt++] = edges[e];
            }
    }
    /* what each group retains alone: the objects it dominates */
    for (size_t i = 0; i < nobj; i++) {
        uint32_t t = top[1 + ng + i];
        if (t != UINT32_MAX && t >= 1 && t <= ng)
            g[t - 1].retained += s->size[i];
    }
    /* what each group holds: --why's search, from the roots in its order (statics, stack, handles, the
     * others), each object to the group of the root its shortest path starts at */
    memset(seen, 0, n);
    qh = qt = 0;
    for (size_t r = 0; r < s->nroots; r++)
        rgroup[r] = UINT32_MAX;                  /* (a root that retains nothing: no group) */
    for (size_t k = 0; k < ng; k++)              /* (each root's group, by the root's index) */
        for (size_t i = first[k]; i < first[k + 1]; i++)
            rgroup[it[i].root] = (uint32_t)k;
    for (int rank = 0; rank <= 3; rank++)
        for (size_t r = 0; r < s->nroots; r++) {
            uint32_t w = (uint32_t)(1 + ng + s->roots[r].object);
            if (rgroup[r] == UINT32_MAX || rp_heap_root_rank(&s->roots[r]) != rank || seen[w])
                continue;
            seen[w] = 1;
            top[w] = rgroup[r];
            queue[qt++] = w;
        }
    while (qh < qt) {
        uint32_t v = queue[qh++];
        g[top[v]].held += s->size[v - 1 - ng];
        for (size_t e = start[v]; e < start[v + 1]; e++) {
            uint32_t w = edges[e];
            if (w > ng && !seen[w]) {
                seen[w] = 1;
                top[w] = top[v];
                queue[qt++] = w;
            }
        }
    }
    rp_sort(g, ng, sizeof(*g), cmp_group);
    *out = g;
    *nout = ng;
    g = NULL;
    rc = 0;
out:
    free(it);
    free(g);
    free(first);
    free(start);
    free(edges);
    free(idom);
    free(queue);
    free(seen);
    free(top);
    free(rgroup);
    return rc;
}
