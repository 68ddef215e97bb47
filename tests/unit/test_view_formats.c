/* test_view_formats.c - every format on the allocation, live and
 * contention views of one trace made by hand, through `clrprobe report`
 * (cmd_report in this process): the text summary's sections and the
 * view's profile in its unit, collapsed counts, speedscope's unit and
 * title, jsonl's estimates, pprof's sample types (decoded), html's view
 * picker; "not upscaled" wherever tick figures are shown. */
#include "unit.h"
#include "pprof_decode.h"
#include "synth_trace.h"
#include "report/alloc_estimate.h"
#include "report/views.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t fill[] = { 0x501, 0x500 }, cache[] = { 0x502, 0x500 }, wait1[] = { 0x503, 0x500 };

/* Thread worker (101) allocates 10 System.Byte[] of 8192 bytes in
 * App.Fill (ids 1..10; 1..6 die in the GC at 500, 7 and 8 are alive after
 * it (at 850), 9 and 10 come after it); thread cache (102) 10 App.Entry of 48 bytes
 * in App.Add, not followed; two waits on System.Object in App.Take (3 ms
 * and 1 ms), one on an unknown lock (2 ms); two CPU samples of worker (the
 * second in the CPU view).  method:
 * ALLOC_METHOD_SAMPLED or _TICK (amount 102400). */
static void make(synth *s, const char *name, uint32_t method)
{
    static const uint64_t dead[] = { 1, 2, 3, 4, 5, 6 };
    rp_trace tr;

    synth_begin(s, name);
    synth_name(s, 1, 0x500, "App.Main");
    synth_name(s, 1, 0x501, "App.Fill");
    synth_name(s, 1, 0x502, "App.Add");
    synth_name(s, 1, 0x503, "App.Take");
    synth_thread(s, 2, 0xA0, 101, "worker");
    synth_thread(s, 2, 0xB0, 102, "cache");
    for (uint64_t i = 1; i <= 10; i++) {
        synth_alloc(s, i * 100, 0xA0, 101, method, "System.Byte[]", 8192, 1, 102400, i, fill, 2);
        synth_alloc(s, i * 100 + 1, 0xB0, 102, method, "App.Entry", 48, 1, 102400, 0, cache, 2);
    }
    synth_live_gc(s, 850, 1, 2, 0, dead, 6);
    synth_contention(s, 1100, 0xA0, 101, 3000000, "System.Object", wait1, 2);
    synth_contention(s, 1200, 0xB0, 102, 1000000, "System.Object", wait1, 2);
    synth_contention(s, 1300, 0xB0, 102, 2000000, "", wait1, 2);
    synth_sample(s, 1400, 0xA0, 101, 1000000, fill, 2);
    synth_sample(s, 1500, 0xA0, 101, 1000000, fill, 2);
    CHECK_EQ(synth_load(s, &tr), TRACE_OK);
    rp_free(&tr);
}

/* The estimates of the trace's sampled allocations, computed here. */
static double bytes_of(uint64_t size)
{
    return (double)size / (1.0 - pow(1.0 - 1.0 / 102400.0, (double)size));
}

static int run(const synth *s, const char *const *more, char **out, size_t *len, char **err)
{
    const char *args[16];
    int n = 0;
    args[n++] = s->path;
    for (; *more && n < 15; more++)
        args[n++] = *more;
    args[n] = NULL;
    return synth_report(args, out, len, err);
}

static void cleanup(synth *s)
{
    rp_trace none;
    memset(&none, 0, sizeof(none));
    synth_done(s, &none);
}

/* ---- text ---- */

