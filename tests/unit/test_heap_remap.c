/* test_heap_remap.c - object addresses carried through GCs (agent/heap/heap_remap.h):
 * Profiling.md's example, batches across calls, compacting and
 * non-compacting ranges in one GC, a generation that was not collected,
 * lost GCs, a random heap checked against a plain per-object answer, and
 * batches from several threads at once. */
#include "unit.h"
#include "agent/heap/heap_remap.h"

#include <pthread.h>
#include <stdlib.h>

/* The example of "Tracking Moved Objects" in dotnet/runtime
 * docs/design/coreclr/profiling/Profiling.md (docs/gc-tracking.md): objects at 08 09 10 12 13 15 16 17 18 19 of gen0; 09, 13 and 19
 * die; ranges 08->07 (1), 10->08 (3), 15->11 (4). */
static const uint64_t seed_old[] = { 8, 10, 15 }, seed_new[] = { 7, 8, 11 }, seed_len[] = { 1, 3, 4 };
static const uint64_t seed_objs[] = { 8, 9, 10, 12, 13, 15, 16, 17, 18, 19 };
static const uint64_t seed_want[] = { 7, HEAP_REMAP_DIED, 8, 10, HEAP_REMAP_DIED, 11, 12, 13, 14, HEAP_REMAP_DIED };
#define NSEED (sizeof(seed_objs) / sizeof(seed_objs[0]))

TEST(heap_remap_seed_example)
{
    heap_remap m;
    heap_remap_gen gen0 = { .start = 8, .len = 12, .generation = 0 };
    uint64_t out[NSEED], set[NSEED];
    size_t n = NSEED;

    heap_remap_init(&m, 0);
    CHECK_EQ(heap_remap_begin(&m, &gen0, 1, 1u << 0), 0);
    heap_remap_add(&m, 3, seed_old, seed_new, seed_len);
    CHECK_EQ(heap_remap_seal(&m), 0);
    for (size_t i = 0; i < NSEED; i++)
        CHECK_EQ(heap_remap_lookup(&m, seed_objs[i]), seed_want[i]);
    heap_remap_map(&m, seed_objs, NSEED, out);
    for (size_t i = 0; i < NSEED; i++)
        CHECK_EQ(out[i], seed_want[i]);

    memcpy(set, seed_objs, sizeof(set));
    CHECK_EQ(heap_remap_end(&m, set, &n), 0);
    CHECK_EQ(n, 7);
    static const uint64_t want[] = { 7, 8, 10, 11, 12, 13, 14 };
    for (size_t i = 0; i < n && i < 7; i++)
        CHECK_EQ(set[i], want[i]);
    CHECK(heap_remap_seen(set, n, 10) && !heap_remap_seen(set, n, 9) && heap_remap_seen(set, n, 14));
    CHECK(!heap_remap_seen(set, n, 15) && !heap_remap_seen(set, n, 0) && !heap_remap_seen(set, 0, 7));
    heap_remap_destroy(&m);
}

/* The same GC, its ranges one a call and in reverse order; then a gen2 GC
 * in which gen2 (the objects' generation now) is not condemned: a gen0 GC
 * leaves them alone even though no range is reported. */
TEST(heap_remap_batches_and_uncollected_generation)
{
    heap_remap m;
    heap_remap_gen gens[] = { { 8, 12, 0 }, { 100, 50, 1 } };
    uint64_t set[NSEED];
    size_t n = NSEED;

    heap_remap_init(&m, 0);
    memcpy(set, seed_objs, sizeof(set));
    CHECK_EQ(heap_remap_begin(&m, gens, 2, 1u << 0), 0);
    for (int i = 2; i >= 0; i--)
        heap_remap_add(&m, 1, &seed_old[i], &seed_new[i], &seed_len[i]);
    CHECK_EQ(heap_remap_end(&m, set, &n), 0);
    CHECK_EQ(n, 7);
    CHECK_EQ(set[0], 7);
    CHECK_EQ(set[6], 14);

    /* Next GC: the survivors now sit in gen2 [7, 15), which is not
     * collected; gen0 [200, 300) is, and reports nothing (all died). */
    heap_remap_gen later[] = { { 7, 8, 2 }, { 200, 100, 0 } };
    uint64_t before[7];
    memcpy(before, set, sizeof(before));
    CHECK_EQ(heap_remap_begin(&m, later, 2, 1u << 0 | 1u << 1), 0);
    CHECK_EQ(heap_remap_end(&m, set, &n), 0);
    CHECK_EQ(n, 7);
    CHECK(memcmp(before, set, sizeof(before)) == 0);

    /* And a gen2 GC that reports nothing: all of them died. */
    CHECK_EQ(heap_remap_begin(&m, later, 2, 0x1f), 0);
    CHECK_EQ(heap_remap_end(&m, set, &n), 0);
    CHECK_EQ(n, 0);
    heap_remap_destroy(&m);
}

