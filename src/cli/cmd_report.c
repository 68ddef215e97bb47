/* cmd_report.c - `clrprobe report`: reads a trace and writes it in one of
 * the report formats.  Where the output goes, and how a file is replaced
 * only when complete, is cli/output.h's business. */
#include "cli/cli.h"
#include "cli/output.h"
#include "report/report.h"
#include "trace/reader.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char report_usage[] =
    "usage: clrprobe report FILE [--format FORMAT] [--view cpu|wall] [--thread NAME|TID] [-o OUT]\n"
    "\n"
    "Reads a trace recorded by 'clrprobe run' or 'clrprobe attach' and writes:\n"
    "  text        a readable summary (default): runtime, duration, events by kind, modules,\n"
    "              the slowest JIT compilations, threads, GCs, exceptions, and where time goes\n"
    "  jsonl       one JSON object per event, in time order (schema: docs/jsonl.md)\n"
    "  collapsed   'root;...;leaf count' lines (Brendan Gregg's format, for flamegraph.pl)\n"
    "  speedscope  speedscope's JSON format (https://www.speedscope.app), one profile per thread\n"
    "  pprof       gzip-compressed profile.proto for 'go tool pprof' and profiling backends\n"
    "  html        one self-contained interactive flame graph (no network needed)\n"
    "\n"
    "options:\n"
    "  -f, --format FORMAT   one of the above\n"
    "  -o, --output OUT      write to OUT instead of standard output ('-': standard output); an\n"
    "                        existing file is replaced only once the report is complete\n"
    "      --view VIEW       cpu: samples of threads that were on a CPU (default);\n"
    "                        wall: all samples, running or waiting\n"
    "      --thread T        only the thread(s) named T (managed or kernel name), or with OS thread\n"
    "                        id T, or managed thread id T (0x...)\n"
    "      --by-thread       collapsed: put the thread name as the root frame\n"
    "  -h, --help            this help\n"
    "\n"
    "The last four formats need CPU samples (recorded by default; --collect cpu).  A trace that\n"
    "was cut short (the program was killed) is read up to its last complete chunk; damaged\n"
    "chunks are skipped.  Both are reported on stderr.\n";

static const char *const formats[] = { "text", "jsonl", "collapsed", "speedscope", "pprof", "html" };

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "view", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "by-thread", no_argument, NULL, 'B' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = "text", *output = NULL, *input = NULL, *thread = NULL;
    enum rp_view view = RP_VIEW_CPU;
    int by_thread = 0, fmt = -1, profile_format;
    rp_profile prof;
    char err[512], problem[512];
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
        case 'V':
            if (strcmp(optarg, "cpu") == 0)
                view = RP_VIEW_CPU;
            else if (strcmp(optarg, "wall") == 0)
                view = RP_VIEW_WALL;
            else {
                cli_error("report: unknown view '%s' (valid views: cpu, wall)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'T':
            thread = optarg;
            break;
        case 'B':
            by_thread = 1;
            break;
        case 'h':
            fputs(report_usage, stdout);
            return 0;
        default:
            cli_option_error("report", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (strcmp(format, formats[i]) == 0)
            fmt = (int)i;
    if (fmt < 0) {
        cli_error("report: unknown format '%s' (valid formats: text, jsonl, collapsed, speedscope, pprof, html)",
                  format);
        return EXIT_USAGE;
    }
    profile_format = fmt >= 2;
    if (optind >= argc) {
        cli_error("report: no trace file given; usage: clrprobe report FILE [--format FORMAT]");
        return EXIT_USAGE;
    }
    if (argc - optind > 1) {
        cli_error("report: one trace file at a time (got '%s' and '%s')", argv[optind], argv[optind + 1]);
        return EXIT_USAGE;
    }
    input = argv[optind];

    if (output && cli_output_open(&out, output, "report", input, 0) != 0)
        return 1;

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
    if (rp_problem(&tr, problem, sizeof(problem)))
        cli_error("warning: %s: %s", input, problem);
    if (profile_format && rp_count_samples(&tr) == 0) {
        cli_error("%s has no CPU samples, which the %s format shows: record with --collect cpu (it is in the "
                  "default 'all')", input, format);
        goto fail;
    }
    if (profile_format || fmt == 0) {
        if (rp_profile_build(&tr, view, thread, &prof) < 0) {
            cli_error("out of memory building the profile of %s", input);
            goto fail;
        }
        if (profile_format && prof.nsamples == 0) {
            cli_error("no samples match%s%s%s in the %s view%s", thread ? " thread '" : "", thread ? thread : "",
                      thread ? "'" : "", view == RP_VIEW_CPU ? "CPU" : "wall-clock",
                      view == RP_VIEW_CPU ? " (try --view wall)" : "");
            rp_profile_free(&prof);
            goto fail;
        }
    }

    if (output && !(stream = cli_output_stream(&out))) {
        if (fmt != 1)
            rp_profile_free(&prof);
        goto fail;
    }
    {
        const char *base = strrchr(input, '/');
        base = base ? base + 1 : input;
        switch (fmt) {
        case 0:
            rc = rp_write_text(&tr, input, stream);
            if (rc == 0 && prof.total_samples)
                rp_write_profile_text(&prof, stream);
            break;
        case 1: rc = rp_write_jsonl(&tr, stream); break;
        case 2: rc = rp_write_collapsed(&prof, by_thread, stream); break;
        case 3: rc = rp_write_speedscope(&prof, base, stream); break;
        case 4: rc = rp_write_pprof(&prof, base, stream); break;
        default: rc = rp_write_html(&prof, base, stream); break;
        }
    }
    if (fmt != 1)
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
    return rc == 0 ? 0 : 1;
fail:
    if (output)
        cli_output_discard(&out);
    rp_free(&tr);
    return 1;
}
