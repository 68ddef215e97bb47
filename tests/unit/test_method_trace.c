/* test_method_trace.c - the pure parts of method tracing: the --trace
 * pattern grammar and matching, and the latency histogram (bucket bounds,
 * the 3.2% bound on a bucket's value, quantiles against exact ones from
 * known data, the record encoding and merging). */
#include "unit.h"
#include "common/latency_hist.h"
#include "common/method_pattern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int matches(const char *patterns, const char *name)
{
    mp_list l;
    char err[256];
    if (mp_parse(patterns, &l, err, sizeof(err)) < 0)
        return -1;
    return mp_match(&l, name);
}

static int refused(const char *patterns, const char *fragment)
{
    mp_list l;
    char err[256] = "";
    return mp_parse(patterns, &l, err, sizeof(err)) < 0 && strstr(err, fragment) != NULL;
}

TEST(trace_patterns_exact_type_and_namespace)
{
    CHECK_EQ(1, matches("Shop.Cart.Add", "Shop.Cart.Add"));
    CHECK_EQ(0, matches("Shop.Cart.Add", "Shop.Cart.AddRange"));
    CHECK_EQ(0, matches("Shop.Cart.Add", "Shop.Carts.Add"));
    CHECK_EQ(1, matches("Shop.Cart.*", "Shop.Cart.AddRange"));
    CHECK_EQ(0, matches("Shop.Cart.*", "Shop.CartItem.Get"));
    CHECK_EQ(1, matches("Shop.*", "Shop.Orders.Order.Place"));
    CHECK_EQ(0, matches("Shop.*", "ShopFront.Home.Index"));
    CHECK_EQ(2, matches("A.B.C, Shop.*", "Shop.X.Y"));
    CHECK_EQ(1, matches("*.Tiny", "Sample.CallsScenario.Tiny"));
}

TEST(trace_patterns_ignore_generic_arguments_and_nesting)
{
    CHECK_EQ(1, matches("Shop.Box.Map", "Shop.Box<System.Int32>.Map<System.String>"));
    CHECK_EQ(1, matches("Shop.Box<T>.Map", "Shop.Box<System.Collections.Generic.List<System.Int32>>.Map"));
    CHECK_EQ(1, matches("Shop.Box`1.Map", "Shop.Box<System.Int32>.Map"));
    CHECK_EQ(1, matches("Shop.Outer.Inner.Run", "Shop.Outer+Inner.Run"));
    CHECK_EQ(1, matches("Shop.Outer+Inner.*", "Shop.Outer+Inner.Run"));
    CHECK_EQ(2, matches("Shop.Dict<K, V>.Get, X.Y", "X.Y"));    /* a comma inside <> is not a separator */
}

TEST(trace_patterns_refused)
{
    CHECK(refused("", "empty pattern"));
    CHECK(refused("A.B,,C.D", "empty pattern"));
    CHECK(refused("A..B", "empty part"));
    CHECK(refused(".A.B", "empty part"));
    CHECK(refused("A.B.", "empty part"));
    CHECK(refused("Method", "names no type"));
    CHECK(refused("A.B(int)", "character"));
    CHECK(refused("A.B;rm", "character"));
}

