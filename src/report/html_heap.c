/* html_heap.c - the html report's heap view data (html.c's "heap" member):
 * the trace's last heap snapshot, bounded so that the page stays small
 * whatever the heap's size.
 *
 *   "heap": { "snapshot", "objects", "bytes", "pause_ns", "roots",
 *             "names": [type name, ...],          the names the rest refers to, by index
 *             "types": [[name, count, shallow, retained], ...],   the HTML_TYPES types that
 *                                                 retain the most
 *             "paths": [[name, root, [name, ...], instances, of], ...],   for the HTML_PATHS
 *                                                 types that retain the most: the path most of
 *                                                 their instances share (root description, the
 *                                                 types from the root's object to the type), and
 *                                                 how many of all its instances share it
 *             "tree": [[parent, name, retained, shallow, "0x..."], ...] }
 *                                                 a part of the dominator tree: the HTML_NODES
 *                                                 objects that retain the most and their
 *                                                 dominators, parent an index into tree (-1: the
 *                                                 virtual root), parents before children */
#include "report/html_heap.h"
#include "report/heap_model.h"
#include "report/heap_paths.h"
#include "report/json.h"
#include "report/sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define HTML_TYPES 500
#define HTML_PATHS 60
#define HTML_NODES 3000
#define HTML_MAX_NODES (4 * HTML_NODES)

static const rp_heap_snapshot *g_s;               /* (qsort's context: one writer at a time) */

static int by_retained(const void *a, const void *b)
{
    uint64_t x = g_s->retained[*(const uint32_t *)a], y = g_s->retained[*(const uint32_t *)b];
    return x > y ? -1 : x < y;
}

