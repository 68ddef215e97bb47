/* run_follow.h - `clrprobe run` following the .NET processes its program
 * starts (docs/config.md#child-processes).  The command listens on a Unix
 * socket in a private directory (/tmp/clrprobe-run-XXXXXX/run, 0700) whose
 * path travels to every descendant in CLRPROBE_CONFIG (run=).  The agent in
 * a process other than the program itself connects (without blocking),
 * says "hello PID", and gets its trace file's descriptor ("trace" +
 * SCM_RIGHTS, protocol in common/control_protocol.h): the command creates
 * every file, beside the program's trace, as STEM.PROGRAM-PID.clrp (STEM:
 * the trace's name without .clrp), exclusively, 0600, never replacing,
 * through the descriptor of the directory the output's resolution reached
 * (never by path: a directory swapped for a link meanwhile is not
 * followed; files left empty are removed the same way).
 * When the program ends the socket is closed and removed - a process
 * started later cannot connect and never records - and every child still
 * recording is told to stop ("detach"; a launch-time profiler cannot
 * detach, so it closes its trace and says "stopped").  Then the command
 * lists the children's traces, and names the child that holds the app when
 * the program is only a launcher (dotnet run, test, watch). */
#ifndef CLRPROBE_CLI_RUN_FOLLOW_H
#define CLRPROBE_CLI_RUN_FOLLOW_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpuclock/cpuclock.h"

#define FOLLOW_MAX_CHILDREN 256      /* more connections are refused (they run unprofiled) */
#define FOLLOW_NAME_MAX 64           /* program name in a child's file name */

typedef struct follow_child {
    pid_t pid;
    int fd;                          /* the connection; -1 once closed */
    int file_fd;                     /* our descriptor of its trace file (to check it at the end) */
    char name[FOLLOW_NAME_MAX + 1];
    char file[NAME_MAX + 1];         /* its trace file's name in the run's dirfd */
    char path[PATH_MAX];             /* and its path, for messages ("" once removed) */
    uint64_t start_ns, end_ns;       /* connected; connection closed (0: still open) */
    int exited;                      /* said "exited": its runtime shut down */
    int stopped;                     /* recording was stopped at the end of the run */
    char error[256];                 /* it said "error ...": why it did not record (escaped) */
    char buf[600];                   /* a partial line */
    size_t used;
    cpu_clock clock;                 /* its per-CPU clock (when the run holds them: clock_period_ns) */
} follow_child;

typedef struct run_follow {
    int listen_fd, sock_dir_fd;      /* the run socket and its private directory, kept open (cli_listen_private) */
    char dir[64];                    /* the private directory, "" once removed */
    char path[108];                  /* its socket: cfg.run */
    int dirfd;                       /* where the children's traces go (O_PATH, from the output's resolution) */
    char out_dir[PATH_MAX];          /* its path, for messages */
    char stem[PATH_MAX];
    follow_child *kids;
    size_t n;
    unsigned refused;                /* connections refused (limit, or a file could not be made) */
    uint64_t clock_period_ns;        /* each child gets a per-CPU clock at this period (0: none; set by the run) */
    int clock_stacks;                /* and its BPF program takes the stacks (the stack engine) */
} run_follow;

/* Listens for the children of a run whose trace is trace_target (absolute,
 * links resolved) in the directory trace_dirfd (which f duplicates).  0, or
 * -1 after a message (the run then goes on without following). */
int follow_open(run_follow *f, const char *trace_target, int trace_dirfd);

/* Waits for pid to end (its status in *status) while giving every child
 * that connects its trace file.  0, or -1 with errno (not EINTR). */
int follow_wait(run_follow *f, pid_t pid, int *status);

/* The run ended: closes and removes the socket, tells each child still
 * recording to stop and waits a little for it to close its trace; removes
 * the files of children that recorded nothing. */
void follow_stop(run_follow *f);

/* How many children recorded a trace (after follow_stop). */
size_t follow_traced(const run_follow *f);

/* Whether process pid recorded a trace over the run's socket (after
 * follow_stop): the program itself does when it closed the descriptor of
 * its own trace file before starting .NET. */
int follow_recorded_pid(const run_follow *f, pid_t pid);

/* Lists the children's traces on stderr (program, pid, duration, path),
 * and for a launcher (argv: dotnet run/test/watch) which child holds the
 * app.  Frees what f holds. */
void follow_report(run_follow *f, char **argv);

/* "run", "test" or "watch" when argv is `dotnet run|test|watch ...`, a
 * command that only launches the app in a child process; else NULL. */
const char *follow_launcher(char **argv);

/* Whether a child's program name is a process of the SDK itself (dotnet,
 * MSBuild, VBCSCompiler, csc, ...), never "the app" of a launcher. */
int follow_sdk_tool(const char *name);

/* The program name a child's trace is named after, from its command line
 * (NUL-separated, len bytes): the base name of argv[0], or for `dotnet
 * [exec] [options] X.dll` the base name of X without .dll; characters other
 * than letters, digits, '.', '_', '-' become '_'.  Exposed for the unit
 * tests. */
void follow_program_name(const char *cmdline, size_t len, char *name, size_t namelen);

#endif