TEST(latency_buckets_bound_their_values)
{
    for (unsigned i = 0; i + 1 < LH_BUCKETS; i++) {
        CHECK(lh_low(i) < lh_high(i));
        CHECK_EQ(lh_high(i), lh_low(i + 1));
    }
    /* every value lands in the bucket whose bounds hold it, and the
     * bucket's value is within 1/32 of it */
    for (uint64_t v = 0; v < (1ull << 41); v = v < 100 ? v + 1 : v + v / 7 + 3) {
        unsigned b = lh_bucket(v);
        CHECK(b < LH_BUCKETS);
        CHECK(lh_low(b) <= v && v < lh_high(b));
        CHECK(fabs((double)lh_value(b) - (double)v) <= (double)v / 32 + 0.5);
    }
    CHECK_EQ(LH_BUCKETS - 1, lh_bucket(UINT64_MAX));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

TEST(latency_quantiles_match_exact_ones_within_5_percent)
{
    enum { N = 20000 };
    static uint64_t v[N];
    static uint32_t counts[LH_BUCKETS];
    const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
    uint64_t max = 0;

    srand(7);
    memset(counts, 0, sizeof(counts));
    for (int i = 0; i < N; i++) {
        /* a long tail: mostly ~200 ns, some ~50 us, a few ~20 ms */
        int r = rand() % 1000;
        v[i] = r < 900 ? 150 + (uint64_t)(rand() % 100) : r < 995 ? 40000 + (uint64_t)(rand() % 20000)
                                                                    : 15000000 + (uint64_t)(rand() % 10000000);
        counts[lh_bucket(v[i])]++;
        if (v[i] > max)
            max = v[i];
    }
    qsort(v, N, sizeof(v[0]), cmp_u64);
    for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
        size_t rank = (size_t)ceil(qs[k] * N);
        uint64_t exact = v[rank - 1], got = lh_quantile(counts, qs[k], max);
        CHECK(fabs((double)got - (double)exact) <= 0.05 * (double)exact);
    }
    CHECK_EQ(max, lh_quantile(counts, 1.0, max));
    memset(counts, 0, sizeof(counts));
    CHECK_EQ(0, lh_quantile(counts, 0.5, 0));
}

TEST(latency_encoding_round_trips_and_merges)
{
    static uint32_t a[LH_BUCKETS], b[LH_BUCKETS], sum[LH_BUCKETS];
    uint8_t enc[LH_ENCODED_MAX];
    size_t n;

    memset(a, 0, sizeof(a));
    memset(sum, 0, sizeof(sum));
    a[0] = 1;
    a[17] = 5;
    a[LH_BUCKETS - 1] = 70000;
    n = lh_encode(a, enc, sizeof(enc));
    CHECK_EQ(18u, n);
    CHECK_EQ(0, lh_decode_add(enc, n, sum));
    CHECK_EQ(0, lh_decode_add(enc, n, sum));      /* merged twice: doubled */
    CHECK_EQ(2u, sum[0]);
    CHECK_EQ(10u, sum[17]);
    CHECK_EQ(140000u, sum[LH_BUCKETS - 1]);
    /* malformed: a length that is no whole entry, an index out of range,
     * indexes not increasing */
    memset(b, 0, sizeof(b));
    CHECK_EQ(-1, lh_decode_add(enc, n - 1, b));
    enc[0] = 0xff;
    enc[1] = 0xff;
    CHECK_EQ(-1, lh_decode_add(enc, n, b));
    enc[0] = 17;
    enc[1] = 0;
    CHECK_EQ(-1, lh_decode_add(enc, n, b));
}

/* ---- the report: a trace made by hand ---- */

#include "report/method_stats.h"
#include "synth_trace.h"
#include "trace/format.h"

/* n durations of d ns into an encoded histogram (buf of LH_ENCODED_MAX). */
static uint16_t hist_of(uint8_t *buf, const uint64_t *d, size_t n)
{
    static uint32_t counts[LH_BUCKETS];
    memset(counts, 0, sizeof(counts));
    for (size_t i = 0; i < n; i++)
        counts[lh_bucket(d[i])]++;
    return (uint16_t)lh_encode(counts, buf, LH_ENCODED_MAX);
}

static void put_stats(synth *s, uint64_t t, uint32_t os_tid, uint64_t fn, const uint64_t *d, size_t n,
                      uint64_t exceptions)
{
    static uint8_t enc[LH_ENCODED_MAX];
    uint64_t total = 0, max = 0;
    for (size_t i = 0; i < n; i++) {
        total += d[i];
        max = d[i] > max ? d[i] : max;
    }
    synth_put(s, t, TK_METHOD_STATS, &(rec_any){ .method_stats = {
        .thread = 0x100 + os_tid, .os_tid = os_tid, .function = fn, .calls = n, .exceptions = exceptions,
        .total_ns = total, .self_ns = total / 2, .max_ns = max, .histogram = enc,
        .histogram_len = hist_of(enc, d, n) } });
}

