/* cmd_stack.c - `clrprobe stack`: what every thread of a running .NET
 * process is doing now.  An attach records a tenth of a second of the
 * signal sampler's wall-clock samples (every thread, running or blocked in
 * a system call, native and managed frames: docs/sampling.md) into a
 * private temporary trace, detaches, and each thread's latest whole stack
 * is printed, innermost frame first, with whether the thread
 * was running or waiting and, for a waiting one, in what and on what (its
 * managed frame, else the system call it sleeps in: ipc_thread_wait).  The
 * process is interrupted only for each sample's stack walk. */
#include "cli/attach_session.h"
#include "cli/cli.h"
#include "common/config.h"
#include "common/duration.h"
#include "common/escape.h"
#include "ipc/ipc.h"
#include "report/json.h"
#include "report/model.h"
#include "report/profile.h"
#include "report/report.h"
#include "report/sort.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STACK_RECORD_MS 100      /* about ten wall samples a thread at the default 100 Hz */

static const char stack_usage[] =
    "usage: clrprobe stack PID|-n NAME [--format text|json|pprof] [--timeout TIME]\n"
    "\n"
    "Prints what every thread of a running .NET process is doing now: its name and\n"
    "os tid, whether it is running or waiting (in what: the innermost managed frame,\n"
    "such as System.Threading.Monitor.Wait or Thread.Sleep, else the C library's call,\n"
    "such as poll; and on what, where that frame or the kernel tells: a sleep, a lock\n"
    "another thread holds, a socket with its addresses, I/O, a futex), and its stack,\n"
    "innermost frame first: managed frames named\n"
    "as the profiles name them, native ones beside them (LIBRARY!symbol, or\n"
    "LIBRARY+offset where the library has no symbols).\n"
    "It attaches the agent, records 0.1 s of wall-clock samples of every thread\n"
    "(each thread is stopped only for its own stack walks), detaches, and prints each\n"
    "thread's latest whole stack (a walk may stop early: then its fullest); in all\n"
    "about half a second.  Nothing is left in the process or on disk.\n"
    "\n"
    "options:\n"
    "  -p, --process-id PID  the process (or PID as the first argument)\n"
    "  -n, --name NAME       the process by name, as clrprobe ps shows it\n"
    "  --format FORMAT       text (default), json (one object a line per thread:\n"
    "                        {\"os_tid\": N, \"name\": \"...\", \"state\": \"running|waiting\",\n"
    "                         \"waiting_in\": \"...\", \"waiting_on\": \"...\" (waiting only, where\n"
    "                         known), \"frames\": [innermost, ...]}), or pprof (Go's goroutine\n"
    "                        profile, gzipped: goroutine/count, a thread a sample; not to a terminal)\n"
    "  --timeout TIME        how long the attach may take (default 10s)\n"
    "  -h, --help            this help\n";

/* The frame a waiting thread waits in: the innermost managed one (a name
 * with a '.' and no library mark), else the innermost named native one. */
static const char *waiting_in(const rp_profile *p, const rp_sample *s)
{
    const char *native = NULL;

    for (uint32_t k = s->nframes; k-- > 0;) {
        const char *f = p->frames[s->frames[k]];
        if (!strchr(f, '!') && !strchr(f, '+') && strchr(f, '.'))
            return f;
        if (!native && strchr(f, '!'))
            native = f;
    }
    return native ? native : "?";
}

/* The library of an unnamed native frame ("libcoreclr.so+0x1234"), or NULL. */
static size_t unnamed_library(const char *f)
{
    const char *plus = strstr(f, "+0x");
    return plus && !strchr(f, '!') ? (size_t)(plus - f) : 0;
}

/* What a waiting thread waits on: what its managed frame says when it
 * says more than the kernel (a sleep, a lock), else the kernel's view of
 * the system call it sleeps in now (a socket, I/O, a futex); "" when
 * neither is known. */
