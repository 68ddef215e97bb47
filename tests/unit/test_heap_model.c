/* test_heap_model.c - heap snapshots as the report sees them
 * (report/heap_model.h): the dominator tree on graphs with known answers
 * (a diamond, a chain, a cycle, shared objects, a million-long list), and a
 * snapshot written with the real writer and heap codec, read back: counts,
 * shallow and retained bytes per type, weak roots that retain nothing, a
 * dependent handle's edge, frozen and unrooted objects, an object whose
 * references continue in a second record. */
#include "unit.h"
#include "report/heap_model.h"
#include "report/heap_diff.h"
#include "report/heap_paths.h"
#include "report/heap_query.h"
#include "report/model.h"
#include "report/report.h"
#include "trace/heap_codec.h"
#include "trace/writer.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A graph from an edge list "a>b a>c ..." of single-digit nodes. */
static void dom(const char *spec, size_t n, const char *want)
{
    size_t start[16] = { 0 };
    uint32_t edges[64], from[64], to[64], idom[16];
    size_t ne = 0;
    char got[32];

    for (const char *p = spec; *p; p++)
        if (p[1] == '>') {
            from[ne] = (uint32_t)(p[0] - '0');
            to[ne++] = (uint32_t)(p[2] - '0');
            p += 2;
        }
    for (size_t v = 0; v < n; v++) {
        start[v + 1] = start[v];
        for (size_t k = 0; k < ne; k++)
            if (from[k] == v)
                edges[start[v + 1]++] = to[k];
    }
    CHECK_EQ(rp_dominators(n, start, edges, idom), 0);
    for (size_t v = 0; v < n; v++)
        got[v] = idom[v] == UINT32_MAX ? '-' : (char)('0' + idom[v]);
    got[n] = 0;
    CHECK_STR(got, want);
}

TEST(heap_dominators_known_graphs)
{
    dom("0>1 0>2 1>3 2>3", 4, "0000");           /* diamond: 3 is the root's */
    dom("0>1 1>2 2>3", 4, "0012");               /* chain */
    dom("0>1 1>2 2>3 3>1", 4, "0012");           /* cycle entered at 1 */
    dom("0>1 0>2 1>3 2>3 3>4 4>5 5>4", 6, "000034");
    dom("0>1 1>2", 4, "001-");                   /* 3 unreachable */
    dom("0>1 1>2 1>3 2>4 3>4 4>5", 6, "001114"); /* the classic: 4 by 1, 5 by 4 */
}

TEST(heap_dominators_of_a_million_long_chain_need_no_deep_stack)
{
    enum { N = 1000000 };
    size_t *start = malloc((N + 1) * sizeof(size_t));
    uint32_t *edges = malloc(N * sizeof(uint32_t)), *idom = malloc(N * sizeof(uint32_t));
    int ok = 1;

    for (size_t v = 0; v < N; v++) {
        start[v] = v;
        edges[v] = (uint32_t)(v + 1 < N ? v + 1 : 0);
    }
    start[N] = N;
    CHECK_EQ(rp_dominators(N, start, edges, idom), 0);
    for (size_t v = 1; v < N; v++)
        if (idom[v] != v - 1)
            ok = 0;
    CHECK(ok);
    free(start);
    free(edges);
    free(idom);
}

/* ---- a snapshot through the writer, the reader and the model ---- */

static trace_writer *w;
static trace_buffer *buf;

static void put(uint64_t t, int kind, const rec_any *v)
{
    trace_rec r;
    trace_rec_begin(&r, trace_buffer_begin(buf), TRACE_MAX_RECORD, kind, 1, t);
    rec_put(&r, kind, v);
    trace_buffer_end(buf, trace_rec_finish(&r));
}

#define A(i) (0x7f0000100000ull + 0x40ull * (i))

static void put_objects(uint64_t t, heap_enc *e, uint8_t *data)
{
    put(t, TK_HEAP_OBJECTS, &(rec_any){ .heap_objects = { .snapshot = 1, .count = e->count, .data = data,
                                                          .data_len = (uint16_t)e->len } });
}

