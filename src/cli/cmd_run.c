/* cmd_run.c - `clrprobe run`: launches a program with the agent loaded at
 * startup.  The profiling environment variables are set for the child only;
 * stdin/stdout/stderr are inherited, signals sent to clrprobe are passed on,
 * and the child's exit status (code or signal) becomes clrprobe's own.
 * After the child has ended, SIGINT, SIGTERM or SIGHUP stop what is left
 * (the trace's copy into a FIFO whose reader stopped reading): the trace is
 * discarded and the exit status is 128 + the signal. */
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/run_follow.h"
#include "common/config.h"
#include "common/identity.h"
#include "common/profiler_env.h"
#include "cpuclock/cpuclock.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char run_usage[] =
    "usage: clrprobe run [-o FILE] [--collect LIST] [--rate HZ] [--sampler ENGINE] [--heap-every S]\n"
    "                    [--trace PATTERNS [--trace-calls[=N]]] [--notification] [--no-follow]\n"
    "                    [--] PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM (a .NET program: an apphost executable, or 'dotnet app.dll') with the\n"
    "clrprobe agent loaded at startup, and records a trace.  PROGRAM's input, output,\n"
    "signals and exit status pass through unchanged; where the trace went is printed on\n"
    "stderr when it ends.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE     trace file (default: clrprobe-PROGRAM-YYYYMMDD-HHMMSS.clrp in the\n"
    "                        current directory, never replacing a file); it is recorded into\n"
    "                        FILE.partial-XXXXXX (mode 0600) and takes FILE's place at the end\n"
    "  -c, --collect LIST    what to record, comma-separated (default: all):\n"
    "                        cpu (stack sampling), appdomains, assemblies, modules, classes,\n"
    "                        jit, threads, gc, suspensions, exceptions, or all; not in all:\n"
    "                        alloc (sampled allocations with stacks, upscaled), live (alloc, and\n"
    "                        which of them stay alive through GCs), contention (lock waits with\n"
    "                        stacks), alloc-all (every allocation, exact: slows the program many\n"
    "                        times over), wall (with the signal sampler: every thread signalled at\n"
    "                        the rate too, running or waiting, for the wall view)\n"
    "  -r, --rate HZ         CPU sampling rate, 1..1000 samples per second (default: 100)\n"
    CLI_HELP_SAMPLER

    "      --heap-every S    a heap snapshot every S (seconds, or 500ms, 2m...: at least 0.1 s):\n"
    "                        an induced full GC records every live object, its references and\n"
    "                        the GC roots ('clrprobe report' shows types by retained size);\n"
    "                        with it every GC of the program walks the heap, and background GC\n"
    "                        is off for the run\n"
    "      --trace PATTERNS  count and time every call of the methods PATTERNS name, comma-separated:\n"
    "                        Namespace.Type.Method, Namespace.Type.* or Namespace.* ('*' matches\n"
    "                        anything; generic arguments are ignored): exact calls and latency\n"
    "                        percentiles per method ('Traced methods' in 'clrprobe report'), through\n"
    "                        the runtime's enter/leave hooks; other methods are not slowed, but\n"
    "                        with the hooks on the runtime uses no precompiled (ReadyToRun) code:\n"
    "                        every method is JIT-compiled, so startup takes longer (docs/tracing.md)\n"
    "      --trace-calls[=N] also log each traced call with its start and duration, the first N\n"
    "                        (default 100000), for the timeline\n"
    "      --notification    load as a notification profiler (CORECLR_NOTIFICATION_PROFILERS), not\n"
    "                        as the startup profiler: the one the environment names (an APM agent)\n"
    "                        stays the main profiler; everything but --trace works, heap snapshots\n"
    "                        by enumeration (roots approximate).  Chosen by itself when the\n"
    "                        environment enables another startup profiler (CORECLR_ENABLE_PROFILING)\n"
    "      --no-follow       profile PROGRAM's own process only, not the .NET processes it starts\n"
    "  -h, --help            this help\n"
    "\n"
    "The .NET processes that PROGRAM starts (the app under 'dotnet run', the compiler\n"
    "under 'dotnet build') are followed: each records its own trace beside FILE (for\n"
    "-o app.clrp: app.PROGRAM-PID.clrp), and the list is printed at the end (for 'dotnet\n"
    "run/test/watch', with the process that holds the app).  Recording stops in every\n"
    "one when PROGRAM ends, and processes started later are not profiled.\n"
    "Read traces with 'clrprobe report FILE', or all of a run's with 'clrprobe report\n"
    "FILE FILE...' or 'clrprobe report DIR'.\n"
    "\n"
    "example:\n"
    "  clrprobe run -o app.clrp -- dotnet run --project MyApp   (the app: app.MyApp-PID.clrp)\n";

