/* profile_text.c - the profile part of `report --format text` ("Where time
 * goes" in the cpu and wall views; "The VIEW view" in the others): the
 * totals (and in the CPU views the sampling overhead), then the top
 * functions by self and total; and, apart, per thread: counted in samples
 * in the CPU views, in the view's unit in the others (rp_sample_count). */
#include "report/report.h"
#include "report/alloc_estimate.h"
#include "report/frame_class.h"
#include "common/escape.h"
#include "report/sort.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A frame's counts: as the leaf, anywhere, and as one of the process's
 * roots (thread start, the runtime's dispatch: frame_class.h). */
typedef struct fstat { uint32_t frame; uint64_t self, total, root; } fstat;

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

/* Self, total and root counts per frame over the samples of one thread (or all, thread < 0). */
static fstat *frame_stats(const rp_profile *p, long thread, uint64_t *n)
{
    fstat *st = calloc(p->nframes ? p->nframes : 1, sizeof(*st));
    uint32_t *mark = calloc(p->nframes ? p->nframes : 1, sizeof(*mark));
    uint8_t *cls = malloc(p->nframes ? p->nframes : 1), *stack = NULL;
    uint32_t stamp = 0, maxdepth = 0;

    *n = 0;
    for (size_t i = 0; i < p->nsamples; i++)
        if (p->samples[i].nframes > maxdepth)
            maxdepth = p->samples[i].nframes;
    if (!st || !mark || !cls || !(stack = malloc(maxdepth ? maxdepth : 1))) {
        free(st);
        free(mark);
        free(cls);
        free(stack);
        return NULL;
    }
    for (size_t f = 0; f < p->nframes; f++) {
        st[f].frame = (uint32_t)f;
        cls[f] = (uint8_t)rp_frame_classify(rp_frame_plain(p, f));
    }
    for (size_t i = 0; i < p->nsamples; i++) {
        const rp_sample *s = &p->samples[i];
        if (thread >= 0 && s->thread != (uint32_t)thread)
            continue;
        uint64_t c = rp_sample_count(p, s);
        uint32_t roots;
        *n += c;
        stamp++;
        if (s->nframes)
            st[s->frames[s->nframes - 1]].self += c;
        for (uint32_t k = 0; k < s->nframes; k++)
            stack[k] = cls[s->frames[k]];
        roots = rp_frame_root_prefix(stack, s->nframes);
        for (uint32_t k = 0; k < s->nframes; k++) {
            uint32_t f = s->frames[k];
            if (mark[f] != stamp) {          /* recursion counts once */
                mark[f] = stamp;
                st[f].total += c;
                st[f].root += k < roots ? c : 0;
            }
        }
    }
    free(mark);
    free(cls);
    free(stack);
    return st;
}

/* A count of the view as a table shows it: samples in the CPU views, else
 * the view's unit (bytes as "1.2 MiB", objects bare, time as "1.2 ms"). */
static void cell(const rp_profile *p, uint64_t v, char *buf, size_t len)
{
    if (rp_view_of(p->view)->counts_samples || p->view == RP_VIEW_ALLOC_COUNT || v == 0)
        snprintf(buf, len, "%" PRIu64, v);
    else
        rp_view_format(p->view, v, buf, len);
}

/* The top of st by cmp under a title line; the title of a thread's list is
 * "Thread LABEL: N samples, N.NN s of CPU time, top by self:" (title NULL;
 * in the other views the thread's total in the view's unit), with the
 * thread's label escaped. */
/* The whole-profile tables list their first TOP_FULL_ROWS rows, then only
 * the rows of 1% or more (up to the table's limit). */
#define TOP_FULL_ROWS 10

static void top_list(const rp_profile *p, fstat *st, uint64_t n, int (*cmp)(const void *, const void *),
                     const char *title, long thread, size_t limit, FILE *out)
{
    int w = rp_view_of(p->view)->counts_samples ? 8 : 11;
    char a[32], b[32];
    size_t roots = 0, small = 0;

    rp_sort(st, p->nframes, sizeof(*st), cmp);
    if (title) {
        fprintf(out, "  %s\n", title);
    } else if (rp_view_of(p->view)->counts_samples) {
        fputs("  Thread ", out);
        esc_puts(out, p->threads[thread].name);
        fprintf(out, ": %" PRIu64 " samples, %.2f s of CPU time, top by self:\n", n,
                (double)p->threads[thread].cpu_ns / 1e9);
    } else {
        fputs("  Thread ", out);
        esc_puts(out, p->threads[thread].name);
        rp_view_format(p->view, p->threads[thread].weight, a, sizeof(a));
        fprintf(out, ": %" PRIu64 " samples, %s, top by self:\n", p->threads[thread].samples, a);
    }
    fprintf(out, "  %*s %7s %*s %7s  %s\n", w, "self", "", w, "total", "", "function");
    for (size_t i = 0, shown = 0; i < p->nframes && shown < limit; i++) {
        if ((cmp == by_self ? st[i].self : st[i].total) == 0)
            break;
        if (cmp == by_total && !(p->options & RP_PROFILE_RAW_FRAMES) && st[i].root * 2 > st[i].total) {
            roots++;                         /* (mostly the process's roots: under everything, saying nothing) */
            continue;
        }
        if (title && shown >= TOP_FULL_ROWS && (cmp == by_self ? st[i].self : st[i].total) * 100 < n) {
            small++;                         /* (the tail under 1%: the first screen keeps the hot lines in view) */
            continue;
        }
        shown++;
        cell(p, st[i].self, a, sizeof(a));
        cell(p, st[i].total, b, sizeof(b));
        fprintf(out, "  %*s %6.1f%% %*s %6.1f%%  ", w, a, 100.0 * (double)st[i].self / (double)n, w, b,
                100.0 * (double)st[i].total / (double)n);
        esc_puts(out, p->frames[st[i].frame]);
        putc('\n', out);
    }
    if (small)
        fprintf(out, "  (%zu more function%s under 1%% each; --format collapsed or html lists every frame)\n", small,
                small == 1 ? "" : "s");
    if (roots)
        fprintf(out, "  (%zu frame%s under the program's own left out: thread starts and the runtime's dispatch loops; "
                "--raw-frames shows them)\n", roots, roots == 1 ? "" : "s");
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
    if (n < len && p->engine == SAMPLER_ENGINE_SIGNAL)
        snprintf(buf + n, len - n, ", %.0f%% %s", shown < 100 ? 100 - shown : 0,
                 p->filtered ? "in threads --thread left out, and CPU between a thread's last sample and its end"
                             : "not sampled (CPU between a thread's last sample and its end, the agent's own threads)");
    else if (n < len)
        snprintf(buf + n, len - n, ", %.0f%% in threads %s", shown < 100 ? 100 - shown : 0,
                 p->filtered ? "--thread left out and threads the sampler cannot see (the runtime's GC, JIT "
                               "and other native threads)"
                             : "the sampler cannot see (the runtime's GC, JIT and other native threads)");
    return 1;
}

/* The totals of the allocation and contention views (rp_write_profile_totals). */
static void view_totals(const rp_profile *p, const char *indent, FILE *out)
{
    char total[32], bytes[32], dur[32], t[32], buf[256];

    rp_view_format(p->view, rp_profile_total(p), total, sizeof(total));
    rp_view_format(RP_VIEW_CONTENTION, p->duration_ns, dur, sizeof(dur));
    rp_format_bytes((uint64_t)llround(p->bytes), bytes, sizeof(bytes));
    switch (p->view) {
    case RP_VIEW_ALLOC:
        fprintf(out, "%s%s allocated in %.0f objects over %s, from %zu allocation samples\n", indent, total,
                p->objects, dur, p->nsamples);
        break;
    case RP_VIEW_ALLOC_COUNT:
        fprintf(out, "%s%s allocated (%s) over %s, from %zu allocation samples\n", indent, total, bytes, dur,
                p->nsamples);
        break;
    case RP_VIEW_LIVE:
        rp_view_format(RP_VIEW_CONTENTION, p->live_last_gc_t, t, sizeof(t));
        fprintf(out, "%s%s in %.0f objects alive after GC %" PRIu32 " (at %s, the last of the %" PRIu32 " the live "
                "view saw)\n%sfrom %zu of %" PRIu64 " followed allocation samples; ", indent, total, p->objects,
                p->live_last_gc, t, p->live_gcs, indent, p->nsamples, p->followed);
        fprintf(out, "%s\n", rp_alloc_scaling(p->alloc_methods, 1));
        if (p->unexamined)
            fprintf(out, "%s%s\n", indent, rp_live_unexamined(p, buf, sizeof(buf)));
        return;
    case RP_VIEW_EXCEPTIONS:
        fprintf(out, "%s%s thrown over %s, from %zu sampled throw stacks (each stands for the exceptions of its "
                "type on its thread since the one before)\n", indent, total, dur, p->nsamples);
        return;
    default:
        fprintf(out, "%s%s waited in %zu lock waits on %zu thread%s, over %s\n", indent, total, p->nsamples,
                p->nthreads, p->nthreads == 1 ? "" : "s", dur);
        return;
    }
    fprintf(out, "%s%s\n", indent, rp_alloc_scaling(p->alloc_methods, 1));
}

void rp_format_sampler(unsigned engine, unsigned clock, const char *why, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s; why: %s", engine != SAMPLER_ENGINE_SIGNAL ? "suspend engine"
                                       : clock == SAMPLER_CLOCK_KSTACK ? "stack engine, " : "signal engine, ",
             engine != SAMPLER_ENGINE_SIGNAL ? "" : rp_clock_phrase(clock), why);
}

