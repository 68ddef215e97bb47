/* test_gc_timeline.c - the GC timeline of a synthetic trace
 * (report/gc_timeline.h) and the text report's GC section made from it:
 * counts and pauses per generation (a GC's pause is the GC suspension
 * around its start; profiler suspensions are not pauses), the share of the
 * wall time paused, the heap at the start, peak and end, a GC without sizes
 * (an older agent) left out of those, and pauses from start..end when no
 * suspension was recorded. */
#include "unit.h"
#include "report/gc_timeline.h"
#include "report/model.h"
#include "report/profile.h"
#include "report/report.h"
#include "trace/format.h"
#include "trace/writer.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull
/* COR_PRF_SUSPEND_REASON */
#define SUSPEND_GC 1
#define SUSPEND_GC_PREP 7
#define SUSPEND_PROFILER 8

static trace_writer *w;
static trace_buffer *buf;

static void begin(const char *path)
{
    trace_header_info h = { 7, 0, 0, 1000, "10.0.0", "test" };
    char err[256];
    CHECK_EQ(trace_writer_open(&w, unit_create_file(path), path, &h, err, sizeof(err)), 0);
    buf = trace_writer_buffer_get(w);
}

static void put(uint64_t t, int kind, const rec_any *v)
{
    trace_rec r;
    trace_rec_begin(&r, trace_buffer_begin(buf), TRACE_MAX_RECORD, kind, 1, t);
    rec_put(&r, kind, v);
    trace_buffer_end(buf, trace_rec_finish(&r));
}

/* One GC: start at t with sizes b (NULL: none), end at end with sizes a;
 * suspension [t - before, end + after) of reason (0: none recorded). */
static void gc(uint64_t t, uint64_t end, uint32_t gens, uint32_t reason, const uint64_t *b, const uint64_t *a,
               uint32_t suspend_reason, uint64_t before, uint64_t after)
{
    static const uint64_t z[5];
    if (!b) b = z;
    if (!a) a = z;
    put(t, TK_GC_START, &(rec_any){ .gc_start = { .generations = gens, .reason = reason, .gen0_bytes = b[0],
        .gen1_bytes = b[1], .gen2_bytes = b[2], .loh_bytes = b[3], .poh_bytes = b[4] } });
    put(end, TK_GC_END, &(rec_any){ .gc_end = { .gen0_bytes = a[0], .gen1_bytes = a[1], .gen2_bytes = a[2],
        .loh_bytes = a[3], .poh_bytes = a[4] } });
    if (suspend_reason)
        put(end + after, TK_SUSPEND, &(rec_any){ .suspend = { .reason = suspend_reason,
            .duration_ns = end + after - (t - before) } });
}

static char *text_of(const rp_trace *tr)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    CHECK_EQ(rp_write_text(tr, "t.clrp", f), 0);
    fclose(f);
    return out;
}

