/* test_trace.c - the trace writer and reader together: header round trip,
 * many threads' buffers, truncation at every byte of the tail, a flipped
 * byte in a chunk, a file that is not a trace and a newer format version. */
#include "unit.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "trace/records.h"
#include "trace/writer.h"
#include "common/files.h"

#include <fcntl.h>

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static char *temp_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-%s", (int)getpid(), name);
    return path;
}

static void put_jit(trace_buffer *b, uint32_t tid, uint64_t t, uint64_t fid, const char *name)
{
    trace_rec r;
    uint8_t *p = trace_buffer_begin(b);
    if (!p)
        return;
    trace_rec_begin(&r, p, TRACE_MAX_RECORD, TK_JIT, tid, t);
    rec_jit_put(&r, &(rec_jit){ .function = fid, .module = 7, .duration_ns = 1000, .hr = 0, .name = name });
    trace_buffer_end(b, trace_rec_finish(&r));
}

/* Writes a trace with n JIT records from one thread; closes it if asked. */
static void write_trace(const char *path, int n, int close_it)
{
    trace_writer *w;
    trace_header_info h = { 4242, 0, 111, 222, "10.0.12", "Sample all" };
    char err[256];
    trace_buffer *b;

    CHECK_EQ(trace_writer_open(&w, unit_create_file(path), path, &h, err, sizeof(err)), 0);
    b = trace_writer_buffer_get(w);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof(name), "Ns.Type.Method%d", i);
        put_jit(b, 9, 1000 + (uint64_t)i, 0x1000 + (uint64_t)i, name);
    }
    if (close_it)
        trace_writer_close(w, 9, 5000000);
    else
        trace_writer_flush(w);
    trace_writer_free(w);
}

typedef struct { uint64_t records, jit, end; int bad_record; } counts;

static counts count_records(trace_file *tf, trace_scan *s)
{
    counts k = { 0, 0, 0, 0 };
    trace_chunk c;
    trace_scan_init(tf, s);
    while (trace_next_chunk(tf, s, &c)) {
        size_t off = 0;
        trace_record r;
        int rc;
        while ((rc = trace_next_record(&c, &off, &r)) == 1) {
            k.records++;
            if (r.kind == TK_JIT) k.jit++;
            if (r.kind == TK_TRACE_END) k.end++;
        }
        if (rc < 0) k.bad_record = 1;
    }
    return k;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *d;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    d = malloc(*len + 1);
    if (fread(d, 1, *len, f) != *len) { free(d); d = NULL; }
    fclose(f);
    return d;
}

TEST(trace_roundtrip_header_and_records)
{
    const char *path = temp_path("rt");
    trace_file tf;
    trace_scan s;
    char err[256];
    counts k;

    write_trace(path, 3000, 1);
    CHECK_EQ(trace_open(path, &tf, err, sizeof(err)), TRACE_OK);
    CHECK_EQ(tf.version, TRACE_FORMAT_VERSION);
    CHECK_EQ(tf.pid, 4242);
    CHECK_EQ(tf.start_realtime_ns, 111);
    CHECK_EQ(tf.start_monotonic_ns, 222);
    CHECK_STR(tf.runtime_version, "10.0.12");
    CHECK_STR(tf.command_line, "Sample all");
    k = count_records(&tf, &s);
    CHECK_EQ(k.jit, 3000);
    CHECK_EQ(k.end, 1);
    CHECK(s.chunks > 3);          /* 3000 records do not fit one buffer */
    CHECK_EQ(s.corrupt_chunks, 0);
    CHECK_EQ(s.truncated, 0);
    CHECK_EQ(k.bad_record, 0);
    trace_close(&tf);
    unlink(path);
}

TEST(trace_record_fields)
{
    uint8_t buf[256];
    trace_rec r;
    trace_record rec;
    trace_fields f;
    trace_chunk c;
    size_t off = 0, n;
    const char *s;

    trace_rec_begin(&r, buf, sizeof(buf), TK_THREAD_NAME, 77, 123456789);
    trace_rec_u64(&r, 0xdeadbeefcafe);
    trace_rec_str(&r, "worker-\xc3\xa9");
    c.payload = buf;
    c.len = (uint32_t)trace_rec_finish(&r);
    CHECK_EQ(trace_next_record(&c, &off, &rec), 1);
    CHECK_EQ(rec.kind, TK_THREAD_NAME);
    CHECK_EQ(rec.tid, 77);
    CHECK_EQ(rec.t, 123456789);
    trace_fields_init(&f, &rec);
    CHECK_EQ(trace_field_u64(&f), 0xdeadbeefcafe);
    s = trace_field_str(&f, &n);
    CHECK_EQ(n, 9);
    CHECK(memcmp(s, "worker-\xc3\xa9", 9) == 0);
    CHECK_EQ(f.bad, 0);
    trace_field_u32(&f);           /* past the end: zero and flagged */
    CHECK_EQ(f.bad, 1);
    CHECK_EQ(trace_next_record(&c, &off, &rec), 0);
}

