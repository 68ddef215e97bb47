// LiveScenario.cs: "live [SECONDS]" scenario - a live-objects profile with a known answer: what survives the
// GCs, and where it was allocated.  On the main thread, in 64 steps spread evenly over SECONDS (default 2; a
// step sleeps until its time is up, so an attach part way through sees the rest of the steps):
//   LiveTargets.Retain allocates long[125], 1024 bytes each on a 64-bit runtime (16 of header and method
//                      table, 8 of length, 1000 of data), and keeps every one alive in a static array allocated
//                      beforehand (LiveTargets' class constructor, outside the measurement): 1024 a step,
//                      65,536 = 64 MiB in all, all alive at the end (~650 samples at one per 100 KB);
//   LiveTargets.Churn  allocates byte[1000], 1024 bytes each, that die young (it keeps only its last 64, in a
//                      static ring, so that none is allocated on the stack): 8 MiB a step, 512 MiB in all.
// Each step is 8 pairs of calls, Retain(128) then Churn(1024).  Besides the GCs that 512 MiB of allocation
// brings (counted on stderr), a full blocking GC.Collect() after every 16th step (4 in all, the last after the
// last step, so that at the end every Churn object but the last 64 is known dead).
// With "garbage" (live SECONDS garbage), after the last step: LiveTargets.DropLarge allocates 1024 byte[96000]
// (large objects: 96 MiB) and drops them, with no GC in between (a no-GC region), then two induced gen0 GCs and a
// gen1 GC follow, which never look at the large-object heap: dead, but no GC that could free them has run (what a
// live view must not count as alive).
// stdout: "live started" before the first step, then a fixed "live done" line.  stderr: the truth, measured
// with GC.GetAllocatedBytesForCurrentThread around every call and checked against count x size (less, or more
// than 64 KiB more, from other allocations of the runtime's on the thread, is reported and exits 1):
//   truth live ClrProbe.Sample.LiveTargets.Retain type=System.Int64[] size=1024 objects=65536 bytes=67108864 alive=65536
//   truth live ClrProbe.Sample.LiveTargets.Churn type=System.Byte[] size=1024 objects=524288 bytes=536870912 alive_at_most=64
//   truth live ClrProbe.Sample.LiveTargets.DropLarge type=System.Byte[] size=96024 objects=1024 alive=0   (garbage)
//   truth live gcs gen0=N gen1=N gen2=N induced=4   (GC.CollectionCount deltas over the steps: every GC counts
//                                                    in gen0, a gen2 one in all three; ~40, 15, 5 here)
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class LiveTargets
{
    public const int RetainLength = 125;        // long[125]
    public const long RetainSize = 1024;
    public const int ChurnLength = 1000;        // byte[1000]
    public const long ChurnSize = 1024;
    public const int Steps = 64;
    public const int PairsPerStep = 8;
    public const int RetainPerCall = 128;       // 128 KiB
    public const int ChurnPerCall = 1024;       // 1 MiB
    public const int RetainedObjects = Steps * PairsPerStep * RetainPerCall;
    public const int ChurnRing = 64;

    private static readonly long[]?[] s_kept = new long[]?[RetainedObjects];
    private static readonly byte[]?[] s_churnRing = new byte[]?[ChurnRing];
    private static int s_keptCount;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Retain(int count)
    {
        for (int i = 0; i < count; i++)
        {
            var kept = new long[RetainLength];
            kept[0] = s_keptCount;
            s_kept[s_keptCount++] = kept;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Churn(int count, int seed)
    {
        for (int i = 0; i < count; i++)
        {
            var bytes = new byte[ChurnLength];
            bytes[i % ChurnLength] = (byte)(seed + i);
            s_churnRing[i & (ChurnRing - 1)] = bytes;
        }
    }

    public const int LargeLength = 96_000;      // byte[96000]: 96,024 bytes, on the large-object heap
    public const int LargeCount = 1024;
    private static byte[]? s_lastLarge;

    // Large objects dropped at once (only the last kept until the next call).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void DropLarge(int count)
    {
        for (int i = 0; i < count; i++)
        {
            var large = new byte[LargeLength];
            large[i % LargeLength] = (byte)i;
            s_lastLarge = large;
        }
        s_lastLarge = null;
    }

    // The retained objects still held (all of them, unless something is badly wrong).
    public static int CountAlive()
    {
        int alive = 0;
        for (int i = 0; i < s_keptCount; i++)
        {
            if (s_kept[i] is { Length: RetainLength } kept && kept[0] == i)
            {
                alive++;
            }
        }
        return alive;
    }
}

internal static class LiveScenario
{
    public const double DefaultSeconds = 2;
    public const int InducedEvery = 16;

    public static int Run(double seconds, bool garbage = false)
    {
        RuntimeHelpers.RunClassConstructor(typeof(LiveTargets).TypeHandle);
        long retainBytes = 0, churnBytes = 0, retainObjects = 0, churnObjects = 0;
        int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
        Console.WriteLine("live started");
        Console.Out.Flush();

        long start = Stopwatch.GetTimestamp();
        for (int step = 0; step < LiveTargets.Steps; step++)
        {
            for (int pair = 0; pair < LiveTargets.PairsPerStep; pair++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                LiveTargets.Retain(LiveTargets.RetainPerCall);
                long between = GC.GetAllocatedBytesForCurrentThread();
                LiveTargets.Churn(LiveTargets.ChurnPerCall, step * LiveTargets.PairsPerStep + pair);
                long after = GC.GetAllocatedBytesForCurrentThread();
                retainBytes += between - before;
                churnBytes += after - between;
                retainObjects += LiveTargets.RetainPerCall;
                churnObjects += LiveTargets.ChurnPerCall;
            }
            if (step % InducedEvery == InducedEvery - 1)
            {
                GC.Collect();
            }
            long due = start + (long)((step + 1) * seconds * Stopwatch.Frequency / LiveTargets.Steps);
            long early = due - Stopwatch.GetTimestamp();
            if (early > 0)
            {
                Thread.Sleep(TimeSpan.FromTicks(early * TimeSpan.TicksPerSecond / Stopwatch.Frequency));
            }
        }
        long largeBytes = 0;
        if (garbage)
        {
            // (room for them all without a GC; the region's start may collect: before them, that is harmless)
            long size = (long)LiveTargets.LargeCount * (LiveTargets.LargeLength + 64);
            bool region = GC.TryStartNoGCRegion(size + (16 << 20), size);
            long before = GC.GetAllocatedBytesForCurrentThread();
            LiveTargets.DropLarge(LiveTargets.LargeCount);
            largeBytes = GC.GetAllocatedBytesForCurrentThread() - before;
            if (region && System.Runtime.GCSettings.LatencyMode == System.Runtime.GCLatencyMode.NoGCRegion)
            {
                GC.EndNoGCRegion();
            }
            GC.Collect(0, GCCollectionMode.Forced, blocking: true);
            GC.Collect(0, GCCollectionMode.Forced, blocking: true);
            GC.Collect(1, GCCollectionMode.Forced, blocking: true);
        }
        gen0 = GC.CollectionCount(0) - gen0;
        gen1 = GC.CollectionCount(1) - gen1;
        gen2 = GC.CollectionCount(2) - gen2;
        int alive = LiveTargets.CountAlive();

        var inv = CultureInfo.InvariantCulture;
        Console.Error.WriteLine(string.Format(inv,
            "truth live ClrProbe.Sample.LiveTargets.Retain type=System.Int64[] size={0} objects={1} bytes={2} alive={3}",
            LiveTargets.RetainSize, retainObjects, retainBytes, alive));
        Console.Error.WriteLine(string.Format(inv,
            "truth live ClrProbe.Sample.LiveTargets.Churn type=System.Byte[] size={0} objects={1} bytes={2} alive_at_most={3}",
            LiveTargets.ChurnSize, churnObjects, churnBytes, LiveTargets.ChurnRing));
        if (garbage)
        {
            Console.Error.WriteLine(string.Format(inv,
                "truth live ClrProbe.Sample.LiveTargets.DropLarge type=System.Byte[] size={0} objects={1} bytes={2} alive=0",
                largeBytes / LiveTargets.LargeCount, LiveTargets.LargeCount, largeBytes));
        }
        Console.Error.WriteLine(string.Format(inv, "truth live gcs gen0={0} gen1={1} gen2={2} induced={3}",
            gen0, gen1, gen2, LiveTargets.Steps / InducedEvery));

        // The objects are counted as built; the bytes the thread allocated meanwhile may hold a little more than
        // theirs (the runtime allocates on the thread now and then, a few hundred bytes): within 64 KiB a call kind.
        const long Slack = 64 * 1024;
        int rc = Program.ExitOk;
        if (retainBytes < retainObjects * LiveTargets.RetainSize || retainBytes > retainObjects * LiveTargets.RetainSize + Slack ||
            churnBytes < churnObjects * LiveTargets.ChurnSize || churnBytes > churnObjects * LiveTargets.ChurnSize + Slack ||
            alive != LiveTargets.RetainedObjects)
        {
            Console.Error.WriteLine(string.Format(inv,
                "live: the truth is not as built: Retain {0} bytes for {1} objects ({2} alive), Churn {3} bytes for {4} objects",
                retainBytes, retainObjects, alive, churnBytes, churnObjects));
            rc = Program.ExitFailure;
        }
        Console.WriteLine($"live done: LiveTargets.Retain kept {LiveTargets.RetainedObjects} objects " +
                          $"({LiveTargets.RetainedObjects * LiveTargets.RetainSize} bytes), LiveTargets.Churn dropped " +
                          $"{LiveTargets.Steps * LiveTargets.PairsPerStep * LiveTargets.ChurnPerCall} objects, " +
                          $"{LiveTargets.Steps / InducedEvery} induced GCs");
        return rc;
    }
}
