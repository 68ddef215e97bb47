/* frame_class.c - a frame's kind from its name (frame_class.h). */
#include "report/frame_class.h"

#include <stdio.h>
#include <string.h>

/* The runtime's dispatch methods (prefixes of their names): what a thread
 * runs the program's code from, never the program's own work. */
static const char *const dispatch[] = {
    "System.Threading.Thread.StartCallback",
    "System.Threading.Thread+StartHelper.",
    "System.Threading.Thread.StartHelper.",
    "System.Threading.ExecutionContext.Run",
    "System.Threading.ThreadPoolWorkQueue.Dispatch",
    "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart",
    "System.Threading.PortableThreadPool.WorkerThread.WorkerThreadStart",
    "System.Threading.PortableThreadPool+IOCompletionPoller.Poll",
    "System.Threading.ThreadPool.",
    "System.Threading._ThreadPoolWaitCallback.",
    "System.Threading.QueueUserWorkItemCallback",
    "System.Threading.TimerQueue.",
    "System.Threading.TimerQueueTimer.",
    "System.Threading.Tasks.Task.Execute",
    "System.Threading.Tasks.Task.InnerInvoke",
    "System.Threading.Tasks.Task.RunContinuations",
    "System.Threading.Tasks.Task.FinishContinuations",
    "System.Threading.Tasks.Task.TrySetResult",
    "System.Threading.Tasks.Task`1.TrySetResult",
    "System.Threading.Tasks.Task.FinishSlow",
    "System.Threading.Tasks.Task.Finish",
    "System.Threading.Tasks.ThreadPoolTaskScheduler.",
    "System.Threading.Tasks.TaskScheduler.TryRunInline",
    "System.Threading.Tasks.AwaitTaskContinuation.",
    "System.Threading.Tasks.TaskContinuation.",
    "System.Threading.Tasks.ContinueWithTaskContinuation.",
    "System.Runtime.CompilerServices.AsyncTaskMethodBuilder",
    "System.Runtime.CompilerServices.AsyncValueTaskMethodBuilder",
    "System.Runtime.CompilerServices.AsyncMethodBuilderCore.",
    "System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1.",
    "System.Runtime.CompilerServices.TaskAwaiter+<>c.",
    "System.Net.Sockets.SocketAsyncEngine.",
    "System.Net.Sockets.SocketAsyncContext+AsyncOperation.",
    "System.Threading.Tasks.Sources.ManualResetValueTaskSourceCore",
};

/* Native symbols every thread (or the process) starts in. */
static const char *const thread_start_symbols[] = {
    "start_thread", "clone", "clone3", "__clone", "__clone3", "__libc_start_main", "__libc_start_call_main",
    "_start", "main",
};

/* Native objects only ever at the root: the host that starts the runtime. */
static const char *const host_objects[] = { "dotnet", "libhostfxr.so", "libhostpolicy.so" };

/* The end of a native frame's object name: its '!' or "+0x", if the part
 * before it looks like a file name (no spaces, no brackets). */
static const char *object_end(const char *name)
{
    const char *bang = strchr(name, '!'), *plus = strstr(name, "+0x"), *end;

    end = bang && (!plus || bang < plus) ? bang : plus;
    if (!end || end == name)
        return NULL;
    for (const char *q = name; q < end; q++)
        if (*q == ' ' || *q == '<' || *q == '[' || *q == '(' || *q == ',')
            return NULL;
    return end;
}

int rp_frame_object(const char *name, char *buf, size_t len)
{
    const char *end = object_end(name);

    if (!len)
        return 0;
    buf[0] = '\0';
    if (!end)
        return 0;
    snprintf(buf, len, "%.*s", (int)(end - name), name);
    return 1;
}

enum rp_code_class rp_frame_classify(const char *name)
{
    const char *end;

    if (name[0] == '[')
        return strncmp(name, "[native code]", 13) == 0 ? RP_CODE_NATIVE : RP_CODE_SPECIAL;
    if ((end = object_end(name)) != NULL) {
        size_t olen = (size_t)(end - name);
        for (size_t i = 0; i < sizeof(host_objects) / sizeof(*host_objects); i++)
            if (strlen(host_objects[i]) == olen && memcmp(name, host_objects[i], olen) == 0)
                return RP_CODE_THREAD_START;
        if (*end == '!')
            for (size_t i = 0; i < sizeof(thread_start_symbols) / sizeof(*thread_start_symbols); i++)
                if (strcmp(end + 1, thread_start_symbols[i]) == 0)
                    return RP_CODE_THREAD_START;
        return RP_CODE_NATIVE;
    }
    for (size_t i = 0; i < sizeof(dispatch) / sizeof(*dispatch); i++)
        if (strncmp(name, dispatch[i], strlen(dispatch[i])) == 0)
            return RP_CODE_DISPATCH;
    return RP_CODE_PROGRAM;
}

uint32_t rp_frame_root_prefix(const uint8_t *classes, uint32_t n)
{
    uint32_t k = 0, last_managed = UINT32_MAX;

    for (uint32_t i = 0; i < n; i++)
        if (classes[i] == RP_CODE_PROGRAM || classes[i] == RP_CODE_DISPATCH)
            last_managed = i;
    for (; k < n; k++) {
        uint8_t c = classes[k];
        if (c == RP_CODE_THREAD_START)
            continue;
        if (last_managed != UINT32_MAX && k < last_managed &&
            (c == RP_CODE_NATIVE || c == RP_CODE_SPECIAL || c == RP_CODE_DISPATCH))
            continue;
        break;
    }
    return k;
}
