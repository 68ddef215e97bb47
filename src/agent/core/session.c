/* session.c - the one session core (session.h): set-up and teardown of a
 * recording session for both launch and attach, the services started and
 * stopped in the order of their table (service.h), and the hooks the
 * control thread uses to detach.
 *
 * Launch and attach run the same steps; what differs (the runtime allows
 * less after an attach, and the attach command is there to talk to) is the
 * data of the mode table below, read in the few places it matters. */
#include "agent/core/session.h"
#include "agent/core/control.h"
#include "agent/core/il_maps.h"
#include "agent/core/names.h"
#include "agent/core/profiler.h"
#include "agent/core/service.h"
#include "agent/core/thread_state.h"
#include "agent/core/runtime.h"
#include "common/escape.h"
#include "common/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACE_FD_TIMEOUT_MS 10000     /* the command sends the trace file right after "hello" */

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- the two modes ---- */

struct session_mode_info {
    const char *name;
    int attach;                 /* p->attached (ID tables for the catch-up merge), and the event
                                   mask kept to COR_PRF_(HIGH_)ALLOWABLE_AFTER_ATTACH */
    int gc_retry;               /* if the mask with GC events is refused, go on without them */
    uint32_t header_flags;      /* TRACE_FLAG_* of the trace header */
    int control;                /* the command listens on cfg.ctl: connect, say "hello"; refusals go
                                   there as "error ..." (else on stderr); without an output key the
                                   trace file's descriptor comes from it */
    int child;                  /* a child of the profiled program: the command is `clrprobe run`, on
                                   cfg.run; the trace file always comes from it, and the end of the
                                   run (or of the command) stops recording: no detach */
    int catchup;                /* ProfilerAttachComplete runs a catch-up: the services marked
                                   AFTER_CATCHUP wait for it (else they start at once) */
    int last_record_appended;   /* the last record is appended as a chunk of its own once every
                                   thread stopped (the runtime unloads us right after); else it is
                                   emitted by the closing thread before recording stops */
    int reason_max;             /* characters of a file error quoted in a refusal */
    const char *too_old, *needs;          /* "TOO_OLD (ICorProfilerInfoN; NEEDS)" */
    const char *tls_failed;               /* the thread key could not be created */
    const char *threads_failed;           /* a service could not start */
};

static const struct session_mode_info modes[] = {
    [SESSION_LAUNCH] = {
        .name = "launch",
        .attach = 0, .gc_retry = 0, .header_flags = 0, .control = 0, .catchup = 0,
        .last_record_appended = 0,
        .reason_max = 512,
        .too_old = "this .NET runtime is too old",
        .needs = "clrprobe needs ICorProfilerInfo" STR(MIN_INFO_VERSION) ", .NET Core 3.1 or newer",
        .tls_failed = "cannot create thread-local storage",
        .threads_failed = "cannot start the flusher thread",
    },
    [SESSION_ATTACH] = {
        .name = "attach",
        .attach = 1, .gc_retry = 1, .header_flags = TRACE_FLAG_ATTACHED, .control = 1, .catchup = 1,
        .last_record_appended = 1,
        .reason_max = 400,
        .too_old = "this .NET runtime is too old to attach to",
        .needs = ".NET 5 or newer needed",
        .tls_failed = "out of memory",
        .threads_failed = "cannot start the agent's threads",
    },
    [SESSION_CHILD] = {
        .name = "child",
        .attach = 0, .gc_retry = 0, .header_flags = 0, .control = 1, .child = 1, .catchup = 0,
        .last_record_appended = 0,
        .reason_max = 400,
        .too_old = "this .NET runtime is too old",
        .needs = "clrprobe needs ICorProfilerInfo" STR(MIN_INFO_VERSION) ", .NET Core 3.1 or newer",
        .tls_failed = "cannot create thread-local storage",
        .threads_failed = "cannot start the agent's threads",
    },
};

