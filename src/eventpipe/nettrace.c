/* nettrace.c - the nettrace stream reader (nettrace.h).  The stream is
 * "Nettrace", the FastSerialization header, then objects: each a begin tag,
 * its type (a name and versions), its payload and an end tag, until a null
 * tag ends the stream.  The Trace object has fixed fields; every other
 * object is a block (a size, padding to a 4-byte stream offset, the bytes).
 * Events and metadata records are blobs in their blocks, their headers
 * usually compressed (flags, varints, deltas from the previous header of the
 * block).  An object is parsed only once all of it is buffered. */
#include "eventpipe/nettrace.h"
#include "ipc/ipc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_NULL  1
#define TAG_BEGIN 5
#define TAG_END   6
#define STREAM_HEADER_LEN 32          /* "Nettrace", int 20, "!FastSerialization.1" */
#define TRACE_FIELDS_LEN  48

struct nt_reader {
    nt_event_fn fn;
    void *ctx;
    uint8_t *buf;                     /* unparsed bytes */
    size_t len, cap;
    uint64_t consumed;                /* stream offset of buf[0] */
    int header_done, ended;
    uint64_t qpc_frequency;
    uint32_t pid;
    nt_metadata **meta;               /* by id */
    uint32_t nmeta;
    uint32_t nrecords;                /* records kept */
    char error[200];
};

/* A bounded cursor. */
typedef struct cur {
    const uint8_t *p;
    size_t left;
    int bad;
} cur;

static uint32_t rd_u32(cur *c)
{
    uint32_t v;
    if (c->left < 4) {
        c->bad = 1;
        c->left = 0;
        return 0;
    }
    v = (uint32_t)c->p[0] | ((uint32_t)c->p[1] << 8) | ((uint32_t)c->p[2] << 16) | ((uint32_t)c->p[3] << 24);
    c->p += 4;
    c->left -= 4;
    return v;
}

static uint64_t rd_u64(cur *c)
{
    uint64_t lo = rd_u32(c);
    return lo | ((uint64_t)rd_u32(c) << 32);
}

static uint16_t rd_u16(cur *c)
{
    uint16_t v;
    if (c->left < 2) {
        c->bad = 1;
        c->left = 0;
        return 0;
    }
    v = (uint16_t)(c->p[0] | (c->p[1] << 8));
    c->p += 2;
    c->left -= 2;
    return v;
}

static uint8_t rd_u8(cur *c)
{
    if (c->left < 1) {
        c->bad = 1;
        return 0;
    }
    c->left--;
    return *c->p++;
}

static void skip(cur *c, size_t n)
{
    if (c->left < n) {
        c->bad = 1;
        c->left = 0;
        return;
    }
    c->p += n;
    c->left -= n;
}

static uint64_t rd_varint(cur *c, int max_bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; i++) {
        uint8_t b = rd_u8(c);
        if (c->bad)
            return 0;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            return v;
    }
    c->bad = 1;
    return 0;
}

/* A UTF-16LE string with its NUL at the cursor: its length in bytes with
 * the NUL, or 0 when no NUL is there. */
static size_t utf16_len(const uint8_t *p, size_t left)
{
    for (size_t i = 0; i + 1 < left; i += 2)
        if (!p[i] && !p[i + 1])
            return i + 2;
    return 0;
}

/* Reads a UTF-16 string into a malloc'd UTF-8 one (NULL when malformed). */
static char *rd_string(cur *c)
{
    size_t n = utf16_len(c->p, c->left), need;
    char *s;
    if (!n) {
        c->bad = 1;
        return NULL;
    }
    need = ipc_utf16le_to_utf8(c->p, n / 2, NULL, 0) + 1;
    s = malloc(need);
    if (!s) {
        c->bad = 1;
        return NULL;
    }
    ipc_utf16le_to_utf8(c->p, n / 2, s, need);
    skip(c, n);
    return s;
}

static void rd_name(cur *c, char *out, size_t cap)
{
    char *s = rd_string(c);
    snprintf(out, cap, "%s", s ? s : "");
    free(s);
}

static int fail(nt_reader *r, const char *what)
{
    snprintf(r->error, sizeof(r->error), "malformed event stream: %s", what);
    return NT_ERROR;
}

nt_reader *nt_reader_new(nt_event_fn fn, void *ctx)
{
    nt_reader *r = calloc(1, sizeof(*r));
    if (r) {
        r->fn = fn;
        r->ctx = ctx;
    }
    return r;
}

static void meta_free(nt_metadata *m)
{
    if (m) {
        free(m->provider);
        free(m->event_name);
        free(m->fields);
        free(m);
    }
}

void nt_reader_free(nt_reader *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->nmeta; i++)
        meta_free(r->meta[i]);
    free(r->meta);
    free(r->buf);
    free(r);
}

