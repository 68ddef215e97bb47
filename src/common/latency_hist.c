/* latency_hist.c - bucket bounds, quantiles and the record encoding of the
 * method tracer's latency histograms (latency_hist.h).  Pure. */
#include "common/latency_hist.h"

uint64_t lh_low(unsigned i)
{
    unsigned e, sub;
    if (i < LH_SUB)
        return i;
    e = (i - LH_SUB) / LH_SUB + 4;
    sub = (i - LH_SUB) % LH_SUB;
    return (1ull << e) + ((uint64_t)sub << (e - 4));
}

uint64_t lh_high(unsigned i)
{
    if (i < LH_SUB)
        return (uint64_t)i + 1;
    if (i >= LH_BUCKETS - 1)
        return 1ull << (LH_TOP_EXP + 1);
    return lh_low(i + 1);
}

uint64_t lh_value(unsigned i)
{
    uint64_t lo = lh_low(i), hi = lh_high(i);
    return i < LH_SUB ? lo : lo + (hi - lo) / 2;
}

uint64_t lh_quantile(const uint32_t *counts, double q, uint64_t max)
{
    uint64_t n = 0, rank, seen = 0;

    for (unsigned i = 0; i < LH_BUCKETS; i++)
        n += counts[i];
    if (n == 0)
        return 0;
    if (q <= 0)
        q = 1e-12;
    if (q > 1)
        q = 1;
    rank = (uint64_t)(q * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    if (rank == n && max > 0)
        return max;                          /* the largest value is known exactly */
    for (unsigned i = 0; i < LH_BUCKETS; i++) {
        seen += counts[i];
        if (seen >= rank) {
            uint64_t v = lh_value(i);
            return max > 0 && v > max ? max : v;
        }
    }
    return max;
}

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

size_t lh_encode(const uint32_t *counts, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (unsigned i = 0; i < LH_BUCKETS; i++) {
        if (!counts[i])
            continue;
        if (n + 6 > cap)
            break;
        put16(out + n, i);
        put32(out + n + 2, counts[i]);
        n += 6;
    }
    return n;
}

int lh_decode_add(const uint8_t *data, size_t len, uint32_t *counts)
{
    long prev = -1;

    if (len % 6)
        return -1;
    for (size_t off = 0; off < len; off += 6) {
        unsigned i = data[off] | (unsigned)data[off + 1] << 8;
        uint32_t c = (uint32_t)data[off + 2] | (uint32_t)data[off + 3] << 8 | (uint32_t)data[off + 4] << 16 |
                     (uint32_t)data[off + 5] << 24;
        if (i >= LH_BUCKETS || (long)i <= prev)
            return -1;
        prev = i;
        counts[i] = counts[i] + c < counts[i] ? UINT32_MAX : counts[i] + c;
    }
    return 0;
}
