/* test_async_frames.c - async state machines shown as their methods, and the
 * builders' Start frames folded (report/async_frames.h), over names taken
 * from real traces: `dotnet build` of a console project (MSBuild, NuGet),
 * `Sample async`, and a program of top-level statements. */
#include "unit.h"
#include "report/async_frames.h"

#include <stdint.h>

#define SRC "System.Runtime.CompilerServices."

static const struct { const char *raw; int role; const char *shown; } names[] = {
    /* async methods: nested in their type, with and without generic arguments */
    { "Microsoft.Build.BackEnd.RequestBuilder+<BuildProject>d__68.MoveNext", RP_FRAME_STATE_MACHINE,
      "Microsoft.Build.BackEnd.RequestBuilder.BuildProject [async]" },
    { "NuGet.Commands.RestoreRunner+<RunAsync>d__0.MoveNext", RP_FRAME_STATE_MACHINE,
      "NuGet.Commands.RestoreRunner.RunAsync [async]" },
    { "Microsoft.DotNet.Cli.Commands.Workload.Install.WorkloadManifestUpdater+<BackgroundUpdateAdvertisingManifestsAsync>d__14.MoveNext",
      RP_FRAME_STATE_MACHINE,
      "Microsoft.DotNet.Cli.Commands.Workload.Install.WorkloadManifestUpdater.BackgroundUpdateAdvertisingManifestsAsync [async]" },
    { "ClrProbe.Sample.AsyncTargets+<BurnGenericAsync>d__3<System.__Canon>.MoveNext", RP_FRAME_STATE_MACHINE,
      "ClrProbe.Sample.AsyncTargets.BurnGenericAsync<System.__Canon> [async]" },
    /* (a plain iterator: its name cannot tell; rp_async_fold renames only when async plumbing calls it) */
    { "System.Collections.Concurrent.BlockingCollection<System.__Canon>+<GetConsumingEnumerable>d__68.MoveNext",
      RP_FRAME_STATE_MACHINE, "System.Collections.Concurrent.BlockingCollection<System.__Canon>.GetConsumingEnumerable [async]" },
    { "A.Outer+Inner+<Method>d__3.MoveNext", RP_FRAME_STATE_MACHINE, "A.Outer+Inner.Method [async]" },
    /* top-level statements, lambdas and local functions (no ordinal after the d) */
    { "Program+<<Main>$>d__0.MoveNext", RP_FRAME_STATE_MACHINE, "Program.<Main>$ [async]" },
    { "ClrProbe.Sample.AsyncScenario+<>c__DisplayClass2_0+<<RunAsync>b__0>d.MoveNext", RP_FRAME_STATE_MACHINE,
      "ClrProbe.Sample.AsyncScenario+<>c__DisplayClass2_0.<RunAsync>b__0 [async]" },
    { "ClrProbe.Sample.AsyncScenario+<>c__DisplayClass2_0+<<RunAsync>g__LocalAsync|1>d.MoveNext",
      RP_FRAME_STATE_MACHINE, "ClrProbe.Sample.AsyncScenario+<>c__DisplayClass2_0.<RunAsync>g__LocalAsync|1 [async]" },
    /* async and plain iterators have the same names */
    { "ClrProbe.Sample.AsyncTargets+<BurnIteratorAsync>d__4.MoveNext", RP_FRAME_STATE_MACHINE,
      "ClrProbe.Sample.AsyncTargets.BurnIteratorAsync [async]" },
    /* builders' Start frames, the iterator builder's MoveNext, the box's trampoline */
    { SRC "AsyncTaskMethodBuilder.Start<Microsoft.Build.BackEnd.RequestBuilder+<RequestThreadProc>d__58>",
      RP_FRAME_ASYNC_START, NULL },
    { SRC "AsyncMethodBuilderCore.Start<Microsoft.Build.BackEnd.RequestBuilder+<RequestThreadProc>d__58>",
      RP_FRAME_ASYNC_START, NULL },
    { SRC "AsyncTaskMethodBuilder<System.__Canon>.Start<Microsoft.Build.BackEnd.RequestBuilder+<BuildProject>d__68>",
      RP_FRAME_ASYNC_START, NULL },
    { SRC "AsyncTaskMethodBuilder<System.ValueTuple<System.__Canon,System.Boolean,System.__Canon>>.Start<NuGet.Commands.RestoreCommand+<EvaluateNoOpAsync>d__113>",
      RP_FRAME_ASYNC_START, NULL },
    { SRC "AsyncValueTaskMethodBuilder<System.Int32>.Start<System.IO.Pipes.PipeStream+<ReadAsyncCore>d__82>",
      RP_FRAME_ASYNC_START, NULL },
    { SRC "PoolingAsyncValueTaskMethodBuilder<System.Int64>.Start<ClrProbe.Sample.AsyncTargets+<BurnPooledAsync>d__2>",
      RP_FRAME_ASYNC_START, NULL },
    { SRC "AsyncVoidMethodBuilder.Start<A.B+<OnClick>d__1>", RP_FRAME_ASYNC_START, NULL },
    /* state machines that are classes (Debug builds, async iterators) share the builders' code */
    { SRC "AsyncMethodBuilderCore.Start<System.__Canon>", RP_FRAME_ASYNC_START, NULL },
    { SRC "AsyncIteratorMethodBuilder.MoveNext<System.__Canon>", RP_FRAME_ASYNC_START, NULL },
    { SRC "AsyncTaskMethodBuilder.AwaitUnsafeOnCompleted<System.Runtime.CompilerServices.YieldAwaitable+YieldAwaiter,System.__Canon>",
      RP_FRAME_PLAIN, NULL },
    { SRC "AsyncIteratorMethodBuilder.MoveNext<ClrProbe.Sample.AsyncTargets+<BurnIteratorAsync>d__4>",
      RP_FRAME_ASYNC_START, NULL },
    { SRC "AsyncTaskMethodBuilder<System.Int64>+AsyncStateMachineBox<ClrProbe.Sample.AsyncTargets+<BurnAsync>d__1>.ExecutionContextCallback",
      RP_FRAME_ASYNC_START, NULL },
    /* how continuations run: kept */
    { SRC "AsyncTaskMethodBuilder<System.Int64>+AsyncStateMachineBox<ClrProbe.Sample.AsyncTargets+<BurnAsync>d__1>.MoveNext",
      RP_FRAME_ASYNC_RESUME, NULL },
    { SRC "AsyncTaskMethodBuilder<System.Threading.Tasks.VoidTaskResult>+AsyncStateMachineBox<System.__Canon>.ExecuteFromThreadPool",
      RP_FRAME_ASYNC_RESUME, NULL },
    { SRC "PoolingAsyncValueTaskMethodBuilder<System.Int64>+StateMachineBox<A.B+<C>d__2>.MoveNext",
      RP_FRAME_ASYNC_RESUME, NULL },
    { "System.Threading.ExecutionContext.RunInternal", RP_FRAME_ASYNC_RESUME, NULL },
    { "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop", RP_FRAME_ASYNC_RESUME, NULL },
    /* plain frames: other builder methods, other MoveNexts, look-alikes */
    { SRC "AsyncTaskMethodBuilder.AwaitUnsafeOnCompleted<System.Runtime.CompilerServices.ValueTaskAwaiter<Microsoft.Build.BackEnd.WorkUnitResult>,Microsoft.Build.BackEnd.TargetEntry+<ExecuteTarget>d__43>",
      RP_FRAME_PLAIN, NULL },
    { SRC "AsyncTaskMethodBuilder<System.Int64>.SetExistingTaskResult", RP_FRAME_PLAIN, NULL },
    { SRC "AsyncTaskMethodBuilderX.Start<A+<B>d__1>", RP_FRAME_PLAIN, NULL },
    { "System.Linq.Enumerable+ListSelectIterator<System.__Canon,System.__Canon>.MoveNext", RP_FRAME_PLAIN, NULL },
    { "System.Security.Cryptography.PemEnumerator<System.Char>+Enumerator.MoveNext", RP_FRAME_PLAIN, NULL },
    { "Microsoft.Build.BackEnd.RequestBuilder.BuildProject", RP_FRAME_PLAIN, NULL },
    { "Microsoft.Build.BackEnd.RequestBuilder+DedicatedThreadsTaskScheduler.<InjectThread>b__6_0", RP_FRAME_PLAIN, NULL },
    { "A+<B>d__1.MoveNextAsync", RP_FRAME_PLAIN, NULL },
    { "A+<B>x__1.MoveNext", RP_FRAME_PLAIN, NULL },
    { "A+<B>d__.MoveNext", RP_FRAME_PLAIN, NULL },
    { "A+<B>d__1<C.MoveNext", RP_FRAME_PLAIN, NULL },
    { "<B>d__1.MoveNext", RP_FRAME_PLAIN, NULL },
    { "A+<>d__1.MoveNext", RP_FRAME_PLAIN, NULL },
    { ".MoveNext", RP_FRAME_PLAIN, NULL },
    { "", RP_FRAME_PLAIN, NULL },
    { "System.Threading.Thread.StartCallback", RP_FRAME_PLAIN, NULL },
};

