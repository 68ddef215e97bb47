/* test_frame_class.c - frames' kinds by name and the process roots of a
 * stack (report/frame_class.h), over names as the agent writes them. */
#include "unit.h"
#include "report/frame_class.h"

#include <string.h>

TEST(frame_class_by_name)
{
    char obj[64];

    CHECK_EQ(rp_frame_classify("libc.so.6!start_thread"), RP_CODE_THREAD_START);
    CHECK_EQ(rp_frame_classify("libc.so.6!__clone3"), RP_CODE_THREAD_START);
    CHECK_EQ(rp_frame_classify("dotnet+0x1a2b"), RP_CODE_THREAD_START);
    CHECK_EQ(rp_frame_classify("libhostpolicy.so+0x3c40"), RP_CODE_THREAD_START);
    CHECK_EQ(rp_frame_classify("libc.so.6!memmove"), RP_CODE_NATIVE);
    CHECK_EQ(rp_frame_classify("libcoreclr.so+0x4b0210"), RP_CODE_NATIVE);
    CHECK_EQ(rp_frame_classify("libclrjit.so!jitStartup"), RP_CODE_NATIVE);
    CHECK_EQ(rp_frame_classify("[native code]"), RP_CODE_NATIVE);
    CHECK_EQ(rp_frame_classify("[stub: runtime-generated code]"), RP_CODE_SPECIAL);
    CHECK_EQ(rp_frame_classify("System.Threading.Thread.StartCallback"), RP_CODE_DISPATCH);
    CHECK_EQ(rp_frame_classify("System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart"),
             RP_CODE_DISPATCH);
    CHECK_EQ(rp_frame_classify("System.Threading.ThreadPoolWorkQueue.Dispatch"), RP_CODE_DISPATCH);
    CHECK_EQ(rp_frame_classify("System.Threading.ExecutionContext.RunInternal"), RP_CODE_DISPATCH);
    CHECK_EQ(rp_frame_classify("System.Threading.Monitor.Enter"), RP_CODE_PROGRAM);
    CHECK_EQ(rp_frame_classify("ClrProbe.Sample.Burn.BurnOther"), RP_CODE_PROGRAM);
    /* a managed name with '+' and generic arguments is not an object's */
    CHECK_EQ(rp_frame_classify("A.B<C.D+0x1>.M"), RP_CODE_PROGRAM);
    CHECK_EQ(rp_frame_classify("Program.<Main>$"), RP_CODE_PROGRAM);
    CHECK(rp_frame_object("libcoreclr.so+0x4b0210", obj, sizeof(obj)));
    CHECK_STR(obj, "libcoreclr.so");
    CHECK(rp_frame_object("libclrjit.so!jitStartup", obj, sizeof(obj)));
    CHECK_STR(obj, "libclrjit.so");
    CHECK(!rp_frame_object("System.Threading.Thread.StartCallback", obj, sizeof(obj)));
    CHECK_STR(obj, "");
}

/* The classes of a stack given by names, root first. */
static uint32_t roots_of(const char *const *names, uint32_t n)
{
    uint8_t cls[32];
    for (uint32_t i = 0; i < n; i++)
        cls[i] = (uint8_t)rp_frame_classify(names[i]);
    return rp_frame_root_prefix(cls, n);
}

TEST(frame_class_root_prefix)
{
    /* a thread-pool worker running the program: everything under its first frame is a root */
    static const char *const pool[] = {
        "libc.so.6!__clone3", "libc.so.6!start_thread", "libcoreclr.so+0x4a0000", "libcoreclr.so+0x3f1000",
        "System.Threading.Thread.StartCallback", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart",
        "System.Threading.ThreadPoolWorkQueue.Dispatch", "System.Threading.ExecutionContext.RunInternal",
        "App.Handler.Handle", "App.Work.Compute", "libcoreclr.so+0x100",
    };
    /* Main: the host and the runtime under it */
    static const char *const main_thread[] = {
        "dotnet+0x1000", "libc.so.6!__libc_start_main", "libhostfxr.so+0x2000", "libcoreclr.so+0x5000",
        "Program.<Main>$", "App.Work.Compute",
    };
    /* an idle worker: the wait it sits in is not a root */
    static const char *const idle[] = {
        "libc.so.6!start_thread", "libcoreclr.so+0x4a0000", "System.Threading.Thread.StartCallback",
        "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart",
        "System.Threading.LowLevelLifoSemaphore.WaitForSignal", "libcoreclr.so+0x7000", "libc.so.6!syscall",
    };
    /* a native thread (the GC's): only its start */
    static const char *const native[] = {
        "libc.so.6!__clone3", "libc.so.6!start_thread", "libcoreclr.so+0x4a0000", "libcoreclr.so+0x6000",
    };
    /* only dispatch frames: the last managed frame stays */
    static const char *const dispatch_only[] = {
        "libc.so.6!start_thread", "System.Threading.Thread.StartCallback", "System.Threading.TimerQueue.FireNextTimers",
    };

    CHECK_EQ(roots_of(pool, 11), 8u);
    CHECK_EQ(roots_of(main_thread, 6), 4u);
    CHECK_EQ(roots_of(idle, 7), 4u);
    CHECK_EQ(roots_of(native, 4), 2u);
    CHECK_EQ(roots_of(dispatch_only, 3), 2u);
    CHECK_EQ(roots_of(NULL, 0), 0u);
}