static void waiting_on(int pid, const rp_profile *p, const rp_pthread *th, const rp_sample *s, char *out,
                       size_t cap)
{
    static const struct { const char *frame, *what; } managed[] = {
        { "System.Threading.Thread.Sleep", "a sleep" },
        { "System.Threading.Monitor.Wait", "a Monitor.Pulse; the lock is released meanwhile" },
        { "System.Threading.Monitor.Enter", "a lock another thread holds" },
        { "System.Threading.Monitor.ReliableEnter", "a lock another thread holds" },
        { "System.Threading.Monitor.TryEnter", "a lock another thread holds" },
        { "System.Threading.Lock.Enter", "a System.Threading.Lock another thread holds" },
        { "System.Threading.LowLevelLifoSemaphore.Wait", "work: an idle thread-pool worker" },
        { "System.Threading.ManualResetEventSlim.Wait", "a ManualResetEventSlim to be set" },
        { "System.Threading.SemaphoreSlim.Wait", "a SemaphoreSlim" },
        { "System.Threading.Tasks.Task.SpinThenBlockingWait", "a task to complete" },
        { "System.Threading.Tasks.Task.InternalWait", "a task to complete" },
        { "System.Threading.WaitHandle.Wait", "a wait handle: an event, a mutex or a semaphore" },
    };
    const char *in;
    int tid;

    out[0] = 0;
    if (!s->waiting)
        return;
    in = waiting_in(p, s);
    for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++) {
        if (!strncmp(in, managed[i].frame, strlen(managed[i].frame))) {   /* (Enter_Slowpath, WaitForSignal) */
            snprintf(out, cap, "%s", managed[i].what);
            return;
        }
    }
    tid = ipc_host_tid(pid, (int)th->os_tid);
    if (tid > 0)
        ipc_thread_wait(pid, tid, out, cap);
}

static void print_text(FILE *out, int pid, const rp_profile *p, const rp_pthread *th, const rp_sample *s)
{
    char *name = esc_dup(th->managed_name[0] ? th->managed_name : th->os_name[0] ? th->os_name : "?");
    char *in = s->waiting ? esc_dup(waiting_in(p, s)) : NULL, on[700];

    waiting_on(pid, p, th, s, on, sizeof(on));
    fprintf(out, "Thread %s (tid %u): %s%s%s", name ? name : "?", th->os_tid, s->waiting ? "waiting" : "running",
            in ? " in " : "", in ? in : "");
    if (on[0]) {
        fputs(" (", out);
        esc_puts(out, on);
        fputc(')', out);
    }
    fputc('\n', out);
    free(name);
    free(in);
    /* innermost first; a run of unnamed frames of one library as one line */
    for (uint32_t k = s->nframes; k-- > 0;) {
        const char *f = p->frames[s->frames[k]];
        size_t lib = unnamed_library(f);
        uint32_t run = 1;
        while (lib && k > 0 && unnamed_library(p->frames[s->frames[k - 1]]) == lib &&
               !strncmp(p->frames[s->frames[k - 1]], f, lib)) {
            k--;
            run++;
        }
        char *shown = esc_dup(f);
        if (run > 1)
            fprintf(out, "    %.*s (%u frames without symbols)\n", (int)lib, shown ? shown : "?", run);
        else
            fprintf(out, "    %s\n", shown ? shown : "?");
        free(shown);
    }
    if (!s->nframes)
        fputs("    (no frames)\n", out);
    fputc('\n', out);
}

static void print_json(FILE *out, int pid, const rp_profile *p, const rp_pthread *th, const rp_sample *s)
{
    char on[700];

    fprintf(out, "{\"os_tid\":%u,\"name\":", th->os_tid);
    json_string(out, th->managed_name[0] ? th->managed_name : th->os_name);
    fprintf(out, ",\"state\":\"%s\"", s->waiting ? "waiting" : "running");
    if (s->waiting) {
        fputs(",\"waiting_in\":", out);
        json_string(out, waiting_in(p, s));
        waiting_on(pid, p, th, s, on, sizeof(on));
        if (on[0]) {
            fputs(",\"waiting_on\":", out);
            json_string(out, on);
        }
    }
    fputs(",\"frames\":[", out);
    for (uint32_t k = s->nframes; k-- > 0;) {
        if (k + 1 != s->nframes)
            fputc(',', out);
        json_string(out, p->frames[s->frames[k]]);
    }
    fputs("]}\n", out);
}

