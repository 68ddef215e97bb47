/* test_fuzz_reader.c - a deterministic mutation fuzzer of the trace reader,
 * the report model and every report writer.  The seeds: two valid traces
 * made with the writer (a launch with the runtime's record kinds, an attach
 * with catch-up records), one with the rest (two heap snapshots with every
 * heap record, allocations, live objects, lock waits, exception stacks and
 * handlers, traced calls and method statistics), the hostile traces of
 * tests/data/crafted (crafted.h) and real traces of the agent
 * (tests/data/compat).  Each case mutates one of them with a fixed seed: bit flips, interesting byte values, truncation, inserted and
 * deleted bytes, corrupted chunk, record and string lengths, duplicated and
 * swapped chunks; half of the cases then get their chunk and header
 * checksums recomputed, so the damage reaches the record and field decoding
 * instead of stopping at the checksum.  Each case is read with
 * trace_open_memory and walked chunk by chunk, record by record and field by
 * field, then loaded with rp_load (from a temporary file) and written in
 * every report format of the registry (formats.h) to /dev/null, in one view
 * (a case's number picks it; the seeds, in every view), with the heap
 * questions (--why, --diff) and pprof --heap.  Asserted: no crash (run it under
 * `make asan` to see every out-of-bounds read), termination (a watchdog per
 * case), and counters that add up (every byte of the body is in a good
 * chunk, counted as corrupt or as the cut-short tail; records and fields
 * stay inside their chunk).  A failure prints the case number: FUZZ_CASE=N
 * reruns that case alone; FUZZ_VERBOSE=1 prints each case's number before it
 * runs (to find the one a sanitizer stopped at).  FUZZ_CASES=N runs N cases
 * instead of FUZZ_CASES' few (make check's budget), FUZZ_SECONDS=S stops
 * after S seconds, FUZZ_FIRST=N starts at case N (bench/fuzz.sh). */
#include "unit.h"
#include "crafted.h"
#include "report/formats.h"
#include "report/model.h"
#include "report/profile.h"
#include "report/report.h"
#include "trace/format.h"
#include "trace/heap_codec.h"
#include "trace/reader.h"
#include "trace/writer.h"

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define FUZZ_SEED 0x636c7270726f6265ull     /* "clrprobe" */
#define FUZZ_CASES 1500                 /* make check's budget: a few seconds (bench/fuzz.sh runs more) */

/* ---- a small deterministic generator (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(size_t n)        /* 0..n-1; 0 when n is 0 */
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* ---- the seed traces ---- */

typedef struct { uint8_t *data; size_t size; } bytes;

static char tmp_path[128];

/* One record, encoded by the catalogue (trace/records.h). */
static void put(trace_buffer *b, int kind, unsigned flags, uint32_t tid, uint64_t t, const rec_any *v)
{
    trace_rec r;
    uint8_t *p = trace_buffer_begin(b);
    if (!p)
        return;
    trace_rec_begin(&r, p, TRACE_MAX_RECORD, kind, tid, t);
    trace_rec_flags(&r, (uint8_t)flags);
    rec_put(&r, kind, v);
    trace_buffer_end(b, trace_rec_finish(&r));
}
#define PUT(b, kind, flags, tid, t, member, ...) \
    put((b), (kind), (flags), (tid), (t), &(rec_any){ .member = { __VA_ARGS__ } })

/* A record of a kind the catalogue does not have, with one u64 or string. */
static void put_unknown(trace_buffer *b, int kind, uint32_t tid, uint64_t t, uint64_t id, const char *s)
{
    trace_rec r;
    uint8_t *p = trace_buffer_begin(b);
    if (!p)
        return;
    trace_rec_begin(&r, p, TRACE_MAX_RECORD, kind, tid, t);
    if (s)
        trace_rec_str(&r, s);
    else
        trace_rec_u64(&r, id);
    trace_buffer_end(b, trace_rec_finish(&r));
}

#define U64(x) ((uint64_t)(x))

/* One runtime's worth of records over three thread buffers, flushed now and
 * then so the file has many chunks. */
