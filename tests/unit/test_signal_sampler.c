/* test_signal_sampler.c - the pure parts of the signal sampler: the ring
 * between a handler and the collector (order, wrap-around, a full ring
 * dropping samples), the names of native frames, the sampler's
 * configuration, and the report's reading of the signal engine's samples
 * and ticks (the CPU view keeps CPU-timer samples whatever the time between
 * them, the wall view only wall samples; the rate per CPU-second). */
#include "unit.h"
#include "agent/sampling/sig_clock.h"
#include "agent/sampling/sig_engine.h"
#include "agent/sampling/sig_threads.h"
#include "agent/sampling/sig_ring.h"
#include "agent/sampling/sig_resolve.h"
#include "common/config.h"
#include "report/profile.h"
#include "synth_trace.h"

#include <errno.h>
#include <stdlib.h>

static void push(sig_ring *r, uint64_t t, size_t nframes, int *ok)
{
    uintptr_t *frames;
    sig_entry *e = sig_ring_reserve(r, 32, &frames);
    *ok = e != NULL;
    if (!e)
        return;
    for (size_t i = 0; i < nframes; i++)
        frames[i] = (uintptr_t)(t * 100 + i);
    e->nframes = (uint16_t)nframes;
    e->flags = 1;
    e->t = t;
    e->cpu_ns = t;
    e->unloads = 0;
    sig_ring_commit(r, e);
}

TEST(sig_ring_order_wrap_and_full)
{
    sig_ring r;
    const sig_entry *e;
    uint64_t next = 1, expect = 1;
    int ok;

    CHECK_EQ(0, sig_ring_init(&r, 256));
    CHECK(sig_ring_peek(&r) == NULL);
    /* many rounds through the ring: entries come out whole and in order,
     * the pad at the end skipped */
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + (size_t)(round % 7) * 4;
        push(&r, next, n, &ok);
        CHECK(ok);
        next++;
        if (round % 3 == 2) {
            while ((e = sig_ring_peek(&r)) != NULL) {
                const uintptr_t *f = (const uintptr_t *)(e + 1);
                CHECK_EQ(expect, e->t);
                CHECK_EQ(expect * 100, f[0]);
                CHECK_EQ(expect * 100 + e->nframes - 1, f[e->nframes - 1]);
                sig_ring_pop(&r, e);
                expect++;
            }
        }
    }
    /* a ring that is not drained fills, and refuses (the handler counts a
     * dropped sample) instead of overwriting */
    sig_ring_reset(&r);
    for (int i = 0; i < 100; i++) {
        push(&r, (uint64_t)i + 1, 32, &ok);
        if (!ok)
            break;
    }
    CHECK(!ok);
    e = sig_ring_peek(&r);
    CHECK(e && e->t == 1);
    /* draining one makes room again */
    sig_ring_pop(&r, e);
    push(&r, 999, 4, &ok);
    CHECK(ok);
    sig_ring_free(&r);
    CHECK_EQ(-1, sig_ring_init(&r, 100));          /* not a power of two */
}