const char *nt_reader_error(const nt_reader *r) { return r->error; }
uint64_t nt_reader_qpc_frequency(const nt_reader *r) { return r->qpc_frequency; }
uint32_t nt_reader_process_id(const nt_reader *r) { return r->pid; }

/* The fields being read, before they are kept at their real count. */
typedef struct field_list {
    nt_field v[NT_MAX_FIELDS];
    uint32_t n;
} field_list;

/* A V1 field list (nested objects are read through and mark the field). */
static void rd_fields_v1(cur *c, field_list *m, int depth)
{
    uint32_t n = rd_u32(c);
    if (n > 4096 || depth > 8) {
        c->bad = 1;
        return;
    }
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        int type = (int)rd_u32(c);
        char name[64];
        if (type == NT_TYPE_OBJECT)
            rd_fields_v1(c, NULL, depth + 1);
        rd_name(c, name, sizeof(name));
        if (m && m->n < NT_MAX_FIELDS && !c->bad) {
            nt_field *f = &m->v[m->n++];
            memcpy(f->name, name, sizeof(f->name));
            f->type = type;
        }
    }
}

/* The V2 field list of a V2Params tag (its payload). */
static void rd_fields_v2(cur *c, field_list *m)
{
    uint32_t n = rd_u32(c);
    if (n > 4096) {
        c->bad = 1;
        return;
    }
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        uint32_t size = rd_u32(c);
        cur f;
        char name[64];
        int type;
        if (size < 4 || size - 4 > c->left) {
            c->bad = 1;
            return;
        }
        f.p = c->p;
        f.left = size - 4;
        f.bad = 0;
        skip(c, size - 4);
        rd_name(&f, name, sizeof(name));
        type = (int)rd_u32(&f);
        if (f.bad) {
            c->bad = 1;
            return;
        }
        if (m->n < NT_MAX_FIELDS) {
            nt_field *fd = &m->v[m->n++];
            memcpy(fd->name, name, sizeof(fd->name));
            fd->type = type;
        }
    }
}

static int add_metadata(nt_reader *r, const uint8_t *p, uint32_t len)
{
    cur c = { p, len, 0 };
    nt_metadata *m;
    field_list *fl;

    if (r->nrecords >= NT_MAX_RECORDS)
        return fail(r, "more than 4096 event descriptions");
    m = calloc(1, sizeof(*m));
    fl = malloc(sizeof(*fl));
    if (!m || !fl) {
        free(m);
        free(fl);
        return fail(r, "out of memory");
    }
    fl->n = 0;
    m->id = rd_u32(&c);
    m->provider = rd_string(&c);
    m->event_id = rd_u32(&c);
    m->event_name = rd_string(&c);
    rd_u64(&c);                         /* keywords */
    m->version = rd_u32(&c);
    rd_u32(&c);                         /* level */
    if (!c.bad && c.left >= 4)          /* (absent from some runtime events) */
        rd_fields_v1(&c, fl, 0);
    while (!c.bad && c.left >= 5) {     /* the V5 tags */
        uint32_t tlen = rd_u32(&c);
        uint8_t kind = rd_u8(&c);
        cur t = { c.p, tlen, 0 };
        if (tlen > c.left)
            break;
        skip(&c, tlen);
        if (kind == 2) {                /* V2Params: the fields, as V2 describes them */
            fl->n = 0;
            rd_fields_v2(&t, fl);
            if (t.bad)
                c.bad = 1;
        }
    }
    if (!c.bad && fl->n) {
        m->fields = malloc(fl->n * sizeof(nt_field));
        if (m->fields) {
            memcpy(m->fields, fl->v, fl->n * sizeof(nt_field));
            m->nfields = fl->n;
        }
    }
    free(fl);
    if (c.bad || !m->provider || !m->event_name || m->id == 0 || m->id >= NT_MAX_METADATA) {
        meta_free(m);
        return fail(r, "a metadata record does not parse");
    }
    if (m->id >= r->nmeta) {
        uint32_t n = r->nmeta ? r->nmeta : 64;
        nt_metadata **grown;
        while (n <= m->id)
            n *= 2;
        grown = realloc(r->meta, n * sizeof(*grown));
        if (!grown) {
            meta_free(m);
            return fail(r, "out of memory");
        }
        memset(grown + r->nmeta, 0, (n - r->nmeta) * sizeof(*grown));
        r->meta = grown;
        r->nmeta = n;
    }
    if (r->meta[m->id])
        meta_free(r->meta[m->id]);
    else
        r->nrecords++;
    r->meta[m->id] = m;
    return NT_OK;
}

