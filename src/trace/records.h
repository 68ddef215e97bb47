/* records.h - what the record catalogue (records.def) makes of each record
 * kind: a struct with its fields by name, an encoder for the agent and a
 * decoder for the report.
 *
 *   rec_jit                the struct (wire fields in wire order, then the
 *                          fields the report fills in)
 *   rec_jit_put(r, &v)     encodes v after the record header that
 *                          trace_rec_begin() (or the agent's emit_begin())
 *                          started, and sets the header's kind to TK_JIT (a
 *                          record always has its kind's fields); inline,
 *                          allocation-free
 *   rec_jit_decode(r, &v, a)  a record's fields into v
 *   rec_put(r, kind, &any), rec_decode(r, &any, a)
 *                          any kind, from or into the union rec_any
 *
 * A decoded string is a NUL-terminated copy in memory from a (a NUL inside
 * the string becomes C0 80, trace_str_copy); an empty string is the
 * constant "".  A sample's frames are copied into memory from a as
 * uint64_t (NULL when there are none), an F_BYTES field's bytes likewise
 * (NULL when empty).  Decoding keeps the reader's rules:
 * a record too short for its fields is decoded as far as it goes (zeros and
 * empty strings after that) and said to be malformed; bytes after the last
 * field are ignored; an F_U64_OPT field missing altogether reads as 0 (an
 * F_STR_OPT as "", an F_FRAMES_OPT or F_U32S_OPT as none). */
#ifndef CLRPROBE_TRACE_RECORDS_H
#define CLRPROBE_TRACE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"
#include "trace/reader.h"

/* ---- one struct per kind ---- */

#define F_U16(x) uint16_t x;
#define F_U32(x) uint32_t x;
#define F_U64(x) uint64_t x;
#define F_U64_OPT(x) uint64_t x;
#define F_STR(x) const char *x;
#define F_STRN(x) const char *x; uint16_t x##_len;
#define F_FRAMES(n, x) uint16_t n; const uint64_t *x;
#define F_STR_OPT(x) const char *x;
#define F_FRAMES_OPT(n, x) uint16_t n; const uint64_t *x;
#define F_U32S_OPT(n, x) uint16_t n; const uint32_t *x;
#define F_BYTES(x) const uint8_t *x; uint16_t x##_len;
#define F_NONE uint8_t none_;         /* (C wants a member) */
#define R_STR(x) const char *x;
#define R_U32(x) uint32_t x;
#define RECORD(NAME, num, name, fields, report) typedef struct rec_##name { fields report } rec_##name;
#include "trace/records.def"
#undef RECORD

/* Any kind's fields. */
#define RECORD(NAME, num, name, fields, report) rec_##name name;
typedef union rec_any {
#include "trace/records.def"
} rec_any;
#include "trace/records_undef.h"

/* ---- encoders ---- */

static inline void rec_put_frames(trace_rec *r, uint16_t n, const uint64_t *frames)
{
    trace_rec_u16(r, n);
    for (uint16_t k = 0; k < n; k++)
        trace_rec_u64(r, frames[k]);
}

static inline void rec_put_u32s(trace_rec *r, uint16_t n, const uint32_t *v)
{
    trace_rec_u16(r, n);
    for (uint16_t k = 0; k < n; k++)
        trace_rec_u32(r, v[k]);
}

/* u16 count, then the bytes; cut to the room left (never the case for an
 * encoder that measured its room, like the agent's heap writer). */
static inline void rec_put_bytes(trace_rec *r, const uint8_t *b, uint16_t n)
{
    if (r->end - r->p < 2)
        return;
    if ((size_t)(r->end - r->p) - 2 < n)
        n = (uint16_t)((size_t)(r->end - r->p) - 2);
    trace_put_u16(r->p, n);
    if (n)
        memcpy(r->p + 2, b, n);
    r->p += 2 + n;
}

#define F_U16(x) trace_rec_u16(r, v->x);
#define F_U32(x) trace_rec_u32(r, v->x);
#define F_U64(x) trace_rec_u64(r, v->x);
#define F_U64_OPT(x) trace_rec_u64(r, v->x);
#define F_STR(x) trace_rec_str(r, v->x);
#define F_STRN(x) trace_rec_strn(r, v->x, v->x##_len);
#define F_FRAMES(n, x) rec_put_frames(r, v->n, v->x);
#define F_STR_OPT(x) trace_rec_str(r, v->x);
#define F_FRAMES_OPT(n, x) rec_put_frames(r, v->n, v->x);
#define F_U32S_OPT(n, x) rec_put_u32s(r, v->n, v->x);
#define F_BYTES(x) rec_put_bytes(r, v->x, v->x##_len);
#define F_NONE
#define R_STR(x)
#define R_U32(x)
#define RECORD(NAME, num, name, fields, report)                              \
    static inline void rec_##name##_put(trace_rec *r, const rec_##name *v)   \
    {                                                                        \
        (void)v;                                                             \
        r->start[0] = TK_##NAME;                                             \
        fields                                                               \
    }
#include "trace/records.def"
#include "trace/records_undef.h"

/* Any kind: encodes the member of v that kind names (nothing for a kind the
 * catalogue does not have).  For tests and tools; the agent calls each
 * kind's own encoder. */
static inline void rec_put(trace_rec *r, int kind, const rec_any *v)
{
    switch (kind) {
#define RECORD(NAME, num, name, fields, report) case TK_##NAME: rec_##name##_put(r, &v->name); break;
#include "trace/records.def"
#undef RECORD
    default: break;
    }
}

/* ---- decoders (records.c) ---- */

/* Where decoded strings and frames go: alloc(ctx, bytes) returns 8-byte
 * aligned memory that outlives the decoded struct, or NULL. */
typedef struct rec_alloc {
    void *(*alloc)(void *ctx, size_t bytes);
    void *ctx;
} rec_alloc;

/* 0, or -1 when the record is too short for its fields (malformed). */
#define RECORD(NAME, num, name, fields, report) \
    int rec_##name##_decode(const trace_record *r, rec_##name *v, const rec_alloc *a);
#include "trace/records.def"
#undef RECORD

/* The record's kind decoded into the member of that name: 0, -1 malformed
 * (as above), or -2 for a kind this reader does not know (nothing decoded). */
int rec_decode(const trace_record *r, rec_any *v, const rec_alloc *a);

/* A kind's name (the jsonl "kind"), or "unknown". */
const char *rec_kind_name(int kind);

#endif