TEST(gc_timeline_figures_and_text_section)
{
    char path[128], err[256], *txt;
    rp_trace tr;
    rp_gc_timeline tl;
    static const uint64_t b1[5] = { 1000, 0, 0, 500, 100 }, a1[5] = { 10, 900, 0, 500, 100 };
    static const uint64_t b2[5] = { 2000, 900, 0, 700, 100 }, a2[5] = { 10, 100, 2500, 700, 100 };
    static const uint64_t b3[5] = { 3000, 100, 2500, 900, 100 }, a3[5] = { 0, 0, 1000, 0, 100 };

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-gctl", (int)getpid());
    begin(path);
    /* gen0, not induced: suspended 0.1 ms before to 0.1 ms after: 0.6 ms */
    gc(100 * MS, 100 * MS + 400000, 0x1, 0, b1, a1, SUSPEND_GC, 100000, 100000);
    /* gen1, induced, its suspension "for GC prep": 1 ms before, 0.1 after: 2 ms */
    gc(300 * MS, 300 * MS + 900000, 0x3, 1, b2, a2, SUSPEND_GC_PREP, MS, 100000);
    /* gen2 (with LOH and POH), induced: 5 ms */
    gc(600 * MS, 603 * MS, 0x1f, 1, b3, a3, SUSPEND_GC, MS, MS);
    /* the sampler's suspension: not a pause */
    put(801 * MS, TK_SUSPEND, &(rec_any){ .suspend = { .reason = SUSPEND_PROFILER, .duration_ns = MS } });
    /* gen0 without sizes (an older agent): 1 ms, no effect on the heap figures */
    gc(900 * MS, 900 * MS + 200000, 0x1, 0, NULL, NULL, SUSPEND_GC, 500000, 300000);
    put(1000 * MS, TK_NOTE, &(rec_any){ .note = { .text = "end" } });
    trace_writer_close(w, 1, 1000 * MS);
    trace_writer_free(w);

    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
    CHECK_EQ(rp_gc_timeline_build(&tr, &tl), 0);
    CHECK_EQ(tl.n, 4);
    CHECK(tl.from_suspensions);
    CHECK_EQ(tl.count[0], 2);
    CHECK_EQ(tl.count[1], 1);
    CHECK_EQ(tl.count[2], 1);
    CHECK_EQ(tl.induced, 2);
    CHECK_EQ(tl.total_ns[0], 1600000);
    CHECK_EQ(tl.longest_ns[0], 1000000);
    CHECK_EQ(tl.total_ns[1], 2000000);
    CHECK_EQ(tl.total_ns[2], 5000000);
    CHECK_EQ(tl.paused_ns, 8600000);
    CHECK_EQ(tl.wall_ns, 1000 * MS - 1000);        /* times from the header's start, 1000 */
    CHECK_EQ(tl.gc[1].pause_start, 299 * MS - 1000);
    CHECK(tl.have_sizes);
    static const uint64_t first[6] = { 1000, 0, 0, 500, 100, 1600 };
    static const uint64_t peak[6] = { 3000, 900, 2500, 900, 100, 6600 };
    static const uint64_t last[6] = { 0, 0, 1000, 0, 100, 1100 };
    for (int g = 0; g < 6; g++) {
        CHECK_EQ(tl.first[g], first[g]);
        CHECK_EQ(tl.peak[g], peak[g]);
        CHECK_EQ(tl.last[g], last[g]);
    }
    CHECK_EQ(tl.gc[2].before[3], 900);
    CHECK_EQ(tl.gc[2].after[2], 1000);
    rp_gc_timeline_free(&tl);

    /* the html page's data: the GCs as arrays (html.c) */
    rp_profile prof;
    char *page = NULL;
    size_t page_len = 0;
    FILE *f = open_memstream(&page, &page_len);
    memset(&prof, 0, sizeof(prof));
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ(rp_write_html_gc(&prof, &tr, "t", f), 0);
        fclose(f);
        CHECK(strstr(page, "\"gc\":{\"wall_ns\":999999000,\"from_suspensions\":true,\"gcs\":[\n"
                           "[99999000,100399000,1,0,99899000,600000,1000,0,0,500,100,10,900,0,500,100],\n") != NULL);
        CHECK(strstr(page, "[599999000,602999000,31,1,598999000,5000000,3000,100,2500,900,100,0,0,1000,0,100]") != NULL);
        CHECK(strstr(page, "<section id=\"gcview\" hidden>") != NULL);
        free(page);
    }

    txt = text_of(&tr);
    CHECK(txt != NULL);
    if (txt) {
        CHECK(strstr(txt, "Garbage collections: 4 (2 induced); paused 8.60 ms, 0.86% of 1000.00 ms\n") != NULL);
        CHECK(strstr(txt, "  0            2         1.60 ms         1.00 ms\n") != NULL);
        CHECK(strstr(txt, "  2            1         5.00 ms         5.00 ms\n") != NULL);
        CHECK(strstr(txt, "  gen0         1000 B       2.9 KiB           0 B\n") != NULL);
        CHECK(strstr(txt, "  total       1.6 KiB       6.4 KiB       1.1 KiB\n") != NULL);
        if (unit_failures())
            printf("%s", txt);
        free(txt);
    }
    rp_free(&tr);
    unlink(path);
}

/* No suspension recorded (--collect without suspensions): a GC's pause is
 * its start to its end, and the report says so; no sizes, no heap table. */
TEST(gc_timeline_without_suspensions_or_sizes)
{
    char path[128], err[256], *txt;
    rp_trace tr;
    rp_gc_timeline tl;

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-gctl2", (int)getpid());
    begin(path);
    gc(10 * MS, 13 * MS, 0x1, 1, NULL, NULL, 0, 0, 0);
    gc(20 * MS, 21 * MS, 0x1f, 0, NULL, NULL, 0, 0, 0);
    trace_writer_close(w, 1, 100 * MS);
    trace_writer_free(w);

    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
    CHECK_EQ(rp_gc_timeline_build(&tr, &tl), 0);
    CHECK(!tl.from_suspensions);
    CHECK(!tl.have_sizes);
    CHECK_EQ(tl.total_ns[0], 3 * MS);
    CHECK_EQ(tl.total_ns[2], MS);
    CHECK_EQ(tl.paused_ns, 4 * MS);
    rp_gc_timeline_free(&tl);
    txt = text_of(&tr);
    CHECK(txt != NULL);
    if (txt) {
        CHECK(strstr(txt, "Garbage collections: 2 (1 induced); paused 4.00 ms") != NULL);
        CHECK(strstr(txt, "suspensions were not collected") != NULL);
        CHECK(strstr(txt, "Heap (the generations'") == NULL);
        free(txt);
    }
    rp_free(&tr);
    unlink(path);
}
