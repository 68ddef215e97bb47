/* byname.c - .NET processes by name, for `attach -n NAME`: the name .NET's
 * own tools match (dotnet-trace -n uses Process.GetProcessesByName), or
 * the name of the process's main assembly (so that `dotnet app.dll` is
 * found as "app" too).  Candidates are the processes `clrprobe ps` lists. */
#include "ipc/ipc_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The file name of arg[0..n) if it starts with comm (ignoring case),
 * into out: 1, or 0 when it does not. */
static int untruncated(const char *arg, size_t n, const char *comm, char *out, size_t cap)
{
    const char *base = arg;
    size_t blen, clen = strlen(comm);

    for (size_t i = 0; i < n; i++)
        if (arg[i] == '/')
            base = arg + i + 1;
    blen = n - (size_t)(base - arg);
    if (blen < clen || strncasecmp(base, comm, clen) != 0)
        return 0;
    if (blen >= cap)
        blen = cap - 1;
    memcpy(out, base, blen);
    out[blen] = '\0';
    return 1;
}

int ipc_dotnet_process_name(const char *comm, const char *cmdline, size_t len, char *out, size_t cap)
{
    const char *a0 = cmdline, *end0, *a1, *end1;

    if (!cap)
        return -1;
    /* Process.ProcessName on Linux (GetUntruncatedProcessName): the kernel
     * cuts comm to 15 bytes, so the file name of argv[0] (a program), else
     * of argv[1] (a script's interpreter), is used when it starts with comm. */
    end0 = len ? memchr(a0, '\0', len) : NULL;
    if (end0) {
        if (untruncated(a0, (size_t)(end0 - a0), comm, out, cap))
            return 0;
        a1 = end0 + 1;
        end1 = (size_t)(a1 - cmdline) < len ? memchr(a1, '\0', len - (size_t)(a1 - cmdline)) : NULL;
        if (end1 && untruncated(a1, (size_t)(end1 - a1), comm, out, cap))
            return 0;
    }
    snprintf(out, cap, "%s", comm);
    return 0;
}

int ipc_process_name(int pid, char *out, size_t cap, char **cmdline_out)
{
    char path[64], comm[64], *cmd = NULL, *text;
    size_t len = 0, n;

    if (cmdline_out)
        *cmdline_out = NULL;
    snprintf(path, sizeof(path), "/proc/%d/comm", pid);
    if (ipc_read_file(path, &text, &n) < 0)
        return errno == ENOENT || errno == ESRCH ? IPC_ERR_NO_PROCESS : IPC_ERR_SYSTEM;
    while (n && text[n - 1] == '\n')
        text[--n] = '\0';
    snprintf(comm, sizeof(comm), "%s", text);
    free(text);
    snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
    if (ipc_read_file(path, &cmd, &len) < 0) {
        cmd = NULL;
        len = 0;
    }
    ipc_dotnet_process_name(comm, cmd ? cmd : "", len, out, cap);
    if (cmdline_out && cmd) {
        /* the arguments joined by spaces, as ps shows them */
        while (len && cmd[len - 1] == '\0')
            len--;
        for (size_t i = 0; i < len; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        cmd[len] = '\0';
        *cmdline_out = cmd;
        cmd = NULL;
    }
    free(cmd);
    return IPC_OK;
}

void ipc_named_processes_free(ipc_named_process_t *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].command_line);
    free(v);
}

int ipc_find_by_name(const char *name, int timeout_ms, ipc_named_process_t **out, size_t *count, int *denied,
                     char *err, size_t errlen)
{
    ipc_endpoint_t *eps = NULL;
    ipc_named_process_t *v = NULL;
    size_t neps = 0, n = 0;
    int rc;

    *out = NULL;
    *count = 0;
    *denied = 0;
    rc = ipc_list_processes(&eps, &neps, err, errlen);
    if (rc != IPC_OK)
        return rc;
    v = calloc(neps ? neps : 1, sizeof(*v));
    if (!v) {
        free(eps);
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
    }
    for (size_t i = 0; i < neps; i++) {
        ipc_named_process_t *m = &v[n];
        ipc_process_info_t info;
        char *cmdline = NULL;
        int by_name, by_assembly = 0, irc;

        if (eps[i].pid == (int)getpid())
            continue;
        if (ipc_process_name(eps[i].pid, m->name, sizeof(m->name), &cmdline) != IPC_OK)
            continue;                   /* gone since the scan */
        by_name = strcasecmp(m->name, name) == 0;
        irc = ipc_process_info(eps[i].pid, timeout_ms, &info, NULL, 0);
        if (irc == IPC_ERR_PERMISSION) {
            /* another user's: not ours to attach to, but worth a word */
            if (by_name)
                (*denied)++;
            free(cmdline);
            continue;
        }
        if (irc == IPC_ERR_NO_PROCESS || irc == IPC_ERR_NO_SOCKET || irc == IPC_ERR_REFUSED) {
            free(cmdline);
            continue;                   /* exited since the scan, or a stale socket */
        }
        if (irc == IPC_OK) {
            snprintf(m->assembly, sizeof(m->assembly), "%s", info.entrypoint);
            by_assembly = !by_name && info.entrypoint[0] && strcasecmp(info.entrypoint, name) == 0;
            if (!cmdline || !cmdline[0]) {
                free(cmdline);
                cmdline = strdup(info.command_line);
            }
            ipc_process_info_free(&info);
        }
        if (!by_name && !by_assembly) {
            free(cmdline);
            continue;
        }
        m->pid = eps[i].pid;
        m->by_assembly = by_assembly;
        m->command_line = cmdline;
        n++;
    }
    free(eps);
    if (!n) {
        free(v);
        v = NULL;
    }
    *out = v;
    *count = n;
    return IPC_OK;
}
