/* lifecycle.c - Initialize and Shutdown of a launch-mode profiler instance:
 * taking the highest ICorProfilerInfo, reading the configuration, opening
 * the trace, choosing the event mask (runtime.c), starting the flusher
 * (flusher.c).  Any problem before
 * recording starts cancels activation with one line on stderr; the program
 * then runs on unprofiled. */
#include "agent/callbacks.h"
#include "agent/flusher.h"
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

HRESULT cb_Initialize(ICorProfilerCallback11 *This, IUnknown *unk)
{
    profiler *p = profiler_from(This);
    const char *text = getenv("CLRPROBE_CONFIG");
    char err[512], cmdline[2048];
    runtime_version v;
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
    read_runtime_version(p->info, &v);
    snprintf(p->runtime_version, sizeof(p->runtime_version), "%s", v.text);

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
        trace_rec_u16(&e.r, v.instance);
        trace_rec_u16(&e.r, (uint16_t)v.type);
        trace_rec_u16(&e.r, v.major);
        trace_rec_u16(&e.r, v.minor);
        trace_rec_u16(&e.r, v.build);
        trace_rec_u16(&e.r, v.qfe);
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
