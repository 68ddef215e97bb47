/* test_views.c - the profile's allocation, live and contention views on
 * traces made by hand (synth_trace.h): the upscaled totals against the
 * formula computed here, tick and exact records, the live view's rules
 * (dead objects, objects allocated after the last GC, ages), lock waits,
 * the thread filter, and the table of views. */
#include "unit.h"
#include "synth_trace.h"
#include "report/alloc_estimate.h"
#include "report/profile.h"
#include "report/views.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t stack_fill[] = { 0x501, 0x500 };     /* App.Fill called by App.Main */
static const uint64_t stack_main[] = { 0x500 };

static void names(synth *s)
{
    synth_name(s, 1, 0x500, "App.Main");
    synth_name(s, 1, 0x501, "App.Fill");
    synth_thread(s, 2, 0xA0, 101, "worker");
    synth_thread(s, 2, 0xB0, 102, "other");
}

/* The frame names of a sample, leaf first, "a<b<c". */
static void leaf_first(const rp_profile *p, const rp_sample *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = s->nframes; k-- > 0 && used < len;)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k + 1 < s->nframes ? "<" : "",
                                 p->frames[s->frames[k]]);
}

TEST(views_alloc_upscaled_by_the_formula)
{
    synth s;
    rp_trace tr;
    rp_profile p;
    char stack[256];
    /* computed here independently: q^S with pow, not the report's expm1 */
    double q = 1.0 - 1.0 / 102400.0, sampled = 1.0 - pow(q, 1024.0);
    double want_bytes = 1000 * 1024 / sampled, want_objects = 1000 / sampled;

    synth_begin(&s, "views-alloc");
    names(&s);
    for (int i = 0; i < 1000; i++)
        synth_alloc(&s, 100 + (uint64_t)i, 0xA0, 101, ALLOC_METHOD_SAMPLED, "System.Byte[]", 1024, 1, 17, 0,
                    stack_fill, 2);
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);

    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_ALLOC, NULL, &p), 0);
    CHECK_EQ(p.nsamples, 1000);
    CHECK_EQ(p.total_samples, 1000);
    CHECK(fabs((double)rp_profile_total(&p) - want_bytes) <= 1.0);
    CHECK(fabs(want_bytes / 1000 - 1024 * 100.5) < 1024);   /* about 100.5 objects per sample */
    CHECK(fabs(p.bytes - want_bytes) < 1e-3 * want_bytes);
    CHECK_EQ(rp_profile_total(&p), rp_profile_count_total(&p));
    CHECK(rp_alloc_upscaled(p.alloc_methods));
    CHECK_STR(rp_alloc_scaling(p.alloc_methods, 0), "upscaled");
    CHECK_EQ(p.nthreads, 1);
    if (p.nthreads == 1) {
        CHECK_STR(p.threads[0].name, "worker (101)");
        CHECK_EQ(p.threads[0].weight, rp_profile_total(&p));
    }
    leaf_first(&p, &p.samples[0], stack, sizeof(stack));
    CHECK_STR(stack, "System.Byte[]<App.Fill<App.Main");    /* the type is the leaf frame */
    CHECK_EQ(p.samples[0].typed, 1);
    CHECK_EQ(p.duration_ns, 999);
    rp_profile_free(&p);

    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_ALLOC_COUNT, NULL, &p), 0);
    CHECK(fabs((double)rp_profile_total(&p) - want_objects) <= 1.0);
    {
        uint64_t sum = 0;                  /* whole weights that add up to the rounded sum */
        for (size_t i = 0; i < p.nsamples; i++) {
            sum += p.samples[i].weight;
            CHECK(p.samples[i].weight == 100 || p.samples[i].weight == 101);
        }
        CHECK_EQ(sum, rp_profile_total(&p));
    }
    rp_profile_free(&p);
    CHECK_EQ(rp_count_view_records(&tr, RP_VIEW_ALLOC), 1000);
    CHECK_EQ(rp_count_view_records(&tr, RP_VIEW_LIVE), 0);
    CHECK_EQ(rp_count_view_records(&tr, RP_VIEW_CPU), 0);
    synth_done(&s, &tr);
}

