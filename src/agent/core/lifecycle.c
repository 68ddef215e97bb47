/* lifecycle.c - Initialize and Shutdown, the two ends of a profiler
 * instance's life in the runtime: at launch, read the configuration from
 * the environment and open the session (session.c); at Shutdown, in either
 * mode, close it.  Before either, LoadAsNotificationOnly: the role asked
 * for.  Any problem before recording starts cancels activation
 * with one line on stderr; the program then runs on unprofiled. */
#include "agent/core/callbacks.h"
#include "agent/core/profiler.h"
#include "agent/core/session.h"

#include <stdlib.h>
#include <unistd.h>

/* The runtime asks this right after creating the instance, before
 * Initialize or InitializeForAttach (so before the attach's configuration
 * is known).  A notification profiler when the command asked for one (the
 * CLSID it named: common/identity.h), or when the process's main profiler
 * is another (another instance of ours, or the startup profiler the
 * environment names): the runtime would refuse a second main profiler only
 * after loading the library, which then stays for good.  Otherwise the
 * main role, with all it allows. */
HRESULT cb_LoadAsNotificationOnly(ICorProfilerCallback11 *This, BOOL *only)
{
    profiler *p = profiler_from(This);
    int elsewhere;

    if (!only)
        return E_POINTER;
    p->main_profiler[0] = '\0';
    elsewhere = p->main_elsewhere && p->main_elsewhere(p, p->main_profiler, sizeof(p->main_profiler));
    p->notification = p->notification_asked || elsewhere;
    *only = p->notification ? TRUE : FALSE;
    return S_OK;
}

HRESULT cb_Initialize(ICorProfilerCallback11 *This, IUnknown *unk)
{
    profiler *p = profiler_from(This);
    const char *text = getenv("CLRPROBE_CONFIG");
    char err[512];

    if (!text)
        return session_decline(p, SESSION_LAUNCH, NULL,
                               "CLRPROBE_CONFIG is not set (start programs with 'clrprobe run')");
    if (cp_config_parse(text, &p->cfg, err, sizeof(err)) < 0)
        return session_decline(p, SESSION_LAUNCH, NULL, "invalid CLRPROBE_CONFIG: %s", err);
    if (p->cfg.pid && p->cfg.pid != (long)getpid()) {
        session_take_run_trace(&p->cfg, 0);   /* (the program's trace, if inherited: not ours) */
        session_take_run_clock(&p->cfg, 0);   /* (and its clock) */
        session_take_run_stacks(&p->cfg, 0);
        /* A process the profiled program started.  Followed (run=) it asks
         * the run for a trace file, and stays silent when the run is over;
         * else (--no-follow) it stays silent. */
        if (!p->cfg.run[0])
            return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
        return session_open(p, SESSION_CHILD, unk);
    }
    if (p->cfg.output_fd >= 0 && !session_take_run_trace(&p->cfg, 1)) {
        /* The program (a script that exec'd .NET) closed the descriptor
         * `clrprobe run` left it, or put something else there: its file
         * comes over the run's socket, as a child's does; never by a path. */
        if (p->cfg.run[0])
            return session_open(p, SESSION_CHILD, unk);
        return session_decline(p, SESSION_LAUNCH, NULL,
                               "the trace file's descriptor %d, left open by clrprobe run, is closed or replaced "
                               "in this process (the program closed it before starting .NET); let "
                               "the program keep its inherited descriptors", p->cfg.output_fd);
    }
    return session_open(p, SESSION_LAUNCH, unk);
}

/* The process shuts down, whether we were loaded at launch or attached:
 * the trace ends with runtime_shutdown, and an attach command hears
 * "exited". */
HRESULT cb_Shutdown(ICorProfilerCallback11 *This)
{
    atomic_store(&profiler_from(This)->session.shutting_down, 1);
    session_close(profiler_from(This), SESSION_SHUTDOWN);
    return S_OK;
}