TEST(sig_native_frame_names)
{
    cm_object o;
    cm_range r;
    char name[256];
    uint64_t key1, key2, key3;

    /* an object without symbols or table: the address itself */
    memset(&o, 0, sizeof(o));
    memset(&r, 0, sizeof(r));
    o.name = "libfoo.so";
    o.serial = 3;
    r.kind = CM_NATIVE;
    r.obj = &o;
    r.start = 0x7f0000000000u;
    r.end = 0x7f0000100000u;
    r.bias = 0x7f0000000000u;
    sig_native_name(&r, 0x7f0000001234u, name, sizeof(name), &key1);
    CHECK_STR("libfoo.so+0x1234", name);
    /* with symbols: lib!symbol, one key for every address of the function */
    {
        static elf_sym syms[] = { { 0x1000, 0x100, "foo_work" }, { 0x1100, 0x10, "foo_tiny" } };
        o.ok = 1;
        o.img.syms = syms;
        o.img.nsyms = 2;
        sig_native_name(&r, 0x7f0000001004u, name, sizeof(name), &key1);
        CHECK_STR("libfoo.so!foo_work", name);
        sig_native_name(&r, 0x7f00000010f0u, name, sizeof(name), &key2);
        CHECK_EQ(key1, key2);
        sig_native_name(&r, 0x7f0000001105u, name, sizeof(name), &key3);
        CHECK_STR("libfoo.so!foo_tiny", name);
        CHECK(key3 != key1);
        /* past the symbol's size, no table row: the address */
        sig_native_name(&r, 0x7f0000001200u, name, sizeof(name), &key3);
        CHECK_STR("libfoo.so+0x1200", name);
        cfi_table_free(&o.cfi);                  /* (built, empty, at the first name) */
    }
}

TEST(sig_config_sampler_and_wall)
{
    cp_config cfg;
    char err[512], text[1024];

    CHECK_EQ(0, cp_config_parse("v=1;output=/tmp/x.clrp;sampler=signal;collect=cpu,wall", &cfg, err, sizeof(err)));
    CHECK_EQ(CP_SAMPLER_SIGNAL, cfg.sampler);
    CHECK(cfg.collect & CP_COLLECT_WALL);
    CHECK(!(CP_COLLECT_ALL & CP_COLLECT_WALL));   /* wall is not in all: it signals every thread */
    CHECK(cp_config_format(&cfg, text, sizeof(text)) > 0);
    {
        cp_config back;
        CHECK_EQ(0, cp_config_parse(text, &back, err, sizeof(err)));
        CHECK_EQ(cfg.sampler, back.sampler);
        CHECK_EQ(cfg.collect, back.collect);
    }
    CHECK_EQ(0, cp_config_parse("v=1;output=/tmp/x.clrp;sampler=suspend", &cfg, err, sizeof(err)));
    CHECK_EQ(CP_SAMPLER_SUSPEND, cfg.sampler);
    CHECK_EQ(0, cp_config_parse("v=1;output=/tmp/x.clrp;sampler=perf", &cfg, err, sizeof(err)));
    CHECK_EQ(CP_SAMPLER_PERF, cfg.sampler);
    CHECK(CP_SAMPLER_BY_SIGNAL(cfg.sampler));
    CHECK(cp_config_format(&cfg, text, sizeof(text)) > 0 && strstr(text, "sampler=perf") != NULL);
    CHECK_EQ(-1, cp_config_parse("v=1;output=/tmp/x.clrp;sampler=timer", &cfg, err, sizeof(err)));
    CHECK(strstr(err, "not auto, kstack, percpu, perf, signal or suspend") != NULL);
    CHECK_EQ(0, cp_config_parse("v=1;output=/tmp/x.clrp;sampler=kstack", &cfg, err, sizeof(err)));
    CHECK_EQ(CP_SAMPLER_KSTACK, cfg.sampler);
    CHECK(CP_SAMPLER_WANTS_KSTACK(cfg.sampler) && CP_SAMPLER_WANTS_PERCPU(cfg.sampler));
    CHECK_EQ(-1, cp_config_parse("v=1;sampler=signal;sampler=signal", &cfg, err, sizeof(err)));
    /* auto is the default, written as nothing; asked by name it reads back */
    cp_config_init(&cfg);
    CHECK_EQ(CP_SAMPLER_AUTO, cfg.sampler);
    CHECK(CP_SAMPLER_BY_SIGNAL(cfg.sampler));
    CHECK(cp_config_format(&cfg, text, sizeof(text)) > 0 && strstr(text, "sampler=") == NULL);
    CHECK_EQ(0, cp_config_parse("v=1;output=/tmp/x.clrp;sampler=auto", &cfg, err, sizeof(err)));
    CHECK_EQ(CP_SAMPLER_AUTO, cfg.sampler);
    CHECK_EQ(0, cp_config_parse("v=1;output=/tmp/x.clrp;sampler=suspend", &cfg, err, sizeof(err)));
    CHECK(!CP_SAMPLER_BY_SIGNAL(cfg.sampler));
    CHECK_EQ(0, cp_config_parse("v=1;output=/tmp/x.clrp;sampler=percpu", &cfg, err, sizeof(err)));
    CHECK_EQ(CP_SAMPLER_PERCPU, cfg.sampler);
    CHECK(CP_SAMPLER_BY_SIGNAL(cfg.sampler) && CP_SAMPLER_WANTS_PERCPU(cfg.sampler));
    CHECK(cp_config_format(&cfg, text, sizeof(text)) > 0 && strstr(text, ";sampler=percpu") != NULL);
    /* the per-CPU clock's descriptor and the command's reason for none travel with the rest */
    CHECK_EQ(0, cp_config_parse("v=1;output_fd=5;output_id=1:2;clock_fd=9;clock_why=needs%20root%3B%20sorry", &cfg,
                                err, sizeof(err)));
    CHECK_EQ(9, cfg.clock_fd);
    CHECK_STR("needs root; sorry", cfg.clock_why);
    CHECK(cp_config_format(&cfg, text, sizeof(text)) > 0 && strstr(text, ";clock_fd=9;clock_why=needs%20root%3B%20sorry"));
    CHECK_EQ(-1, cp_config_parse("v=1;output=/tmp/x;clock_fd=x", &cfg, err, sizeof(err)));
    CHECK(strstr(err, "clock_fd 'x' is not a descriptor number") != NULL);
    CHECK_EQ(0, cp_config_parse("v=1;output=/tmp/x", &cfg, err, sizeof(err)));
    CHECK_EQ(-1, cfg.clock_fd);
    CHECK(cp_config_format(&cfg, text, sizeof(text)) > 0 && !strstr(text, "clock"));
}

