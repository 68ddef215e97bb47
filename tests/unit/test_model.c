/* test_model.c - the report's model of a trace: events from several thread
 * buffers come out in time order, an ID reused after an unload gets the
 * name of the load in force at the time, and a thread named before it is
 * created is one thread. */
#include "unit.h"
#include "report/model.h"
#include "report/profile.h"
#include "report/report.h"
#include "trace/format.h"
#include "trace/writer.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static trace_writer *w;
static trace_buffer *buf;

static void begin(const char *path)
{
    trace_header_info h = { 7, 0, 0, 1000, "10.0.0", "test" };
    char err[256];
    CHECK_EQ(trace_writer_open(&w, unit_create_file(path), path, &h, err, sizeof(err)), 0);
    buf = trace_writer_buffer_get(w);
}

/* One record, encoded by the catalogue (trace/records.h). */
static void put(uint64_t t, int kind, const rec_any *v)
{
    trace_rec r;
    trace_rec_begin(&r, trace_buffer_begin(buf), TRACE_MAX_RECORD, kind, 1, t);
    rec_put(&r, kind, v);
    trace_buffer_end(buf, trace_rec_finish(&r));
}

static void module_load(uint64_t t, uint64_t id, const char *path)
{
    put(t, TK_MODULE_LOAD, &(rec_any){ .module_load = { .id = id, .flags = 0x8, .path = path } });
}

/* A record whose only field is an ID (unloads, thread create/destroy). */
static void id_only(uint64_t t, int kind, uint64_t id)
{
    rec_any v;
    memset(&v, 0, sizeof(v));
    switch (kind) {
    case TK_MODULE_UNLOAD: v.module_unload.id = id; break;
    case TK_THREAD_CREATE: v.thread_create.thread = id; break;
    case TK_THREAD_DESTROY: v.thread_destroy.thread = id; break;
    default: CHECK(!"id_only: a kind with one ID");
    }
    put(t, kind, &v);
}

static void jit(uint64_t t, uint64_t module, const char *name)
{
    put(t, TK_JIT, &(rec_any){ .jit = { .function = 0x500, .module = module, .duration_ns = 10, .name = name } });
}

static void thread_name_n(uint64_t t, uint64_t id, const char *name, size_t n)
{
    put(t, TK_THREAD_NAME, &(rec_any){ .thread_name = { .thread = id, .name = name, .name_len = (uint16_t)n } });
}

static void thread_name(uint64_t t, uint64_t id, const char *name)
{
    thread_name_n(t, id, name, strlen(name));
}

static const rp_event *find(const rp_trace *tr, int kind, int nth)
{
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == kind && nth-- == 0)
            return &tr->ev[i];
    return NULL;
}

TEST(model_id_reused_after_unload_gets_the_right_name)
{
    char path[128], err[256];
    rp_trace tr;
    const rp_event *e;

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-model", (int)getpid());
    begin(path);
    module_load(1100, 0xAA, "/x/First.dll");
    jit(1200, 0xAA, "First.F");
    id_only(1300, TK_MODULE_UNLOAD, 0xAA);
    module_load(1400, 0xAA, "/x/Second.dll");      /* same address, another module */
    jit(1500, 0xAA, "Second.G");
    id_only(1600, TK_MODULE_UNLOAD, 0xAA);
    trace_writer_close(w, 1, 2000);
    trace_writer_free(w);

    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
    CHECK((e = find(&tr, TK_JIT, 0)) != NULL);
    if (e) CHECK_STR(e->jit.module_name, "First.dll");
    CHECK((e = find(&tr, TK_JIT, 1)) != NULL);
    if (e) CHECK_STR(e->jit.module_name, "Second.dll");
    CHECK((e = find(&tr, TK_MODULE_UNLOAD, 0)) != NULL);
    if (e) CHECK_STR(e->module_unload.path, "/x/First.dll");
    if (e) CHECK_EQ(e->module_unload.flags, 0x8);
    CHECK((e = find(&tr, TK_MODULE_UNLOAD, 1)) != NULL);
    if (e) CHECK_STR(e->module_unload.path, "/x/Second.dll");
    CHECK_EQ(tr.complete, 1);
    rp_free(&tr);
    unlink(path);
}