/* One GC, gen0 compacted into gen1's space below it (moved ranges: the
 * objects change order), gen1 swept in place (surviving ranges), LOH not
 * collected; the batches mix both kinds. */
TEST(heap_remap_mixed_compacting_and_sweeping)
{
    heap_remap m;
    heap_remap_gen gens[] = { { 1000, 100, 0 }, { 500, 100, 1 }, { 5000, 1000, 3 } };
    /* gen1: 500 510 520 530; gen0: 1000 1010 1020 1030; LOH: 5000 5500 */
    uint64_t set[] = { 500, 510, 520, 530, 1000, 1010, 1020, 1030, 5000, 5500 };
    size_t n = sizeof(set) / sizeof(set[0]);
    /* batch 1: gen1 [500, 520) survives in place, gen0 [1000, 1010) -> 600 */
    uint64_t o1[] = { 500, 1000 }, n1[] = { 500, 600 }, l1[] = { 20, 10 };
    /* batch 2 (surviving only): gen1 [530, 540) */
    uint64_t o2[] = { 530 }, l2[] = { 10 };
    /* batch 3: gen0 [1020, 1040) -> 610 */
    uint64_t o3[] = { 1020 }, n3[] = { 610 }, l3[] = { 20 };

    heap_remap_init(&m, 0);
    CHECK_EQ(heap_remap_begin(&m, gens, 3, 1u << 0 | 1u << 1), 0);
    heap_remap_add(&m, 2, o1, n1, l1);
    heap_remap_add(&m, 1, o2, NULL, l2);
    heap_remap_add(&m, 1, o3, n3, l3);
    CHECK_EQ(heap_remap_seal(&m), 0);
    CHECK_EQ(heap_remap_lookup(&m, 520), HEAP_REMAP_DIED);
    CHECK_EQ(heap_remap_lookup(&m, 1010), HEAP_REMAP_DIED);
    CHECK_EQ(heap_remap_lookup(&m, 1030), 620);
    CHECK_EQ(heap_remap_lookup(&m, 5500), 5500);
    CHECK_EQ(heap_remap_end(&m, set, &n), 0);
    uint64_t want[] = { 500, 510, 530, 600, 610, 620, 5000, 5500 };
    CHECK_EQ(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n && i < sizeof(want) / sizeof(want[0]); i++)
        CHECK_EQ(set[i], want[i]);
    heap_remap_destroy(&m);
}

/* GCs that cannot be followed: no bounds, too many ranges; the set is left
 * as it was (the caller forgets it).  Ranges outside begin/end are ignored. */
TEST(heap_remap_lost_gcs)
{
    heap_remap m;
    heap_remap_gen gen0 = { 8, 12, 0 };
    uint64_t set[NSEED];
    size_t n = NSEED;

    heap_remap_init(&m, 4);
    memcpy(set, seed_objs, sizeof(set));
    CHECK_EQ(heap_remap_begin(&m, NULL, 0, 1), -1);
    heap_remap_add(&m, 3, seed_old, seed_new, seed_len);
    CHECK_EQ(heap_remap_end(&m, set, &n), -1);
    CHECK_EQ(n, NSEED);
    CHECK_EQ(set[0], 8);

    CHECK_EQ(heap_remap_begin(&m, &gen0, 1, 1), 0);
    heap_remap_add(&m, 3, seed_old, seed_new, seed_len);
    heap_remap_add(&m, 3, seed_old, seed_new, seed_len);    /* 6 > 4 */
    CHECK_EQ(heap_remap_seal(&m), -1);
    CHECK_EQ(heap_remap_end(&m, set, &n), -1);
    CHECK_EQ(n, NSEED);

    /* A GC whose end never came, then the next one: lost, then followed again. */
    CHECK_EQ(heap_remap_begin(&m, &gen0, 1, 1), 0);
    CHECK_EQ(heap_remap_begin(&m, &gen0, 1, 1), -1);
    CHECK_EQ(heap_remap_end(&m, set, &n), -1);
    CHECK_EQ(heap_remap_begin(&m, &gen0, 1, 1), 0);
    CHECK_EQ(heap_remap_end(&m, set, &n), 0);
    CHECK_EQ(n, 0);                                  /* nothing reported: all died */

    /* Outside a GC: nothing kept, nothing leaked. */
    heap_remap_add(&m, 3, seed_old, seed_new, seed_len);
    CHECK_EQ(m.nmoves, 0);
    CHECK(m.moves == NULL);
    /* A GC whose end never comes: destroy frees it. */
    CHECK_EQ(heap_remap_begin(&m, &gen0, 1, 1), 0);
    heap_remap_add(&m, 3, seed_old, seed_new, seed_len);
    heap_remap_destroy(&m);
}

