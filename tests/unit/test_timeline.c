/* test_timeline.c - the Trace Event Format writer (report/chrome.c) on
 * traces made by hand: slices that cross in the records (a CPU sample over a
 * JIT compilation, an exception that outlives the compilation it began in, a
 * catch left by a nested exception) come out strictly nested on their lane,
 * with a gap where one was cut, as a consumer needs; nothing is lost; the
 * exception lasts from its throw to its handled record. */
#include "unit.h"
#include "synth_trace.h"
#include "report/report.h"
#include "trace/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

typedef struct xslice { double ts, end; char name[96]; } xslice;

/* The X slices of the output (one event per line), in file order. */
static size_t slices_of(const char *json, xslice *v, size_t cap)
{
    size_t n = 0;
    for (const char *l = json; l && *l && n < cap; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *name = strstr(l, "\"name\":\""), *ts = strstr(l, "\"ts\":"), *dur = strstr(l, "\"dur\":");
        const char *nl = strchr(l, '\n');
        if (strncmp(l, "{\"ph\":\"X\"", 9) != 0 || !name || !ts || !dur || (nl && (ts > nl || dur > nl)))
            continue;
        v[n].ts = strtod(ts + 5, NULL);
        v[n].end = v[n].ts + strtod(dur + 6, NULL);
        sscanf(name + 8, "%95[^\"]", v[n].name);
        n++;
    }
    return n;
}

/* Whether the slices (one lane, sorted by start) nest strictly, as a
 * consumer adding floating-point durations sees them. */
static int nests(const xslice *v, size_t n)
{
    double stack[64];
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        while (depth && stack[depth - 1] <= v[i].ts)
            depth--;
        if (depth && v[i].end > stack[depth - 1])
            return 0;
        if (depth < 64)
            stack[depth++] = v[i].end;
    }
    return 1;
}

static const xslice *find(const xslice *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

TEST(timeline_slices_nest_on_their_lane)
{
    static const uint64_t spin[] = { 0x10 }, work[] = { 0x20 };
    synth s;
    rp_trace tr;
    char *json = NULL;
    size_t len = 0, n;
    xslice v[64];
    FILE *out;

    synth_begin(&s, "timeline");
    synth_name(&s, 0, 0x10, "App.Spin");
    synth_name(&s, 0, 0x20, "App.Work");
    synth_thread(&s, 0, 0xA, 1, "main");
    /* samples (10 ms period) from 0 to 40 ms: Spin, then Work */
    for (int k = 1; k <= 4; k++)
        synth_sample(&s, (uint64_t)k * 10 * MS, 0xA, 1, 10 * MS, k <= 2 ? spin : work, 1);
    /* a JIT compilation from 5 to 15 ms (across two samples) */
    synth_put(&s, 15 * MS, TK_JIT, &(rec_any){ .jit = { .function = 0x30, .module = 1, .duration_ns = 10 * MS,
                                                          .name = "App.Lazy" } });
    /* an exception thrown at 12 ms, inside the compilation, handled at 25 ms: it outlives it */
    synth_put(&s, 12 * MS, TK_EXCEPTION_THROWN, &(rec_any){ .exception_thrown = {
        .class_id = 0x99, .type = "System.InvalidOperationException", .exception = 1, .depth = 1,
        .message = "boom" } });
    synth_put(&s, 25 * MS, TK_EXCEPTION_HANDLED, &(rec_any){ .exception_handled = {
        .exception = 1, .catcher = 0x20, .il_offset = 7, .duration_ns = 13 * MS, .thrower = 0x10 } });
    /* a catch left by a nested exception: 3, thrown in 2's catch at 32 ms, escapes it */
    synth_put(&s, 30 * MS, TK_EXCEPTION_THROWN, &(rec_any){ .exception_thrown = {
        .class_id = 0x98, .type = "System.ArgumentException", .exception = 2, .depth = 1, .message = "a" } });
    synth_put(&s, 32 * MS, TK_EXCEPTION_THROWN, &(rec_any){ .exception_thrown = {
        .class_id = 0x97, .type = "System.FormatException", .exception = 3, .depth = 2, .parent = 2,
        .message = "b" } });
    synth_put(&s, 33 * MS, TK_EXCEPTION_HANDLED, &(rec_any){ .exception_handled = {
        .exception = 2, .catcher = 0x20, .duration_ns = 3 * MS, .escaped_by = 3 } });
    synth_put(&s, 36 * MS, TK_EXCEPTION_HANDLED, &(rec_any){ .exception_handled = {
        .exception = 3, .catcher = 0x20, .duration_ns = 4 * MS } });
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    out = open_memstream(&json, &len);
    CHECK_EQ(rp_write_chrome(&tr, out), 0);
    fclose(out);
    n = slices_of(json, v, 64);
    CHECK(strstr(json, "\"thread_name\",\"pid\":7,\"tid\":1,\"args\":{\"name\":\"main (1)\"}") != NULL);
    CHECK(nests(v, n));
    {
        const xslice *jit = find(v, n, "JIT App.Lazy"), *exc = find(v, n, "Exception: System.InvalidOperationException");
        const xslice *outer = find(v, n, "Exception: System.ArgumentException"),
                     *inner = find(v, n, "Exception: System.FormatException");
        CHECK(jit && exc && outer && inner);
        if (jit && exc && outer && inner) {
            CHECK(jit->ts == 5000.0 && jit->end == 15000.0);        /* the runtime's events as recorded */
            CHECK(exc->ts == 12000.0);
            CHECK(exc->end < 15000.0 && exc->end > 14999.99);       /* cut 1 ns before its parent's end */
            CHECK(strstr(json, "\"clipped\":true") != NULL);
            CHECK(outer->end < inner->ts && inner->ts - outer->end < 0.0011);   /* left at the nested throw */
            CHECK(inner->end == 36000.0);
            CHECK(strstr(json, "\"left at the throw of\":3") != NULL);
        }
        CHECK(find(v, n, "App.Spin") != NULL);                       /* samples kept where they fit */
        CHECK(find(v, n, "App.Work") != NULL);
    }
    CHECK(strstr(json, "\"name\":\"CPU samples per second\"") != NULL);
    CHECK(strstr(json, "\"message\":\"boom\"") != NULL);
    free(json);
    synth_done(&s, &tr);
}
