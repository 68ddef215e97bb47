/* test_profile_merge.c - several processes' profiles as one
 * (rp_profile_merge): the process is every sample's root frame, frames
 * are shared by name, threads follow one another, times are shifted,
 * samples end in time order and counts add up. */
#include "unit.h"
#include "report/profile.h"

TEST(profile_merge_roots_frames_threads)
{
    char *fa[] = { "Main", "Work" }, *fb[] = { "Work", "Other" };
    rp_pthread ta[] = { { .name = "main (10)", .managed_name = "main", .os_name = "", .os_tid = 10, .samples = 2,
                          .cpu_ns = 7 } },
               tb[] = { { .name = "main (20)", .managed_name = "main", .os_name = "", .os_tid = 20, .samples = 1,
                          .cpu_ns = 3 },
                        { .name = "worker (21)", .managed_name = "worker", .os_name = "w", .os_tid = 21, .samples = 1 } };
    const char *la[] = { "main (10)" }, *lb[] = { "main (20)", "worker (21)" };
    uint32_t s1[] = { 0, 1 }, s2[] = { 0 }, s3[] = { 1, 0 }, s4[] = { 0 };
    rp_sample sa[] = { { .t = 5, .thread = 0, .nframes = 2, .frames = s1, .cpu_ns = 7 },
                       { .t = 30, .thread = 0, .nframes = 1, .frames = s2, .cpu_ns = 0 } };
    rp_sample sb[] = { { .t = 1, .thread = 1, .nframes = 2, .frames = s3, .cpu_ns = 3 },
                       { .t = 2, .thread = 0, .nframes = 1, .frames = s4, .cpu_ns = 0 } };
    rp_profile parts[2], m;
    const char *roots[] = { "dotnet (pid 10)", "App (pid 20)" };
    uint64_t offsets[] = { 0, 10 };

    memset(parts, 0, sizeof(parts));
    parts[0] = (rp_profile){ .frames = fa, .nframes = 2, .threads = ta, .nthreads = 1, .samples = sa, .nsamples = 2,
                             .total_samples = 4, .ticks = 3, .period_ns = 10000000, .max_suspend_ns = 5,
                             .cpu_ns = 7, .duration_ns = 40, .labels = la, .nlabels = 1 };
    parts[1] = (rp_profile){ .frames = fb, .nframes = 2, .threads = tb, .nthreads = 2, .samples = sb, .nsamples = 2,
                             .total_samples = 2, .ticks = 2, .period_ns = 10000000, .max_suspend_ns = 9,
                             .cpu_ns = 3, .duration_ns = 50, .filter_matched = 1, .labels = lb, .nlabels = 2 };
    CHECK_EQ(rp_profile_merge(parts, roots, offsets, 2, &m), 0);
    CHECK_EQ(m.nframes, 5);                  /* two roots, Main, Work (shared), Other */
    CHECK_EQ(m.nthreads, 3);
    CHECK_STR(m.threads[2].name, "worker (21)");
    CHECK_STR(m.threads[2].managed_name, "worker");
    CHECK_STR(m.threads[2].os_name, "w");
    CHECK(m.threads[2].os_name != tb[1].os_name);   /* copies: the merged profile owns its strings */
    CHECK_EQ(m.cpu_ns, 10);
    CHECK_EQ(m.duration_ns, 60);                    /* from 0 to 10 + 50 */
    CHECK_EQ(m.filter_matched, 1);
    CHECK_EQ(m.nlabels, 3);
    CHECK_STR(m.labels[2], "worker (21)");
    CHECK(m.labels != la);
    CHECK_EQ(m.nsamples, 4);
    CHECK_EQ(m.total_samples, 6);
    CHECK_EQ(m.ticks, 5);
    CHECK_EQ(m.max_suspend_ns, 9);
    CHECK_EQ(m.period_ns, 10000000);
    /* in time order: a@5, b@1+10, b@2+10, a@30 */
    CHECK_EQ(m.samples[0].t, 5);
    CHECK_EQ(m.samples[1].t, 11);
    CHECK_EQ(m.samples[2].t, 12);
    CHECK_EQ(m.samples[3].t, 30);
    CHECK_STR(m.frames[m.samples[0].frames[0]], "dotnet (pid 10)");
    CHECK_EQ(m.samples[0].nframes, 3);
    CHECK_STR(m.frames[m.samples[0].frames[2]], "Work");
    CHECK_EQ(m.samples[0].cpu_ns, 7);
    CHECK_STR(m.frames[m.samples[1].frames[0]], "App (pid 20)");
    CHECK_STR(m.frames[m.samples[1].frames[1]], "Other");
    CHECK_STR(m.frames[m.samples[1].frames[2]], "Work");
    CHECK_EQ(m.samples[1].frames[2], m.samples[0].frames[2]);
    CHECK_EQ(m.samples[1].thread, 2);       /* b's second thread, after a's one */
    CHECK_STR(m.threads[m.samples[2].thread].name, "main (20)");
    CHECK_EQ(m.threads[m.samples[2].thread].os_tid, 20);
    CHECK_EQ(m.process_cpu_ns, 0);                  /* neither part has the process's CPU */
    rp_profile_free(&m);
    /* the processes' CPU adds up when every part has it, else it is unknown */
    parts[0].process_cpu_ns = 100;
    parts[0].processes = 1;
    CHECK_EQ(rp_profile_merge(parts, roots, offsets, 2, &m), 0);
    CHECK_EQ(m.process_cpu_ns, 0);
    CHECK_EQ(m.processes, 0);
    rp_profile_free(&m);
    parts[1].process_cpu_ns = 50;
    parts[1].processes = 1;
    CHECK_EQ(rp_profile_merge(parts, roots, offsets, 2, &m), 0);
    CHECK_EQ(m.process_cpu_ns, 150);
    CHECK_EQ(m.processes, 2);
    rp_profile_free(&m);
}

/* An empty stack (no managed frames) keeps the name a single profile shows
 * for it, under its process's root. */
TEST(profile_merge_empty_stack)
{
    char *fa[] = { "Main" };
    rp_pthread ta[] = { { .name = "main (10)", .managed_name = "main", .os_name = "", .os_tid = 10, .samples = 1 } };
    rp_sample sa[] = { { .t = 5, .thread = 0, .nframes = 0, .frames = NULL } };
    rp_profile part, m;
    const char *roots[] = { "App (pid 10)" };

    part = (rp_profile){ .frames = fa, .nframes = 1, .threads = ta, .nthreads = 1, .samples = sa, .nsamples = 1,
                         .total_samples = 1, .period_ns = 10000000 };
    CHECK_EQ(rp_profile_merge(&part, roots, NULL, 1, &m), 0);
    CHECK_EQ(m.nsamples, 1);
    CHECK_EQ(m.samples[0].nframes, 2);
    CHECK_STR(m.frames[m.samples[0].frames[0]], "App (pid 10)");
    CHECK_STR(m.frames[m.samples[0].frames[1]], "[no managed frames]");
    rp_profile_free(&m);
}