TEST(trace_string_cut_keeps_utf8_whole)
{
    uint8_t buf[TRACE_RECORD_HEADER_LEN + 2 + 5];
    trace_rec r;
    trace_rec_begin(&r, buf, sizeof(buf), TK_NOTE, 1, 1);
    trace_rec_str(&r, "abcd\xc3\xa9xyz");    /* room for 5 bytes: must stop before the 2-byte char */
    CHECK_EQ(trace_get_u16(buf + TRACE_RECORD_HEADER_LEN), 4);
}

TEST(trace_truncated_at_every_tail_length)
{
    const char *path = temp_path("cut");
    size_t len, cut;
    uint8_t *full;
    int failures = 0;

    write_trace(path, 2500, 1);
    full = slurp(path, &len);
    CHECK(full != NULL);
    if (!full) return;
    /* Cut the file at every length within the last 300 bytes and at a
     * sample of lengths across it: never crash, never see corruption, and
     * report a cut whenever the end record is gone. */
    for (cut = 60; cut < len; cut += (len - cut > 300 ? 997 : 1)) {
        uint8_t *copy = malloc(cut);
        trace_file tf;
        trace_scan s;
        char err[256];
        counts k;
        memcpy(copy, full, cut);
        if (trace_open_memory(copy, cut, &tf, err, sizeof(err)) != TRACE_OK) {
            trace_close(&tf);
            continue;                  /* cut inside the header */
        }
        k = count_records(&tf, &s);
        if (s.corrupt_chunks != 0 || k.end != 0 || k.bad_record)
            failures++;
        /* the only way the tail can be complete is a cut exactly at a chunk boundary */
        if (!s.truncated && s.pos != cut)
            failures++;
        trace_close(&tf);
    }
    CHECK_EQ(failures, 0);
    free(full);
    unlink(path);
}

TEST(trace_not_closed_is_readable)
{
    const char *path = temp_path("open");
    trace_file tf;
    trace_scan s;
    char err[256];
    counts k;
    write_trace(path, 100, 0);
    CHECK_EQ(trace_open(path, &tf, err, sizeof(err)), TRACE_OK);
    k = count_records(&tf, &s);
    CHECK_EQ(k.jit, 100);
    CHECK_EQ(k.end, 0);
    CHECK_EQ(s.truncated, 0);
    trace_close(&tf);
    unlink(path);
}

TEST(trace_flipped_byte_skips_one_chunk)
{
    const char *path = temp_path("flip");
    size_t len;
    uint8_t *data;
    trace_file tf;
    trace_scan s;
    char err[256];
    counts k, good;

    write_trace(path, 3000, 1);
    data = slurp(path, &len);
    CHECK_EQ(trace_open_memory(data, len, &tf, err, sizeof(err)), TRACE_OK);
    good = count_records(&tf, &s);
    /* flip a byte in the middle of the second chunk's payload */
    {
        trace_scan s2;
        trace_chunk c;
        trace_scan_init(&tf, &s2);
        trace_next_chunk(&tf, &s2, &c);
        trace_next_chunk(&tf, &s2, &c);
        tf.data[c.offset + TRACE_CHUNK_HEADER_LEN + c.len / 2] ^= 0x40;
    }
    k = count_records(&tf, &s);
    CHECK_EQ(s.corrupt_chunks, 1);
    CHECK(s.corrupt_bytes > 0);
    CHECK_EQ(s.truncated, 0);
    CHECK(k.jit < good.jit);
    CHECK(k.jit > good.jit / 2);
    CHECK_EQ(k.end, 1);            /* chunks after the damage are still read */
    trace_close(&tf);
    unlink(path);
}

TEST(trace_flipped_length_field)
{
    const char *path = temp_path("flen");
    size_t len;
    uint8_t *data;
    trace_file tf;
    trace_scan s;
    char err[256];
    counts k;

    write_trace(path, 3000, 1);
    data = slurp(path, &len);
    CHECK_EQ(trace_open_memory(data, len, &tf, err, sizeof(err)), TRACE_OK);
    tf.data[tf.body_offset + 5] ^= 0x01;   /* first chunk's payload length */
    k = count_records(&tf, &s);
    CHECK_EQ(s.corrupt_chunks, 1);
    CHECK_EQ(k.end, 1);
    trace_close(&tf);
    unlink(path);
}

TEST(trace_open_rejects_non_traces)
{
    trace_file tf;
    char err[256];
    uint8_t *d = malloc(64);
    memset(d, 'x', 64);
    CHECK_EQ(trace_open_memory(d, 64, &tf, err, sizeof(err)), TRACE_E_NOT_TRACE);
    CHECK(strstr(err, "not a clrprobe trace") != NULL);
    trace_close(&tf);
    CHECK_EQ(trace_open("/nonexistent/x.clrp", &tf, err, sizeof(err)), TRACE_E_IO);
    CHECK(strstr(err, "No such file") != NULL);
}