static void write_records(trace_writer *w, unsigned catchup)
{
    trace_buffer *b[3];
    uint64_t t = 1000;
    static const uint64_t stack1[] = { 0x7001, 0x7002, 0x7003 };
    static const uint64_t stack2[] = { 0x7004, 0, 0x7002, 0x7003 };
    static const uint64_t stack3[] = { 0x7001, 0x7001, 0x7001, 0x7005, 0x7003 };

    for (int i = 0; i < 3; i++)
        b[i] = trace_writer_buffer_get(w);
    PUT(b[0], TK_RUNTIME_START, 0, 10, t++, runtime_start, .clr_instance = 1, .runtime_type = 1, .major = 10,
        .minor = 0, .build = 12, .qfe = 0, .version = "10.0.12");
    PUT(b[0], TK_APPDOMAIN_CREATE, catchup, 10, t++, appdomain_create, .id = 0xa1, .name = "clrhost");
    PUT(b[0], TK_ASSEMBLY_LOAD, catchup, 10, t++, assembly_load, .id = 0xa2, .appdomain = 0xa1, .module = 0xa3,
        .name = "Sample", .version = "1.0.0.0");
    PUT(b[0], TK_MODULE_LOAD, catchup, 10, t++, module_load, .id = 0xa3, .assembly = 0xa2, .flags = 0x8, .hr = 0,
        .path = "/app/Sample.dll");
    PUT(b[0], TK_MODULE_LOAD, 0, 10, t++, module_load, .id = 0xa4, .assembly = 0xa2, .flags = 0x20, .hr = 0,
        .path = "dyn\xc3\xa9");
    for (int round = 0; round < 6; round++) {
        trace_buffer *x = b[round % 3];
        uint32_t tid = 10 + (uint32_t)(round % 3);
        char name[64];
        snprintf(name, sizeof(name), "Ns.Generic<System.Int32>.Method%d", round);
        PUT(x, TK_THREAD_CREATE, catchup, tid, t++, thread_create, .thread = U64(0xb0 + round));
        PUT(x, TK_THREAD_OS, catchup, tid, t++, thread_os, .thread = U64(0xb0 + round), .os_tid = tid,
            .os_name = "kern-name");
        PUT(x, TK_THREAD_NAME, 0, tid, t++, thread_name, .thread = U64(0xb0 + round), .name = round ? "worker" : "",
            .name_len = round ? 6 : 0);
        PUT(x, TK_CLASS_LOAD, catchup, tid, t++, class_load, .id = U64(0xc0 + round), .module = 0xa3, .name = name);
        PUT(x, TK_JIT, catchup, tid, t++, jit, .function = U64(0x7001 + round), .module = 0xa3, .duration_ns = 5000,
            .hr = 0, .name = name);
        PUT(x, TK_PRECOMPILED, 0, tid, t++, precompiled, .function = U64(0x7100 + round), .module = 0xa3,
            .name = name);
        PUT(x, TK_FUNC_NAME, 0, tid, t++, function_name, .function = U64(0x7001 + round), .module = 0xa3,
            .name = name);
        PUT(x, TK_GC_START, 0, tid, t++, gc_start, .generations = 0x3, .reason = (uint32_t)(round & 1));
        PUT(x, TK_GC_END, 0, tid, t++, gc_end, 0);
        PUT(x, TK_SUSPEND, 0, tid, t++, suspend, .reason = 1, .duration_ns = U64(20000 + round));
        PUT(x, TK_EXCEPTION_THROWN, 0, tid, t++, exception_thrown, .class_id = 0xd0,
            .type = "System.InvalidOperationException");
        PUT(x, TK_EXCEPTION_CATCH, 0, tid, t++, exception_catch, .function = 0x7001,
            .type = "System.InvalidOperationException", .function_name = name);
        for (int s = 0; s < 8; s++) {
            PUT(x, TK_SAMPLE, 0, tid, t++, sample, .thread = U64(0xb0 + round), .os_tid = tid, .cpu_ns = 10000000,
                .nframes = s % 3 == 0 ? 3 : s % 3 == 1 ? 4 : 5,
                .frames = s % 3 == 0 ? stack1 : s % 3 == 1 ? stack2 : stack3);
            PUT(x, TK_SAMPLER_TICK, 0, 99, t++, sampler_tick, .suspend_ns = 130000, .sampler_cpu_ns = 20000,
                .threads = 3, .failed = 0, .period_ns = 10000000);
        }
        PUT(x, TK_CLASS_UNLOAD, 0, tid, t++, class_unload, .id = U64(0xc0 + round));
        if (round == 3) {
            PUT(x, TK_NOTE, 0, tid, t++, note, .text = "a note from the agent\r\n\x1b[31m");
            if (catchup)
                PUT(x, TK_ATTACH, 0, tid, t++, attach, .modules = 2, .assemblies = 1, .threads = 3, .functions = 6,
                    .catchup_ns = 500000);
        }
        PUT(x, TK_THREAD_DESTROY, 0, tid, t++, thread_destroy, .thread = U64(0xb0 + round));
        if (round % 2)
            trace_writer_flush(w);
    }
    PUT(b[1], TK_MODULE_UNLOAD, 0, 11, t++, module_unload, .id = 0xa4);
    PUT(b[1], TK_ASSEMBLY_UNLOAD, 0, 11, t++, assembly_unload, .id = 0xa2);
    PUT(b[1], TK_APPDOMAIN_SHUTDOWN, 0, 11, t++, appdomain_shutdown, .id = 0xa1);
    if (catchup)
        PUT(b[2], TK_DETACH, 0, 12, t++, detach, 0);
    PUT(b[2], TK_RUNTIME_SHUTDOWN, 0, 12, t++, runtime_shutdown, 0);
    put_unknown(b[2], 0, 12, t++, 1, NULL);            /* a kind this reader does not know */
    put_unknown(b[2], 200, 12, t++, 0, "future");
    trace_writer_close(w, 12, t);
}

static bytes read_bytes(const char *path)
{
    bytes b = { NULL, 0 };
    FILE *f = fopen(path, "rb");
    long n;

    if (!f)
        return b;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b.data = malloc((size_t)n)) != NULL && fread(b.data, 1, (size_t)n, f) == (size_t)n)
        b.size = (size_t)n;
    fclose(f);
    return b;
}

static trace_writer *seed_writer(int attached)
{
    trace_header_info h = { 4242, attached ? TRACE_FLAG_ATTACHED : 0, 1700000000000000000ull, 1000,
                            "10.0.12", "/app/Sample all --with \"quotes\"" };
    trace_writer *w = NULL;
    char err[256];

    if (trace_writer_open(&w, unit_create_file(tmp_path), tmp_path, &h, err, sizeof(err)) != 0) {
        unit_fail(__FILE__, __LINE__, "cannot write the seed trace: %s", err);
        return NULL;
    }
    return w;
}

static bytes make_seed(int attached)
{
    trace_writer *w = seed_writer(attached);
    bytes b = { NULL, 0 };

    if (!w)
        return b;
    write_records(w, attached ? TRACE_REC_CATCHUP : 0);
    trace_writer_free(w);
    return read_bytes(tmp_path);
}

/* One heap snapshot: types 0..3 named (type 4 not), a root name, a frame
 * name, fields, objects with references (and slots), roots of every kind. */
