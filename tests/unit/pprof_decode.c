/* pprof_decode.c - a tiny protobuf decoder for the pprof output the unit
 * tests check (pprof_decode.h): only the messages and fields profile.proto
 * gives them, varints and length-delimited fields. */
#include "pprof_decode.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint64_t rd_varint(pbr *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        v |= (uint64_t)(*r->p & 0x7f) << shift;
        if (!(*r->p++ & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

/* Reads the next field: returns its number (0 at the end or on error); a
 * varint's value goes to *v, a length-delimited field's bytes to *sub. */
static uint32_t rd_field(pbr *r, uint64_t *v, pbr *sub)
{
    uint64_t key, len;
    if (r->p >= r->end || r->bad)
        return 0;
    key = rd_varint(r);
    switch (key & 7) {
    case 0:
        *v = rd_varint(r);
        break;
    case 2:
        len = rd_varint(r);
        if (r->bad || len > (uint64_t)(r->end - r->p)) {
            r->bad = 1;
            return 0;
        }
        sub->p = r->p;
        sub->end = r->p + len;
        sub->bad = 0;
        r->p += len;
        break;
    case 1: case 5:        /* fixed64/fixed32: not used by pprof's messages we read */
    default:
        r->bad = 1;
        return 0;
    }
    return r->bad ? 0 : (uint32_t)(key >> 3);
}

/* A repeated varint field: packed (sub) or one value (v). */
static void rd_repeated(uint64_t v, pbr *sub, int packed, uint64_t *out, int *n, int max)
{
    if (!packed) {
        if (*n < max)
            out[(*n)++] = v;
        return;
    }
    while (sub->p < sub->end && !sub->bad) {
        uint64_t x = rd_varint(sub);
        if (*n < max)
            out[(*n)++] = x;
    }
}

static void decode_sample(pbr *r, dsample *s)
{
    uint64_t v = 0;
    pbr sub;
    uint32_t f;
    const unsigned char *before;

    memset(s, 0, sizeof(*s));
    for (before = r->p; (f = rd_field(r, &v, &sub)) != 0; before = r->p) {
        int packed = (*before & 7) == 2;
        if (f == 1) {
            rd_repeated(v, &sub, packed, s->loc, &s->nloc, 16);
        } else if (f == 2) {
            uint64_t vals[4];
            int n = 0;
            rd_repeated(v, &sub, packed, vals, &n, 4);
            for (int i = 0; i < n && s->nval < 4; i++)
                s->val[s->nval++] = (int64_t)vals[i];
        } else if (f == 3 && s->nlabel < 4) {
            uint32_t lf;
            int i = s->nlabel++;
            pbr unused;
            while ((lf = rd_field(&sub, &v, &unused)) != 0) {
                if (lf == 1) s->label_key[i] = (int64_t)v;
                else if (lf == 2) s->label_str[i] = (int64_t)v;
                else if (lf == 3) s->label_num[i] = (int64_t)v;
            }
        }
    }
}

void decode_profile(const unsigned char *data, size_t len, dprof *d)
{
    pbr r = { data, data + len, 0 }, sub;
    uint64_t v = 0;
    uint32_t f;

    memset(d, 0, sizeof(*d));
    while ((f = rd_field(&r, &v, &sub)) != 0) {
        switch (f) {
        case 1:
        case 11: {
            pbr in = sub;
            int64_t type = 0, unit = 0;
            uint32_t vf;
            while ((vf = rd_field(&in, &v, &sub)) != 0) {
                if (vf == 1) type = (int64_t)v;
                if (vf == 2) unit = (int64_t)v;
            }
            if (f == 11) {
                d->pt_type = type;
                d->pt_unit = unit;
            } else if (d->nst < 4) {
                d->st_type[d->nst] = type;
                d->st_unit[d->nst++] = unit;
            }
            break;
        }
        case 2:
            if (d->nsamples < MAXN)
                decode_sample(&sub, &d->samples[d->nsamples++]);
            break;
        case 4: {
            pbr in = sub, line;
            uint32_t lf;
            if (d->nloc >= MAXN)
                break;
            while ((lf = rd_field(&in, &v, &line)) != 0) {
                if (lf == 1)
                    d->loc_id[d->nloc] = v;
                else if (lf == 4) {
                    uint32_t xf;
                    while ((xf = rd_field(&line, &v, &sub)) != 0)
                        if (xf == 1)
                            d->loc_fn[d->nloc] = v;
                }
            }
            d->nloc++;
            break;
        }
        case 5: {
            pbr in = sub;
            uint32_t ff;
            if (d->nfn >= MAXN)
                break;
            while ((ff = rd_field(&in, &v, &sub)) != 0) {
                if (ff == 1) d->fn_id[d->nfn] = v;
                if (ff == 2) d->fn_name[d->nfn] = (int64_t)v;
            }
            d->nfn++;
            break;
        }
        case 6:
            if (d->nstrings < MAXN) {
                size_t n = (size_t)(sub.end - sub.p);
                char *s = malloc(n + 1);
                memcpy(s, sub.p, n);
                s[n] = '\0';
                d->strings[d->nstrings++] = s;
            }
            break;
        case 10: d->duration = (int64_t)v; break;
        case 12: d->period = (int64_t)v; break;
        case 13:
            if (d->ncomment++ == 0)
                d->comment = (int64_t)v;
            else
                d->comment2 = (int64_t)v;
            break;
        case 14: d->default_type = (int64_t)v; break;
        default: break;
        }
    }
    d->bad = r.bad;
}

void free_dprof(dprof *d)
{
    for (int i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
}

const char *str_at(const dprof *d, int64_t i)
{
    return i >= 0 && i < d->nstrings ? d->strings[i] : "(out of range)";
}

const char *fn_name_of_loc(const dprof *d, uint64_t loc)
{
    for (int i = 0; i < d->nloc; i++)
        if (d->loc_id[i] == loc)
            for (int j = 0; j < d->nfn; j++)
                if (d->fn_id[j] == d->loc_fn[i])
                    return str_at(d, d->fn_name[j]);
    return "(no such location)";
}

/* gunzips data; returns the bytes (free them) or NULL. */
unsigned char *gunzip(const char *data, size_t len, size_t *outlen)
{
    z_stream zs;
    size_t cap = 1 << 16;
    unsigned char *out = malloc(cap);
    int r;

    memset(&zs, 0, sizeof(zs));
    if (!out || inflateInit2(&zs, 15 + 16) != Z_OK) {
        free(out);
        return NULL;
    }
    zs.next_in = (unsigned char *)data;
    zs.avail_in = (uInt)len;
    do {
        if (zs.total_out == cap) {
            unsigned char *n = realloc(out, cap * 2);
            if (!n)
                break;
            out = n;
            cap *= 2;
        }
        zs.next_out = out + zs.total_out;
        zs.avail_out = (uInt)(cap - zs.total_out);
        r = inflate(&zs, Z_NO_FLUSH);
    } while (r == Z_OK);
    *outlen = zs.total_out;
    inflateEnd(&zs);
    if (r != Z_STREAM_END || zs.avail_in != 0) {
        free(out);
        return NULL;
    }
    return out;
}


int decode_profile_gz(const char *data, size_t len, dprof *d)
{
    size_t plen;
    unsigned char *raw;

    memset(d, 0, sizeof(*d));
    if (!data || len <= 18 || (unsigned char)data[0] != 0x1f || (unsigned char)data[1] != 0x8b ||
        !(raw = gunzip(data, len, &plen))) {       /* (gzip magic) */
        d->bad = 1;
        return -1;
    }
    decode_profile(raw, plen, d);
    free(raw);
    return d->bad ? -1 : 0;
}
