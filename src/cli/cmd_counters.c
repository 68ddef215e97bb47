/* cmd_counters.c - `clrprobe counters`: a running .NET process's own
 * metrics as they change (the System.Runtime meter of .NET 9 and later, and
 * any meter the user names), read the way the runtime publishes them: an
 * EventPipe session on its diagnostics socket with the
 * "System.Diagnostics.Metrics" event source, as dotnet-counters does.  No
 * agent is loaded and nothing stays behind (the session ends when we stop
 * it or our connection closes).  The session's stream is read by
 * src/eventpipe/, the figures kept and printed by report/metrics_view.c. */
#include "cli/attach_session.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "common/duration.h"
#include "eventpipe/metrics_source.h"
#include "eventpipe/nettrace.h"
#include "ipc/ipc.h"
#include "report/metrics_view.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define COUNTERS_TIMEOUT_MS 10000     /* for the session to start, and to stop */
#define MAX_TIME_SERIES     1000
/* A process younger than this is let finish starting before the session
 * begins: the runtime can deadlock when an event session enables its
 * event sources while the program's first type initializers run
 * (dotnet/runtime#105682, #118014: seen here too, one start in six with a
 * session begun as the diagnostics socket appeared). */
#define STARTUP_GRACE_MS    2000
#define MAX_HISTOGRAMS      10

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
    const char *meters;         /* as asked: "A,B\\instrument" */
    char session_id[40];
    const mv_format *format;
    mv_context ctx;
    mv_table table;
    FILE *out;
    double refresh_s;
    int enumerated, error, exited;
    char error_text[600];
} counters_run;