static volatile pid_t child_pid;
/* Once the program has ended, SIGINT, SIGTERM and SIGHUP are for us: the
 * signal is kept here and a byte written to this self-pipe, which the
 * copy of the trace into a device or FIFO watches (cli_output_watch). */
static volatile sig_atomic_t interrupted_by;
static int interrupt_pipe[2] = { -1, -1 };

/* Passes signals on to the child.  SIGINT and SIGQUIT typed at a terminal
 * already reach the child (same process group); forward those only when
 * they were sent to clrprobe alone (kill), so the child sees each once.
 * After the child has ended, a signal to stop interrupts what is left to
 * do (the trace's copy into a FIFO whose reader no longer reads). */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (child_pid <= 0) {
        if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && interrupt_pipe[1] >= 0) {
            int e = errno;
            interrupted_by = sig;
            if (write(interrupt_pipe[1], "", 1) < 0) {
                /* full: a byte is there already */
            }
            errno = e;
        }
        return;
    }
    if ((sig == SIGINT || sig == SIGQUIT) && si && si->si_code == SI_KERNEL)
        return;
    kill(child_pid, sig);
}

/* How the agent is loaded: as the startup (main) profiler, or listed
 * among the notification profilers (list_var set to list_value), the
 * environment's own startup profiler left as it is. */
typedef struct run_role {
    int notification;
    char list_var[64];
    char list_value[CP_CONFIG_MAX_TEXT];
} run_role;

/* fd moved above the standard descriptors (the program's own), or -1. */
static int above_stdio(int fd)
{
    int high;

    if (fd < 0 || fd > STDERR_FILENO)
        return fd;
    high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    close(fd);
    return high;
}

/* In the child, when the run holds a per-CPU clock for it: waits until the
 * parent has set it up for this pid ("ok" on go_fd), or says why not (the
 * reason, or nothing if the parent went away); the page's descriptor is
 * then closed and the reason goes to the agent (clock_why). */
static void wait_for_clock(cp_config *cfg, int go_fd)
{
    char said[CP_CLOCK_WHY_MAX];
    size_t used = 0;
    ssize_t n;

    if (cfg->clock_fd < 0)
        return;
    while (used < sizeof(said) - 1 && ((n = read(go_fd, said + used, sizeof(said) - 1 - used)) > 0 ||
                                       (n < 0 && errno == EINTR)))
        used += n > 0 ? (size_t)n : 0;
    said[used] = '\0';
    if (strcmp(said, "ok") == 0)
        return;
    close(cfg->clock_fd);
    cfg->clock_fd = -1;
    if (cfg->stack_fd >= 0)
        close(cfg->stack_fd);
    cfg->stack_fd = -1;
    snprintf(cfg->clock_why, sizeof(cfg->clock_why), "%s", used ? said : "the clrprobe command went away");
}

/* In the child: set the profiling variables and exec.  On failure writes
 * errno to the pipe and exits 127. */