TEST(async_frames_roles_and_names)
{
    char buf[512];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        long n = rp_async_method_name(names[i].raw, buf, sizeof(buf));
        if ((int)rp_frame_role(names[i].raw) != names[i].role)
            unit_fail(__FILE__, __LINE__, "role of %s: %d, expected %d", names[i].raw,
                      (int)rp_frame_role(names[i].raw), names[i].role);
        if (names[i].shown) {
            CHECK_STR(n >= 0 ? buf : "(none)", names[i].shown);
            CHECK_EQ(n, (long)strlen(names[i].shown));
        } else if (n >= 0) {
            unit_fail(__FILE__, __LINE__, "%s renamed to %s", names[i].raw, buf);
        }
    }
    /* a buffer one byte short, and exactly long enough */
    {
        const char *raw = "A+<B>d__1.MoveNext";      /* "A.B [async]": 11 bytes and the NUL */
        CHECK_EQ(rp_async_method_name(raw, buf, 11), -1);
        CHECK_EQ(rp_async_method_name(raw, buf, 12), 11);
        CHECK_STR(buf, "A.B [async]");
    }
}

/* Stacks as frame names (root first) in, the folded stack out. */
static const struct { const char *in[12]; const char *out[12]; } stacks[] = {
    /* the first run of an async method, from its kick-off method through its builder */
    { { "[native code]", "Microsoft.Build.BackEnd.RequestBuilder.RequestThreadProc",
        SRC "AsyncTaskMethodBuilder.Start<Microsoft.Build.BackEnd.RequestBuilder+<RequestThreadProc>d__58>",
        SRC "AsyncMethodBuilderCore.Start<Microsoft.Build.BackEnd.RequestBuilder+<RequestThreadProc>d__58>",
        "Microsoft.Build.BackEnd.RequestBuilder+<RequestThreadProc>d__58.MoveNext",
        "Microsoft.Build.BackEnd.RequestBuilder.BuildProject",
        SRC "AsyncTaskMethodBuilder<System.__Canon>.Start<Microsoft.Build.BackEnd.RequestBuilder+<BuildProject>d__68>",
        SRC "AsyncMethodBuilderCore.Start<Microsoft.Build.BackEnd.RequestBuilder+<BuildProject>d__68>",
        "Microsoft.Build.BackEnd.RequestBuilder+<BuildProject>d__68.MoveNext", "Interop+Kernel32.SetEvent" },
      { "[native code]", "Microsoft.Build.BackEnd.RequestBuilder.RequestThreadProc [async]",
        "Microsoft.Build.BackEnd.RequestBuilder.BuildProject [async]", "Interop+Kernel32.SetEvent" } },
    /* a continuation on the thread pool: the box and the context switch stay, the trampoline goes */
    { { "System.Threading.ThreadPoolWorkQueue.Dispatch",
        SRC "AsyncTaskMethodBuilder<System.Int64>+AsyncStateMachineBox<ClrProbe.Sample.AsyncTargets+<BurnAsync>d__1>.MoveNext",
        "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop",
        SRC "AsyncTaskMethodBuilder<System.Int64>+AsyncStateMachineBox<ClrProbe.Sample.AsyncTargets+<BurnAsync>d__1>.ExecutionContextCallback",
        "ClrProbe.Sample.AsyncTargets+<BurnAsync>d__1.MoveNext" },
      { "System.Threading.ThreadPoolWorkQueue.Dispatch",
        SRC "AsyncTaskMethodBuilder<System.Int64>+AsyncStateMachineBox<ClrProbe.Sample.AsyncTargets+<BurnAsync>d__1>.MoveNext",
        "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop", "ClrProbe.Sample.AsyncTargets.BurnAsync [async]" } },
    /* the box calling the state machine directly (the context is the default one) */
    { { SRC "AsyncTaskMethodBuilder<System.Threading.Tasks.VoidTaskResult>+AsyncStateMachineBox<System.__Canon>.ExecuteFromThreadPool",
        "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop",
        "ClrProbe.Sample.AsyncTargets+<BurnIteratorAsync>d__4.MoveNext",
        "ClrProbe.Sample.AsyncScenario+<RunAsync>d__2.MoveNext" },
      { SRC "AsyncTaskMethodBuilder<System.Threading.Tasks.VoidTaskResult>+AsyncStateMachineBox<System.__Canon>.ExecuteFromThreadPool",
        "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop",
        "ClrProbe.Sample.AsyncTargets.BurnIteratorAsync [async]",
        "ClrProbe.Sample.AsyncScenario+<RunAsync>d__2.MoveNext" } },   /* (its caller is no async plumbing) */
    /* top-level statements in a Debug build: the box's shared code calls the state machine */
    { { "System.Threading.ThreadPoolWorkQueue.Dispatch",
        SRC "AsyncTaskMethodBuilder<System.Threading.Tasks.VoidTaskResult>+AsyncStateMachineBox<System.__Canon>.MoveNext",
        "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop", "Program+<<Main>$>d__0.MoveNext",
        "System.Diagnostics.Stopwatch.GetTimestamp" },
      { "System.Threading.ThreadPoolWorkQueue.Dispatch",
        SRC "AsyncTaskMethodBuilder<System.Threading.Tasks.VoidTaskResult>+AsyncStateMachineBox<System.__Canon>.MoveNext",
        "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop", "Program.<Main>$ [async]",
        "System.Diagnostics.Stopwatch.GetTimestamp" } },
    /* a Debug build's first run: Start<System.__Canon> */
    { { "Program.<Main>$", SRC "AsyncTaskMethodBuilder.Start<System.__Canon>", SRC "AsyncMethodBuilderCore.Start<System.__Canon>",
        "Program+<<Main>$>d__0.MoveNext" },
      { "Program.<Main>$ [async]" } },
    /* a plain iterator, called by its consumer, stays as it is */
    { { "ClrProbe.Sample.AsyncScenario+<RunAsync>d__2.MoveNext", "ClrProbe.Sample.AsyncTargets+<BurnIterator>d__5.MoveNext" },
      { "ClrProbe.Sample.AsyncScenario+<RunAsync>d__2.MoveNext", "ClrProbe.Sample.AsyncTargets+<BurnIterator>d__5.MoveNext" } },
    /* a kick-off method that is not the one started stays; a Start leaf goes */
    { { "A.Other", SRC "AsyncTaskMethodBuilder.Start<A+<M>d__1>", "A+<M>d__1.MoveNext", "A.M",
        SRC "AsyncTaskMethodBuilder.Start<A+<N>d__2>" },
      { "A.Other", "A.M [async]", "A.M" } },
    /* the kick-off of a generic method */
    { { "ClrProbe.Sample.AsyncTargets.BurnGenericAsync<System.__Canon>",
        SRC "AsyncTaskMethodBuilder<System.Int64>.Start<ClrProbe.Sample.AsyncTargets+<BurnGenericAsync>d__3<System.__Canon>>",
        "ClrProbe.Sample.AsyncTargets+<BurnGenericAsync>d__3<System.__Canon>.MoveNext" },
      { "ClrProbe.Sample.AsyncTargets.BurnGenericAsync<System.__Canon> [async]" } },
    /* nothing but Start frames: left whole */
    { { SRC "AsyncMethodBuilderCore.Start<A+<M>d__1>" }, { SRC "AsyncMethodBuilderCore.Start<A+<M>d__1>" } },
    /* a state machine at the root (the stack was cut): no evidence, left as it is */
    { { "A+<M>d__1.MoveNext", "A.Leaf" }, { "A+<M>d__1.MoveNext", "A.Leaf" } },
};

