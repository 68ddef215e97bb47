/* reader.c - validating reader for the trace format in format.h.
 *
 * Recovery rules: a chunk whose checksum or header is wrong is skipped by
 * scanning forward for the next chunk magic whose checksum holds; whatever
 * lies between is counted as corrupt.  If no valid chunk follows and the
 * damaged chunk claims to run past the end of the file, the file was cut
 * short (the writer died mid-write) rather than corrupted.
 *
 * A file is read with pread, a window at a time, not mapped: the process
 * that wrote it (or anyone who may write it) can shorten it while we read,
 * which through a mapping is a SIGBUS.  A read that comes up short ends the
 * file there: it was cut short.  The size is the one at open (a file that
 * grows meanwhile is read as it was), and the window, one chunk at most,
 * is all the memory the reading takes. */
#include "trace/reader.h"
#include "trace/format.h"
#include "common/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define WINDOW (TRACE_CHUNK_HEADER_LEN + TRACE_MAX_CHUNK_PAYLOAD)   /* a whole chunk fits in one read */
#define HEAD_MAX (64 * 1024)          /* the longest header trace_open_memory accepts */

size_t trace_str_size(const char *s, size_t n)
{
    size_t size = n + 1;
    for (size_t i = 0; i < n; i++)
        size += s[i] == '\0';
    return size;
}

void trace_str_copy(char *dst, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\0') {
            *dst++ = (char)0xc0;
            *dst++ = (char)0x80;
        } else {
            *dst++ = s[i];
        }
    }
    *dst = '\0';
}

static char *dup_field(const uint8_t *p, size_t n)
{
    char *s = malloc(trace_str_size((const char *)p, n));
    if (s)
        trace_str_copy(s, (const char *)p, n);
    return s;
}

int trace_open_memory(uint8_t *data, size_t size, trace_file *tf, char *err, size_t errlen)
{
    uint32_t hlen;
    size_t off, n;

    memset(tf, 0, sizeof(*tf));
    tf->fd = -1;
    tf->data = data;
    tf->size = size;
    if (size < TRACE_MAGIC_LEN || memcmp(data, TRACE_MAGIC, TRACE_MAGIC_LEN) != 0) {
        snprintf(err, errlen, "not a clrprobe trace (it does not start with the trace magic)");
        return TRACE_E_NOT_TRACE;
    }
    if (size < TRACE_HEADER_FIXED_LEN + 4) {
        snprintf(err, errlen, "the trace header is incomplete (%zu bytes)", size);
        return TRACE_E_BAD_HEADER;
    }
    tf->version = trace_get_u32(data + 8);
    if (tf->version > TRACE_FORMAT_VERSION) {
        snprintf(err, errlen, "trace format version %u is newer than this clrprobe reads (%d): "
                 "use a newer clrprobe", tf->version, TRACE_FORMAT_VERSION);
        return TRACE_E_NEWER;
    }
    if (tf->version == 0) {
        snprintf(err, errlen, "trace format version 0 is not valid");
        return TRACE_E_BAD_HEADER;
    }
    hlen = trace_get_u32(data + 12);
    if (hlen < TRACE_HEADER_FIXED_LEN + 2 + 2 + 4 || hlen > size || hlen > 64 * 1024) {
        snprintf(err, errlen, "the trace header is damaged (length %u)", hlen);
        return TRACE_E_BAD_HEADER;
    }
    if (trace_get_u32(data + hlen - 4) != (uint32_t)crc32(0L, data, hlen - 4)) {
        snprintf(err, errlen, "the trace header is damaged (checksum mismatch)");
        return TRACE_E_BAD_HEADER;
    }
    tf->pid = trace_get_u32(data + 16);
    tf->flags = trace_get_u32(data + 20);
    tf->start_realtime_ns = trace_get_u64(data + 24);
    tf->start_monotonic_ns = trace_get_u64(data + 32);
    off = TRACE_HEADER_FIXED_LEN;
    n = trace_get_u16(data + off);
    if (off + 2 + n + 2 > hlen - 4) goto damaged;
    tf->runtime_version = dup_field(data + off + 2, n);
    off += 2 + n;
    n = trace_get_u16(data + off);
    if (off + 2 + n > hlen - 4) goto damaged;
    tf->command_line = dup_field(data + off + 2, n);
    if (!tf->runtime_version || !tf->command_line) {
        snprintf(err, errlen, "out of memory");
        return TRACE_E_IO;
    }
    tf->body_offset = hlen;
    return TRACE_OK;
damaged:
    snprintf(err, errlen, "the trace header is damaged (bad string length)");
    return TRACE_E_BAD_HEADER;
}

/* Reads up to n bytes at off (fewer only at the end of the file, or when
 * it has shrunk); -1 on an error. */
static ssize_t read_at(int fd, uint8_t *buf, size_t n, size_t off)
{
    return cp_pread_full(fd, buf, n, off);
}