/* ---- the runtime's frames grouped (report/runtime_frames.h) ---- */

#include "report/runtime_frames.h"

static const char *names[64];
static size_t nnames;

static const char *name_of(void *ctx, uint32_t f)
{
    (void)ctx;
    return names[f];
}

static long intern(void *ctx, const char *name)
{
    (void)ctx;
    for (size_t i = 0; i < nnames; i++)
        if (strcmp(names[i], name) == 0)
            return (long)i;
    if (nnames == 64)
        return -1;
    names[nnames] = strdup(name);
    return (long)nnames++;
}

/* The stack of names (root first), grouped, as "a;b;c". */
static void grouped(const char *const *stack, uint32_t n, const char *thread, int in_gc, const char *want)
{
    uint32_t frames[32];
    rp_frame_names fn = { name_of, intern, NULL };
    char got[1024] = "";
    long m;

    for (uint32_t i = 0; i < n; i++)
        frames[i] = (uint32_t)intern(NULL, stack[i]);
    m = rp_runtime_group(frames, n, &fn, thread, in_gc);
    CHECK(m >= 0);
    for (long i = 0; i < m; i++) {
        strcat(got, i ? ";" : "");
        strcat(got, names[frames[i]]);
    }
    CHECK_STR(got, want);
}

TEST(runtime_frames_grouped_by_what_they_do)
{
    static const char *const start[] = { "libc.so.6+0x1098e1", "libc.so.6+0x88ef0", "libcoreclr.so+0x4a0000",
                                         "libcoreclr.so+0x3f1000", "System.Threading.Thread.StartCallback",
                                         "App.Work" };
    static const char *const jit[] = { "App.Main", "[stub: runtime-generated code]", "libcoreclr.so+0x100",
                                       "libclrjit.so+0x2000", "libclrjit.so+0x3000", "libcoreclr.so+0x200" };
    static const char *const gc[] = { "App.Main", "App.Alloc", "libcoreclr.so+0x100", "libcoreclr.so+0x300" };
    static const char *const collect[] = { "App.Main", "System.GC._Collect", "libcoreclr.so+0x100" };
    static const char *const wait[] = { "App.Main", "System.Threading.Monitor.Enter", "libcoreclr.so+0x100",
                                        "libc.so.6!syscall" };
    static const char *const cctor[] = { "App.Main", "libcoreclr.so+0x100", "libcoreclr.so+0x140", "App.Config..cctor" };
    static const char *const gcthread[] = { "libc.so.6!start_thread", "libcoreclr.so+0x600", "libcoreclr.so+0x700" };
    static const char *const plain[] = { "App.Main", "libcoreclr.so!coreclr_execute_assembly", "libc.so.6!memmove" };

    grouped(start, 6, "", 0, "libc.so.6+0x1098e1;libc.so.6+0x88ef0;" RP_RUNTIME_START
            ";System.Threading.Thread.StartCallback;App.Work");
    grouped(jit, 6, "", 0, "App.Main;[stub: runtime-generated code];" RP_RUNTIME_JIT);
    grouped(gc, 4, "", 1, "App.Main;App.Alloc;" RP_RUNTIME_GC);
    grouped(gc, 4, "", 0, "App.Main;App.Alloc;" RP_RUNTIME_CODE);
    grouped(collect, 3, "", 0, "App.Main;System.GC._Collect;" RP_RUNTIME_GC);
    grouped(wait, 4, "", 0, "App.Main;System.Threading.Monitor.Enter;" RP_RUNTIME_WAIT ";libc.so.6!syscall");
    grouped(cctor, 4, "", 0, "App.Main;" RP_RUNTIME_TYPEINIT ";App.Config..cctor");
    grouped(gcthread, 3, ".NET BGC", 0, "libc.so.6!start_thread;[runtime thread: .NET BGC]");
    grouped(gcthread, 3, "", 0, "libc.so.6!start_thread;" RP_RUNTIME_CODE);
    grouped(gcthread, 3, "Sample", 0, "libc.so.6!start_thread;" RP_RUNTIME_CODE);   /* (not a runtime thread's name) */
    grouped(plain, 3, "", 0, "App.Main;" RP_RUNTIME_CODE ";libc.so.6!memmove");
    /* not the runtime's: an object whose name only starts alike */
    {
        static const char *const other[] = { "App.Main", "libcoreclr.so.dbg+0x1", "libclrjitx.so+0x2" };
        grouped(other, 3, "", 0, "App.Main;libcoreclr.so.dbg+0x1;libclrjitx.so+0x2");
    }
}