/* A tiny interner: the frame number of a name among tab[0..*n). */
static uint32_t number(char **tab, uint32_t *n, const char *name)
{
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp(tab[i], name) == 0)
            return i;
    tab[*n] = (char *)name;
    return (*n)++;
}

TEST(async_frames_fold_stacks)
{
    for (size_t s = 0; s < sizeof(stacks) / sizeof(stacks[0]); s++) {
        static char renamed_names[64][512];
        char *tab[64];
        unsigned char role[64];
        uint32_t renamed[64], frames[12], n = 0, nf = 0, nout = 0, got;

        memset(role, RP_FRAME_PLAIN, sizeof(role));
        for (uint32_t f = 0; f < 64; f++)
            renamed[f] = UINT32_MAX;
        for (; nf < 12 && stacks[s].in[nf]; nf++)
            frames[nf] = number(tab, &n, stacks[s].in[nf]);
        for (uint32_t f = 0, end = n; f < end; f++) {
            role[f] = (unsigned char)rp_frame_role(tab[f]);
            if (rp_async_method_name(tab[f], renamed_names[f], sizeof(renamed_names[f])) >= 0)
                renamed[f] = number(tab, &n, renamed_names[f]);
        }
        for (; nout < 12 && stacks[s].out[nout]; nout++)
            ;
        got = rp_async_fold(frames, nf, role, renamed, tab);
        if (got != nout)
            unit_fail(__FILE__, __LINE__, "stack %zu: %u frames, expected %u", s, got, nout);
        for (uint32_t k = 0; k < got && k < nout; k++)
            if (strcmp(tab[frames[k]], stacks[s].out[k]) != 0)
                unit_fail(__FILE__, __LINE__, "stack %zu frame %u: %s, expected %s", s, k, tab[frames[k]],
                          stacks[s].out[k]);
    }
}

