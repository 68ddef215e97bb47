/* records.c - the catalogue's decoders and kind names (records.h), made
 * from records.def. */
#include "trace/records.h"

#include <string.h>

/* A string field as a NUL-terminated copy (see records.h). */
static const char *get_str(trace_fields *f, const rec_alloc *a)
{
    size_t n, size;
    const char *s = trace_field_str(f, &n);
    char *out;

    if (n == 0)
        return "";
    size = trace_str_size(s, n);
    if ((out = a->alloc(a->ctx, size)) == NULL)
        return "";
    trace_str_copy(out, s, n);
    return out;
}

/* The same for an F_STRN field, with its length. */
static const char *get_strn(trace_fields *f, const rec_alloc *a, uint16_t *len)
{
    const char *s = get_str(f, a);
    size_t n = strlen(s);
    *len = (uint16_t)(n > UINT16_MAX ? UINT16_MAX : n);
    return s;
}

/* u16 count, then that many u64 frames copied out (NULL when none). */
static const uint64_t *get_frames(trace_fields *f, const rec_alloc *a, uint16_t *count)
{
    uint16_t n = trace_field_u16(f);
    uint64_t *out;

    *count = 0;
    if ((size_t)(f->end - f->p) < (size_t)n * 8) {
        f->bad = 1;
        return NULL;
    }
    if (n == 0 || (out = a->alloc(a->ctx, (size_t)n * 8)) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        out[i] = trace_get_u64(f->p + i * 8);
    f->p += (size_t)n * 8;
    *count = n;
    return out;
}

/* u16 count, then that many u32 copied out (NULL when none). */
static const uint32_t *get_u32s(trace_fields *f, const rec_alloc *a, uint16_t *count)
{
    uint16_t n = trace_field_u16(f);
    uint32_t *out;

    *count = 0;
    if ((size_t)(f->end - f->p) < (size_t)n * 4) {
        f->bad = 1;
        return NULL;
    }
    if (n == 0 || (out = a->alloc(a->ctx, (size_t)n * 4)) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        out[i] = trace_get_u32(f->p + i * 4);
    f->p += (size_t)n * 4;
    *count = n;
    return out;
}

/* u16 count, then that many bytes copied out as they are (NULL when none). */
static const uint8_t *get_bytes(trace_fields *f, const rec_alloc *a, uint16_t *len)
{
    size_t n;
    const char *s = trace_field_str(f, &n);
    uint8_t *out;

    *len = 0;
    if (n == 0 || (out = a->alloc(a->ctx, n)) == NULL)
        return NULL;
    memcpy(out, s, n);
    *len = (uint16_t)n;
    return out;
}

#define F_U16(x) v->x = trace_field_u16(&f);
#define F_U32(x) v->x = trace_field_u32(&f);
#define F_U64(x) v->x = trace_field_u64(&f);
#define F_U64_OPT(x) v->x = trace_field_u64_opt(&f);
#define F_STR(x) v->x = get_str(&f, a);
#define F_STRN(x) v->x = get_strn(&f, a, &v->x##_len);
#define F_FRAMES(n, x) v->x = get_frames(&f, a, &v->n);
#define F_STR_OPT(x) v->x = f.p == f.end ? "" : get_str(&f, a);
#define F_FRAMES_OPT(n, x) v->x = f.p == f.end ? NULL : get_frames(&f, a, &v->n);
#define F_U32S_OPT(n, x) v->x = f.p == f.end ? NULL : get_u32s(&f, a, &v->n);
#define F_BYTES(x) v->x = get_bytes(&f, a, &v->x##_len);
#define F_NONE
#define R_STR(x) v->x = "";
#define R_U32(x)
#define RECORD(NAME, num, name, fields, report)                                    \
    int rec_##name##_decode(const trace_record *r, rec_##name *v, const rec_alloc *a) \
    {                                                                              \
        trace_fields f;                                                            \
        (void)a;                                                                   \
        memset(v, 0, sizeof(*v));                                                  \
        trace_fields_init(&f, r);                                                  \
        fields report                                                              \
        return f.bad ? -1 : 0;                                                     \
    }
#include "trace/records.def"
#undef RECORD

int rec_decode(const trace_record *r, rec_any *v, const rec_alloc *a)
{
    switch (r->kind) {
#define RECORD(NAME, num, name, fields, report) \
    case TK_##NAME: return rec_##name##_decode(r, &v->name, a);
#include "trace/records.def"
#undef RECORD
    default:
        return -2;
    }
}

const char *rec_kind_name(int kind)
{
    switch (kind) {
#define RECORD(NAME, num, name, fields, report) case TK_##NAME: return #name;
#include "trace/records.def"
#undef RECORD
    default:
        return "unknown";
    }
}

/* Every number fits the kind byte and the report's tables (TK_KIND_MAX). */
#define RECORD(NAME, num, name, fields, report) \
    _Static_assert(num > 0 && num <= TK_KIND_MAX, "kind " #name ": raise TK_KIND_MAX");
#include "trace/records.def"
#undef RECORD