TEST(model_sorts_across_buffers_and_merges_early_thread_name)
{
    char path[128], err[256];
    rp_trace tr;
    trace_buffer *other;

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-model2", (int)getpid());
    begin(path);
    other = trace_writer_buffer_get(w);
    thread_name(1100, 0x77, "worker");              /* named before Start() */
    {
        trace_buffer *keep = buf;
        buf = other;
        id_only(1050, TK_THREAD_CREATE, 0x66);       /* an earlier event in another buffer */
        id_only(1200, TK_THREAD_CREATE, 0x77);
        buf = keep;
    }
    id_only(1300, TK_THREAD_DESTROY, 0x77);
    id_only(1400, TK_THREAD_CREATE, 0x77);          /* the address reused: a new thread */
    trace_writer_close(w, 1, 2000);
    trace_writer_free(w);

    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
    for (size_t i = 1; i < tr.nev; i++)
        CHECK(tr.ev[i - 1].t <= tr.ev[i].t);
    CHECK_EQ(tr.nthreads, 3);
    if (tr.nthreads == 3) {
        CHECK_EQ(tr.threads[0].id, 0x66);
        CHECK_STR(tr.threads[1].name, "worker");
        CHECK_EQ(tr.threads[1].destroyed, 1);
        CHECK_EQ(tr.threads[1].created_t, 1200 - 1000);
        CHECK_STR(tr.threads[2].name, "");
        CHECK_EQ(tr.threads[2].destroyed, 0);
    }
    rp_free(&tr);
    unlink(path);
}

/* A thread name holding terminal escapes, a line break and a NUL: the
 * model keeps it whole (the NUL as C0 80), jsonl gives it back exactly,
 * and the text report shows it whole and escaped. */
TEST(model_thread_name_with_nul_is_kept_whole)
{
    static const char name[] = "\x1b[31mevil\r\n  runtime    .NET 99\0tail";
    char path[128], err[256], *out = NULL;
    size_t outlen = 0;
    rp_trace tr;
    FILE *f;

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-model-nul", (int)getpid());
    begin(path);
    id_only(1100, TK_THREAD_CREATE, 0x77);
    thread_name_n(1200, 0x77, name, sizeof(name) - 1);
    trace_writer_close(w, 1, 2000);
    trace_writer_free(w);

    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
    CHECK_EQ(tr.nthreads, 1);
    if (tr.nthreads == 1)
        CHECK_STR(tr.threads[0].name, "\x1b[31mevil\r\n  runtime    .NET 99\xc0\x80tail");
    f = open_memstream(&out, &outlen);
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ(rp_write_jsonl(&tr, f), 0);
        fclose(f);
        CHECK(strstr(out, "\"name\":\"\\u001b[31mevil\\r\\n  runtime    .NET 99\\u0000tail\"") != NULL);
        CHECK(strchr(out, '\x1b') == NULL);
        CHECK(strchr(out, '\r') == NULL);
        free(out);
    }
    /* the text report shows it whole and inert: no escape, no forged line */
    out = NULL;
    f = open_memstream(&out, &outlen);
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ(rp_write_text(&tr, "t\x1b]0;title\x07.clrp", f), 0);
        fclose(f);
        CHECK(strchr(out, '\x1b') == NULL);
        CHECK(strchr(out, '\r') == NULL);
        CHECK(strchr(out, '\x07') == NULL);
        CHECK(strstr(out, "\n  runtime    .NET 99") == NULL);
        CHECK(strstr(out, "\\x1b[31mevil\\r\\n  runtime    .NET 99\\0tail") != NULL);
        CHECK(strstr(out, "clrprobe trace t\\x1b]0;title\\x07.clrp\n") != NULL);
        free(out);
    }
    rp_free(&tr);
    unlink(path);
}

/* A sampler tick; with_period 0 writes it as an earlier agent did (length
 * 40, no period_ns), -1 cuts it inside period_ns (length 44). */