static void exec_child(char **argv, const char *agent, cp_config *cfg, const run_role *role, int errfd, int go_fd)
{
    char text[CP_CONFIG_MAX_TEXT + 1], clsid[CP_GUID_STRING_SIZE];
    int e;

    cfg->pid = (long)getpid();
    wait_for_clock(cfg, go_fd);
    close(go_fd);
    if ((cfg->clock_fd >= 0 && fcntl(cfg->clock_fd, F_SETFD, 0) < 0) ||
        (cfg->stack_fd >= 0 && fcntl(cfg->stack_fd, F_SETFD, 0) < 0)) {
        e = errno;
        goto fail;
    }
    /* The trace file is handed over as this descriptor, kept across exec:
     * the agent never opens a path for it (it sets close-on-exec again). */
    if (fcntl(cfg->output_fd, F_SETFD, 0) < 0) {
        e = errno;
        goto fail;
    }
    if (cp_config_format(cfg, text, sizeof(text)) < 0) {
        e = ENAMETOOLONG;
        goto fail;
    }
    if (setenv("CLRPROBE_CONFIG", text, 1)) {
        e = errno;
        goto fail;
    }
    if (role->notification) {
        /* (.NET 11's DOTNET_ aliases kept consistent, as below) */
        if (setenv(CP_NOTIFICATION_ENABLE_VAR, "1", 1) || setenv("DOTNET_ENABLE_NOTIFICATION_PROFILERS", "1", 1) ||
            setenv(role->list_var, role->list_value, 1)) {
            e = errno;
            goto fail;
        }
        if (strncmp(role->list_var, "CORECLR_", 8) == 0) {
            char alias[80];
            snprintf(alias, sizeof(alias), "DOTNET_%s", role->list_var + 8);
            setenv(alias, role->list_value, 1);
        }
        execvp(argv[0], argv);
        e = errno;
        goto fail;
    }
    cp_guid_format(&CLSID_clrprobe, clsid);
    if (setenv("CORECLR_ENABLE_PROFILING", "1", 1) || setenv("CORECLR_PROFILER", clsid, 1) ||
        setenv("CORECLR_PROFILER_PATH", agent, 1) || setenv("CORECLR_PROFILER_PATH_64", agent, 1)) {
        e = errno;
        goto fail;
    }
    /* .NET 11 also reads DOTNET_-prefixed aliases; keep them consistent. */
    setenv("DOTNET_ENABLE_PROFILING", "1", 1);
    setenv("DOTNET_PROFILER", clsid, 1);
    setenv("DOTNET_PROFILER_PATH", agent, 1);
    setenv("DOTNET_PROFILER_PATH_64", agent, 1);
    execvp(argv[0], argv);
    e = errno;
fail:
    if (write(errfd, &e, sizeof(e)) < 0) { /* nothing more we can do */ }
    _exit(127);
}