TEST(heap_model_reads_a_snapshot_and_computes_retained_sizes)
{
    const char *path = "/tmp/clrprobe-unit-heap.clrp";
    trace_header_info hi = { 7, 0, 0, 1000, "10.0.0", "test" };
    char err[256];
    uint8_t data[600];
    heap_enc e;
    size_t from;
    rp_trace tr;
    rp_heap h;
    /* Objects: 0 Owner (static root) -> 1 List -> 2,3 Leaf -> 4,5 byte[];
     * 6 Leaf only behind a weak handle (retained by nothing: unrooted);
     * 7 Key (stack root) with dependent value 8 Leaf;
     * 9 frozen String; 10 big object[] (handle root) with 150 refs to 11..  */
    uint64_t r0[] = { A(1) }, r1[] = { A(2), A(3) }, r2[] = { A(4) }, r3[] = { A(5) };
    uint64_t big[150];

    CHECK_EQ(trace_writer_open(&w, unit_create_file(path), path, &hi, err, sizeof(err)), 0);
    buf = trace_writer_buffer_get(w);
    put(10, TK_HEAP_BEGIN, &(rec_any){ .heap_begin = { .snapshot = 1, .method = HEAP_METHOD_GC_ROOTS } });
    put(11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = 0, .class_id = 0x100, .name = "App.Owner" } });
    put(11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = 1, .class_id = 0x101,
                                                     .name = "System.Collections.Generic.List<App.Leaf>" } });
    put(11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = 2, .class_id = 0x102, .name = "App.Leaf" } });
    put(11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = 3, .class_id = 0x103, .name = "System.Byte[]" } });
    put(11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = 4, .class_id = 0x104, .name = "App.Key" } });
    put(11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = 5, .class_id = 0x105, .name = "System.String" } });
    put(11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = 6, .class_id = 0x106, .name = "System.Object[]" } });
    put(11, TK_HEAP_ROOT_NAME, &(rec_any){ .heap_root_name = { .index = 0, .name = "App.Program.owner" } });
    put(11, TK_HEAP_FRAME_NAME, &(rec_any){ .heap_frame_name = { .function_id = 0x7000, .name = "App.Program.Main" } });
    /* fields of Owner and List (List's _items at 8 is a struct of two words: both its slots name it) */
    put(11, TK_HEAP_FIELD, &(rec_any){ .heap_field = { .type = 1, .offset = 24, .name = "_version" } });
    put(11, TK_HEAP_FIELD, &(rec_any){ .heap_field = { .type = 0, .offset = 16, .name = "Leaves" } });
    put(11, TK_HEAP_FIELD, &(rec_any){ .heap_field = { .type = 0, .offset = 8, .name = "Name" } });
    put(11, TK_HEAP_FIELD, &(rec_any){ .heap_field = { .type = 1, .offset = 8, .name = "_items" } });

    heap_enc_init(&e, data, sizeof(data));