/* The clock the signal sampler takes, and the reason it gives, for what
 * the process may do: perf where allowed (user time only when that is all),
 * CPU timers where refused, with the paranoia level or the seccomp filter
 * named; asked by name, said so. */
TEST(sig_clock_choice_and_reason)
{
    sig_clock_choice c;
    sig_perf_rights r = { .probe = SIG_PERF_ALLOWED, .paranoid = 2, .perfmon = 1 };

    sig_clock_choose(CP_SAMPLER_AUTO, NULL, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_PERF, c.clock);
    CHECK_EQ(0, c.flags);
    CHECK_STR("the default where perf events are allowed (perf_event_paranoid 2, and the process has CAP_PERFMON)",
              c.why);
    r.paranoid = 1;
    r.perfmon = 0;
    sig_clock_choose(CP_SAMPLER_AUTO, NULL, &r, &c);
    CHECK_STR("the default where perf events are allowed (perf_event_paranoid 1)", c.why);
    sig_clock_choose(CP_SAMPLER_PERF, NULL, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_PERF, c.clock);
    CHECK_STR("asked (--sampler perf)", c.why);

    r = (sig_perf_rights){ .probe = SIG_PERF_USER_ONLY, .paranoid = 2 };
    sig_clock_choose(CP_SAMPLER_AUTO, NULL, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_PERF, c.clock);
    CHECK_EQ(SAMPLER_FLAG_USER_ONLY, c.flags);
    CHECK_STR("the default where perf events are allowed, for user time only (perf_event_paranoid 2, without "
              "CAP_PERFMON): the time threads spend in the kernel is not sampled", c.why);

    r = (sig_perf_rights){ .probe = SIG_PERF_REFUSED, .err = EACCES, .paranoid = 3 };
    sig_clock_choose(CP_SAMPLER_AUTO, NULL, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_TIMER, c.clock);
    CHECK_STR("the default where perf events are refused: perf_event_paranoid is 3: only a process with "
              "CAP_PERFMON may open them (sysctl kernel.perf_event_paranoid=2 allows them)", c.why);
    r = (sig_perf_rights){ .probe = SIG_PERF_REFUSED, .err = EPERM, .paranoid = 2, .seccomp = 2 };
    sig_clock_choose(CP_SAMPLER_PERF, NULL, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_TIMER, c.clock);
    CHECK(strncmp(c.why, "--sampler perf was asked, but perf events are refused: a seccomp filter refuses "
                  "perf_event_open (", 95) == 0);
    r = (sig_perf_rights){ .probe = SIG_PERF_REFUSED, .err = ENOENT, .paranoid = -100 };
    sig_clock_choose(CP_SAMPLER_AUTO, NULL, &r, &c);
    CHECK(strstr(c.why, "this kernel has no perf events") != NULL);

    sig_clock_choose(CP_SAMPLER_SIGNAL, NULL, NULL, &c);
    CHECK_EQ(SAMPLER_CLOCK_TIMER, c.clock);
    CHECK_STR("asked (--sampler signal)", c.why);
}

