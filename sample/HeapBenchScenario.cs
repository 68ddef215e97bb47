// HeapBenchScenario.cs: "heapbench MILLIONS [SECONDS]" scenario - the heap of bench/heap.sh: MILLIONS million live
// objects (half BenchNode in 1000 linked lists, a quarter BenchLeaf, a quarter byte[16]) held by a static for
// SECONDS (default 30) while a ticker thread measures how long the process stops. It prints "ready" once the heap
// is built and settled, then on exit the longest stop it saw after "ready" (the pause a heap snapshot caused) and
// how long an ordinary full blocking GC.Collect() of the same heap takes, measured before "ready".
using System.Diagnostics;

namespace ClrProbe.Sample;

public sealed class BenchNode
{
    public BenchNode? Next;
    public BenchLeaf? Leaf;
    public byte[]? Bytes;
}

public sealed class BenchLeaf
{
    public long Value;
}

public static class HeapBenchScenario
{
    public static BenchNode?[]? Heads;
    private static long s_longestTicks;

    public static int Run(double millions, double seconds)
    {
        long objects = (long)(millions * 1_000_000);
        long nodes = objects / 2, lists = 1000;
        Heads = new BenchNode?[lists];
        for (long i = 0; i < nodes; i++)
        {
            var node = new BenchNode { Next = Heads[i % lists] };
            if ((i & 1) == 0)
                node.Leaf = new BenchLeaf { Value = i };
            else
                node.Bytes = new byte[16];
            Heads[i % lists] = node;
        }
        GC.Collect();
        GC.Collect();
        var sw = Stopwatch.StartNew();
        GC.Collect(2, GCCollectionMode.Forced, blocking: true);
        double fullGcMs = sw.Elapsed.TotalMilliseconds;

        var ticker = new Thread(Tick) { IsBackground = true, Name = "clrprobe-ticker" };
        ticker.Start();
        Thread.Sleep(200);
        Interlocked.Exchange(ref s_longestTicks, 0);
        Console.WriteLine($"ready: {objects} objects, pid {Environment.ProcessId}");
        Console.Out.Flush();
        Thread.Sleep(TimeSpan.FromSeconds(seconds));
        double longestMs = Interlocked.Read(ref s_longestTicks) * 1000.0 / Stopwatch.Frequency;
        Console.WriteLine($"full GC {fullGcMs:F1} ms, longest stop {longestMs:F1} ms");
        GC.KeepAlive(Heads);
        return 0;
    }

    // Sleeps 1 ms at a time and keeps the longest gap between two wake-ups: a stop of the runtime (a GC and the
    // heap walk inside it) shows as a gap that long.
    private static void Tick()
    {
        long last = Stopwatch.GetTimestamp();
        while (true)
        {
            Thread.Sleep(1);
            long now = Stopwatch.GetTimestamp();
            long gap = now - last;
            last = now;
            long seen = Interlocked.Read(ref s_longestTicks);
            if (gap > seen)
                Interlocked.CompareExchange(ref s_longestTicks, gap, seen);
        }
    }
}
