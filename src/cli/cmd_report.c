/* cmd_report.c - `clrprobe report`: reads a trace and writes it in one of
 * the report formats.  Where the output goes, and how a file is replaced
 * only when complete, is cli/output.h's business. */
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/report_many.h"
#include "report/alloc_estimate.h"
#include "report/formats.h"
#include "report/source_lines.h"
#include "report/heap_query.h"
#include "report/report.h"
#include "report/view_profiles.h"
#include "trace/reader.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The usage, around the list of formats and what they need (formats.h);
 * where an option is for some formats, they are named from the registry. */
static const char usage_head[] =
    "usage: clrprobe report FILE...|DIR [--format FORMAT] [--view VIEW] [--thread NAME|TID] [--lines]\n"
    "                       [--symbols DIR] [--raw-frames] [-o OUT]\n";
static const char usage_intro[] =
    "\n"
    "Reads a trace recorded by 'clrprobe run' or 'clrprobe attach' and writes:\n";
static const char usage_tail[] =
    "Several traces, or a directory (its *.clrp files: a run's trace and those of the\n"
    "processes its program started), make one report: the profile formats put each\n"
    "process, 'PROGRAM (pid N)', as the root frame; ";
static const char usage_end[] =
    "A trace that was cut short (the program was killed) is read up to its last complete\n"
    "chunk; damaged chunks are skipped.  Both are reported on stderr.\n";

/* The names of the formats that need all of needs and have all of caps,
 * "a, b, ..." (sep between names, last before the last one) into
 * buf.  Returns how many there are. */
static size_t format_names(char *buf, size_t len, unsigned needs, unsigned caps, const char *sep, const char *last)
{
    size_t used = 0, n = 0, i = 0;
    buf[0] = '\0';
    for (const rp_format *f = rp_formats; f->name; f++)
        n += (f->needs & needs) == needs && (f->caps & caps) == caps;
    for (const rp_format *f = rp_formats; f->name; f++)
        if ((f->needs & needs) == needs && (f->caps & caps) == caps && used < len) {
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? (i + 1 == n ? last : sep) : "", f->name);
            i++;
        }
    return n;
}

/* text as lines of at most width columns, broken between words. */
static void put_wrapped(FILE *out, const char *text, size_t width)
{
    size_t col = 0;

    while (*text) {
        const char *sp = strchr(text, ' ');
        size_t word = sp ? (size_t)(sp - text) : strlen(text);
        if (col && col + 1 + word > width) {
            putc('\n', out);
            col = 0;
        } else if (col) {
            putc(' ', out);
            col++;
        }
        fwrite(text, 1, word, out);
        col += word;
        text += word;
        while (*text == ' ')
            text++;
    }
    putc('\n', out);
}

