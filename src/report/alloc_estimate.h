/* alloc_estimate.h - what one alloc_sample record stands for: the bytes and
 * objects it estimates, by how it was recorded (ALLOC_METHOD_*,
 * trace/format.h).  The one place these figures are computed: the profile
 * builder's weights and jsonl's bytes and objects both come from here
 * (docs/sampling.md, "Allocation views"). */
#ifndef CLRPROBE_REPORT_ALLOC_ESTIMATE_H
#define CLRPROBE_REPORT_ALLOC_ESTIMATE_H

#include <stdint.h>

#include "trace/records.h"

/* The bytes and objects r stands for:
 *   SAMPLED  every byte allocated is sampled with p = 1/ALLOC_SAMPLING_MEAN_BYTES, so an object of
 *            size S is sampled with probability 1 - q^S (q = 1 - p) and the record stands for
 *            S / (1 - q^S) bytes and 1 / (1 - q^S) objects: unbiased (the runtime's
 *            RandomizedAllocationSampling.md, "Estimation Approach 1");
 *   TICK     the amount allocated since the previous tick, given to this object's type and stack:
 *            amount bytes, amount / size objects (at least 1): not upscaled;
 *   EXACT    (and any other method) as recorded: size bytes, count objects.
 * A sampled record of size 0 stands for nothing. */
void rp_alloc_estimate(const rec_alloc_sample *r, double *bytes, double *objects);

/* How the figures of records recorded by the methods in the bit set
 * methods (1 << ALLOC_METHOD_*; bit 0: a method this report does not know,
 * read as exact) are to be read: "upscaled" (sampled, maybe
 * with exact ones), "exact" (all exact) or "not upscaled" (any tick); with
 * long_form, a sentence fragment that says why, e.g. "not upscaled
 * (AllocationTick: ...)".  "" when methods is 0. */
const char *rp_alloc_scaling(unsigned methods, int long_form);
/* Whether figures of those methods are honest estimates (no tick). */
int rp_alloc_upscaled(unsigned methods);

/* Whole numbers that add up to the rounded sum of the estimates: each call
 * gives x rounded with the rounding error carried from the calls before
 * (start from all zero).  The profile's weights are made with it, so a
 * view's total is its estimates' sum rounded, not a sum of rounded values. */
typedef struct rp_carry {
    double sum;
    uint64_t given;
} rp_carry;
uint64_t rp_carry_round(rp_carry *c, double x);

#endif