static void new_guid(char out[40])
{
    unsigned char b[16] = { 0 };
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        memcpy(b, &ts, sizeof(ts) < sizeof(b) ? sizeof(ts) : sizeof(b));
        b[15] ^= (unsigned char)getpid();
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Whether the user asked for meter's instrument (a shared session carries
 * every client's). */
static int wanted(const char *meters, const char *meter, const char *instrument)
{
    size_t lm = strlen(meter), li = strlen(instrument);
    for (const char *p = meters; *p;) {
        const char *end = strchr(p, ','), *slash;
        size_t n = end ? (size_t)(end - p) : strlen(p);
        slash = memchr(p, '\\', n);
        if (!slash ? n == lm && !memcmp(p, meter, lm)
                   : (size_t)(slash - p) == lm && !memcmp(p, meter, lm) && n - lm - 1 == li &&
                     !memcmp(slash + 1, instrument, li))
            return 1;
        p += n + (end != NULL);
    }
    return 0;
}

/* Each event of the stream. */
static int on_event(void *arg, const nt_event *ev)
{
    counters_run *r = arg;
    mx_event e;

    if (r->error || mx_decode(ev, &e) == MX_OTHER)
        return 0;
    /* (events of another tool's session reach us too when the source is shared) */
    if (e.session[0] && strcmp(e.session, r->session_id) && e.kind != MX_ERROR)
        return 0;
    if ((e.kind == MX_COUNTER || e.kind == MX_UPDOWN || e.kind == MX_GAUGE || e.kind == MX_HISTOGRAM) &&
        !wanted(r->meters, e.meter, e.instrument))
        return 0;
    switch (e.kind) {
    case MX_ENUMERATED:
        r->enumerated = 1;
        return 0;
    case MX_ERROR:
        if (e.session[0] && strcmp(e.session, r->session_id) && strcmp(e.text, "MultipleSessionsNotSupportedError"))
            return 0;
        r->error = 1;
        snprintf(r->error_text, sizeof(r->error_text), "%s", e.text);
        return 0;
    default:
        break;
    }
    if (mv_take(&r->table, &e, r->refresh_s) && r->format->interval)
        r->format->interval(r->out, &r->table, &r->ctx, r->table.interval == 1);
    return 0;
}

/* After the first enumeration: meters asked for that published nothing. */
static int check_meters(counters_run *r, const char *meters)
{
    char copy[1024], *save = NULL, missing[600] = "", known[600] = "";
    size_t nmissing = 0, nasked = 0;

    snprintf(copy, sizeof(copy), "%s", meters);
    for (char *m = strtok_r(copy, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(m, '\\');
        if (slash)
            *slash = 0;
        nasked++;
        if (!mv_has_meter(&r->table, m)) {
            size_t n = strlen(missing);
            snprintf(missing + n, sizeof(missing) - n, "%s'%s'", n ? ", " : "", m);
            nmissing++;
        }
    }
    if (!nmissing)
        return 0;
    for (size_t i = 0; i < r->table.nmeters; i++) {
        size_t n = strlen(known);
        snprintf(known + n, sizeof(known) - n, "%s%s", n ? ", " : "", r->table.meters[i]);
    }
    if (nmissing == nasked) {
        cli_error("counters: process %d has no meter %s%s%s (meter names are case-sensitive; System.Runtime needs "
                  ".NET 9 or later)", r->pid, missing, known[0] ? "; it publishes " : "", known);
        return -1;
    }
    cli_error("counters: process %d has no meter %s yet: showing the others (and it, should it appear)", r->pid, missing);
    return 0;
}

static int read_stream(int fd, nt_reader *rd, counters_run *r)
{
    uint8_t buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0) {
            int rc = nt_feed(rd, buf, (size_t)n);
            if (rc != NT_OK)
                return rc;
            continue;
        }
        if (n == 0)
            return NT_END;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return NT_OK;
        return NT_ERROR;
    }
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
    char err[512], filter[1400], client_id[40], pname[256];
    double duration_s = 0;
    int c, status, fd, sfd, rc = NT_OK, stopped = 0, result = 0;
    uint64_t session;
    counters_run r;
    ipc_process_info_t info;
    cli_output o;
    nt_reader *rd;
    sigset_t sigs, old;
    struct timespec t0;

    memset(&r, 0, sizeof(r));
    r.refresh_s = 1;
    r.format = mv_format_find("table");
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:n:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pid_arg = optarg; break;
        case 'n': name = optarg; break;
        case 'i':
            if (cp_duration_parse("--interval", optarg, 1, 3600, &r.refresh_s, err, sizeof(err)) < 0) {
                cli_error("counters: %s", err);
                return EXIT_USAGE;
            }
            if (r.refresh_s != (double)(long)r.refresh_s) {
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
            if (!optarg[0] || strlen(optarg) > 1000 || strpbrk(optarg, ";=\r\n")) {
                cli_error("counters: --meters takes meter names separated by commas (at most 1000 characters, "
                          "no ';' or '='), not '%s'", optarg);
                return EXIT_USAGE;
            }
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

    /* .NET 8 and later share the metrics source between tools that ask for it
     * with the same interval and limits (dotnet-counters does, with the
     * limits used here), each seeing the values at once; before 8 each
     * session needs its own id and only one can read at a time. */
    r.meters = meters;
    if (ipc_process_info(r.pid, COUNTERS_TIMEOUT_MS, &info, err, sizeof(err)) == IPC_OK &&
        atoi(info.runtime_version) >= 8)
        snprintf(r.session_id, sizeof(r.session_id), "SHARED");
    else
        new_guid(r.session_id);
    ipc_process_info_free(&info);
    new_guid(client_id);
    if (mx_filter_args(filter, sizeof(filter), r.session_id, client_id, meters, r.refresh_s, MAX_TIME_SERIES,
                       MAX_HISTOGRAMS) < 0) {
        cli_error("counters: the meter list is too long");
        return EXIT_USAGE;
    }

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
    mv_init(&r.table);

    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, &old);
    sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
    signal(SIGPIPE, SIG_IGN);

    {
        int64_t age;
        if (ipc_process_age_ms(r.pid, &age) == IPC_OK && age < STARTUP_GRACE_MS) {
            struct pollfd pf = { sfd, POLLIN, 0 };
            if (poll(&pf, 1, (int)(STARTUP_GRACE_MS - age)) > 0) {
                result = EXIT_INTERRUPTED;
                goto out;
            }
        }
    }
    {
        ipc_ep_provider p = { MX_PROVIDER, MX_KEYWORDS, MX_LEVEL, filter };
        fd = ipc_eventpipe_start(r.pid, COUNTERS_TIMEOUT_MS, sfd, &p, 1, &session, err, sizeof(err));
    }
    if (fd < 0) {
        if (fd == IPC_ERR_CANCELLED)
            result = EXIT_INTERRUPTED;
        else
            cli_error("counters: %s", err);
        result = result ? result : 1;
        goto out;
    }
    rd = nt_reader_new(on_event, &r);
    if (!rd) {
        cli_error("counters: out of memory");
        close(fd);
        result = 1;
        goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct pollfd pf[2] = { { fd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
        int wait_ms = -1, was_enumerated = r.enumerated, stop_now = 0;
        if (duration_s > 0 && !stopped) {
            struct timespec now;
            double left;
            clock_gettime(CLOCK_MONOTONIC, &now);
            left = duration_s - ((double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9);
            wait_ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
        }
        if (poll(pf, stopped ? 1 : 2, stopped ? COUNTERS_TIMEOUT_MS : wait_ms) < 0 && errno != EINTR)
            break;
        if (pf[0].revents) {
            rc = read_stream(fd, rd, &r);
            if (rc == NT_END && !stopped)
                r.exited = 1;
            if (rc == NT_END || rc == NT_ERROR)
                break;
            if (!was_enumerated && r.enumerated && check_meters(&r, meters) < 0)
                result = 1;
            stop_now = r.error || result != 0;     /* an error event, or no such meter */
            if (!stop_now)
                continue;
        } else if (stopped) {
            cli_error("counters: process %d did not end the event session in %d s; closing it", r.pid,
                      COUNTERS_TIMEOUT_MS / 1000);
            break;
        }
        if (pf[1].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof(si)) > 0)
                ;
            stop_now = 1;
        }
        if (!stopped && (stop_now || wait_ms == 0)) {
            /* StopTracing: the runtime writes what it holds, ends the stream and closes it */
            if (ipc_eventpipe_stop(r.pid, COUNTERS_TIMEOUT_MS, session, err, sizeof(err)) != IPC_OK)
                break;      /* (closing our end ends the session too) */
            stopped = 1;
        }
    }
    if (rc == NT_ERROR) {
        cli_error("counters: process %d: %s", r.pid, nt_reader_error(rd));
        result = 1;
    } else if (r.error) {
        if (strstr(r.error_text, "MultipleSessions"))
            cli_error("counters: another tool (dotnet-counters, dotnet-monitor, an OpenTelemetry agent) reads the "
                      "metrics of process %d with other settings, and the runtime serves one set at a time: try "
                      "again when it has finished", r.pid);
        else
            cli_error("counters: process %d's metrics source reports: %s", r.pid, r.error_text);
        result = 1;
    } else if (r.exited) {
        cli_error("counters: process %d exited", r.pid);
    } else if (!r.enumerated && result == 0) {
        cli_error("counters: process %d sent no metrics (its runtime may be older than .NET 6)", r.pid);
        result = 1;
    }
    close(fd);
    nt_reader_free(rd);
    if (result == 0 && r.format->finish && r.table.interval > 0)
        r.format->finish(r.out, &r.table, &r.ctx);
    if (result == 0 && r.table.interval == 0 && !r.exited)
        cli_error("counters: no interval was complete before the end (make --duration longer than --interval)");
out:
    if (r.out != stdout) {
        if (fflush(r.out) != 0 || ferror(r.out)) {
            cli_error("counters: cannot write %s: %s", output, strerror(errno));
            cli_output_discard(&o);
            result = 1;
        } else if (cli_output_commit(&o) != 0) {
            result = 1;
        }
    } else if (fflush(stdout) != 0) {
        result = 1;
    }
    mv_free(&r.table);
    if (sfd >= 0)
        close(sfd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return result;
}