static void write_snapshot(trace_buffer *b, uint32_t snap, uint64_t *t)
{
    uint8_t data[1024], roots[256];
    static const uint64_t refs[] = { 0x20020, 0x20040, 0x20060 };
    static const uint32_t slots[] = { 1, 2, 3 };
    heap_enc e, r;
    size_t from;

    PUT(b, TK_HEAP_BEGIN, 0, 10, (*t)++, heap_begin, .snapshot = snap,
        .method = snap == 1 ? HEAP_METHOD_GC_ROOTS : HEAP_METHOD_ENUMERATE);
    if (snap == 1) {
        static const char *const names[] = { "App.Owner", "System.Collections.Generic.List<App.Leaf>", "App.Leaf",
                                             "System.Byte[]" };
        for (uint32_t i = 0; i < 4; i++)
            PUT(b, TK_HEAP_TYPE, 0, 10, (*t)++, heap_type, .index = i, .class_id = 0x100 + i, .name = names[i]);
        PUT(b, TK_HEAP_ROOT_NAME, 0, 10, (*t)++, heap_root_name, .index = 0, .name = "App.Program.owner");
        PUT(b, TK_HEAP_FRAME_NAME, 0, 10, (*t)++, heap_frame_name, .function_id = 0x7001, .name = "App.Program.Main");
        PUT(b, TK_HEAP_FIELD, 0, 10, (*t)++, heap_field, .type = 0, .offset = 8, .name = "Leaves");
        PUT(b, TK_HEAP_FIELD, 0, 10, (*t)++, heap_field, .type = 1, .offset = 16, .name = "_items");
    }
    heap_enc_init(&e, data, sizeof(data));
    from = 0;
    heap_enc_object_slots(&e, 0x20000, 0, 32, snap == 2 ? HEAP_OBJ_SEEN : 0, refs, slots, 3, &from);
    for (uint32_t i = 0; i < 3 + snap; i++) {
        uint64_t next = 0x20020 + (i + 1) * 0x20;
        from = 0;
        heap_enc_object(&e, 0x20020 + i * 0x20, 1 + i % 4, 24 + 8 * i, i == 2 ? HEAP_OBJ_FROZEN : 0, &next,
                        i < 2 + snap, &from);
    }
    PUT(b, TK_HEAP_OBJECTS, 0, 10, (*t)++, heap_objects, .snapshot = snap, .count = e.count, .data = data,
        .data_len = (uint16_t)e.len);
    heap_enc_init(&r, roots, sizeof(roots));
    heap_enc_root(&r, HEAP_ROOT_STATIC, 0, 0x20000, 0);
    heap_enc_root(&r, HEAP_ROOT_STACK, HEAP_ROOT_FLAG_INTERIOR, 0x20020, 0x7001);
    heap_enc_root(&r, HEAP_ROOT_HANDLE, HEAP_ROOT_FLAG_WEAKREF, 0x20040, 0x5000);
    heap_enc_root(&r, HEAP_ROOT_HANDLE, HEAP_ROOT_FLAG_PINNING, 0x20060, 0x5008);
    heap_enc_root(&r, HEAP_ROOT_FINALIZER, 0, 0x20080, 0);
    heap_enc_root(&r, HEAP_ROOT_DEPENDENT, 0, 0x20040, 0x20000);
    PUT(b, TK_HEAP_ROOTS, 0, 10, (*t)++, heap_roots, .snapshot = snap, .count = r.count, .data = roots,
        .data_len = (uint16_t)r.len);
    PUT(b, TK_HEAP_END, 0, 10, (*t)++, heap_end, .snapshot = snap, .status = 0, .objects = 4 + snap,
        .bytes = 200, .roots = 5, .flags = snap == 1 ? 0 : HEAP_END_ROOTS_APPROXIMATE, .pause_ns = 12345);
}

/* The records write_records has not: heap snapshots, allocations, live
 * objects, lock waits, exception stacks and handlers, traced calls, method
 * statistics, the process's CPU. */
static bytes make_heap_seed(void)
{
    static const uint64_t stack[] = { 0x7002, 0x7001 };
    static const uint64_t dead[] = { 2 };
    trace_writer *w = seed_writer(0);
    trace_buffer *b;
    uint64_t t = 2000;

    if (!w)
        return (bytes){ NULL, 0 };
    b = trace_writer_buffer_get(w);
    PUT(b, TK_RUNTIME_START, 0, 10, t++, runtime_start, .clr_instance = 1, .runtime_type = 1, .major = 10,
        .version = "10.0.12");
    PUT(b, TK_THREAD_CREATE, 0, 10, t++, thread_create, .thread = 0xb0);
    PUT(b, TK_THREAD_OS, 0, 10, t++, thread_os, .thread = 0xb0, .os_tid = 10, .os_name = "main");
    PUT(b, TK_THREAD_NAME, 0, 10, t++, thread_name, .thread = 0xb0, .name = "worker", .name_len = 6);
    PUT(b, TK_FUNC_NAME, 0, 10, t++, function_name, .function = 0x7001, .module = 1, .name = "App.Program.Main");
    PUT(b, TK_FUNC_NAME, 0, 10, t++, function_name, .function = 0x7002, .module = 1, .name = "App.Work.Run");
    PUT(b, TK_TRACED_METHOD, 0, 10, t++, traced_method, .function = 0x7002, .module = 1, .how = TRACE_HOW_HOOKS,
        .name = "App.Work.Run", .reason = "");
    PUT(b, TK_SAMPLER_START, 0, 99, t++, sampler_start, .engine = SAMPLER_ENGINE_SIGNAL, .clock = SAMPLER_CLOCK_PERF,
        .flags = SAMPLER_FLAG_USER_ONLY, .why = "the default\r\n\x1b[31m");
    for (int i = 0; i < 6; i++) {
        PUT(b, TK_SAMPLER_TICK, 0, 99, t, sampler_tick, .threads = 1, .period_ns = 10000000);
        PUT(b, TK_SAMPLE, 0, 10, t, sample, .thread = 0xb0, .os_tid = 10, .cpu_ns = 10000000, .nframes = 2,
            .frames = stack);
        PUT(b, TK_ALLOC_SAMPLE, 0, 10, t++, alloc_sample, .thread = 0xb0, .os_tid = 10, .method = (uint32_t)(i % 3),
            .class_id = 0x101, .size = 100, .count = 1, .amount = 100000, .id = (uint64_t)i + 1,
            .type = "App.Leaf", .nframes = 2, .frames = stack);
        PUT(b, TK_CONTENTION, 0, 10, t++, contention, .thread = 0xb0, .os_tid = 10, .duration_ns = 5000,
            .lock_id = 0x900, .owner_thread = 0xb1, .type = "System.Object", .nframes = 2, .frames = stack);
        PUT(b, TK_EXCEPTION_THROWN, 0, 10, t++, exception_thrown, .class_id = 0xd0, .type = "App.Oops",
            .exception = (uint64_t)i + 1, .message = "oops", .nstack = 2, .stack = stack);
        if (i % 2)
            PUT(b, TK_EXCEPTION_HANDLED, 0, 10, t++, exception_handled, .exception = (uint64_t)i + 1,
                .catcher = 0x7001, .duration_ns = 300, .catch_ns = 100);
        else
            PUT(b, TK_EXCEPTION_UNHANDLED, 0, 10, t++, exception_unhandled, .exception = (uint64_t)i + 1,
                .outcome = 1, .duration_ns = 300);
        PUT(b, TK_CALL, 0, 10, t++, call, .thread = 0xb0, .os_tid = 10, .function = 0x7002, .duration_ns = 700,
            .depth = 1);
    }
    PUT(b, TK_METHOD_STATS, 0, 10, t++, method_stats, .thread = 0xb0, .os_tid = 10, .function = 0x7002, .calls = 6,
        .total_ns = 4200, .self_ns = 4000, .max_ns = 700);
    PUT(b, TK_GC_START, 0, 10, t++, gc_start, .generations = 0x7, .reason = 1, .gen0_bytes = 1000);
    write_snapshot(b, 1, &t);
    PUT(b, TK_GC_END, 0, 10, t++, gc_end, .gen0_bytes = 500);
    PUT(b, TK_LIVE_GC, 0, 10, t++, live_gc, .gc = 1, .alive = 5, .more = 0, .ndead = 1, .dead = dead);
    PUT(b, TK_PROCESS_CPU, 0, 10, t++, process_cpu, .cpu_ns = 90000000, .threads = 2);
    write_snapshot(b, 2, &t);
    PUT(b, TK_RUNTIME_SHUTDOWN, 0, 10, t++, runtime_shutdown, 0);
    trace_writer_close(w, 10, t);
    trace_writer_free(w);
    return read_bytes(tmp_path);
}