/* ---- inline continuations put the right way up (rp_async_name_boxes, rp_async_uninvert) ---- */

static char *tabu[64];
static uint32_t ntabu;

static const char *tabu_name(void *ctx, uint32_t f)
{
    (void)ctx;
    return tabu[f];
}

static long tabu_intern(void *ctx, const char *name)
{
    (void)ctx;
    for (uint32_t i = 0; i < ntabu; i++)
        if (strcmp(tabu[i], name) == 0)
            return i;
    if (ntabu == 64)
        return -1;
    tabu[ntabu] = strdup(name);
    return ntabu++;
}

/* stack (root first, NULL-ended) after naming boxes and uninverting, as "a;b;c" */
static void uninverted(const char *const *stack, const char *want)
{
    uint32_t frames[32], n = 0;
    rp_frame_names fn = { tabu_name, tabu_intern, NULL };
    char got[4096] = "";

    for (; stack[n]; n++)
        frames[n] = (uint32_t)tabu_intern(NULL, stack[n]);
    CHECK_EQ(rp_async_name_boxes(frames, n, &fn), (long)n);
    n = rp_async_uninvert(frames, n, tabu);
    for (uint32_t i = 0; i < n; i++) {
        strcat(got, i ? ";" : "");
        strcat(got, tabu[frames[i]]);
    }
    CHECK_STR(got, want);
}

