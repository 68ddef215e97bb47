/* il_sig.c - reading method and local signatures and building the IL
 * rewriter's local signature (il_sig.h).  Pure. */
#include "agent/tracer/il_sig.h"

#include <string.h>

/* ELEMENT_TYPE_* (ECMA-335 II.23.1.16) */
enum {
    ET_VOID = 0x01, ET_PTR = 0x0F, ET_BYREF = 0x10, ET_VALUETYPE = 0x11, ET_CLASS = 0x12, ET_VAR = 0x13,
    ET_ARRAY = 0x14, ET_GENERICINST = 0x15, ET_TYPEDBYREF = 0x16, ET_FNPTR = 0x1B, ET_SZARRAY = 0x1D,
    ET_MVAR = 0x1E, ET_CMOD_REQD = 0x1F, ET_CMOD_OPT = 0x20, ET_SENTINEL = 0x41, ET_PINNED = 0x45,
};
#define SIG_GENERIC 0x10
#define SIG_LOCAL 0x07
#define DEPTH_MAX 64

const uint8_t il_sig_probe[4] = { 0x01 /* unmanaged C */, 0x01 /* one parameter */, ET_VOID, 0x0A /* I8 */ };

typedef struct rd {
    const uint8_t *p;
    size_t n, at;
} rd;

/* A compressed unsigned integer (II.23.2). */
static int uint_c(rd *r, uint32_t *v)
{
    uint8_t b;
    if (r->at >= r->n)
        return -1;
    b = r->p[r->at];
    if (!(b & 0x80)) {
        *v = b;
        r->at += 1;
    } else if ((b & 0xC0) == 0x80) {
        if (r->at + 2 > r->n)
            return -1;
        *v = (uint32_t)(b & 0x3F) << 8 | r->p[r->at + 1];
        r->at += 2;
    } else if ((b & 0xE0) == 0xC0) {
        if (r->at + 4 > r->n)
            return -1;
        *v = (uint32_t)(b & 0x1F) << 24 | (uint32_t)r->p[r->at + 1] << 16 | (uint32_t)r->p[r->at + 2] << 8 |
             r->p[r->at + 3];
        r->at += 4;
    } else {
        return -1;
    }
    return 0;
}

static int byte(rd *r, uint8_t *b)
{
    if (r->at >= r->n)
        return -1;
    *b = r->p[r->at++];
    return 0;
}

static int peek(const rd *r) { return r->at < r->n ? r->p[r->at] : -1; }

static int skip_type(rd *r, int depth);
static int skip_method_sig(rd *r, int depth);

static int skip_mods(rd *r)
{
    uint32_t tok;
    while (peek(r) == ET_CMOD_REQD || peek(r) == ET_CMOD_OPT) {
        r->at++;
        if (uint_c(r, &tok) < 0)
            return -1;
    }
    return 0;
}

static int skip_type(rd *r, int depth)
{
    uint8_t et;
    uint32_t v, n;

    if (depth > DEPTH_MAX || skip_mods(r) < 0 || byte(r, &et) < 0)
        return -1;
    if ((et >= 0x02 && et <= 0x0E) || et == 0x18 || et == 0x19 || et == 0x1C || et == ET_TYPEDBYREF)
        return 0;                                        /* primitives, string, object, typedref */
    switch (et) {
    case ET_VALUETYPE: case ET_CLASS:
        return uint_c(r, &v);
    case ET_VAR: case ET_MVAR:
        return uint_c(r, &v);
    case ET_PTR:
        if (skip_mods(r) < 0)
            return -1;
        if (peek(r) == ET_VOID) {
            r->at++;
            return 0;
        }
        return skip_type(r, depth + 1);
    case ET_BYREF: case ET_SZARRAY: case ET_PINNED:
        return skip_type(r, depth + 1);
    case ET_ARRAY:
        if (skip_type(r, depth + 1) < 0 || uint_c(r, &v) < 0 || uint_c(r, &n) < 0)
            return -1;
        for (uint32_t i = 0; i < n; i++)
            if (uint_c(r, &v) < 0)
                return -1;
        if (uint_c(r, &n) < 0)
            return -1;
        for (uint32_t i = 0; i < n; i++)                  /* signed, same lengths */
            if (uint_c(r, &v) < 0)
                return -1;
        return 0;
    case ET_GENERICINST:
        if (byte(r, &et) < 0 || (et != ET_CLASS && et != ET_VALUETYPE) || uint_c(r, &v) < 0 || uint_c(r, &n) < 0)
            return -1;
        for (uint32_t i = 0; i < n; i++)
            if (skip_type(r, depth + 1) < 0)
                return -1;
        return 0;
    case ET_FNPTR:
        return skip_method_sig(r, depth + 1);
    }
    return -1;
}

