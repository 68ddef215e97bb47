/* runtime.c - the questions a session asks the runtime and the OS once, as
 * it opens (runtime.h), and the number of ICorProfilerInfo slots of each
 * version (info_slots, for INFO_HAS in profiler.h).  A leaf: it calls
 * nothing else of the agent but the UTF-16 conversion of names_format.c. */
#include "agent/core/runtime.h"
#include "agent/core/names_format.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static const GUID *const info_iids[] = {
    NULL, &IID_ICorProfilerInfo, &IID_ICorProfilerInfo2, &IID_ICorProfilerInfo3, &IID_ICorProfilerInfo4,
    &IID_ICorProfilerInfo5, &IID_ICorProfilerInfo6, &IID_ICorProfilerInfo7, &IID_ICorProfilerInfo8,
    &IID_ICorProfilerInfo9, &IID_ICorProfilerInfo10, &IID_ICorProfilerInfo11, &IID_ICorProfilerInfo12,
    &IID_ICorProfilerInfo13, &IID_ICorProfilerInfo14, &IID_ICorProfilerInfo15,
};

int info_slots(int version)
{
    static const int slots[] = { 0, CORPROF_INFO_SLOTS_V1, CORPROF_INFO_SLOTS_V2, CORPROF_INFO_SLOTS_V3,
        CORPROF_INFO_SLOTS_V4, CORPROF_INFO_SLOTS_V5, CORPROF_INFO_SLOTS_V6, CORPROF_INFO_SLOTS_V7,
        CORPROF_INFO_SLOTS_V8, CORPROF_INFO_SLOTS_V9, CORPROF_INFO_SLOTS_V10, CORPROF_INFO_SLOTS_V11,
        CORPROF_INFO_SLOTS_V12, CORPROF_INFO_SLOTS_V13, CORPROF_INFO_SLOTS_V14, CORPROF_INFO_SLOTS_V15 };
    if (version < 0 || version > 15)
        return 0;
    return slots[version];
}

/* The highest ICorProfilerInfoN the runtime answers. */
int query_info(IUnknown *unk, ICorProfilerInfo15 **out)
{
    for (int v = 15; v >= 1; v--) {
        void *ptr = NULL;
        if (SUCCEEDED(unk->lpVtbl->QueryInterface(unk, info_iids[v], &ptr)) && ptr) {
            *out = ptr;
            return v;
        }
    }
    return 0;
}

/* The command line from /proc/self/cmdline, arguments joined by spaces. */
void read_command_line(char *buf, size_t len)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = 0;

    buf[0] = '\0';
    if (fd < 0)
        return;
    while (n < (ssize_t)len - 1) {
        ssize_t r = read(fd, buf + n, len - 1 - (size_t)n);
        if (r <= 0)
            break;
        n += r;
    }
    close(fd);
    while (n > 0 && buf[n - 1] == '\0')
        n--;
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n] = '\0';
}

void read_runtime_version(ICorProfilerInfo15 *info, runtime_version *v)
{
    WCHAR wversion[64];
    ULONG len = 0;
    HRESULT hr = info->lpVtbl->GetRuntimeInformation(info, &v->instance, &v->type, &v->major, &v->minor,
                                                     &v->build, &v->qfe, sizeof(wversion) / sizeof(wversion[0]),
                                                     &len, wversion);
    if (SUCCEEDED(hr) && len > 0) {
        names_utf16_to_utf8(wversion, len, v->text, sizeof(v->text));
    } else if (SUCCEEDED(hr)) {
        snprintf(v->text, sizeof(v->text), "%u.%u.%u", v->major, v->minor, v->build);
    } else {
        snprintf(v->text, sizeof(v->text), "unknown");
        v->major = v->minor = v->build = v->qfe = v->instance = 0;
        v->type = 0;
    }
}
