// WorkScenario.cs: "work N" benchmark scenario - N rounds; in each round 4 named threads (clrprobe-work-0..3) walk a
// tree of generic methods instantiated over distinct nested struct types (~2000 methods JIT-compiled in the first
// round, mostly one disjoint subtree per thread plus a shared one), run LINQ pipelines/lambdas and some compute.
// Prints a checksum that depends only on N (never on thread scheduling or timing).
using System.Numerics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public interface IWorkStep
{
    ulong Apply(ulong x);
}

// Tree roots: one per worker thread plus one shared by all workers.
public readonly struct WorkSeed0 : IWorkStep
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ulong Apply(ulong x) => x * 0x9E3779B97F4A7C15UL + 1;
}

public readonly struct WorkSeed1 : IWorkStep
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ulong Apply(ulong x) => (x ^ 0xD6E8FEB86659FD93UL) * 0xBF58476D1CE4E5B9UL;
}

public readonly struct WorkSeed2 : IWorkStep
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ulong Apply(ulong x) => BitOperations.RotateLeft(x, 23) + 0x94D049BB133111EBUL;
}

public readonly struct WorkSeed3 : IWorkStep
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ulong Apply(ulong x) => (x + 0x2545F4914F6CDD1DUL) ^ (x >> 29);
}

public readonly struct WorkSharedSeed : IWorkStep
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ulong Apply(ulong x) => ~x * 3;
}

public readonly struct WorkLeft<T> : IWorkStep where T : struct, IWorkStep
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ulong Apply(ulong x) => BitOperations.RotateLeft(default(T).Apply(x ^ 0x5555_5555UL), 13) + 1;
}

public readonly struct WorkRight<T> : IWorkStep where T : struct, IWorkStep
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ulong Apply(ulong x) => (default(T).Apply(x + 7) * 0xFF51AFD7ED558CCDUL) ^ (x >> 31);
}

public static class WorkTree
{
    // Each distinct T is a distinct value-type instantiation, so every node of the tree is its own JIT-compiled method.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Walk<T>(int depth, ulong seed) where T : struct, IWorkStep
    {
        ulong h = default(T).Apply(seed);
        if (depth <= 0)
        {
            return h;
        }
        return Walk<WorkLeft<T>>(depth - 1, h) * 31 + Walk<WorkRight<T>>(depth - 1, h ^ 0xABCDEFUL);
    }
}

public readonly record struct WorkItem(uint Key, uint Value);