/* The command's per-CPU clock, given: taken by auto, kstack and percpu
 * (its stacks by auto and kstack when its ring came with it), never by an
 * engine asked by name; not given: the process's own clock, and the
 * command's reason after its own. */
TEST(sig_clock_choice_percpu)
{
    sig_clock_choice c;
    sig_perf_rights r = { .probe = SIG_PERF_ALLOWED, .paranoid = 2, .perfmon = 1 };
    sig_percpu_offer given = { .given = 1, .why_not = "" };
    sig_percpu_offer refused = { .given = 0, .why_not = "loading BPF needs CAP_BPF and CAP_PERFMON (Operation not "
                                                          "permitted): run clrprobe as root" };

    sig_percpu_offer stacks = { .given = 1, .stacks = 1, .why_not = "" };

    /* the stacker's ring given: the stack engine, by default and asked */
    sig_clock_choose(CP_SAMPLER_AUTO, &stacks, NULL, &c);
    CHECK_EQ(SAMPLER_CLOCK_KSTACK, c.clock);
    CHECK_STR("the default where the clrprobe command may hold it (CAP_BPF and CAP_PERFMON)", c.why);
    sig_clock_choose(CP_SAMPLER_KSTACK, &stacks, NULL, &c);
    CHECK_EQ(SAMPLER_CLOCK_KSTACK, c.clock);
    CHECK_STR("asked (--sampler kstack)", c.why);
    /* the page without a ring (a kernel before BPF ring buffers): its signals */
    sig_clock_choose(CP_SAMPLER_KSTACK, &given, NULL, &c);
    CHECK_EQ(SAMPLER_CLOCK_PERCPU, c.clock);
    CHECK_STR("--sampler kstack was asked, but this kernel takes no stacks into a BPF ring buffer (Linux 5.8): the "
              "per-CPU clock's signals instead", c.why);
    sig_clock_choose(CP_SAMPLER_AUTO, &given, NULL, &c);
    CHECK_EQ(SAMPLER_CLOCK_PERCPU, c.clock);
    CHECK_STR("the default where the clrprobe command may hold it (CAP_BPF and CAP_PERFMON), on a kernel without BPF "
              "ring buffers (Linux 5.8)", c.why);
    sig_clock_choose(CP_SAMPLER_PERCPU, &given, NULL, &c);
    CHECK_EQ(SAMPLER_CLOCK_PERCPU, c.clock);
    CHECK_STR("asked (--sampler percpu)", c.why);
    sig_clock_choose(CP_SAMPLER_PERF, &given, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_PERF, c.clock);
    CHECK_STR("asked (--sampler perf)", c.why);
    sig_clock_choose(CP_SAMPLER_SIGNAL, &given, NULL, &c);
    CHECK_EQ(SAMPLER_CLOCK_TIMER, c.clock);

    sig_clock_choose(CP_SAMPLER_AUTO, &refused, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_PERF, c.clock);
    CHECK_STR("the default where perf events are allowed (perf_event_paranoid 2, and the process has CAP_PERFMON); "
              "no per-CPU clock: loading BPF needs CAP_BPF and CAP_PERFMON (Operation not permitted): run clrprobe "
              "as root", c.why);
    sig_clock_choose(CP_SAMPLER_KSTACK, &refused, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_TIMER, c.clock);
    sig_clock_choose(CP_SAMPLER_PERCPU, &refused, &r, &c);
    CHECK_EQ(SAMPLER_CLOCK_TIMER, c.clock);
    CHECK_STR("--sampler percpu was asked, but the clrprobe command holds no per-CPU clock (loading BPF needs CAP_BPF "
              "and CAP_PERFMON (Operation not permitted): run clrprobe as root): CPU timers instead", c.why);
    refused.why_not = "";
    sig_clock_choose(CP_SAMPLER_AUTO, &refused, &r, &c);
    CHECK_STR("the default where perf events are allowed (perf_event_paranoid 2, and the process has CAP_PERFMON)",
              c.why);
}

