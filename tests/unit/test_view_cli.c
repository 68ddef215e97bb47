/* test_view_cli.c - `clrprobe report --view` (cmd_report, run in this
 * process on traces made by hand): the names it takes, the one message
 * that names the fix when the trace has none of the view's records, the
 * live view's reason when it is empty, the warning for figures that are
 * not upscaled, and --help's list of views with their units. */
#include "unit.h"
#include "synth_trace.h"

#include <stdlib.h>
#include <string.h>

static const uint64_t stack1[] = { 0x500 };

/* A trace with what its flags say: CPU samples, allocation samples
 * (followed: with ids), lock waits, a live_gc. */
enum { T_CPU = 1, T_ALLOC = 2, T_FOLLOWED = 4, T_GC = 8, T_WAITS = 16, T_TICK = 32 };

static void make(synth *s, const char *name, unsigned what)
{
    rp_trace tr;

    synth_begin(s, name);
    synth_name(s, 1, 0x500, "App.Main");
    synth_thread(s, 2, 0xA0, 101, "worker");
    if (what & T_CPU)
        synth_sample(s, 100, 0xA0, 101, 1000000, stack1, 1);
    if (what & (T_ALLOC | T_FOLLOWED | T_TICK))
        synth_alloc(s, 200, 0xA0, 101, (what & T_TICK) ? ALLOC_METHOD_TICK : ALLOC_METHOD_SAMPLED, "System.String",
                    64, 1, 102400, (what & T_FOLLOWED) ? 1 : 0, stack1, 1);
    if (what & T_GC)
        synth_live_gc(s, 300, 1, 1, 0, NULL, 0);
    if (what & T_WAITS)
        synth_contention(s, 400, 0xA0, 101, 2000000, "System.Object", stack1, 1);
    CHECK_EQ(synth_load(s, &tr), TRACE_OK);
    rp_free(&tr);
}

/* report PATH ARGS...: the exit status, stdout and stderr. */
static int report(const synth *s, const char *a1, const char *a2, const char *a3, const char *a4, char **out,
                  char **err)
{
    const char *args[] = { s->path, a1, a2, a3, a4, NULL };
    size_t len;
    return synth_report(args, out, &len, err);
}

static void done(synth *s, char *out, char *err)
{
    rp_trace none;
    memset(&none, 0, sizeof(none));
    free(out);
    free(err);
    synth_done(s, &none);
}

TEST(view_cli_no_records_names_the_fix)
{
    synth s;
    char *out, *err;

    make(&s, "cli-cpu-only", T_CPU);
    CHECK_EQ(report(&s, "--view", "alloc", NULL, NULL, &out, &err), 1);
    CHECK(strstr(err, "has no allocation samples, which the alloc view shows: record them with --collect alloc or "
                      "live; it has the records of --view cpu, wall") != NULL);
    CHECK(out && out[0] == '\0');
    free(out);
    free(err);
    CHECK_EQ(report(&s, "--view", "contention", "--format", "collapsed", &out, &err), 1);
    CHECK(strstr(err, "has no lock waits, which the contention view shows: record them with --collect contention")
          != NULL);
    free(out);
    free(err);
    CHECK_EQ(report(&s, "--view", "live", "--format", "pprof", &out, &err), 1);
    CHECK(strstr(err, "has no followed allocation samples, which the live view shows: record them with --collect "
                      "live") != NULL);
    free(out);
    free(err);
    CHECK_EQ(report(&s, NULL, NULL, NULL, NULL, &out, &err), 0);    /* text of the default view: as before */
    CHECK(strstr(out, "Where time goes") != NULL);
    done(&s, out, err);

    make(&s, "cli-alloc-only", T_ALLOC);
    CHECK_EQ(report(&s, "--format", "speedscope", NULL, NULL, &out, &err), 1);
    CHECK(strstr(err, "has no CPU samples, which the speedscope format shows: record with --collect cpu (it is in "
                      "the default 'all'); it has the records of --view alloc, alloc-count") != NULL);
    free(out);
    free(err);
    CHECK_EQ(report(&s, "--view", "alloc", "--format", "collapsed", &out, &err), 0);
    CHECK_STR(err, "");
    done(&s, out, err);
}

TEST(view_cli_live_empty_says_why)
{
    synth s;
    char *out, *err;

    make(&s, "cli-live-nogc", T_FOLLOWED);
    CHECK_EQ(report(&s, "--view", "live", "--format", "collapsed", &out, &err), 1);
    CHECK(strstr(err, "the live view of ") != NULL);
    CHECK(strstr(err, " is empty: no GC was seen since the allocations were recorded") != NULL);
    done(&s, out, err);

    make(&s, "cli-live", T_FOLLOWED | T_GC);
    CHECK_EQ(report(&s, "--view", "live", "--format", "collapsed", &out, &err), 0);
    CHECK(strstr(out, "App.Main;System.String ") != NULL);
    done(&s, out, err);
}

TEST(view_cli_names_and_help)
{
    synth s;
    char *out, *err;

    make(&s, "cli-names", T_CPU | T_WAITS);
    CHECK_EQ(report(&s, "--view", "heap", NULL, NULL, &out, &err), 2);
    CHECK(strstr(err, "unknown view 'heap' (valid views: cpu, wall, alloc, alloc-count, live, contention, exceptions)") !=
          NULL);
    free(out);
    free(err);
    CHECK_EQ(report(&s, "--view", "contention", "--thread", "nosuch", &out, &err), 1);
    CHECK(strstr(err, "no thread matches 'nosuch'; the sampled threads are 'worker (101)'") != NULL);
    free(out);
    free(err);
    CHECK_EQ(report(&s, "--help", NULL, NULL, NULL, &out, &err), 0);
    CHECK(strstr(out, "[--view VIEW]") != NULL);
    CHECK(strstr(out, "cpu          nanoseconds  CPU time of threads that were on a CPU (default)") != NULL);
    CHECK(strstr(out, "alloc        bytes        bytes allocated, from sampled allocations") != NULL);
    CHECK(strstr(out, "alloc-count  objects      objects allocated, from sampled allocations") != NULL);
    CHECK(strstr(out, "live         bytes") != NULL);
    CHECK(strstr(out, "contention   nanoseconds") != NULL);
    CHECK(strstr(out, "exceptions   exceptions   exceptions thrown, by throw stack") != NULL);
    CHECK(strstr(out, "lock waits (contention: --collect contention)") != NULL);
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *nl = strchr(l, '\n');
        CHECK((nl ? (size_t)(nl - l) : strlen(l)) <= 116);
    }
    done(&s, out, err);
}

TEST(view_cli_tick_warns_not_upscaled)
{
    synth s;
    char *out, *err;

    make(&s, "cli-tick", T_TICK);
    CHECK_EQ(report(&s, "--view", "alloc", "--format", "collapsed", &out, &err), 0);
    CHECK(strstr(err, "warning: ") != NULL);
    CHECK(strstr(err, "the allocation figures are not upscaled (AllocationTick") != NULL);
    CHECK(strstr(out, "App.Main;System.String 102400\n") != NULL);
    done(&s, out, err);
}
