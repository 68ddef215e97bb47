/* profile_text.c - the profile part of `report --format text` ("Where time
 * goes"): the sampling overhead, then the top functions by self and total
 * samples, overall and per thread. */
#include "report/report.h"
#include "common/escape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct fstat { uint32_t frame; uint64_t self, total; } fstat;

static int by_self(const void *a, const void *b)
{
    const fstat *x = a, *y = b;
    return x->self != y->self ? (x->self < y->self ? 1 : -1) : (x->total < y->total) - (x->total > y->total);
}

static int by_total(const void *a, const void *b)
{
    const fstat *x = a, *y = b;
    return x->total != y->total ? (x->total < y->total ? 1 : -1) : (x->self < y->self) - (x->self > y->self);
}

/* Self and total counts per frame over the samples of one thread (or all, thread < 0). */
static fstat *frame_stats(const rp_profile *p, long thread, uint64_t *n)
{
    fstat *st = calloc(p->nframes ? p->nframes : 1, sizeof(*st));
    uint32_t *mark = calloc(p->nframes ? p->nframes : 1, sizeof(*mark));
    uint32_t stamp = 0;

    *n = 0;
    if (!st || !mark) {
        free(st);
        free(mark);
        return NULL;
    }
    for (size_t f = 0; f < p->nframes; f++)
        st[f].frame = (uint32_t)f;
    for (size_t i = 0; i < p->nsamples; i++) {
        const rp_sample *s = &p->samples[i];
        if (thread >= 0 && s->thread != (uint32_t)thread)
            continue;
        (*n)++;
        stamp++;
        if (s->nframes)
            st[s->frames[s->nframes - 1]].self++;
        for (uint32_t k = 0; k < s->nframes; k++) {
            uint32_t f = s->frames[k];
            if (mark[f] != stamp) {          /* recursion counts once */
                mark[f] = stamp;
                st[f].total++;
            }
        }
    }
    free(mark);
    return st;
}

/* The top of st by cmp under a title line; the title of a thread's list is
 * "Thread LABEL: N samples, N.NN s of CPU time, top by self:" (title NULL),
 * with the thread's label escaped. */
static void top_list(const rp_profile *p, fstat *st, uint64_t n, int (*cmp)(const void *, const void *),
                     const char *title, long thread, size_t limit, FILE *out)
{
    qsort(st, p->nframes, sizeof(*st), cmp);
    if (title) {
        fprintf(out, "  %s\n", title);
    } else {
        fputs("  Thread ", out);
        esc_puts(out, p->threads[thread].name);
        fprintf(out, ": %" PRIu64 " samples, %.2f s of CPU time, top by self:\n", n,
                (double)p->threads[thread].cpu_ns / 1e9);
    }
    fprintf(out, "  %8s %7s %8s %7s  %s\n", "self", "", "total", "", "function");
    for (size_t i = 0; i < p->nframes && i < limit; i++) {
        if ((cmp == by_self ? st[i].self : st[i].total) == 0)
            break;
        fprintf(out, "  %8" PRIu64 " %6.1f%% %8" PRIu64 " %6.1f%%  ", st[i].self, 100.0 * (double)st[i].self / (double)n,
                st[i].total, 100.0 * (double)st[i].total / (double)n);
        esc_puts(out, p->frames[st[i].frame]);
        putc('\n', out);
    }
}

/* A percentage (>= 0) as "%.0f" prints it. */
static double rounded(double pct)
{
    return (double)(long)(pct + 0.5);
}