/* Every seed: the made ones, the crafted ones, the real ones. */
#define MAX_SEEDS 16
static size_t make_seeds(bytes *seeds)
{
    static const char *const real[] = { "tests/data/compat/launch.clrp", "tests/data/compat/attach.clrp",
                                        "tests/data/compat/hostile.clrp" };
    size_t n = 0;

    seeds[n++] = make_seed(0);
    seeds[n++] = make_seed(1);
    seeds[n++] = make_heap_seed();
    for (size_t i = 0; i < ncrafted_traces && n < MAX_SEEDS; i++) {
        unlink(tmp_path);
        crafted_traces[i].write(tmp_path);
        seeds[n++] = read_bytes(tmp_path);
    }
    for (size_t i = 0; i < sizeof(real) / sizeof(real[0]) && n < MAX_SEEDS; i++)
        seeds[n++] = read_bytes(real[i]);
    return n;
}

/* ---- mutations ---- */

typedef struct {
    uint8_t *d;
    size_t n, cap;
} buf;

static void reserve(buf *b, size_t n)
{
    if (n > b->cap) {
        b->cap = n * 2;
        b->d = realloc(b->d, b->cap);
    }
}

/* Offsets of the chunk headers in a (possibly damaged) body: every chunk magic. */
static size_t find_chunks(const buf *b, size_t from, size_t *out, size_t max)
{
    size_t k = 0;
    for (size_t i = from; i + 4 <= b->n && k < max; i++)
        if (trace_get_u32(b->d + i) == TRACE_CHUNK_MAGIC)
            out[k++] = i;
    return k;
}

static size_t header_len(const buf *b)
{
    size_t h = b->n >= 16 ? trace_get_u32(b->d + 12) : 0;
    return h >= TRACE_HEADER_FIXED_LEN && h <= b->n ? h : (b->n < 64 ? b->n : 64);
}

static uint16_t interesting16(uint16_t real)
{
    static const uint16_t v[] = { 0, 1, 2, 15, 16, 17, 0x7fff, 0x8000, 0xfffe, 0xffff };
    switch (below(3)) {
    case 0: return v[below(sizeof(v) / sizeof(v[0]))];
    case 1: return (uint16_t)(real + 1 + below(8));
    default: return (uint16_t)(real - 1 - below(8));
    }
}

static uint32_t interesting32(uint32_t real)
{
    static const uint32_t v[] = { 0, 1, 23, 24, 25, 0x7fffffffu, 0x80000000u, 0xffffffffu,
                                  TRACE_MAX_CHUNK_PAYLOAD, TRACE_MAX_CHUNK_PAYLOAD + 1 };
    switch (below(3)) {
    case 0: return v[below(sizeof(v) / sizeof(v[0]))];
    case 1: return real + 1 + (uint32_t)below(64);
    default: return real - 1 - (uint32_t)below(64);
    }
}

/* A record inside a chunk: its offset in the file, if the walk finds one. */
static int pick_record(const buf *b, size_t *rec_off, size_t *rec_len)
{
    size_t chunks[512], k = find_chunks(b, header_len(b), chunks, 512);
    if (!k)
        return 0;
    size_t c = chunks[below(k)];
    if (c + TRACE_CHUNK_HEADER_LEN > b->n)
        return 0;
    size_t len = trace_get_u32(b->d + c + 4), pos = c + TRACE_CHUNK_HEADER_LEN;
    size_t end = len <= b->n - pos ? pos + len : b->n;
    size_t nrec = 0, offs[4096], lens[4096];
    while (pos + TRACE_RECORD_HEADER_LEN <= end && nrec < 4096) {
        size_t l = trace_get_u16(b->d + pos + 2);
        if (l < TRACE_RECORD_HEADER_LEN || l > end - pos)
            break;
        offs[nrec] = pos;
        lens[nrec++] = l;
        pos += l;
    }
    if (!nrec)
        return 0;
    size_t i = below(nrec);
    *rec_off = offs[i];
    *rec_len = lens[i];
    return 1;
}

