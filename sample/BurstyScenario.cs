// BurstyScenario.cs: "bursty [SECONDS]" scenario - the shape of a busy async service: 4 async flows that each wake from a 1-3 ms delay, burn a little CPU in BurstyTargets.Burn200 (about 0.2 ms) and
// then in BurstyTargets.Burn100 (half its work), and wait again, for SECONDS (default 3). The thread-pool workers
// run between the kernel's scheduler ticks and are idle at them: a CPU timer checked at the tick rarely fires
// there, a perf event on the task clock does (docs/sampling.md). The two methods' CPU is 2:1 by construction
// (fixed work, not time). Prints a fixed line at the end.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class BurstyTargets
{
    public static long Sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Burn200(long seed) => Work(2 * UnitIterations, seed);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Burn100(long seed) => Work(UnitIterations, seed);

    // About 0.1 ms of work on a 3 GHz core.
    public const int UnitIterations = 60_000;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static long Work(int iterations, long x)
    {
        for (int i = 0; i < iterations; i++)
        {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >> 29;
        }
        return x;
    }
}

internal static class BurstyScenario
{
    public const double DefaultSeconds = 3;
    public const int Flows = 4;

    public static int Run(double seconds)
    {
        int flows = Flows;
        long until = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        var tasks = new Task[flows];
        for (int f = 0; f < flows; f++)
        {
            int flow = f;
            tasks[f] = Task.Run(() => Flow(flow, until));
        }
        Task.WaitAll(tasks);
        Console.WriteLine("bursty done");
        return 0;
    }

    private static async Task Flow(int flow, long until)
    {
        var random = new Random(flow + 1);
        long x = flow;
        while (Stopwatch.GetTimestamp() < until)
        {
            await Task.Delay(1 + random.Next(3));
            x = BurstyTargets.Burn200(x);
            x = BurstyTargets.Burn100(x);
        }
        Interlocked.Add(ref BurstyTargets.Sink, x);
    }
}
