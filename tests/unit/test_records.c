/* test_records.c - the record catalogue (trace/records.def): every kind
 * encoded from its struct and decoded back gives the same fields and the
 * documented length; every shorter record is malformed, except one that
 * ends just before an optional trailing field (then 0); strings keep the
 * reader's rules (NUL as C0 80, "" without memory); unknown kinds are said
 * to be unknown. */
#include "unit.h"
#include "trace/records.h"

#include <stdlib.h>
#include <string.h>

static const char *const strings[] = { "System.Private.CoreLib", "", "Ns.Type`1+Inner<System.Int32>.M",
                                        "/usr/share/dotnet/x.dll", "\xc3\xa9t\xc3\xa9", "?" };
static const uint64_t frames[] = { 0x7f0011223344, 0, 0x7f0011225566, 0x1 };
static const uint32_t u32s[] = { 0x12, 0xFFFFFFFFu, 0xFFFFFFFEu };
static const uint8_t blob[] = { 0x00, 0x80, 0xff, 0x7f, 0x01 };

/* ---- generated from the catalogue: fill with distinct values, compare,
 * the length on the wire, the optional trailing field's size ---- */

#define F_U16(x) v->x = (uint16_t)(0x1100 + ++*seed);
#define F_U32(x) v->x = 0x80000000u + ++*seed;
#define F_U64(x) v->x = 0x8000000100000000ull + ++*seed;
#define F_U64_OPT(x) v->x = 0x4000000200000000ull + ++*seed;
#define F_STR(x) v->x = strings[++*seed % 6];
#define F_STRN(x) v->x = strings[++*seed % 6]; v->x##_len = (uint16_t)strlen(v->x);
#define F_FRAMES(n, x) v->n = 4; v->x = frames;
#define F_STR_OPT(x) F_STR(x)
#define F_FRAMES_OPT(n, x) F_FRAMES(n, x)
#define F_U32S_OPT(n, x) v->n = 3; v->x = u32s;
#define F_BYTES(x) v->x = blob; v->x##_len = (uint16_t)sizeof(blob);
#define F_NONE
#define R_STR(x)
#define R_U32(x)
#define RECORD(NAME, num, name, fields, report) \
    static void fill_##name(rec_any *any, unsigned *seed) { rec_##name *v = &any->name; (void)v; (void)seed; fields }
#include "trace/records.def"
#include "trace/records_undef.h"

#define SAME_U(x)                                                                                   \
    if ((uint64_t)d->x != (uint64_t)v->x)                                                          \
        unit_fail(__FILE__, __LINE__, "%s.%s: %llu != %llu", kind, #x, (unsigned long long)d->x,   \
                  (unsigned long long)v->x);
