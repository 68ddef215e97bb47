/* pprof_decode.h - the unit tests' reader of the pprof format: gunzip,
 * then a profile.proto message decoded into a dprof (sample types,
 * samples with their locations, values and labels, locations, functions,
 * the string table, period, duration, comments, default sample type). */
#ifndef CLRPROBE_UNIT_PPROF_DECODE_H
#define CLRPROBE_UNIT_PPROF_DECODE_H

#include <stddef.h>
#include <stdint.h>

typedef struct pbr { const unsigned char *p, *end; int bad; } pbr;

enum { MAXN = 64 };

typedef struct dsample {
    uint64_t loc[16];
    int nloc;
    int64_t val[4];
    int nval;
    int64_t label_key[4], label_str[4], label_num[4];
    int nlabel;
} dsample;

typedef struct dprof {
    char *strings[MAXN];
    int nstrings;
    int64_t st_type[4], st_unit[4];
    int nst;
    dsample samples[MAXN];
    int nsamples;
    uint64_t fn_id[MAXN];
    int64_t fn_name[MAXN];
    int nfn;
    uint64_t loc_id[MAXN], loc_fn[MAXN];
    int nloc;
    int64_t period, duration, comment, comment2, ncomment, default_type, pt_type, pt_unit;
    int bad;
} dprof;

/* Decodes a profile message (not compressed) into *d; d->bad if malformed. */
void decode_profile(const unsigned char *data, size_t len, dprof *d);
void free_dprof(dprof *d);
/* String i of the table ("(out of range)" if none). */
const char *str_at(const dprof *d, int64_t i);
/* The name of the function of location loc. */
const char *fn_name_of_loc(const dprof *d, uint64_t loc);
/* gunzips data; returns the bytes (free them) or NULL. */
unsigned char *gunzip(const char *data, size_t len, size_t *outlen);
/* A gzip-compressed profile (what `report -f pprof` writes) into *d:
 * returns 0, or -1 when it is not gzip (d->bad set) or is malformed. */
int decode_profile_gz(const char *data, size_t len, dprof *d);

#endif