static void mutate_once(buf *b)
{
    size_t pos, len, chunks[512], k;

    switch (below(13)) {
    case 0:                                  /* flip bits */
        for (int i = 1 + (int)below(4); i > 0 && b->n; i--)
            b->d[below(b->n)] ^= (uint8_t)(1u << below(8));
        break;
    case 1: {                                /* an interesting byte */
        static const uint8_t v[] = { 0, 1, 0x7f, 0x80, 0xff, 'C', ';', '\n', '"', '<' };
        if (b->n)
            b->d[below(b->n)] = v[below(sizeof(v))];
        break;
    }
    case 2:                                  /* truncate */
        b->n = below(b->n + 1);
        break;
    case 3:                                  /* insert random bytes */
        len = 1 + below(40);
        pos = below(b->n + 1);
        reserve(b, b->n + len);
        memmove(b->d + pos + len, b->d + pos, b->n - pos);
        for (size_t i = 0; i < len; i++)
            b->d[pos + i] = (uint8_t)rnd();
        b->n += len;
        break;
    case 4:                                  /* delete a range */
        pos = below(b->n + 1);
        len = below(b->n - pos + 1);
        if (len > 64 && below(2))
            len = 1 + below(64);
        memmove(b->d + pos, b->d + pos + len, b->n - pos - len);
        b->n -= len;
        break;
    case 5:                                  /* a chunk's payload length */
        k = find_chunks(b, header_len(b), chunks, 512);
        if (k) {
            pos = chunks[below(k)];
            if (pos + 8 <= b->n)
                trace_put_u32(b->d + pos + 4, interesting32(trace_get_u32(b->d + pos + 4)));
        }
        break;
    case 6:                                  /* a chunk's record count or sequence */
        k = find_chunks(b, header_len(b), chunks, 512);
        if (k) {
            pos = chunks[below(k)];
            if (pos + 20 <= b->n)
                trace_put_u32(b->d + pos + (below(2) ? 16 : 8), interesting32(0));
        }
        break;
    case 7: {                                /* a record's length */
        size_t ro, rl;
        if (pick_record(b, &ro, &rl))
            trace_put_u16(b->d + ro + 2, interesting16((uint16_t)rl));
        break;
    }
    case 8: {                                /* a u16 inside a record's fields: a string length or a frame count */
        size_t ro, rl;
        if (pick_record(b, &ro, &rl) && rl >= TRACE_RECORD_HEADER_LEN + 2) {
            pos = ro + TRACE_RECORD_HEADER_LEN + below(rl - TRACE_RECORD_HEADER_LEN - 1);
            trace_put_u16(b->d + pos, interesting16(trace_get_u16(b->d + pos)));
        }
        break;
    }
    case 9: {                                /* a record's kind or flags */
        size_t ro, rl;
        if (pick_record(b, &ro, &rl))
            b->d[ro + below(2)] = (uint8_t)(below(2) ? below(TK_KIND_MAX + 3) : rnd());
        break;
    }
    case 10:                                 /* duplicate a chunk somewhere else */
    case 11: {                               /* or swap two */
        k = find_chunks(b, header_len(b), chunks, 512);
        if (!k)
            break;
        size_t c = chunks[below(k)];
        size_t clen = c + 8 <= b->n ? trace_get_u32(b->d + c + 4) : 0;
        size_t total = TRACE_CHUNK_HEADER_LEN + clen;
        if (total > b->n - c)
            total = b->n - c;
        if (total > 1 << 16)
            break;
        uint8_t *copy = malloc(total ? total : 1);
        memcpy(copy, b->d + c, total);
        if (below(2) == 0 || k < 2) {
            size_t at = below(2) ? chunks[below(k)] : below(b->n + 1);
            reserve(b, b->n + total);
            memmove(b->d + at + total, b->d + at, b->n - at);
            memcpy(b->d + at, copy, total);
            b->n += total;
        } else {                             /* move it before another chunk */
            size_t other = chunks[below(k)];
            memmove(b->d + c, b->d + c + total, b->n - c - total);
            b->n -= total;
            if (other > c)
                other = other >= c + total ? other - total : c;
            reserve(b, b->n + total);
            memmove(b->d + other + total, b->d + other, b->n - other);
            memcpy(b->d + other, copy, total);
            b->n += total;
        }
        free(copy);
        break;
    }
    case 12: {                               /* the header: version, length, a string length */
        size_t where[] = { 8, 12, TRACE_HEADER_FIXED_LEN, TRACE_HEADER_FIXED_LEN };
        size_t at = where[below(4)];
        if (b->n >= TRACE_HEADER_FIXED_LEN + 2 && below(4) == 0)     /* the second string's length */
            at = TRACE_HEADER_FIXED_LEN + 2 + trace_get_u16(b->d + TRACE_HEADER_FIXED_LEN);
        if (at + 4 <= b->n) {
            if (at >= TRACE_HEADER_FIXED_LEN)
                trace_put_u16(b->d + at, interesting16(trace_get_u16(b->d + at)));
            else
                trace_put_u32(b->d + at, interesting32(trace_get_u32(b->d + at)));
        }
        break;
    }
    }
}

/* Recomputes the header checksum and the checksum of every chunk whose
 * header and claimed length fit in the file, so that damage inside chunks
 * gets past the checksums. */
static void reseal(buf *b)
{
    size_t hlen = b->n >= 16 ? trace_get_u32(b->d + 12) : 0, chunks[512], k;
    if (hlen >= 8 && hlen <= b->n && hlen <= 64 * 1024)
        trace_put_u32(b->d + hlen - 4, (uint32_t)crc32(0L, b->d, (uInt)(hlen - 4)));
    k = find_chunks(b, hlen <= b->n ? hlen : 0, chunks, 512);
    for (size_t i = 0; i < k; i++) {
        size_t c = chunks[i];
        if (c + TRACE_CHUNK_HEADER_LEN > b->n)
            continue;
        size_t len = trace_get_u32(b->d + c + 4);
        if (len > b->n - c - TRACE_CHUNK_HEADER_LEN)
            continue;
        uLong crc = crc32(0L, b->d + c, 20);
        crc = crc32(crc, b->d + c + TRACE_CHUNK_HEADER_LEN, (uInt)len);
        trace_put_u32(b->d + c + 20, (uint32_t)crc);
    }
}

/* ---- reading a case ---- */

static long current_case = -1;

static void watchdog(int sig)
{
    static const char msg[] = "    fuzz: a case did not finish within its time limit (hang): case ";
    char num[32];
    int n = 0;
    long c = current_case;
    char rev[32];
    (void)sig;
    if (write(1, msg, sizeof(msg) - 1) < 0) { }
    do { rev[n++] = (char)('0' + c % 10); c /= 10; } while (c > 0 && n < 30);
    for (int i = 0; i < n; i++) num[i] = rev[n - 1 - i];
    num[n++] = '\n';
    if (write(1, num, (size_t)n) < 0) { }
    _exit(2);
}

