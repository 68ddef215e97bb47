/* speedscope.c - the profile as speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): the frame names
 * shared by all profiles, then one "sampled" profile per thread whose
 * samples are stacks of frame indices (root first), each weighing its
 * measured CPU time in nanoseconds (the CPU view: its cpu_ns) or one
 * sampling period (the wall view), or its weight in the other views
 * (unit "bytes" in alloc and live, "none" for alloc-count's objects and
 * the exceptions view's exceptions,
 * "nanoseconds" waited in contention): rp_sample_weight.  A profile's endValue
 * is the sum of its weights, so the profiles add up to the report's total.  Written as it goes, never built in
 * memory. */
#include "report/report.h"
#include "report/alloc_estimate.h"
#include "report/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Samples without a managed frame get this one frame, as in collapsed output. */
static const char no_frames[] = "[no managed frames]";

/* The file's name in the allocation and contention views: the trace's,
 * the view and its total as the text report states it, how to read the
 * figures, and the window: "TITLE: alloc view: 1.25 GiB allocated in N
 * objects (upscaled estimates); in N.NN s", "TITLE: live view: ... alive
 * after GC N", "TITLE: contention view: N.N ms waited in N lock waits". */
static const char *view_name(const rp_profile *p, const char *title, char *buf, size_t len)
{
    const rp_view_info *vi = rp_view_of(p->view);
    char total[32], dur[32];
    size_t n;

    rp_view_format(p->view, rp_profile_total(p), total, sizeof(total));
    rp_view_format(RP_VIEW_CONTENTION, p->duration_ns, dur, sizeof(dur));
    if (vi->family == RP_FAMILY_CONTENTION)
        n = (size_t)snprintf(buf, len, "%s: %s view: %s waited in %zu lock waits", title, vi->name, total,
                             p->nsamples);
    else if (vi->family == RP_FAMILY_EXCEPTIONS)
        n = (size_t)snprintf(buf, len, "%s: %s view: %s thrown (%zu sampled throw stacks)", title, vi->name, total,
                             p->nsamples);
    else if (p->view == RP_VIEW_LIVE)
        n = (size_t)snprintf(buf, len, "%s: %s view: %s in %.0f objects alive after GC %" PRIu32 " (%s)", title,
                             vi->name, total, p->objects, p->live_last_gc, rp_alloc_scaling(p->alloc_methods, 0));
    else if (p->view == RP_VIEW_ALLOC_COUNT)
        n = (size_t)snprintf(buf, len, "%s: %s view: %s allocated (%s)", title, vi->name, total,
                             rp_alloc_scaling(p->alloc_methods, 0));
    else
        n = (size_t)snprintf(buf, len, "%s: %s view: %s allocated in %.0f objects (%s)", title, vi->name, total,
                             p->objects, rp_alloc_scaling(p->alloc_methods, 0));
    if (n < len)
        snprintf(buf + n, len - n, "; in %s", dur);
    return buf;
}

/* The file's name, which speedscope shows as its title: the trace's, then
 * the same totals the other formats state (profile_text.c): the view's CPU
 * time (or thread time, in the wall view), the window it was recorded in,
 * the process's CPU when the trace has it (the kernel's count), and the
 * rate achieved beside the rate asked, with a warning below 90%:
 * "TITLE: N.NN s of CPU time in sampled threads, N% of the N.NN s the
 * process used; in N.NN s; N.N ticks/s of N.N asked". */
static const char *name(const rp_profile *p, const char *title, char *buf, size_t len)
{
    rp_process_share sh;
    size_t n;

    if (rp_view_of(p->view)->family != RP_FAMILY_TIME)
        return view_name(p, title, buf, len);
    if (p->view == RP_VIEW_CPU)
        n = (size_t)snprintf(buf, len, "%s: %.2f s of CPU time in sampled threads", title, (double)p->cpu_ns / 1e9);
    else if (p->engine == SAMPLER_ENGINE_SIGNAL)
        n = (size_t)snprintf(buf, len, "%s: %.2f s of thread time, running or waiting", title,
                             (double)rp_profile_total(p) / 1e9);
    else
        n = (size_t)snprintf(buf, len, "%s: %.2f s of thread time, running or waiting (%.2f s of CPU time)", title,
                             (double)rp_profile_total(p) / 1e9, (double)p->cpu_ns / 1e9);
    if (n < len && rp_profile_process_share(p, &sh))
        n += (size_t)snprintf(buf + n, len - n, ", %.0f%% of the %.2f s the process%s used", sh.view_pct,
                              (double)p->process_cpu_ns / 1e9, p->processes > 1 ? "es" : "");
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, "; in %.2f s", (double)p->duration_ns / 1e9);
    if (n < len && p->ticks)
        n += (size_t)snprintf(buf + n, len - n, "; %.1f %s of %.1f asked%s", p->rate_hz, rp_profile_rate_unit(p),
                              rp_profile_asked_hz(p),
                              !rp_profile_rate_low(p)                ? ""
                              : p->engine == SAMPLER_ENGINE_SIGNAL ? " (warning: below 80%)"
                                                                   : " (warning: below 90%)");
    if (n < len && p->sampler_why[0]) {
        char sampler[512];
        rp_format_sampler(p->engine, p->clock, p->sampler_why, sampler, sizeof(sampler));
        snprintf(buf + n, len - n, "; sampler: %s", sampler);
    }
    return buf;
}