TEST(traced_methods_last_record_per_thread_merged)
{
    synth s;
    rp_trace tr;
    rp_mstats m;
    static uint64_t fast[1000], slow[10];

    for (int i = 0; i < 1000; i++)
        fast[i] = 100 + (uint64_t)i % 10;        /* 100..109 ns */
    for (int i = 0; i < 10; i++)
        slow[i] = 10000000;                      /* 10 ms */
    synth_begin(&s, "traced");
    synth_put(&s, 1000, TK_TRACED_METHOD, &(rec_any){ .traced_method = {
        .function = 0xf1, .module = 0x10, .how = TRACE_HOW_HOOKS, .pattern = 1, .name = "App.Work.Tiny",
        .reason = "" } });
    synth_put(&s, 1000, TK_TRACED_METHOD, &(rec_any){ .traced_method = {
        .function = 0xf2, .module = 0x10, .how = TRACE_HOW_HOOKS, .pattern = 1, .name = "App.Work.Slow",
        .reason = "" } });
    synth_put(&s, 1000, TK_TRACED_METHOD, &(rec_any){ .traced_method = {
        .function = 0xf3, .module = 0x10, .how = TRACE_HOW_NONE, .pattern = 1, .name = "App.Work.Pre",
        .reason = "precompiled (ReadyToRun) code has no hooks; --trace-r2r" } });
    put_stats(&s, 2000, 7, 0xf1, fast, 500, 0);           /* an earlier snapshot: replaced */
    put_stats(&s, 3000, 7, 0xf1, fast, 1000, 0);
    put_stats(&s, 3000, 8, 0xf1, fast, 1000, 3);
    put_stats(&s, 3000, 8, 0xf2, slow, 10, 0);
    synth_put(&s, 4000000000ull, TK_NOTE, &(rec_any){ .note = { .text = "end" } });
    CHECK_EQ(TRACE_OK, synth_load(&s, &tr));
    CHECK_EQ(0, rp_mstats_build(&tr, &m));
    CHECK_EQ(3u, m.nper_thread);
    CHECK_EQ(2u, m.nmerged);
    CHECK_EQ(1u, m.nuntraced);
    CHECK_STR("App.Work.Slow", m.merged[0].name);           /* 100 ms in all: first */
    CHECK_EQ(10u, m.merged[0].calls);
    CHECK_EQ(10000000u, m.merged[0].p99_ns);
    CHECK_STR("App.Work.Tiny", m.merged[1].name);
    CHECK_EQ(2000u, m.merged[1].calls);                     /* 1000 + 1000: not the replaced 500 */
    CHECK_EQ(3u, m.merged[1].exceptions);
    CHECK_EQ(2u, m.merged[1].threads);
    CHECK(m.merged[1].p50_ns >= 100 && m.merged[1].p50_ns <= 109);
    CHECK_EQ(109u, m.merged[1].max_ns);
    rp_mstats_free(&m);
    synth_done(&s, &tr);
}