static void print_usage(FILE *out)
{
    static const char *const counts[] = { NULL, "one", "two", "three", "four", "five", "six", "seven", "eight" };
    size_t nformats = 0, nsampled = 0, tail = 0, n;
    char names[256];

    fputs(usage_head, out);
    format_names(names, sizeof(names), 0, RP_HEAP_QUESTIONS, "|", "|");
    fprintf(out, "       clrprobe report FILE [--why TYPE] [--diff OLD] [--format %s]\n", names);
    fputs(usage_intro, out);
    for (const rp_format *f = rp_formats; f->name; f++) {
        const char *d = f->description, *nl;
        fprintf(out, "  %-10s  ", f->name);
        while ((nl = strchr(d, '\n')) != NULL) {
            fprintf(out, "%.*s\n%14s", (int)(nl - d), d, "");
            d = nl + 1;
        }
        fprintf(out, "%s\n", d);
        nformats++;
        if (f->needs & RP_NEED_SAMPLES) {
            nsampled++;
            tail++;
        } else {
            tail = 0;
        }
    }
    fputs("\n"
          "options:\n"
          "  -f, --format FORMAT   one of the above\n"
          "  -o, --output OUT      write to OUT instead of standard output ('-': standard output); an\n"
          "                        existing file is replaced only once the report is complete\n"
          "      --view VIEW       the samples the profile formats (and text's profile) show, and their\n"
          "                        unit:\n", out);
    for (int v = 0; v < RP_VIEW_COUNT; v++)
        fprintf(out, "                        %-12s %-12s %s%s\n", rp_views[v].name, rp_views[v].unit,
                rp_views[v].counts, v == RP_VIEW_CPU ? " (default)" : "");
    fputs("                        (an allocation's leaf frame is its type; a wait's, 'lock TYPE'; an\n"
          "                        exception's, its type: the agent samples throw stacks, at most one\n"
          "                        a millisecond per type and thread, and each stands for the exceptions\n"
          "                        of its type on its thread that followed it without one)\n"
          "      --thread T        only the thread(s) that T names: a label as the reports show it\n"
          "                        ('NAME (TID)'), a managed or kernel name, an OS thread id, or a\n"
          "                        managed thread id (0x...); no match is an error\n", out);
    format_names(names, sizeof(names), 0, RP_BY_THREAD_OPTION, ", ", ", ");
    fprintf(out, "      --by-thread       %s: put the thread name as the root frame\n", names);
    fputs("      --lines           a managed frame per source line: 'Type.Method (File.cs:42)', from the\n"
          "                        program's portable PDBs (beside each assembly, embedded in it, or in\n"
          "                        --symbols DIR); frames without symbols stay as they are (pprof and\n"
          "                        speedscope always carry the lines, in their own fields)\n"
          "      --symbols DIR     look for the programs' .pdb files in DIR too\n", out);
    fputs("      --raw-frames      frames as recorded: async state machines' MoveNext and the builders'\n"
          "                        Start frames (otherwise 'Type.Method [async]'), the runtime's native\n"
          "                        frames by address (otherwise grouped by what they do: '[runtime: the\n"
          "                        JIT compiling]', '[runtime: garbage collection]', ...), and the\n"
          "                        threads' starts in the text's by-total tables\n"
          "      --why TYPE        heap: why the instances of TYPE (its whole name, or its last part:\n"
          "                        HeapLeaf) are alive in the last snapshot: the shortest path from a\n", out);
    format_names(names, sizeof(names), 0, RP_HEAP_QUESTIONS, ", ", ", ");
    fprintf(out, "                        GC root to each, grouped (%s)\n", names);
    fprintf(out, "      --diff OLD        heap: per type, the growth from OLD's last snapshot to FILE's; a\n"
                 "                        trace with several snapshots shows its first to last (%s)\n", names);
    format_names(names, sizeof(names), 0, RP_HEAP_PROFILE_OPTION, ", ", ", ");
    fprintf(out, "      --heap            %s: the last heap snapshot's profile instead of the CPU samples'\n", names);
    fputs("  -h, --help            this help\n"
          "\n", out);
    /* the formats that need samples: "The last four formats" while they are the last ones; then the
     * records each view needs, views with the same records together */
    if (nsampled) {
        char need[1024];
        size_t used;
        if (nsampled > 1 && tail == nsampled && nsampled < nformats && nsampled < sizeof(counts) / sizeof(counts[0]))
            used = (size_t)snprintf(need, sizeof(need), "The last %s formats need", counts[nsampled]);
        else {
            format_names(names, sizeof(names), RP_NEED_SAMPLES, 0, ", ", ", ");
            used = (size_t)snprintf(need, sizeof(need), "The format%s %s need%s", nsampled > 1 ? "s" : "", names,
                                    nsampled > 1 ? "" : "s");
        }
        used += (size_t)snprintf(need + used, sizeof(need) - used, " the records of the view:");
        for (int v = 0; v < RP_VIEW_COUNT && used < sizeof(need); v++) {
            int first = 1, same = 0;
            for (int w = 0; w < v; w++)
                same |= strcmp(rp_views[w].records, rp_views[v].records) == 0;
            if (same)
                continue;
            used += (size_t)snprintf(need + used, sizeof(need) - used, "%s %s (", v ? "," : "", rp_views[v].records);
            for (int w = v; w < RP_VIEW_COUNT && used < sizeof(need); w++)
                if (strcmp(rp_views[w].records, rp_views[v].records) == 0) {
                    used += (size_t)snprintf(need + used, sizeof(need) - used, "%s%s", first ? "" : ", ",
                                             rp_views[w].name);
                    first = 0;
                }
            if (used < sizeof(need))
                used += (size_t)snprintf(need + used, sizeof(need) - used, ": %s)", rp_views[v].collect);
        }
        if (used < sizeof(need))
            snprintf(need + used, sizeof(need) - used, ".");
        put_wrapped(out, need, 86);
    }
    fputs(usage_tail, out);
    /* the formats with a report of their own for several traces */
    names[0] = '\0';
    n = 0;
    for (const rp_format *f = rp_formats; f->name; f++)
        if (f->write_many)
            snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", n++ ? ", " : "", f->name);
    if (n)
        fprintf(out, "%s list%s the processes first.\n", names, n > 1 ? "" : "s");
    fputs(usage_end, out);
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "view", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "by-thread", no_argument, NULL, 'B' },
        { "raw-frames", no_argument, NULL, 'R' },
        { "lines", no_argument, NULL, 'L' },
        { "symbols", required_argument, NULL, 'S' },
        { "why", required_argument, NULL, 'W' },
        { "diff", required_argument, NULL, 'D' },
        { "heap", no_argument, NULL, 'H' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = rp_formats[0].name, *output = NULL, *input = NULL, *thread = NULL, *why = NULL;
    const char *diff = NULL, *symbols_dir = NULL;
    rp_trace old;
    int have_old = 0, heap = 0, view_given = 0;
    const rp_format *fmt;
    enum rp_view view = RP_VIEW_CPU;
    unsigned profile_options = 0;
    int by_thread = 0, need_profile, need_samples;
    rp_profile prof;
    rp_report_input rin;
    char err[512], problem[512], role[4200], titled[8400];
    rp_trace tr;
    cli_output out;
    FILE *stream = stdout;
    int c, rc;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            format = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'V': {
            const rp_view_info *vi = rp_view_find(optarg);
            if (!vi) {
                char names[256];
                rp_view_names(names, sizeof(names), ", ");
                cli_error("report: unknown view '%s' (valid views: %s)", optarg, names);
                return EXIT_USAGE;
            }
            view = vi->view;
            view_given = 1;
            break;
        }
        case 'T':
            thread = optarg;
            break;
        case 'B':
            by_thread = 1;
            break;
        case 'R':
            profile_options |= RP_PROFILE_RAW_FRAMES;
            break;
        case 'L':
            profile_options |= RP_PROFILE_LINES;
            break;
        case 'S': {
            struct stat st;
            int bad = stat(optarg, &st) != 0 ? errno : 0;
            if (bad || !S_ISDIR(st.st_mode)) {
                cli_error("report: --symbols %s: %s; give the directory that holds the program's .pdb files",
                          optarg, bad ? strerror(bad) : "not a directory");
                return EXIT_USAGE;
            }
            symbols_dir = optarg;
            break;
        }
        case 'W':
            why = optarg;
            break;
        case 'D':
            diff = optarg;
            break;
        case 'H':
            heap = 1;
            break;
        case 'h':
            print_usage(stdout);
            return 0;
        default:
            cli_option_error("report", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    fmt = rp_format_find(format);
    if (!fmt) {
        char names[256];
        format_names(names, sizeof(names), 0, 0, ", ", ", ");
        cli_error("report: unknown format '%s' (valid formats: %s)", format, names);
        return EXIT_USAGE;
    }
    if (heap && !(fmt->caps & RP_HEAP_PROFILE_OPTION)) {
        char names[256];
        format_names(names, sizeof(names), 0, RP_HEAP_PROFILE_OPTION, ", ", " or ");
        cli_error("report: --heap is for --format %s (the heap snapshot's profile)", names);
        return EXIT_USAGE;
    }
    if ((why || diff) && !(fmt->caps & RP_HEAP_QUESTIONS)) {
        char names[256];
        size_t n = format_names(names, sizeof(names), 0, RP_HEAP_QUESTIONS, ", ", " and ");
        cli_error("report: --why and --diff answer in the %s format%s, not in %s", names, n > 1 ? "s" : "",
                  fmt->name);
        return EXIT_USAGE;
    }
    if ((fmt->caps & RP_BINARY) && (!output || strcmp(output, "-") == 0) && isatty(STDOUT_FILENO)) {
        cli_error("report: --format %s writes binary (gzip) data, not for a terminal; write it to a file with "
                  "-o FILE (for example -o profile.pb.gz) or redirect the output", fmt->name);
        return EXIT_USAGE;
    }
    if (fmt->misread_suffix && output && strlen(output) >= strlen(fmt->misread_suffix) &&
        strcmp(output + strlen(output) - strlen(fmt->misread_suffix), fmt->misread_suffix) == 0)
        cli_error("report: note: a name ending in %s: %s", fmt->misread_suffix, fmt->misread_why);
    if (fmt->caps & RP_ALWAYS_LINES)
        profile_options |= RP_PROFILE_LINES;
    need_profile = (fmt->needs & RP_NEED_PROFILE) != 0;
    need_samples = (fmt->needs & RP_NEED_SAMPLES) != 0;
    if (optind >= argc) {
        cli_error("report: no trace file given; usage: clrprobe report FILE [--format FORMAT]");
        return EXIT_USAGE;
    }
    {
        struct stat st;
        if (argc - optind > 1 || (stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode))) {
            if (why || diff) {
                cli_error("report: --why and --diff read one trace, not several");
                return EXIT_USAGE;
            }
            rp_report_options opt = { .view = view, .view_given = view_given, .thread = thread,
                                      .by_thread = by_thread, .profile_options = profile_options,
                                      .output = output, .symbols_dir = symbols_dir };
            return cli_report_many(argv + optind, (size_t)(argc - optind), fmt, &opt);
        }
    }
    input = argv[optind];

    {
        const char *inputs[2] = { input, diff };     /* neither may be replaced by the report */
        if (output && cli_output_open(&out, output, "report", inputs, diff ? 2 : 1, 0) != 0)
            return 1;
        if (output)
            cli_output_remove_on_signal(&out);
    }

    rc = rp_load(input, &tr, err, sizeof(err));
    if (rc != TRACE_OK) {
        if (rc == TRACE_E_IO)
            cli_error("%s", err);
        else
            cli_error("%s: %s", input, err);
        if (output)
            cli_output_discard(&out);
        return 1;
    }
    if (!(tr.lines = rp_lines_new(&tr, symbols_dir))) {
        cli_error("out of memory reading %s", input);
        rp_free(&tr);
        if (output)
            cli_output_discard(&out);
        return 1;
    }
    if (rp_problem(&tr, problem, sizeof(problem)))
        cli_error("warning: %s: %s", input, problem);
    rin.trace = &tr;
    rin.profile = NULL;
    rin.path = input;
    rin.title = strrchr(input, '/');
    rin.title = rin.title ? rin.title + 1 : input;
    if (rp_role_label(&tr, role, sizeof(role))[0]) {    /* (the profiles, html and pprof say the role too) */
        snprintf(titled, sizeof(titled), "%s (%s)", rin.title, role);
        rin.title = titled;
    }
    rin.by_thread = by_thread;
    rin.ntraces = 0;
    rin.traces = NULL;
    rin.why = why;
    rin.old = NULL;
    rin.heap = 0;
    rin.thread = thread;
    rin.profile_options = profile_options;
    /* (a heap snapshot and no CPU samples: the heap instead of the default view) */
    if (!heap && (fmt->caps & RP_HEAP_ONLY_VIEW) && rp_view_of(view)->family == RP_FAMILY_TIME &&
        rp_count_samples(&tr) == 0 &&
        rp_heap_diff_check(&tr, input, err, sizeof(err)) == 0) {
        if (fmt->caps & RP_HEAP_PROFILE_OPTION)
            heap = 1;                         /* (a heap snapshot and no samples: its profile) */
        else
            need_samples = 0;                 /* (a heap-only trace: the writer's heap view) */
    }
    if (heap) {
        if (rp_heap_diff_check(&tr, input, err, sizeof(err)) < 0) {
            cli_error("%s", err);
            goto fail;
        }
        need_profile = need_samples = 0;
    }
    if ((fmt->needs & RP_NEED_HEAP) && rp_heap_diff_check(&tr, input, err, sizeof(err)) < 0) {
        cli_error("%s", err);
        goto fail;
    }
    if (why && rp_heap_why_check(&tr, why, err, sizeof(err)) < 0) {
        cli_error("report --why: %s", err);
        goto fail;
    }
    if (diff) {
        rc = rp_load(diff, &old, err, sizeof(err));
        if (rc != TRACE_OK) {
            cli_error("report --diff: %s: %s", diff, err);
            goto fail;
        }
        have_old = 1;
        if (rp_heap_diff_check(&old, diff, err, sizeof(err)) < 0 || rp_heap_diff_check(&tr, input, err, sizeof(err)) < 0) {
            cli_error("report --diff: %s", err);
            goto fail;
        }
    }
    /* A view whose records the trace lacks: in the formats that show samples, and in any format that
     * reads a profile when a view other than the CPU sampler's was asked for. */
    if (need_profile && rp_count_view_records(&tr, view) == 0 &&
        (need_samples || (view_given && rp_view_of(view)->family != RP_FAMILY_TIME))) {
        cli_report_no_records(input, fmt, view, &rin);
        goto fail;
    }
    if (need_profile) {
        if (rp_input_profile(&rin, view, &prof) < 0) {
            cli_error("out of memory building the profile of %s", input);
            goto fail;
        }
        if (thread && !prof.filter_matched) {
            cli_report_no_thread(thread, &prof);
            rp_profile_free(&prof);
            goto fail;
        }
        if (need_samples && prof.nsamples == 0) {
            cli_report_empty_view(input, thread, &prof);
            rp_profile_free(&prof);
            goto fail;
        }
        if (rp_view_of(view)->family == RP_FAMILY_MEMORY && !rp_alloc_upscaled(prof.alloc_methods))
            cli_error("warning: %s: the allocation figures are %s", input, rp_alloc_scaling(prof.alloc_methods, 1));
    }

    if (need_profile && rp_profile_rate_low(&prof))
        cli_error("warning: %s: sampled at %.1f %s, %.0f%% of the %.1f asked: fewer samples than the rate says "
                  "(%s)", input, prof.rate_hz, rp_profile_rate_unit(&prof),
                  100.0 * prof.rate_hz / rp_profile_asked_hz(&prof), rp_profile_asked_hz(&prof),
                  rp_profile_rate_low_reason(&prof));
    if (output && !(stream = cli_output_stream(&out))) {
        if (need_profile)
            rp_profile_free(&prof);
        goto fail;
    }
    rin.profile = need_profile ? &prof : NULL;
    rin.old = have_old ? &old : NULL;
    rin.old_path = have_old ? diff : NULL;
    rin.heap = heap;
    rc = fmt->write(&rin, stream);
    if (rc == 0 && (fmt->caps & RP_LISTS_CHILDREN) && !why && !have_old)      /* (a question: its answer only) */
        cli_report_children(input, &tr, stream);
    if (need_profile)
        rp_profile_free(&prof);
    if (output) {
        if (rc != 0) {
            cli_error("cannot write report %s: %s", output, strerror(errno));
            cli_output_discard(&out);
        } else if (cli_output_commit(&out) < 0) {
            rc = -1;
        }
    } else if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("cannot write the report to standard output: %s", strerror(errno));
        rc = -1;
    }
    rp_free(&tr);
    if (have_old)
        rp_free(&old);
    return rc == 0 ? 0 : 1;
fail:
    if (output)
        cli_output_discard(&out);
    rp_free(&tr);
    if (have_old)
        rp_free(&old);
    return 1;
}
