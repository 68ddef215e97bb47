// PoolScenario.cs: "pool [SECONDS]" scenario - an attach target whose CPU runs on thread-pool threads: 4 work
// items (Task.Run, the pool's minimum raised to 4 so that each gets a thread of its own at once) burn CPU in
// PoolTargets.Work for SECONDS (default 5). Prints "pool started" when all 4 run, and a fixed line at the end.
// Threads started before an attach are known by their kernel name only (".NET TP Worker"), so this is where
// the reports' thread labels (NAME (TID)) must tell them apart.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class PoolTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Work(long until, long seed)
    {
        long x = seed;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 200; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        return x;
    }
}

internal static class PoolScenario
{
    public const double DefaultSeconds = 5;
    private const int Items = 4;

    public static int Run(double seconds)
    {
        ThreadPool.GetMinThreads(out _, out int io);
        ThreadPool.SetMinThreads(Items + 1, io);
        using var running = new CountdownEvent(Items);
        long until = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        var tasks = new Task<long>[Items];
        for (int i = 0; i < Items; i++)
        {
            long seed = i + 1;
            tasks[i] = Task.Run(() =>
            {
                running.Signal();
                return PoolTargets.Work(until, seed);
            });
        }
        running.Wait();
        Console.WriteLine("pool started");
        Task.WaitAll(tasks);
        Console.WriteLine($"pool done: {Items} work items");
        return Program.ExitOk;
    }
}