/* A signal-engine sample: flags say CPU timer or wall, waiting or not. */
static void sig_sample(synth *s, uint64_t t, uint64_t thread, uint32_t tid, uint64_t cpu_ns, uint64_t flags,
                       const uint64_t *frames, uint16_t n)
{
    rec_any v;
    memset(&v, 0, sizeof(v));
    v.sample.thread = thread;
    v.sample.os_tid = tid;
    v.sample.cpu_ns = cpu_ns;
    v.sample.nframes = n;
    v.sample.frames = frames;
    v.sample.flags = flags;
    synth_put(s, t, TK_SAMPLE, &v);
}

static void sig_tick(synth *s, uint64_t t, uint64_t interval, uint64_t signals, uint64_t periods, uint64_t cpu)
{
    rec_any v;
    memset(&v, 0, sizeof(v));
    v.sampler_tick.threads = 2;
    v.sampler_tick.sampler_cpu_ns = 1000000;
    v.sampler_tick.period_ns = 10000000;
    v.sampler_tick.engine = SAMPLER_ENGINE_SIGNAL;
    v.sampler_tick.interval_ns = interval;
    v.sampler_tick.signals = signals;
    v.sampler_tick.periods = periods;
    v.sampler_tick.thread_cpu_ns = cpu;
    synth_put(s, t, TK_SAMPLER_TICK, &v);
}

/* The stack App.Main -> App.Hot (leaf first), named in a trace that sig_begin starts. */
static const uint64_t hot[] = { 0x601, 0x600 };

static void sig_begin(synth *s, const char *name)
{
    synth_begin(s, name);
    synth_name(s, 1, 0x600, "App.Main");
    synth_name(s, 1, 0x601, "App.Hot");
}