int rp_write_html_heap(const rp_trace *tr, FILE *out)
{
    rp_heap h;
    rp_heap_snapshot *s;
    uint32_t *order = NULL, *node = NULL, *list = NULL, *nameix = NULL, nnames = 0;
    size_t nlist = 0, ntypes;
    int rc = -1;

    if (rp_heap_build(tr, &h) < 0)
        return -1;
    if ((s = rp_heap_pick(&h)) == NULL) {
        rp_heap_free(&h);
        return 0;                                  /* (no snapshot: no heap view) */
    }
    if (rp_heap_analyse(&h, s) < 0)
        goto out;
    order = malloc((s->nobjects + 1) * sizeof(uint32_t));
    node = malloc((s->nobjects + 1) * sizeof(uint32_t));
    list = malloc((HTML_MAX_NODES + 1) * sizeof(uint32_t));
    nameix = malloc((h.ntype_names + 1) * sizeof(uint32_t));
    if (!order || !node || !list || !nameix)
        goto out;
    for (size_t t = 0; t <= h.ntype_names; t++)
        nameix[t] = UINT32_MAX;
    /* the tree's nodes: the objects that retain the most, then their dominators up to the root */
    for (size_t i = 0; i < s->nobjects; i++) {
        order[i] = (uint32_t)i;
        node[i] = UINT32_MAX;
    }
    g_s = s;
    rp_sort(order, s->nobjects, sizeof(uint32_t), by_retained);
    for (size_t k = 0; k < s->nobjects && k < HTML_NODES && nlist < HTML_MAX_NODES; k++) {
        uint32_t chain[64], nc = 0;
        for (uint32_t v = order[k]; v != RP_HEAP_NONE && node[v] == UINT32_MAX && nc < 64; v = s->idom[v])
            chain[nc++] = v;
        if (nc == 64 || nlist + nc > HTML_MAX_NODES)
            continue;                              /* (too deep: left out) */
        while (nc--) {                             /* root side first: parents before children */
            node[chain[nc]] = (uint32_t)nlist;
            list[nlist++] = chain[nc];
        }
    }
    /* names used: the tree's and the types' */
    ntypes = s->ntypes < HTML_TYPES ? s->ntypes : HTML_TYPES;
    for (size_t i = 0; i < ntypes; i++)
        if (nameix[s->types[i].type] == UINT32_MAX)
            nameix[s->types[i].type] = nnames++;
    for (size_t i = 0; i < nlist; i++)
        if (nameix[s->type[list[i]]] == UINT32_MAX)
            nameix[s->type[list[i]]] = nnames++;

    fprintf(out, "\"heap\":{\"snapshot\":%u,\"objects\":%zu,\"bytes\":%" PRIu64 ",\"pause_ns\":%" PRIu64
            ",\"roots\":%zu,\n\"names\":[", s->index, s->nobjects, s->total_bytes, s->pause_ns, s->nroots);
    {
        uint32_t *byix = malloc((nnames + 1) * sizeof(uint32_t));
        if (!byix)
            goto out;
        for (size_t t = 0; t < h.ntype_names + 1; t++)
            if (nameix[t] != UINT32_MAX)
                byix[nameix[t]] = (uint32_t)t;
        for (uint32_t k = 0; k < nnames; k++) {
            if (k)
                fputs(",\n", out);
            json_string(out, rp_heap_type_name(&h, byix[k]));
        }
        free(byix);
    }
    fputs("],\n\"types\":[", out);
    for (size_t i = 0; i < ntypes; i++)
        fprintf(out, "%s[%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", i ? ",\n" : "", nameix[s->types[i].type],
                s->types[i].count, s->types[i].shallow, s->types[i].retained);
    fputs("],\n\"paths\":[", out);
    {
        /* one search for every object's path; for each of the first types, the path most of its instances share */
        rp_heap_path *p = NULL;
        size_t np = 0, written = 0;
        if (rp_heap_paths(&h, s, RP_HEAP_ALL_TYPES, &p, &np) < 0)
            goto out;
        for (size_t i = 0; i < ntypes && i < HTML_PATHS; i++) {
            uint32_t type = s->types[i].type;
            size_t best = np;
            for (size_t k = 0; k < np; k++)
                if (p[k].ntypes && p[k].types[p[k].ntypes - 1] == type && (best == np || p[k].instances > p[best].instances))
                    best = k;
            if (best == np)
                continue;
            fprintf(out, "%s[%u,", written++ ? ",\n" : "", nameix[type]);
            json_string(out, p[best].root);
            fputs(",[", out);
            for (size_t k = 0; k < p[best].ntypes; k++) {
                uint32_t t = p[best].types[k];
                if (k)
                    putc(',', out);
                if (p[best].fields[k]) {                          /* Type.field: inline */
                    char hop[1024];
                    snprintf(hop, sizeof(hop), "%s.%s", rp_heap_type_name(&h, t), p[best].fields[k]);
                    json_string(out, hop);
                } else if (t < h.ntype_names + 1 && nameix[t] != UINT32_MAX)
                    fprintf(out, "%u", nameix[t]);
                else
                    json_string(out, rp_heap_type_name(&h, t));   /* (a name not in the list: inline) */
            }
            fprintf(out, "],%" PRIu64 ",%" PRIu64 "]", p[best].instances, s->types[i].count);
        }
        rp_heap_paths_free(p, np);
    }
    fputs("],\n\"tree\":[", out);
    for (size_t i = 0; i < nlist; i++) {
        uint32_t v = list[i], up = s->idom[v];
        fprintf(out, "%s[%ld,%u,%" PRIu64 ",%" PRIu64 ",\"0x%" PRIx64 "\"]", i ? (i % 8 ? "," : ",\n") : "",
                up == RP_HEAP_NONE ? -1L : (long)node[up], nameix[s->type[v]], s->retained[v], s->size[v],
                s->addr[v]);
    }
    fputs("]}", out);
    rc = ferror(out) ? -1 : 0;
out:
    free(order);
    free(node);
    free(list);
    free(nameix);
    rp_heap_free(&h);
    return rc;
}

int rp_html_has_heap(const rp_trace *tr)
{
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_HEAP_BEGIN)
            return 1;
    return 0;
}
