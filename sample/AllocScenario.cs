// AllocScenario.cs: "alloc [SECONDS | rounds N]" scenario - allocations with a known answer, for the allocation
// profile (sampled allocations, upscaled) and its overhead benchmark (bench/alloc.sh).  On the main thread, in
// rounds of 4 MiB, AllocTargets.AllocateLarge and AllocTargets.AllocateSmall allocate bytes in a 3:1 ratio,
// interleaved (32 pairs of calls per round, 128 KiB a pair), every object dying young (each function keeps only
// its last 64 objects, in a static ring, so that none is allocated on the stack):
//   AllocateLarge: byte[1000], 1024 bytes each on a 64-bit runtime (16 of header and method table, 8 of length,
//                  1000 of data), 96 a call = 98,304 bytes, 3 MiB a round;
//   AllocateSmall: AllocItem (a class of two longs), 32 bytes each (16 + 2 x 8), 1024 a call = 32,768 bytes,
//                  1 MiB a round.
// With SECONDS (default 2) it runs 75 rounds (300 MiB, ~3,000 samples at one per 100 KB) a second, paced (it
// sleeps between rounds; unpaced it would allocate ~15 GB a second), until SECONDS have passed and at least 75
// rounds have run; with "rounds N", exactly N rounds as fast as it can (fixed work, for benchmarks).  The class
// constructor of AllocTargets (its two rings) runs before the first round, outside the measurement.
// stdout: "alloc started" before the first round, "alloc done" at the end (with rounds N, the round count and the
// bytes each function allocated, fixed by N).  stderr: the truth, measured with GC.GetAllocatedBytesForCurrentThread
// around every call and checked against count x size (a difference is reported and exits 1):
//   truth alloc ClrProbe.Sample.AllocTargets.AllocateLarge type=System.Byte[] size=1024 objects=N bytes=B
//   truth alloc ClrProbe.Sample.AllocTargets.AllocateSmall type=ClrProbe.Sample.AllocItem size=32 objects=N bytes=B
//   truth alloc total rounds=N bytes=B large_share=0.7500 elapsed_ms=T     (T: the rounds' wall time)
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public sealed class AllocItem
{
    public long A;
    public long B;
}

public static class AllocTargets
{
    public const int LargeLength = 1000;
    public const long LargeSize = 1024;     // byte[1000] on a 64-bit runtime
    public const long SmallSize = 32;       // AllocItem on a 64-bit runtime
    public const int LargePerCall = 96;     // 98,304 bytes
    public const int SmallPerCall = 1024;   // 32,768 bytes: a third of the above
    public const int PairsPerRound = 32;    // 4 MiB a round

    private const int RingMask = 63;
    private static readonly byte[]?[] s_largeRing = new byte[]?[RingMask + 1];
    private static readonly AllocItem?[] s_smallRing = new AllocItem?[RingMask + 1];

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AllocateLarge(int count, int seed)
    {
        for (int i = 0; i < count; i++)
        {
            var bytes = new byte[LargeLength];
            bytes[i % LargeLength] = (byte)(seed + i);
            s_largeRing[i & RingMask] = bytes;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AllocateSmall(int count, int seed)
    {
        for (int i = 0; i < count; i++)
        {
            s_smallRing[i & RingMask] = new AllocItem { A = seed, B = i };
        }
    }
}

internal static class AllocScenario
{
    public const double DefaultSeconds = 2;
    public const long MinRounds = 75;
    public const long RoundsPerSecond = 75;

    // seconds: run until they have passed (and at least MinRounds); rounds >= 0: exactly that many instead.
    public static int Run(double seconds, long rounds)
    {
        bool fixedRounds = rounds >= 0;
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long largeBytes = 0, smallBytes = 0, largeObjects = 0, smallObjects = 0, done = 0;
        RuntimeHelpers.RunClassConstructor(typeof(AllocTargets).TypeHandle);
        Console.WriteLine("alloc started");
        Console.Out.Flush();

        long start = Stopwatch.GetTimestamp();
        while (fixedRounds ? done < rounds : done < MinRounds || Stopwatch.GetTimestamp() < deadline)
        {
            if (!fixedRounds)
            {
                long due = start + done * Stopwatch.Frequency / RoundsPerSecond;
                long early = due - Stopwatch.GetTimestamp();
                if (early > 0)
                {
                    Thread.Sleep(TimeSpan.FromTicks(early * TimeSpan.TicksPerSecond / Stopwatch.Frequency));
                }
            }
            for (int pair = 0; pair < AllocTargets.PairsPerRound; pair++)
            {
                int seed = (int)done * AllocTargets.PairsPerRound + pair;
                long before = GC.GetAllocatedBytesForCurrentThread();
                AllocTargets.AllocateLarge(AllocTargets.LargePerCall, seed);
                long between = GC.GetAllocatedBytesForCurrentThread();
                AllocTargets.AllocateSmall(AllocTargets.SmallPerCall, seed);
                long after = GC.GetAllocatedBytesForCurrentThread();
                largeBytes += between - before;
                smallBytes += after - between;
            }
            largeObjects += AllocTargets.PairsPerRound * AllocTargets.LargePerCall;
            smallObjects += AllocTargets.PairsPerRound * AllocTargets.SmallPerCall;
            done++;
        }
        double elapsedMs = (Stopwatch.GetTimestamp() - start) * 1000.0 / Stopwatch.Frequency;

        var inv = CultureInfo.InvariantCulture;
        Console.Error.WriteLine(string.Format(inv,
            "truth alloc ClrProbe.Sample.AllocTargets.AllocateLarge type=System.Byte[] size={0} objects={1} bytes={2}",
            AllocTargets.LargeSize, largeObjects, largeBytes));
        Console.Error.WriteLine(string.Format(inv,
            "truth alloc ClrProbe.Sample.AllocTargets.AllocateSmall type=ClrProbe.Sample.AllocItem size={0} objects={1} bytes={2}",
            AllocTargets.SmallSize, smallObjects, smallBytes));
        Console.Error.WriteLine(string.Format(inv, "truth alloc total rounds={0} bytes={1} large_share={2:F4} elapsed_ms={3:F1}",
            done, largeBytes + smallBytes, (double)largeBytes / (largeBytes + smallBytes), elapsedMs));

        int rc = Program.ExitOk;
        if (largeBytes != largeObjects * AllocTargets.LargeSize || smallBytes != smallObjects * AllocTargets.SmallSize)
        {
            Console.Error.WriteLine(string.Format(inv,
                "alloc: the measured bytes are not count x size: large {0} != {1} x {2}, or small {3} != {4} x {5}",
                largeBytes, largeObjects, AllocTargets.LargeSize, smallBytes, smallObjects, AllocTargets.SmallSize));
            rc = Program.ExitFailure;
        }
        if (fixedRounds)
        {
            Console.WriteLine($"alloc done: {done} rounds, AllocateLarge {done * AllocTargets.PairsPerRound * AllocTargets.LargePerCall * AllocTargets.LargeSize} bytes, " +
                              $"AllocateSmall {done * AllocTargets.PairsPerRound * AllocTargets.SmallPerCall * AllocTargets.SmallSize} bytes");
        }
        else
        {
            Console.WriteLine("alloc done");
        }
        return rc;
    }
}