static void tick(uint64_t t, int with_period)
{
    trace_rec r;
    trace_rec_begin(&r, trace_buffer_begin(buf), TRACE_MAX_RECORD, TK_SAMPLER_TICK, 1, t);
    trace_rec_u64(&r, 5000);                       /* suspend_ns */
    trace_rec_u64(&r, 7000);                       /* sampler_cpu_ns */
    trace_rec_u32(&r, 2);                          /* threads */
    trace_rec_u32(&r, 0);                          /* failed */
    if (with_period > 0)
        trace_rec_u64(&r, 4000000);                /* period_ns: 250 Hz */
    else if (with_period < 0)
        trace_rec_u32(&r, 4000000);
    trace_buffer_end(buf, trace_rec_finish(&r));
}

TEST(model_old_tick_without_period_is_not_malformed)
{
    char path[128], err[256];
    rp_trace tr;
    rp_profile prof;
    const rp_event *e;

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-model-tick", (int)getpid());
    begin(path);
    tick(1100, 0);
    tick(1200, 0);
    trace_writer_close(w, 1, 2000);
    trace_writer_free(w);
    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
    CHECK_EQ(tr.bad_records, 0);
    CHECK((e = find(&tr, TK_SAMPLER_TICK, 1)) != NULL);
    if (e) {
        CHECK_EQ(e->sampler_tick.suspend_ns, 5000);
        CHECK_EQ(e->sampler_tick.sampler_cpu_ns, 7000);
        CHECK_EQ(e->sampler_tick.threads, 2);
        CHECK_EQ(e->sampler_tick.period_ns, 0);    /* period_ns reads as 0 */
    }
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_WALL, NULL, &prof), 0);
    CHECK_EQ(prof.ticks, 2);
    CHECK_EQ(prof.period_ns, 10000000);            /* the default rate is assumed */
    rp_profile_free(&prof);
    rp_free(&tr);

    /* the current length reads the period; a record cut inside it is malformed */
    begin(path);
    tick(1100, 1);
    tick(1200, -1);
    trace_writer_close(w, 1, 2000);
    trace_writer_free(w);
    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
    CHECK_EQ(tr.bad_records, 1);
    CHECK((e = find(&tr, TK_SAMPLER_TICK, 0)) != NULL);
    if (e) CHECK_EQ(e->sampler_tick.period_ns, 4000000);
    rp_free(&tr);
    unlink(path);
}

/* ---- the catch-up merge on its own ---- */

static rp_event ev_of(int kind, uint64_t id, int catchup)
{
    rp_event e;
    memset(&e, 0, sizeof(e));
    e.kind = kind;
    e.catchup = (uint8_t)catchup;
    switch (kind) {
    case TK_MODULE_LOAD: e.module_load.id = id; e.module_load.path = ""; break;
    case TK_MODULE_UNLOAD: e.module_unload.id = id; e.module_unload.path = ""; break;
    case TK_ASSEMBLY_LOAD: e.assembly_load.id = id; e.assembly_load.name = e.assembly_load.version = ""; break;
    case TK_APPDOMAIN_CREATE: e.appdomain_create.id = id; e.appdomain_create.name = ""; break;
    case TK_THREAD_CREATE: e.thread_create.thread = id; break;
    default: CHECK(!"ev_of: a kind the merge tests use");
    }
    return e;
}

TEST(merge_event_after_snapshot_wins)
{
    /* good timeline "loading with duplicate": enumerated, then LoadFinished */
    rp_event ev[] = { ev_of(TK_MODULE_LOAD, 1, 1), ev_of(TK_MODULE_LOAD, 1, 0) };
    rp_merge_catchup(ev, 2);
    CHECK_EQ(ev[0].dropped, 1);
    CHECK_EQ(ev[1].dropped, 0);
}

TEST(merge_keeps_unload_of_unseen_id)
{
    /* good timeline "unloading with duplicate": not enumerated, then UnloadStarted */
    rp_event ev[] = { ev_of(TK_MODULE_UNLOAD, 7, 0) };
    rp_merge_catchup(ev, 1);
    CHECK_EQ(ev[0].dropped, 0);
}