TEST(views_alloc_estimate_per_method)
{
    rec_alloc_sample r = { .method = ALLOC_METHOD_SAMPLED, .size = 102400 };
    double b, o;

    rp_alloc_estimate(&r, &b, &o);
    CHECK(fabs(o - 1.0 / (1.0 - pow(1.0 - 1.0 / 102400.0, 102400.0))) < 1e-9);   /* about 1.58 */
    CHECK(fabs(b - 102400 * o) < 1e-6);
    r = (rec_alloc_sample){ .method = ALLOC_METHOD_SAMPLED, .size = 0 };
    rp_alloc_estimate(&r, &b, &o);
    CHECK(b == 0 && o == 0);
    r = (rec_alloc_sample){ .method = ALLOC_METHOD_TICK, .size = 24, .amount = 102400 };
    rp_alloc_estimate(&r, &b, &o);
    CHECK(b == 102400 && fabs(o - 102400.0 / 24) < 1e-9);
    r = (rec_alloc_sample){ .method = ALLOC_METHOD_TICK, .size = 200000, .amount = 100000 };
    rp_alloc_estimate(&r, &b, &o);
    CHECK(b == 100000 && o == 1);                           /* at least the object itself */
    r = (rec_alloc_sample){ .method = ALLOC_METHOD_EXACT, .size = 240, .count = 10 };
    rp_alloc_estimate(&r, &b, &o);
    CHECK(b == 240 && o == 10);
    {
        rp_carry c = { 0 };
        uint64_t sum = 0;
        for (int i = 0; i < 10; i++)
            sum += rp_carry_round(&c, 1.58);
        CHECK_EQ(sum, 16);                                  /* 15.8 rounded, not 10 x 2 */
    }
}

TEST(views_tick_is_not_upscaled)
{
    synth s;
    rp_trace tr;
    rp_profile p;

    synth_begin(&s, "views-tick");
    names(&s);
    synth_alloc(&s, 100, 0xA0, 101, ALLOC_METHOD_TICK, "System.String", 24, 1, 102400, 0, stack_fill, 2);
    synth_alloc(&s, 200, 0xA0, 101, ALLOC_METHOD_TICK, "System.String", 24, 1, 204800, 0, stack_fill, 2);
    synth_alloc(&s, 300, 0xA0, 101, ALLOC_METHOD_EXACT, "App.Node", 480, 20, 0, 0, stack_main, 1);
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_ALLOC, NULL, &p), 0);
    CHECK_EQ(rp_profile_total(&p), 102400 + 204800 + 480);
    CHECK(!rp_alloc_upscaled(p.alloc_methods));
    CHECK_STR(rp_alloc_scaling(p.alloc_methods, 0), "not upscaled");
    CHECK(strstr(rp_alloc_scaling(p.alloc_methods, 1), "not upscaled (AllocationTick") != NULL);
    rp_profile_free(&p);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_ALLOC_COUNT, NULL, &p), 0);
    CHECK_EQ(rp_profile_total(&p), 12800 + 20);             /* 307200 / 24 + 20 */
    rp_profile_free(&p);
    CHECK_STR(rp_alloc_scaling(1u << ALLOC_METHOD_EXACT, 0), "exact");
    CHECK_STR(rp_alloc_scaling((1u << ALLOC_METHOD_EXACT) | (1u << ALLOC_METHOD_SAMPLED), 0), "upscaled");
    synth_done(&s, &tr);
}

/* Followed objects 1..6: 1 alive since before GC 1, 2 dead in GC 1, 3 dead
 * in GC 2 (its dead list split over two records), 4 allocated between the
 * GCs and alive, 5 allocated after the last GC, 6 alive and allocated by
 * the other thread; one more not followed (id 0). */