int trace_open(const char *path, trace_file *tf, char *err, size_t errlen)
{
    struct stat st;
    uint8_t *head;
    size_t want;
    ssize_t got;
    int fd, rc;

    memset(tf, 0, sizeof(*tf));
    tf->fd = -1;
    /* Non-blocking: a FIFO given as the trace must not wait for a writer. */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return TRACE_E_IO;
    }
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "cannot examine %s: %s", path, strerror(errno));
        close(fd);
        return TRACE_E_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a trace file: it is %s", path, cp_file_kind(st.st_mode));
        close(fd);
        return TRACE_E_IO;
    }
    if ((uint64_t)st.st_size > SIZE_MAX / 2) {
        snprintf(err, errlen, "%s is too large to read", path);
        close(fd);
        return TRACE_E_IO;
    }
    /* The header is read whole; the body a window at a time as it is walked. */
    want = (size_t)st.st_size < TRACE_HEADER_FIXED_LEN + HEAD_MAX ? (size_t)st.st_size
                                                                   : TRACE_HEADER_FIXED_LEN + HEAD_MAX;
    if ((head = malloc(want ? want : 1)) == NULL) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        return TRACE_E_IO;
    }
    if ((got = read_at(fd, head, want, 0)) < 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        free(head);
        close(fd);
        return TRACE_E_IO;
    }
    rc = trace_open_memory(head, (size_t)got, tf, err, errlen);
    free(tf->data);                          /* (head: the strings were copied) */
    tf->data = NULL;
    if (rc != TRACE_OK) {
        trace_close(tf);
        close(fd);
        return rc;
    }
    tf->fd = fd;
    tf->size = (size_t)got < want ? (size_t)got : (size_t)st.st_size;   /* (shorter already: cut there) */
    return TRACE_OK;
}

void trace_done_reading(trace_file *tf)
{
    if (tf->fd >= 0)
        close(tf->fd);
    tf->fd = -1;
}

void trace_close(trace_file *tf)
{
    if (tf->fd >= 0)
        close(tf->fd);
    free(tf->data);
    free(tf->runtime_version);
    free(tf->command_line);
    memset(tf, 0, sizeof(*tf));
    tf->fd = -1;
}

void trace_scan_init(const trace_file *tf, trace_scan *s)
{
    memset(s, 0, sizeof(*s));
    s->pos = tf->body_offset;
    s->end = tf->size;
}

void trace_scan_done(trace_scan *s)
{
    free(s->buf);
    s->buf = NULL;
    s->buf_len = s->buf_cap = 0;
}

/* The n bytes of the file at off, or NULL when the file ends before them.
 * From a file, they are read into the scan's window (valid until the next
 * call); a read that comes up short means the file shrank: its end is
 * there from now on. */
static const uint8_t *bytes_at(const trace_file *tf, trace_scan *s, size_t off, size_t n)
{
    size_t want;
    ssize_t got;

    if (off > s->end || n > s->end - off)
        return NULL;
    if (tf->fd < 0)
        return tf->data + off;
    if (s->buf && off >= s->buf_off && off - s->buf_off <= s->buf_len && n <= s->buf_len - (off - s->buf_off))
        return s->buf + (off - s->buf_off);
    want = s->end - off < WINDOW ? s->end - off : WINDOW;
    if (want < n)
        want = n;
    if (want > s->buf_cap) {
        uint8_t *b = realloc(s->buf, want);
        if (!b)
            return NULL;                     /* (read as the end of the file) */
        s->buf = b;
        s->buf_cap = want;
    }
    got = read_at(tf->fd, s->buf, want, off);
    s->buf_off = off;
    s->buf_len = got > 0 ? (size_t)got : 0;
    if (got < 0)
        s->read_errno = errno;
    if ((size_t)s->buf_len < want) {         /* shrunk (or unreadable) since it was opened */
        s->end = off + s->buf_len;
        s->shrank = got >= 0;
    }
    return n <= s->buf_len ? s->buf : NULL;
}

/* Is there a complete chunk with a valid checksum at off? */
static int chunk_valid_at(const trace_file *tf, trace_scan *s, size_t off, trace_chunk *c)
{
    const uint8_t *h = bytes_at(tf, s, off, TRACE_CHUNK_HEADER_LEN);
    uint32_t len;
    uLong crc;

    if (!h || trace_get_u32(h) != TRACE_CHUNK_MAGIC)
        return 0;
    len = trace_get_u32(h + 4);
    if (len > TRACE_MAX_CHUNK_PAYLOAD || len > s->end - off - TRACE_CHUNK_HEADER_LEN)
        return 0;
    if ((h = bytes_at(tf, s, off, TRACE_CHUNK_HEADER_LEN + (size_t)len)) == NULL)
        return 0;
    crc = crc32(0L, h, 20);
    crc = crc32(crc, h + TRACE_CHUNK_HEADER_LEN, len);
    if ((uint32_t)crc != trace_get_u32(h + 20))
        return 0;
    c->payload = h + TRACE_CHUNK_HEADER_LEN;
    c->len = len;
    c->seq = trace_get_u64(h + 8);
    c->nrecords = trace_get_u32(h + 16);
    c->offset = off;
    return 1;
}

