/* cmd_heap.c - `clrprobe heap`: heap snapshots of a running .NET process.
 * A process without a profiler gets the agent attached (attach_session.h)
 * with a heap plan in its configuration (heap_count, heap_every): after the
 * catch-up it takes the snapshots, says how each went on the control
 * connection, and the command then has it detach, leaving one trace file.
 * A process that already runs clrprobe's agent (under `clrprobe run` or
 * `clrprobe attach`: the runtime would refuse a second profiler) is asked
 * through the agent's heap listener (agent/heap/heap_listener.h) instead, and
 * the snapshots go into the trace that recording writes. */
#include "cli/attach_session.h"
#include "cli/cli.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/control_protocol.h"
#include "common/duration.h"
#include "ipc/ipc.h"
#include "trace/heap_codec.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char heap_usage[] =
    "usage: clrprobe heap PID [-o FILE] [--count N] [--interval TIME]\n"
    "       clrprobe heap -p PID ...\n"
    "       clrprobe heap -n NAME ...\n"
    "\n"
    "Takes heap snapshots of a running .NET process (.NET 5 or newer): each induces one full,\n"
    "blocking GC and records, during it, every live object with its type, size and references,\n"
    "and the GC roots.  The process runs on afterwards; read the snapshots with\n"
    "'clrprobe report FILE' (types, retained sizes, dominators).\n"
    "\n"
    "A process without a profiler gets clrprobe's agent attached for the snapshots and detached\n"
    "after them (background GC is off in between).  A process that already runs under\n"
    "'clrprobe run' or 'clrprobe attach' is asked through that agent instead: the snapshots go\n"
    "into the trace that recording writes (then -o is refused).  If that process was started\n"
    "without --heap-every and background GC is on, the runtime refuses GC monitoring: on .NET 9\n"
    "and later the agent then enumerates the heap without it (no stack or handle roots: roots\n"
    "approximate; said so, with what gives exact roots), else the snapshot needs\n"
    "DOTNET_gcConcurrent=0.  Beside another main profiler (an APM agent) the agent loads as a\n"
    "notification profiler, which may not monitor GCs: the snapshots are enumerations, roots\n"
    "approximate.\n"
    "\n"
    "options:\n"
    "  -p, --process-id PID  the process (or give PID as the first argument)\n"
    "  -n, --name NAME       the .NET process named NAME (as 'clrprobe ps' shows it)\n"
    "  -o, --output FILE     trace file (default: clrprobe-PID-YYYYMMDD-HHMMSS.clrp in the current\n"
    "                        directory, never replacing a file)\n"
    "  -c, --count N         snapshots to take, 1..10000 (default: 1)\n"
    "  -i, --interval TIME   time between two snapshots (default: 10 s; at least 0.1 s); TIME is\n"
    "                        seconds (5, 1.5), a number and a unit (500ms, 2m, 1m30s) or\n"
    "                        dd:hh:mm:ss (00:00:00:05)\n"
    "  -t, --timeout TIME    how long the runtime may take to accept the agent (default: 10 s;\n"
    "                        same forms)\n"
    "  -h, --help            this help\n"
    "\n"
    "Ctrl-C stops after the snapshot under way; the file keeps the snapshots taken.\n"
    "Run clrprobe as the same user as the process, or as root.\n";

/* Why a snapshot came by enumeration (roots approximate) and what gives
 * exact roots, said once after the first such snapshot. */
static const char approx_after_attach[] =
    "roots approximate: the runtime refused GC monitoring when the agent attached (a background GC did not end in "
    "time); run clrprobe heap again for exact roots";
static const char approx_beside[] =
    "roots approximate: the process has another main profiler, so the agent loaded beside it as a notification "
    "profiler, which may not monitor GCs; exact roots need the main profiler's role (a process without it)";
static const char approx_under_attach[] =
    "roots approximate: the recording was started without --heap-every, so GC monitoring is off (while background "
    "GC is on, the runtime allows it only as an agent attaches, and it then turns background GC off); for exact "
    "roots attach with --heap-every S or use clrprobe heap on a process with no clrprobe session (end this recording "
    "first)";
static const char approx_under_run[] =
    "roots approximate: the process was started under clrprobe run without --heap-every and background GC is on, so "
    "GC monitoring is off (the runtime refuses it later); for exact roots run it with --heap-every S, or with "
    "DOTNET_gcConcurrent=0";