TEST(sig_report_views_and_rate)
{
    static const uint64_t native[] = { SIG_NATIVE_ID_BIT | 1, 0x600 };
    synth s;
    rp_trace tr;
    rp_profile p;

    sig_begin(&s, "sig-views");
    synth_name(&s, 1, SIG_NATIVE_ID_BIT | 1, "libcrypto.so.3!SHA256_Update");
    synth_thread(&s, 2, 0xA0, 101, "worker");
    /* a thread that runs a tenth of the time: its CPU samples come 100 ms
     * apart (10 ms of CPU each); the suspend engine's quarter rule would drop
     * them, the signal engine's are CPU time whatever the gap */
    for (int i = 0; i < 10; i++)
        sig_sample(&s, 100000000ull * (uint64_t)(i + 1), 0xA0, 101, 10000000, SAMPLE_FLAG_CPU_TIMER, i % 2 ? hot : native,
                   2);
    /* a native thread (no ThreadID): 2 periods in one signal */
    sig_sample(&s, 500000000ull, TRACE_NATIVE_THREAD_BIT | 102, 102, 20000000, SAMPLE_FLAG_CPU_TIMER, hot, 2);
    /* wall samples: one running, two waiting */
    sig_sample(&s, 600000000ull, 0xA0, 101, 0, SAMPLE_FLAG_WALL, hot, 2);
    sig_sample(&s, 610000000ull, 0xA0, 101, 0, SAMPLE_FLAG_WALL | SAMPLE_FLAG_WAITING, hot, 2);
    sig_sample(&s, 620000000ull, 0xA0, 101, 0, SAMPLE_FLAG_WALL | SAMPLE_FLAG_WAITING | SAMPLE_FLAG_TRUNCATED, hot, 2);
    sig_tick(&s, 1000000000ull, 1000000000ull, 11, 12, 125000000ull);
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);

    CHECK_EQ(0, rp_profile_build(&tr, RP_VIEW_CPU, NULL, &p));
    CHECK_EQ(11, p.nsamples);
    CHECK_EQ(11, p.total_samples);
    CHECK_EQ(120000000ull, p.cpu_ns);
    CHECK_EQ(SAMPLER_ENGINE_SIGNAL, p.engine);
    CHECK_EQ(2, p.nthreads);
    CHECK_EQ(1000000000ull, p.duration_ns);
    /* the counting formats count periods: the native thread's sample stood for 2 */
    CHECK_EQ(12, rp_profile_count_total(&p));
    CHECK_EQ(12, p.total_count);                 /* (the "of": the same, unfiltered) */
    CHECK_EQ(12, p.threads[0].count + p.threads[1].count);
    /* 11 CPU samples in 0.125 s of the threads' CPU: 88 per CPU-second
     * (not judged low: under 20 periods of CPU) */
    CHECK(p.rate_hz > 87.9 && p.rate_hz < 88.1);
    CHECK_EQ(11, p.cpu_signals);
    CHECK_EQ(12, p.periods);
    CHECK(!rp_profile_rate_low(&p));
    CHECK_STR("samples per CPU-second", rp_profile_rate_unit(&p));
    {
        int native_seen = 0;
        for (size_t i = 0; i < p.nframes; i++)
            native_seen |= strcmp(p.frames[i], "libcrypto.so.3!SHA256_Update") == 0;
        CHECK(native_seen);
    }
    rp_profile_free(&p);

    /* one thread: its count of the whole's */
    CHECK_EQ(0, rp_profile_build(&tr, RP_VIEW_CPU, "worker", &p));
    CHECK_EQ(1, p.nthreads);
    CHECK_EQ(10, rp_profile_count_total(&p));
    CHECK_EQ(12, p.total_count);
    rp_profile_free(&p);

    CHECK_EQ(0, rp_profile_build(&tr, RP_VIEW_WALL, NULL, &p));
    CHECK_EQ(3, p.nsamples);
    CHECK_EQ(2, p.waiting);
    CHECK_EQ(1, p.truncated);
    CHECK_EQ(3 * 10000000ull, rp_profile_total(&p));
    rp_profile_free(&p);
    synth_done(&s, &tr);
}

/* A thread's first period joins its samples' renewal process at a random
 * point: over many threads that each use C of CPU, the samples average C/P
 * whatever C (a thread that uses 3/10 of a period is sampled 3 times in
 * 10), where a fresh first period gives about half a sample fewer each. */