TEST(view_formats_text_summary_sections)
{
    synth s;
    char *out, *err, want[256], b[32];
    size_t len;

    make(&s, "fmt-text", ALLOC_METHOD_SAMPLED);
    CHECK_EQ(run(&s, (const char *const[]){ NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\nWhere memory is allocated: ") != NULL);
    CHECK(strstr(out, "from 20 allocation samples") != NULL);
    CHECK(strstr(out, "  upscaled estimates (AllocationSampled") != NULL);
    rp_format_bytes((uint64_t)llround(10 * bytes_of(8192)), b, sizeof(b));
    snprintf(want, sizeof(want), "  %12s %6.1f%% %12.0f  System.Byte[] in App.Fill\n", b,
             100.0 * 10 * bytes_of(8192) / (10 * bytes_of(8192) + 10 * bytes_of(48)), 10 * bytes_of(8192) / 8192);
    CHECK(strstr(out, want) != NULL);
    CHECK(strstr(out, "  App.Entry in App.Add\n") != NULL);
    /* alive: 7 and 8, one GC survived each */
    CHECK(strstr(out, "\nWhat stays alive after the last GC (GC 1 at ") != NULL);
    CHECK(strstr(out, "from 2 of 10 followed allocation samples (upscaled)") != NULL);
    rp_format_bytes((uint64_t)llround(2 * bytes_of(8192)), b, sizeof(b));
    snprintf(want, sizeof(want), "  %12s %6.1f%% %12.0f %7d %8d  System.Byte[] in App.Fill\n", b, 100.0,
             2 * bytes_of(8192) / 8192, 1, 1);
    CHECK(strstr(out, want) != NULL);
    /* waits */
    CHECK(strstr(out, "\nWhere threads wait: 6.0 ms in 3 lock waits on 2 threads") != NULL);
    CHECK(strstr(out, "        4.0 ms   66.7%        2  lock System.Object in App.Take\n") != NULL);
    CHECK(strstr(out, "        2.0 ms   33.3%        1  App.Take (lock type unknown)\n") != NULL);
    /* the answers first: where time goes, then memory and waits; the trace's inventory after them */
    CHECK(strstr(out, "\nWhere time goes (CPU view") != NULL);
    CHECK(strstr(out, "Where time goes") < strstr(out, "Where memory is allocated"));
    CHECK(strstr(out, "Where memory is allocated") < strstr(out, "Where threads wait"));
    CHECK(strstr(out, "Events by kind") != NULL && strstr(out, "Where threads wait") < strstr(out, "Events by kind"));
    free(out);
    free(err);

    /* the thread filter applies to the sections too */
    CHECK_EQ(run(&s, (const char *const[]){ "--thread", "cache", "--view", "wall", NULL }, &out, &len, &err), 1);
    CHECK(strstr(err, "no thread matches 'cache'") != NULL);          /* (no CPU sample of cache) */
    free(out);
    free(err);
    CHECK_EQ(run(&s, (const char *const[]){ "--thread", "cache", "--view", "contention", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "Where threads wait: 3.0 ms in 2 lock waits on 1 thread asked for") != NULL);
    CHECK(strstr(out, "What stays alive: nothing to show: no allocation of the threads asked for was followed") != NULL);
    free(out);
    free(err);
    cleanup(&s);
}

TEST(view_formats_text_view_profiles)
{
    synth s;
    char *out, *err, want[256], b[32];
    size_t len;

    make(&s, "fmt-text-views", ALLOC_METHOD_SAMPLED);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "Where time goes") == NULL);
    CHECK(strstr(out, "\nThe alloc view (bytes allocated, from sampled allocations: 20 samples of 20)\n") != NULL);
    rp_format_bytes((uint64_t)llround(10 * bytes_of(8192) + 10 * bytes_of(48)), b, sizeof(b));
    snprintf(want, sizeof(want), "\n  %s allocated in ", b);
    CHECK(strstr(out, want) != NULL);
    CHECK(strstr(out, "Top frames by self bytes (the leaf of an allocation is its type):") != NULL);
    CHECK(strstr(out, "  System.Byte[]\n") != NULL);
    CHECK(strstr(out, "ms of CPU") == NULL && strstr(out, "s of CPU time") == NULL);
    CHECK(strstr(out, "Thread worker (101): 10 samples, ") != NULL);
    free(out);
    free(err);

    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc-count", NULL }, &out, &len, &err), 0);
    snprintf(want, sizeof(want), "\n  %.0f objects allocated (", 10 * bytes_of(8192) / 8192 + 10 * bytes_of(48) / 48);
    CHECK(strstr(out, want) != NULL);
    CHECK(strstr(out, "Top frames by self objects") != NULL);
    free(out);
    free(err);

    CHECK_EQ(run(&s, (const char *const[]){ "--view", "live", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\nThe live view (bytes of sampled objects alive after the last GC: 2 samples of 20)\n") != NULL);
    CHECK(strstr(out, " objects alive after GC 1 (at ") != NULL);
    free(out);
    free(err);

    CHECK_EQ(run(&s, (const char *const[]){ "--view", "contention", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\nThe contention view (time threads waited for locks: 3 samples of 3)\n  6.0 ms waited in 3 lock "
                      "waits on 2 threads") != NULL);
    CHECK(strstr(out, "      4.0 ms   66.7%      4.0 ms   66.7%  lock System.Object\n") != NULL);
    free(out);
    free(err);
    cleanup(&s);
}

TEST(view_formats_text_tick_says_not_upscaled)
{
    synth s;
    char *out, *err;
    size_t len;

    make(&s, "fmt-text-tick", ALLOC_METHOD_TICK);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\n  not upscaled (AllocationTick") != NULL);                 /* the summary */
    CHECK(strstr(out, "\n  2.0 MiB allocated in ") == NULL);
    CHECK(strstr(out, "1.95 MiB allocated in 5 objects") == NULL);
    CHECK(strstr(out, "\n  1.95 MiB allocated in 21458 objects") != NULL);       /* 20 x 102400; 10 x 12.5 + 10 x 2133.3 */
    CHECK(strstr(out, "(upscaled)") == NULL);
    CHECK(strstr(out, "(not upscaled)") != NULL);                                /* the live section */
    CHECK(strstr(err, "not upscaled") != NULL);
    free(out);
    free(err);
    cleanup(&s);
}

/* ---- collapsed ---- */

/* The count of the line for stack in collapsed output, or -1. */
static long long count_of_line(const char *out, const char *stack)
{
    size_t n = strlen(stack);
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, stack, n) == 0 && l[n] == ' ')
            return atoll(l + n + 1);
    return -1;
}

TEST(view_formats_collapsed_counts_in_the_unit)
{
    synth s;
    char *out, *err;
    size_t len;
    long long a, b;

    make(&s, "fmt-collapsed", ALLOC_METHOD_SAMPLED);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc", "-f", "collapsed", NULL }, &out, &len, &err), 0);
    a = count_of_line(out, "App.Main;App.Fill;System.Byte[]");
    b = count_of_line(out, "App.Main;App.Add;App.Entry");
    CHECK(llabs(a - llround(10 * bytes_of(8192))) <= 1);           /* bytes */
    CHECK(llabs(b - llround(10 * bytes_of(48))) <= 1);
    CHECK(llabs(a + b - llround(10 * bytes_of(8192) + 10 * bytes_of(48))) <= 1);
    free(out);
    free(err);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc-count", "-f", "collapsed", NULL }, &out, &len, &err), 0);
    a = count_of_line(out, "App.Main;App.Fill;System.Byte[]");
    CHECK(llabs(a - llround(10 * bytes_of(8192) / 8192)) <= 1);    /* objects */
    free(out);
    free(err);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "live", "-f", "collapsed", "--by-thread", NULL }, &out, &len,
                 &err), 0);
    a = count_of_line(out, "worker (101);App.Main;App.Fill;System.Byte[]");
    CHECK(llabs(a - llround(2 * bytes_of(8192))) <= 1);            /* 7 and 8 */
    CHECK(strstr(out, "App.Entry") == NULL);
    free(out);
    free(err);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "contention", "-f", "collapsed", NULL }, &out, &len, &err), 0);
    CHECK_EQ(count_of_line(out, "App.Main;App.Take;lock System.Object"), 4000000);   /* nanoseconds */
    CHECK_EQ(count_of_line(out, "App.Main;App.Take"), 2000000);
    free(out);
    free(err);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "wall", "-f", "collapsed", NULL }, &out, &len, &err), 0);
    CHECK_STR(out, "App.Main;App.Fill 2\n");                                      /* samples, as before */
    free(out);
    free(err);
    cleanup(&s);
}