/* The header fields an event blob carries (or inherits in a block). */
typedef struct blob_header {
    uint32_t metadata_id, sequence, processor, stack_id, payload_len;
    uint64_t thread_id, capture_thread_id, timestamp;
} blob_header;

/* The blobs of an EventBlock (is_metadata 0) or MetadataBlock (1). */
static int rd_blobs(nt_reader *r, const uint8_t *block, uint32_t size, uint64_t block_offset, int is_metadata)
{
    cur c = { block, size, 0 };
    uint16_t header_size = rd_u16(&c), flags = rd_u16(&c);
    blob_header h;
    int compressed = flags & 1;

    if (c.bad || header_size < 4 || header_size > size)
        return fail(r, "a block header is cut");
    c.p = block + header_size;
    c.left = size - header_size;
    memset(&h, 0, sizeof(h));
    while (c.left > 0) {
        if (compressed) {
            uint8_t f = rd_u8(&c);
            if (f & 1)
                h.metadata_id = (uint32_t)rd_varint(&c, 5);
            if (f & 2) {
                h.sequence += (uint32_t)rd_varint(&c, 5);
                h.capture_thread_id = rd_varint(&c, 10);
                h.processor = (uint32_t)rd_varint(&c, 5);
            }
            if (f & 4)
                h.thread_id = rd_varint(&c, 10);
            if (f & 8)
                h.stack_id = (uint32_t)rd_varint(&c, 5);
            h.timestamp += rd_varint(&c, 10);
            if (f & 16)
                skip(&c, 16);
            if (f & 32)
                skip(&c, 16);
            if (f & 128)
                h.payload_len = (uint32_t)rd_varint(&c, 5);
            if (h.metadata_id)
                h.sequence++;
        } else {
            rd_u32(&c);                                 /* event size */
            h.metadata_id = rd_u32(&c) & 0x7fffffffu;
            h.sequence = rd_u32(&c);
            h.thread_id = rd_u64(&c);
            h.capture_thread_id = rd_u64(&c);
            h.processor = rd_u32(&c);
            h.stack_id = rd_u32(&c);
            h.timestamp = rd_u64(&c);
            skip(&c, 32);
            h.payload_len = rd_u32(&c);
        }
        if (c.bad || h.payload_len > c.left)
            return fail(r, "an event is cut");
        if (is_metadata) {
            int rc = add_metadata(r, c.p, h.payload_len);
            if (rc != NT_OK)
                return rc;
        } else {
            nt_event ev;
            ev.meta = h.metadata_id < r->nmeta ? r->meta[h.metadata_id] : NULL;
            ev.thread_id = h.thread_id;
            ev.timestamp = h.timestamp;
            ev.payload = c.p;
            ev.payload_len = h.payload_len;
            if (ev.meta && r->fn(r->ctx, &ev))
                return NT_STOPPED;
        }
        skip(&c, h.payload_len);
        if (!compressed) {                              /* padding to a 4-byte stream offset */
            uint64_t at = block_offset + (uint64_t)(c.p - block);
            skip(&c, (size_t)((4 - (at & 3)) & 3) > c.left ? c.left : (size_t)((4 - (at & 3)) & 3));
        }
    }
    return NT_OK;
}

/* Parses the object at buf[0..]: its length in *used, or 0 in *used when it
 * is not all there yet. */
static int rd_object(nt_reader *r, size_t *used)
{
    cur c = { r->buf, r->len, 0 };
    uint8_t tag = rd_u8(&c);
    uint32_t name_len;
    char type[32];

    *used = 0;
    if (c.bad)
        return NT_OK;
    if (tag == TAG_NULL) {
        *used = 1;
        r->ended = 1;
        return NT_END;
    }
    if (tag != TAG_BEGIN)
        return fail(r, "an object does not begin with its tag");
    if (rd_u8(&c) != TAG_BEGIN && !c.bad)
        return fail(r, "an object's type does not begin with its tag");
    if (rd_u8(&c) != TAG_NULL && !c.bad)
        return fail(r, "an object's type has a type");
    rd_u32(&c);                          /* version */
    rd_u32(&c);                          /* minimum reader version */
    name_len = rd_u32(&c);
    if (c.bad)
        return NT_OK;
    if (name_len == 0 || name_len >= sizeof(type))
        return fail(r, "an object's type name is too long");
    if (c.left < name_len + 1)
        return NT_OK;
    memcpy(type, c.p, name_len);
    type[name_len] = 0;
    skip(&c, name_len);
    if (rd_u8(&c) != TAG_END)
        return fail(r, "an object's type does not end with its tag");
    if (!strcmp(type, "Trace")) {
        cur t;
        if (c.left < TRACE_FIELDS_LEN + 1)
            return NT_OK;
        t = c;
        skip(&t, 16);                    /* the UTC time, as 8 shorts */
        rd_u64(&t);                      /* its QPC */
        r->qpc_frequency = rd_u64(&t);
        rd_u32(&t);                      /* pointer size */
        r->pid = rd_u32(&t);
        skip(&c, TRACE_FIELDS_LEN);
    } else {
        uint32_t size;
        size_t pad;
        uint64_t at;
        if (c.left < 4)
            return NT_OK;
        size = rd_u32(&c);
        if (size > NT_MAX_OBJECT)
            return fail(r, "a block is bigger than 16 MiB");
        at = r->consumed + (uint64_t)(c.p - r->buf);
        pad = (size_t)((4 - (at & 3)) & 3);
        if (c.left < pad + size + 1)
            return NT_OK;
        skip(&c, pad);
        if (!strcmp(type, "EventBlock") || !strcmp(type, "MetadataBlock")) {
            int rc = rd_blobs(r, c.p, size, r->consumed + (uint64_t)(c.p - r->buf), type[0] == 'M');
            if (rc != NT_OK)
                return rc;
        }                                /* StackBlock, SPBlock, others: skipped */
        skip(&c, size);
    }
    if (rd_u8(&c) != TAG_END)
        return fail(r, "an object does not end with its tag");
    *used = (size_t)(c.p - r->buf);
    return NT_OK;
}

