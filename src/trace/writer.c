/* writer.c - append-only, chunked, checksummed trace writer (see writer.h
 * for the contract, format.h for the bytes).
 *
 * Locking: each buffer has its own mutex, taken by its thread for every
 * record (uncontended) and by the flusher every 250 ms.  The file
 * mutex is taken only to write a whole chunk.  The registry mutex guards the
 * list of buffers and is taken when a thread appears or goes away. */
#include "trace/writer.h"
#include "trace/format.h"
#include "trace/records.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define BUFFER_CAPACITY (32u * 1024u)   /* chunk payload bytes per thread buffer */
/* Disk space kept allocated past the end of the file, so that when the disk
 * fills up the writer can still say so in the trace: larger than any chunk. */
#define RESERVE_BYTES (64u * 1024u)
/* It is renewed this far ahead once less than RESERVE_BYTES is left of it:
 * a fallocate every few chunks, not every chunk (one per chunk was a tenth
 * of the signal sampler's collector at 1000 Hz). */
#define RESERVE_STEP (512u * 1024u)

struct trace_buffer {
    pthread_mutex_t lock;
    trace_writer *w;
    trace_buffer *next;          /* registry list */
    int in_use;                  /* owned by a live thread (registry mutex) */
    uint32_t nrecords;
    size_t used;
    uint8_t data[TRACE_CHUNK_HEADER_LEN + BUFFER_CAPACITY];
};

struct trace_writer {
    int fd;
    uint64_t size;               /* bytes written so far */
    uint64_t size_limit;         /* RLIMIT_FSIZE: never write past it (SIGXFSZ) */
    int reserve;                 /* the file system supports the reserve */
    uint64_t reserved_to;        /* allocated up to here (KEEP_SIZE: past the end) */
    atomic_int stopped;          /* a write failed, or the trace is closed */
    int write_errno;
    pthread_mutex_t file_lock;
    uint64_t next_seq;
    pthread_mutex_t registry_lock;
    trace_buffer *buffers;
    pthread_mutex_t flush_lock;  /* serializes flushers; guards scratch */
    uint8_t scratch[TRACE_CHUNK_HEADER_LEN + BUFFER_CAPACITY];
};

size_t trace_writer_buffer_capacity(void) { return BUFFER_CAPACITY; }

int trace_writer_stopped(const trace_writer *w) { return atomic_load(&w->stopped); }

/* Writes all of buf, retrying on EINTR and short writes. */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Fills in the chunk header for the payload that follows it. */
static void seal_chunk(trace_writer *w, uint8_t *chunk, size_t payload_len, uint32_t nrecords)
{
    uLong crc;

    trace_put_u32(chunk, TRACE_CHUNK_MAGIC);
    trace_put_u32(chunk + 4, (uint32_t)payload_len);
    trace_put_u64(chunk + 8, w->next_seq++);
    trace_put_u32(chunk + 16, nrecords);
    crc = crc32(0L, chunk, 20);
    crc = crc32(crc, chunk + TRACE_CHUNK_HEADER_LEN, (uInt)payload_len);
    trace_put_u32(chunk + 20, (uint32_t)crc);
}

/* Stops recording for good, leaving a note in the trace when the space for
 * it is there (the reserve).  Caller holds the file lock. */
static void stop_locked(trace_writer *w, const char *why)
{
    uint8_t chunk[TRACE_CHUNK_HEADER_LEN + TRACE_RECORD_HEADER_LEN + 2 + 256];
    char text[256];
    struct timespec ts;
    trace_rec r;
    size_t len;

    atomic_store(&w->stopped, 1);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(text, sizeof(text), TRACE_STOP_NOTE "%s; events after this point were not recorded", why);
    trace_rec_begin(&r, chunk + TRACE_CHUNK_HEADER_LEN, sizeof(chunk) - TRACE_CHUNK_HEADER_LEN, TK_NOTE, 0,
                    (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    rec_note_put(&r, &(rec_note){ .text = text });
    len = trace_rec_finish(&r);
    seal_chunk(w, chunk, len, 1);
    if (w->size + TRACE_CHUNK_HEADER_LEN + len <= w->size_limit &&
        write_all(w->fd, chunk, TRACE_CHUNK_HEADER_LEN + len) == 0)
        w->size += TRACE_CHUNK_HEADER_LEN + len;
}

/* Keeps RESERVE_BYTES allocated past the end of the file.  Returns -1 when
 * the disk has no room left for it. */
static int renew_reserve(trace_writer *w)
{
    if (!w->reserve || w->size + RESERVE_BYTES <= w->reserved_to)
        return 0;
    /* a step ahead, or at least the reserve itself when the disk has not the step's room */
    if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)w->size, RESERVE_STEP) == 0) {
        w->reserved_to = w->size + RESERVE_STEP;
        return 0;
    }
    if ((errno == ENOSPC || errno == EDQUOT) &&
        fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)w->size, RESERVE_BYTES) == 0) {
        w->reserved_to = w->size + RESERVE_BYTES;
        return 0;
    }
    if (errno == ENOSPC || errno == EDQUOT)
        return -1;
    w->reserve = 0;              /* not supported here: go on without */
    return 0;
}