/* Whether path names the very file agent is (device and inode). */
static int same_file(const char *path, const char *agent)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat(agent, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Chooses the role: the notification one when asked (--notification) or
 * when the environment already names another startup profiler (an APM
 * agent), which then stays the main one; the list of notification
 * profilers gets the agent appended.  -1 after a message when the role
 * cannot serve what is asked (--trace needs the main one) or the agent's
 * path cannot be listed. */
static int choose_role(run_role *role, int asked, const char *agent, cp_config *cfg)
{
    char main_lib[PATH_MAX], var[64], clsid[CP_GUID_STRING_SIZE];
    int foreign = cp_startup_profiler(NULL, main_lib, sizeof(main_lib), var, sizeof(var)) &&
                  !same_file(main_lib, agent);

    memset(role, 0, sizeof(*role));
    role->notification = asked || foreign;
    if (!role->notification)
        return 0;
    if (cfg->trace[0]) {
        if (foreign)
            cli_error("run: --trace needs the main profiler's role (enter/leave hooks), and the environment names "
                      "another startup profiler, %s (%s), which keeps it: unset CORECLR_ENABLE_PROFILING for this "
                      "run to trace (that profiler then does not load)", main_lib, var);
        else
            cli_error("run: --trace needs the main profiler's role (enter/leave hooks); a notification profiler "
                      "(--notification) does not have it");
        return -1;
    }
    if (foreign) {
        cli_error("run: the environment names a startup profiler, %s (%s), which stays the process's main "
                  "profiler: the agent loads beside it as a notification profiler", main_lib, var);
        snprintf(cfg->main_profiler, sizeof(cfg->main_profiler), "%s", main_lib);
    }
    /* the list the runtime reads, with ours added */
    cp_notification_list(NULL, role->list_var, sizeof(role->list_var), role->list_value, sizeof(role->list_value));
    cp_guid_format(&CLSID_clrprobe_notification, clsid);
    if (cp_notification_list_append(role->list_value, sizeof(role->list_value), agent, clsid) < 0) {
        cli_error("run: cannot add the agent %s to %s (a path holding ';' or '=', which the list cannot hold, or "
                  "a list too long); install clrprobe elsewhere, or shorten the list", agent, role->list_var);
        return -1;
    }
    return 0;
}

static void reraise(int sig)
{
    struct rlimit no_core = { 0, 0 };
    sigset_t set;

    setrlimit(RLIMIT_CORE, &no_core);   /* the child already dumped, if anything */
    signal(sig, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "collect", required_argument, NULL, 'c' },
        { "rate", required_argument, NULL, 'r' },
        { "sampler", required_argument, NULL, 'S' },
        { "no-follow", no_argument, NULL, 'F' },
        { "heap-every", required_argument, NULL, 'H' },
        { "notification", no_argument, NULL, 'N' },
        CLI_TRACE_OPTIONS,
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const int forwarded[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGWINCH,
                                     SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU };
    char agent[PATH_MAX], clock_why[CP_CLOCK_WHY_MAX] = "";
    const char *output = NULL;
    char stage[64];
    cpu_clock clock;
    int go[2] = { -1, -1 };
    struct stat staged;
    cli_output out;
    cp_config cfg;
    run_follow follow;
    int c, pipefd[2], status, e, follow_children = 1, following = 0, interrupted = 0, notification = 0;
    run_role role;
    ssize_t n;
    pid_t pid;

    cp_config_init(&cfg);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+o:c:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'c':
        case 'r':
        case 'S':
        case 'H':
        case 'T':
        case 'C':
            if (cli_agent_option(c, optarg, &cfg) < 0)
                return EXIT_USAGE;
            break;
        case 'F':
            follow_children = 0;
            break;
        case 'N':
            notification = 1;
            break;
        case 'h':
            fputs(run_usage, stdout);
            return 0;
        default:
            cli_option_error("run", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    if (cli_agent_options_check("run", &cfg) < 0)
        return EXIT_USAGE;
    cpu_clock_init(&clock);
    if (optind >= argc) {
        cli_error("run: no program given; usage: clrprobe run [-o FILE] -- PROGRAM [ARGS...]");
        return EXIT_USAGE;
    }
    argv += optind;

    if (cli_find_agent(agent, sizeof(agent)) < 0)
        return 1;
    if (choose_role(&role, notification, agent, &cfg) < 0)
        return EXIT_USAGE;
    if (output && strcmp(output, "-") == 0) {
        cli_error("run: the trace cannot go to standard output, which is the program's; give a file with -o");
        return EXIT_USAGE;
    }
    /* The agent records into a fresh file of ours (beside the output, or in
     * $TMPDIR for a device); it takes the output's place at the end.  The
     * program gets it as an open descriptor (output_fd, with the file's
     * identity for the agent to check), never as a path: a directory on the
     * way swapped for a link meanwhile cannot send the agent elsewhere. */
    {
        const char *base = strrchr(argv[0], '/');
        if (cli_output_open_trace(&out, output, base ? base + 1 : argv[0]) < 0)
            return 1;
    }
    /* (never as the program's standard input, output or error: with one of
     * those closed, the file may have got its number) */
    if (out.fd <= STDERR_FILENO) {
        int high = fcntl(out.fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        if (high < 0) {
            cli_error("cannot start %s: %s", argv[0], strerror(errno));
            cli_output_discard(&out);
            return 1;
        }
        close(out.fd);
        out.fd = high;
    }
    if (fstat(out.fd, &staged) < 0) {
        cli_error("cannot examine the trace file %s: %s", cli_output_staging_path(&out), strerror(errno));
        cli_output_discard(&out);
        return 1;
    }
    cfg.output_fd = out.fd;
    cfg.output_dev = (unsigned long long)staged.st_dev;
    cfg.output_ino = (unsigned long long)staged.st_ino;
    snprintf(stage, sizeof(stage), "/proc/self/fd/%d", out.fd);   /* read back through our descriptor too */
    /* The processes the program starts record beside the trace (a file
     * output only: a device or standard output has no "beside"). */
    if (follow_children && (out.kind == CLI_OUT_NEW || out.kind == CLI_OUT_REPLACE) &&
        follow_open(&follow, out.target, out.dirfd) == 0) {
        following = 1;
        snprintf(cfg.run, sizeof(cfg.run), "%s", follow.path);
    }
    /* The per-CPU clock for CPU samples (cpuclock.h), where this command may
     * hold one: the page now, for the program to inherit (never as one of
     * its standard descriptors), the events once its pid is known. */
    if ((cfg.collect & CP_COLLECT_CPU) && CP_SAMPLER_WANTS_PERCPU(cfg.sampler)) {
        if (cpu_clock_create(&clock, 1000000000ull / (uint64_t)cfg.rate, CP_SAMPLER_WANTS_KSTACK(cfg.sampler),
                             clock_why, sizeof(clock_why)) == 0) {
            clock.map_fd = above_stdio(clock.map_fd);
            if (clock.stacks)
                clock.ring_fd = above_stdio(clock.ring_fd);
            if (clock.map_fd < 0 || (clock.stacks && clock.ring_fd < 0) || pipe2(go, O_CLOEXEC) < 0) {
                snprintf(clock_why, sizeof(clock_why), "%s", strerror(errno));
                cpu_clock_close(&clock);
            } else {
                cfg.clock_fd = clock.map_fd;
                cfg.stack_fd = clock.stacks ? clock.ring_fd : -1;
            }
        }
        if (cfg.clock_fd < 0)
            snprintf(cfg.clock_why, sizeof(cfg.clock_why), "%s", clock_why);
    }
    {
        char text[CP_CONFIG_MAX_TEXT + 1];
        int why_later = cfg.clock_fd >= 0;     /* the child may yet be given a reason: room for the longest */
        cfg.pid = 2147483647;                  /* the longest pid the child can have */
        if (why_later) {
            memset(cfg.clock_why, '%', sizeof(cfg.clock_why) - 1);
            cfg.clock_why[sizeof(cfg.clock_why) - 1] = '\0';
        }
        if (cp_config_format(&cfg, text, sizeof(text)) < 0) {
            cli_error("run: the agent's configuration is too long to pass on (the --trace patterns, or the main "
                      "profiler's path); shorten the patterns");
            if (following)
                follow_stop(&follow), follow_report(&follow, argv);
            cli_output_discard(&out);
            return EXIT_USAGE;
        }
        cfg.pid = 0;
        if (why_later)
            cfg.clock_why[0] = '\0';
    }

    pipefd[0] = pipefd[1] = -1;
    if (pipe2(pipefd, O_CLOEXEC) < 0 || pipe2(interrupt_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        cli_error("cannot start %s: %s", argv[0], strerror(errno));
        if (pipefd[0] >= 0)
            close(pipefd[0]), close(pipefd[1]);
        if (following)
            follow_stop(&follow), follow_report(&follow, argv);
        cli_output_discard(&out);
        return 1;
    }
    /* Block forwarded signals until the child exists and handlers are set. */
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
        sigaddset(&block, forwarded[i]);
    sigprocmask(SIG_BLOCK, &block, &old);

    pid = fork();
    if (pid < 0) {
        cli_error("cannot start %s: %s", argv[0], strerror(errno));
        if (following)
            follow_stop(&follow), follow_report(&follow, argv);
        cli_output_discard(&out);
        return 1;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(pipefd[0]);
        if (go[1] >= 0)
            close(go[1]);
        exec_child(argv, agent, &cfg, &role, pipefd[1], go[0]);
    }
    child_pid = pid;
    if (go[0] >= 0) {
        /* the clock's programs and events for this pid; the child waits */
        const char *said = "ok";
        close(go[0]);
        if (cpu_clock_start(&clock, pid, clock_why, sizeof(clock_why)) < 0)
            said = clock_why;
        if (write(go[1], said, strlen(said)) < 0) {
            /* (the child is gone: waitpid says how) */
        }
        close(go[1]);
        if (cfg.clock_fd >= 0 && clock.map_fd < 0)
            cfg.clock_fd = cfg.stack_fd = -1;
    }
    /* The processes the program starts get a per-CPU clock each when the
     * program got one: a descriptor per CPU each, so this command (not the
     * program, started already) may open as many as its hard limit allows. */
    if (following && cfg.clock_fd >= 0) {
        struct rlimit nofile;
        if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
            nofile.rlim_cur = nofile.rlim_max;
            setrlimit(RLIMIT_NOFILE, &nofile);
        }
        follow.clock_period_ns = clock.asked_ns;
        follow.clock_stacks = CP_SAMPLER_WANTS_KSTACK(cfg.sampler);
    }
    /* Our own messages must not turn into a SIGPIPE death that would hide
     * the child's exit status (e.g. stderr piped to a reader that quit). */
    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = forward_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(forwarded[i], &sa, NULL);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);

    close(pipefd[1]);
    do {
        n = read(pipefd[0], &e, sizeof(e));
    } while (n < 0 && errno == EINTR);
    close(pipefd[0]);

    /* Following, the processes the program starts are served meanwhile;
     * when it ends, the run ends for them too. */
    if (following && follow_wait(&follow, pid, &status) < 0) {
        cli_error("lost track of %s: %s", argv[0], strerror(errno));
        follow_stop(&follow);
        return 1;
    }
    while (!following && waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            cli_error("lost track of %s: %s", argv[0], strerror(errno));
            return 1;
        }
    }
    child_pid = 0;
    cpu_clock_close(&clock);
    cli_output_watch(&out, interrupt_pipe[0]);
    if (following)
        follow_stop(&follow);

    if (n == (ssize_t)sizeof(e)) {
        cli_error("cannot run %s: %s", argv[0], strerror(e));
        if (following)
            follow_report(&follow, argv);
        cli_output_discard(&out);
        return 127;
    }

    if (cli_output_size(&out) <= 0 && following && follow_recorded_pid(&follow, pid)) {
        cli_error("%s closed the descriptor of its trace file before starting .NET: its trace was recorded over "
                  "the run's socket instead, as a process it started (listed below)", argv[0]);
        cli_output_discard(&out);
    } else if (cli_output_size(&out) <= 0 && following && follow_traced(&follow)) {
        cli_error("%s itself did not load the .NET runtime with the agent: no trace of its own, but the "
                  "processes it started recorded theirs", argv[0]);
        cli_output_discard(&out);
    } else if (cli_output_size(&out) <= 0) {
        cli_error("no trace was recorded: %s did not load the .NET runtime with the agent "
                  "(not a .NET program, or profiling disabled with DOTNET_EnableDiagnostics=0)", argv[0]);
        cli_output_discard(&out);
    } else {
        char why[512];
        int outcome = cli_trace_outcome(stage, why, sizeof(why)), committed = cli_output_commit(&out);
        if (committed == CLI_OUT_INTERRUPTED)
            interrupted = interrupted_by ? interrupted_by : SIGINT;
        if (committed == 0) {
            const char *where = cli_output_display(&out);
            if (outcome == CLI_TRACE_STOPPED)
                cli_error("trace written to %s, but the agent stopped recording early: %s", where, why);
            else if (WIFSIGNALED(status))
                cli_error("trace written to %s (the program was killed by signal %d: the trace ends at the "
                          "agent's last flush)", where, WTERMSIG(status));
            else if (outcome == CLI_TRACE_CUT_SHORT)
                cli_error("trace written to %s (the program ended without closing it: it ends at the agent's "
                          "last flush)", where);
            else if (outcome == CLI_TRACE_UNREADABLE)
                cli_error("trace written to %s, but it cannot be read back: %s", where, why);
            else
                cli_error("trace written to %s", where);
        }
    }
    if (following)
        follow_report(&follow, argv);
    else if (!follow_children && follow_launcher(argv))
        cli_error("dotnet %s only launches the app, in a process that --no-follow leaves unprofiled", argv[1]);

    if (interrupted)
        return 128 + interrupted;            /* (130 for SIGINT, 143 for SIGTERM) */
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        reraise(WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return 1;
}