TEST(merge_reused_id_is_a_new_lifetime)
{
    /* caught up, unloaded, the address reused by a new module: all kept */
    rp_event ev[] = { ev_of(TK_MODULE_LOAD, 3, 1), ev_of(TK_MODULE_UNLOAD, 3, 0), ev_of(TK_MODULE_LOAD, 3, 0),
                      ev_of(TK_THREAD_CREATE, 3, 1) };
    rp_merge_catchup(ev, 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(ev[i].dropped, 0);
}

TEST(merge_double_catchup_and_kinds_are_separate)
{
    rp_event ev[] = { ev_of(TK_ASSEMBLY_LOAD, 5, 1), ev_of(TK_ASSEMBLY_LOAD, 5, 1), ev_of(TK_THREAD_CREATE, 5, 1),
                      ev_of(TK_THREAD_CREATE, 5, 0), ev_of(TK_APPDOMAIN_CREATE, 5, 1) };
    rp_merge_catchup(ev, 5);
    CHECK_EQ(ev[0].dropped, 0);
    CHECK_EQ(ev[1].dropped, 1);        /* reported twice by the catch-up (lazy + snapshot) */
    CHECK_EQ(ev[2].dropped, 1);        /* the thread's live create wins */
    CHECK_EQ(ev[3].dropped, 0);
    CHECK_EQ(ev[4].dropped, 0);        /* same address, another kind: unrelated */
}

/* ---- the profile's totals, rate and thread labels from a trace ---- */

static void sample(uint64_t t, uint64_t thread, uint32_t os_tid, uint64_t cpu_ns)
{
    static const uint64_t frames[1] = { 0 };
    put(t, TK_SAMPLE, &(rec_any){ .sample = { .thread = thread, .os_tid = os_tid, .cpu_ns = cpu_ns,
                                               .nframes = 1, .frames = frames } });
}

static void thread_os(uint64_t t, uint64_t id, uint32_t os_tid, const char *os_name)
{
    put(t, TK_THREAD_OS, &(rec_any){ .thread_os = { .thread = id, .os_tid = os_tid, .os_name = os_name } });
}

TEST(profile_totals_rate_and_labels)
{
    char path[128], err[256];
    rp_trace tr;
    rp_profile prof;

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-model-totals", (int)getpid());
    begin(path);
    /* two pool threads of one kernel name, one named thread */
    id_only(1000, TK_THREAD_CREATE, 0xA1);
    thread_os(1001, 0xA1, 501, ".NET TP Worker");
    id_only(1002, TK_THREAD_CREATE, 0xA2);
    thread_os(1003, 0xA2, 502, ".NET TP Worker");
    id_only(1004, TK_THREAD_CREATE, 0xA3);
    thread_os(1005, 0xA3, 503, "busy");
    thread_name(1006, 0xA3, "busy-thread");
    /* 4 ms asked (250/s); 8 ticks in a window of 10 periods (ticks 2 and 5 skipped): 200/s, 80% */
    for (int k = 0; k < 10; k++) {
        uint64_t t = 10000000 + (uint64_t)k * 4000000;
        if (k == 2 || k == 5)
            continue;
        tick(t, 1);
        sample(t, 0xA1, 501, k ? 4000000 : 0);             /* busy: 4 ms a tick (0 at its first) */
        sample(t, 0xA2, 502, k ? 100000 : 0);              /* waiting: 0.1 ms a tick */
        sample(t, 0xA3, 503, k ? 3000000 : 0);             /* 3 ms a tick */
    }
    trace_writer_close(w, 1, 60000000);
    trace_writer_free(w);
    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);

    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CPU, NULL, &prof), 0);
    CHECK_EQ(prof.ticks, 8);
    CHECK_EQ(prof.period_ns, 4000000);
    CHECK_EQ(prof.duration_ns, 40000000);                  /* 36 ms first to last tick, plus a period */
    CHECK(prof.rate_hz > 199.99 && prof.rate_hz < 200.01);
    CHECK_EQ(rp_profile_rate_low(&prof), 1);
    /* 7 later samples each: A1 7 x 4 ms (the gaps' CPU lands on the next sample: still 4 ms here),
     * A3 7 x 3 ms; A2 waits (0.1 ms of 4 ms), left out but counted apart */
    CHECK_EQ(prof.nsamples, 14);
    CHECK_EQ(prof.cpu_ns, 7 * 4000000 + 7 * 3000000);
    CHECK_EQ(prof.cpu_unshown_ns, 7 * 100000);
    CHECK_EQ(rp_profile_total(&prof), prof.cpu_ns);
    CHECK_EQ(prof.nthreads, 2);
    if (prof.nthreads == 2) {
        CHECK_STR(prof.threads[0].name, ".NET TP Worker (501)");
        CHECK_EQ(prof.threads[0].cpu_ns, 28000000);
        CHECK_STR(prof.threads[1].name, "busy-thread (503)");
    }
    CHECK_EQ(prof.nlabels, 3);
    if (prof.nlabels == 3)
        CHECK_STR(prof.labels[1], ".NET TP Worker (502)");
    rp_profile_free(&prof);

    /* the wall view: every sample, its total is samples x period, the CPU the sum of all cpu_ns */
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_WALL, NULL, &prof), 0);
    CHECK_EQ(prof.nsamples, 24);
    CHECK_EQ(rp_profile_total(&prof), 24 * 4000000);
    CHECK_EQ(prof.cpu_ns, 7 * (4000000 + 100000 + 3000000));
    rp_profile_free(&prof);

    /* --thread: the label, the managed name, the kernel name (bare or in parentheses), the tid, the id */
    {
        static const struct { const char *filter; size_t nthreads; } cases[] = {
            { ".NET TP Worker (502)", 1 }, { ".NET TP Worker", 2 }, { "(.NET TP Worker)", 2 },
            { "busy-thread", 1 }, { "busy", 1 }, { "(busy)", 1 }, { "busy-thread (503)", 1 },
            { "501", 1 }, { "0xa2", 1 }, { "nosuch", 0 }, { "busy-thread (501)", 0 },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            CHECK_EQ(rp_profile_build(&tr, RP_VIEW_WALL, cases[i].filter, &prof), 0);
            if (prof.nthreads != cases[i].nthreads)
                fprintf(stderr, "    --thread '%s': %zu threads\n", cases[i].filter, prof.nthreads);
            CHECK_EQ(prof.nthreads, cases[i].nthreads);
            CHECK_EQ(prof.filter_matched, cases[i].nthreads > 0);
            CHECK_EQ(prof.nlabels, 3);
            rp_profile_free(&prof);
        }
    }
    /* a thread that matches but has no sample in the CPU view is still a match */
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CPU, "502", &prof), 0);
    CHECK_EQ(prof.nsamples, 0);
    CHECK_EQ(prof.filter_matched, 1);
    rp_profile_free(&prof);
    rp_free(&tr);
    unlink(path);
}

