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