#define SAME_S(x, want)                                                                             \
    if (!d->x || strcmp(d->x, want) != 0)                                                          \
        unit_fail(__FILE__, __LINE__, "%s.%s: \"%s\" != \"%s\"", kind, #x, d->x ? d->x : "(null)", want);
#define F_U16(x) SAME_U(x)
#define F_U32(x) SAME_U(x)
#define F_U64(x) SAME_U(x)
#define F_U64_OPT(x) if (!no_opt) { SAME_U(x) } else if (d->x) unit_fail(__FILE__, __LINE__, "%s.%s not 0", kind, #x);
#define F_STR(x) SAME_S(x, v->x)
#define F_STR_OPT(x) if (!no_opt) { SAME_S(x, v->x) } else SAME_S(x, "")
#define F_FRAMES_OPT(n, x) if (!no_opt) { F_FRAMES(n, x) } else if (d->n) unit_fail(__FILE__, __LINE__, "%s.%s not empty", kind, #x);
#define F_U32S_OPT(n, x) F_FRAMES_OPT(n, x)
#define F_STRN(x) SAME_S(x, v->x) SAME_U(x##_len)
#define F_FRAMES(n, x)                                                                              \
    SAME_U(n)                                                                                       \
    for (uint16_t k = 0; k < d->n && k < v->n; k++)                                                 \
        if (d->x[k] != v->x[k])                                                                     \
            unit_fail(__FILE__, __LINE__, "%s.%s[%u] differs", kind, #x, k);
#define F_BYTES(x)                                                                                  \
    SAME_U(x##_len)                                                                                 \
    if (d->x##_len && (!d->x || memcmp(d->x, v->x, d->x##_len) != 0))                                \
        unit_fail(__FILE__, __LINE__, "%s.%s differs", kind, #x);
#define F_NONE
#define R_STR(x) SAME_S(x, "")
#define R_U32(x) if (d->x) unit_fail(__FILE__, __LINE__, "%s.%s not 0", kind, #x);
#define RECORD(NAME, num, name, fields, report)                                                   \
    static void compare_##name(const rec_any *dany, const rec_any *vany, int no_opt)                \
    {                                                                                              \
        const rec_##name *d = &dany->name, *v = &vany->name;                                       \
        const char *kind = #name;                                                                  \
        (void)d; (void)v; (void)kind; (void)no_opt;                                                \
        fields report                                                                              \
    }
#include "trace/records.def"
#include "trace/records_undef.h"

#define F_U16(x) n += 2;
#define F_U32(x) n += 4;
#define F_U64(x) n += 8;
#define F_U64_OPT(x) n += 8;
#define F_STR(x) n += 2 + strlen(v->x);
#define F_STRN(x) n += 2 + (size_t)v->x##_len;
#define F_FRAMES(nf, x) n += 2 + 8 * (size_t)v->nf;
#define F_STR_OPT(x) F_STR(x)
#define F_FRAMES_OPT(nf, x) F_FRAMES(nf, x)
#define F_U32S_OPT(nf, x) n += 2 + 4 * (size_t)v->nf;
#define F_BYTES(x) n += 2 + (size_t)v->x##_len;
#define F_NONE
#define R_STR(x)
#define R_U32(x)
#define RECORD(NAME, num, name, fields, report)                                                   \
    static size_t wire_len_##name(const rec_any *any)                                               \
    {                                                                                              \
        const rec_##name *v = &any->name;                                                          \
        size_t n = TRACE_RECORD_HEADER_LEN;                                                        \
        (void)v;                                                                                   \
        fields return n;                                                                           \
    }
#include "trace/records.def"
#include "trace/records_undef.h"

/* The lengths at which a kind's optional trailing fields begin: a record
 * that ends at one of them is whole (an older agent's).  Returns how many. */
#define F_U16(x) at += 2; ncut = 0;
#define F_U32(x) at += 4; ncut = 0;
#define F_U64(x) at += 8; ncut = 0;
#define F_U64_OPT(x) cut[ncut++] = at; at += 8;
#define F_STR(x) at += 2 + strlen(v->x); ncut = 0;
#define F_STRN(x) at += 2 + (size_t)v->x##_len; ncut = 0;
#define F_FRAMES(nf, x) at += 2 + 8 * (size_t)v->nf; ncut = 0;
#define F_STR_OPT(x) cut[ncut++] = at; at += 2 + strlen(v->x);
#define F_FRAMES_OPT(nf, x) cut[ncut++] = at; at += 2 + 8 * (size_t)v->nf;
#define F_U32S_OPT(nf, x) cut[ncut++] = at; at += 2 + 4 * (size_t)v->nf;
#define F_BYTES(x) at += 2 + (size_t)v->x##_len; ncut = 0;
#define F_NONE
#define R_STR(x)
#define R_U32(x)
#define RECORD(NAME, num, name, fields, report)                                                   \
    static int opt_cuts_##name(const rec_any *any, size_t *cut)                                     \
    {                                                                                              \
        const rec_##name *v = &any->name;                                                          \
        size_t at = TRACE_RECORD_HEADER_LEN;                                                       \
        int ncut = 0;                                                                              \
        (void)v; (void)at;                                                                         \
        fields return ncut;                                                                        \
    }
#include "trace/records.def"
#undef RECORD

typedef struct kind_entry {
    int kind;
    const char *name;
    void (*fill)(rec_any *, unsigned *);
    void (*compare)(const rec_any *, const rec_any *, int);
    size_t (*wire_len)(const rec_any *);
    int (*opt_cuts)(const rec_any *, size_t *);
} kind_entry;

static const kind_entry kinds[] = {
#define RECORD(NAME, num, name, fields, report) \
    { TK_##NAME, #name, fill_##name, compare_##name, wire_len_##name, opt_cuts_##name },
#include "trace/records.def"
#undef RECORD
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* ---- memory for the decoder: malloc'd blocks, counted and freed ---- */

typedef struct pool {
    void *blocks[64];
    size_t n;
} pool;

static void *pool_alloc(void *ctx, size_t bytes)
{
    pool *p = ctx;
    void *b;
    if (p->n == sizeof(p->blocks) / sizeof(p->blocks[0]) || (b = malloc(bytes)) == NULL)
        return NULL;
    p->blocks[p->n++] = b;
    return b;
}

static void pool_free(pool *p)
{
    while (p->n)
        free(p->blocks[--p->n]);
}

/* Encodes v as a record of kind into buf; its length. */
static size_t encode(uint8_t *buf, size_t cap, int kind, const rec_any *v)
{
    trace_rec r;
    trace_rec_begin(&r, buf, cap, kind, 4242, 123456789);
    rec_put(&r, kind, v);
    return trace_rec_finish(&r);
}

/* Decodes the first len bytes of buf (a copy of exactly len bytes, so that
 * a read past the end is caught under ASan). */
static int decode(const uint8_t *buf, size_t len, rec_any *out, pool *p)
{
    rec_alloc a = { pool_alloc, p };
    uint8_t *copy = malloc(len);
    trace_record rec;
    int rc;

    memcpy(copy, buf, len);
    rec.kind = copy[0];
    rec.flags = copy[1];
    rec.tid = trace_get_u32(copy + 4);
    rec.t = trace_get_u64(copy + 8);
    rec.fields = copy + TRACE_RECORD_HEADER_LEN;
    rec.fields_len = len - TRACE_RECORD_HEADER_LEN;
    rc = rec_decode(&rec, out, &a);
    free(copy);
    return rc;
}

TEST(records_every_kind_round_trips)
{
    uint8_t buf[TRACE_MAX_RECORD];
    unsigned seed = 0;

    CHECK_EQ(NKINDS, TK_KIND_MAX);
    for (size_t i = 0; i < NKINDS; i++) {
        const kind_entry *k = &kinds[i];
        for (int round = 0; round < 3; round++) {      /* different strings each round */
            rec_any v, d;
            pool p = { .n = 0 };
            size_t len;

            memset(&v, 0, sizeof(v));
            k->fill(&v, &seed);
            len = encode(buf, sizeof(buf), k->kind, &v);
            if (len != k->wire_len(&v))
                unit_fail(__FILE__, __LINE__, "%s: %zu bytes, documented %zu", k->name, len, k->wire_len(&v));
            CHECK_EQ(buf[0], k->kind);
            CHECK_EQ(trace_get_u16(buf + 2), len);
            memset(&d, 0xa5, sizeof(d));
            if (decode(buf, len, &d, &p) != 0)
                unit_fail(__FILE__, __LINE__, "%s: decoded as malformed", k->name);
            k->compare(&d, &v, 0);
            CHECK_STR(rec_kind_name(k->kind), k->name);
            pool_free(&p);
        }
    }
}

TEST(records_short_records_are_malformed)
{
    uint8_t buf[TRACE_MAX_RECORD];
    unsigned seed = 7;

    for (size_t i = 0; i < NKINDS; i++) {
        const kind_entry *k = &kinds[i];
        rec_any v, d;
        size_t len, cuts[16];
        int ncuts;

        memset(&v, 0, sizeof(v));
        k->fill(&v, &seed);
        len = encode(buf, sizeof(buf), k->kind, &v);
        ncuts = k->opt_cuts(&v, cuts);
        for (size_t cut = TRACE_RECORD_HEADER_LEN; cut < len; cut++) {
            pool p = { .n = 0 };
            int rc = decode(buf, cut, &d, &p), some = 0;

            for (int c = 1; c < ncuts; c++)
                some |= cut == cuts[c];
            if (ncuts && cut == cuts[0]) {
                /* an older record, whole: the optional fields read as 0 */
                if (rc != 0)
                    unit_fail(__FILE__, __LINE__, "%s without its optional fields: malformed", k->name);
                k->compare(&d, &v, 1);
            } else if (some) {
                /* a record of an agent that knew some of the optional fields */
                if (rc != 0)
                    unit_fail(__FILE__, __LINE__, "%s with some optional fields: malformed", k->name);
            } else if (rc != -1) {
                unit_fail(__FILE__, __LINE__, "%s cut to %zu of %zu bytes: rc %d, not malformed", k->name, cut,
                          len, rc);
            }
            pool_free(&p);
        }
        /* bytes after the last field are ignored */
        {
            pool p = { .n = 0 };
            memset(buf + len, 0xee, 5);
            if (decode(buf, len + 5, &d, &p) != 0)
                unit_fail(__FILE__, __LINE__, "%s with 5 more bytes: malformed", k->name);
            pool_free(&p);
        }
    }
}

TEST(records_optional_field_reads_as_zero)
{
    uint8_t buf[TRACE_MAX_RECORD];
    rec_any v, d;
    pool p = { .n = 0 };
    size_t len;

    memset(&v, 0, sizeof(v));
    v.sampler_tick = (rec_sampler_tick){ .suspend_ns = 5000, .sampler_cpu_ns = 7000, .threads = 2, .failed = 1,
                                         .period_ns = 4000000 };
    len = encode(buf, sizeof(buf), TK_SAMPLER_TICK, &v);
    CHECK_EQ(len, 112);                             /* (period_ns, the signal engine's seven fields, its clock) */
    v.sampler_tick.clock = SAMPLER_CLOCK_PERF;
    len = encode(buf, sizeof(buf), TK_SAMPLER_TICK, &v);
    CHECK_EQ(decode(buf, len, &d, &p), 0);
    CHECK_EQ(d.sampler_tick.clock, SAMPLER_CLOCK_PERF);
    CHECK_EQ(decode(buf, len - 8, &d, &p), 0);      /* as the agent before the perf clock wrote it: 104 */
    CHECK_EQ(d.sampler_tick.clock, SAMPLER_CLOCK_TIMER);
    len = 48;                                       /* as the agent before the signal engine wrote it */
    CHECK_EQ(decode(buf, len - 8, &d, &p), 0);      /* as an earlier agent wrote it: length 40 */
    CHECK_EQ(d.sampler_tick.suspend_ns, 5000);
    CHECK_EQ(d.sampler_tick.sampler_cpu_ns, 7000);
    CHECK_EQ(d.sampler_tick.threads, 2);
    CHECK_EQ(d.sampler_tick.failed, 1);
    CHECK_EQ(d.sampler_tick.period_ns, 0);
    CHECK_EQ(decode(buf, len - 4, &d, &p), -1);     /* cut inside it */
    CHECK_EQ(decode(buf, len, &d, &p), 0);
    CHECK_EQ(d.sampler_tick.period_ns, 4000000);
    CHECK_EQ(d.sampler_tick.engine, 0);
    CHECK_EQ(d.sampler_tick.thread_cpu_ns, 0);
    pool_free(&p);
}

TEST(records_strings_follow_the_reader_rules)
{
    static const char name[] = "a\0b";
    uint8_t buf[TRACE_MAX_RECORD];
    rec_any v, d;
    pool p = { .n = 0 };
    size_t len;

    /* a NUL inside a string becomes C0 80; the length is the copy's */
    memset(&v, 0, sizeof(v));
    v.thread_name = (rec_thread_name){ .thread = 9, .name = name, .name_len = 3 };
    len = encode(buf, sizeof(buf), TK_THREAD_NAME, &v);
    CHECK_EQ(len, TRACE_RECORD_HEADER_LEN + 8 + 2 + 3);
    CHECK_EQ(decode(buf, len, &d, &p), 0);
    CHECK_STR(d.thread_name.name, "a\xc0\x80" "b");
    CHECK_EQ(d.thread_name.name_len, 4);
    pool_free(&p);

    /* empty strings, empty frames: constants, no memory */
    memset(&v, 0, sizeof(v));
    v.exception_catch = (rec_exception_catch){ .function = 1, .type = "", .function_name = NULL };
    len = encode(buf, sizeof(buf), TK_EXCEPTION_CATCH, &v);
    CHECK_EQ(decode(buf, len, &d, &p), 0);
    CHECK_STR(d.exception_catch.type, "");
    CHECK_STR(d.exception_catch.function_name, "");
    CHECK_EQ(p.n, 0);
    memset(&v, 0, sizeof(v));
    v.sample = (rec_sample){ .thread = 1, .os_tid = 2, .cpu_ns = 3, .nframes = 0 };
    len = encode(buf, sizeof(buf), TK_SAMPLE, &v);
    CHECK_EQ(decode(buf, len, &d, &p), 0);
    CHECK_EQ(d.sample.nframes, 0);
    CHECK(d.sample.frames == NULL);
    CHECK_EQ(p.n, 0);

    /* a frame count larger than the record: malformed, no frames (the
     * flags after the frames make one word more) */
    memset(&v, 0, sizeof(v));
    v.sample = (rec_sample){ .thread = 1, .os_tid = 2, .cpu_ns = 3, .nframes = 4, .frames = frames };
    len = encode(buf, sizeof(buf), TK_SAMPLE, &v);
    trace_put_u16(buf + TRACE_RECORD_HEADER_LEN + 20, 6);
    CHECK_EQ(decode(buf, len, &d, &p), -1);
    CHECK_EQ(d.sample.nframes, 0);
    CHECK(d.sample.frames == NULL);
    pool_free(&p);
}

TEST(records_unknown_kinds)
{
    uint8_t buf[64];
    rec_any d;
    pool p = { .n = 0 };
    size_t len = encode(buf, sizeof(buf), 0, NULL);   /* (rec_put writes nothing for it) */

    CHECK_EQ(len, TRACE_RECORD_HEADER_LEN);
    CHECK_EQ(decode(buf, len, &d, &p), -2);
    buf[0] = TK_KIND_MAX + 1;
    CHECK_EQ(decode(buf, len, &d, &p), -2);
    CHECK_STR(rec_kind_name(0), "unknown");
    CHECK_STR(rec_kind_name(TK_KIND_MAX + 1), "unknown");
    CHECK_STR(rec_kind_name(TK_FUNC_NAME), "function_name");
    pool_free(&p);
}