/* The fields of each kind, from the catalogue: a letter per field, 2 u16,
 * 4 u32, 8 u64, s string, F a u16 count and that many u64. */
static const char *shape_of(int kind)
{
#define F_U16(x) "2"
#define F_U32(x) "4"
#define F_U64(x) "8"
#define F_U64_OPT(x) "8"
#define F_STR(x) "s"
#define F_STRN(x) "s"
#define F_FRAMES(n, x) "F"
#define F_STR_OPT(x) "s"
#define F_FRAMES_OPT(n, x) "F"
#define F_U32S_OPT(n, x) "I"
#define F_BYTES(x) "s"
#define F_NONE
#define R_STR(x)
#define R_U32(x)
    switch (kind) {
#define RECORD(NAME, num, name, fields, report) case TK_##NAME: return "" fields;
#include "trace/records.def"
#undef RECORD
    default: return "";
    }
}

/* The strings and frames of a decoded event are there (not NULL). */
static int strings_sane(const rp_event *e)
{
#include "trace/records_undef.h"
#define F_U16(x)
#define F_U32(x)
#define F_U64(x)
#define F_U64_OPT(x)
#define F_STR(x) if (!v->x) return 0;
#define F_STRN(x) if (!v->x) return 0;
#define F_FRAMES(n, x) if (v->n && !v->x) return 0;
#define F_STR_OPT(x) if (!v->x) return 0;
#define F_FRAMES_OPT(n, x) if (v->n && !v->x) return 0;
#define F_U32S_OPT(n, x) if (v->n && !v->x) return 0;
#define F_BYTES(x) if (v->x##_len && !v->x) return 0;
#define F_NONE
#define R_STR(x) if (!v->x) return 0;
#define R_U32(x)
    switch (e->kind) {
#define RECORD(NAME, num, name, fields, report) \
    case TK_##NAME: { const rec_##name *v = &e->name; (void)v; fields report break; }
#include "trace/records.def"
#undef RECORD
    }
    return 1;
}

typedef struct {
    int open_rc;
    uint64_t chunks, records, bad_chunk_walks;
    uint64_t corrupt_chunks, corrupt_bytes;
    int truncated, complete;
} walk_result;

/* Records a failure and leaves through the function's fail: label (which frees what it holds). */
#define FAIL_CASE(...) do { unit_fail(__FILE__, __LINE__, __VA_ARGS__); goto fail; } while (0)

/* Reads b with trace_open_memory and walks everything; checks the invariants. */
static int walk(const buf *b, walk_result *res)
{
    uint8_t *copy = malloc(b->n ? b->n : 1);
    trace_file tf;
    trace_scan s;
    trace_chunk c;
    char err[256];
    size_t good_bytes = 0, last_end = 0;
    uint64_t steps = 0;

    memcpy(copy, b->d, b->n);
    memset(res, 0, sizeof(*res));
    err[0] = '\0';
    res->open_rc = trace_open_memory(copy, b->n, &tf, err, sizeof(err));     /* tf owns copy now */
    if (res->open_rc != TRACE_OK) {
        if (res->open_rc < TRACE_E_IO || res->open_rc > TRACE_E_BAD_HEADER || !err[0])
            FAIL_CASE("trace_open_memory returned %d with message '%s'", res->open_rc, err);
        trace_close(&tf);
        return 0;
    }
    if (tf.body_offset < TRACE_HEADER_FIXED_LEN || tf.body_offset > b->n || !tf.runtime_version ||
        !tf.command_line || strlen(tf.runtime_version) > b->n || strlen(tf.command_line) > b->n)
        FAIL_CASE("header fields out of range (body at %zu of %zu)", tf.body_offset, b->n);
    last_end = tf.body_offset;
    trace_scan_init(&tf, &s);
    while (trace_next_chunk(&tf, &s, &c)) {
        size_t off = 0, nrec = 0;
        trace_record r;
        int rc;
        if (++steps > b->n + 1)
            FAIL_CASE("more chunks than bytes: the walk does not end");
        if (c.offset < last_end || c.payload != tf.data + c.offset + TRACE_CHUNK_HEADER_LEN ||
            c.len > tf.size - c.offset - TRACE_CHUNK_HEADER_LEN || c.len > TRACE_MAX_CHUNK_PAYLOAD)
            FAIL_CASE("chunk at %zu (payload %u) outside the file of %zu or before the last (%zu)", c.offset,
                      c.len, tf.size, last_end);
        good_bytes += TRACE_CHUNK_HEADER_LEN + c.len;
        last_end = c.offset + TRACE_CHUNK_HEADER_LEN + c.len;
        res->chunks++;
        while ((rc = trace_next_record(&c, &off, &r)) == 1) {
            trace_fields f;
            const char *shape = shape_of(r.kind);
            if (++nrec > c.len / TRACE_RECORD_HEADER_LEN)
                FAIL_CASE("more records than fit a chunk of %u bytes", c.len);
            if (r.fields < c.payload + TRACE_RECORD_HEADER_LEN || r.fields + r.fields_len > c.payload + c.len ||
                off > c.len)
                FAIL_CASE("record outside its chunk");
            res->records++;
            if (r.kind == TK_TRACE_END)
                res->complete = 1;
            trace_fields_init(&f, &r);
            for (const char *k = shape; *k; k++) {
                size_t n;
                const char *str;
                switch (*k) {
                case '2': trace_field_u16(&f); break;
                case '4': trace_field_u32(&f); break;
                case '8': trace_field_u64(&f); break;
                case 's':
                    str = trace_field_str(&f, &n);
                    if (n && (str < (const char *)r.fields ||
                              str + n > (const char *)r.fields + r.fields_len))
                        FAIL_CASE("string field outside its record");
                    break;
                case 'F': {
                    unsigned nf = trace_field_u16(&f);
                    for (unsigned i = 0; i < nf && !f.bad; i++)
                        trace_field_u64(&f);
                    break;
                }
                case 'I': {
                    unsigned nf = trace_field_u16(&f);
                    for (unsigned i = 0; i < nf && !f.bad; i++)
                        trace_field_u32(&f);
                    break;
                }
                }
                if (f.p < r.fields || f.p > f.end || f.end != r.fields + r.fields_len)
                    FAIL_CASE("field cursor outside its record");
            }
            /* reads past the end give zeros and set bad */
            {
                trace_fields g = f;
                g.p = g.end;
                if (trace_field_u64(&g) != 0 || !g.bad)
                    FAIL_CASE("a read past the end of a record did not give 0 and set bad");
            }
        }
        if (rc < 0)
            res->bad_chunk_walks++;
    }
    if (s.pos != tf.size)
        FAIL_CASE("the walk ended at %zu, not at the end %zu", s.pos, tf.size);
    if (s.chunks != res->chunks)
        FAIL_CASE("scan counted %llu chunks, the walk got %llu", (unsigned long long)s.chunks,
                  (unsigned long long)res->chunks);
    /* every byte of the body is accounted for exactly once */
    if (tf.body_offset + good_bytes + s.corrupt_bytes + (s.truncated ? s.truncated_bytes : 0) != tf.size)
        FAIL_CASE("bytes do not add up: body at %zu + good %zu + corrupt %llu + cut %zu != size %zu",
                  tf.body_offset, good_bytes, (unsigned long long)s.corrupt_bytes,
                  s.truncated ? s.truncated_bytes : (size_t)0, tf.size);
    if ((s.corrupt_chunks == 0) != (s.corrupt_bytes == 0))
        FAIL_CASE("corrupt chunks %llu but corrupt bytes %llu", (unsigned long long)s.corrupt_chunks,
                  (unsigned long long)s.corrupt_bytes);
    if (s.corrupt_chunks && (s.first_corrupt_offset < tf.body_offset || s.first_corrupt_offset >= tf.size))
        FAIL_CASE("first corrupt offset %zu outside the body", s.first_corrupt_offset);
    res->corrupt_chunks = s.corrupt_chunks;
    res->corrupt_bytes = s.corrupt_bytes;
    res->truncated = s.truncated;
    trace_close(&tf);
    return 0;
fail:
    trace_close(&tf);
    return -1;
}

