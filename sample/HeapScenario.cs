// HeapScenario.cs: "heap [SECONDS]" scenario - builds a known heap and holds it for SECONDS (default 5) so that
// heap snapshots (clrprobe run --heap-every) can count it: a static HeapOwner holding exactly 1000 HeapLeaf
// objects (each with a 100-byte array) in a List and 500 HeapTwig objects in a Dictionary; 2000 HeapGarbage
// objects made and dropped before the wait (a snapshot's full GC must not find them); one byte[64] pinned by a
// handle; one HeapWeak reachable only through a weak handle; 300 HeapStackOnly objects held only by a local of
// HeapScenario.HoldOnStack, the method that waits; one HeapCwtValue (with a 200-byte array) reachable only as the
// value of a ConditionalWeakTable entry whose key the owner holds.
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

    // Waits with 300 objects that only this frame's local holds.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long HoldOnStack(double seconds)
    {
        var held = new HeapStackOnly[300];
        for (int i = 0; i < held.Length; i++)
            held[i] = new HeapStackOnly(i);
        Thread.Sleep(TimeSpan.FromSeconds(seconds));
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

    public static int Run(double seconds)
    {
        var owner = new HeapOwner();
        for (int i = 0; i < 1000; i++)
            owner.Leaves.Add(new HeapLeaf(i));
        for (int i = 0; i < 500; i++)
            owner.Twigs[i] = new HeapTwig(i);
        Owner = owner;
        Attach(owner.Key);
        long garbage = MakeGarbage();
        var pinned = GCHandle.Alloc(new byte[64], GCHandleType.Pinned);
        var weak = MakeWeak();
        Console.WriteLine($"heap built: {owner.Leaves.Count} leaves, {owner.Twigs.Count} twigs, garbage {garbage}");
        long sum = HoldOnStack(seconds) - 300 * 299 / 2;
        foreach (var leaf in owner.Leaves)
            sum += leaf.Payload[0];
        Console.WriteLine($"heap done: checksum {sum}");
        pinned.Free();
        GC.KeepAlive(weak);
        return 0;
    }
}
