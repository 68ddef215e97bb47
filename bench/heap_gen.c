/* heap_gen.c - writes a synthetic heap snapshot trace for bench/heap_report.sh:
 * N objects of 200 types, 24-120 bytes each, each referring to one or two
 * objects allocated near it and now and then to one far away, 1000 handle
 * roots, through the agent's own trace writer and heap codec.
 *   heap_gen FILE N */
#include "trace/format.h"
#include "trace/heap_codec.h"
#include "trace/records.h"
#include "trace/writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

static trace_writer *w;
static trace_buffer *buf;

static void put(uint64_t t, int kind, const rec_any *v)
{
    trace_rec r;
    trace_rec_begin(&r, trace_buffer_begin(buf), TRACE_MAX_RECORD, kind, 1, t);
    rec_put(&r, kind, v);
    trace_buffer_end(buf, trace_rec_finish(&r));
}

#define DATA_CAP (TRACE_MAX_RECORD - 64)

static void flush_objects(heap_enc *e, uint8_t *data)
{
    if (e->count)
        put(2, TK_HEAP_OBJECTS, &(rec_any){ .heap_objects = { .snapshot = 1, .count = e->count, .data = data,
                                                              .data_len = (uint16_t)e->len } });
    heap_enc_init(e, data, DATA_CAP);
}

int main(int argc, char **argv)
{
    trace_header_info hi = { 1, 0, 0, 0, "10.0.0", "heap_gen" };
    static uint8_t data[DATA_CAP];
    char err[256], name[32];
    size_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
    uint64_t *addr = malloc(n * sizeof(uint64_t)), a = 0x7f0000000000ull, bytes = 0;
    heap_enc e;
    int fd;

    if (argc < 2 || !addr || (fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
        fprintf(stderr, "usage: heap_gen NEWFILE [N]\n");
        return 2;
    }
    if (trace_writer_open(&w, fd, argv[1], &hi, err, sizeof(err)) < 0) {
        fprintf(stderr, "heap_gen: %s\n", err);
        return 1;
    }
    buf = trace_writer_buffer_get(w);
    srand(1);
    for (size_t i = 0; i < n; i++) {
        addr[i] = a;
        a += 24 + 8 * (uint64_t)(rand() % 13);
    }
    put(1, TK_HEAP_BEGIN, &(rec_any){ .heap_begin = { .snapshot = 1, .method = HEAP_METHOD_GC_ROOTS } });
    for (uint32_t t = 0; t < 200; t++) {
        snprintf(name, sizeof(name), "Bench.Type%u", t);
        put(1, TK_HEAP_TYPE, &(rec_any){ .heap_type = { .index = t, .class_id = 0x1000 + t, .name = name } });
    }
    heap_enc_init(&e, data, DATA_CAP);
    for (size_t i = 0; i < n; i++) {
        uint64_t refs[3];
        size_t nr = 0, from = 0;
        int wrote = 0;
        uint64_t size = i + 1 < n ? addr[i + 1] - addr[i] : 24;
        if (i + 1 < n)
            refs[nr++] = addr[i + 1];                                  /* a list... */
        if (i > 10 && rand() % 2)
            refs[nr++] = addr[i - 1 - (size_t)(rand() % 10)];          /* ...with neighbours */
        if (rand() % 20 == 0)
            refs[nr++] = addr[(size_t)rand() % n];                     /* and now and then far away */
        while (!wrote || from < nr) {
            if (heap_enc_object(&e, addr[i], (uint32_t)(i % 200), size, 0, refs, nr, &from))
                wrote = 1;
            else
                flush_objects(&e, data);
        }
        bytes += size;
    }
    flush_objects(&e, data);
    heap_enc_init(&e, data, DATA_CAP);
    for (size_t k = 0; k < 1000; k++)
        if (!heap_enc_root(&e, HEAP_ROOT_HANDLE, 0, addr[(n / 1000) * k], 0x5000 + 8 * k))
            break;
    put(3, TK_HEAP_ROOTS, &(rec_any){ .heap_roots = { .snapshot = 1, .count = e.count, .data = data,
                                                      .data_len = (uint16_t)e.len } });
    put(4, TK_HEAP_END, &(rec_any){ .heap_end = { .snapshot = 1, .objects = n, .bytes = bytes, .roots = 1000 } });
    if (trace_writer_close(w, 1, 5) < 0) {
        fprintf(stderr, "heap_gen: the trace could not be completed\n");
        return 1;
    }
    trace_writer_free(w);
    free(addr);
    return 0;
}
