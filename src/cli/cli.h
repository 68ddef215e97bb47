/* cli.h - shared pieces of the clrprobe command: subcommand entry points,
 * error reporting and small helpers. */
#ifndef CLRPROBE_CLI_H
#define CLRPROBE_CLI_H

#include <stddef.h>
#include <sys/types.h>

#define CLRPROBE_VERSION "0.1.0"

/* Exit status for usage errors and for problems the user can fix. */
#define EXIT_USAGE 2

int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_heap(int argc, char **argv);
int cmd_stack(int argc, char **argv);
int cmd_counters(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* Prints "clrprobe: <message>" on stderr, the message escaped
 * (common/escape.h): a value quoted in it cannot break the line. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --meters of counters and serve: meter names (METER or METER\INSTRUMENT)
 * separated by commas, without the metrics source's own separators ';' and
 * '=', at most 1000 characters.  0, or 1 after saying why not. */
int cli_meters_invalid(const char *cmd, const char *text);

/* The message for getopt_long's '?' (an unknown option, or one missing its
 * value), naming the subcommand and its --help. */
void cli_option_error(const char *cmd, char **argv, int optind, int optopt);

/* Handles the agent options run and attach share (-c/--collect, -r/--rate)
 * into cfg: 1 when c was one of them, 0 when not, -1 after printing why
 * its value is wrong. */
struct cp_config;
int cli_agent_option(int c, const char *optarg, struct cp_config *cfg);

/* --help's lines for --sampler, which run and attach share. */
#define CLI_HELP_SAMPLER \
    "      --sampler ENGINE  how CPU samples are taken (default: auto): kstack, this command holds a\n" \
    "                        perf event on each CPU whose BPF program takes the stack of the\n" \
    "                        program's thread running there after each period (the kernel's\n" \
    "                        frame-pointer walk, and the stack's top walked by the unwind tables:\n" \
    "                        native and managed frames; every thread, none stopped, a signal only\n" \
    "                        in a system call, exact on short bursts, nothing for the kernel to\n" \
    "                        do when threads switch; needs root: CAP_BPF and CAP_PERFMON, and\n" \
    "                        Linux 5.8, else percpu; CPU timers where it cannot be had); percpu,\n" \
    "                        the same events signal the thread, whose handler walks its frames\n" \
    "                        where it is; perf, a perf event on each thread's task clock signals\n" \
    "                        it (its cost grows with how often threads switch); signal, a timer\n" \
    "                        on each thread's CPU clock, checked at the kernel's tick; suspend,\n" \
    "                        the runtime is suspended and each managed thread's managed frames\n" \
    "                        are walked at a safe point; auto, kstack where this command may hold\n" \
    "                        it, else perf where the process may open perf events, else signal\n" \
    "                        (the report says which, and why: docs/sampling.md)\n"

/* The agent options, as long options (their short codes are what
 * cli_agent_option takes), for a subcommand's getopt table. */
#define CLI_TRACE_OPTIONS \
    { "trace", required_argument, NULL, 'T' }, \
    { "trace-calls", optional_argument, NULL, 'C' }

/* After the options: the ones that need another are refused alone, with a
 * message.  0, or -1. */
int cli_agent_options_check(const char *cmd, const struct cp_config *cfg);

/* The pid of the one .NET process named name (ipc_find_by_name: its
 * process name as .NET and 'clrprobe ps' show it, or its main assembly's
 * name), saying on stderr which it is; -1 after a message listing the
 * candidates (pid, name, command line, escaped) when none or several match.
 * cmd names the subcommand in messages. */
int cli_pid_by_name(const char *cmd, const char *name);

/* Full path of the agent beside this executable or in the installed layout
 * (PREFIX/lib/clrprobe/), or -1 with a message. */
int cli_find_agent(char *buf, size_t len);

/* Makes path absolute (relative to the working directory) into buf. */
int cli_absolute_path(const char *path, char *buf, size_t len);

/* How a recorded trace ended: CLI_TRACE_COMPLETE (closed normally),
 * CLI_TRACE_STOPPED (the agent stopped recording early: why says why, e.g.
 * "the disk is full ..."), CLI_TRACE_CUT_SHORT (the process ended without
 * closing it) or CLI_TRACE_UNREADABLE (why says why). */
enum { CLI_TRACE_COMPLETE, CLI_TRACE_STOPPED, CLI_TRACE_CUT_SHORT, CLI_TRACE_UNREADABLE };
/* A Unix stream socket listening (non-blocking, close-on-exec, backlog
 * connections, mode 0600) at DIR/name, DIR a new private directory (0700)
 * made by mkdtemp from "/tmp/clrprobe-KIND-XXXXXX", for an agent to connect
 * to (attach's control channel, run's followed processes).  Fills dir and
 * path, keeps the directory open in *dirfd, and returns the listening
 * descriptor; or -1 with a reason ("cannot ...") in err, having removed
 * whatever it made (dir and path then "", *dirfd -1). */
int cli_listen_private(const char *kind, const char *name, int backlog, int *dirfd, char *dir, size_t dirlen,
                       char *path, size_t pathlen, char *err, size_t errlen);
/* Lets uid (another user's process) connect to the socket name in the
 * directory dirfd: the directory becomes 0711 but stays ours, and only the
 * socket is given to uid (never following a link).  0, or -1 (errno). */
int cli_private_give(int dirfd, const char *name, uid_t uid);
/* Closes *fd (if >= 0, then -1) and removes the socket and the directory
 * through *dirfd (then closed, -1): only what cli_listen_private made,
 * never what a path leads to now; dir and path become "". */
void cli_unlisten_private(int *fd, int *dirfd, char *dir, char *path);

int cli_trace_outcome(const char *path, char *why, size_t whylen);

/* The trace file for another user's process to write into (attach, heap):
 * an anonymous file (O_TMPFILE, never linkable; or one made and unlinked at
 * once) in the directory dirfd, owned by uid, mode 0600.  What that process
 * does with it, during the recording or ever after, reaches no file of
 * ours.  The descriptor, or -1 (errno). */
int cli_handover_open(int dirfd, uid_t uid);
/* Copies the handover file from (its size now, never more) into to, from
 * offset 0, giving back each part copied (a hole punched in from): 0, or -1
 * (errno).  *copied says how much was copied. */
int cli_handover_take(int from, int to, off_t *copied);

#endif