static void live_trace(synth *s)
{
    static const uint64_t dead1[] = { 2 }, dead2a[] = { 3 }, dead2b[] = { 77 };
    names(s);
    synth_alloc(s, 1000, 0xA0, 101, ALLOC_METHOD_SAMPLED, "System.Byte[]", 100000, 1, 0, 1, stack_fill, 2);
    synth_alloc(s, 1100, 0xA0, 101, ALLOC_METHOD_SAMPLED, "System.String", 64, 1, 0, 2, stack_fill, 2);
    synth_alloc(s, 1200, 0xA0, 101, ALLOC_METHOD_SAMPLED, "System.String", 64, 1, 0, 3, stack_main, 1);
    synth_alloc(s, 1300, 0xA0, 101, ALLOC_METHOD_SAMPLED, "System.String", 64, 1, 0, 0, stack_main, 1);
    synth_alloc(s, 1400, 0xB0, 102, ALLOC_METHOD_SAMPLED, "App.Node", 48, 1, 0, 6, stack_main, 1);
    synth_live_gc(s, 2000, 1, 4, 0, dead1, 1);
    synth_alloc(s, 3000, 0xA0, 101, ALLOC_METHOD_SAMPLED, "App.Node", 48, 1, 0, 4, stack_main, 1);
    synth_live_gc(s, 4000, 2, 3, 1, dead2a, 1);
    synth_live_gc(s, 4000, 2, 3, 0, dead2b, 1);
    synth_alloc(s, 5000, 0xA0, 101, ALLOC_METHOD_SAMPLED, "App.Node", 48, 1, 0, 5, stack_main, 1);
}

/* The sample of a profile that stands for the allocation at time t. */
static const rp_sample *at(const rp_profile *p, uint64_t t)
{
    for (size_t i = 0; i < p->nsamples; i++)
        if (p->samples[i].t == t)
            return &p->samples[i];
    return NULL;
}

TEST(views_live_keeps_what_was_alive_after_the_last_gc)
{
    synth s;
    rp_trace tr;
    rp_profile p;
    const rp_sample *x;
    double b1, b4, b6, o;

    synth_begin(&s, "views-live");
    live_trace(&s);
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_LIVE, NULL, &p), 0);
    CHECK_EQ(p.nsamples, 3);                                /* 1, 4 and 6 */
    CHECK(at(&p, 1000) && at(&p, 3000) && at(&p, 1400));
    CHECK(!at(&p, 1100) && !at(&p, 1200) && !at(&p, 1300) && !at(&p, 5000));
    CHECK_EQ(p.live_gcs, 2);                                /* two GCs, the second in two records */
    CHECK_EQ(p.live_last_gc, 2);
    CHECK_EQ(p.live_last_gc_t, 4000);
    CHECK_EQ(p.followed, 6);
    if ((x = at(&p, 1000)))
        CHECK_EQ(x->age, 2);
    if ((x = at(&p, 3000)))
        CHECK_EQ(x->age, 1);
    {
        rec_alloc_sample r = { .method = ALLOC_METHOD_SAMPLED, .size = 100000 };
        rp_alloc_estimate(&r, &b1, &o);
        r.size = 48;
        rp_alloc_estimate(&r, &b4, &o);
        b6 = b4;
        CHECK(fabs((double)rp_profile_total(&p) - (b1 + b4 + b6)) <= 1.0);
    }
    CHECK(rp_live_empty_reason(&p) == NULL);
    rp_profile_free(&p);

    /* the alloc view keeps every sample, with the ages of the dead */
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_ALLOC, NULL, &p), 0);
    CHECK_EQ(p.nsamples, 7);
    if ((x = at(&p, 1100)))
        CHECK(x->age == 0 && !x->live);                     /* died in the first GC after it */
    if ((x = at(&p, 1200)))
        CHECK(x->age == 1 && !x->live);                     /* survived GC 1, died in GC 2 */
    if ((x = at(&p, 5000)))
        CHECK(x->age == 0 && !x->live);
    if ((x = at(&p, 1000)))
        CHECK(x->age == 2 && x->live);
    CHECK(rp_live_empty_reason(&p) == NULL);
    rp_profile_free(&p);

    /* the thread filter */
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_LIVE, "other", &p), 0);
    CHECK_EQ(p.nsamples, 1);
    CHECK(fabs((double)rp_profile_total(&p) - b6) <= 1.0);
    CHECK_EQ(p.filter_matched, 1);
    rp_profile_free(&p);
    CHECK_EQ(rp_count_view_records(&tr, RP_VIEW_LIVE), 6);
    synth_done(&s, &tr);
}

