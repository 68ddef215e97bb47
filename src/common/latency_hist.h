/* latency_hist.h - a log-linear histogram of durations in nanoseconds, the
 * one the method tracer fills per thread and method and the report merges
 * and reads percentiles from.
 *
 * Values below 16 ns have a bucket each; above, every power of two is cut
 * into 16 equal buckets, so a bucket spans at most 1/16 of its lower bound
 * and its midpoint is within 1/32 (3.2%) of every value in it.  Values of
 * 2^41 ns (about 37 minutes) and more share the last bucket (the exact
 * maximum is kept beside the histogram).  In a trace record a histogram is
 * its non-empty buckets: (u16 index, u32 count) pairs, little-endian, in
 * increasing index order. */
#ifndef CLRPROBE_COMMON_LATENCY_HIST_H
#define CLRPROBE_COMMON_LATENCY_HIST_H

#include <stddef.h>
#include <stdint.h>

#define LH_SUB 16                    /* buckets per power of two */
#define LH_TOP_EXP 40                /* 2^40 .. 2^41 ns is the last full octave */
#define LH_BUCKETS (LH_SUB + (LH_TOP_EXP - 4 + 1) * LH_SUB)
#define LH_ENCODED_MAX (LH_BUCKETS * 6)

/* The bucket of a value (inline: the tracer's hot path). */
static inline unsigned lh_bucket(uint64_t ns)
{
    unsigned e;
    if (ns < LH_SUB)
        return (unsigned)ns;
    e = 63u - (unsigned)__builtin_clzll(ns);
    if (e > LH_TOP_EXP)
        return LH_BUCKETS - 1;
    return LH_SUB + (e - 4) * LH_SUB + (unsigned)((ns >> (e - 4)) & (LH_SUB - 1));
}

/* The lowest value of bucket i, and the one after its highest. */
uint64_t lh_low(unsigned i);
uint64_t lh_high(unsigned i);

/* The value that stands for bucket i: its midpoint. */
uint64_t lh_value(unsigned i);

/* The q-quantile (0 < q <= 1) of counts[LH_BUCKETS]: the value of the
 * bucket that holds the ceil(q * n)-th smallest value, n their sum; capped
 * at max when max > 0.  0 when empty. */
uint64_t lh_quantile(const uint32_t *counts, double q, uint64_t max);

/* Encodes counts as its non-empty buckets into out (LH_ENCODED_MAX bytes
 * suffice).  Returns the bytes written. */
size_t lh_encode(const uint32_t *counts, uint8_t *out, size_t cap);

/* Adds an encoded histogram to counts (merging).  0, or -1 if data is not
 * a well-formed encoding (counts then holds what came before the fault). */
int lh_decode_add(const uint8_t *data, size_t len, uint32_t *counts);

#endif