/* Makes a chunk of the payload that follows the header space in chunk[]
 * and appends it.  Stops the writer if the write fails, the disk is full or
 * the file would exceed the process's file size limit. */
static void write_chunk(trace_writer *w, uint8_t *chunk, size_t payload_len, uint32_t nrecords)
{
    size_t len = TRACE_CHUNK_HEADER_LEN + payload_len;
    char why[160];

    if (payload_len == 0)
        return;
    pthread_mutex_lock(&w->file_lock);
    if (w->fd < 0 || atomic_load(&w->stopped)) {
        pthread_mutex_unlock(&w->file_lock);
        return;
    }
    if (w->size + len + 4096 > w->size_limit) {
        stop_locked(w, "the trace reached the process's file size limit (RLIMIT_FSIZE)");
        pthread_mutex_unlock(&w->file_lock);
        return;
    }
    seal_chunk(w, chunk, payload_len, nrecords);
    if (write_all(w->fd, chunk, len) < 0) {
        w->write_errno = errno;
        snprintf(why, sizeof(why), "writing the trace failed (%s)", strerror(errno));
        stop_locked(w, why);
    } else {
        w->size += len;
        if (renew_reserve(w) < 0) {
            w->write_errno = ENOSPC;
            stop_locked(w, "the disk is full (No space left on device)");
        }
    }
    pthread_mutex_unlock(&w->file_lock);
}

int trace_writer_open(trace_writer **out, int fd, const char *name, const trace_header_info *hdr,
                      char *err, size_t errlen)
{
    uint8_t head[TRACE_HEADER_FIXED_LEN + 2 * (2 + TRACE_MAX_STR) + 4];
    trace_rec r;
    size_t len;
    trace_writer *w;

    w = calloc(1, sizeof(*w));
    if (!w) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        return -1;
    }
    w->fd = fd;
    {
        /* Appends only, whatever else shares the file's offset. */
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            fcntl(fd, F_SETFL, fl | O_APPEND);
    }
    pthread_mutex_init(&w->file_lock, NULL);
    pthread_mutex_init(&w->registry_lock, NULL);
    pthread_mutex_init(&w->flush_lock, NULL);

    memcpy(head, TRACE_MAGIC, TRACE_MAGIC_LEN);
    trace_put_u32(head + 8, TRACE_FORMAT_VERSION);
    /* header_len at 12 is filled in below */
    trace_put_u32(head + 16, hdr->pid);
    trace_put_u32(head + 20, hdr->flags);
    trace_put_u64(head + 24, hdr->start_realtime_ns);
    trace_put_u64(head + 32, hdr->start_monotonic_ns);
    r.start = head;
    r.p = head + TRACE_HEADER_FIXED_LEN;
    r.end = head + sizeof(head) - 4;
    trace_rec_str(&r, hdr->runtime_version ? hdr->runtime_version : "");
    trace_rec_str(&r, hdr->command_line ? hdr->command_line : "");
    len = (size_t)(r.p - head);
    trace_put_u32(head + 12, (uint32_t)(len + 4));
    trace_put_u32(head + len, (uint32_t)crc32(0L, head, (uInt)len));
    {
        struct rlimit rl;
        w->size_limit = UINT64_MAX;
        if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            w->size_limit = rl.rlim_cur;
    }
    w->reserve = 1;
    if (len + 4 + 4096 > w->size_limit || write_all(w->fd, head, len + 4) < 0 ||
        (w->size = len + 4, renew_reserve(w) < 0)) {
        snprintf(err, errlen, "cannot write the trace file %s: %s", name,
                 len + 4 + 4096 > w->size_limit ? "file size limit (ulimit -f) too small" :
                 errno ? strerror(errno) : "disk full");
        close(w->fd);
        free(w);
        return -1;
    }
    *out = w;
    return 0;
}

trace_buffer *trace_writer_buffer_get(trace_writer *w)
{
    trace_buffer *b;

    pthread_mutex_lock(&w->registry_lock);
    for (b = w->buffers; b; b = b->next) {
        if (!b->in_use) {
            b->in_use = 1;
            pthread_mutex_unlock(&w->registry_lock);
            return b;
        }
    }
    b = malloc(sizeof(*b));
    if (b) {
        pthread_mutex_init(&b->lock, NULL);
        b->w = w;
        b->in_use = 1;
        b->nrecords = 0;
        b->used = 0;
        b->next = w->buffers;
        w->buffers = b;
    }
    pthread_mutex_unlock(&w->registry_lock);
    return b;
}

/* Caller holds b->lock. */
static void flush_locked(trace_buffer *b)
{
    write_chunk(b->w, b->data, b->used, b->nrecords);
    b->used = 0;
    b->nrecords = 0;
}

void trace_writer_buffer_put(trace_writer *w, trace_buffer *b)
{
    pthread_mutex_lock(&b->lock);
    flush_locked(b);
    pthread_mutex_unlock(&b->lock);
    pthread_mutex_lock(&w->registry_lock);
    b->in_use = 0;
    pthread_mutex_unlock(&w->registry_lock);
}