/* The profile of view checked against the trace: -1 when it is not sane. */
static int profile_sane(const rp_trace *tr, const rp_profile *p, int view)
{
    /* (the live view's total counts every allocation sample, followed or not) */
    int counted = view == RP_VIEW_LIVE ? RP_VIEW_ALLOC : view;

    if (p->nsamples > p->total_samples || p->total_samples > rp_count_view_records(tr, (enum rp_view)counted)) {
        unit_fail(__FILE__, __LINE__, "profile of view %d has %zu samples of %llu (%llu records of the view)", view,
                  p->nsamples, (unsigned long long)p->total_samples,
                  (unsigned long long)rp_count_view_records(tr, (enum rp_view)counted));
        return -1;
    }
    for (size_t i = 0; i < p->nsamples; i++) {
        if (p->samples[i].thread >= p->nthreads) {
            unit_fail(__FILE__, __LINE__, "sample of thread %u of %zu", p->samples[i].thread, p->nthreads);
            return -1;
        }
        for (uint32_t k = 0; k < p->samples[i].nframes; k++)
            if (p->samples[i].frames[k] >= p->nframes) {
                unit_fail(__FILE__, __LINE__, "frame %u of %zu", p->samples[i].frames[k], p->nframes);
                return -1;
            }
    }
    return 0;
}

/* Every format of the registry in view, as `clrprobe report` calls them,
 * whatever the trace lacks (a writer given no samples or no heap must cope
 * too): with the heap questions and pprof --heap where a format has them.
 * What a writer returns is not checked (no snapshot is an error for some). */
static int write_every_format(const rp_trace *tr, int view, int variant, FILE *sink)
{
    rp_profile p;
    const char *thread = variant & 1 ? "worker" : NULL;

    if (rp_profile_build_opts(tr, (enum rp_view)view, thread, variant & 2 ? RP_PROFILE_RAW_FRAMES : 0, &p) != 0) {
        unit_fail(__FILE__, __LINE__, "profile build failed (view %d)", view);
        return -1;
    }
    if (profile_sane(tr, &p, view) < 0) {
        rp_profile_free(&p);
        return -1;
    }
    rp_write_profile_text(&p, sink);
    for (const rp_format *f = rp_formats; f->name; f++) {
        rp_report_input in = { .trace = tr, .profile = &p, .path = tmp_path, .title = "fuzz",
                               .by_thread = variant & 1, .thread = thread,
                               .profile_options = variant & 2 ? RP_PROFILE_RAW_FRAMES : 0 };
        (void)f->write(&in, sink);
        if (f->caps & RP_HEAP_PROFILE_OPTION) {
            in.heap = 1;
            (void)f->write(&in, sink);
            in.heap = 0;
        }
        if (f->caps & RP_HEAP_QUESTIONS) {
            in.why = variant & 1 ? "Leaf" : "?";
            in.old = tr;
            (void)f->write(&in, sink);
        }
    }
    rp_profile_free(&p);
    return 0;
}

/* Loads b with rp_load (through the temporary file) and writes every report
 * format to sink in view (-1: every view); checks the model against the walk. */
static int load_and_report(const buf *b, const walk_result *w, int view, int variant, FILE *sink)
{
    rp_trace tr;
    int have_trace = 0;
    char err[256];
    FILE *f = fopen(tmp_path, "wb");
    int rc;

    if (!f || (b->n && fwrite(b->d, 1, b->n, f) != b->n) || fclose(f) != 0)
        FAIL_CASE("cannot write %s", tmp_path);
    rc = rp_load(tmp_path, &tr, err, sizeof(err));
    have_trace = rc == TRACE_OK;
    if (rc != w->open_rc)
        FAIL_CASE("rp_load gave %d where trace_open_memory gave %d (%s)", rc, w->open_rc, err);
    if (rc != TRACE_OK)
        return 0;
    /* (an exception_handled record also gives its derived exception_catch event) */
    if (tr.nev > 2 * w->records || tr.scan.chunks != w->chunks || tr.scan.corrupt_bytes != w->corrupt_bytes ||
        tr.complete != w->complete || tr.scan.truncated != w->truncated)
        FAIL_CASE("model disagrees with the walk: %zu events of %llu records, %llu chunks of %llu",
                  tr.nev, (unsigned long long)w->records, (unsigned long long)tr.scan.chunks,
                  (unsigned long long)w->chunks);
    for (size_t i = 0; i < tr.nev; i++) {
        const rp_event *e = &tr.ev[i];
        if (!strings_sane(e) ||
            (e->thread != -1 && (e->thread < 0 || (size_t)e->thread >= tr.nthreads)) ||
            (i && e->t < tr.ev[i - 1].t))
            FAIL_CASE("event %zu of %zu is not sane (kind %d)", i, tr.nev, e->kind);
    }
    {
        char problem[512];
        rp_problem(&tr, problem, sizeof(problem));
    }
    if (rp_write_text(&tr, tmp_path, sink) != 0 || rp_write_jsonl(&tr, sink) != 0)
        FAIL_CASE("text or jsonl report failed");
    for (int v = view < 0 ? 0 : view; v <= (view < 0 ? RP_VIEW_COUNT - 1 : view); v++)
        if (write_every_format(&tr, v, variant, sink) < 0)
            goto fail;
    rp_free(&tr);
    return 0;
fail:
    if (have_trace)
        rp_free(&tr);
    return -1;
}

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    return v && *v ? atol(v) : def;
}