int nt_feed(nt_reader *r, const void *data, size_t len)
{
    int rc = NT_OK;
    size_t at = 0;

    if (r->ended)
        return NT_END;
    if (r->error[0])
        return NT_ERROR;
    if (len > r->cap - r->len) {
        size_t cap = r->cap ? r->cap : 65536;
        uint8_t *grown;
        while (cap - r->len < len) {
            if (cap > NT_MAX_OBJECT * 2)
                return fail(r, "an object is bigger than 16 MiB");
            cap *= 2;
        }
        grown = realloc(r->buf, cap);
        if (!grown)
            return fail(r, "out of memory");
        r->buf = grown;
        r->cap = cap;
    }
    if (len) {
        memcpy(r->buf + r->len, data, len);
        r->len += len;
    }
    if (!r->header_done) {
        if (r->len < STREAM_HEADER_LEN)
            return NT_OK;
        if (memcmp(r->buf, "Nettrace", 8) || memcmp(r->buf + 8, "\x14\0\0\0!FastSerialization.1", 24))
            return fail(r, "it does not begin with the nettrace header");
        r->header_done = 1;
        at = STREAM_HEADER_LEN;
    }
    for (;;) {
        size_t used;
        if (at) {
            memmove(r->buf, r->buf + at, r->len - at);
            r->len -= at;
            r->consumed += at;
            at = 0;
        }
        if (!r->len)
            break;
        rc = rd_object(r, &used);
        at = used;
        if (rc != NT_OK || !used)
            break;
    }
    if (at) {
        memmove(r->buf, r->buf + at, r->len - at);
        r->len -= at;
        r->consumed += at;
    }
    if (r->len == 0 && r->cap > (1u << 20)) {    /* (a big block passed: its room is given back) */
        free(r->buf);
        r->buf = NULL;
        r->cap = 0;
    }
    return rc;
}

static uint32_t field_size(int type)
{
    switch (type) {
    case NT_TYPE_SBYTE: case NT_TYPE_BYTE: return 1;
    case NT_TYPE_CHAR: case NT_TYPE_INT16: case NT_TYPE_UINT16: return 2;
    case NT_TYPE_BOOLEAN: case NT_TYPE_INT32: case NT_TYPE_UINT32: case NT_TYPE_SINGLE: return 4;
    case NT_TYPE_INT64: case NT_TYPE_UINT64: case NT_TYPE_DOUBLE: case NT_TYPE_DATETIME: return 8;
    case NT_TYPE_DECIMAL: case NT_TYPE_GUID: return 16;
    default: return 0;
    }
}

uint32_t nt_locate_fields(const nt_metadata *meta, const uint8_t *payload, uint32_t len,
                          uint32_t off[NT_MAX_FIELDS], uint32_t flen[NT_MAX_FIELDS])
{
    uint32_t pos = 0, i;

    for (i = 0; i < meta->nfields; i++) {
        uint32_t n = meta->fields[i].type == NT_TYPE_STRING ? (uint32_t)utf16_len(payload + pos, len - pos)
                                                             : field_size(meta->fields[i].type);
        if (!n || n > len - pos)
            break;
        off[i] = pos;
        flen[i] = n;
        pos += n;
    }
    return i;
}

int nt_field_index(const nt_metadata *meta, const char *name)
{
    for (uint32_t i = 0; i < meta->nfields; i++)
        if (!strcmp(meta->fields[i].name, name))
            return (int)i;
    return -1;
}