/* ---- speedscope ---- */

/* The sum of the numbers after every occurrence of key in s. */
static long long sum_after(const char *s, const char *key)
{
    long long sum = 0;
    for (const char *q = strstr(s, key); q; q = strstr(q + 1, key))
        sum += atoll(q + strlen(key));
    return sum;
}

TEST(view_formats_speedscope_unit_and_title)
{
    synth s;
    char *out, *err, want[256], b[32];
    size_t len;
    double all = 10 * bytes_of(8192) + 10 * bytes_of(48);

    make(&s, "fmt-speedscope", ALLOC_METHOD_SAMPLED);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc", "-f", "speedscope", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\"unit\":\"bytes\"") != NULL && strstr(out, "\"unit\":\"nanoseconds\"") == NULL);
    CHECK(llabs(sum_after(out, "\"endValue\":") - llround(all)) <= 1);
    rp_format_bytes((uint64_t)llround(all), b, sizeof(b));
    snprintf(want, sizeof(want), "\"name\":\"clrprobe-unit-");
    CHECK(strstr(out, want) != NULL);
    snprintf(want, sizeof(want), ": alloc view: %s allocated in %.0f objects (upscaled); in ", b,
             10 * bytes_of(8192) / 8192 + 10 * bytes_of(48) / 48);
    CHECK(strstr(out, want) != NULL);
    CHECK(strstr(out, "{\"name\":\"System.Byte[]\"}") != NULL);
    free(out);
    free(err);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc-count", "-f", "speedscope", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\"unit\":\"none\"") != NULL);
    CHECK(strstr(out, ": alloc-count view: ") != NULL);
    free(out);
    free(err);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "live", "-f", "speedscope", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\"unit\":\"bytes\"") != NULL);
    CHECK(strstr(out, " objects alive after GC 1 (upscaled); in ") != NULL);
    CHECK(llabs(sum_after(out, "\"endValue\":") - llround(2 * bytes_of(8192))) <= 1);
    free(out);
    free(err);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "contention", "-f", "speedscope", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\"unit\":\"nanoseconds\"") != NULL);
    CHECK_EQ(sum_after(out, "\"endValue\":"), 6000000);
    CHECK(strstr(out, ": contention view: 6.0 ms waited in 3 lock waits; in ") != NULL);
    free(out);
    free(err);
    cleanup(&s);

    make(&s, "fmt-speedscope-tick", ALLOC_METHOD_TICK);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc", "-f", "speedscope", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, ": alloc view: 1.95 MiB allocated in 21458 objects (not upscaled); in ") != NULL);
    free(out);
    free(err);
    cleanup(&s);
}

