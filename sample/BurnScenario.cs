// BurnScenario.cs: "burn [THREADS] [UNITS]" scenario - a fixed amount of CPU work split over THREADS threads
// (default 2) that start together; prints a checksum that does not depend on timing. Used by the sampling
// benchmark to compare wall time with and without a profiler at 2 and at 50 threads. With a third argument
// "wait" it then prints "burn waiting (pid N)" and waits for a line on stdin before it exits, so that a test
// can read the kernel's count of the process's CPU time (/proc/N/stat) just before the end.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class BurnTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Work(long units, long seed)
    {
        long x = seed;
        for (long u = 0; u < units; u++)
        {
            for (int i = 0; i < 1000; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >> 29;
            }
        }
        return x;
    }
}

internal static class BurnScenario
{
    public static int Run(string[] rest)
    {
        int threads = rest.Length > 0 ? int.Parse(rest[0]) : 2;
        long units = rest.Length > 1 ? long.Parse(rest[1]) : 400_000;
        bool wait = rest.Length > 2 && rest[2] == "wait";
        if (threads < 1 || threads > 1000 || units < 1 || (rest.Length > 2 && !wait))
        {
            Console.Error.WriteLine("burn: THREADS must be 1..1000, UNITS positive, and the third argument 'wait'");
            return Program.ExitUsage;
        }
        var results = new long[threads];
        using var start = new ManualResetEventSlim(false);
        var workers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            int index = t;
            workers[t] = new Thread(() =>
            {
                start.Wait();
                results[index] = BurnTargets.Work(units / threads, index + 1);
            }) { Name = $"clrprobe-burn-{t}" };
            workers[t].Start();
        }
        start.Set();
        foreach (Thread worker in workers)
        {
            worker.Join();
        }
        long sum = 0;
        foreach (long r in results)
        {
            sum ^= r;
        }
        Console.WriteLine($"burn threads: {threads}");
        Console.WriteLine($"burn checksum: 0x{sum:x16}");
        if (wait)
        {
            Console.WriteLine($"burn waiting (pid {Environment.ProcessId})");
            Console.Out.Flush();
            Console.In.ReadLine();
        }
        return Program.ExitOk;
    }
}
