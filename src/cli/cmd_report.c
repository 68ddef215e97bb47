/* cmd_report.c - `clrprobe report`: reads a trace and writes it as a text
 * summary or as JSON lines.  Output to a file goes to a temporary name first
 * and is renamed into place only when complete. */
#include "cli/cli.h"
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
    "usage: clrprobe report FILE [--format text|jsonl] [-o OUT]\n"
    "\n"
    "Reads a trace recorded by 'clrprobe run' and writes:\n"
    "  text   a readable summary (default): runtime, duration, events by kind, modules,\n"
    "         the slowest JIT compilations, threads, GCs per generation, exceptions\n"
    "  jsonl  one JSON object per event, in time order (schema: docs/jsonl.md)\n"
    "\n"
    "options:\n"
    "  -f, --format FORMAT   text or jsonl\n"
    "  -o, --output OUT      write to OUT instead of standard output\n"
    "  -h, --help            this help\n"
    "\n"
    "A trace that was cut short (the program was killed) is read up to its last complete\n"
    "chunk; damaged chunks are skipped.  Both are reported on stderr.\n";

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = "text", *output = NULL, *input = NULL;
    char err[512], tmp[PATH_MAX], problem[512];
    rp_trace tr;
    FILE *out = stdout;
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
        case 'h':
            fputs(report_usage, stdout);
            return 0;
        default:
            if (optopt)
                cli_error("report: option '-%c' needs a value or is unknown (see clrprobe report --help)",
                          optopt);
            else
                cli_error("report: unknown option '%s' (see clrprobe report --help)", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (strcmp(format, "text") != 0 && strcmp(format, "jsonl") != 0) {
        cli_error("report: unknown format '%s' (valid formats: text, jsonl)", format);
        return EXIT_USAGE;
    }
    if (optind >= argc) {
        cli_error("report: no trace file given; usage: clrprobe report FILE [--format text|jsonl]");
        return EXIT_USAGE;
    }
    if (argc - optind > 1) {
        cli_error("report: one trace file at a time (got '%s' and '%s')", argv[optind], argv[optind + 1]);
        return EXIT_USAGE;
    }
    input = argv[optind];

    if (output) {
        if (cli_check_writable(output, "report", 0) < 0)
            return 1;
        snprintf(tmp, sizeof(tmp), "%s.tmp%d", output, (int)getpid());
    }

    rc = rp_load(input, &tr, err, sizeof(err));
    if (rc != TRACE_OK) {
        if (rc == TRACE_E_IO)
            cli_error("%s", err);
        else
            cli_error("%s: %s", input, err);
        if (output) {
            /* we created it only to check; don't leave an empty report behind */
            FILE *f = fopen(output, "rb");
            if (f) {
                int empty = fgetc(f) == EOF;
                fclose(f);
                if (empty)
                    unlink(output);
            }
        }
        return 1;
    }
    if (rp_problem(&tr, problem, sizeof(problem)))
        cli_error("warning: %s: %s", input, problem);

    if (output) {
        out = fopen(tmp, "w");
        if (!out) {
            cli_error("cannot write report %s: %s", tmp, strerror(errno));
            rp_free(&tr);
            return 1;
        }
    }
    rc = strcmp(format, "jsonl") == 0 ? rp_write_jsonl(&tr, out) : rp_write_text(&tr, input, out);
    if (output) {
        if (fclose(out) != 0)
            rc = -1;
        if (rc == 0 && rename(tmp, output) != 0)
            rc = -1;
        if (rc != 0) {
            cli_error("cannot write report %s: %s", output, strerror(errno));
            unlink(tmp);
        }
    } else if (fflush(stdout) != 0) {
        rc = -1;
    }
    rp_free(&tr);
    return rc == 0 ? 0 : 1;
}