/* ---- jsonl ---- */

/* The line of out of kind at time t, or NULL (a copy to free). */
static char *line_of(const char *out, const char *kind, uint64_t t)
{
    char want[96];
    const char *l, *nl;
    snprintf(want, sizeof(want), "{\"kind\":\"%s\",\"t\":%llu,", kind, (unsigned long long)t);
    if (!(l = strstr(out, want)))
        return NULL;
    nl = strchr(l, '\n');
    return strndup(l, nl ? (size_t)(nl - l) : strlen(l));
}

/* The number after "key": in line (-1 if absent). */
static double num_of(const char *line, const char *key)
{
    char want[64];
    const char *q;
    snprintf(want, sizeof(want), "\"%s\":", key);
    q = line ? strstr(line, want) : NULL;
    return q ? strtod(q + strlen(want), NULL) : -1;
}

TEST(view_formats_jsonl_records)
{
    synth s;
    char *out, *err, *l;
    size_t len;
    double bytes = 0, objects = 0;

    make(&s, "fmt-jsonl", ALLOC_METHOD_SAMPLED);
    CHECK_EQ(run(&s, (const char *const[]){ "-f", "jsonl", NULL }, &out, &len, &err), 0);
    l = line_of(out, "alloc_sample", 100);
    CHECK(l && strstr(l, "\"thread\":\"0xa0\",\"os_tid\":101,\"method\":\"sampled\",\"type\":\"System.Byte[]\","
                         "\"class_id\":\"0x7000\",\"size\":8192,\"count\":1,\"amount\":102400,\"id\":1,") != NULL);
    CHECK(fabs(num_of(l, "bytes") - bytes_of(8192)) < 0.001);
    CHECK(fabs(num_of(l, "objects") - bytes_of(8192) / 8192) < 0.001);
    CHECK(l && strstr(l, ",\"frames\":[\"App.Fill\",\"App.Main\"]}") != NULL);     /* names, leaf first */
    free(l);
    /* the estimates add up to the alloc view's total */
    for (const char *q = strstr(out, "\"kind\":\"alloc_sample\""); q; q = strstr(q + 1, "\"kind\":\"alloc_sample\"")) {
        bytes += num_of(q, "bytes");
        objects += num_of(q, "objects");
    }
    CHECK(fabs(bytes - (10 * bytes_of(8192) + 10 * bytes_of(48))) < 0.05);
    CHECK(fabs(objects - (10 * bytes_of(8192) / 8192 + 10 * bytes_of(48) / 48)) < 0.05);
    l = line_of(out, "live_gc", 850);
    CHECK(l && strstr(l, "\"gc\":1,\"alive\":2,\"more\":false,\"dead\":[1,2,3,4,5,6]}") != NULL);
    free(l);
    l = line_of(out, "contention", 1100);
    CHECK(l && strstr(l, "\"thread\":\"0xa0\",\"os_tid\":101,\"duration_ns\":3000000,\"lock\":\"managed\","
                         "\"type\":\"System.Object\",\"lock_id\":\"0x900\",\"owner_thread\":\"0x55\","
                         "\"frames\":[\"App.Take\",\"App.Main\"]}") != NULL);
    free(l);
    l = line_of(out, "sample", 1400);                            /* (as before) */
    CHECK(l && strstr(l, "\"cpu_ns\":1000000,\"frames\":[\"App.Fill\",\"App.Main\"]}") != NULL);
    free(l);
    free(out);
    free(err);
    cleanup(&s);

    make(&s, "fmt-jsonl-tick", ALLOC_METHOD_TICK);
    CHECK_EQ(run(&s, (const char *const[]){ "-f", "jsonl", NULL }, &out, &len, &err), 0);
    l = line_of(out, "alloc_sample", 101);
    CHECK(l && strstr(l, "\"method\":\"tick\"") != NULL);
    CHECK(l && strstr(l, "\"bytes\":102400,\"objects\":2133.333,") != NULL);
    free(l);
    free(out);
    free(err);
    cleanup(&s);
}