/* ---- the services ----
 *
 * Every thread of the agent's own is a service (service.h), started in the
 * order of service_list.h (which says why) and stopped in the reverse one
 * (session_close).  The control thread may itself stop services: every
 * service marked stop_before_detach, in before_detach for a detach and in
 * run_ended when a child's run ends; so control is stopped first and they
 * after it, never the other way round.  The flusher, marked `drains`, is
 * stopped last, just after recording ends.
 *
 * The services marked AFTER_CATCHUP start, on attach, only once
 * ProfilerAttachComplete has reported what the process held (names,
 * samples and snapshots would otherwise race the catch-up); at launch
 * there is no catch-up and they start right after the runtime_start
 * record.  So at attach the start order is the AT_OPEN ones (flusher,
 * exceptions, control), then (later) the others.
 *
 * The run of the service marked cpu_window (the sampler) is also the
 * window of the two process_cpu records (the process's CPU as the kernel
 * counts it): one when it starts, one when it stops, wherever that happens
 * (session_close, a detach, the end of a `clrprobe run` for a child), so
 * the report compares the samples' CPU with the process's over the same
 * time.
 *
 * A service that fails AT_OPEN cancels the activation; one that fails
 * AFTER_CATCHUP leaves a note in the trace and recording goes on.  Each
 * service's start and stop are serialized by its own lock here (the control
 * thread stops the sampler while the runtime's thread may start it), and
 * must be safe to call when already started/stopped. */

/* The number of threads of this process (the entries of /proc/self/task):
 * field 20 of /proc/self/stat, read into a stack buffer; 0 if unknown. */
static uint32_t process_threads(void)
{
    char buf[1024];
    const char *s;

    if (cp_read_small("/proc/self/stat", buf, sizeof(buf)) <= 0)
        return 0;
    s = strrchr(buf, ')');                      /* field 2, the name, may hold spaces and ')' */
    for (int field = 2; field < 20 && s; field++)
        s = strchr(s + 1, ' ');                 /* the space before field + 1 */
    return s ? (uint32_t)strtoul(s + 1, NULL, 10) : 0;
}

/* A process_cpu record: the CPU time of every thread of the process, the
 * runtime's native ones and ours included, as the kernel counts it.  No
 * allocation (but the calling thread's buffer, at its first record). */
static void emit_process_cpu(profiler *p)
{
    uint32_t threads = process_threads();
    struct timespec ts;
    emit e;

    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return;
    if (emit_begin(p, &e, TK_PROCESS_CPU)) {
        rec_process_cpu_put(&e.r, &(rec_process_cpu){ .cpu_ns = (uint64_t)ts.tv_sec * 1000000000u +
                                                                (uint64_t)ts.tv_nsec,
                                                      .threads = threads });
        emit_end(&e);
    }
}

static int service_start(profiler *p, int i)
{
    int rc = 0;

    if (!agent_services[i]->start)
        return 0;
    pthread_mutex_lock(&p->session.service_lock[i]);
    if (!atomic_load(&p->catchup_abort)) {     /* else a detach is on its way: don't start */
        rc = agent_services[i]->start(p);
        if (rc == 0 && agent_services[i]->cpu_window && !p->session.cpu_window_open) {
            emit_process_cpu(p);
            p->session.cpu_window_open = 1;
        }
    }
    pthread_mutex_unlock(&p->session.service_lock[i]);
    return rc;
}

static void service_stop(profiler *p, int i)
{
    if (!agent_services[i]->stop)
        return;
    pthread_mutex_lock(&p->session.service_lock[i]);
    agent_services[i]->stop(p);
    if (agent_services[i]->cpu_window && p->session.cpu_window_open) {
        emit_process_cpu(p);                    /* (nothing once recording has ended) */
        p->session.cpu_window_open = 0;
    }
    pthread_mutex_unlock(&p->session.service_lock[i]);
}

/* Starts the services of one moment in table order.  AT_OPEN: 0, or -1 at
 * the first failure (session_close stops those started). */
static int start_services(profiler *p, service_when when)
{
    for (int i = 0; i < SERVICE_COUNT; i++) {
        if (agent_services[i]->when != when || service_start(p, i) == 0)
            continue;
        if (when == AT_OPEN)
            return -1;
        if (agent_services[i]->failed_note)
            profiler_note(p, "%s", agent_services[i]->failed_note);
    }
    return 0;
}

/* ---- the control thread's hooks (control.h) ---- */

