/* heapsnapshot.c - a heap snapshot as a V8/Chrome .heapsnapshot file (the
 * JSON that Chrome DevTools' Memory panel loads: summary by type,
 * retainers, dominators, comparison of two files), written as it goes, so
 * a snapshot of millions of objects needs no big buffer.
 *
 * The graph: node 0 is the synthetic root; under it "(GC roots)", whose
 * children are one synthetic node per kind of root ("(static fields)",
 * "(stack roots)", "(handles)", "(finalizer queue)") plus "(frozen
 * objects)" (the non-GC heap, which the runtime holds) and "(no retaining
 * root)" (objects nothing retaining reaches: held by weak handles only).
 * A root is a "property" edge named after it (the static field, the stack
 * frame's method, the handle's kind); a weak handle is a "weak" edge, which
 * retains nothing in DevTools either.  Every .NET object is a node of type
 * "object" named by its type (so the summary groups by .NET type), its
 * id derived from its address (odd, as V8's heap object ids), self_size its
 * shallow size; its references are "element" edges numbered in the
 * runtime's order (the trace has no field names; a ConditionalWeakTable
 * entry is one more, from key to value). */
#include "report/heapsnapshot.h"
#include "report/heap_model.h"
#include "report/json.h"
#include "trace/heap_codec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { NT_HIDDEN, NT_ARRAY, NT_STRING, NT_OBJECT, NT_CODE, NT_CLOSURE, NT_REGEXP, NT_NUMBER, NT_NATIVE,
       NT_SYNTHETIC };
enum { ET_CONTEXT, ET_ELEMENT, ET_PROPERTY, ET_INTERNAL, ET_HIDDEN, ET_SHORTCUT, ET_WEAK };
enum { CAT_STATIC, CAT_STACK, CAT_HANDLE, CAT_FINALIZER, CAT_FROZEN, CAT_UNROOTED, NCAT };

static const char *const cat_names[NCAT] = {
    "(static fields)", "(stack roots)", "(handles)", "(finalizer queue)", "(frozen objects)", "(no retaining root)",
};

#define FIRST_OBJECT (2 + NCAT)              /* node index of object 0: root, (GC roots), categories */
#define NODE_FIELDS 7

/* String table: fixed strings first, then the type names, then root names
 * (one per root: they are few). */
enum { S_EMPTY, S_GC_ROOTS, S_CATS, S_FIXED = S_CATS + NCAT };

static int cat_of(const rp_heap_root *r)
{
    switch (r->kind) {
    case HEAP_ROOT_STATIC: return CAT_STATIC;
    case HEAP_ROOT_STACK: return CAT_STACK;
    case HEAP_ROOT_FINALIZER: return CAT_FINALIZER;
    default: return CAT_HANDLE;
    }
}

static void node(FILE *out, int *first, int type, uint64_t name, uint64_t id, uint64_t self, uint64_t edges)
{
    fprintf(out, "%s%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",0,0", *first ? "" : ",\n", type, name, id,
            self, edges);
    *first = 0;
}

static void edge(FILE *out, int *first, int type, uint64_t name_or_index, uint64_t to_node)
{
    fprintf(out, "%s%d,%" PRIu64 ",%" PRIu64, *first ? "" : ",\n", type, name_or_index, to_node * NODE_FIELDS);
    *first = 0;
}

