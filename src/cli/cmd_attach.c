/* cmd_attach.c - `clrprobe attach`: loads the agent into a running .NET
 * process (attach_session.h), records until the duration ends or the
 * command is interrupted, then has the agent detach and waits until the
 * detach has really happened. */
#include "cli/attach_session.h"
#include "cli/cli.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/duration.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char attach_usage[] =
    "usage: clrprobe attach PID [-o FILE] [--collect LIST] [--rate HZ] [--sampler ENGINE] [--heap-every S]\n"
    "                       [--trace PATTERNS [--trace-calls[=N]]] [--duration TIME]\n"
    "       clrprobe attach -p PID ...\n"
    "       clrprobe attach -n NAME ...\n"
    "\n"
    "Attaches the clrprobe agent to a running .NET process (.NET 5 or newer), catches up\n"
    "on what is already loaded (modules, assemblies, threads, JIT-compiled functions),\n"
    "records until the duration ends or until Ctrl-C / SIGTERM, then detaches and waits\n"
    "until the agent has really left.  The process runs on untouched.\n"
    "A process in a container is attached to from the host (as root) or from a sidecar by\n"
    "the pid 'clrprobe ps' shows; the trace is written here (docs/containers.md).\n"
    "\n"
    "options:\n"
    "  -p, --process-id PID  the process (or give PID as the first argument)\n"
    "  -n, --name NAME       the .NET process named NAME, ignoring case: its name as .NET's tools\n"
    "                        and 'clrprobe ps' show it (e.g. MyApp, or dotnet for 'dotnet app.dll'),\n"
    "                        or its main assembly's name (app); an error lists them if several match\n"
    "  -o, --output FILE     trace file (default: clrprobe-PID-YYYYMMDD-HHMMSS.clrp in the current\n"
    "                        directory, never replacing a file); recorded into FILE.partial-XXXXXX\n"
    "                        (mode 0600, owned by you) and moved to FILE at the end\n"
    "  -c, --collect LIST    what to record (default: all): cpu (stack sampling), appdomains,\n"
    "                        assemblies, modules, classes, jit, threads, gc, suspensions, exceptions;\n"
    "                        not in all: alloc (sampled allocations with stacks, upscaled), live\n"
    "                        (alloc, and which of them stay alive through GCs), contention (lock\n"
    "                        waits with stacks), wall (with the signal sampler: every thread\n"
    "                        signalled at the rate too, running or waiting, for the wall view)\n"
    "  -r, --rate HZ         CPU sampling rate, 1..1000 samples per second (default: 100)\n"
    CLI_HELP_SAMPLER

    "      --heap-every S    also a heap snapshot every S (seconds, or 500ms, 2m...: at least 0.1 s):\n"
    "                        an induced full GC records every live object (clrprobe heap takes\n"
    "                        snapshots alone); background GC is off until the agent detaches\n"
    "      --trace PATTERNS  count and time every call of the methods PATTERNS name (Namespace.Type.Method,\n"
    "                        Namespace.Type.*, Namespace.*; comma-separated): their IL is rewritten\n"
    "                        with probes (ReJIT), those of modules loaded later too, and restored when\n"
    "                        the recording ends; the agent then stays in the process, quiet, since a\n"
    "                        profiler that rewrote IL cannot be unloaded, and a later attach or heap\n"
    "                        on that process talks to it (docs/tracing.md)\n"
    "      --trace-calls[=N] also log each traced call, the first N (default 100000)\n"
    "  -d, --duration TIME   detach after TIME (default: until interrupted); TIME is seconds\n"
    "                        (5, 1.5), a number and a unit (500ms, 5s, 2m, 1h, 1m30s) or\n"
    "                        dotnet-trace's dd:hh:mm:ss (00:00:00:05)\n"
    "  -t, --timeout TIME    how long the runtime may take to accept (default: 10 s; same forms;\n"
    "                        the command gives up 5 s after it if the agent has not called back)\n"
    "  -h, --help            this help\n"
    "\n"
    "Ctrl-C stops the recording and detaches; a second Ctrl-C stops waiting for the detach.\n"
    "A process that already has a main profiler (a startup profiler such as an APM agent,\n"
    "clrprobe run's, another attach's) gets the agent as a notification profiler beside it:\n"
    "everything but --trace (refused before anything is tried) and heap snapshots' exact\n"
    "roots; the trace and its reports say so and name that profiler.  An agent that stays\n"
    "quiet after an attach --trace is reached on its own socket and records again.\n"
    "Run clrprobe as the same user as the process, or as root.  Precompiled (ReadyToRun)\n"
    "code is not reported after an attach (the runtime allows that only at startup).\n"
    "'clrprobe ps' lists the processes you can attach to.\n";