static void before_detach(profiler *p)
{
    /* A detach while ProfilerAttachComplete still runs would unload us under
     * it: ask the catch-up to finish early and wait for it. */
    atomic_store(&p->catchup_abort, 1);
    while (!atomic_load(&p->catchup_done) && !control_stopping(p)) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    /* No Info call may follow RequestProfilerDetach from our threads: the
     * sampler is stopped first. */
    for (int i = SERVICE_COUNT; i-- > 0;)
        if (agent_services[i]->stop_before_detach)
            service_stop(p, i);
}

static void detach_refused(profiler *p)
{
    atomic_store(&p->recording, 0);
    trace_writer_close(p->writer, cp_gettid(), cp_monotonic_ns());
}

/* After the event mask is set: are dynamic methods' unloads told from now
 * on?  Either way what was cached of them before is forgotten (unloads
 * between two sessions were not told). */
static void dynamic_unloads_watched(profiler *p)
{
    DWORD low = 0, high = 0;

    atomic_store(&p->dynamic_unloads_told, SUCCEEDED(INFO(p)->GetEventMask2(p->info, &low, &high)) &&
                 (high & COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS));
    atomic_fetch_add_explicit(&p->dynamic_unloads, 1, memory_order_release);
}

/* The detach was refused because IL was rewritten (control.h): the agent
 * stays for good, so it goes quiet: the trace closed, no more events (the
 * callbacks return at once anyway while not recording), and no thread of
 * its own but the quiet listener the control thread starts next. */
static void stay_quiet(profiler *p)
{
    HRESULT hr;

    detach_refused(p);
    hr = INFO(p)->SetEventMask2(p->info, 0, 0);
    atomic_store(&p->dynamic_unloads_told, 0);
    if (FAILED(hr)) {
        /* (the runtime keeps calling us; each callback returns at once) */
    }
    service_stop(p, SERVICE_flusher);          /* nothing left to write */
}

/* A child of the profiled program outlived the run (a build server): a
 * profiler loaded at launch cannot detach, so stop what costs (the
 * sampler), say why in the trace and close it; the process runs on. */
static void run_ended(profiler *p)
{
    /* "detach" may be read as soon as the control thread starts, before
     * session_open has finished (recording, the sampler): wait for it, or
     * give up when the session closes anyway. */
    while (!atomic_load(&p->session.open_done)) {
        struct timespec ms = { 0, 1000000 };
        if (control_stopping(p))
            return;
        nanosleep(&ms, NULL);
    }
    for (int i = SERVICE_COUNT; i-- > 0;)
        if (agent_services[i]->stop_before_detach)
            service_stop(p, i);
    profiler_note(p, TRACE_STOP_NOTE "the clrprobe run ended while this process went on; it is not "
                  "profiled any more");
    atomic_store(&p->recording, 0);
    trace_writer_close(p->writer, cp_gettid(), cp_monotonic_ns());
}

static const control_hooks session_hooks = { before_detach, detach_refused, NULL, stay_quiet };
static const control_hooks child_hooks = { NULL, NULL, run_ended, NULL };

/* ---- refusing ---- */

/* Says why activation is refused: at launch one line on stderr (the
 * runtime unloads us and the program runs on unprofiled), after attach an
 * "error" line to the command when it is listening.  The reason is escaped
 * (common/escape.h): it may quote the configuration or a path, which must
 * not break the line, drive the terminal, or start a line of the control
 * protocol. */
static void tell_failure(profiler *p, const struct session_mode_info *m, const char *fmt, va_list ap)
{
    if (m->control) {
        char why[512], shown[512];
        vsnprintf(why, sizeof(why), fmt, ap);
        esc_buf(shown, sizeof(shown), why, strlen(why), NULL);
        control_send(p, CP_CTL_ERROR_FMT, shown);
    } else {
        char line[768], shown[4 * sizeof(line)];
        vsnprintf(line, sizeof(line), fmt, ap);
        esc_buf(shown, sizeof(shown), line, strlen(line), NULL);
        fprintf(stderr, "clrprobe: %s; the program runs without profiling\n", shown);
    }
}