TEST(views_live_empty_says_why)
{
    synth s;
    rp_trace tr;
    rp_profile p;

    synth_begin(&s, "views-live-empty");
    names(&s);
    synth_alloc(&s, 100, 0xA0, 101, ALLOC_METHOD_SAMPLED, "System.String", 64, 1, 0, 0, stack_main, 1);
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_LIVE, NULL, &p), 0);
    CHECK_EQ(p.nsamples, 0);
    CHECK(rp_live_empty_reason(&p) && strstr(rp_live_empty_reason(&p), "not followed") != NULL);
    rp_profile_free(&p);
    synth_done(&s, &tr);

    synth_begin(&s, "views-live-nogc");
    names(&s);
    synth_alloc(&s, 100, 0xA0, 101, ALLOC_METHOD_SAMPLED, "System.String", 64, 1, 0, 1, stack_main, 1);
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_LIVE, NULL, &p), 0);
    CHECK_EQ(p.nsamples, 0);
    CHECK(rp_live_empty_reason(&p) && strstr(rp_live_empty_reason(&p), "no GC was seen") != NULL);
    rp_profile_free(&p);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CPU, NULL, &p), 0);
    CHECK(rp_live_empty_reason(&p) == NULL);                /* (not an allocation view) */
    CHECK_EQ(p.nsamples, 0);
    rp_profile_free(&p);
    synth_done(&s, &tr);
}

TEST(views_contention_waits_with_the_lock_type)
{
    synth s;
    rp_trace tr;
    rp_profile p;
    char stack[256];
    const rp_sample *x;

    synth_begin(&s, "views-contention");
    names(&s);
    synth_contention(&s, 100, 0xA0, 101, 5000000, "System.Object", stack_fill, 2);
    synth_contention(&s, 200, 0xB0, 102, 3000000, "System.Object", stack_fill, 2);
    synth_contention(&s, 300, 0xB0, 102, 1000000, "", stack_main, 1);
    synth_sample(&s, 400, 0xB0, 102, 1000, stack_main, 1);  /* (CPU samples are not in this view) */
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CONTENTION, NULL, &p), 0);
    CHECK_EQ(p.nsamples, 3);
    CHECK_EQ(p.total_samples, 3);
    CHECK_EQ(rp_profile_total(&p), 9000000);
    CHECK_EQ(rp_profile_count_total(&p), 9000000);
    CHECK_EQ(p.duration_ns, 5000000);                        /* to the end of the wait that ends last */
    if ((x = at(&p, 100))) {
        leaf_first(&p, x, stack, sizeof(stack));
        CHECK_STR(stack, "lock System.Object<App.Fill<App.Main");
        CHECK_EQ(x->typed, 1);
        CHECK_EQ(rp_sample_weight(&p, x), 5000000);
    }
    if ((x = at(&p, 300))) {
        leaf_first(&p, x, stack, sizeof(stack));
        CHECK_STR(stack, "App.Main");                        /* an unknown lock type adds no frame */
        CHECK_EQ(x->typed, 0);
    }
    CHECK_EQ(p.nthreads, 2);
    if (p.nthreads == 2)
        CHECK_EQ(p.threads[1].weight, 4000000);
    rp_profile_free(&p);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CONTENTION, "101", &p), 0);
    CHECK_EQ(rp_profile_total(&p), 5000000);
    rp_profile_free(&p);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CPU, NULL, &p), 0);
    CHECK_EQ(p.total_samples, 1);                            /* the CPU views see the sample only */
    rp_profile_free(&p);
    synth_done(&s, &tr);
}

TEST(views_live_ages_count_gcs_a_record_stands_for)
{
    /* the tracker looked after GC 1, then after GCs 2-4 (one record for
     * three GCs), then after GC 5 */
    static const uint64_t dead3[] = { 2 }, none[] = { 0 };
    synth s;
    rp_trace tr;
    rp_profile p;
    const rp_sample *x;

    synth_begin(&s, "views-ages");
    names(&s);
    synth_alloc(&s, 1000, 0xA0, 101, ALLOC_METHOD_SAMPLED, "App.Node", 48, 1, 0, 1, stack_main, 1);
    synth_alloc(&s, 1100, 0xA0, 101, ALLOC_METHOD_SAMPLED, "App.Node", 48, 1, 0, 2, stack_main, 1);
    synth_live_gc(&s, 2000, 1, 2, 0, none, 0);
    synth_alloc(&s, 3000, 0xA0, 101, ALLOC_METHOD_SAMPLED, "App.Node", 48, 1, 0, 3, stack_main, 1);
    synth_live_gc(&s, 4000, 4, 2, 0, none, 0);
    synth_live_gc(&s, 6000, 5, 2, 0, dead3, 1);
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_ALLOC, NULL, &p), 0);
    if ((x = at(&p, 1000)))
        CHECK_EQ(x->age, 5);                                /* alive through GCs 1 to 5 */
    if ((x = at(&p, 1100)))
        CHECK_EQ(x->age, 4);                                /* through 1 to 4, dead in 5 */
    if ((x = at(&p, 3000)))
        CHECK_EQ(x->age, 2);                                /* after GC 1: GC 4 is known to follow it, then 5 */
    rp_profile_free(&p);
    synth_done(&s, &tr);
}