enum { SNAPSHOT_TAKEN = 0, SNAPSHOT_FAILED = -1, SNAPSHOT_CUT = -2 };

/* One "snapshot" line, said as progress on stderr: SNAPSHOT_TAKEN, or
 * SNAPSHOT_FAILED after saying why.  A snapshot that is not in the trace
 * whole (the trace stopped while it was written: a full disk) is not said
 * to be taken: SNAPSHOT_CUT, said by the caller, with the trace's end.  An
 * approximate one is followed, the first time (*told), by approx_why. */
static int print_snapshot(const char *args, unsigned count, const char *approx_why, int *told)
{
    unsigned index = 0, status = 0, flags = 0, roots = 0;
    unsigned long long objects = 0, bytes = 0, pause_ns = 0;

    if (sscanf(args, CP_CTL_SNAPSHOT_ARGS_FMT, &index, &status, &flags, &objects, &bytes, &roots, &pause_ns) != 7)
        return SNAPSHOT_FAILED;
    if (status == CP_HEAP_SNAPSHOT_CUT)
        return SNAPSHOT_CUT;
    if (status != 0) {
        cli_error("snapshot %u of %u failed: %s", index, count, ipc_hresult_message((HRESULT)status));
        return SNAPSHOT_FAILED;
    }
    cli_error("snapshot %u of %u: %llu objects, %.1f MiB, %u roots; the process was paused %.0f ms%s", index, count,
              objects, (double)bytes / (1024.0 * 1024.0), roots, (double)pause_ns / 1e6,
              (flags & HEAP_END_ROOTS_APPROXIMATE) ? " (a heap enumeration without GC monitoring: no stack or handle roots, dead objects "
                               "possible)" : "");
    if ((flags & HEAP_END_ROOTS_APPROXIMATE) && !*told) {
        *told = 1;
        cli_error("%s", approx_why);
    }
    return SNAPSHOT_TAKEN;
}

static void print_refused(const char *args, int notification)
{
    unsigned long hr = strtoul(args, NULL, 16);
    if (notification) {
        cli_error("no snapshot: beside the process's main profiler the agent may not monitor GCs, and this "
                  "runtime has no heap enumeration (ICorProfilerInfo15, .NET 9 and later)");
        return;
    }
    cli_error("no snapshot: the runtime refused the GC monitoring a heap snapshot needs (HRESULT 0x%08lx): "
              "background GC is on in this process, which was started without --heap-every; start it with "
              "DOTNET_gcConcurrent=0, or under clrprobe run --heap-every S", hr);
}

/* How long the agent may take past the interval to say how a snapshot
 * went (the induced GC of a very large heap), before the command stops
 * waiting. */
#define SNAPSHOT_TIMEOUT_MS 120000

/* ---- a process without a profiler: attach, snapshot, detach ---- */