uint8_t *trace_buffer_begin(trace_buffer *b)
{
    if (atomic_load(&b->w->stopped))
        return NULL;
    pthread_mutex_lock(&b->lock);
    if (b->used + TRACE_MAX_RECORD > BUFFER_CAPACITY)
        flush_locked(b);
    if (atomic_load(&b->w->stopped)) {
        pthread_mutex_unlock(&b->lock);
        return NULL;
    }
    return b->data + TRACE_CHUNK_HEADER_LEN + b->used;
}

void trace_buffer_end(trace_buffer *b, size_t record_len)
{
    if (record_len >= TRACE_RECORD_HEADER_LEN && record_len <= TRACE_MAX_RECORD) {
        b->used += record_len;
        b->nrecords++;
    }
    pthread_mutex_unlock(&b->lock);
}

void trace_buffer_append(trace_buffer *b, const uint8_t *record, size_t len)
{
    uint8_t *p;

    if (len > TRACE_MAX_RECORD)
        return;
    p = trace_buffer_begin(b);
    if (!p)
        return;
    memcpy(p, record, len);
    trace_buffer_end(b, len);
}

void trace_writer_flush(trace_writer *w)
{
    trace_buffer *head;

    /* Buffers are only ever added at the head and never removed while the
     * writer lives, so a snapshot of the head can be walked without the
     * registry lock: new threads never wait for our disk writes. */
    pthread_mutex_lock(&w->flush_lock);
    pthread_mutex_lock(&w->registry_lock);
    head = w->buffers;
    pthread_mutex_unlock(&w->registry_lock);
    for (trace_buffer *b = head; b; b = b->next) {
        size_t used;
        uint32_t n;

        /* Copy out under the buffer's lock, write without it, so the owning
         * thread never waits for the disk because of us. */
        pthread_mutex_lock(&b->lock);
        used = b->used;
        n = b->nrecords;
        if (used)
            memcpy(w->scratch + TRACE_CHUNK_HEADER_LEN, b->data + TRACE_CHUNK_HEADER_LEN, used);
        b->used = 0;
        b->nrecords = 0;
        pthread_mutex_unlock(&b->lock);
        if (used)
            write_chunk(w, w->scratch, used, n);
    }
    pthread_mutex_unlock(&w->flush_lock);
}

/* Writes one record as a chunk of its own, outside any thread buffer: a
 * TK_NOTE saying text, or TK_TRACE_END. */
static void write_single(trace_writer *w, int kind, uint32_t tid, uint64_t t, const char *text)
{
    uint8_t chunk[TRACE_CHUNK_HEADER_LEN + TRACE_RECORD_HEADER_LEN + 2 + TRACE_MAX_STR];
    trace_rec r;

    trace_rec_begin(&r, chunk + TRACE_CHUNK_HEADER_LEN, sizeof(chunk) - TRACE_CHUNK_HEADER_LEN,
                    kind, tid, t);
    if (kind == TK_NOTE)
        rec_note_put(&r, &(rec_note){ .text = text });
    else
        rec_trace_end_put(&r, &(rec_trace_end){ 0 });
    pthread_mutex_lock(&w->flush_lock);
    write_chunk(w, chunk, trace_rec_finish(&r), 1);
    pthread_mutex_unlock(&w->flush_lock);
}

void trace_writer_append_record(trace_writer *w, const uint8_t *record, size_t len)
{
    uint8_t chunk[TRACE_CHUNK_HEADER_LEN + TRACE_MAX_RECORD];

    if (len > TRACE_MAX_RECORD)
        return;
    memcpy(chunk + TRACE_CHUNK_HEADER_LEN, record, len);
    pthread_mutex_lock(&w->flush_lock);
    write_chunk(w, chunk, len, 1);
    pthread_mutex_unlock(&w->flush_lock);
}

void trace_writer_note(trace_writer *w, uint32_t tid, uint64_t t, const char *text)
{
    write_single(w, TK_NOTE, tid, t, text);
}

int trace_writer_close(trace_writer *w, uint32_t tid, uint64_t t)
{
    int rc = 0;

    trace_writer_flush(w);
    write_single(w, TK_TRACE_END, tid, t, NULL);
    pthread_mutex_lock(&w->file_lock);
    if (atomic_load(&w->stopped))
        rc = -1;
    atomic_store(&w->stopped, 1);
    if (w->fd >= 0) {
        if (w->reserve && w->reserved_to > w->size)   /* give the reserve back */
            fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)w->size,
                      (off_t)(w->reserved_to - w->size));
        if (close(w->fd) < 0)
            rc = -1;
        w->fd = -1;
    }
    pthread_mutex_unlock(&w->file_lock);
    return rc;
}

void trace_writer_free(trace_writer *w)
{
    trace_buffer *b, *next;

    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    for (b = w->buffers; b; b = next) {
        next = b->next;
        pthread_mutex_destroy(&b->lock);
        free(b);
    }
    pthread_mutex_destroy(&w->file_lock);
    pthread_mutex_destroy(&w->registry_lock);
    pthread_mutex_destroy(&w->flush_lock);
    free(w);
}
