// HeapScenario.cs: "heap [SECONDS [GROW]]" scenario - builds a known heap and holds it for SECONDS so that
// heap snapshots (clrprobe run --heap-every) can count it: a static HeapOwner holding exactly 1000 HeapLeaf
// objects (each with a 100-byte array) in a List and 500 HeapTwig objects in a Dictionary; 2000 HeapGarbage
// objects made and dropped before the wait (a snapshot's full GC must not find them); one byte[64] held only by
// a pinned handle; one HeapWeak reachable only through a weak handle; 300 HeapStackOnly objects held only by a
// local of HeapScenario.HoldOnStack, the method that waits; one HeapCwtValue (with a 200-byte array) reachable
// only as the value of a ConditionalWeakTable entry whose key the owner holds; one HeapFinalizable, dropped, that
// stays in the queue of objects whose finalizer is due (a finalizer-queue root) because the finalizer thread is
// held, until the wait ends, by the finalizer of a HeapFinalizeBlocker dropped before it.  With GROW, half way
// through the wait GROW more HeapLeaf join the owner's list ("heap grown by GROW"): a known growth for heap diffs.
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ClrProbe.Sample;

public sealed class HeapLeaf
{
    public HeapLeaf(int i) { Payload = new byte[100]; Payload[0] = (byte)i; }
    public byte[] Payload { get; }
}

public sealed class HeapTwig
{
    public HeapTwig(int i) { Value = i; }
    public int Value { get; }
}

public sealed class HeapGarbage
{
    public HeapGarbage(int i) { Value = i; }
    public int Value { get; }
}

public sealed class HeapWeak
{
}

public sealed class HeapStackOnly
{
    public HeapStackOnly(int i) { Value = i; }
    public int Value { get; }
}

public sealed class HeapCwtKey
{
}

public sealed class HeapCwtValue
{
    public byte[] Payload { get; } = new byte[200];
}

// Its finalizer holds the finalizer thread until Release is set (the end of the scenario).
public sealed class HeapFinalizeBlocker
{
    internal static readonly ManualResetEventSlim Started = new(), Release = new();

    ~HeapFinalizeBlocker()
    {
        Started.Set();
        Release.Wait();
    }
}

public sealed class HeapFinalizable
{
    ~HeapFinalizable()
    {
    }
}

public sealed class HeapOwner
{
    public List<HeapLeaf> Leaves { get; } = new();
    public Dictionary<int, HeapTwig> Twigs { get; } = new();
    public HeapCwtKey Key { get; } = new();
}

public static class HeapScenario
{
    public static HeapOwner? Owner;
    private static readonly ConditionalWeakTable<HeapCwtKey, HeapCwtValue> Attached = new();

    // (Its own frame: no temporary of Run's keeps the value.)
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Attach(HeapCwtKey key) => Attached.Add(key, new HeapCwtValue());

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Grow(int count)
    {
        for (int i = 0; i < count; i++)
            Owner!.Leaves.Add(new HeapLeaf(i));
        Console.WriteLine($"heap grown by {count}");
    }

    // Waits with 300 objects that only this frame's local holds (growing the heap half way when asked).
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long HoldOnStack(double seconds, int grow)
    {
        var held = new HeapStackOnly[300];
        for (int i = 0; i < held.Length; i++)
            held[i] = new HeapStackOnly(i);
        if (grow > 0)
        {
            Thread.Sleep(TimeSpan.FromSeconds(seconds / 2));
            Grow(grow);
            Thread.Sleep(TimeSpan.FromSeconds(seconds / 2));
        }
        else
        {
            Thread.Sleep(TimeSpan.FromSeconds(seconds));
        }
        long sum = 0;
        foreach (var h in held)
            sum += h.Value;
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long MakeGarbage()
    {
        long sum = 0;
        for (int i = 0; i < 2000; i++)
            sum += new HeapGarbage(i).Value;
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference MakeWeak() => new WeakReference(new HeapWeak());

    // (Its own frame: only the handle holds the array, no temporary of Run's.)
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static GCHandle Pin() => GCHandle.Alloc(new byte[64], GCHandleType.Pinned);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void DropFinalizeBlocker() => _ = new HeapFinalizeBlocker();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void DropFinalizable() => _ = new HeapFinalizable();

    // A HeapFinalizable left in the finalizer queue: the blocker's finalizer runs first and holds the finalizer
    // thread, then the finalizable object dies and is queued behind it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void QueueFinalizable()
    {
        DropFinalizeBlocker();
        GC.Collect();
        if (!HeapFinalizeBlocker.Started.Wait(TimeSpan.FromSeconds(30)))
            throw new TimeoutException("the finalizer thread did not run the blocker's finalizer");
        DropFinalizable();
        GC.Collect();
    }

    // Builds the owner's graph in a frame of its own, so that only the static holds it afterwards (no
    // temporary of Run's frame does).
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Build()
    {
        var owner = new HeapOwner();
        for (int i = 0; i < 1000; i++)
            owner.Leaves.Add(new HeapLeaf(i));
        for (int i = 0; i < 500; i++)
            owner.Twigs[i] = new HeapTwig(i);
        Owner = owner;
        Attach(owner.Key);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static string Describe(long garbage) =>
        $"heap built: {Owner!.Leaves.Count} leaves, {Owner.Twigs.Count} twigs, garbage {garbage}";

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Checksum()
    {
        long sum = 0;
        foreach (var leaf in Owner!.Leaves)
            sum += leaf.Payload[0];
        return sum;
    }

    public static int Run(double seconds, int grow)
    {
        Build();
        long garbage = MakeGarbage();
        var pinned = Pin();
        QueueFinalizable();
        var weak = MakeWeak();
        Console.WriteLine(Describe(garbage));
        long sum = HoldOnStack(seconds, grow) - 300 * 299 / 2 + Checksum();
        Console.WriteLine($"heap done: checksum {sum}");
        pinned.Free();
        HeapFinalizeBlocker.Release.Set();
        GC.KeepAlive(weak);
        return 0;
    }
}