TEST(views_contention_of_a_lock_object_the_runtime_would_not_name)
{
    /* a System.Threading.Lock wait as the agent records it: no type, the
     * stack taken where the event is raised (NativeRuntimeEventSource), the
     * Lock's own methods under it, then the waiting function */
    static const uint64_t raised[] = { 0x910, 0x920, 0x930, 0x501, 0x500 };
    synth s;
    rp_trace tr;
    rp_profile p;
    char stack[256];
    const rp_sample *x;

    synth_begin(&s, "views-lock");
    names(&s);
    synth_name(&s, 1, 0x910, "System.Diagnostics.Tracing.NativeRuntimeEventSource.ContentionStart");
    synth_name(&s, 1, 0x920, "System.Threading.Lock.TryEnterSlow");
    synth_name(&s, 1, 0x930, "System.Threading.Lock.EnterScope");
    synth_contention(&s, 100, 0xA0, 101, 7000000, "", raised, 5);
    synth_contention(&s, 200, 0xA0, 101, 2000000, "", raised + 1, 4);
    synth_contention(&s, 300, 0xA0, 101, 1000000, "", raised, 1);    /* nothing but the raising frame */
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CONTENTION, NULL, &p), 0);
    CHECK_EQ(p.nsamples, 3);
    if ((x = at(&p, 100))) {
        leaf_first(&p, x, stack, sizeof(stack));
        CHECK_STR(stack, "lock System.Threading.Lock<System.Threading.Lock.TryEnterSlow<System.Threading.Lock.EnterScope"
                         "<App.Fill<App.Main");
    }
    if ((x = at(&p, 200))) {
        leaf_first(&p, x, stack, sizeof(stack));
        CHECK_STR(stack, "lock System.Threading.Lock<System.Threading.Lock.TryEnterSlow<System.Threading.Lock.EnterScope"
                         "<App.Fill<App.Main");
    }
    if ((x = at(&p, 300))) {                                 /* (kept: it is all there is) */
        leaf_first(&p, x, stack, sizeof(stack));
        CHECK_STR(stack, "System.Diagnostics.Tracing.NativeRuntimeEventSource.ContentionStart");
    }
    rp_profile_free(&p);
    synth_done(&s, &tr);
}

TEST(views_table)
{
    char names_buf[128];

    for (int v = 0; v < RP_VIEW_COUNT; v++) {
        CHECK_EQ(rp_views[v].view, v);
        CHECK(rp_view_find(rp_views[v].name) == &rp_views[v]);
        CHECK(rp_views[v].unit && rp_views[v].title && rp_views[v].counts && rp_views[v].records &&
              rp_views[v].collect && rp_views[v].pprof_type);
    }
    CHECK(rp_view_find("nosuch") == NULL);
    rp_view_names(names_buf, sizeof(names_buf), ", ");
    CHECK_STR(names_buf, "cpu, wall, alloc, alloc-count, live, contention, exceptions");
    CHECK_STR(rp_view_of(RP_VIEW_EXCEPTIONS)->unit, "exceptions");
    CHECK_STR(rp_view_of(RP_VIEW_ALLOC)->unit, "bytes");
    CHECK_STR(rp_view_of(RP_VIEW_ALLOC_COUNT)->unit, "objects");
    CHECK_STR(rp_view_of(RP_VIEW_CONTENTION)->unit, "nanoseconds");
    rp_view_format(RP_VIEW_ALLOC, 3u << 20, names_buf, sizeof(names_buf));
    CHECK_STR(names_buf, "3.00 MiB");
    rp_view_format(RP_VIEW_ALLOC_COUNT, 12, names_buf, sizeof(names_buf));
    CHECK_STR(names_buf, "12 objects");
    rp_view_format(RP_VIEW_CONTENTION, 2500000, names_buf, sizeof(names_buf));
    CHECK_STR(names_buf, "2.5 ms");
}