/* ---- pprof ---- */

/* report ARGS -f pprof, decoded into *d.  Returns 0, or -1 (with a failure). */
static int pprof_of(const synth *s, const char *view, dprof *d)
{
    char *out, *err;
    size_t len;
    int rc = run(s, (const char *const[]){ "--view", view, "-f", "pprof", NULL }, &out, &len, &err);

    CHECK_EQ(rc, 0);
    rc = decode_profile_gz(rc == 0 ? out : NULL, len, d);
    free(out);
    free(err);
    CHECK(!d->bad);
    return rc;
}

/* The sample whose leaf location's function is leaf. */
static const dsample *sample_with_leaf(const dprof *d, const char *leaf)
{
    for (int i = 0; i < d->nsamples; i++)
        if (d->samples[i].nloc && strcmp(fn_name_of_loc(d, d->samples[i].loc[0]), leaf) == 0)
            return &d->samples[i];
    return NULL;
}

TEST(view_formats_pprof_memory_sample_types)
{
    static const char *const types[][2] = { { "alloc_objects", "count" }, { "alloc_space", "bytes" },
                                            { "inuse_objects", "count" }, { "inuse_space", "bytes" } };
    static const struct { const char *view, *def; } views[] = {
        { "alloc", "alloc_space" }, { "alloc-count", "alloc_objects" }, { "live", "inuse_space" } };
    synth s;
    dprof d;

    make(&s, "fmt-pprof", ALLOC_METHOD_SAMPLED);
    for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
        const dsample *x;
        if (pprof_of(&s, views[v].view, &d) != 0)
            continue;
        CHECK_EQ(d.nst, 4);
        for (int t = 0; t < 4 && t < d.nst; t++) {
            CHECK_STR(str_at(&d, d.st_type[t]), types[t][0]);
            CHECK_STR(str_at(&d, d.st_unit[t]), types[t][1]);
        }
        CHECK_STR(str_at(&d, d.default_type), views[v].def);
        CHECK_STR(str_at(&d, d.pt_type), "space");
        CHECK_STR(str_at(&d, d.pt_unit), "bytes");
        CHECK_EQ(d.period, 102400);
        /* every allocation in alloc_*, the two alive in inuse_*, whatever the view */
        CHECK_EQ(d.nsamples, 2);
        x = sample_with_leaf(&d, "System.Byte[]");
        CHECK(x != NULL);
        if (x) {
            CHECK_EQ(x->nval, 4);
            CHECK(llabs(x->val[0] - llround(10 * bytes_of(8192) / 8192)) <= 1);
            CHECK(llabs(x->val[1] - llround(10 * bytes_of(8192))) <= 1);
            CHECK(llabs(x->val[2] - llround(2 * bytes_of(8192) / 8192)) <= 1);
            CHECK(llabs(x->val[3] - llround(2 * bytes_of(8192))) <= 1);
            CHECK_EQ(x->nloc, 3);
            if (x->nloc == 3) {
                CHECK_STR(fn_name_of_loc(&d, x->loc[1]), "App.Fill");
                CHECK_STR(fn_name_of_loc(&d, x->loc[2]), "App.Main");
            }
            CHECK_STR(str_at(&d, x->label_key[0]), "thread");
            CHECK_STR(str_at(&d, x->label_str[0]), "worker (101)");
        }
        x = sample_with_leaf(&d, "App.Entry");
        CHECK(x != NULL);
        if (x) {
            CHECK(llabs(x->val[1] - llround(10 * bytes_of(48))) <= 1);
            CHECK(x->val[2] == 0 && x->val[3] == 0);                /* not followed: never in use */
        }
        CHECK(strstr(str_at(&d, d.comment2), v == 2 ? " alive after GC 1" : " allocated ") != NULL);
        free_dprof(&d);
    }
    cleanup(&s);
}