#define OBJ(i, ty, sz, refs, n, fl) do { from = 0; CHECK(heap_enc_object(&e, A(i), ty, sz, fl, refs, n, &from)); } while (0)
    from = 0;
    CHECK(heap_enc_object_slots(&e, A(0), 0, 24, 0, r0, (const uint32_t[]){ 2 }, 1, &from));
    from = 0;
    CHECK(heap_enc_object_slots(&e, A(1), 1, 32, 0, r1, (const uint32_t[]){ 1, 2 }, 2, &from));
    OBJ(2, 2, 24, r2, 1, 0);
    OBJ(3, 2, 24, r3, 1, 0);
    OBJ(4, 3, 1000, NULL, 0, 0);
    OBJ(5, 3, 2000, NULL, 0, 0);
    OBJ(6, 2, 24, NULL, 0, 0);
    OBJ(7, 4, 24, NULL, 0, 0);
    OBJ(8, 2, 24, NULL, 0, 0);
    OBJ(9, 5, 40, NULL, 0, HEAP_OBJ_FROZEN);
    put_objects(12, &e, data);
    /* the big array: its references do not fit one record */
    for (size_t k = 0; k < 150; k++)
        big[k] = A(11 + k) + ((k & 1) ? 0x100000000ull : 0);   /* far apart: 5+ bytes each */
    {
        int rounds = 0;
        from = 0;
        heap_enc_init(&e, data, 300);
        while (from < 150 && rounds++ < 10) {
            if (heap_enc_object(&e, A(10), 6, 1224, 0, big, 150, &from))
                continue;
            put_objects(13, &e, data);
            heap_enc_init(&e, data, 300);
        }
        put_objects(13, &e, data);
        CHECK(rounds > 1);
    }
    /* the 150 referenced objects: 24 bytes each, half of them far away */
    heap_enc_init(&e, data, sizeof(data));
    for (size_t k = 0; k < 150; k++) {
        from = 0;
        if (!heap_enc_object(&e, big[k], 2, 24, 0, NULL, 0, &from)) {
            put_objects(14, &e, data);
            heap_enc_init(&e, data, sizeof(data));
            CHECK(heap_enc_object(&e, big[k], 2, 24, 0, NULL, 0, &from));
        }
    }
    put_objects(14, &e, data);

    heap_enc_init(&e, data, sizeof(data));
    CHECK(heap_enc_root(&e, HEAP_ROOT_STATIC, 0, A(0), 0));
    CHECK(heap_enc_root(&e, HEAP_ROOT_HANDLE, 0x2, A(6), 0x5000));   /* weak */
    CHECK(heap_enc_root(&e, HEAP_ROOT_STACK, 0, A(7), 0x7000));
    CHECK(heap_enc_root(&e, HEAP_ROOT_DEPENDENT, 0, A(8), A(7)));     /* key 7 -> value 8 */
    CHECK(heap_enc_root(&e, HEAP_ROOT_HANDLE, 0, A(10), 0x5008));
    CHECK(heap_enc_root(&e, HEAP_ROOT_STACK, 0, A(9999), 0x7000));    /* not in the snapshot */
    put(15, TK_HEAP_ROOTS, &(rec_any){ .heap_roots = { .snapshot = 1, .count = e.count, .data = data,
                                                       .data_len = (uint16_t)e.len } });
    put(20, TK_HEAP_END, &(rec_any){ .heap_end = { .snapshot = 1, .objects = 161, .bytes = 0, .roots = 5,
                                                   .pause_ns = 1234 } });
    CHECK_EQ(trace_writer_close(w, 1, 30), 0);
    trace_writer_free(w);

    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), TRACE_OK);
    CHECK_EQ(rp_heap_build(&tr, &h), 0);
    CHECK_EQ(h.nsnap, 1);
    if (h.nsnap == 1) {
        rp_heap_snapshot *s = &h.snap[0];
        uint64_t leaf_count = 0, leaf_retained = 0, bytes_retained = 0, owner_retained = 0, arr_retained = 0;
        CHECK(s->complete);
        CHECK_EQ(s->nobjects, 161);
        CHECK_EQ(s->nedges, 1 + 2 + 1 + 1 + 150 + 1);      /* + the dependent edge */
        CHECK_EQ(s->nroots, 4);                             /* the dependent is an edge; a missing object dropped */
        CHECK_EQ(s->pause_ns, 1234);
        CHECK_EQ(rp_heap_analyse(&h, s), 0);
        CHECK_EQ(s->unrooted, 1);                           /* the weak-only Leaf */
        for (size_t i = 0; i < s->ntypes; i++) {
            const char *name = rp_heap_type_name(&h, s->types[i].type);
            if (strcmp(name, "App.Leaf") == 0) {
                leaf_count = s->types[i].count;
                leaf_retained = s->types[i].retained;
            } else if (strcmp(name, "System.Byte[]") == 0) {
                bytes_retained = s->types[i].retained;
            } else if (strcmp(name, "App.Owner") == 0) {
                owner_retained = s->types[i].retained;
            } else if (strcmp(name, "System.Object[]") == 0) {
                arr_retained = s->types[i].retained;
            }
        }
        CHECK_EQ(leaf_count, 4 + 150);
        /* Leafs 2,3 retain their byte[]s; 6, 8 and the 150 themselves */
        CHECK_EQ(leaf_retained, 24 + 1000 + 24 + 2000 + 24 + 24 + 150 * 24);
        CHECK_EQ(bytes_retained, 3000);
        CHECK_EQ(owner_retained, 24 + 32 + 24 + 1000 + 24 + 2000);
        CHECK_EQ(arr_retained, 1224 + 150 * 24);
        CHECK_EQ(s->types[0].type, 2);                      /* Leaf retains most, then the array */
        CHECK_EQ(s->types[1].type, 6);
        CHECK_EQ(s->idom[8], 7);                            /* the dependent value, by its key */
        {
            /* why App.Leaf is alive: four paths, by retained bytes */
            rp_heap_path *p = NULL;
            size_t np = 0;
            uint32_t leaf;
            char why[256];
            CHECK_EQ(rp_heap_resolve_type(&h, s, "Leaf", &leaf, why, sizeof(why)), 0);
            CHECK_EQ(leaf, 2);
            CHECK_EQ(rp_heap_resolve_type(&h, s, "Lea", &leaf, why, sizeof(why)), -1);
            CHECK(strstr(why, "no object of type 'Lea' in snapshot 1; types like it: ") != NULL);
            CHECK_EQ(rp_heap_paths(&h, s, 2, &p, &np), 0);
            CHECK_EQ(np, 4);
            if (np == 4) {
                CHECK_STR(p[0].root, "strong handle");
                CHECK_EQ(p[0].instances, 150);
                CHECK_EQ(p[0].ntypes, 2);                   /* Object[] -> Leaf */
                CHECK_STR(p[1].root, "static App.Program.owner");
                CHECK_EQ(p[1].instances, 2);
                CHECK_EQ(p[1].retained, 24 + 1000 + 24 + 2000);
                CHECK_EQ(p[1].ntypes, 3);                   /* Owner -> List -> Leaf */
                CHECK_EQ(p[1].types[0], 0);
                CHECK_EQ(p[1].types[1], 1);
                CHECK_EQ(p[1].types[2], 2);
                /* Owner.Leaves -> List._items -> Leaf; an array's element has no field */
                CHECK(p[1].fields[0] && strcmp(p[1].fields[0], "Leaves") == 0);
                CHECK(p[1].fields[1] && strcmp(p[1].fields[1], "_items") == 0);
                CHECK(p[1].fields[2] == NULL);
                CHECK(p[0].fields[0] == NULL);
                CHECK(strcmp(p[2].root, "local in App.Program.Main") == 0 || strcmp(p[3].root, "local in App.Program.Main") == 0);
                CHECK(strcmp(p[2].root, RP_PATH_UNROOTED) == 0 || strcmp(p[3].root, RP_PATH_UNROOTED) == 0);
            }
            rp_heap_paths_free(p, np);
            /* the field lookup: the field at the slot's offset, or the one before it; none below the first */
            CHECK_STR(rp_heap_field_name(&h, 0, 2), "Leaves");
            CHECK_STR(rp_heap_field_name(&h, 0, 1), "Name");
            CHECK_STR(rp_heap_field_name(&h, 0, 5), "Leaves");
            CHECK_STR(rp_heap_field_name(&h, 1, 3), "_version");
            CHECK(rp_heap_field_name(&h, 1, 0) == NULL);
            CHECK(rp_heap_field_name(&h, 2, 1) == NULL);     /* a type without fields named */
            CHECK(rp_heap_field_name(&h, 7, 1) == NULL);
        }
        {
            /* roots grouped: the static retains the owner's graph */
            rp_heap_root_group *g = NULL;
            size_t ng = 0;
            CHECK_EQ(rp_heap_root_groups(&h, s, &g, &ng), 0);
            CHECK_EQ(ng, 3);                                /* strong handle, static, stack (the weak one: none) */
            if (ng == 3) {
                CHECK_STR(g[0].desc, "strong handle");
                CHECK_EQ(g[0].retained, 1224 + 150 * 24);
                CHECK_STR(g[1].desc, "static App.Program.owner");
                CHECK_EQ(g[1].retained, 24 + 32 + 24 + 1000 + 24 + 2000);
                CHECK_STR(g[2].desc, "local in App.Program.Main");
                CHECK_EQ(g[2].retained, 48);                /* Key and its dependent Leaf */
            }
            free(g);
        }
        {
            /* a snapshot against itself: no change in any type */
            rp_heap_diff d;
            CHECK_EQ(rp_heap_diff_build(&h, s, &h, s, 0, &d), 0);
            CHECK_EQ(d.nrows, s->ntypes);
            CHECK_EQ(d.identity, 0);
            for (size_t i = 0; i < d.nrows; i++)
                CHECK(d.rows[i].count[0] == d.rows[i].count[1] && d.rows[i].retained[0] == d.rows[i].retained[1]);
            rp_heap_diff_free(&d);
        }
    }
    rp_heap_free(&h);
    {
        /* jsonl: one heap_snapshot line and one heap_type line per type, the raw records not */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        CHECK_EQ(rp_write_jsonl(&tr, m), 0);
        fclose(m);
        CHECK(strstr(text, "{\"kind\":\"heap_type\",\"snapshot\":1,\"type\":\"App.Leaf\",\"count\":154,"
                           "\"shallow_bytes\":3696,\"retained_bytes\":6696}\n") != NULL);
        if (getenv("HEAP_DUMP")) fputs(text, stderr);
        CHECK(strstr(text, "\"snapshot\":1,\"objects\":161,\"bytes\":8040,\"roots\":4,") != NULL);
        CHECK(strstr(text, "\"method\":\"gc_roots\",\"complete\":true") != NULL);
        CHECK(strstr(text, "heap_objects") == NULL);
        free(text);
        /* text: the Heap section */
        text = NULL;
        m = open_memstream(&text, &len);
        CHECK_EQ(rp_write_text(&tr, path, m), 0);
        fclose(m);
        if (getenv("HEAP_DUMP"))
            fputs(text, stderr);
        CHECK(strstr(text, "\nHeap\n  snapshot 1 at ") != NULL);
        CHECK(strstr(text, ": 161 objects, 7.9 KiB, 4 roots (induced full GC, roots from the runtime;") != NULL);
        CHECK(strstr(text, "    1 object not held by any retaining root") != NULL);
        CHECK(strstr(text, "           154      3.6 KiB      6.5 KiB  App.Leaf\n") != NULL);
        CHECK(strstr(text, "       4.7 KiB  (own 1.2 KiB)  0x7f0000100280  System.Object[]\n") != NULL);
        free(text);
    }
    rp_free(&tr);
    unlink(path);
}