TEST(traced_methods_in_text_and_jsonl)
{
    synth s;
    rp_trace tr;
    static uint64_t d[4] = { 1000, 2000, 3000, 4000 };
    char *out = NULL, *err = NULL;
    size_t outlen;

    synth_begin(&s, "traced2");
    synth_put(&s, 1000, TK_TRACED_METHOD, &(rec_any){ .traced_method = {
        .function = 0xf1, .module = 0x10, .how = TRACE_HOW_HOOKS, .pattern = 1, .name = "App.Work.Tiny",
        .reason = "" } });
    synth_put(&s, 1000, TK_TRACED_METHOD, &(rec_any){ .traced_method = {
        .function = 0xf3, .module = 0x10, .how = TRACE_HOW_NONE, .pattern = 1, .name = "App.Work.Pre",
        .reason = "precompiled" } });
    put_stats(&s, 3000, 7, 0xf1, d, 4, 1);
    synth_put(&s, 5000, TK_CALL, &(rec_any){ .call = { .thread = 0x107, .os_tid = 7, .function = 0xf1,
                                                        .duration_ns = 4000, .depth = 0,
                                                        .flags = CALL_FLAG_EXCEPTION } });
    synth_put(&s, 10000000, TK_NOTE, &(rec_any){ .note = { .text = "end" } });
    CHECK_EQ(TRACE_OK, synth_load(&s, &tr));
    {
        const char *args[] = { s.path, NULL };
        CHECK_EQ(0, synth_report(args, &out, &outlen, &err));
        CHECK(strstr(out, "Traced methods") != NULL);
        CHECK(strstr(out, "App.Work.Tiny (1 left by an exception)") != NULL);
        CHECK(strstr(out, "not traced: App.Work.Pre (precompiled)") != NULL);
        CHECK(strstr(out, "calls logged one by one: 1") != NULL);
        free(out);
        free(err);
    }
    {
        const char *args[] = { s.path, "--format", "jsonl", NULL };
        CHECK_EQ(0, synth_report(args, &out, &outlen, &err));
        CHECK(strstr(out, "\"function\":\"App.Work.Tiny\",\"id\":\"0xf1\","
                          "\"thread\":\"0x107\",\"os_tid\":7,\"calls\":4,\"exceptions\":1,\"total_ns\":10000,"
                          "\"self_ns\":5000,\"p50_ns\":2") != NULL);
        CHECK(strstr(out, "\"thread\":\"all\",\"threads\":1,\"calls\":4") != NULL);
        CHECK(strstr(out, "\"kind\":\"call\",\"t\":5000,\"tid\":") != NULL);
        CHECK(strstr(out, "\"function\":\"App.Work.Tiny\",\"thread\":\"0x107\",\"os_tid\":7,\"duration_ns\":4000,"
                          "\"depth\":0,\"exception\":true") != NULL);
        CHECK(strstr(out, "\"kind\":\"traced_method\"") != NULL);
        CHECK(strstr(out, "\"how\":\"none\",\"pattern\":1,\"reason\":\"precompiled\"") != NULL);
        free(out);
        free(err);
    }
    synth_done(&s, &tr);
}

TEST(traced_methods_overloads_told_apart)
{
    synth s;
    rp_trace tr;
    rp_mstats m;
    static uint64_t d[2] = { 100, 200 };

    synth_begin(&s, "overloads");
    synth_put(&s, 1000, TK_TRACED_METHOD, &(rec_any){ .traced_method = {
        .function = 0xa1, .module = 0x10, .how = TRACE_HOW_IL, .pattern = 1, .name = "App.Run", .reason = "" } });
    synth_put(&s, 1001, TK_TRACED_METHOD, &(rec_any){ .traced_method = {
        .function = 0xa2, .module = 0x10, .how = TRACE_HOW_IL, .pattern = 1, .name = "App.Run", .reason = "" } });
    synth_put(&s, 1002, TK_TRACED_METHOD, &(rec_any){ .traced_method = {
        .function = 0xa3, .module = 0x10, .how = TRACE_HOW_IL, .pattern = 1, .name = "App.Other", .reason = "" } });
    put_stats(&s, 3000, 7, 0xa1, d, 2, 0);
    put_stats(&s, 3000, 7, 0xa2, d, 1, 0);
    put_stats(&s, 3000, 7, 0xa3, d, 1, 0);
    CHECK_EQ(TRACE_OK, synth_load(&s, &tr));
    CHECK_EQ(0, rp_mstats_build(&tr, &m));
    CHECK_EQ(3u, m.nmerged);
    for (size_t i = 0; i < m.nmerged; i++) {
        if (m.merged[i].function == 0xa1)
            CHECK_STR("App.Run [overload 1 of 2]", m.merged[i].name);
        else if (m.merged[i].function == 0xa2)
            CHECK_STR("App.Run [overload 2 of 2]", m.merged[i].name);
        else
            CHECK_STR("App.Other", m.merged[i].name);
    }
    rp_mstats_free(&m);
    synth_done(&s, &tr);
}
