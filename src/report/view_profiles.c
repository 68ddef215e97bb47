/* view_profiles.c - the profile of any view for a report's input, one trace
 * or several merged (view_profiles.h). */
#include "report/view_profiles.h"

#include <stdlib.h>

int rp_input_profile(const rp_report_input *in, enum rp_view view, rp_profile *out)
{
    rp_profile *parts;
    const char **roots;
    uint64_t *offsets;
    size_t n = in->ntraces, built = 0;
    int rc = -1;

    if (n <= 1 || !in->traces)
        return rp_profile_build_opts(in->trace, view, in->thread, in->profile_options, out);
    parts = calloc(n, sizeof(*parts));
    roots = calloc(n, sizeof(*roots));
    offsets = calloc(n, sizeof(*offsets));
    if (parts && roots && offsets) {
        for (; built < n; built++) {
            const rp_trace *tr = in->traces[built].trace;
            if (rp_profile_build_opts(tr, view, in->thread, in->profile_options, &parts[built]) < 0)
                break;
            roots[built] = in->traces[built].label;
            offsets[built] = tr->file.start_realtime_ns - in->traces[0].trace->file.start_realtime_ns;
        }
        if (built == n)
            rc = rp_profile_merge(parts, roots, offsets, n, out);
    }
    for (size_t i = 0; i < built; i++)
        rp_profile_free(&parts[i]);
    free(parts);
    free(roots);
    free(offsets);
    return rc;
}

uint64_t rp_input_view_records(const rp_report_input *in, enum rp_view view)
{
    uint64_t n = 0;

    if (in->ntraces <= 1 || !in->traces)
        return rp_count_view_records(in->trace, view);
    for (size_t i = 0; i < in->ntraces; i++)
        n += rp_count_view_records(in->traces[i].trace, view);
    return n;
}
