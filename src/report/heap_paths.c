/* heap_paths.c - why objects are alive (heap_paths.h). */
#include "report/heap_paths.h"
#include "trace/heap_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define START_FROZEN   (UINT32_MAX - 1)      /* start[] values that are not root indexes */
#define START_UNROOTED (UINT32_MAX - 2)
#define MAX_DEPTH 4096

static const char *type_name(const rp_heap *h, uint32_t t) { return rp_heap_type_name(h, t); }

/* Whether name ends with "." query or "+" query. */
static int suffix_match(const char *name, const char *query)
{
    size_t n = strlen(name), q = strlen(query);
    return n > q && strcmp(name + n - q, query) == 0 && (name[n - q - 1] == '.' || name[n - q - 1] == '+');
}

int rp_heap_resolve_type(const rp_heap *h, const rp_heap_snapshot *s, const char *query, uint32_t *type, char *err,
                         size_t errlen)
{
    size_t found = 0, used = 0;
    uint32_t hit = 0;

    for (size_t i = 0; i < s->ntypes; i++)
        if (strcmp(type_name(h, s->types[i].type), query) == 0) {
            *type = s->types[i].type;
            return 0;
        }
    for (size_t i = 0; i < s->ntypes; i++)
        if (suffix_match(type_name(h, s->types[i].type), query)) {
            hit = s->types[i].type;
            found++;
        }
    if (found == 1) {
        *type = hit;
        return 0;
    }
    if (found > 1) {
        used = (size_t)snprintf(err, errlen, "'%s' names %zu types of snapshot %u; give the whole name:", query, found,
                                s->index);
        for (size_t i = 0; i < s->ntypes && used < errlen; i++)
            if (suffix_match(type_name(h, s->types[i].type), query))
                used += (size_t)snprintf(err + used, errlen - used, " %s", type_name(h, s->types[i].type));
        return -1;
    }
    used = (size_t)snprintf(err, errlen, "no object of type '%s' in snapshot %u", query, s->index);
    /* types whose name contains it, ignoring nothing: a hint at the spelling */
    found = 0;
    for (size_t i = 0; i < s->ntypes && used < errlen && found < 5; i++)
        if (strstr(type_name(h, s->types[i].type), query)) {
            used += (size_t)snprintf(err + used, errlen - used, "%s%s", found ? ", " : "; types like it: ",
                                     type_name(h, s->types[i].type));
            found++;
        }
    if (!found && used < errlen)
        snprintf(err + used, errlen - used, " (the types are in the report's Heap section)");
    return -1;
}

/* Root order for the search: statics, stack, handles, finalizer queue. */
static int root_rank(const rp_heap_root *r)
{
    switch (r->kind) {
    case HEAP_ROOT_STATIC: return 0;
    case HEAP_ROOT_STACK: return 1;
    case HEAP_ROOT_HANDLE: return 2;
    default: return 3;
    }
}

/* The breadth-first search from what is queued. */
static void drain(const rp_heap_snapshot *s, uint32_t *parent, uint32_t *start, uint32_t *queue, size_t *qh,
                  size_t *qt)
{
    while (*qh < *qt) {
        uint32_t v = queue[(*qh)++];
        for (size_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++) {
            uint32_t w = s->edges[e];
            if (start[w] != RP_HEAP_NONE)
                continue;
            start[w] = start[v];
            parent[w] = v;
            queue[(*qt)++] = w;
        }
    }
}