/* (the threads to print, as their tids, with their index) */
typedef struct tid_index {
    uint32_t tid;
    size_t thread;
} tid_index;

static int by_tid(const void *a, const void *b)
{
    uint32_t x = ((const tid_index *)a)->tid, y = ((const tid_index *)b)->tid;
    return (x > y) - (x < y);
}

/* Each thread's latest wall sample whose walk reached the thread's first
 * frame (else its fullest), printed in tid order. */
enum { STACK_TEXT, STACK_JSON, STACK_PPROF };

/* The threads' stacks as Go's goroutine profile: a copy of the profile
 * holding each printed thread's sample only. */
static int write_pprof(const rp_profile *p, const rp_sample *const *best, const tid_index *order, size_t n, int pid)
{
    rp_profile q = *p;
    rp_sample *samples = malloc((n ? n : 1) * sizeof(*samples));
    char title[96];
    int rc;

    if (!samples)
        return -1;
    for (size_t i = 0; i < n; i++)
        samples[i] = *best[order[i].thread];
    q.samples = samples;
    q.nsamples = n;
    snprintf(title, sizeof(title), "every thread of process %d: its stack within 0.1 s", pid);
    rc = rp_write_pprof_threads(&q, title, stdout);
    free(samples);
    return rc;
}

static int print_stacks(const char *trace, int format, int pid)
{
    rp_trace tr;
    rp_profile p;
    char err[512];
    const rp_sample **best;
    tid_index *order;
    size_t n = 0;

    if (rp_load(trace, &tr, err, sizeof(err)) < 0) {
        cli_error("stack: cannot read what was recorded: %s", err);
        return -1;
    }
    if (rp_profile_build(&tr, RP_VIEW_WALL, NULL, &p) < 0) {
        cli_error("stack: out of memory");
        rp_free(&tr);
        return -1;
    }
    best = calloc(p.nthreads ? p.nthreads : 1, sizeof(*best));
    order = calloc(p.nthreads ? p.nthreads : 1, sizeof(*order));
    if (!best || !order) {
        cli_error("stack: out of memory");
        free(best);
        free(order);
        rp_profile_free(&p);
        rp_free(&tr);
        return -1;
    }
    for (size_t i = 0; i < p.nsamples; i++) {
        const rp_sample *s = &p.samples[i], *b = best[s->thread];
        if (!b || (b->truncated && (!s->truncated || s->nframes >= b->nframes)) || !s->truncated)
            best[s->thread] = s;
    }
    for (size_t t = 0; t < p.nthreads; t++)
        if (best[t])
            order[n++] = (tid_index){ p.threads[t].os_tid, t };
    rp_sort(order, n, sizeof(*order), by_tid);
    if (format == STACK_PPROF) {
        if (n && write_pprof(&p, best, order, n, pid) < 0)
            cli_error("stack: cannot write the profile: %s", strerror(errno));
    } else {
        if (format == STACK_TEXT && n)
            printf("Process %d: %zu thread%s, as they were within 0.1 s\n\n", pid, n, n == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++)
            (format == STACK_JSON ? print_json : print_text)(stdout, pid, &p, &p.threads[order[i].thread],
                                                            best[order[i].thread]);
    }
    fflush(stdout);
    free(best);
    free(order);
    rp_profile_free(&p);
    rp_free(&tr);
    if (!n) {
        if (kill(pid, 0) < 0 && errno == ESRCH)
            cli_error("stack: process %d exited while its threads were sampled", pid);
        else
            cli_error("stack: no thread of process %d was sampled", pid);
        return -1;
    }
    return ferror(stdout) ? -1 : 0;
}

