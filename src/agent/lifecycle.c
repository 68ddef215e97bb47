/* lifecycle.c - Initialize and Shutdown of a launch-mode profiler instance:
 * taking the highest ICorProfilerInfo, reading the configuration, opening
 * the trace, choosing the event mask, and the flusher thread that turns
 * buffered records into chunks every 250 ms.  Any problem before
 * recording starts cancels activation with one line on stderr; the program
 * then runs on unprofiled. */
#include "agent/callbacks.h"
#include "agent/names.h"
#include "agent/profiler.h"
#include "agent/sampler.h"
#include "common/files.h"
#include "common/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FLUSH_INTERVAL_MS 250

static const GUID *const info_iids[] = {
    NULL, &IID_ICorProfilerInfo, &IID_ICorProfilerInfo2, &IID_ICorProfilerInfo3, &IID_ICorProfilerInfo4,
    &IID_ICorProfilerInfo5, &IID_ICorProfilerInfo6, &IID_ICorProfilerInfo7, &IID_ICorProfilerInfo8,
    &IID_ICorProfilerInfo9, &IID_ICorProfilerInfo10, &IID_ICorProfilerInfo11, &IID_ICorProfilerInfo12,
    &IID_ICorProfilerInfo13, &IID_ICorProfilerInfo14, &IID_ICorProfilerInfo15,
};
#define MIN_INFO_VERSION 5   /* SetEventMask2 */

/* One line on stderr, then cancel: the runtime unloads us and runs on.
 * The reason is escaped (common/escape.h): it may quote the configuration
 * or a path, which must not break the line or drive the terminal. */