/* A random heap: objects of 3 generations in regions spread over the
 * address space; a GC condemns gen0 and gen1, kills some objects, slides
 * the runs of survivors of some regions into other places (moved), leaves
 * others in place (surviving), reports the ranges shuffled in batches of
 * random size.  Every tracked address must come out as the model says, and
 * the set sorted. */
typedef struct model_obj { uint64_t addr, size; int gen, live; uint64_t now; } model_obj;

static uint64_t rnd(void) { return (uint64_t)rand(); }

TEST(heap_remap_random_heap_against_model)
{
    for (unsigned seed = 1; seed <= 20; seed++) {
        enum { REGIONS = 12, PER = 60 };
        model_obj *o = calloc(REGIONS * PER, sizeof(*o));
        heap_remap_gen gens[REGIONS];
        heap_remap_move *mv = calloc(REGIONS * PER, sizeof(*mv));
        size_t nobj = 0, nmv = 0;
        uint64_t dest = 0x900000000ull;     /* where compacted runs go: above everything */
        heap_remap m;

        srand(seed);
        for (int r = 0; r < REGIONS; r++) {
            uint64_t base = 0x100000000ull + (uint64_t)(REGIONS - r) * 0x1000000ull, a = base;
            int gen = r % 3, compact = rnd() % 2;
            for (int k = 0; k < PER; k++) {
                model_obj *x = &o[nobj++];
                x->addr = a;
                x->size = 24 + 8 * (rnd() % 8);
                x->gen = gen;
                x->live = gen == 2 || rnd() % 3 != 0;
                a += x->size;
            }
            gens[r] = (heap_remap_gen){ base, a - base, (uint32_t)gen };
            /* Runs of consecutive live objects of a condemned region are
             * one range each. */
            for (size_t k = nobj - PER; gen < 2 && k < nobj;) {
                if (!o[k].live) { o[k++].now = HEAP_REMAP_DIED; continue; }
                size_t e = k;
                uint64_t len = 0;
                while (e < nobj && o[e].live)
                    len += o[e++].size;
                uint64_t to = compact ? dest : o[k].addr;
                mv[nmv++] = (heap_remap_move){ o[k].addr, to, len };
                for (size_t q = k; q < e; q++)
                    o[q].now = to + (o[q].addr - o[k].addr);
                if (compact)
                    dest += len + 8 * (rnd() % 3);
                k = e;
            }
            for (size_t k = nobj - PER; gen == 2 && k < nobj; k++)
                o[k].now = o[k].addr;
        }
        /* Shuffle the ranges; feed them in batches of 1..40. */
        for (size_t i = nmv; i > 1; i--) {
            size_t j = rnd() % i;
            heap_remap_move t = mv[i - 1];
            mv[i - 1] = mv[j];
            mv[j] = t;
        }
        heap_remap_init(&m, 0);
        CHECK_EQ(heap_remap_begin(&m, gens, REGIONS, 1u << 0 | 1u << 1), 0);
        for (size_t i = 0; i < nmv;) {
            size_t b = 1 + rnd() % 40, k;
            uint64_t ol[40], nw[40], ln[40];
            int surviving = 1;
            for (k = 0; k < b && i + k < nmv; k++) {
                ol[k] = mv[i + k].old_start;
                nw[k] = mv[i + k].new_start;
                ln[k] = mv[i + k].len;
                surviving &= nw[k] == ol[k];
            }
            heap_remap_add(&m, k, ol, surviving ? NULL : nw, ln);
            i += k;
        }
        /* The tracked set: every object, sorted by address. */
        uint64_t *set = malloc(nobj * sizeof(*set));
        size_t n = 0, nlive = 0;
        for (int r = REGIONS - 1; r >= 0; r--)
            for (size_t k = (size_t)r * PER; k < (size_t)(r + 1) * PER; k++)
                set[n++] = o[k].addr;
        for (size_t i = 1; i < n; i++)
            CHECK(set[i - 1] < set[i]);
        CHECK_EQ(heap_remap_seal(&m), 0);
        for (size_t k = 0; k < nobj; k++) {
            if (heap_remap_lookup(&m, o[k].addr) != o[k].now)
                unit_fail(__FILE__, __LINE__, "seed %u object %zu: %llx -> %llx, want %llx", seed, k,
                          (unsigned long long)o[k].addr,
                          (unsigned long long)heap_remap_lookup(&m, o[k].addr),
                          (unsigned long long)o[k].now);
            nlive += o[k].now != HEAP_REMAP_DIED;
        }
        CHECK_EQ(heap_remap_end(&m, set, &n), 0);
        CHECK_EQ(n, nlive);
        for (size_t i = 1; i < n; i++)
            CHECK(set[i - 1] < set[i]);
        for (size_t k = 0; k < nobj; k++)
            CHECK_EQ(heap_remap_seen(set, n, o[k].now), o[k].now != HEAP_REMAP_DIED);
        heap_remap_destroy(&m);
        free(set);
        free(mv);
        free(o);
    }
}