TEST(view_formats_pprof_contention)
{
    synth s;
    dprof d;
    const dsample *x;

    make(&s, "fmt-pprof-contention", ALLOC_METHOD_SAMPLED);
    if (pprof_of(&s, "contention", &d) == 0) {
        CHECK_EQ(d.nst, 2);
        CHECK_STR(str_at(&d, d.st_type[0]), "contentions");
        CHECK_STR(str_at(&d, d.st_unit[0]), "count");
        CHECK_STR(str_at(&d, d.st_type[1]), "delay");
        CHECK_STR(str_at(&d, d.st_unit[1]), "nanoseconds");
        CHECK_STR(str_at(&d, d.default_type), "delay");
        CHECK_EQ(d.nsamples, 3);              /* (thread, stack): worker's lock, cache's lock, cache's unknown */
        x = sample_with_leaf(&d, "lock System.Object");
        CHECK(x != NULL);
        if (x)
            CHECK(x->nval == 2 && x->val[0] == 1 && (x->val[1] == 3000000 || x->val[1] == 1000000));
        {
            int64_t count = 0, ns = 0;
            for (int i = 0; i < d.nsamples; i++) {
                count += d.samples[i].val[0];
                ns += d.samples[i].val[1];
            }
            CHECK_EQ(count, 3);
            CHECK_EQ(ns, 6000000);
        }
        CHECK(strstr(str_at(&d, d.comment2), "6.0 ms waited in 3 lock waits") != NULL);
        free_dprof(&d);
    }
    cleanup(&s);

    make(&s, "fmt-pprof-tick", ALLOC_METHOD_TICK);
    if (pprof_of(&s, "alloc", &d) == 0) {
        CHECK(strstr(str_at(&d, d.comment2), "not upscaled (AllocationTick") != NULL);
        free_dprof(&d);
    }
    cleanup(&s);
}