/* ---- the process's CPU beside the samples' (process_cpu records) ---- */

/* The text of what a writer writes for p (malloc'd). */
static char *written(const rp_profile *p, int speedscope)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);

    if (!f)
        return NULL;
    if (speedscope)
        rp_write_speedscope(p, "t.clrp", f);
    else
        rp_write_profile_totals(p, "  ", f);
    fclose(f);
    return out;
}

/* Writes a trace of 10 ticks 4 ms apart: thread 501 busy (4 ms a tick),
 * 502 waiting (0.6 ms a tick: CPU view leaves it out), the sampler 7 us a
 * tick, and nrecords process_cpu records (48 ms of process CPU apart). */
static void process_cpu_trace(const char *path, int nrecords)
{
    begin(path);
    id_only(1000, TK_THREAD_CREATE, 0xA1);
    thread_os(1001, 0xA1, 501, "busy");
    id_only(1002, TK_THREAD_CREATE, 0xA2);
    thread_os(1003, 0xA2, 502, "waiter");
    if (nrecords > 0)
        put(5000000, TK_PROCESS_CPU, &(rec_any){ .process_cpu = { .cpu_ns = 2000000000, .threads = 9 } });
    for (int k = 0; k < 10; k++) {
        uint64_t t = 10000000 + (uint64_t)k * 4000000;
        tick(t, 1);
        sample(t, 0xA1, 501, k ? 4000000 : 0);
        sample(t, 0xA2, 502, k ? 600000 : 0);
    }
    if (nrecords > 1)
        put(60000000, TK_PROCESS_CPU, &(rec_any){ .process_cpu = { .cpu_ns = 2048000000, .threads = 11 } });
    trace_writer_close(w, 1, 61000000);
    trace_writer_free(w);
}