int rp_heap_paths(const rp_heap *h, const rp_heap_snapshot *s, uint32_t type, rp_heap_path **out, size_t *nout)
{
    size_t n = s->nobjects, qh = 0, qt = 0, npaths = 0, cap = 0;
    uint32_t *parent = malloc((n + 1) * sizeof(uint32_t)), *start = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *queue = malloc((n + 1) * sizeof(uint32_t)), chain[MAX_DEPTH];
    rp_heap_path *paths = NULL;
    int rc = -1;

    *out = NULL;
    *nout = 0;
    if (!parent || !start || !queue)
        goto out;
    for (size_t i = 0; i < n; i++)
        parent[i] = start[i] = RP_HEAP_NONE;
    /* the search, one start kind after another */
    for (int rank = 0; rank <= 3; rank++)
        for (size_t r = 0; r < s->nroots; r++) {
            uint32_t o = s->roots[r].object;
            if (root_rank(&s->roots[r]) != rank || !rp_heap_root_retains(&s->roots[r]) || start[o] != RP_HEAP_NONE)
                continue;
            start[o] = (uint32_t)r;
            queue[qt++] = o;
        }
    drain(s, parent, start, queue, &qh, &qt);
    for (size_t i = 0; i < n; i++)           /* then frozen objects */
        if ((s->flags[i] & HEAP_OBJ_FROZEN) && start[i] == RP_HEAP_NONE) {
            start[i] = START_FROZEN;
            queue[qt++] = (uint32_t)i;
        }
    drain(s, parent, start, queue, &qh, &qt);
    for (size_t i = 0; i < n; i++)           /* then, one by one, what nothing reached */
        if (start[i] == RP_HEAP_NONE) {
            start[i] = START_UNROOTED;
            queue[qt++] = (uint32_t)i;
            drain(s, parent, start, queue, &qh, &qt);
        }
    /* each instance's path, grouped by (start description, types) */
    for (size_t i = 0; i < n; i++) {
        size_t len = 0, g;
        char desc[RP_HEAP_ROOT_DESC];
        if (s->type[i] != type)
            continue;
        for (uint32_t v = (uint32_t)i; v != RP_HEAP_NONE && len < MAX_DEPTH; v = parent[v])
            chain[len++] = s->type[v];
        if (start[i] == START_FROZEN)
            snprintf(desc, sizeof(desc), "%s", RP_PATH_FROZEN);
        else if (start[i] == START_UNROOTED || start[i] == RP_HEAP_NONE)
            snprintf(desc, sizeof(desc), "%s", RP_PATH_UNROOTED);
        else
            rp_heap_root_describe(h, &s->roots[start[i]], desc, sizeof(desc));
        for (g = 0; g < npaths; g++) {
            if (paths[g].ntypes != len || strcmp(paths[g].root, desc) != 0)
                continue;
            size_t k = 0;
            while (k < len && paths[g].types[k] == chain[len - 1 - k])
                k++;
            if (k == len)
                break;
        }
        if (g == npaths) {
            if (npaths == cap) {
                size_t nc = cap ? cap * 2 : 8;
                rp_heap_path *np = realloc(paths, nc * sizeof(*np));
                if (!np)
                    goto out;
                paths = np;
                cap = nc;
            }
            memset(&paths[g], 0, sizeof(paths[g]));
            memcpy(paths[g].root, desc, sizeof(desc));
            if ((paths[g].types = malloc((len + 1) * sizeof(uint32_t))) == NULL)
                goto out;
            for (size_t k = 0; k < len; k++)
                paths[g].types[k] = chain[len - 1 - k];
            paths[g].ntypes = len;
            npaths++;
        }
        paths[g].instances++;
        paths[g].retained += s->retained ? s->retained[i] : s->size[i];
    }
    for (size_t a = 1; a < npaths; a++)      /* by retained bytes, largest first (few groups) */
        for (size_t b = a; b > 0 && paths[b].retained > paths[b - 1].retained; b--) {
            rp_heap_path t = paths[b];
            paths[b] = paths[b - 1];
            paths[b - 1] = t;
        }
    *out = paths;
    *nout = npaths;
    paths = NULL;
    rc = 0;
out:
    if (paths)
        rp_heap_paths_free(paths, npaths);
    free(parent);
    free(start);
    free(queue);
    return rc;
}

void rp_heap_paths_free(rp_heap_path *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i].types);
    free(p);
}