int cmd_stack(int argc, char **argv)
{
    static const struct option opts[] = {
        { "process-id", required_argument, NULL, 'p' },
        { "name", required_argument, NULL, 'n' },
        { "format", required_argument, NULL, 'f' },
        { "timeout", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char err[512], line[CP_CTL_LINE_MAX], dir[256], trace[300];
    const char *tmp = getenv("TMPDIR");
    const char *pid_arg = NULL, *name = NULL;
    double timeout_s = 10;
    int c, status, format = STACK_TEXT, r;
    cp_config cfg;
    attach_session s;

    attach_session_init(&s);
    cp_config_init(&cfg);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pid_arg = optarg; break;
        case 'n': name = optarg; break;
        case 'f':
            if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "pprof")) {
                cli_error("stack: unknown format '%s' (formats: text, json, pprof)", optarg);
                return EXIT_USAGE;
            }
            format = !strcmp(optarg, "json") ? STACK_JSON : !strcmp(optarg, "pprof") ? STACK_PPROF : STACK_TEXT;
            break;
        case 't':
            if (cp_duration_parse("--timeout", optarg, 0.001, 3600, &timeout_s, err, sizeof(err)) < 0) {
                cli_error("stack: %s", err);
                return EXIT_USAGE;
            }
            break;
        case 'h':
            fputs(stack_usage, stdout);
            return 0;
        default:
            cli_option_error("stack", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    if (format == STACK_PPROF && isatty(STDOUT_FILENO)) {
        cli_error("stack: pprof is binary (gzip): send it to a file or a pipe (> threads.pb.gz)");
        return EXIT_USAGE;
    }
    if ((s.pid = attach_resolve_pid("stack", argc, argv, pid_arg, name, &status)) < 0)
        return status;
    if (attach_choose_role(&s, NULL) < 0)
        return 1;
    s.resume = attach_agent_is_quiet(s.pid);
    s.quiet = 1;
    cfg.collect = CP_COLLECT_CPU | CP_COLLECT_WALL | CP_COLLECT_THREADS;
    /* (the per-CPU clock's signals, not its stacks: with the stack engine
     * the 0.1 s of wall samples came out without stacks in 5 of 6 runs of
     * test_stack_says_what_each_thread_does under ASan beside two busy
     * processes, not yet understood; with the signals, 5 of 5 whole) */
    cfg.sampler = CP_SAMPLER_PERCPU;

    /* the recording: a private directory of ours ($TMPDIR, else /tmp), removed at the end */
    if (!tmp || tmp[0] != '/' || strlen(tmp) > 200)
        tmp = "/tmp";
    snprintf(dir, sizeof(dir), "%s/clrprobe-stack-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        cli_error("stack: cannot create a directory in %s: %s", tmp, strerror(errno));
        return 1;
    }
    snprintf(trace, sizeof(trace), "%s/stack.clrp", dir);
    switch (attach_open(&s, &cfg, trace, timeout_s)) {
    case ATTACH_READY: break;
    case ATTACH_INTERRUPTED_BEFORE: attach_close(&s, 1); rmdir(dir); return EXIT_INTERRUPTED;
    case ATTACH_INTERRUPTED_DURING: status = attach_detach(&s); attach_close(&s, 0); unlink(trace); rmdir(dir);
                                    return status ? status : EXIT_INTERRUPTED;
    default: attach_close(&s, 1); rmdir(dir); return 1;
    }
    r = attach_record_for(&s, STACK_RECORD_MS, line, sizeof(line));
    if (r == GOT_LINE || r == CLOSED) {
        cli_error("stack: process %d exited while its threads were sampled", s.pid);
        attach_close(&s, 1);
        unlink(trace);
        rmdir(dir);
        return 1;
    }
    /* (a trace cut short by the process's exit still has the stacks taken before) */
    status = attach_detach(&s);
    attach_close(&s, 0);
    if (status != EXIT_INTERRUPTED)
        status = access(trace, R_OK) == 0 && print_stacks(trace, format, s.pid) == 0 ? 0 : 1;
    unlink(trace);
    rmdir(dir);
    return status;
}
