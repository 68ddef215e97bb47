/* test_child_session.c - the agent in a process that a `clrprobe run`
 * program started (SESSION_CHILD), driven by the fake runtime: it asks the
 * run socket for its trace file, and "detach" - here sent at once, before
 * Initialize has even returned - stops its recording with a note and
 * closes the trace; it answers "stopped".  With the run over (no socket)
 * it declines silently and creates nothing. */
#include "unit.h"

#include <pthread.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fake_runtime.h"
#include "common/control_protocol.h"
#include "common/identity.h"
#include "common/files.h"
#include "trace/format.h"

HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv);

/* (not jit: its cache searches are a launch-only flag, which the fake refuses) */
#define COLLECT "appdomains,assemblies,modules,classes,threads,gc,suspensions,exceptions"

typedef struct run_server {
    int listen_fd;
    char sock[108], trace[256];
    char said[256];            /* what the agent sent, lines joined */
} run_server;

/* The command's side: accept, read "hello", send the trace file and at
 * once "detach", then collect what the agent says until it closes or says
 * "stopped". */
static void *serve(void *arg)
{
    run_server *s = arg;
    size_t used = 0;
    int conn = accept(s->listen_fd, NULL, NULL), fd;

    if (conn < 0)
        return NULL;
    fd = cp_file_create(s->trace, 0);
    if (cp_ctl_send_trace(conn, fd, -1, -1) == 0)
        send(conn, CP_CTL_DETACH, CP_CTL_DETACH_LEN, MSG_NOSIGNAL);
    close(fd);
    for (;;) {
        struct pollfd p = { conn, POLLIN, 0 };
        ssize_t n;
        if (poll(&p, 1, 10000) <= 0 || used >= sizeof(s->said) - 1)
            break;
        n = recv(conn, s->said + used, sizeof(s->said) - 1 - used, 0);
        if (n <= 0)
            break;
        used += (size_t)n;
        s->said[used] = '\0';
        if (strstr(s->said, CP_CTL_STOPPED "\n"))
            break;
    }
    close(conn);
    return NULL;
}

static ICorProfilerCallback11 *new_instance(void)
{
    IClassFactory *factory = NULL;
    void *obj = NULL;
    if (FAILED(DllGetClassObject(&CLSID_clrprobe, &IID_IClassFactory, (void **)&factory)))
        return NULL;
    factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11, &obj);
    factory->lpVtbl->Release(factory);
    return obj;
}

TEST(child_session_stops_at_the_end_of_the_run)
{
    static fake_runtime rt;
    run_server s;
    struct sockaddr_un addr;
    char dir[] = "/tmp/clrprobe-unit-run-XXXXXX", config[512], err[256];
    const char *old = getenv("CLRPROBE_CONFIG");
    char *saved = old ? strdup(old) : NULL;
    ICorProfilerCallback11 *cb;
    pthread_t th;
    rp_trace tr;
    int notes = 0, shutdowns = 0;

    memset(&s, 0, sizeof(s));
    CHECK(mkdtemp(dir) != NULL);
    snprintf(s.sock, sizeof(s.sock), "%s/run", dir);
    snprintf(s.trace, sizeof(s.trace), "%s/t.child-1.clrp", dir);
    s.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", s.sock);
    CHECK_EQ(bind(s.listen_fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    CHECK_EQ(listen(s.listen_fd, 4), 0);
    CHECK_EQ(pthread_create(&th, NULL, serve, &s), 0);

    /* pid=1: not this process, so a child of the run */
    snprintf(config, sizeof(config), "v=1;output=%s/parent.clrp;collect=" COLLECT ";pid=1;run=%s", dir, s.sock);
    setenv("CLRPROBE_CONFIG", config, 1);
    fr_init(&rt);
    cb = new_instance();
    CHECK(cb != NULL);
    CHECK_EQ(cb->lpVtbl->Initialize(cb, (IUnknown *)&rt.info), S_OK);
    pthread_join(th, NULL);
    CHECK(strstr(s.said, CP_CTL_HELLO " ") == s.said);
    CHECK(strstr(s.said, CP_CTL_STOPPED "\n") != NULL);
    cb->lpVtbl->Shutdown(cb);
    cb->lpVtbl->Release(cb);
    CHECK_EQ(rt.violations, 0);
    fr_print_violations(&rt);

    if (rp_load(s.trace, &tr, err, sizeof(err)) == TRACE_OK) {
        CHECK(tr.complete);
        for (size_t i = 0; i < tr.nev; i++) {
            if (tr.ev[i].kind == TK_NOTE && strstr(tr.ev[i].note.text, "the clrprobe run ended"))
                notes++;
            if (tr.ev[i].kind == TK_RUNTIME_SHUTDOWN)
                shutdowns++;
        }
        CHECK_EQ(notes, 1);
        CHECK_EQ(shutdowns, 0);          /* recording had stopped before */
        CHECK_EQ(fr_count(&tr, TK_RUNTIME_START, 0), 1);
        rp_free(&tr);
    } else {
        CHECK(!"the child's trace is readable");
        printf("    %s\n", err);
    }
    {
        struct stat st;
        CHECK(stat(dir, &st) == 0);
        CHECK(access(s.trace, F_OK) == 0);
    }
    close(s.listen_fd);
    unlink(s.sock);

    /* The run is over: the socket is gone.  Nothing is created, nothing said. */
    fr_init(&rt);
    cb = new_instance();
    CHECK(cb != NULL);
    CHECK_EQ(cb->lpVtbl->Initialize(cb, (IUnknown *)&rt.info), CORPROF_E_PROFILER_CANCEL_ACTIVATION);
    cb->lpVtbl->Release(cb);
    {
        char parent[300];
        snprintf(parent, sizeof(parent), "%s/parent.clrp", dir);
        CHECK(access(parent, F_OK) != 0);
    }
    unlink(s.trace);
    rmdir(dir);
    if (saved) {
        setenv("CLRPROBE_CONFIG", saved, 1);
        free(saved);
    } else {
        unsetenv("CLRPROBE_CONFIG");
    }
}