/* "sampler: ..." (rp_format_sampler), from the trace's sampler_start
 * (nothing from an earlier agent). */
static void sampler_line(const rp_profile *p, const char *indent, FILE *out)
{
    char text[512];

    if (!p->sampler_why[0])
        return;
    rp_format_sampler(p->engine, p->clock, p->sampler_why, text, sizeof(text));
    fprintf(out, "%ssampler: ", indent);
    esc_puts(out, text);
    putc('\n', out);
}

void rp_write_profile_totals(const rp_profile *p, const char *indent, FILE *out)
{
    char process[512];

    double dur = (double)p->duration_ns / 1e9, cpu = (double)p->cpu_ns / 1e9;

    if (rp_view_of(p->view)->family != RP_FAMILY_TIME) {
        view_totals(p, indent, out);
        return;
    }
    if (p->view == RP_VIEW_CPU) {
        fprintf(out, "%s%.2f s of CPU time in %.2f s (%.2f CPUs on average)", indent, cpu, dur,
                dur > 0 ? cpu / dur : 0.0);
        if (p->cpu_unshown_ns >= 5000000)          /* (what rounds to 0.01 s or more) */
            fprintf(out, "; %.2f s more in samples of threads that were mostly waiting (--view wall shows them)",
                    (double)p->cpu_unshown_ns / 1e9);
        putc('\n', out);
    } else if (p->engine == SAMPLER_ENGINE_SIGNAL) {
        /* (the signal engine's wall samples measure no CPU: the CPU view does) */
        fprintf(out, "%s%.2f s of thread time (%zu samples x %.1f ms, running or waiting) in %.2f s\n", indent,
                (double)rp_profile_total(p) / 1e9, p->nsamples, (double)rp_profile_sample_period(p) / 1e6, dur);
        fprintf(out, "%srate: every thread signalled every %.1f ms (wall-clock ticks)\n", indent,
                (double)rp_profile_sample_period(p) / 1e6);
        sampler_line(p, indent, out);
        return;
    } else {
        fprintf(out, "%s%.2f s of thread time (%zu samples x %.1f ms, running or waiting) in %.2f s; "
                "%.2f s of CPU time\n", indent, (double)rp_profile_total(p) / 1e9, p->nsamples,
                (double)rp_profile_sample_period(p) / 1e6, dur, cpu);
    }
    if (rp_format_process_cpu(p, process, sizeof(process)))
        fprintf(out, "%s%s\n", indent, process);
    if (p->ticks && p->engine == SAMPLER_ENGINE_SIGNAL)
        fprintf(out, "%srate: %.1f samples per CPU-second achieved of %.1f asked (%s; one every %.1f ms of a thread's "
                "CPU time asked, each holding %s; they hold %.2f s of the %.2f s "
                "the sampled threads used)%s%s\n", indent, p->rate_hz, rp_profile_asked_hz(p),
                rp_clock_phrase(p->clock), (double)p->period_ns / 1e6,
                p->clock == SAMPLER_CLOCK_KSTACK ? "one period" : "the CPU since the thread's previous one",
                (double)p->periods * (double)p->period_ns / 1e9, (double)p->thread_cpu_ns / 1e9,
                rp_profile_rate_low(p) ? "; below 80% of the rate asked: " : "",
                rp_profile_rate_low(p) ? rp_profile_rate_low_reason(p) : "");
    else if (p->ticks)
        fprintf(out, "%srate: %.1f ticks/s achieved of %.1f asked (every %.1f ms)%s\n", indent, p->rate_hz,
                rp_profile_asked_hz(p), (double)p->period_ns / 1e6,
                rp_profile_rate_low(p) ? "; warning: below 90% of the rate asked, so samples are fewer than "
                                         "the rate says (ticks are skipped while a GC holds the runtime, or "
                                         "the sampler waits for a CPU)" : "");
    else
        fprintf(out, "%srate: every %.1f ms asked (the trace has no tick records)\n", indent,
                (double)p->period_ns / 1e6);
    sampler_line(p, indent, out);
}