TEST(trace_open_rejects_newer_version_and_bad_header)
{
    const char *path = temp_path("ver");
    size_t len;
    uint8_t *data;
    trace_file tf;
    char err[256];

    write_trace(path, 1, 1);
    data = slurp(path, &len);
    trace_put_u32(data + 8, TRACE_FORMAT_VERSION + 1);
    CHECK_EQ(trace_open_memory(data, len, &tf, err, sizeof(err)), TRACE_E_NEWER);
    CHECK(strstr(err, "newer") != NULL);
    trace_close(&tf);

    data = slurp(path, &len);
    data[20] ^= 1;                 /* header byte: checksum must catch it */
    CHECK_EQ(trace_open_memory(data, len, &tf, err, sizeof(err)), TRACE_E_BAD_HEADER);
    trace_close(&tf);
    unlink(path);
}

struct thread_arg { trace_writer *w; uint32_t tid; int n; };

static void *writer_thread(void *p)
{
    struct thread_arg *a = p;
    trace_buffer *b = trace_writer_buffer_get(a->w);
    for (int i = 0; i < a->n; i++)
        put_jit(b, a->tid, (uint64_t)i, (uint64_t)i, "Concurrent.Method");
    trace_writer_buffer_put(a->w, b);
    return NULL;
}

TEST(trace_many_threads_and_flusher)
{
    const char *path = temp_path("mt");
    trace_writer *w;
    trace_header_info h = { 1, 0, 0, 0, "v", "c" };
    char err[256];
    pthread_t th[8];
    struct thread_arg args[8];
    trace_file tf;
    trace_scan s;
    counts k;

    CHECK_EQ(trace_writer_open(&w, unit_create_file(path), path, &h, err, sizeof(err)), 0);
    for (int i = 0; i < 8; i++) {
        args[i] = (struct thread_arg){ w, (uint32_t)i + 1, 5000 };
        pthread_create(&th[i], NULL, writer_thread, &args[i]);
    }
    for (int r = 0; r < 20; r++)
        trace_writer_flush(w);     /* concurrent with the writers */
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], NULL);
    trace_writer_close(w, 0, 0);
    trace_writer_free(w);
    CHECK_EQ(trace_open(path, &tf, err, sizeof(err)), TRACE_OK);
    k = count_records(&tf, &s);
    CHECK_EQ(k.jit, 40000);
    CHECK_EQ(s.corrupt_chunks, 0);
    trace_close(&tf);
    unlink(path);
}

TEST(trace_writer_open_unwritable)
{
    trace_writer *w;
    trace_header_info h = { 1, 0, 0, 0, "v", "c" };
    char err[256];
    int created = 1;
    CHECK_EQ(cp_file_open_trace("/nonexistent-dir/x.clrp", &created, err, sizeof(err)), -1);
    CHECK(strstr(err, "cannot create") != NULL);
    CHECK_EQ(created, 0);
    /* the writer closes a descriptor it cannot write to */
    CHECK_EQ(trace_writer_open(&w, open("/dev/null", O_RDONLY), "/dev/null", &h, err, sizeof(err)), -1);
    CHECK(strstr(err, "cannot write the trace file /dev/null") != NULL);
}

#include <signal.h>
#include <sys/resource.h>

TEST(trace_stops_at_file_size_limit_with_a_note)
{
    const char *path = temp_path("fsize");
    struct rlimit old, lim;
    trace_file tf;
    trace_scan s;
    trace_chunk c;
    char err[256];
    int notes = 0;

    signal(SIGXFSZ, SIG_IGN);          /* the writer must not need this, but never die in a test */
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 100 * 1024;
    setrlimit(RLIMIT_FSIZE, &lim);
    write_trace(path, 5000, 1);        /* ~250 KB of records */
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK_EQ(trace_open(path, &tf, err, sizeof(err)), TRACE_OK);
    CHECK(tf.size <= 100 * 1024);
    trace_scan_init(&tf, &s);
    while (trace_next_chunk(&tf, &s, &c)) {
        size_t off = 0;
        trace_record r;
        while (trace_next_record(&c, &off, &r) == 1)
            if (r.kind == TK_NOTE) {
                trace_fields f;
                size_t n;
                const char *text;
                trace_fields_init(&f, &r);
                text = trace_field_str(&f, &n);
                if (n > 20 && strstr(text, "file size limit"))
                    notes++;
            }
    }
    CHECK_EQ(notes, 1);
    CHECK_EQ(s.corrupt_chunks, 0);
    trace_close(&tf);
    unlink(path);
}