static HRESULT session_fail(profiler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static HRESULT session_fail(profiler *p, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    tell_failure(p, p->session.mode, fmt, ap);
    va_end(ap);
    session_close(p, SESSION_FAILED);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
}

HRESULT session_decline(profiler *p, session_mode mode, const char *ctl, const char *fmt, ...)
{
    const struct session_mode_info *m = &modes[mode];
    char err[256];
    va_list ap;

    if (m->control && (!ctl || !ctl[0] || control_connect(p, ctl, NULL, err, sizeof(err)) < 0))
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;      /* nobody to tell */
    va_start(ap, fmt);
    tell_failure(p, m, fmt, ap);
    va_end(ap);
    control_disconnect(p);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
}

/* ---- the trace file ---- */

int session_take_run_trace(const cp_config *cfg, int mine)
{
    struct stat st;
    int fd = cfg->output_fd;

    if (fd < 0 || fstat(fd, &st) < 0 || (unsigned long long)st.st_dev != cfg->output_dev ||
        (unsigned long long)st.st_ino != cfg->output_ino)
        return 0;                 /* closed, or its number now holds something else: not ours to touch */
    if (!mine) {
        close(fd);
        return 0;
    }
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
        return 0;
    return 1;
}

/* An inherited descriptor that should be a BPF map: taken (close-on-exec)
 * when it is one and mine, closed when it is one and not mine. */
static int take_run_map(int fd, int mine)
{
    char path[64], link[64];
    ssize_t n;

    if (fd < 0)
        return -1;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    n = readlink(path, link, sizeof(link) - 1);
    if (n <= 0)
        return -1;
    link[n] = '\0';
    if (strcmp(link, "anon_inode:bpf-map") != 0)
        return -1;                /* its number now holds something else: not ours to touch */
    if (!mine || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int session_take_run_clock(const cp_config *cfg, int mine)
{
    return take_run_map(cfg->clock_fd, mine);
}

int session_take_run_stacks(const cp_config *cfg, int mine)
{
    return take_run_map(cfg->stack_fd, mine);
}

/* Starts the writer on the trace file: the descriptor given (handed over
 * by `clrprobe attach` or by `clrprobe run` over its socket, created as
 * the command's user; or left open by `clrprobe run` for the process it
 * started, cfg.output_fd, which lifecycle.c checked with
 * session_take_run_trace), or else cfg.output opened as common/files.h
 * says (never following a link, never blocking, never overwriting).  With
 * a descriptor, no path is ever opened. */
static int open_trace(profiler *p, int given_fd, const trace_header_info *hdr, char *err, size_t errlen)
{
    const char *name = given_fd < 0 ? p->cfg.output
                       : p->session.mode->control ? "the trace file sent by clrprobe"
                                                  : "the trace file clrprobe run opened";
    int fd = given_fd;

    p->session.output_created = 0;
    if (fd >= 0) {
        if (cp_file_check_fresh(fd, name, 0, err, errlen) < 0) {
            close(fd);
            return -1;
        }
    } else if ((fd = cp_file_open_trace(p->cfg.output, &p->session.output_created, err, errlen)) < 0) {
        return -1;
    }
    if (trace_writer_open(&p->writer, fd, name, hdr, err, errlen) < 0) {
        p->writer = NULL;
        if (p->session.output_created)
            unlink(p->cfg.output);
        p->session.output_created = 0;
        return -1;
    }
    return 0;
}

/* Activation failed after the trace was opened: close it, and remove the
 * file only if this agent created it. */
static void close_trace_on_failure(profiler *p)
{
    if (!p->writer)
        return;
    trace_writer_free(p->writer);
    p->writer = NULL;
    if (p->session.output_created && p->cfg.output[0])
        unlink(p->cfg.output);
    p->session.output_created = 0;
}

/* ---- opening ---- */

/* The first record of every trace, at launch and after an attach alike. */
static void emit_runtime_start(profiler *p, const runtime_version *v)
{
    emit e;

    if (emit_begin(p, &e, TK_RUNTIME_START)) {
        rec_runtime_start_put(&e.r, &(rec_runtime_start){ .clr_instance = v->instance,
                                                          .runtime_type = (uint16_t)v->type,
                                                          .major = v->major, .minor = v->minor,
                                                          .build = v->build, .qfe = v->qfe,
                                                          .version = p->runtime_version,
                                                          .main_profiler = p->notification ? p->main_profiler
                                                                                           : "" });
        emit_end(&e);
    }
}

HRESULT session_open(profiler *p, session_mode mode, IUnknown *unk)
{
    const struct session_mode_info *m = &modes[mode];
    char err[512], note[256] = "", prepare_note[320] = "", why[300], cmdline[2048];
    trace_header_info hdr;
    runtime_version v;
    DWORD low, high;
    HRESULT hr;
    int trace_fd = -1;

    for (int i = 0; i < SERVICE_COUNT; i++)
        pthread_mutex_init(&p->session.service_lock[i], NULL);
    p->session.mode = m;
    p->attached = m->attach;

    /* First the command, if one listens: every later refusal reaches it. */
    if (m->control && (m->child ? p->cfg.run : p->cfg.ctl)[0]) {
        if (control_connect(p, m->child ? p->cfg.run : p->cfg.ctl, m->child ? &child_hooks : &session_hooks, err,
                            sizeof(err)) < 0) {
            session_close(p, SESSION_FAILED);
            return CORPROF_E_PROFILER_CANCEL_ACTIVATION;  /* the command is gone */
        }
        control_send(p, CP_CTL_HELLO_FMT, (int)getpid());
    }

    p->info_version = query_info(unk, &p->info);
    if (p->info_version < MIN_INFO_VERSION)
        return session_fail(p, "%s (ICorProfilerInfo%d; %s)", m->too_old, p->info_version, m->needs);
    read_runtime_version(p->info, &v);
    snprintf(p->runtime_version, sizeof(p->runtime_version), "%s", v.text);

    if (names_create(&p->names, p->info, p->info_version) < 0 || il_maps_create(&p->il_maps) < 0 ||
        cu_gate_init(&p->gate) < 0)
        return session_fail(p, "out of memory");
    p->gate_ok = 1;
    if (m->attach) {
        p->modules = cu_table_create();
        p->assemblies = cu_table_create();
        p->appdomains = cu_table_create();
        p->threads_known = cu_table_create();
        if (!p->modules || !p->assemblies || !p->appdomains || !p->threads_known)
            return session_fail(p, "out of memory");
    }
    if (thread_state_key_create(p) < 0)
        return session_fail(p, "%s", m->tls_failed);

    /* After an attach the mask is set here, inside InitializeForAttach: the
     * only place the runtime accepts every after-attach flag.  If the GC
     * events are refused then, go on without them and say so in the trace. */
    /* A notification profiler (lifecycle.c) cannot trace methods (enter/leave
     * hooks and ReJIT belong to the main profiler) nor monitor GCs (heap
     * snapshots are then taken by enumeration, heap.c). */
    if (p->notification && p->cfg.main_profiler[0])
        snprintf(p->main_profiler, sizeof(p->main_profiler), "%s", p->cfg.main_profiler);
    if (p->notification && (p->cfg.trace[0] || p->cfg.heap_method == CP_HEAP_METHOD_GC))
        return session_fail(p, "%s needs the main profiler's role, and this process's main profiler is %s: "
                            "%s from that one (or once it has gone)",
                            p->cfg.trace[0] ? "--trace (enter/leave hooks or ReJIT)" : "heap_method=gc (GC monitoring)",
                            p->main_profiler[0] ? p->main_profiler : "another profiler",
                            p->cfg.trace[0] ? "trace" : "take heap snapshots");
    services_event_mask(&p->cfg, m->attach, p->notification, &low, &high);
    hr = INFO(p)->SetEventMask2(p->info, low, high);
    if (FAILED(hr) && (low & COR_PRF_MONITOR_GC) && m->attach) {
        /* Heap snapshots: the runtime may refuse GC monitoring here (a
         * background GC that did not end in time); record the rest. */
        HRESULT gc_hr = hr;
        low &= ~(DWORD)COR_PRF_MONITOR_GC;
        hr = INFO(p)->SetEventMask2(p->info, low, high);
        if (SUCCEEDED(hr))
            snprintf(note, sizeof(note), "the runtime refused COR_PRF_MONITOR_GC after this attach (HRESULT "
                     "0x%08x): heap snapshots will be refused too", (unsigned)gc_hr);
    }
    if (FAILED(hr) && high && m->gc_retry) {
        HRESULT gc_hr = hr;
        hr = INFO(p)->SetEventMask2(p->info, low, 0);
        if (SUCCEEDED(hr))
            snprintf(note, sizeof(note), "GC events are not available after this attach (the runtime refused "
                     "COR_PRF_HIGH_BASIC_GC: HRESULT 0x%08x); recording without them", (unsigned)gc_hr);
    }
    if (FAILED(hr))
        return session_fail(p, "the runtime refused the event mask 0x%x/0x%x (HRESULT 0x%08x)", (unsigned)low,
                            (unsigned)high, (unsigned)hr);
    dynamic_unloads_watched(p);
    /* What the runtime allows only here (the method tracer's hooks at
     * launch): each service's prepare, whose failure is a note. */
    for (int i = 0; i < SERVICE_COUNT; i++)
        if (agent_services[i]->prepare && agent_services[i]->prepare(p, m->attach, why, sizeof(why)) < 0)
            snprintf(prepare_note, sizeof(prepare_note), "%s", why);

    /* Last, the steps that create the trace file: a cancelled activation
     * must not leave a trace behind. */
    read_command_line(cmdline, sizeof(cmdline));
    hdr.pid = (uint32_t)getpid();
    hdr.flags = m->header_flags | (p->notification ? TRACE_FLAG_NOTIFICATION : 0);
    hdr.start_realtime_ns = cp_realtime_ns();
    hdr.start_monotonic_ns = cp_monotonic_ns();
    hdr.runtime_version = p->runtime_version;
    hdr.command_line = cmdline;
    /* After an attach without an output, the command created the file (as
     * its own user: when root attaches to another user's process, the trace
     * stays root's) and sends the descriptor; we never open a path of its
     * choosing. */
    if (m->control && (!p->cfg.output[0] || m->child) &&
        (trace_fd = control_receive_trace(p, TRACE_FD_TIMEOUT_MS, err, sizeof(err))) < 0)
        return session_fail(p, "%.*s", m->reason_max, err);
    /* At launch under `clrprobe run`, the file the command created and
     * checked, by its descriptor: a directory on its path swapped for a link
     * since then changes nothing. */
    if (!m->control && p->cfg.output_fd >= 0)
        trace_fd = p->cfg.output_fd;
    if (!m->control && p->cfg.clock_fd >= 0) {
        control_give_clock(p, session_take_run_clock(&p->cfg, 1));
        control_give_stacks(p, session_take_run_stacks(&p->cfg, 1));
    }
    if (open_trace(p, trace_fd, &hdr, err, sizeof(err)) < 0)
        return session_fail(p, "%.*s", m->reason_max, err);
    if (start_services(p, AT_OPEN) < 0)
        return session_fail(p, "%s", m->threads_failed);

    atomic_store(&p->recording, 1);
    emit_runtime_start(p, &v);
    if (p->notification)
        profiler_note(p, "loaded as a notification profiler%s%s%s: no method tracing; heap snapshots by heap "
                         "enumeration (roots approximate); CPU samples by the suspend engine if another component "
                         "samples with SIGPROF",
                      p->main_profiler[0] ? ", beside the process's main profiler (" : " (no main profiler known)",
                      p->main_profiler, p->main_profiler[0] ? ")" : "");
    if (note[0])
        profiler_note(p, "%s", note);
    if (prepare_note[0])
        profiler_note(p, "%s", prepare_note);
    if (!m->catchup)
        session_caught_up(p);             /* nothing to catch up at launch */
    atomic_store(&p->session.open_done, 1);
    return S_OK;
}

void session_caught_up(profiler *p)
{
    if (p->session.mode)
        start_services(p, AFTER_CATCHUP);
}

/* ---- closing ---- */

static const struct session_end {
    int last_kind;              /* the last record (0: none) */
    const char *told;           /* the line for the command (NULL: none) */
} ends[] = {
    [SESSION_SHUTDOWN] = { TK_RUNTIME_SHUTDOWN, CP_CTL_EXITED },
    [SESSION_DETACHED] = { TK_DETACH, CP_CTL_DETACHED },
    [SESSION_FAILED] = { 0, NULL },
    [SESSION_DESTROY] = { 0, NULL },
};

/* Recording stops: no callback or service writes to the trace any more.
 * At launch the last record is emitted first, on the closing thread. */
static void end_recording(profiler *p, int last_kind)
{
    emit e;

    if (last_kind && !p->session.mode->last_record_appended && emit_begin(p, &e, last_kind)) {
        rec_put(&e.r, last_kind, &(rec_any){ 0 });
        emit_end(&e);
    }
    atomic_store(&p->recording, 0);
}

static void append_record(profiler *p, int kind)
{
    uint8_t rec[TRACE_RECORD_HEADER_LEN];
    trace_rec r;

    trace_rec_begin(&r, rec, sizeof(rec), kind, cp_gettid(), cp_monotonic_ns());
    rec_put(&r, kind, &(rec_any){ 0 });   /* (the last records have no fields) */
    trace_writer_append_record(p->writer, rec, trace_rec_finish(&r));
}

/* Frees what session_open set up.  By then no callback is running and
 * recording has stopped (Shutdown, a cancelled activation, or a detach),
 * so no thread can reach the per-thread state: the TLS key is deleted
 * first so that thread exits no longer touch it. */
static void release(profiler *p)
{
    if (p->tls_key_ok) {
        pthread_key_delete(p->tls_key);
        p->tls_key_ok = 0;
    }
    thread_state_free_all(p);
    if (p->writer)
        trace_writer_free(p->writer);
    p->writer = NULL;
    names_free(p->names);
    p->names = NULL;
    il_maps_free(p->il_maps);
    p->il_maps = NULL;
    cu_table_free(p->modules);
    cu_table_free(p->assemblies);
    cu_table_free(p->appdomains);
    cu_table_free(p->threads_known);
    p->modules = p->assemblies = p->appdomains = p->threads_known = NULL;
    services_release(p);
    if (p->gate_ok)
        cu_gate_destroy(&p->gate);
    p->gate_ok = 0;
    if (p->info)
        p->info->lpVtbl->Release(p->info);
    p->info = NULL;
    if (p->session.mode)
        for (int i = 0; i < SERVICE_COUNT; i++)
            pthread_mutex_destroy(&p->session.service_lock[i]);
    p->session.mode = NULL;
}

void session_reset(profiler *p)
{
    release(p);                                /* (the Info pointer stays valid: the runtime owns it) */
    services_reset(p);
    memset(&p->session, 0, sizeof(p->session));
    atomic_store(&p->catchup_done, 0);
    atomic_store(&p->catchup_abort, 0);
    atomic_store(&p->gc_started, 0);
}

/* The one teardown order:
 *   1. the services stop in reverse table order (control, sampler), and
 *      before the one that drains the others (the flusher) recording ends:
 *      at launch the last record is emitted just before;
 *   2. after an attach the last record is appended now that every thread
 *      of ours is joined (ProfilerDetachSucceeded must not return before:
 *      the runtime unloads the library right after); the trace is closed;
 *   3. the command is told ("exited", "detached") and the connection
 *      closed;
 *   4. a failed open drops its trace (removing the file only if this agent
 *      created it); the instance's end frees everything. */
void session_close(profiler *p, session_why why)
{
    const struct session_end *end = &ends[why];

    if (p->session.mode) {
        int last = end->last_kind && p->writer && atomic_load(&p->recording) ? end->last_kind : 0;

        for (int i = SERVICE_COUNT; i-- > 0;) {
            if (agent_services[i]->drains)
                end_recording(p, last);
            service_stop(p, i);
        }
        if (last) {
            if (p->session.mode->last_record_appended)
                append_record(p, last);
            trace_writer_close(p->writer, cp_gettid(), cp_monotonic_ns());
        }
        if (end->told)
            control_send(p, "%s", end->told);
        control_disconnect(p);
        if (why == SESSION_FAILED)
            close_trace_on_failure(p);
    }
    if (why == SESSION_DESTROY)
        release(p);
}