TEST(sig_first_period_counts_cpu_over_period)
{
    const uint64_t period = 10000000;
    uint64_t random = 12345;
    const double cpus[] = { 0.3, 1.0, 2.7 };

    for (size_t k = 0; k < sizeof(cpus) / sizeof(cpus[0]); k++) {
        const int threads = 20000;
        uint64_t samples = 0, cpu = (uint64_t)(cpus[k] * (double)period);
        for (int i = 0; i < threads; i++) {
            uint64_t at = sig_first_period(period, &random);
            while (at <= cpu) {
                samples++;
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                at += period / 2 + random % period;
            }
        }
        double mean = (double)samples / threads;
        /* (the count of one thread varies by less than 1: 4 sigma of the mean of 20000 is under 0.03) */
        CHECK(mean > cpus[k] - 0.03 && mean < cpus[k] + 0.03);
    }
    CHECK(sig_first_period(period, &random) >= SIG_PERIOD_MIN_NS);
}

/* The sampled threads' CPU a tick counts: by the thread's clock while it
 * runs, however its samples fall between ticks (a sample that holds CPU of
 * the tick before adds nothing); once it has ended, what its last samples
 * hold beyond what its clock was seen to use. */
TEST(sig_slot_cpu_counted_over_the_thread_life)
{
    sig_slot sl;
    uint64_t total = 0;

    memset(&sl, 0, sizeof(sl));
    sl.cpu_last = 1000;                 /* (its clock when it took the slot) */
    sl.sampled_base = 500;              /* (the slot's sampled_ns then) */
    total += sig_slot_cpu_used(&sl, 500 + 25, 1000 + 30, 0);      /* 30 used, samples hold 25 */
    CHECK_EQ(30, total);
    total += sig_slot_cpu_used(&sl, 500 + 58, 1000 + 60, 0);      /* 30 more; samples 33 more (5 from before) */
    CHECK_EQ(60, total);
    total += sig_slot_cpu_used(&sl, 500 + 58, 1000 + 60, 0);      /* idle */
    CHECK_EQ(60, total);
    total += sig_slot_cpu_used(&sl, 500 + 72, 0, 0);              /* ended: its last sample holds 72 in all */
    CHECK_EQ(72, total);
    total += sig_slot_cpu_used(&sl, 500 + 72, 0, 0);              /* (counted once) */
    CHECK_EQ(72, total);

    /* with a perf event: an ended thread's CPU after the last tick is what
     * its event counted since (its samples need not hold it all) */
    memset(&sl, 0, sizeof(sl));
    total = 0;
    sl.cpu_last = 1000;
    total += sig_slot_cpu_used(&sl, 20, 1000 + 30, 28);            /* (the event counts a little less) */
    CHECK_EQ(30, total);
    total += sig_slot_cpu_used(&sl, 20, 0, 28 + 9);                /* ended 9 of its event's ns later */
    CHECK_EQ(39, total);
    total += sig_slot_cpu_used(&sl, 20, 0, 28 + 9);
    CHECK_EQ(39, total);
}

/* A thread sampled before the runtime's records of it (the signal engine
 * samples a thread before ThreadCreated says it exists) is one row, with
 * the name the records give it: one OS thread, one row. */
TEST(sig_report_thread_sampled_before_its_records)
{
    synth s;
    rp_trace tr;
    rp_profile p;

    sig_begin(&s, "sig-early");
    sig_sample(&s, 50000000ull, 0xB0, 201, 10000000, SAMPLE_FLAG_CPU_TIMER, hot, 2);
    synth_thread(&s, 60000000ull, 0xB0, 201, "late");
    sig_sample(&s, 70000000ull, 0xB0, 201, 10000000, SAMPLE_FLAG_CPU_TIMER, hot, 2);
    sig_tick(&s, 100000000ull, 100000000ull, 2, 2, 20000000ull);
    CHECK_EQ(synth_load(&s, &tr), TRACE_OK);
    CHECK_EQ(0, rp_profile_build(&tr, RP_VIEW_CPU, NULL, &p));
    CHECK_EQ(1, p.nthreads);
    CHECK_STR("late (201)", p.threads[0].name);
    CHECK_EQ(2, p.threads[0].count);
    rp_profile_free(&p);
    synth_done(&s, &tr);
}
