/* alloc_estimate.c - the bytes and objects an alloc_sample record stands
 * for (alloc_estimate.h). */
#include "report/alloc_estimate.h"
#include "trace/format.h"

#include <math.h>

void rp_alloc_estimate(const rec_alloc_sample *r, double *bytes, double *objects)
{
    double size = (double)r->size;

    switch (r->method) {
    case ALLOC_METHOD_SAMPLED: {
        /* 1 - q^S, computed without losing digits when p*S is small */
        double sampled = size > 0 ? -expm1(size * log1p(-1.0 / ALLOC_SAMPLING_MEAN_BYTES)) : 0;
        *bytes = sampled > 0 ? size / sampled : 0;
        *objects = sampled > 0 ? 1.0 / sampled : 0;
        break;
    }
    case ALLOC_METHOD_TICK:
        *bytes = (double)r->amount;
        *objects = size > 0 ? (double)r->amount / size : 0;
        if (*objects < 1)
            *objects = 1;
        break;
    default:
        *bytes = size;
        *objects = (double)r->count;
        break;
    }
}

int rp_alloc_upscaled(unsigned methods)
{
    return !(methods & (1u << ALLOC_METHOD_TICK));
}

const char *rp_alloc_scaling(unsigned methods, int long_form)
{
    if (!methods)
        return "";
    if (!rp_alloc_upscaled(methods))
        return long_form ? "not upscaled (AllocationTick: each tick's bytes, about 100 KB, are given to the type "
                           "and stack of the object that crossed the threshold)"
                         : "not upscaled";
    if (!(methods & (1u << ALLOC_METHOD_SAMPLED)))
        return long_form ? "exact (every allocation recorded)" : "exact";
    return long_form ? "upscaled estimates (AllocationSampled: a sampled object of size S stands for "
                       "S/(1-q^S) bytes, q = 1 - 1/102400)"
                     : "upscaled";
}

uint64_t rp_carry_round(rp_carry *c, double x)
{
    uint64_t target, w;

    if (x > 0)
        c->sum += x;
    target = (uint64_t)llround(c->sum);
    w = target > c->given ? target - c->given : 0;
    c->given += w;
    return w;
}