int trace_next_chunk(const trace_file *tf, trace_scan *s, trace_chunk *c)
{
    size_t bad_start, off;

    if (s->pos >= s->end)
        goto end;
    if (chunk_valid_at(tf, s, s->pos, c)) {
        s->pos += TRACE_CHUNK_HEADER_LEN + c->len;
        s->chunks++;
        return 1;
    }
    /* Damaged or incomplete.  Look for the next good chunk. */
    bad_start = s->pos;
    for (off = bad_start + 1; s->end >= TRACE_CHUNK_HEADER_LEN && off <= s->end - TRACE_CHUNK_HEADER_LEN; off++) {
        /* Next candidate magic, looked for a window at a time. */
        size_t span = s->end - TRACE_CHUNK_HEADER_LEN + 1 - off;
        size_t look = span < WINDOW ? span : WINDOW;
        const uint8_t *w = bytes_at(tf, s, off, look), *next;
        if (!w)
            break;                           /* (the file shrank) */
        if ((next = memchr(w, 'C', look)) == NULL) {
            off += look - 1;
            continue;
        }
        off += (size_t)(next - w);
        if (chunk_valid_at(tf, s, off, c)) {
            if (s->corrupt_chunks == 0)
                s->first_corrupt_offset = bad_start;
            s->corrupt_chunks++;
            s->corrupt_bytes += off - bad_start;
            s->pos = off + TRACE_CHUNK_HEADER_LEN + c->len;
            s->chunks++;
            return 1;
        }
    }
    /* Nothing valid follows.  A chunk header whose length runs past the end
     * of the file (or a header that is itself incomplete) means the writer was
     * stopped mid-write; anything else is damage at the tail.  (A file that
     * shrank while it was read ends in such a chunk, or between chunks.) */
    if (bad_start < s->end) {
        size_t rest = s->end - bad_start;
        const uint8_t *h = bytes_at(tf, s, bad_start, rest < TRACE_CHUNK_HEADER_LEN ? rest : TRACE_CHUNK_HEADER_LEN);
        int cut;
        rest = s->end - bad_start;           /* (bytes_at may have found the file shorter) */
        cut = !h || rest == 0 ? 1
              : rest < TRACE_CHUNK_HEADER_LEN
              ? memcmp(h, "CPCK", rest < 4 ? rest : 4) == 0
              : trace_get_u32(h) == TRACE_CHUNK_MAGIC &&
                trace_get_u32(h + 4) > rest - TRACE_CHUNK_HEADER_LEN;
        if (cut) {
            s->truncated = 1;
            s->truncated_bytes = rest;
        } else {
            if (s->corrupt_chunks == 0)
                s->first_corrupt_offset = bad_start;
            s->corrupt_chunks++;
            s->corrupt_bytes += rest;
        }
    }
    s->pos = s->end;
end:
    if ((s->shrank || s->read_errno) && !s->truncated && s->end < tf->size) {
        s->truncated = 1;                    /* (it ended between two chunks) */
        s->truncated_bytes = 0;
    }
    trace_scan_done(s);
    return 0;
}

int trace_next_record(const trace_chunk *c, size_t *off, trace_record *r)
{
    const uint8_t *p;
    uint16_t len;

    if (*off >= c->len)
        return 0;
    if (c->len - *off < TRACE_RECORD_HEADER_LEN)
        return -1;
    p = c->payload + *off;
    len = trace_get_u16(p + 2);
    if (len < TRACE_RECORD_HEADER_LEN || len > c->len - *off)
        return -1;
    r->kind = p[0];
    r->flags = p[1];
    r->tid = trace_get_u32(p + 4);
    r->t = trace_get_u64(p + 8);
    r->fields = p + TRACE_RECORD_HEADER_LEN;
    r->fields_len = len - TRACE_RECORD_HEADER_LEN;
    *off += len;
    return 1;
}

void trace_fields_init(trace_fields *f, const trace_record *r)
{
    f->p = r->fields;
    f->end = r->fields + r->fields_len;
    f->bad = 0;
}

static int need(trace_fields *f, size_t n)
{
    if ((size_t)(f->end - f->p) < n) {
        f->bad = 1;
        f->p = f->end;
        return 0;
    }
    return 1;
}

uint16_t trace_field_u16(trace_fields *f)
{
    uint16_t v;
    if (!need(f, 2)) return 0;
    v = trace_get_u16(f->p);
    f->p += 2;
    return v;
}

uint32_t trace_field_u32(trace_fields *f)
{
    uint32_t v;
    if (!need(f, 4)) return 0;
    v = trace_get_u32(f->p);
    f->p += 4;
    return v;
}

uint64_t trace_field_u64(trace_fields *f)
{
    uint64_t v;
    if (!need(f, 8)) return 0;
    v = trace_get_u64(f->p);
    f->p += 8;
    return v;
}

uint64_t trace_field_u64_opt(trace_fields *f)
{
    if (f->p == f->end)
        return 0;
    return trace_field_u64(f);
}

const char *trace_field_str(trace_fields *f, size_t *len)
{
    const char *s;
    uint16_t n = trace_field_u16(f);
    if (f->bad || !need(f, n)) {
        *len = 0;
        return "";
    }
    s = (const char *)f->p;
    f->p += n;
    *len = n;
    return s;
}
