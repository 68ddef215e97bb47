/* cmd_counters.c - `clrprobe counters`: a running .NET process's own
 * metrics as they change (the System.Runtime meter of .NET 9 and later, and
 * any meter the user names), read the way the runtime publishes them: an
 * EventPipe session on its diagnostics socket with the
 * "System.Diagnostics.Metrics" event source, as dotnet-counters does.  No
 * agent is loaded and nothing stays behind (the session ends when we stop
 * it or our connection closes).  The session is eventpipe/metrics_session.c,
 * the formats report/metrics_view.c. */
#include "cli/attach_session.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "common/duration.h"
#include "eventpipe/metrics_session.h"
#include "ipc/ipc.h"
#include "report/metrics_view.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>


static const char counters_usage[] =
    "usage: clrprobe counters PID|-n NAME [--interval TIME] [--duration TIME] [--meters LIST]\n"
    "                         [--format table|csv|json|prometheus] [-o FILE]\n"
    "\n"
    "Shows a running .NET process's own metrics as they change: by default the\n"
    "runtime's System.Runtime meter (.NET 9 and later: dotnet.gc.collections,\n"
    "dotnet.gc.heap.total_allocated, dotnet.exceptions, dotnet.thread_pool.queue.length,\n"
    "dotnet.monitor.lock_contentions, dotnet.process.cpu.time, ...), and any other meter\n"
    "the process publishes that --meters names.  A counter shows its increase per second\n"
    "over the last interval, an up-down counter or a gauge its value.  The figures are\n"
    "the runtime's own, read as dotnet-counters reads them (an event session on the\n"
    "diagnostics socket): no agent is loaded, nothing is left behind, and it works\n"
    "beside any profiler.  Ends at --duration, or with Ctrl-C.\n"
    "\n"
    "options:\n"
    "  -p, --process-id PID  the process (or PID as the first argument)\n"
    "  -n, --name NAME       the process by name, as clrprobe ps shows it\n"
    "  --interval TIME       how often the figures are taken, in whole seconds (default 1s, up to 1h)\n"
    "  --duration TIME       stop after TIME (default: at Ctrl-C)\n"
    "  --meters LIST         meters to show, separated by commas (default System.Runtime);\n"
    "                        METER\\INSTRUMENT names one instrument of a meter\n"
    "  --format FORMAT       table (default: redrawn in place on a terminal, else one block\n"
    "                        an interval), csv (time,meter,metric,attributes,value,unit),\n"
    "                        json (one object a line per metric, attribute set and interval:\n"
    "                        {\"time\", \"meter\", \"metric\", \"attributes\", \"value\", \"unit\"}),\n"
    "                        prometheus (the text exposition of the last interval, at the\n"
    "                        end: counters as their totals)\n"
    "  -o, --output FILE     write there instead of standard output\n"
    "  -h, --help            this help\n";

typedef struct counters_run {
    int pid;
    const mv_format *format;
    mv_context ctx;
    FILE *out;
} counters_run;

/* After each interval: the format's output. */
static void on_interval(void *arg, const mt_table *t)
{
    counters_run *r = arg;
    if (r->format->interval)
        r->format->interval(r->out, t, &r->ctx, t->interval == 1);
}

