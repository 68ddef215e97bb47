// GcScenario.cs: "gc N" scenario - allocates garbage (small objects, arrays, one large-object-heap array per round) and
// induces exactly N blocking garbage collections cycling through GC.Collect(0), GC.Collect(1) and a forced compacting gen-2 GC.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public sealed class GcNode
{
    public GcNode(int value, GcNode? next)
    {
        Value = value;
        Next = next;
    }

    public int Value { get; }
    public GcNode? Next { get; }
}

public static class GcTargets
{
    // Allocates a few thousand short-lived objects, keeps a deterministic subset alive in 'survivors',
    // and returns a checksum of what it allocated.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long AllocateGarbage(int round, List<object> survivors)
    {
        long checksum = 0;
        GcNode? list = null;
        for (int i = 0; i < 5_000; i++)
        {
            list = new GcNode(round * 10_000 + i, (i % 64 == 0) ? null : list);
            var bytes = new byte[32 + (i % 97)];
            bytes[0] = (byte)i;
            checksum += bytes.Length + bytes[0];
            if (i % 500 == 0)
            {
                survivors.Add(list);
                survivors.Add(new string((char)('a' + (i / 500)), 8 + round));
            }
        }
        var large = new long[20_000]; // > 85 000 bytes: large object heap
        large[round % large.Length] = round;
        checksum += large.Length + large[round % large.Length];
        return checksum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void InducedCollect(int generation)
    {
        if (generation >= 2)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        }
        else
        {
            GC.Collect(generation, GCCollectionMode.Forced, blocking: true);
        }
    }
}

internal static class GcScenario
{
    public const int DefaultCount = 5;

    public static int Run(int count)
    {
        // For the tests that attach first: wait until the file SAMPLE_GC_WAIT_FILE names exists.
        string? waitFile = Environment.GetEnvironmentVariable("SAMPLE_GC_WAIT_FILE");
        if (!string.IsNullOrEmpty(waitFile))
        {
            Console.WriteLine("gc scenario started, waiting");
            for (int waited = 0; !File.Exists(waitFile) && waited < 60_000; waited += 20)
            {
                Thread.Sleep(20);
            }
        }
        var survivors = new List<object>();
        long checksum = 0;
        int gen0Before = GC.CollectionCount(0);
        long totalMemory = 0;
        for (int i = 0; i < count; i++)
        {
            checksum += GcTargets.AllocateGarbage(i, survivors);
            int generation = i % 3;
            GcTargets.InducedCollect(generation);
            totalMemory = GC.GetTotalMemory(forceFullCollection: false);
            Console.WriteLine($"collect {i + 1}: generation {generation}");
        }
        // The heap's size right after the last collection, for the tests that check the profiler's
        // generation sizes; only when asked, since it may differ from run to run.
        if (Environment.GetEnvironmentVariable("SAMPLE_GC_MEMORY") == "1")
        {
            Console.WriteLine($"total memory after the last gc: {totalMemory}");
        }

        long survivorLength = 0;
        foreach (object o in survivors)
        {
            survivorLength += o is string s ? s.Length : ((GcNode)o).Value % 7;
        }
        GC.KeepAlive(survivors);

        Console.WriteLine($"induced gcs: {count}");
        Console.WriteLine($"allocation checksum: {checksum}");
        Console.WriteLine($"survivors: {survivors.Count} (checksum {survivorLength})");

        int gen0Collections = GC.CollectionCount(0) - gen0Before;
        if (gen0Collections < count)
        {
            Console.Error.WriteLine($"Sample: gc: expected at least {count} collections, runtime counted {gen0Collections}");
            return Program.ExitFailure;
        }
        return Program.ExitOk;
    }
}