public static class WorkTargets
{
    public const int TreeDepth = 7;   // 255 struct types / ~510 methods per worker subtree
    public const int SharedDepth = 4; // 31 struct types / ~62 methods shared by all workers

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong RunWorker(int round, int worker)
    {
        ulong seed = Mix((ulong)round * 0x100000001B3UL + (ulong)worker + 1);
        ulong h = worker switch
        {
            0 => WorkTree.Walk<WorkSeed0>(TreeDepth, seed),
            1 => WorkTree.Walk<WorkSeed1>(TreeDepth, seed),
            2 => WorkTree.Walk<WorkSeed2>(TreeDepth, seed),
            _ => WorkTree.Walk<WorkSeed3>(TreeDepth, seed),
        };
        h = Combine(h, WorkTree.Walk<WorkSharedSeed>(SharedDepth, seed + 1));
        h = Combine(h, LinqPipeline(seed));
        h = Combine(h, LambdaChain(seed));
        h = Combine(h, SortAndHash(seed));
        h = Combine(h, StringWork(seed));
        h = Combine(h, (ulong)JitTargets.CountPrimes(50_000 + (int)(seed % 1000)));
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong LinqPipeline(ulong seed)
    {
        uint[] data = RandomData(seed, 20_000);
        ulong grouped = data
            .Select((v, i) => (ulong)v * (ulong)(i + 1))
            .Where(v => (v & 7) != 3)
            .GroupBy(v => v % 16)
            .OrderBy(g => g.Key)
            .Select(g => g.Aggregate(0UL, (acc, v) => acc * 1315423911UL + v))
            .Aggregate(seed, Combine);
        ulong items = data
            .Select(v => new WorkItem(v & 0xFFFF, v >> 16))
            .Where(item => item.Key > item.Value)
            .Select(item => (ulong)item.Key * item.Value)
            .Aggregate(0UL, (acc, v) => acc + v);
        long ordered = data.Take(2_000).Order().Select((v, i) => (long)v * (i % 5)).Sum();
        return Combine(Combine(grouped, items), (ulong)ordered);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong LambdaChain(ulong seed)
    {
        Func<ulong, ulong>[] steps =
        [
            x => x + 0x9E37,
            x => x ^ (x >> 17),
            x => x * 0xBF58476D1CE4E5B9UL,
            x => BitOperations.RotateLeft(x, 11),
            x => x - 0x1234567,
            x => x ^ 0xA5A5A5A5A5A5A5A5UL,
            x => x * 5 + 3,
            x => BitOperations.RotateRight(x, 29),
            x => x ^ (x << 9),
            x => x + (x >> 33),
            x => ~x,
            x => x * 0x94D049BB133111EBUL,
            x => x ^ (ulong)BitOperations.PopCount(x),
            x => x + (ulong)BitOperations.LeadingZeroCount(x | 1),
            x => (x << 1) | (x >> 63),
            x => x ^ 0x2545F4914F6CDD1DUL,
        ];
        ulong acc = seed;
        for (int i = 0; i < 20_000; i++)
        {
            acc = steps[i & 15](acc);
        }
        return acc;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong SortAndHash(ulong seed)
    {
        uint[] data = RandomData(seed ^ 0x5EED, 20_000);
        var items = new WorkItem[data.Length];
        for (int i = 0; i < data.Length; i++)
        {
            items[i] = new WorkItem(data[i] % 1024, data[i]);
        }
        // Total order (Key, then Value): equal elements are identical, so the result never depends on sort stability.
        Array.Sort(items, (a, b) => a.Key != b.Key ? a.Key.CompareTo(b.Key) : a.Value.CompareTo(b.Value));
        ulong h = 14695981039346656037UL;
        foreach (WorkItem item in items)
        {
            h = (h ^ item.Value) * 1099511628211UL;
        }
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong StringWork(ulong seed)
    {
        var counts = new Dictionary<string, int>(StringComparer.Ordinal);
        var order = new List<string>();
        ulong state = seed | 1;
        for (int i = 0; i < 4_000; i++)
        {
            state = Mix(state);
            string word = "w" + (state % 257).ToString("x", System.Globalization.CultureInfo.InvariantCulture);
            if (counts.TryGetValue(word, out int n))
            {
                counts[word] = n + 1;
            }
            else
            {
                counts[word] = 1;
                order.Add(word);
            }
        }
        ulong h = (ulong)order.Count;
        foreach (string word in order)
        {
            h = Combine(h, JitTargets.HashFnv1a(word) + (ulong)counts[word]);
        }
        return h;
    }

    private static uint[] RandomData(ulong seed, int length)
    {
        var data = new uint[length];
        ulong state = seed | 1;
        for (int i = 0; i < data.Length; i++)
        {
            state = Mix(state);
            data[i] = (uint)(state >> 32);
        }
        return data;
    }

    // splitmix64 finalizer
    public static ulong Mix(ulong x)
    {
        x += 0x9E3779B97F4A7C15UL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
        return x ^ (x >> 31);
    }

    public static ulong Combine(ulong h, ulong v) => (h ^ v) * 1099511628211UL + 0x9E3779B97F4A7C15UL;
}

internal static class WorkScenario
{
    public const int DefaultRounds = 20;
    public const int WorkerCount = 4;

    public static int Run(int rounds)
    {
        var results = new ulong[rounds * WorkerCount];
        var threads = new Thread[WorkerCount];
        for (int round = 0; round < rounds; round++)
        {
            for (int worker = 0; worker < WorkerCount; worker++)
            {
                int r = round, w = worker;
                threads[worker] = new Thread(() => results[r * WorkerCount + w] = WorkTargets.RunWorker(r, w))
                {
                    Name = $"clrprobe-work-{worker}",
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
        }

        ulong checksum = 14695981039346656037UL;
        foreach (ulong value in results)
        {
            checksum = WorkTargets.Combine(checksum, value);
        }
        Console.WriteLine($"work rounds: {rounds}");
        Console.WriteLine($"work threads: {rounds * WorkerCount}");
        Console.WriteLine($"work checksum: 0x{checksum:x16}");
        return Program.ExitOk;
    }
}
