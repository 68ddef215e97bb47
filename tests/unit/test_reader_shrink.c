/* test_reader_shrink.c - a trace that changes size while it is read
 * (trace/reader.h): shortened after it was opened, even in the middle of a
 * chunk being walked, it reads as cut short where it now ends, never as a
 * SIGBUS; lengthened, it reads as it was when opened. */
#include "unit.h"
#include "report/model.h"
#include "trace/format.h"
#include "trace/reader.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOURCE "tests/data/compat/launch.clrp"    /* a real trace of many chunks */

/* Writes SOURCE's header and its body REPEAT times to path (a trace larger
 * than the reader's window, so that its end is read after the change);
 * the size, or 0. */
#define REPEAT 20
static size_t copy_source(const char *path)
{
    FILE *in = fopen(SOURCE, "rb"), *out;
    static unsigned char buf[1 << 20];
    size_t n = 0, hlen, total = 0;
    int fd = unit_create_file(path);

    if (in)
        n = fread(buf, 1, sizeof(buf), in);
    if (!in || n < 64 || fd < 0 || (out = fdopen(fd, "wb")) == NULL) {
        if (in)
            fclose(in);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    fclose(in);
    hlen = trace_get_u32(buf + 12);
    total += fwrite(buf, 1, hlen, out);
    for (int i = 0; i < REPEAT; i++)
        total += fwrite(buf + hlen, 1, n - hlen, out);
    return fclose(out) == 0 ? total : 0;
}

/* Opens path, walks `before` chunks, sets its size to new_size, walks the
 * rest; the chunks and records it read, and the scan. */
static void walk_resized(const char *path, size_t before, off_t new_size, trace_scan *s, size_t *chunks,
                         size_t *records)
{
    trace_file tf;
    trace_chunk c;
    char err[256];

    *chunks = *records = 0;
    memset(s, 0, sizeof(*s));
    CHECK_EQ(trace_open(path, &tf, err, sizeof(err)), TRACE_OK);
    trace_scan_init(&tf, s);
    for (;;) {
        size_t off = 0;
        trace_record r;
        if (*chunks == before)
            CHECK_EQ(truncate(path, new_size), 0);
        if (!trace_next_chunk(&tf, s, &c))
            break;
        (*chunks)++;
        while (trace_next_record(&c, &off, &r) == 1)
            (*records)++;
    }
    trace_close(&tf);
}

TEST(reader_file_shortened_while_read_is_cut_short)
{
    char path[128];
    size_t size, all_chunks, all_records, chunks, records;
    trace_scan s;

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-shrink.clrp", (int)getpid());
    size = copy_source(path);
    CHECK(size > 2 * (TRACE_CHUNK_HEADER_LEN + TRACE_MAX_CHUNK_PAYLOAD));
    if (size <= 2 * (TRACE_CHUNK_HEADER_LEN + TRACE_MAX_CHUNK_PAYLOAD))
        return;
    walk_resized(path, (size_t)-1, (off_t)size, &s, &all_chunks, &all_records);
    CHECK(all_chunks > 10);
    CHECK_EQ(s.truncated, 0);

    /* shortened to a third after 2 chunks, in the middle of a chunk */
    walk_resized(path, 2, (off_t)(size / 3), &s, &chunks, &records);
    CHECK(chunks >= 2 && chunks < all_chunks);
    CHECK(records < all_records);
    CHECK_EQ(s.truncated, 1);
    CHECK_EQ(s.shrank, 1);
    CHECK(s.end <= size / 3);
    CHECK_EQ(s.corrupt_chunks, 0);
    {                                        /* and the report says so */
        rp_trace tr;
        char problem[512];
        memset(&tr, 0, sizeof(tr));
        tr.scan = s;
        CHECK(rp_problem(&tr, problem, sizeof(problem)) != NULL);
        CHECK(strstr(problem, "the file was shortened while it was read") != NULL);
    }

    /* shortened to its header, before any chunk is read */
    copy_source(path);
    walk_resized(path, 0, 60, &s, &chunks, &records);
    CHECK_EQ(chunks, 0);
    CHECK_EQ(s.truncated, 1);

    /* emptied */
    copy_source(path);
    walk_resized(path, 1, 0, &s, &chunks, &records);
    CHECK(chunks >= 1 && chunks < all_chunks / 2);
    CHECK_EQ(s.truncated, 1);

    /* lengthened: read as it was when opened */
    copy_source(path);
    walk_resized(path, 1, (off_t)size * 2, &s, &chunks, &records);
    CHECK_EQ(chunks, all_chunks);
    CHECK_EQ(records, all_records);
    CHECK_EQ(s.truncated, 0);
    CHECK_EQ(s.corrupt_chunks, 0);
    unlink(path);
}
