/* cmd_ps.c - `clrprobe ps`: lists the running .NET processes that clrprobe
 * can attach to, found by their diagnostics sockets and asked who they are
 * over the diagnostics IPC (ProcessInfo2), one second each at most. */
#include "cli/cli.h"
#include "common/escape.h"
#include "ipc/ipc.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PS_TIMEOUT_MS 1000

static const char ps_usage[] =
    "usage: clrprobe ps\n"
    "\n"
    "Lists the running .NET processes that clrprobe can attach to, one per line:\n"
    "  PID      the process id, for 'clrprobe attach PID'\n"
    "  NAME     the process name as .NET's tools show it (/proc/PID/comm, or the program's\n"
    "           file name when comm is cut short), what 'clrprobe attach -n NAME' matches\n"
    "  RUNTIME  the .NET runtime version, or '?' when the process did not say\n"
    "           (it did not answer within 1 second, or its runtime is too old)\n"
    "  PROFILER its main profiler: the file name of the startup profiler's library (an APM\n"
    "           agent), 'clrprobe' for clrprobe's agent, '-' for none seen; 'clrprobe attach'\n"
    "           loads beside one as a notification profiler\n"
    "  CONTAINER for a process in a container (its own mount or network namespace): the\n"
    "           container's id (from its cgroup, 12 characters; 'ns' when none is named\n"
    "           there) and the pid the process has in it, as ID/PID; '-' for a process\n"
    "           of this host (clrprobe attach, heap and ps reach both)\n"
    "  COMMAND  its command line (/proc/PID/cmdline)\n"
    "\n"
    "Processes are found by their diagnostics sockets in $TMPDIR and /tmp, and those in\n"
    "containers in their own TMPDIR, so a process started with DOTNET_EnableDiagnostics=0,\n"
    "or whose TMPDIR is neither yours nor /tmp, is not listed ('clrprobe attach PID' still\n"
    "finds the latter).  Containers are seen as root (or from a sidecar with\n"
    "CAP_SYS_ADMIN and CAP_SYS_PTRACE that shares their pid namespace).\n"
    "Processes of other users (which this user may not attach to) are not listed either:\n"
    "how many were left out is said on stderr; run clrprobe as their user, or as root,\n"
    "to see them.\n"
    "When no process is found, 'no .NET processes found' is printed on stderr; the exit\n"
    "status is 0 in both cases.\n"
    "\n"
    "options:\n"
    "  -h, --help   this help\n";

/* The PROFILER column: the process's main profiler, as attach would find
 * it (ipc/profcheck.c). */
static void main_profiler_of(int pid, char *out, size_t cap)
{
    ipc_loaded_profiler_t lp;
    char err[512];
    const char *slash;

    if (ipc_loaded_profiler(pid, &lp, err, sizeof(err)) != IPC_OK)
        snprintf(out, cap, "?");
    else if (lp.kind == IPC_PROFILER_NONE)
        snprintf(out, cap, "-");
    else if (lp.clrprobe)
        snprintf(out, cap, "clrprobe");
    else
        snprintf(out, cap, "%.200s", (slash = strrchr(lp.path, '/')) ? slash + 1 : lp.path);
}

/* Reads /proc/PID/FILE (at most cap-1 bytes); NULs become spaces when
 * join is set (cmdline), a trailing newline or space is dropped. */
static void read_proc_text(int pid, const char *file, int join, char *out, size_t cap)
{
    char path[64];
    ssize_t n;
    int fd;

    out[0] = '\0';
    snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    n = read(fd, out, cap - 1);
    close(fd);
    if (n <= 0)
        return;
    out[n] = '\0';
    if (join)
        for (ssize_t i = 0; i < n; i++)
            if (out[i] == '\0')
                out[i] = ' ';
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
}

int cmd_ps(int argc, char **argv)
{
    static const struct option opts[] = {
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    ipc_endpoint_t *eps = NULL;
    size_t count = 0, i;
    int c, shown = 0, denied = 0;
    char err[512];

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(ps_usage, stdout);
            return 0;
        default:
            cli_option_error("ps", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        cli_error("ps: unexpected argument '%s' (see clrprobe ps --help)", argv[optind]);
        return EXIT_USAGE;
    }

    if (ipc_list_processes(&eps, &count, err, sizeof(err)) != IPC_OK) {
        cli_error("ps: %s", err);
        return 1;
    }
    for (i = 0; i < count; i++) {
        ipc_process_info_t info;
        char name[256], cmdline[4096], version[128], shown_name[4 * sizeof(name)], shown_runtime[4 * sizeof(version)];
        char prof[256], shown_prof[4 * sizeof(prof)], container[64];
        char *shown_cmd;
        const char *runtime = "?", *command;
        int rc = ipc_process_info(eps[i].pid, PS_TIMEOUT_MS, &info, err, sizeof(err));

        if (rc == IPC_ERR_PERMISSION) {
            denied++;
            continue;
        }
        if (rc == IPC_ERR_NO_PROCESS || rc == IPC_ERR_NO_SOCKET || rc == IPC_ERR_REFUSED)
            continue;   /* exited since the scan, or its socket is stale */
        if (ipc_process_name(eps[i].pid, name, sizeof(name), NULL) != IPC_OK)
            name[0] = '\0';
        if (rc == IPC_OK && info.runtime_version[0]) {
            /* "10.0.12+<commit>": the version proper is before the '+'. */
            snprintf(version, sizeof(version), "%.*s", (int)strcspn(info.runtime_version, "+ "),
                     info.runtime_version);
            runtime = version;
        }
        /* The argv as started: the runtime's own command line puts the
         * managed assembly after an apphost's path, and holds only the host
         * while the runtime is paused at startup. */
        read_proc_text(eps[i].pid, "cmdline", 1, cmdline, sizeof(cmdline));
        command = cmdline;
        if (!cmdline[0] && rc == IPC_OK)
            command = info.command_line;
        /* All three come from the process (it can set its own name and
         * arguments): escaped, so that they cannot drive the terminal or
         * forge a line of this list. */
        esc_buf(shown_name, sizeof(shown_name), name[0] ? name : "?", name[0] ? strlen(name) : 1, NULL);
        esc_buf(shown_runtime, sizeof(shown_runtime), runtime, strlen(runtime), NULL);
        main_profiler_of(eps[i].pid, prof, sizeof(prof));
        esc_buf(shown_prof, sizeof(shown_prof), prof, strlen(prof), NULL);
        shown_cmd = esc_dup(command);
        if (!eps[i].in_container)
            snprintf(container, sizeof(container), "-");
        else
            snprintf(container, sizeof(container), "%.12s/%d", eps[i].container[0] ? eps[i].container : "ns",
                     eps[i].inner_pid);
        if (!shown)
            printf("%-8s %-16s %-10s %-20s %-19s %s\n", "PID", "NAME", "RUNTIME", "PROFILER", "CONTAINER", "COMMAND");
        printf("%-8d %-16s %-10s %-20s %-19s %s\n", eps[i].pid, shown_name, shown_runtime, shown_prof, container,
               shown_cmd ? shown_cmd : "?");
        free(shown_cmd);
        shown++;
        if (rc == IPC_OK)
            ipc_process_info_free(&info);
    }
    free(eps);
    fflush(stdout);
    if (!shown)
        cli_error("no .NET processes found");
    if (denied)
        cli_error("%d .NET process%s of other users not shown (run clrprobe as their user, or as root, "
                  "to see them)", denied, denied == 1 ? "" : "es");
    return 0;
}