static HRESULT cancel(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static HRESULT cancel(const char *fmt, ...)
{
    char line[768], shown[4 * sizeof(line)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    esc_buf(shown, sizeof(shown), line, strlen(line), NULL);
    fprintf(stderr, "clrprobe: %s; the program runs without profiling\n", shown);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
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

static void read_runtime_version(profiler *p, USHORT *major, USHORT *minor, USHORT *build, USHORT *qfe,
                                 USHORT *instance, COR_PRF_RUNTIME_TYPE *type)
{
    WCHAR wversion[64];
    ULONG len = 0;
    HRESULT hr = INFO(p)->GetRuntimeInformation(p->info, instance, type, major, minor, build, qfe,
                                                 sizeof(wversion) / sizeof(wversion[0]), &len, wversion);
    if (SUCCEEDED(hr) && len > 0) {
        names_utf16_to_utf8(wversion, len, p->runtime_version, sizeof(p->runtime_version));
    } else if (SUCCEEDED(hr)) {
        snprintf(p->runtime_version, sizeof(p->runtime_version), "%u.%u.%u", *major, *minor, *build);
    } else {
        snprintf(p->runtime_version, sizeof(p->runtime_version), "unknown");
        *major = *minor = *build = *qfe = *instance = 0;
        *type = 0;
    }
}

void read_runtime_version_string(profiler *p)
{
    USHORT major, minor, build, qfe, instance;
    COR_PRF_RUNTIME_TYPE type;
    read_runtime_version(p, &major, &minor, &build, &qfe, &instance, &type);
}

/* The event mask for what the configuration asks to collect.  After an
 * attach only COR_PRF_ALLOWABLE_AFTER_ATTACH may be asked for: no cache
 * searches (precompiled code is then not reported), and nothing that would
 * make the agent impossible to detach. */
void event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    /* Module loads are always watched: their unloads keep the name cache
     * honest (records are written only when modules are collected). */
    *low = COR_PRF_MONITOR_MODULE_LOADS;
    *high = 0;
    if (cfg->collect & CP_COLLECT_APPDOMAINS) *low |= COR_PRF_MONITOR_APPDOMAIN_LOADS;
    if (cfg->collect & CP_COLLECT_ASSEMBLIES) *low |= COR_PRF_MONITOR_ASSEMBLY_LOADS;
    if (cfg->collect & CP_COLLECT_CLASSES) *low |= COR_PRF_MONITOR_CLASS_LOADS;
    if (cfg->collect & CP_COLLECT_JIT) *low |= COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CACHE_SEARCHES;
    if (cfg->collect & CP_COLLECT_THREADS) *low |= COR_PRF_MONITOR_THREADS;
    if (cfg->collect & CP_COLLECT_SUSPENSIONS) *low |= COR_PRF_MONITOR_SUSPENDS;
    if (cfg->collect & CP_COLLECT_EXCEPTIONS) *low |= COR_PRF_MONITOR_EXCEPTIONS;
    if (cfg->collect & CP_COLLECT_GC) *high |= COR_PRF_HIGH_BASIC_GC;
    if (cfg->collect & CP_COLLECT_CPU) *low |= COR_PRF_ENABLE_STACK_SNAPSHOT;
    if (attach) {
        *low &= COR_PRF_ALLOWABLE_AFTER_ATTACH;
        *high &= COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH;
    }
}

/* Starts the writer on the trace file: the descriptor given (handed over
 * by `clrprobe attach`, which created it as its own user), or else
 * cfg.output opened as common/files.h says (never following a link, never
 * blocking, never overwriting). */
int open_trace(profiler *p, int given_fd, const trace_header_info *hdr, char *err, size_t errlen)
{
    const char *name = given_fd >= 0 ? "sent by clrprobe" : p->cfg.output;
    int fd = given_fd;

    p->output_created = 0;
    if (fd >= 0) {
        if (cp_file_check_fresh(fd, "the trace file sent by clrprobe", 0, err, errlen) < 0) {
            close(fd);
            return -1;
        }
    } else if ((fd = cp_file_open_trace(p->cfg.output, &p->output_created, err, errlen)) < 0) {
        return -1;
    }
    if (trace_writer_open(&p->writer, fd, name, hdr, err, errlen) < 0) {
        p->writer = NULL;
        if (p->output_created)
            unlink(p->cfg.output);
        p->output_created = 0;
        return -1;
    }
    return 0;
}

/* Activation failed after the trace was opened: close it, and remove the
 * file only if this agent created it. */
void close_trace_on_failure(profiler *p)
{
    if (!p->writer)
        return;
    trace_writer_free(p->writer);
    p->writer = NULL;
    if (p->output_created && p->cfg.output[0])
        unlink(p->cfg.output);
    p->output_created = 0;
}

static void *flusher_main(void *arg)
{
    profiler *p = arg;

    pthread_setname_np(pthread_self(), "clrprobe-flush");
    pthread_mutex_lock(&p->flusher_lock);
    while (!p->flusher_stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += FLUSH_INTERVAL_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->flusher_cond, &p->flusher_lock, &until);
        if (p->flusher_stop)
            break;
        pthread_mutex_unlock(&p->flusher_lock);
        trace_writer_flush(p->writer);
        thread_state_reap(p);
        pthread_mutex_lock(&p->flusher_lock);
    }
    pthread_mutex_unlock(&p->flusher_lock);
    return NULL;
}

/* Starts the flusher with every signal blocked, so the program's signal
 * handling never runs on our thread. */
int flusher_start(profiler *p)
{
    pthread_condattr_t ca;
    sigset_t all, old;
    int rc;

    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_destroy(&p->flusher_cond);
    pthread_cond_init(&p->flusher_cond, &ca);
    pthread_condattr_destroy(&ca);

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&p->flusher, NULL, flusher_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return -1;
    p->flusher_running = 1;
    return 0;
}

void flusher_stop(profiler *p)
{
    if (!p->flusher_running)
        return;
    pthread_mutex_lock(&p->flusher_lock);
    p->flusher_stop = 1;
    pthread_cond_signal(&p->flusher_cond);
    pthread_mutex_unlock(&p->flusher_lock);
    pthread_join(p->flusher, NULL);
    p->flusher_running = 0;
}

HRESULT cb_Initialize(ICorProfilerCallback11 *This, IUnknown *unk)
{
    profiler *p = profiler_from(This);
    const char *text = getenv("CLRPROBE_CONFIG");
    char err[512], cmdline[2048];
    USHORT major, minor, build, qfe, instance;
    COR_PRF_RUNTIME_TYPE rtype;
    trace_header_info hdr;
    DWORD low, high;
    HRESULT hr;
    emit e;

    if (!text)
        return cancel("CLRPROBE_CONFIG is not set (start programs with 'clrprobe run')");
    if (cp_config_parse(text, &p->cfg, err, sizeof(err)) < 0)
        return cancel("invalid CLRPROBE_CONFIG: %s", err);
    if (p->cfg.pid && p->cfg.pid != (long)getpid())
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;   /* a child of the profiled program: stay silent */

    p->info_version = query_info(unk, &p->info);
    if (p->info_version < MIN_INFO_VERSION)
        return cancel("this .NET runtime is too old (ICorProfilerInfo%d; clrprobe needs ICorProfilerInfo%d, "
                      ".NET Core 3.1 or newer)", p->info_version, MIN_INFO_VERSION);
    read_runtime_version(p, &major, &minor, &build, &qfe, &instance, &rtype);

    if (names_create(&p->names, p->info, p->info_version) < 0)
        return cancel("out of memory");
    if (thread_state_key_create(p) < 0)
        return cancel("cannot create thread-local storage");
    if (cu_gate_init(&p->gate) < 0)
        return cancel("out of memory");
    p->gate_ok = 1;
    event_mask(&p->cfg, 0, &low, &high);
    hr = INFO(p)->SetEventMask2(p->info, low, high);
    if (FAILED(hr))
        return cancel("the runtime refused the event mask 0x%x/0x%x (HRESULT 0x%08x)", (unsigned)low,
                      (unsigned)high, (unsigned)hr);

    /* Last, the steps that create the trace file: a cancelled activation
     * must not leave a trace behind. */
    read_command_line(cmdline, sizeof(cmdline));
    hdr.pid = (uint32_t)getpid();
    hdr.flags = 0;
    hdr.start_realtime_ns = cp_realtime_ns();
    hdr.start_monotonic_ns = cp_monotonic_ns();
    hdr.runtime_version = p->runtime_version;
    hdr.command_line = cmdline;
    if (open_trace(p, -1, &hdr, err, sizeof(err)) < 0)
        return cancel("%s", err);
    if (flusher_start(p) < 0) {
        close_trace_on_failure(p);
        return cancel("cannot start the flusher thread");
    }

    atomic_store(&p->recording, 1);
    if (emit_begin(p, &e, TK_RUNTIME_START)) {
        trace_rec_u16(&e.r, instance);
        trace_rec_u16(&e.r, (uint16_t)rtype);
        trace_rec_u16(&e.r, major);
        trace_rec_u16(&e.r, minor);
        trace_rec_u16(&e.r, build);
        trace_rec_u16(&e.r, qfe);
        trace_rec_str(&e.r, p->runtime_version);
        emit_end(&e);
    }
    if (sampler_start(p) < 0)
        profiler_note(p, "CPU sampling could not start (out of memory or threads)");
    return S_OK;
}

HRESULT cb_Shutdown(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    emit e;

    if (p->attached) {
        attach_shutdown(p);
        return S_OK;
    }
    if (!atomic_load(&p->recording))
        return S_OK;
    sampler_stop(p);
    if (emit_begin(p, &e, TK_RUNTIME_SHUTDOWN))
        emit_end(&e);
    atomic_store(&p->recording, 0);
    flusher_stop(p);
    trace_writer_close(p->writer, cp_gettid(), cp_monotonic_ns());
    return S_OK;
}