int rp_format_process_cpu(const rp_profile *p, char *buf, size_t len)
{
    rp_process_share sh;
    double shown;               /* the parts as printed, so that they add up to 100% */
    size_t n;

    if (!len || !rp_profile_process_share(p, &sh)) {
        if (len)
            buf[0] = '\0';
        return 0;
    }
    if (p->processes > 1)
        snprintf(buf, len, "the %" PRIu32 " processes used %.2f s of CPU time (the kernel's count, every thread): "
                 "%.0f%% in this view", p->processes, (double)p->process_cpu_ns / 1e9, sh.view_pct);
    else
        snprintf(buf, len, "the process used %.2f s of CPU time (the kernel's count, every thread): %.0f%% in "
                 "this view", (double)p->process_cpu_ns / 1e9, sh.view_pct);
    shown = rounded(sh.view_pct);
    n = strlen(buf);
    if (p->cpu_unshown_ns >= 5000000 && n < len) {
        n += (size_t)snprintf(buf + n, len - n, ", %.0f%% in samples of threads that were mostly waiting",
                              sh.waiting_pct);
        shown += rounded(sh.waiting_pct);
    }
    if (p->sampler_cpu_ns && n < len) {
        n += (size_t)snprintf(buf + n, len - n, ", %.0f%% in the sampler", sh.sampler_pct);
        shown += rounded(sh.sampler_pct);
    }
    if (n < len)
        snprintf(buf + n, len - n, ", %.0f%% in threads %s", shown < 100 ? 100 - shown : 0,
                 p->filtered ? "--thread left out and threads the sampler cannot see (the runtime's GC, JIT "
                               "and other native threads)"
                             : "the sampler cannot see (the runtime's GC, JIT and other native threads)");
    return 1;
}

void rp_write_profile_totals(const rp_profile *p, const char *indent, FILE *out)
{
    char process[512];

    double dur = (double)p->duration_ns / 1e9, cpu = (double)p->cpu_ns / 1e9;

    if (p->view == RP_VIEW_CPU) {
        fprintf(out, "%s%.2f s of CPU time in %.2f s (%.2f CPUs on average)", indent, cpu, dur,
                dur > 0 ? cpu / dur : 0.0);
        if (p->cpu_unshown_ns >= 5000000)          /* (what rounds to 0.01 s or more) */
            fprintf(out, "; %.2f s more in samples of threads that were mostly waiting (--view wall shows them)",
                    (double)p->cpu_unshown_ns / 1e9);
        putc('\n', out);
    } else {
        fprintf(out, "%s%.2f s of thread time (%zu samples x %.1f ms, running or waiting) in %.2f s; "
                "%.2f s of CPU time\n", indent, (double)rp_profile_total(p) / 1e9, p->nsamples,
                (double)p->period_ns / 1e6, dur, cpu);
    }
    if (rp_format_process_cpu(p, process, sizeof(process)))
        fprintf(out, "%s%s\n", indent, process);
    if (p->ticks)
        fprintf(out, "%srate: %.1f ticks/s achieved of %.1f asked (every %.1f ms)%s\n", indent, p->rate_hz,
                rp_profile_asked_hz(p), (double)p->period_ns / 1e6,
                rp_profile_rate_low(p) ? "; warning: below 90% of the rate asked, so samples are fewer than "
                                         "the rate says (ticks are skipped while a GC holds the runtime, or "
                                         "the sampler waits for a CPU)" : "");
    else
        fprintf(out, "%srate: every %.1f ms asked (the trace has no tick records)\n", indent,
                (double)p->period_ns / 1e6);
}

void rp_write_profile_text(const rp_profile *p, FILE *out)
{
    uint64_t n;
    fstat *st;

    fprintf(out, "\nWhere time goes (%s view: %zu samples of %" PRIu64 "; %s)\n",
            p->view == RP_VIEW_CPU ? "CPU" : "wall-clock", p->nsamples, p->total_samples,
            p->view == RP_VIEW_CPU ? "threads that were on a CPU for at least a quarter of the time since their "
                                     "previous sample"
                                   : "all samples, running or waiting");
    rp_write_profile_totals(p, "  ", out);
    if (p->ticks)
        fprintf(out, "  sampler overhead: %" PRIu64 " ticks, runtime suspended %.2f ms on average (longest "
                "%.2f ms), sampler CPU %.1f ms in all, %" PRIu64 " stacks that could not be taken\n",
                p->ticks, (double)p->suspend_ns / (double)p->ticks / 1e6, (double)p->max_suspend_ns / 1e6,
                (double)p->sampler_cpu_ns / 1e6, p->failed);
    if (!p->nsamples)
        return;
    st = frame_stats(p, -1, &n);
    if (!st)
        return;
    top_list(p, st, n, by_self, "Top functions by self time:", -1, 20, out);
    top_list(p, st, n, by_total, "Top functions by total time (self + callees):", -1, 20, out);
    free(st);
    for (size_t t = 0; t < p->nthreads; t++) {
        st = frame_stats(p, (long)t, &n);
        if (!st)
            return;
        top_list(p, st, n, by_self, NULL, (long)t, 5, out);
        free(st);
    }
}