int cmd_attach(int argc, char **argv)
{
    static const struct option opts[] = {
        { "process-id", required_argument, NULL, 'p' },
        { "name", required_argument, NULL, 'n' },
        { "output", required_argument, NULL, 'o' },
        { "collect", required_argument, NULL, 'c' },
        { "rate", required_argument, NULL, 'r' },
        { "sampler", required_argument, NULL, 'S' },
        { "heap-every", required_argument, NULL, 'H' },
        CLI_TRACE_OPTIONS,
        { "duration", required_argument, NULL, 'd' },
        { "timeout", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    uint64_t t_start = cp_monotonic_ns();
    char err[512], line[CP_CTL_LINE_MAX];
    const char *output = NULL, *pid_arg = NULL, *name = NULL;
    double duration = -1, timeout_s = 10;
    int c, status = 1, r;
    cp_config cfg;
    attach_session s;

    attach_session_init(&s);
    cp_config_init(&cfg);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:n:o:c:d:t:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pid_arg = optarg; break;
        case 'n': name = optarg; break;
        case 'o': output = optarg; break;
        case 'd':
        case 't':
            if (cp_duration_parse(c == 'd' ? "--duration" : "--timeout", optarg, 0.001,
                                  c == 'd' ? 1e6 : 3600, c == 'd' ? &duration : &timeout_s, err, sizeof(err)) < 0) {
                cli_error("attach: %s", err);
                return EXIT_USAGE;
            }
            break;
        case 'c':
        case 'r':
        case 'S':
        case 'H':
        case 'T':
        case 'C':
            if (cli_agent_option(c, optarg, &cfg) < 0)
                return EXIT_USAGE;
            if (c == 'c' && (cfg.collect & CP_COLLECT_ALLOC_ALL)) {
                cli_error("attach: alloc-all records every allocation, which the runtime allows only from a "
                          "program's start: use 'clrprobe run --collect alloc-all', or --collect alloc (sampled, "
                          "upscaled) here");
                return EXIT_USAGE;
            }
            break;
        case 'h':
            fputs(attach_usage, stdout);
            return 0;
        default:
            cli_option_error("attach", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    if (cli_agent_options_check("attach", &cfg) < 0)
        return EXIT_USAGE;
    if ((s.pid = attach_resolve_pid("attach", argc, argv, pid_arg, name, &status)) < 0)
        return status;
    if (attach_choose_role(&s, cfg.trace[0] ? "--trace" : NULL) < 0)
        return 1;
    s.resume = attach_agent_is_quiet(s.pid);
    s.trace = cfg.trace[0] != 0;
    s.trace_patterns = cfg.trace;

    switch (attach_open(&s, &cfg, output, timeout_s)) {
    case ATTACH_READY: break;
    case ATTACH_INTERRUPTED_BEFORE: attach_close(&s, 1); return EXIT_INTERRUPTED;
    case ATTACH_INTERRUPTED_DURING: status = attach_detach(&s); attach_close(&s, 0); return status;
    default: attach_close(&s, 1); return 1;
    }
    cli_error("attached to process %d in %.1f ms: caught up on %u modules, %u assemblies, %u threads, "
              "%u JIT-compiled functions; recording %s", s.pid, attach_ms_since(t_start), s.modules, s.assemblies,
              s.threads, s.functions, duration >= 0 ? "for the given duration" : "until Ctrl-C");

    /* Record until the duration ends, a signal arrives, or the process goes. */
    {
        r = attach_record_for(&s, duration >= 0 ? (int)(duration * 1000) : -1, line, sizeof(line));
        if (r == GOT_LINE || r == CLOSED) {  /* "exited": the process is shutting down; the agent closed the trace */
            char how[64];
            snprintf(how, sizeof(how), r == GOT_LINE ? "process %d exited" : "process %d went away", s.pid);
            status = attach_finish(&s, how);
            attach_close(&s, 0);
            return status;
        }
    }
    status = attach_detach(&s);
    attach_close(&s, 0);
    return status;
}
