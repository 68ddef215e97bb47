/* heap_paths.c - why objects are alive (heap_paths.h). */
#include "report/heap_paths.h"
#include "common/hash.h"
#include "common/idmap.h"
#include "trace/heap_codec.h"
#include "report/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define START_FROZEN   (UINT32_MAX - 1)      /* start[] values that are not root indexes */
#define START_UNROOTED (UINT32_MAX - 2)
#define MAX_DEPTH 128                        /* hops kept per path: those nearest the object */

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

int rp_heap_root_rank(const rp_heap_root *r)
{
    switch (r->kind) {
    case HEAP_ROOT_STATIC: return 0;
    case HEAP_ROOT_STACK: return 1;
    case HEAP_ROOT_HANDLE: return 2;
    default: return 3;
    }
}

static int cmp_path(const void *a, const void *b)
{
    const rp_heap_path *x = a, *y = b;
    return x->retained > y->retained ? -1 : x->retained < y->retained ? 1 :
           x->instances > y->instances ? -1 : x->instances < y->instances;
}

/* An instance's path, looked for among the groups so far. */
typedef struct path_key {
    const rp_heap_path *paths;
    uint64_t hash;
    const char *desc;                        /* its start */
    const uint32_t *chain;                   /* its types, the instance's first */
    const char *const *via;                  /* via[j]: chain[j]'s field in its parent */
    size_t len;
    int truncated;
} path_key;

/* Whether group g is the path k (idindex_same_fn). */
static int same_path(const void *ctx, uint32_t g)
{
    const path_key *k = ctx;
    const rp_heap_path *p = &k->paths[g];
    size_t j = 0;

    if (p->hash != k->hash || p->ntypes != k->len || p->truncated != k->truncated || strcmp(p->root, k->desc) != 0)
        return 0;
    while (j < k->len && p->types[j] == k->chain[k->len - 1 - j] &&
           (j + 1 == k->len || p->fields[j] == k->via[k->len - 2 - j]))
        j++;
    return j == k->len;
}

/* The breadth-first search from what is queued; held_at[w]: the word of
 * parent[w] that holds w (0: not known). */
static void drain(const rp_heap_snapshot *s, uint32_t *parent, uint32_t *held_at, uint32_t *start,
                  uint32_t *queue, size_t *qh, size_t *qt)
{
    while (*qh < *qt) {
        uint32_t v = queue[(*qh)++];
        for (size_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++) {
            uint32_t w = s->edges[e];
            if (start[w] != RP_HEAP_NONE)
                continue;
            start[w] = start[v];
            parent[w] = v;
            held_at[w] = s->edge_slot ? s->edge_slot[e] : 0;
            queue[(*qt)++] = w;
        }
    }
}