TEST(profile_process_cpu_headline)
{
    char path[128], err[256];
    rp_trace tr;
    rp_profile prof;
    rp_process_share sh;
    char *out;

    snprintf(path, sizeof(path), "/tmp/clrprobe-unit-%d-model-process-cpu", (int)getpid());
    process_cpu_trace(path, 2);
    CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CPU, NULL, &prof), 0);
    /* 9 x 4 ms in the view, 9 x 0.6 ms waiting, 10 x 7 us the sampler, of 48 ms */
    CHECK_EQ(prof.process_cpu_ns, 48000000);
    CHECK_EQ(prof.cpu_ns, 36000000);
    CHECK_EQ(rp_profile_process_share(&prof, &sh), 1);
    CHECK(sh.view_pct > 74.99 && sh.view_pct < 75.01);
    CHECK(sh.waiting_pct > 11.24 && sh.waiting_pct < 11.26);
    CHECK(sh.rest_pct > 13.6 && sh.rest_pct < 13.61);
    out = written(&prof, 0);
    CHECK(out && strstr(out, "  0.04 s of CPU time in 0.04 s (0.90 CPUs on average); 0.01 s more in samples of "
                             "threads that were mostly waiting (--view wall shows them)\n"
                             "  the process used 0.05 s of CPU time (the kernel's count, every thread): 75% in "
                             "this view, 11% in samples of threads that were mostly waiting, 0% in the sampler, "
                             "14% in threads the sampler cannot see (the runtime's GC, JIT and other native "
                             "threads)\n  rate: ") == out);
    free(out);
    out = written(&prof, 1);
    CHECK(out && strstr(out, "\"name\":\"t.clrp: 0.04 s of CPU time in sampled threads, 75% of the 0.05 s the "
                             "process used; in 0.04 s; "));
    CHECK(out && strstr(out, " ticks/s of 250.0 asked"));
    free(out);
    rp_profile_free(&prof);
    /* with --thread, the threads it left out are in the rest */
    CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CPU, "501", &prof), 0);
    out = written(&prof, 0);
    CHECK(out && strstr(out, "75% in this view, 0% in the sampler, 25% in threads --thread left out and threads "
                             "the sampler cannot see"));
    free(out);
    rp_profile_free(&prof);
    rp_free(&tr);
    unlink(path);

    /* one record (a process that died before the end) or none (an earlier agent): no process CPU, as before */
    for (int n = 0; n < 2; n++) {
        process_cpu_trace(path, n);
        CHECK_EQ(rp_load(path, &tr, err, sizeof(err)), 0);
        CHECK_EQ(rp_profile_build(&tr, RP_VIEW_CPU, NULL, &prof), 0);
        CHECK_EQ(prof.process_cpu_ns, 0);
        CHECK_EQ(rp_profile_process_share(&prof, &sh), 0);
        out = written(&prof, 0);
        CHECK(out && !strstr(out, "the process used"));
        free(out);
        out = written(&prof, 1);
        CHECK(out && strstr(out, "\"name\":\"t.clrp: 0.04 s of CPU time in sampled threads; in 0.04 s; "));
        free(out);
        rp_profile_free(&prof);
        rp_free(&tr);
        unlink(path);
    }
}