TEST(fuzz_reader_mutated_traces)
{
    bytes seeds[MAX_SEEDS];
    size_t nseeds;
    buf b = { NULL, 0, 0 };
    FILE *sink = fopen("/dev/null", "w");
    struct sigaction sa, old_sa;
    const char *only = getenv("FUZZ_CASE");
    long first = env_long("FUZZ_FIRST", 0), ncases = env_long("FUZZ_CASES", FUZZ_CASES), last, ran = 0;
    long seconds = env_long("FUZZ_SECONDS", 0);
    time_t deadline = seconds > 0 ? time(NULL) + seconds : 0;
    uint64_t opened = 0, with_records = 0, resealed = 0;
    uint64_t seen_corrupt = 0, seen_cut = 0, seen_bad_records = 0;
    int failures_before_case, verbose = getenv("FUZZ_VERBOSE") != NULL;

    snprintf(tmp_path, sizeof(tmp_path), "/tmp/clrprobe-unit-%d-fuzz", (int)getpid());
    nseeds = make_seeds(seeds);
    CHECK(sink != NULL);
    for (size_t i = 0; i < nseeds; i++)
        if (seeds[i].size < 300)
            unit_fail(__FILE__, __LINE__, "seed %zu was not made or read (%zu bytes)", i, seeds[i].size);
    if (!sink || unit_failures())
        return;
    if (only)
        first = atol(only), ncases = 1;
    last = first + ncases - 1;

    /* the seeds themselves read cleanly, in every view */
    for (size_t i = 0; i < nseeds && !only; i++) {
        walk_result w;
        b.n = 0;
        reserve(&b, seeds[i].size);
        memcpy(b.d, seeds[i].data, seeds[i].size);
        b.n = seeds[i].size;
        CHECK_EQ(walk(&b, &w), 0);
        CHECK_EQ(w.open_rc, TRACE_OK);
        CHECK_EQ(w.corrupt_chunks + (uint64_t)w.truncated + w.bad_chunk_walks, 0);
        CHECK_EQ(w.complete, 1);
        CHECK(i >= 2 || w.chunks > 5);
        CHECK_EQ(load_and_report(&b, &w, -1, (int)i, sink), 0);
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = watchdog;
    sigaction(SIGALRM, &sa, &old_sa);
    for (long i = first; i <= last && (!deadline || time(NULL) < deadline); i++) {
        walk_result w;
        const bytes *seed = &seeds[(size_t)i % nseeds];
        struct itimerval limit = { { 0, 0 }, { 10, 0 } };    /* 10 s per case, ASan included */

        current_case = i;
        if (verbose)
            fprintf(stderr, "fuzz case %ld\n", i);
        rng_state = FUZZ_SEED ^ ((uint64_t)i * 0x2545f4914f6cdd1dull);
        b.n = 0;
        reserve(&b, seed->size);
        memcpy(b.d, seed->data, seed->size);
        b.n = seed->size;
        for (int m = 1 + (int)below(4); m > 0; m--)
            mutate_once(&b);
        if (below(2)) {
            reseal(&b);
            resealed++;
        }
        setitimer(ITIMER_REAL, &limit, NULL);
        failures_before_case = unit_failures();
        ran++;
        if (walk(&b, &w) == 0 && load_and_report(&b, &w, (int)(i / (long)nseeds % RP_VIEW_COUNT), (int)(i / 7 % 4),
                                                 sink) == 0) {
            opened += w.open_rc == TRACE_OK;
            with_records += w.records > 0;
            seen_corrupt += w.corrupt_chunks > 0;
            seen_cut += w.truncated;
            seen_bad_records += w.bad_chunk_walks > 0;
        }
        if (unit_failures() != failures_before_case) {
            printf("    fuzz: case %ld failed (seed %#llx; rerun it alone with FUZZ_CASE=%ld)\n", i,
                   (unsigned long long)FUZZ_SEED, i);
            break;
        }
    }
    {
        struct itimerval off = { { 0, 0 }, { 0, 0 } };
        setitimer(ITIMER_REAL, &off, NULL);
    }
    sigaction(SIGALRM, &old_sa, NULL);
    if (!only && unit_failures() == 0) {
        /* the mutations reached every part of the reader */
        printf("    fuzz: %ld cases from %zu seeds (%llu resealed): %llu opened, %llu with records, %llu with "
               "corrupt chunks, %llu cut short, %llu with malformed records\n", ran, nseeds,
               (unsigned long long)resealed, (unsigned long long)opened, (unsigned long long)with_records,
               (unsigned long long)seen_corrupt, (unsigned long long)seen_cut, (unsigned long long)seen_bad_records);
        if (ran >= 1000) {
            CHECK(opened > (uint64_t)ran / 2);
            CHECK(seen_corrupt > (uint64_t)ran / 30);
            CHECK(seen_cut > (uint64_t)ran / 30);
            CHECK(seen_bad_records > (uint64_t)ran / 30);
            CHECK(opened < (uint64_t)ran);
        }
    }
    fclose(sink);
    free(b.d);
    for (size_t i = 0; i < nseeds; i++)
        free(seeds[i].data);
    unlink(tmp_path);
}