/* Reached from 0 without passing through node cut (cut = n: none). */
static void reach(size_t n, const size_t *start, const uint32_t *edges, size_t cut, uint8_t *seen)
{
    uint32_t stack[16];
    size_t sp = 0;
    memset(seen, 0, n);
    if (cut == 0)
        return;
    seen[0] = 1;
    stack[sp++] = 0;
    while (sp) {
        uint32_t v = stack[--sp];
        for (size_t k = start[v]; k < start[v + 1]; k++)
            if (edges[k] != cut && !seen[edges[k]]) {
                seen[edges[k]] = 1;
                stack[sp++] = edges[k];
            }
    }
}

TEST(heap_dominators_agree_with_the_definition_on_random_graphs)
{
    srand(5);
    for (int round = 0; round < 2000; round++) {
        size_t n = 2 + (size_t)(rand() % 11), start[17] = { 0 };
        uint32_t edges[200], idom[16];
        uint8_t all[16], without[16][16];
        for (size_t v = 0; v < n; v++) {
            size_t deg = (size_t)(rand() % 4);
            start[v + 1] = start[v];
            for (size_t k = 0; k < deg; k++)
                edges[start[v + 1]++] = (uint32_t)(rand() % (int)n);
        }
        CHECK_EQ(rp_dominators(n, start, edges, idom), 0);
        reach(n, start, edges, n, all);
        for (size_t d = 0; d < n; d++)
            reach(n, start, edges, d, without[d]);
        for (size_t v = 1; v < n; v++) {
            /* the dominators of v: d != v with v unreachable without d; the
             * immediate one is the one the most other dominators dominate */
            uint32_t want = UINT32_MAX;
            size_t best = 0;
            if (!all[v]) {
                CHECK_EQ(idom[v], UINT32_MAX);
                continue;
            }
            for (size_t d = 0; d < n; d++) {
                size_t depth = 0;
                if (d == v || without[d][v])
                    continue;
                for (size_t e = 0; e < n; e++)          /* dominators of d */
                    if (e != d && !without[e][d])
                        depth++;
                if (want == UINT32_MAX || depth > best) {
                    want = (uint32_t)d;
                    best = depth;
                }
            }
            if (idom[v] != want) {
                unit_fail(__FILE__, __LINE__, "round %d: idom[%zu] = %u, want %u", round, v, idom[v], want);
                return;
            }
        }
    }
}