int rp_write_speedscope(const rp_profile *p, const char *title, FILE *out)
{
    char namebuf[4200];
    size_t *start, *order;
    int empty_stacks = 0;
    /* speedscope's units: nanoseconds and bytes are its own, objects and exceptions are "none" */
    const char *unit = strcmp(rp_view_of(p->view)->unit, "nanoseconds") == 0 || strcmp(rp_view_of(p->view)->unit, "bytes") == 0
                           ? rp_view_of(p->view)->unit
                           : "none";

    /* The samples grouped by thread, each group in time order (a counting sort). */
    start = calloc(p->nthreads + 1, sizeof(*start));
    order = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*order));
    if (!start || !order) {
        free(start);
        free(order);
        return -1;
    }
    for (size_t i = 0; i < p->nsamples; i++) {
        if (p->samples[i].thread < p->nthreads)
            start[p->samples[i].thread + 1]++;
        if (p->samples[i].nframes == 0)
            empty_stacks = 1;
    }
    for (size_t t = 0; t < p->nthreads; t++)
        start[t + 1] += start[t];
    {
        size_t *next = malloc((p->nthreads ? p->nthreads : 1) * sizeof(*next));
        if (!next) {
            free(start);
            free(order);
            return -1;
        }
        for (size_t t = 0; t < p->nthreads; t++)
            next[t] = start[t];
        for (size_t i = 0; i < p->nsamples; i++)
            if (p->samples[i].thread < p->nthreads)
                order[next[p->samples[i].thread]++] = i;
        free(next);
    }

    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n\"shared\":{\"frames\":[", out);
    for (size_t f = 0; f < p->nframes; f++) {
        /* a frame whose source is known: its name, file and line (of one
         * line with --lines, else its method's first) in their fields */
        const rp_frame_source *src = p->sources && p->sources[f].file ? &p->sources[f] : NULL;
        fputs(f ? ",\n{\"name\":" : "\n{\"name\":", out);
        json_string(out, src ? src->name : p->frames[f]);
        if (src) {
            fputs(",\"file\":", out);
            json_string(out, src->file);
            fprintf(out, ",\"line\":%u", src->line);
        }
        putc('}', out);
    }
    if (empty_stacks) {
        fputs(p->nframes ? ",\n{\"name\":" : "\n{\"name\":", out);
        json_string(out, no_frames);
        putc('}', out);
    }
    fputs("]},\n\"profiles\":[", out);
    for (size_t t = 0; t < p->nthreads; t++) {
        size_t n = start[t + 1] - start[t];
        uint64_t total = 0;
        for (size_t k = 0; k < n; k++)
            total += rp_sample_weight(p, &p->samples[order[start[t] + k]]);
        fputs(t ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":", out);
        json_string(out, p->threads[t].name);
        fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[", unit,
                total);
        for (size_t k = 0; k < n; k++) {
            const rp_sample *s = &p->samples[order[start[t] + k]];
            if (k)
                putc(',', out);
            putc('[', out);
            if (s->nframes == 0)
                fprintf(out, "%zu", p->nframes);
            for (uint32_t j = 0; j < s->nframes; j++)
                fprintf(out, j ? ",%" PRIu32 : "%" PRIu32, s->frames[j]);
            putc(']', out);
            if (k % 16 == 15)
                putc('\n', out);
        }
        fputs("],\n\"weights\":[", out);
        for (size_t k = 0; k < n; k++) {
            fprintf(out, k ? ",%" PRIu64 : "%" PRIu64, rp_sample_weight(p, &p->samples[order[start[t] + k]]));
            if (k % 32 == 31)
                putc('\n', out);
        }
        fputs("]}", out);
        if (ferror(out))
            break;
    }
    fputs("],\n\"name\":", out);
    json_string(out, name(p, title ? title : "clrprobe profile", namebuf, sizeof(namebuf)));
    fputs(",\"exporter\":\"clrprobe\",\"activeProfileIndex\":0}\n", out);
    free(start);
    free(order);
    return ferror(out) ? -1 : 0;
}
