/* profiler_env.h - what a process's environment tells the runtime about
 * profilers, read the way the runtime reads it: whether a startup ("main")
 * profiler is enabled and which library it names, and which variable holds
 * the list of notification profilers.  One reading for the three that need
 * it: the command looking at another process (/proc/PID/environ,
 * ipc/profcheck.c), the command launching one (cmd_run.c), and the agent
 * looking at its own process (lifecycle.c, runtime.c).
 *
 * The runtime's names (docs/runtime-abi.md, "The runtime's environment
 * variables"): CORECLR_ first, then .NET 11's DOTNET_ aliases; the
 * bitness-specific variant before the plain one (CORECLR_PROFILER_PATH_64, then CORECLR_PROFILER_PATH on x64). */
#ifndef CLRPROBE_COMMON_PROFILER_ENV_H
#define CLRPROBE_COMMON_PROFILER_ENV_H

#include <stddef.h>

/* An environment: a NUL-separated NAME=VALUE block (block, len), or, when
 * block is NULL, this process's own (getenv). */
typedef struct cp_env {
    const char *block;
    size_t len;
} cp_env;

/* Looks name up: 1 and the value in out (truncated to cap-1) when it is
 * set, 0 when not. */
int cp_env_lookup(const cp_env *env, const char *name, char *out, size_t cap);

/* 1 when the environment enables a startup profiler (CORECLR_ENABLE_PROFILING
 * or DOTNET_ENABLE_PROFILING not 0, a hexadecimal DWORD as the runtime reads
 * it) and names its library (a non-empty CORECLR_PROFILER_PATH* /
 * DOTNET_PROFILER_PATH*, in the runtime's order): the path in path and the
 * variable's name in var.  0 when not. */
int cp_startup_profiler(const cp_env *env, char *path, size_t cap, char *var, size_t varcap);

/* The variable whose list of notification profilers ("path={CLSID};...")
 * the runtime reads: the first one set in its order, with its value in
 * value; or, when none is, the plain CORECLR_NOTIFICATION_PROFILERS and "".
 * Returns 1 when one was set, 0 when not. */
int cp_notification_list(const cp_env *env, char *var, size_t varcap, char *value, size_t cap);

/* Appends "path={CLSID};" to the list in value (cap bytes), after a ';'
 * when its last entry lacks one (runtimes before dotnet/runtime#130584
 * drop a last entry without it).  0, or -1 when it does not fit or when
 * path holds ';' or '=', which the list cannot hold. */
int cp_notification_list_append(char *value, size_t cap, const char *path, const char *clsid);

#define CP_NOTIFICATION_ENABLE_VAR "CORECLR_ENABLE_NOTIFICATION_PROFILERS"

#endif