int rp_write_heapsnapshot(const rp_trace *tr, FILE *out)
{
    rp_heap h;
    rp_heap_snapshot *s = NULL;
    uint8_t *reached = NULL;
    uint32_t *queue = NULL;
    uint64_t cat_edges[NCAT] = { 0 }, nedges = 0;
    size_t n, qh = 0, qt = 0;
    int rc = -1, first;
    char desc[RP_HEAP_ROOT_DESC];

    if (rp_heap_build(tr, &h) < 0)
        return -1;
    if ((s = rp_heap_pick(&h)) == NULL) {
        rp_heap_free(&h);
        return -1;
    }
    n = s->nobjects;
    reached = calloc(n + 1, 1);
    queue = malloc((n + 1) * sizeof(uint32_t));
    if (!reached || !queue)
        goto out;
    /* what the retaining roots and the frozen objects reach: the rest has no retaining root */
    for (size_t r = 0; r < s->nroots; r++) {
        cat_edges[cat_of(&s->roots[r])]++;
        if (rp_heap_root_retains(&s->roots[r]) && !reached[s->roots[r].object]) {
            reached[s->roots[r].object] = 1;
            queue[qt++] = s->roots[r].object;
        }
    }
    for (size_t i = 0; i < n; i++)
        if ((s->flags[i] & HEAP_OBJ_FROZEN)) {
            cat_edges[CAT_FROZEN]++;
            if (!reached[i]) {
                reached[i] = 1;
                queue[qt++] = (uint32_t)i;
            }
        }
    while (qh < qt) {
        uint32_t v = queue[qh++];
        for (size_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++)
            if (!reached[s->edges[e]]) {
                reached[s->edges[e]] = 1;
                queue[qt++] = s->edges[e];
            }
    }
    for (size_t i = 0; i < n; i++)
        if (!reached[i])
            cat_edges[CAT_UNROOTED]++;
    nedges = 1 + NCAT + s->nedges;
    for (int c = 0; c < NCAT; c++)
        nedges += cat_edges[c];

    fputs("{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
          "\"trace_node_id\",\"detachedness\"],\n\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\","
          "\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\",\"concatenated string\",\"sliced string\","
          "\"symbol\",\"bigint\",\"object shape\"],\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],\n"
          "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\n\"edge_types\":[[\"context\",\"element\","
          "\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"],\n"
          "\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\",\"script_id\",\"line\","
          "\"column\"],\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\",\"size\",\"children\"],"
          "\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],\"location_fields\":[\"object_index\","
          "\"script_id\",\"line\",\"column\"]},\n", out);
    fprintf(out, "\"node_count\":%zu,\"edge_count\":%" PRIu64 ",\"trace_function_count\":0},\n", n + FIRST_OBJECT,
            nedges);

    /* nodes: the root, (GC roots), the categories, the objects */
    fputs("\"nodes\":[", out);
    first = 1;
    node(out, &first, NT_SYNTHETIC, S_EMPTY, 1, 0, 1);
    node(out, &first, NT_SYNTHETIC, S_GC_ROOTS, 3, 0, NCAT);
    for (int c = 0; c < NCAT; c++)
        node(out, &first, NT_SYNTHETIC, S_CATS + (uint64_t)c, 5 + 2 * (uint64_t)c, 0, cat_edges[c]);
    for (size_t i = 0; i < n; i++)
        node(out, &first, NT_OBJECT, S_FIXED + s->type[i], (s->addr[i] >> 2) | 1, s->size[i],
             s->edge_start[i + 1] - s->edge_start[i]);
    fputs("],\n\"edges\":[", out);

    /* edges, node by node */
    first = 1;
    edge(out, &first, ET_ELEMENT, 1, 1);                      /* root -> (GC roots) */
    for (int c = 0; c < NCAT; c++)
        edge(out, &first, ET_ELEMENT, (uint64_t)c + 1, 2 + (uint64_t)c);
    {
        uint64_t rootname = S_FIXED + h.ntype_names, idx[NCAT] = { 0 };
        for (int c = 0; c < NCAT; c++) {
            if (c == CAT_FROZEN) {
                for (size_t i = 0; i < n; i++)
                    if (s->flags[i] & HEAP_OBJ_FROZEN)
                        edge(out, &first, ET_ELEMENT, ++idx[c], FIRST_OBJECT + i);
            } else if (c == CAT_UNROOTED) {
                for (size_t i = 0; i < n; i++)
                    if (!reached[i])
                        edge(out, &first, ET_ELEMENT, ++idx[c], FIRST_OBJECT + i);
            } else {
                for (size_t r = 0; r < s->nroots; r++) {
                    if (cat_of(&s->roots[r]) != c)
                        continue;
                    edge(out, &first, rp_heap_root_retains(&s->roots[r]) ? ET_PROPERTY : ET_WEAK, rootname + r,
                         FIRST_OBJECT + s->roots[r].object);
                }
            }
        }
    }
    /* the objects' references (a ConditionalWeakTable entry's key -> value among them: the model's) */
    for (size_t i = 0; i < n; i++)
        for (size_t e = s->edge_start[i]; e < s->edge_start[i + 1]; e++)
            edge(out, &first, ET_ELEMENT, e - s->edge_start[i], FIRST_OBJECT + s->edges[e]);
    fputs("],\n\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],\"locations\":[],\n\"strings\":[", out);

    /* strings: fixed, type names, one per root */
    json_string(out, "");
    fputc(',', out);
    json_string(out, "(GC roots)");
    for (int c = 0; c < NCAT; c++) {
        fputc(',', out);
        json_string(out, cat_names[c]);
    }
    for (size_t t = 0; t < h.ntype_names; t++) {
        fputc(',', out);
        json_string(out, rp_heap_type_name(&h, (uint32_t)t));
    }
    for (size_t r = 0; r < s->nroots; r++) {
        fputs(",\n", out);
        json_string(out, rp_heap_root_describe(&h, &s->roots[r], desc, sizeof(desc)));
    }
    fputs("]}\n", out);
    rc = ferror(out) ? -1 : 0;
out:
    free(reached);
    free(queue);
    rp_heap_free(&h);
    return rc;
}