void rp_write_profile_text(const rp_profile *p, FILE *out)
{
    const rp_view_info *vi = rp_view_of(p->view);
    uint64_t n;
    fstat *st;
    char self[96], total[96];

    if (vi->family != RP_FAMILY_TIME) {
        const char *why = rp_live_empty_reason(p);
        fprintf(out, "\nThe %s view (%s: %zu samples of %" PRIu64 ")\n", vi->name, vi->counts, p->nsamples,
                p->total_samples);
        if (why && !p->filtered)
            fprintf(out, "  empty: %s\n", why);
        else
            rp_write_profile_totals(p, "  ", out);
        if (!p->nsamples)
            return;
        if ((st = frame_stats(p, -1, &n)) == NULL)
            return;
        snprintf(self, sizeof(self), "Top frames by self %s (the leaf of %s):",
                 vi->family == RP_FAMILY_CONTENTION ? "time" : vi->unit,
                 vi->family == RP_FAMILY_MEMORY       ? "an allocation is its type"
                 : vi->family == RP_FAMILY_EXCEPTIONS ? "an exception is its type"
                                                      : "a wait is the lock's type, if known");
        snprintf(total, sizeof(total), "Top frames by total %s (self + callees):",
                 vi->family == RP_FAMILY_CONTENTION ? "time" : vi->unit);
        top_list(p, st, n, by_self, self, -1, 20, out);
        top_list(p, st, n, by_total, total, -1, 20, out);
        free(st);
        return;
    }
    {
        /* (the signal engine's CPU samples count the periods of CPU they
         * hold, the suspend engine's one each: the tables, every format and
         * this line add those up) */
        uint64_t count = rp_profile_count_total(p);
        char taken[96] = "";
        if (count != p->nsamples)
            snprintf(taken, sizeof(taken), " (%zu taken, each counted as the periods of CPU it holds)", p->nsamples);
        fprintf(out, "\nWhere time goes (%s view: %" PRIu64 " samples of %" PRIu64 "%s; %s)\n",
                p->view == RP_VIEW_CPU ? "CPU" : "wall-clock", count, p->total_count, taken,
                p->engine == SAMPLER_ENGINE_SIGNAL
                    ? (p->view == RP_VIEW_CPU && p->clock == SAMPLER_CLOCK_KSTACK
                           ? "stack sampler: a stack after every period of a thread's CPU time, taken by the kernel "
                             "(by a signal in a system call), "
                             "native and managed frames"
                       : p->view == RP_VIEW_CPU ? "signal sampler: a sample after every period of a thread's CPU time, "
                                                "native and managed frames"
                                              : "signal sampler: every thread at the rate, running or waiting")
                    : (p->view == RP_VIEW_CPU ? "threads that were on a CPU for at least a quarter of the time since "
                                                "their previous sample"
                                              : "all samples, running or waiting"));
    }
    rp_write_profile_totals(p, "  ", out);
    if (p->view == RP_VIEW_WALL && p->engine == SAMPLER_ENGINE_SIGNAL && p->nsamples)
        fprintf(out, "  %" PRIu64 " of the %zu samples (%.0f%%) found their thread waiting in a system call, the "
                "others running or ready to run\n", p->waiting, p->nsamples,
                100.0 * (double)p->waiting / (double)p->nsamples);
    if (p->ticks && p->engine == SAMPLER_ENGINE_SIGNAL)
        fprintf(out, "  sampler overhead: %s used %.1f ms of CPU in all (%.2f%% of the sampled threads' CPU), %" PRIu64 " samples "
                "lost (ring full), %" PRIu64 " of those shown cut short (a stack that could not be walked to "
                "its start)\n", p->clock == SAMPLER_CLOCK_KSTACK
                    ? "no thread stopped; the kernel takes the stacks, and signals a thread only in a system call; "
                      "signal handlers and the collector"
                    : "no thread stopped but for its own sample; signal handlers and the collector",
                (double)p->sampler_cpu_ns / 1e6,
                p->thread_cpu_ns ? 100.0 * (double)p->sampler_cpu_ns / (double)p->thread_cpu_ns : 0.0, p->failed,
                p->truncated);
    else if (p->ticks)
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
}

void rp_write_profile_threads(const rp_profile *p, FILE *out)
{
    const rp_view_info *vi = rp_view_of(p->view);
    uint64_t n;
    fstat *st;

    if (!p->nsamples || !p->nthreads)
        return;
    fprintf(out, "\nBy thread (%s view): each thread's top functions by self %s\n", vi->name,
            vi->counts_samples ? "samples" : vi->family == RP_FAMILY_CONTENTION ? "time" : vi->unit);
    for (size_t t = 0; t < p->nthreads; t++) {
        if ((st = frame_stats(p, (long)t, &n)) == NULL)
            return;
        top_list(p, st, n, by_self, NULL, (long)t, 5, out);
        free(st);
    }
}