/* The text report of incomplete snapshots (the walk stopped early, or no
 * heap_end: cut short) says what is missing instead of counting objects "not
 * held by any retaining root" (an object is then unreached because its
 * holders were not recorded) or calling retained sizes what a GC would free. */
TEST(heap_text_of_incomplete_snapshots_claims_no_completeness)
{
    const char *path = "/tmp/clrprobe-unit-heap-incomplete.clrp";
    trace_header_info hi = { 7, 0, 0, 1000, "10.0.0", "test" };
    char err[256], *text = NULL, *second;
    uint8_t data[200];
    size_t from, len = 0;
    heap_enc e;
    rp_trace tr;
    FILE *m;

    CHECK_EQ(trace_writer_open(&w, unit_create_file(path), path, &hi, err, sizeof(err)), 0);
    buf = trace_writer_buffer_get(w);
    put(11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = 0, .class_id = 0x100, .name = "App.Leaf" } });
    for (uint32_t k = 1; k <= 2; k++) {
        put(10 * k, TK_HEAP_BEGIN, &(rec_any){ .heap_begin = { .snapshot = k, .method = HEAP_METHOD_GC_ROOTS } });
        heap_enc_init(&e, data, sizeof(data));
        for (int i = 0; i < 3; i++) {
            from = 0;
            CHECK(heap_enc_object(&e, A(i), 0, 24, 0, NULL, 0, &from));    /* A(1), A(2): no recorded root */
        }
        put(10 * k + 1, TK_HEAP_OBJECTS, &(rec_any){ .heap_objects = { .snapshot = k, .count = e.count, .data = data,
                                                                       .data_len = (uint16_t)e.len } });
        heap_enc_init(&e, data, sizeof(data));
        CHECK(heap_enc_root(&e, HEAP_ROOT_HANDLE, 0, A(0), 0x5000));
        put(10 * k + 2, TK_HEAP_ROOTS, &(rec_any){ .heap_roots = { .snapshot = k, .count = e.count, .data = data,
                                                                   .data_len = (uint16_t)e.len } });
        if (k == 1)                          /* the walk stopped; snapshot 2 has no end (cut short) */
            put(13, TK_HEAP_END, &(rec_any){ .heap_end = { .snapshot = 1, .objects = 3, .roots = 1,
                                                           .flags = HEAP_END_WALK_STOPPED } });
    }
    CHECK_EQ(trace_writer_close(w, 1, 30), 0);
    trace_writer_free(w);

    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), TRACE_OK);
    m = open_memstream(&text, &len);
    CHECK_EQ(rp_write_text(&tr, path, m), 0);
    fclose(m);
    if (getenv("HEAP_DUMP"))
        fputs(text, stderr);
    CHECK(strstr(text, "not held by any retaining root") == NULL);
    CHECK(strstr(text, "what a GC would free") == NULL);
    second = strstr(text, "  snapshot 2 at ");
    CHECK(second != NULL);
    if (second) {
        char *first = strstr(text, "  snapshot 1 at ");
        CHECK(first != NULL && first < second);
        CHECK(strstr(first, "- the walk stopped early") != NULL);
        CHECK(strstr(first, "\n    incomplete: only what was recorded before it stopped is here (objects, references or roots "
                            "are missing): 2 recorded objects are reached from no recorded root\n") != NULL);
        CHECK(strstr(second, "- cut short: the snapshot did not finish") != NULL);
        CHECK(strstr(second, "\n    incomplete: only what was recorded before it stopped is here") != NULL);
        CHECK(strstr(second, "  Top types by retained size (within what was recorded):\n") != NULL);
    }
    free(text);
    /* jsonl: the cut-short snapshot claims no identity with the one before (it has no heap_end to say so) */
    text = NULL;
    m = open_memstream(&text, &len);
    CHECK_EQ(rp_write_jsonl(&tr, m), 0);
    fclose(m);
    second = strstr(text, "{\"kind\":\"heap_snapshot\",");
    if (second)
        second = strstr(second + 1, "{\"kind\":\"heap_snapshot\",");     /* (the second one) */
    {
        const char *sn = second ? strstr(second, "\"snapshot\":2,") : NULL;
        CHECK(sn != NULL && sn < strchr(second, '\n'));
    }
    if (second) {
        CHECK(strstr(second, "\"complete\":false") != NULL);
        CHECK(strstr(second, "\"identity\":false") != NULL);
        CHECK(strstr(second, "\"seen\"") == NULL || strstr(second, "\"seen\"") > strchr(second, '\n'));
    }
    free(text);
    /* --why: through the last snapshot with an end, the walk-stopped one, said to be incomplete */
    text = NULL;
    m = open_memstream(&text, &len);
    CHECK_EQ(rp_write_heap_why(&tr, "Leaf", 0, m), 0);
    fclose(m);
    CHECK(strstr(text, "\nWhy App.Leaf is alive (snapshot 1: 3 instances") != NULL);
    CHECK(strstr(text, "\n  (snapshot 1 is incomplete: the paths go through what it recorded") != NULL);
    free(text);
    rp_free(&tr);
    unlink(path);
}