/* ---- html ---- */

TEST(view_formats_html_view_picker_data)
{
    synth s;
    char *out, *err;
    size_t len;
    const char *views;

    make(&s, "fmt-html", ALLOC_METHOD_SAMPLED);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc", "-f", "html", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "{\"title\":\"clrprobe-unit-") != NULL);
    CHECK(strstr(out, "\"view\":\"alloc\",") != NULL);
    CHECK(strstr(out, "\"unit\":\"bytes\",\"counts\":\"bytes\",\"count_total\":") != NULL);
    CHECK(llabs((long long)num_of(strstr(out, "\"view\":\"alloc\","), "count_total") -
                llround(10 * bytes_of(8192) + 10 * bytes_of(48))) <= 1);
    views = strstr(out, "\n\"views\":[");
    CHECK(views != NULL);
    if (views) {                      /* the other views the trace has, in the table's order */
        const char *cpu = strstr(views, "\"view\":\"cpu\""), *wall = strstr(views, "\"view\":\"wall\"");
        const char *count = strstr(views, "\"view\":\"alloc-count\""), *live = strstr(views, "\"view\":\"live\"");
        const char *cont = strstr(views, "\"view\":\"contention\"");
        CHECK(cpu && wall && count && live && cont && cpu < wall && wall < count && count < live && live < cont);
        CHECK(strstr(views, "\"view\":\"alloc\"") == NULL);
        CHECK(count && strstr(count, "\"unit\":\"objects\",\"counts\":\"objects\"") == strstr(count, "\"unit\""));
        CHECK(cont && strstr(cont, "\"unit\":\"nanoseconds\",\"counts\":\"nanoseconds\",\"count_total\":6000000,")
                      == strstr(cont, "\"unit\""));
        /* a tree's root counts the thread's weight: worker waited 3 ms */
        CHECK(cont && strstr(cont, "\"weight\":3000000,\"tree\":[-1,3000000,") != NULL);
        CHECK(cpu && strstr(cpu, "\"unit\"") > wall);           /* (cpu counts samples: no unit of its own) */
    }
    CHECK(strstr(out, "\"totals\":[\"") != NULL);
    CHECK(strstr(out, "upscaled estimates (AllocationSampled") != NULL);
    CHECK(strstr(out, "id=\"viewpick\"") != NULL);
    free(out);
    free(err);
    /* the thread filter holds for every view: cache has no CPU sample, so no cpu or wall view */
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "contention", "--thread", "cache", "-f", "html", NULL }, &out,
                 &len, &err), 0);
    views = strstr(out, "\n\"views\":[");
    CHECK(views && strstr(views, "\"view\":\"cpu\"") == NULL && strstr(views, "\"view\":\"alloc\"") != NULL);
    CHECK(views && strstr(views, "\"view\":\"live\"") == NULL);       /* (none of cache's allocations followed) */
    free(out);
    free(err);
    cleanup(&s);

    make(&s, "fmt-html-tick", ALLOC_METHOD_TICK);
    CHECK_EQ(run(&s, (const char *const[]){ "--view", "alloc-count", "-f", "html", NULL }, &out, &len, &err), 0);
    CHECK(strstr(out, "\"totals\":[\"21458 objects allocated (1.95 MiB) over ") != NULL);
    CHECK(strstr(out, "\"not upscaled (AllocationTick") != NULL);
    free(out);
    free(err);
    cleanup(&s);
}

/* The trace of these tests at the path CLRPROBE_VIEWS_FIXTURE names, kept
 * (tests/e2e/test_views.sh opens its html page in Chromium); without it,
 * only made and read back. */
TEST(view_formats_fixture)
{
    const char *keep = getenv("CLRPROBE_VIEWS_FIXTURE");
    synth s;

    make(&s, "fmt-fixture", ALLOC_METHOD_SAMPLED);
    if (keep)
        CHECK_EQ(rename(s.path, keep), 0);
    else
        cleanup(&s);
}