/* After the first enumeration: meters asked for that published nothing. */
static int check_meters(int pid, const mt_table *t, const char *meters)
{
    char copy[1024], *save = NULL, missing[600] = "", known[600] = "";
    size_t nmissing = 0, nasked = 0;

    snprintf(copy, sizeof(copy), "%s", meters);
    for (char *m = strtok_r(copy, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(m, '\\');
        if (slash)
            *slash = 0;
        nasked++;
        if (!mt_has_meter(t, m)) {
            size_t n = strlen(missing);
            snprintf(missing + n, sizeof(missing) - n, "%s'%s'", n ? ", " : "", m);
            nmissing++;
        }
    }
    if (!nmissing)
        return 0;
    for (size_t i = 0; i < t->nmeters; i++) {
        size_t n = strlen(known);
        snprintf(known + n, sizeof(known) - n, "%s%s", n ? ", " : "", t->meters[i]);
    }
    if (nmissing == nasked) {
        cli_error("counters: process %d has no meter %s%s%s (meter names are case-sensitive; System.Runtime needs "
                  ".NET 9 or later)", pid, missing, known[0] ? "; it publishes " : "", known);
        return -1;
    }
    cli_error("counters: process %d has no meter %s yet: showing the others (and it, should it appear)", pid, missing);
    return 0;
}

int cmd_counters(int argc, char **argv)
{
    static const struct option opts[] = {
        { "process-id", required_argument, NULL, 'p' },
        { "name", required_argument, NULL, 'n' },
        { "interval", required_argument, NULL, 'i' },
        { "duration", required_argument, NULL, 'd' },
        { "meters", required_argument, NULL, 'm' },
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *pid_arg = NULL, *name = NULL, *meters = "System.Runtime", *output = NULL;
    char err[512], pname[256];
    double duration_s = 0, refresh_s = 1;
    int c, status, sfd, rc = MS_READ_OK, result = 0, was_enumerated = 0;
    counters_run r;
    cli_output o;
    ms_session *ms = NULL;
    sigset_t sigs, old;
    struct timespec t0;

    memset(&r, 0, sizeof(r));
    r.format = mv_format_find("table");
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:n:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pid_arg = optarg; break;
        case 'n': name = optarg; break;
        case 'i':
            if (cp_duration_parse("--interval", optarg, 1, 3600, &refresh_s, err, sizeof(err)) < 0) {
                cli_error("counters: %s", err);
                return EXIT_USAGE;
            }
            if (refresh_s != (double)(long)refresh_s) {
                /* (the process reads the interval in its own locale: "1.5" is 15 in some) */
                cli_error("counters: --interval takes whole seconds (1s to 1h), not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'd':
            if (cp_duration_parse("--duration", optarg, 0.001, 31 * 86400.0, &duration_s, err, sizeof(err)) < 0) {
                cli_error("counters: %s", err);
                return EXIT_USAGE;
            }
            break;
        case 'm':
            if (cli_meters_invalid("counters", optarg))
                return EXIT_USAGE;
            meters = optarg;
            break;
        case 'f':
            if (!(r.format = mv_format_find(optarg))) {
                cli_error("counters: unknown format '%s' (formats: " MV_FORMAT_NAMES ")", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'o': output = optarg; break;
        case 'h':
            fputs(counters_usage, stdout);
            return 0;
        default:
            cli_option_error("counters", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    if ((r.pid = attach_resolve_pid("counters", argc, argv, pid_arg, name, &status)) < 0)
        return status;
    if (ipc_process_name(r.pid, pname, sizeof(pname), NULL) != IPC_OK)
        snprintf(pname, sizeof(pname), "?");

    r.out = stdout;
    cli_output_init(&o, output, "counters", 0);
    if (output && strcmp(output, "-")) {
        if (cli_output_open(&o, output, "counters", NULL, 0, 0) != 0)
            return 1;
        if (!(r.out = cli_output_stream(&o))) {
            cli_output_discard(&o);
            return 1;
        }
    }
    r.ctx.pid = r.pid;
    r.ctx.process = pname;
    r.ctx.in_place = r.out == stdout && isatty(STDOUT_FILENO) && !strcmp(r.format->name, "table");

    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, &old);
    sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
    signal(SIGPIPE, SIG_IGN);

    ms = ms_open(r.pid, meters, refresh_s, sfd, on_interval, &r, &status, err, sizeof(err));
    if (!ms) {
        if (status != IPC_ERR_CANCELLED)
            cli_error("counters: %s", err);
        result = status == IPC_ERR_CANCELLED ? EXIT_INTERRUPTED : 1;
        goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct pollfd pf[2] = { { ms_fd(ms), POLLIN, 0 }, { sfd, POLLIN, 0 } };
        int wait_ms = -1, stop_now = 0;
        if (duration_s > 0 && !ms_stopped(ms)) {
            struct timespec now;
            double left;
            clock_gettime(CLOCK_MONOTONIC, &now);
            left = duration_s - ((double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9);
            wait_ms = left <= 0 ? 0 : left > 86400 ? 86400 * 1000 : (int)(left * 1000) + 1;
        }
        if (ms_stopped(ms))     /* (a session is ended once its first interval is complete: ms_stop) */
            wait_ms = MS_TIMEOUT_MS + (ms_table(ms)->interval == 0 ? (int)(refresh_s * 1000) : 0);
        if (poll(pf, 2, wait_ms) < 0 && errno != EINTR)
            break;
        if (ms_stopped(ms) && pf[1].revents) {
            cli_error("counters: interrupted again: closing the session of process %d without waiting", r.pid);
            break;      /* (closing ends it too) */
        }
        if (pf[0].revents) {
            rc = ms_read(ms);
            if (rc == MS_READ_END || ms_broken(ms))
                break;
            if (ms_stopped(ms))
                continue;       /* (until the stream's end) */
            if (!was_enumerated && ms_enumerated(ms)) {
                was_enumerated = 1;
                if (check_meters(r.pid, ms_table(ms), meters) < 0)
                    result = 1;
            }
            stop_now = rc == MS_READ_ERROR || result != 0;     /* the source's error, or no such meter */
            if (!stop_now)
                continue;
        } else if (ms_stopped(ms)) {
            cli_error("counters: process %d did not end the event session in %d s; closing it", r.pid,
                      MS_TIMEOUT_MS / 1000);
            break;
        }
        if (pf[1].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof(si)) > 0)
                ;
            stop_now = 1;
        }
        if (!ms_stopped(ms) && (stop_now || wait_ms == 0)) {
            if (ms_table(ms)->interval == 0 && !ms_error(ms)[0] && refresh_s > 2)
                cli_error("counters: ending the session of process %d after its first interval (in %.0f s at "
                          "most): ending it sooner can deadlock the process", r.pid, refresh_s);
            if (ms_stop(ms, err, sizeof(err)) != IPC_OK)
                break;      /* (closing our end ends the session too) */
        }
    }
    if (ms_other_tool(ms)) {
        cli_error("counters: another tool (dotnet-counters, dotnet-monitor, an OpenTelemetry agent) reads the "
                  "metrics of process %d with other settings, and the runtime serves one set at a time: try "
                  "again when it has finished", r.pid);
        result = 1;
    } else if (ms_error(ms)[0]) {
        cli_error("counters: process %d: %s", r.pid, ms_error(ms));
        result = 1;
    } else if (ms_exited(ms)) {
        cli_error("counters: process %d exited", r.pid);
    } else if (!ms_enumerated(ms) && result == 0) {
        cli_error("counters: process %d sent no metrics (its runtime may be older than .NET 6)", r.pid);
        result = 1;
    }
    if (ms_warning(ms)[0])
        cli_error("counters: process %d's metrics source says: %s (its figures went on)", r.pid, ms_warning(ms));
    if (result == 0 && r.format->finish && ms_table(ms)->interval > 0)
        r.format->finish(r.out, ms_table(ms), &r.ctx);
    if (result == 0 && ms_table(ms)->interval == 0 && !ms_exited(ms))
        cli_error("counters: no interval was complete before the end (make --duration longer than --interval)");
out:
    if (r.out != stdout) {
        if (result != 0) {
            cli_output_discard(&o);     /* (no output of a failed command takes a file's place) */
        } else if (fflush(r.out) != 0 || ferror(r.out)) {
            cli_error("counters: cannot write %s: %s", output, strerror(errno));
            cli_output_discard(&o);
            result = 1;
        } else if (cli_output_commit(&o) != 0) {
            result = 1;
        }
    } else if (fflush(stdout) != 0) {
        result = 1;
    }
    ms_close(ms);
    if (sfd >= 0)
        close(sfd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return result;
}