/* Two locals of one method hold a cache and a list of the same 100 reports
 * (most of the heap); a static holds a small object; an object both the
 * cache and the static's object reach.  Neither local's object dominates a
 * report, the method's locals together do: the roots table and --why's
 * paths agree that the locals of Main hold the reports, what they hold and
 * what they retain. */
TEST(heap_root_groups_agree_with_why)
{
    enum { REPORTS = 100, N = 2 + REPORTS + 2 };
    static struct rp_heap_frame frames[] = { { 1, "App.Program.Main" } };
    static struct rp_heap_root_name statics[] = { { 5, "App.Program.small" } };
    static const char *types[] = { "App.Cache", "App.List", "App.Report", "App.Small", "App.Shared" };
    uint64_t size[N];
    uint32_t type[N];
    uint8_t flags[N] = { 0 };
    size_t edge_start[N + 1];
    uint32_t edges[3 * REPORTS + 4];
    size_t ne = 0;
    rp_heap_root roots[3] = {
        { HEAP_ROOT_STACK, 0, 0, 1 }, { HEAP_ROOT_STACK, 0, 1, 1 }, { HEAP_ROOT_STATIC, 0, N - 2, 5 },
    };
    rp_heap h;
    rp_heap_snapshot s;
    rp_heap_root_group *g = NULL;
    rp_heap_path *p = NULL;
    size_t ng = 0, np = 0;

    memset(&h, 0, sizeof(h));
    memset(&s, 0, sizeof(s));
    h.frames = frames;
    h.nframes = 1;
    h.root_names = statics;
    h.nroot_names = 1;
    h.type_names = types;
    h.ntype_names = 5;
    for (uint32_t v = 0; v < N; v++) {
        edge_start[v] = ne;
        if (v == 0 || v == 1) {                       /* the cache and the list: every report */
            size[v] = 100;
            type[v] = v;
            for (uint32_t r = 0; r < REPORTS; r++)
                edges[ne++] = 2 + r;
            if (v == 0)
                edges[ne++] = N - 1;                  /* the cache also reaches the shared object */
        } else if (v < 2 + REPORTS) {
            size[v] = 1000;
            type[v] = 2;
        } else if (v == N - 2) {                      /* the static's object -> the shared object */
            size[v] = 50;
            type[v] = 3;
            edges[ne++] = N - 1;
        } else {
            size[v] = 500;
            type[v] = 4;
        }
    }
    edge_start[N] = ne;
    s.nobjects = N;
    s.size = size;
    s.type = type;
    s.flags = flags;
    s.edge_start = edge_start;
    s.edges = edges;
    s.nedges = ne;
    s.roots = roots;
    s.nroots = 3;
    s.complete = 1;
    CHECK_EQ(rp_heap_analyse(&h, &s), 0);
    CHECK_EQ(s.retained[0], 100);                     /* neither local's object alone holds a report */
    CHECK_EQ(rp_heap_root_groups(&h, &s, &g, &ng), 0);
    CHECK_EQ(ng, 2);
    if (ng == 2) {
        CHECK_STR(g[0].desc, "local in App.Program.Main");
        CHECK_EQ(g[0].roots, 2);
        CHECK_EQ(g[0].objects, 2);
        CHECK_EQ(g[0].retained, 100 + 100 + REPORTS * 1000);
        CHECK_EQ(g[0].held, 100 + 100 + REPORTS * 1000);
        /* the shared object: reached first from the static (statics first, as --why searches), retained by
         * neither alone */
        CHECK_STR(g[1].desc, "static App.Program.small");
        CHECK_EQ(g[1].retained, 50);
        CHECK_EQ(g[1].held, 50 + 500);
        /* every object the roots reach is held by one group */
        CHECK_EQ(g[0].held + g[1].held, 200 + REPORTS * 1000 + 50 + 500);
    }
    CHECK_EQ(rp_heap_paths(&h, &s, 2, &p, &np), 0);
    CHECK_EQ(np, 1);
    if (np == 1 && ng == 2) {
        CHECK_STR(p[0].root, g[0].desc);              /* --why's root is the table's top row */
        CHECK_EQ(p[0].instances, REPORTS);
        CHECK(p[0].retained <= g[0].retained);
    }
    rp_heap_paths_free(p, np);
    free(g);
    free(s.idom);
    free(s.retained);
    free(s.types);
}
