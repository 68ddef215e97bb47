/* crafted.c - the hostile traces of tests/data/crafted (crafted.h), written
 * with the real writer and heap encoder, so that every byte is deliberate. */
#include "crafted.h"
#include "unit.h"

#include "trace/format.h"
#include "trace/heap_codec.h"
#include "trace/records.h"
#include "trace/writer.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define START 1000                     /* the traces' start_monotonic_ns */

typedef struct craft {
    trace_writer *w;
    trace_buffer *b;
} craft;

static int craft_open(craft *c, const char *path)
{
    trace_header_info h = { 4242, 0, 1700000000000000000ull, START, "10.0.12", "crafted" };
    char err[256];

    memset(c, 0, sizeof(*c));
    if (trace_writer_open(&c->w, unit_create_file(path), path, &h, err, sizeof(err)) != 0) {
        unit_fail(__FILE__, __LINE__, "cannot write %s: %s", path, err);
        return -1;
    }
    c->b = trace_writer_buffer_get(c->w);
    return 0;
}

/* t is absolute (the trace's clock), so that a time near 2^64 can be written. */
static void put(craft *c, uint64_t t, int kind, const rec_any *v)
{
    trace_rec r;
    trace_rec_begin(&r, trace_buffer_begin(c->b), TRACE_MAX_RECORD, kind, 1, t);
    rec_put(&r, kind, v);
    trace_buffer_end(c->b, trace_rec_finish(&r));
}

static void craft_close(craft *c, uint64_t t)
{
    trace_writer_close(c->w, 1, t);
    trace_writer_free(c->w);
}

/* A snapshot of objects whose types are types[i] (a chain: each refers to
 * the next; the first is a static root), with only type 0 named. */
static void snapshot(craft *c, const uint32_t *types, size_t n, uint32_t named_index)
{
    uint8_t data[512], roots[64];
    heap_enc e, r;

    put(c, START + 10, TK_HEAP_BEGIN, &(rec_any){ .heap_begin = { .snapshot = 1, .method = HEAP_METHOD_GC_ROOTS } });
    put(c, START + 11, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = named_index, .class_id = 0x100,
                                                                .name = "App.Named" } });
    put(c, START + 11, TK_HEAP_FIELD, &(rec_any){ .heap_field = { .type = 0xfffffff0u, .offset = 8, .name = "f" } });
    heap_enc_init(&e, data, sizeof(data));
    for (size_t i = 0; i < n; i++) {
        uint64_t ref = 0x10000 + (i + 1) * 0x20;
        size_t from = 0;
        heap_enc_object(&e, 0x10000 + i * 0x20, types[i], 24, 0, &ref, i + 1 < n, &from);
    }
    put(c, START + 12, TK_HEAP_OBJECTS, &(rec_any){ .heap_objects = { .snapshot = 1, .count = e.count, .data = data,
                                                                      .data_len = (uint16_t)e.len } });
    heap_enc_init(&r, roots, sizeof(roots));
    heap_enc_root(&r, HEAP_ROOT_STATIC, 0, 0x10000, 0xffffffffu);     /* a root name no record names */
    put(c, START + 12, TK_HEAP_ROOTS, &(rec_any){ .heap_roots = { .snapshot = 1, .count = r.count, .data = roots,
                                                                  .data_len = (uint16_t)r.len } });
    put(c, START + 13, TK_HEAP_END, &(rec_any){ .heap_end = { .snapshot = 1, .objects = n, .bytes = n * 24,
                                                              .roots = 1, .pause_ns = 1000 } });
}

static void heap_stray_type(const char *path)
{
    static const uint32_t types[] = { 0, 7, 0, 100000000 };
    craft c;
    if (craft_open(&c, path) == 0) {
        snapshot(&c, types, 4, 0);
        craft_close(&c, START + 20);
    }
}

static void heap_huge_type(const char *path)
{
    static const uint32_t types[] = { 4000000000u, 500000000u, 4000000000u };
    craft c;
    if (craft_open(&c, path) == 0) {
        snapshot(&c, types, 3, 0xfffffffeu);
        craft_close(&c, START + 20);
    }
}

static void heap_empty_snapshot(const char *path)
{
    craft c;
    if (craft_open(&c, path) == 0) {
        snapshot(&c, NULL, 0, 0);
        craft_close(&c, START + 20);
    }
}

/* Two CPU samples 2^64 ns apart, with the same stack. */
static void sample_far_time(const char *path)
{
    static const uint64_t frames[] = { 0x7001, 0x7002 };
    static const uint64_t when[] = { START + 5, UINT64_MAX - 5 };
    craft c;
    if (craft_open(&c, path) != 0)
        return;
    put(&c, START + 1, TK_FUNC_NAME, &(rec_any){ .function_name = { .function = 0x7001, .module = 1, .name = "Leaf" } });
    put(&c, START + 1, TK_FUNC_NAME, &(rec_any){ .function_name = { .function = 0x7002, .module = 1, .name = "Main" } });
    for (int i = 0; i < 2; i++) {
        put(&c, when[i], TK_SAMPLER_TICK, &(rec_any){ .sampler_tick = { .threads = 1, .period_ns = 10000000 } });
        put(&c, when[i], TK_SAMPLE, &(rec_any){ .sample = { .thread = 0xb0, .os_tid = 1, .cpu_ns = 10000000,
                                                            .nframes = 2, .frames = frames } });
        put(&c, when[i], TK_GC_START, &(rec_any){ .gc_start = { .generations = 1, .gen0_bytes = 100 } });
        put(&c, when[i] + (i ? 1 : 100), TK_GC_END, &(rec_any){ .gc_end = { .gen0_bytes = 50 } });
    }
    craft_close(&c, UINT64_MAX);
}

const crafted_trace crafted_traces[] = {
    { "heap_stray_type", "heap objects of type indexes no heap_type record names (7, 1e8), a heap_field of an unnamed "
                         "type, a static root of an unnamed root id: out-of-bounds read and write in the heap "
                         "html and pprof --heap", heap_stray_type },
    { "heap_huge_type", "heap objects of type indexes 4e9 and 5e8 and a heap_type of index 2^32-2: a table sized "
                        "by the index read (128 GB, or seconds of work)", heap_huge_type },
    { "heap_empty_snapshot", "a complete heap snapshot with no object: empty arrays everywhere (qsort of NULL)",
      heap_empty_snapshot },
    { "sample_far_time", "CPU samples and GCs at the start and near 2^64 ns: the timeline's per-bucket loop over "
                         "the span between them", sample_far_time },
};
const size_t ncrafted_traces = sizeof(crafted_traces) / sizeof(crafted_traces[0]);