static int heap_by_attach(attach_session *s, const char *output, unsigned count, double interval_s, double timeout_s)
{
    uint64_t t_start = cp_monotonic_ns();
    char line[CP_CTL_LINE_MAX], how[160];
    const char *args;
    unsigned taken = 0;
    int status = 1, failed = 0, told = 0, r;
    cp_config cfg;

    cp_config_init(&cfg);
    cfg.collect = CP_COLLECT_MODULES;         /* names only: no sampling, no other events */
    cfg.heap_count = count;
    cfg.heap_every_ms = (long)(interval_s * 1000 + 0.5);
    switch (attach_open(s, &cfg, output, timeout_s)) {
    case ATTACH_READY: break;
    case ATTACH_INTERRUPTED_BEFORE: attach_close(s, 1); return EXIT_INTERRUPTED;
    case ATTACH_INTERRUPTED_DURING: status = attach_detach(s); attach_close(s, 0); return status;
    default: attach_close(s, 1); return 1;
    }
    cli_error("attached to process %d in %.1f ms; taking %u heap snapshot%s", s->pid, attach_ms_since(t_start), count,
              count == 1 ? "" : "s");
    for (;;) {
        r = attach_next_line(s, (int)(interval_s * 1000) + SNAPSHOT_TIMEOUT_MS, line, sizeof(line));
        if (r != GOT_LINE)
            break;
        if ((args = cp_ctl_args(line, CP_CTL_SNAPSHOT)) != NULL) {
            int got = print_snapshot(args, count, s->notification ? approx_beside : approx_after_attach, &told);
            if (got == SNAPSHOT_CUT) {
                /* (the trace's end says why: attach_finish) */
                snprintf(s->finish_note, sizeof(s->finish_note), "while snapshot %u of %u was written, which is "
                         "not in the trace whole", taken + 1, count);
                failed = 1;
            } else if (got < 0) {
                failed = 1;
            } else {
                taken++;
            }
        } else if ((args = cp_ctl_args(line, CP_CTL_HEAP_REFUSED)) != NULL) {
            print_refused(args, s->notification);
            failed = 1;
            break;                            /* (no more snapshots come) */
        } else if (cp_ctl_is(line, CP_CTL_HEAP_DONE) || cp_ctl_is(line, CP_CTL_EXITED)) {
            break;
        }
    }
    if (r == GOT_LINE && !cp_ctl_is(line, CP_CTL_EXITED)) {
        status = attach_detach(s);
    } else if (r == TIMED_OUT) {
        cli_error("the agent in process %d did not say how snapshot %u of %u went within %.0f s: detaching",
                  s->pid, taken + 1, count, interval_s + SNAPSHOT_TIMEOUT_MS / 1000.0);
        status = attach_detach(s);
        failed = 1;
    } else if (r == INTERRUPTED) {
        cli_error("interrupted after %u of %u snapshots: detaching", taken, count);
        status = attach_detach(s);
        status = status ? status : EXIT_INTERRUPTED;
    } else {
        snprintf(how, sizeof(how), "process %d exited after %u of %u snapshots", s->pid, taken, count);
        status = attach_finish(s, how) == EXIT_INTERRUPTED ? EXIT_INTERRUPTED : 1;
    }
    attach_close(s, 0);
    return failed && status == 0 ? 1 : status;
}

/* ---- a process that already runs clrprobe's agent: its heap listener ---- */

