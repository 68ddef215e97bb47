// ThreadsScenario.cs: "threads" scenario - starts 4 named threads (clrprobe-worker-0..3, named before Start), each doing a
// little fixed work, joins them and prints the per-thread results in worker order (independent of scheduling).
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class ThreadTargets
{
    public const int WorkerCount = 4;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong WorkerBody(int index)
    {
        // A little fixed, index-dependent work: xorshift mixing plus a small allocation per step.
        ulong state = 0x9E3779B97F4A7C15UL * (ulong)(index + 1);
        ulong sum = 0;
        for (int i = 0; i < 20_000; i++)
        {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if ((i & 255) == 0)
            {
                var bytes = new byte[64];
                bytes[i & 63] = (byte)state;
                sum += bytes[i & 63];
            }
            sum += state >> 48;
        }
        return sum;
    }
}

internal static class ThreadsScenario
{
    public static int Run()
    {
        var results = new ulong[ThreadTargets.WorkerCount];
        var names = new string?[ThreadTargets.WorkerCount];
        var threads = new Thread[ThreadTargets.WorkerCount];
        for (int i = 0; i < threads.Length; i++)
        {
            int index = i;
            threads[i] = new Thread(() =>
            {
                names[index] = Thread.CurrentThread.Name;
                results[index] = ThreadTargets.WorkerBody(index);
            })
            {
                Name = $"clrprobe-worker-{i}",
            };
        }
        foreach (Thread thread in threads)
        {
            thread.Start();
        }
        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        Console.WriteLine($"threads done: {threads.Length}");
        for (int i = 0; i < threads.Length; i++)
        {
            Console.WriteLine($"{names[i]}: {results[i]}");
        }
        return Program.ExitOk;
    }
}