/* A return type or parameter: custom modifiers, then VOID, TYPEDBYREF,
 * or [BYREF] Type. */
static int skip_param(rd *r, int depth, int *is_void)
{
    if (skip_mods(r) < 0)
        return -1;
    if (peek(r) == ET_VOID) {
        r->at++;
        if (is_void)
            *is_void = 1;
        return 0;
    }
    if (is_void)
        *is_void = 0;
    return skip_type(r, depth);
}

static int skip_method_sig(rd *r, int depth)
{
    uint8_t cc;
    uint32_t gen, params;

    if (depth > DEPTH_MAX || byte(r, &cc) < 0)
        return -1;
    if ((cc & SIG_GENERIC) && uint_c(r, &gen) < 0)
        return -1;
    if (uint_c(r, &params) < 0 || skip_param(r, depth + 1, NULL) < 0)
        return -1;
    for (uint32_t i = 0; i < params; i++) {
        if (peek(r) == ET_SENTINEL)
            r->at++;
        if (skip_param(r, depth + 1, NULL) < 0)
            return -1;
    }
    return 0;
}

int il_sig_return_type(const uint8_t *sig, size_t sig_len, size_t *off, size_t *len, int *is_void)
{
    rd r = { sig, sig_len, 0 };
    uint8_t cc;
    uint32_t v;
    size_t start;

    if (byte(&r, &cc) < 0 || ((cc & SIG_GENERIC) && uint_c(&r, &v) < 0) || uint_c(&r, &v) < 0)
        return -1;
    start = r.at;
    if (skip_param(&r, 0, is_void) < 0)
        return -1;
    *off = start;
    *len = r.at - start;
    return 0;
}

static size_t put_c(uint8_t *out, uint32_t v)
{
    if (v < 0x80) {
        out[0] = (uint8_t)v;
        return 1;
    }
    if (v < 0x4000) {
        out[0] = (uint8_t)(0x80 | v >> 8);
        out[1] = (uint8_t)v;
        return 2;
    }
    out[0] = (uint8_t)(0xC0 | v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
    return 4;
}

int il_sig_add_local(const uint8_t *locals, size_t locals_len, const uint8_t *type, size_t type_len, uint8_t *out,
                     size_t cap, size_t *out_len, uint32_t *index)
{
    uint32_t count = 0;
    size_t body_at = 0, n;

    if (locals && locals_len) {
        rd r = { locals, locals_len, 0 };
        uint8_t kind;
        if (byte(&r, &kind) < 0 || kind != SIG_LOCAL || uint_c(&r, &count) < 0)
            return -1;
        body_at = r.at;
        for (uint32_t i = 0; i < count; i++)          /* check it parses, whole */
            if (skip_param(&r, 0, NULL) < 0)
                return -1;
        if (r.at != locals_len)
            return -1;
    }
    if (count >= 0xFFFE || 1 + 4 + (locals_len - body_at) + type_len > cap)
        return -1;
    out[0] = SIG_LOCAL;
    n = 1 + put_c(out + 1, count + 1);
    if (locals_len > body_at)
        memcpy(out + n, locals + body_at, locals_len - body_at);
    n += locals_len - body_at;
    memcpy(out + n, type, type_len);
    *out_len = n + type_len;
    *index = count;
    return 0;
}