#define BOX(sm) SRC "AsyncTaskMethodBuilder<System.Threading.Tasks.VoidTaskResult>+AsyncStateMachineBox<" sm ">"
#define CHAIN "App.Chain+"

TEST(async_frames_inline_continuations_right_way_up)
{
    /* as the JIT leaves them (tier 1: the state machines' MoveNext inlined into their boxes) */
    static const char *const posted[] = {
        "System.Threading.ThreadPoolWorkQueue.Dispatch", BOX(CHAIN "<ComputeTotalsAsync>d__7") ".ExecuteFromThreadPool",
        BOX(CHAIN "<ComputeTotalsAsync>d__7") ".MoveNext", "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop",
        "App.Chain.BurnTotals", NULL };
    static const char *const inline2[] = {
        "System.Threading.ThreadPoolWorkQueue.Dispatch", BOX(CHAIN "<ComputeTotalsAsync>d__7") ".ExecuteFromThreadPool",
        BOX(CHAIN "<ComputeTotalsAsync>d__7") ".MoveNext", "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop",
        "System.Threading.Tasks.Task.RunContinuations", "System.Threading.Tasks.AwaitTaskContinuation.RunOrScheduleAction",
        BOX(CHAIN "<FetchOrdersAsync>d__8") ".MoveNext", "System.Threading.ExecutionContext.RunInternal",
        "System.Threading.Tasks.Task.RunContinuations", "System.Threading.Tasks.AwaitTaskContinuation.RunOrScheduleAction",
        BOX(CHAIN "<HandleAsync>d__10") ".MoveNext", "System.Threading.ExecutionContext.RunInternal",
        "App.Chain.BurnRequest", NULL };
    /* the state machines' own frames (not inlined), folded already */
    static const char *const folded[] = {
        "System.Threading.ThreadPoolWorkQueue.Dispatch", "App.Chain.ComputeTotalsAsync [async]",
        SRC "AsyncTaskMethodBuilder.SetResult", "System.Threading.Tasks.Task.RunContinuations",
        BOX(CHAIN "<FetchOrdersAsync>d__8") ".MoveNext", "App.Chain.FetchOrdersAsync [async]", "App.Chain.BurnOrders", NULL };
    /* a caller that started an async method stays its caller */
    static const char *const started[] = {
        "App.Program.Main", "App.Chain.HandleAsync [async]", "App.Chain.LoadCustomerAsync [async]", "App.Chain.Work", NULL };
    /* work between the two: not a completion */
    static const char *const between[] = {
        "App.Chain.HandleAsync [async]", "App.Chain.Log", "System.Threading.Tasks.Task.RunContinuations",
        "App.Chain.Other [async]", NULL };

    uninverted(posted, "System.Threading.ThreadPoolWorkQueue.Dispatch;" BOX(CHAIN "<ComputeTotalsAsync>d__7")
               ".ExecuteFromThreadPool;System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop;"
               "App.Chain.ComputeTotalsAsync [async];App.Chain.BurnTotals");
    uninverted(inline2, "System.Threading.ThreadPoolWorkQueue.Dispatch;" BOX(CHAIN "<ComputeTotalsAsync>d__7")
               ".ExecuteFromThreadPool;System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop;"
               "App.Chain.HandleAsync [async];App.Chain.BurnRequest");
    uninverted(folded, "System.Threading.ThreadPoolWorkQueue.Dispatch;App.Chain.FetchOrdersAsync [async];"
               "App.Chain.BurnOrders");
    uninverted(started, "App.Program.Main;App.Chain.HandleAsync [async];App.Chain.LoadCustomerAsync [async];App.Chain.Work");
    uninverted(between, "App.Chain.HandleAsync [async];App.Chain.Log;System.Threading.Tasks.Task.RunContinuations;"
               "App.Chain.Other [async]");
}