static int heap_by_listener(int pid, const ipc_loaded_profiler_t *lp, unsigned count, double interval_s)
{
    attach_ctl ch = { .listen_fd = -1, .fd = -1, .dir_fd = -1 };
    char req[64], line[CP_CTL_LINE_MAX], err[512];
    const char *args;
    unsigned taken = 0;
    int n, r, rc, sfd, status = 1, told = 0;
    int wait_ms = (int)(interval_s * 1000) + SNAPSHOT_TIMEOUT_MS;
    sigset_t sigs, old;

    rc = ipc_connect_agent_socket(pid, CP_HEAP_SOCKET_FMT, &ch.fd, err, sizeof(err));
    if (rc == IPC_ERR_REFUSED) {
        cli_error("heap: cannot ask process %d for snapshots: %s", pid, err);
        return 1;
    }
    if (rc != IPC_OK) {
        cli_error("process %d runs clrprobe's agent (%s), but it cannot be reached (%s): it may be an older "
                  "clrprobe, or the process runs in another network namespace (run clrprobe heap inside its "
                  "container)", pid, lp->kind == IPC_PROFILER_STARTUP ? "started by clrprobe run" : "attached", err);
        return 1;
    }
    n = snprintf(req, sizeof(req), CP_HEAP_REQUEST_FMT "\n", count, (unsigned long long)(interval_s * 1000 + 0.5));
    signal(SIGPIPE, SIG_IGN);
    if (send(ch.fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        cli_error("lost the connection to the agent in process %d: %s", pid, strerror(errno));
        close(ch.fd);
        return 1;
    }
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, &old);
    sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
    cli_error("process %d already runs clrprobe's agent (%s): asking it for %u heap snapshot%s; they go into the "
              "trace that recording writes", pid, lp->kind == IPC_PROFILER_STARTUP ? "clrprobe run" : "clrprobe attach",
              count, count == 1 ? "" : "s");
    for (;;) {
        r = attach_ctl_line(&ch, sfd, wait_ms, line, sizeof(line));
        if (r != GOT_LINE)
            break;
        if ((args = cp_ctl_args(line, CP_CTL_SNAPSHOT)) != NULL) {
            int got = print_snapshot(args, count, lp->kind == IPC_PROFILER_STARTUP ? approx_under_run :
                                     approx_under_attach, &told);
            if (got == SNAPSHOT_CUT) {
                cli_error("snapshot %u of %u is not in the trace whole: the recording of process %d stopped writing "
                          "its trace while the snapshot was written (a full disk, or a file size limit: that "
                          "recording says which when it ends)", taken + 1, count, pid);
                break;
            }
            if (got == SNAPSHOT_TAKEN)
                taken++;
        } else if ((args = cp_ctl_args(line, CP_CTL_HEAP_REFUSED)) != NULL) {
            print_refused(args, 0);
            break;
        } else if ((args = cp_ctl_args(line, CP_CTL_ERROR)) != NULL) {
            cli_error("the agent in process %d: %s", pid, args);
            break;
        } else if (cp_ctl_is(line, CP_CTL_HEAP_DONE)) {
            status = taken == count ? 0 : 1;
            break;
        }
    }
    if (r == INTERRUPTED) {
        cli_error("interrupted after %u of %u snapshots; the agent stops after the one under way", taken, count);
        status = EXIT_INTERRUPTED;
    } else if (r == TIMED_OUT) {
        cli_error("process %d's agent did not say how snapshot %u of %u went within %.0f s; not waiting longer (the "
                  "snapshots it takes go into the trace of its recording)", pid, taken + 1, count,
                  wait_ms / 1000.0);
    } else if (r != GOT_LINE && taken < count) {
        cli_error("process %d stopped answering after %u of %u snapshots (it exited, or its recording ended)", pid,
                  taken, count);
    }
    if (status == 0)
        cli_error("%u heap snapshot%s taken; they are in the trace of the clrprobe recording of process %d (written "
                  "when it ends)", taken, taken == 1 ? "" : "s", pid);
    close(ch.fd);
    if (sfd >= 0) {
        close(sfd);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return status;
}

int cmd_heap(int argc, char **argv)
{
    static const struct option opts[] = {
        { "process-id", required_argument, NULL, 'p' },
        { "name", required_argument, NULL, 'n' },
        { "output", required_argument, NULL, 'o' },
        { "count", required_argument, NULL, 'c' },
        { "interval", required_argument, NULL, 'i' },
        { "timeout", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *output = NULL, *pid_arg = NULL, *name = NULL;
    double interval_s = 10, timeout_s = 10;
    unsigned count = 1;
    char err[512];
    int c, status = 1, rc;
    ipc_loaded_profiler_t lp;
    attach_session s;

    attach_session_init(&s);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:n:o:c:i:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pid_arg = optarg; break;
        case 'n': name = optarg; break;
        case 'o': output = optarg; break;
        case 'c': {
            char *end;
            long v;
            errno = 0;
            v = strtol(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end || errno || v < 1 || v > CP_HEAP_COUNT_MAX) {
                cli_error("heap: --count '%s' is not a number of snapshots from 1 to %d", optarg, CP_HEAP_COUNT_MAX);
                return EXIT_USAGE;
            }
            count = (unsigned)v;
            break;
        }
        case 'i':
        case 't':
            if (cp_duration_parse(c == 'i' ? "--interval" : "--timeout", optarg,
                                  c == 'i' ? CP_HEAP_EVERY_MIN_MS / 1000.0 : 0.001,
                                  c == 'i' ? CP_HEAP_EVERY_MAX_MS / 1000.0 : 3600,
                                  c == 'i' ? &interval_s : &timeout_s, err, sizeof(err)) < 0) {
                cli_error("heap: %s", err);
                return EXIT_USAGE;
            }
            break;
        case 'h':
            fputs(heap_usage, stdout);
            return 0;
        default:
            cli_option_error("heap", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    if ((s.pid = attach_resolve_pid("heap", argc, argv, pid_arg, name, &status)) < 0)
        return status;

    rc = ipc_loaded_profiler(s.pid, &lp, err, sizeof(err));
    if (rc == IPC_OK && lp.clrprobe && (lp.kind == IPC_PROFILER_STARTUP || lp.kind == IPC_PROFILER_CLRPROBE)) {
        if (output) {
            cli_error("heap: process %d already runs under clrprobe (%s): its snapshots go into the trace that "
                      "recording writes, not into %s; run clrprobe heap %d without -o", s.pid,
                      lp.kind == IPC_PROFILER_STARTUP ? "clrprobe run" : "clrprobe attach", output, s.pid);
            return EXIT_USAGE;
        }
        return heap_by_listener(s.pid, &lp, count, interval_s);
    }
    if (attach_choose_role(&s, NULL) < 0)
        return 1;
    s.resume = rc == IPC_OK && lp.kind == IPC_PROFILER_CLRPROBE_QUIET;
    return heap_by_attach(&s, output, count, interval_s, timeout_s);
}