int rp_heap_paths(const rp_heap *h, const rp_heap_snapshot *s, uint32_t type, rp_heap_path **out, size_t *nout)
{
    size_t n = s->nobjects, qh = 0, qt = 0, npaths = 0, cap = 0;
    idindex *groups = NULL;
    uint32_t *parent = malloc((n + 1) * sizeof(uint32_t)), *start = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *queue = malloc((n + 1) * sizeof(uint32_t)), *held_at = malloc((n + 1) * sizeof(uint32_t));
    uint32_t chain[MAX_DEPTH];
    const char *via[MAX_DEPTH];              /* chain[j]'s field in its parent (NULL: none known) */
    rp_heap_path *paths = NULL;
    int rc = -1;

    *out = NULL;
    *nout = 0;
    if (!parent || !start || !queue || !held_at)
        goto out;
    for (size_t i = 0; i < n; i++) {
        parent[i] = start[i] = RP_HEAP_NONE;
        held_at[i] = 0;
    }
    /* the search, one start kind after another */
    for (int rank = 0; rank <= 3; rank++)
        for (size_t r = 0; r < s->nroots; r++) {
            uint32_t o = s->roots[r].object;
            if (rp_heap_root_rank(&s->roots[r]) != rank || !rp_heap_root_retains(&s->roots[r]) || start[o] != RP_HEAP_NONE)
                continue;
            start[o] = (uint32_t)r;
            queue[qt++] = o;
        }
    drain(s, parent, held_at, start, queue, &qh, &qt);
    for (size_t i = 0; i < n; i++)           /* then frozen objects */
        if ((s->flags[i] & HEAP_OBJ_FROZEN) && start[i] == RP_HEAP_NONE) {
            start[i] = START_FROZEN;
            queue[qt++] = (uint32_t)i;
        }
    drain(s, parent, held_at, start, queue, &qh, &qt);
    for (size_t i = 0; i < n; i++)           /* then, one by one, what nothing reached */
        if (start[i] == RP_HEAP_NONE) {
            start[i] = START_UNROOTED;
            queue[qt++] = (uint32_t)i;
            drain(s, parent, held_at, start, queue, &qh, &qt);
        }
    /* each instance's path, grouped by (start description, types and fields) */
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        long g;
        uint64_t hv = CP_FNV1A_BASIS;
        char desc[RP_HEAP_ROOT_DESC];
        uint32_t v = (uint32_t)i;
        path_key key;
        if (type != RP_HEAP_ALL_TYPES && s->type[i] != type)
            continue;
        for (; v != RP_HEAP_NONE && len < MAX_DEPTH; v = parent[v]) {
            via[len] = parent[v] != RP_HEAP_NONE ? rp_heap_field_name(h, s->type[parent[v]], held_at[v]) : NULL;
            chain[len++] = s->type[v];
        }
        if (v != RP_HEAP_NONE)
            hv ^= 0x5bd1e995u;                   /* (truncated paths group apart) */
        if (start[i] == START_FROZEN)
            snprintf(desc, sizeof(desc), "%s", RP_PATH_FROZEN);
        else if (start[i] == START_UNROOTED || start[i] == RP_HEAP_NONE)
            snprintf(desc, sizeof(desc), "%s", RP_PATH_UNROOTED);
        else
            rp_heap_root_describe(h, &s->roots[start[i]], desc, sizeof(desc));
        hv = cp_fnv1a_str_from(hv, desc);
        for (size_t k = 0; k < len; k++)
            hv = cp_fnv1a_step(hv, chain[k] ^ ((uint64_t)(uintptr_t)via[k] << 20));
        key = (path_key){ .paths = paths, .hash = hv, .desc = desc, .chain = chain, .via = via, .len = len,
                          .truncated = v != RP_HEAP_NONE };
        if ((g = idindex_find(groups, hv, same_path, &key)) < 0) {
            if (npaths == cap) {
                size_t nc = cap ? cap * 2 : 8;
                rp_heap_path *np = realloc(paths, nc * sizeof(*np));
                if (!np)
                    goto out;
                paths = np;
                cap = nc;
            }
            memset(&paths[npaths], 0, sizeof(paths[npaths]));
            memcpy(paths[npaths].root, desc, sizeof(desc));
            if ((paths[npaths].types = malloc((len + 1) * sizeof(uint32_t))) == NULL ||
                (paths[npaths].fields = calloc(len + 1, sizeof(const char *))) == NULL) {
                npaths++;                        /* (freed with the others) */
                goto out;
            }
            for (size_t k = 0; k < len; k++) {
                paths[npaths].types[k] = chain[len - 1 - k];
                if (k + 1 < len)
                    paths[npaths].fields[k] = via[len - 2 - k];
            }
            paths[npaths].ntypes = len;
            paths[npaths].truncated = v != RP_HEAP_NONE;
            paths[npaths].hash = hv;
            if (idindex_add(&groups, hv, (uint32_t)npaths) < 0) {
                npaths++;
                goto out;
            }
            g = (long)npaths++;
        }
        paths[g].instances++;
        paths[g].shallow += s->size[i];
        paths[g].retained += s->retained ? s->retained[i] : s->size[i];
    }
    rp_sort(paths, npaths, sizeof(*paths), cmp_path);
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
    free(held_at);
    idindex_free(groups);
    return rc;
}

void rp_heap_paths_free(rp_heap_path *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(p[i].types);
        free(p[i].fields);
    }
    free(p);
}