/* Server GC: batches from several GC threads at once.  Four threads add
 * 200 batches of 8 ranges each (thread k moves [base + 64 i, +32) up by
 * 2^32); every range is kept, and every object maps as its range says. */

typedef struct adder { heap_remap *m; int k; } adder;

static void *add_batches(void *arg)
{
    adder *a = arg;
    for (int b = 0; b < 200; b++) {
        uint64_t o[8], nw[8], ln[8];
        for (int i = 0; i < 8; i++) {
            uint64_t idx = (uint64_t)a->k * 1600 + (uint64_t)b * 8 + (uint64_t)i;
            o[i] = 0x10000000ull + idx * 64;
            nw[i] = o[i] + (1ull << 32);
            ln[i] = 32;
        }
        heap_remap_add(a->m, 8, o, b % 2 ? nw : NULL, ln);
    }
    return NULL;
}

TEST(heap_remap_batches_from_several_threads)
{
    heap_remap m;
    heap_remap_gen gen0 = { 0x10000000ull, 4 * 1600 * 64, 0 };
    pthread_t th[4];
    adder a[4];
    uint64_t *set = malloc(4 * 1600 * 2 * sizeof(*set));
    size_t n = 0;

    heap_remap_init(&m, 0);
    CHECK_EQ(heap_remap_begin(&m, &gen0, 1, 1), 0);
    for (int k = 0; k < 4; k++) {
        a[k] = (adder){ &m, k };
        CHECK_EQ(pthread_create(&th[k], NULL, add_batches, &a[k]), 0);
    }
    for (int k = 0; k < 4; k++)
        pthread_join(th[k], NULL);
    CHECK_EQ(m.nmoves, 4 * 1600);
    /* two objects per 64 bytes: one in the range (at +0), one after it (+40: died) */
    for (uint64_t idx = 0; idx < 4 * 1600; idx++) {
        set[n++] = 0x10000000ull + idx * 64;
        set[n++] = 0x10000000ull + idx * 64 + 40;
    }
    CHECK_EQ(heap_remap_end(&m, set, &n), 0);
    CHECK_EQ(n, 4 * 1600);
    size_t moved = 0;
    for (size_t i = 0; i < n; i++)
        moved += set[i] >= (1ull << 32);
    CHECK_EQ(moved, 4 * 1600 / 2);               /* the odd batches moved, the even ones survived in place */
    for (size_t i = 1; i < n; i++)
        CHECK(set[i - 1] < set[i]);
    heap_remap_destroy(&m);
    free(set);
}
