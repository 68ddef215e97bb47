// AsyncScenario.cs: "async [SECONDS]" scenario - CPU burnt inside compiler-generated async state machines, for
// the report's async frame names (docs/sampling.md, "Async methods"). AsyncTargets.BurnAsync (an async Task<long>
// method) burns about half of the CPU time, in its own body (MoveNext), before and after its awaits; the other
// half goes to the other kinds of state machine: a ValueTask method with the pooling builder, a generic async
// method, an async lambda, an async local function, an async iterator and a plain (synchronous) iterator.
// Prints a fixed line at the end.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class AsyncTargets
{
    public static long Sink;

    // The burning loop is written out in each method (not called) so that the time is the state machine's own.
    public static async Task<long> BurnAsync(long ticks, long seed)
    {
        long x = seed;
        for (int round = 0; round < 4; round++)
        {
            long until = Stopwatch.GetTimestamp() + ticks / 4;
            while (Stopwatch.GetTimestamp() < until)
            {
                for (int i = 0; i < 200; i++)
                {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
            }
            await Task.Yield();
        }
        return x;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public static async ValueTask<long> BurnPooledAsync(long ticks, long seed)
    {
        long x = seed, until = Stopwatch.GetTimestamp() + ticks;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 200; i++)
            {
                x = x * 2862933555777941757L + 3037000493L;
            }
        }
        await Task.Yield();
        return x;
    }

    public static async Task<long> BurnGenericAsync<T>(T tag, long ticks, long seed)
    {
        await Task.Yield();
        long x = seed ^ (tag?.GetHashCode() ?? 0), until = Stopwatch.GetTimestamp() + ticks;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 200; i++)
            {
                x = x * 3202034522624059733L + 1L;
            }
        }
        return x;
    }

    public static async IAsyncEnumerable<long> BurnIteratorAsync(long ticks, long seed, int count)
    {
        long x = seed;
        for (int n = 0; n < count; n++)
        {
            await Task.Yield();
            long until = Stopwatch.GetTimestamp() + ticks / count;
            while (Stopwatch.GetTimestamp() < until)
            {
                for (int i = 0; i < 200; i++)
                {
                    x = x * 6364136223846793005L + 1L;
                }
            }
            yield return x;
        }
    }

    public static IEnumerable<long> BurnIterator(long ticks, long seed, int count)
    {
        long x = seed;
        for (int n = 0; n < count; n++)
        {
            long until = Stopwatch.GetTimestamp() + ticks / count;
            while (Stopwatch.GetTimestamp() < until)
            {
                for (int i = 0; i < 200; i++)
                {
                    x = x * 2862933555777941757L + 7L;
                }
            }
            yield return x;
        }
    }
}

internal static class AsyncScenario
{
    public const double DefaultSeconds = 3;

    public static int Run(double seconds) => RunAsync(seconds).GetAwaiter().GetResult();

    private static async Task<int> RunAsync(double seconds)
    {
        long slice = Stopwatch.Frequency / 100;          // 10 ms
        long x = 1, end = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        Func<long, Task<long>> lambda = async seed =>
        {
            await Task.Yield();
            long y = seed, until = Stopwatch.GetTimestamp() + slice / 2;
            while (Stopwatch.GetTimestamp() < until)
            {
                for (int i = 0; i < 200; i++)
                {
                    y = y * 6364136223846793005L + 3L;
                }
            }
            return y;
        };

        async Task<long> LocalAsync(long seed)
        {
            await Task.Yield();
            long y = seed, until = Stopwatch.GetTimestamp() + slice / 2;
            while (Stopwatch.GetTimestamp() < until)
            {
                for (int i = 0; i < 200; i++)
                {
                    y = y * 2862933555777941757L + 5L;
                }
            }
            return y;
        }

        while (Stopwatch.GetTimestamp() < end)
        {
            x ^= await AsyncTargets.BurnAsync(6 * slice, x);
            x ^= await AsyncTargets.BurnPooledAsync(slice, x);
            x ^= await AsyncTargets.BurnGenericAsync("tag", slice / 2, x);
            x ^= await lambda(x);
            x ^= await LocalAsync(x);
            await foreach (long v in AsyncTargets.BurnIteratorAsync(slice, x, 2))
            {
                x ^= v;
            }
            foreach (long v in AsyncTargets.BurnIterator(slice, x, 2))
            {
                x ^= v;
            }
        }
        Interlocked.Add(ref AsyncTargets.Sink, x);
        Console.WriteLine("async done");
        return Program.ExitOk;
    }
}
