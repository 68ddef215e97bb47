// ContentionScenario.cs: "contention [SECONDS]" scenario - lock contention with a known answer, for the
// contention profile.  Two threads take turns on two locks, in N rounds, N = SECONDS / 40 ms rounded up
// (default SECONDS 2, so 50 rounds; the count depends only on SECONDS, never on timing).  In each round:
//   - on a SharedLedger (an internal class of its own; the lock is Monitor's, `lock (ledger)`): thread clrprobe-holder, in
//     ContentionTargets.HoldLedger, takes the lock, wakes the waiter and sleeps 30 ms holding it; thread
//     clrprobe-waiter, in ContentionTargets.WaitForLedger, blocks in `lock (ledger)` until it is released;
//   - then the same on a System.Threading.Lock (.NET 9's lock type; its contention names the type
//     System.Threading.Lock, since it cannot be subclassed): HoldJournal holds it 10 ms, WaitForJournal waits.
// So the waiter waits ~30 ms on the ledger and ~10 ms on the Lock a round, 3:1 (~1 s in all for SECONDS 1).
// The handshake is an AutoResetEvent each way, the start a ManualResetEvent (wait handles, not Monitor-based like
// ManualResetEventSlim: they add no contention of their own).
// stdout: "contention started" once both threads run, then a fixed "contention done" line.  stderr: the truth:
// per lock the waiter's acquisitions (waits, N), how many of them the runtime counted as a contention
// (contended: Monitor.LockContentionCount, which counts both kinds of lock, read around each; N unless the
// waiter woke so late that the lock was free), and its time blocked in them, measured with Stopwatch around
// the acquisition (ms: total, shortest, longest; it includes the spinning before the runtime's own wait); and
// the runtime's count of contentions in the whole process over the rounds (only the waiter ever waits: 2N):
//   truth contention ClrProbe.Sample.ContentionTargets.WaitForLedger lock=ClrProbe.Sample.SharedLedger thread=clrprobe-waiter waits=N contended=C held_ms=30 waited_ms=T min_ms=A max_ms=B
//   truth contention ClrProbe.Sample.ContentionTargets.WaitForJournal lock=System.Threading.Lock thread=clrprobe-waiter waits=N contended=C held_ms=10 waited_ms=T min_ms=A max_ms=B
//   truth contention total waits=2N waited_ms=T runtime_count=C
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

// The object locked on: its type names the contention in a profile.
internal sealed class SharedLedger
{
    public long Entries;
}

public static class ContentionTargets
{
    public const int LedgerHoldMs = 30;
    public const int JournalHoldMs = 10;

    private static readonly SharedLedger s_ledger = new();
    private static readonly Lock s_journal = new();
    private static long s_journalEntries;

    public static long Entries => s_ledger.Entries + s_journalEntries;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void HoldLedger(AutoResetEvent held)
    {
        lock (s_ledger)
        {
            held.Set();
            Thread.Sleep(LedgerHoldMs);
            s_ledger.Entries++;
        }
    }

    // Returns the ticks (Stopwatch) it waited for the lock.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long WaitForLedger()
    {
        long before = Stopwatch.GetTimestamp();
        lock (s_ledger)
        {
            long waited = Stopwatch.GetTimestamp() - before;
            s_ledger.Entries++;
            return waited;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void HoldJournal(AutoResetEvent held)
    {
        lock (s_journal)
        {
            held.Set();
            Thread.Sleep(JournalHoldMs);
            s_journalEntries++;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long WaitForJournal()
    {
        long before = Stopwatch.GetTimestamp();
        lock (s_journal)
        {
            long waited = Stopwatch.GetTimestamp() - before;
            s_journalEntries++;
            return waited;
        }
    }
}

internal static class ContentionScenario
{
    public const double DefaultSeconds = 2;
    private const double RoundSeconds = (ContentionTargets.LedgerHoldMs + ContentionTargets.JournalHoldMs) / 1000.0;

    private sealed class Waits
    {
        public long Count, Contended, Total, Min = long.MaxValue, Max;

        // ticks: the time the acquisition took; contentions: the runtime's count of contentions during it.
        public void Add(long ticks, long contentions)
        {
            Count++;
            Contended += contentions;
            Total += ticks;
            Min = Math.Min(Min, ticks);
            Max = Math.Max(Max, ticks);
        }
    }

    public static int Run(double seconds)
    {
        int rounds = Math.Max(1, (int)Math.Ceiling(seconds / RoundSeconds - 1e-9));
        RuntimeHelpers.RunClassConstructor(typeof(ContentionTargets).TypeHandle);
        using var held = new AutoResetEvent(false);
        using var done = new AutoResetEvent(false);
        using var running = new CountdownEvent(2);
        using var go = new ManualResetEvent(false);
        var ledger = new Waits();
        var journal = new Waits();

        var holder = new Thread(() =>
        {
            running.Signal();
            go.WaitOne();
            for (int r = 0; r < rounds; r++)
            {
                ContentionTargets.HoldLedger(held);
                done.WaitOne();
                ContentionTargets.HoldJournal(held);
                done.WaitOne();
            }
        }) { Name = "clrprobe-holder" };
        var waiter = new Thread(() =>
        {
            running.Signal();
            go.WaitOne();
            for (int r = 0; r < rounds; r++)
            {
                held.WaitOne();
                long before = Monitor.LockContentionCount;
                long ticks = ContentionTargets.WaitForLedger();
                ledger.Add(ticks, Monitor.LockContentionCount - before);
                done.Set();
                held.WaitOne();
                before = Monitor.LockContentionCount;
                ticks = ContentionTargets.WaitForJournal();
                journal.Add(ticks, Monitor.LockContentionCount - before);
                done.Set();
            }
        }) { Name = "clrprobe-waiter" };
        holder.Start();
        waiter.Start();
        running.Wait();
        long contentions = Monitor.LockContentionCount;
        Console.WriteLine("contention started");
        Console.Out.Flush();
        go.Set();
        holder.Join();
        waiter.Join();
        contentions = Monitor.LockContentionCount - contentions;

        var inv = CultureInfo.InvariantCulture;
        double ms = 1000.0 / Stopwatch.Frequency;
        Console.Error.WriteLine(string.Format(inv,
            "truth contention ClrProbe.Sample.ContentionTargets.WaitForLedger lock=ClrProbe.Sample.SharedLedger " +
            "thread=clrprobe-waiter waits={0} contended={1} held_ms={2} waited_ms={3:F1} min_ms={4:F1} max_ms={5:F1}",
            ledger.Count, ledger.Contended, ContentionTargets.LedgerHoldMs, ledger.Total * ms, ledger.Min * ms, ledger.Max * ms));
        Console.Error.WriteLine(string.Format(inv,
            "truth contention ClrProbe.Sample.ContentionTargets.WaitForJournal lock=System.Threading.Lock " +
            "thread=clrprobe-waiter waits={0} contended={1} held_ms={2} waited_ms={3:F1} min_ms={4:F1} max_ms={5:F1}",
            journal.Count, journal.Contended, ContentionTargets.JournalHoldMs, journal.Total * ms, journal.Min * ms, journal.Max * ms));
        Console.Error.WriteLine(string.Format(inv, "truth contention total waits={0} waited_ms={1:F1} runtime_count={2}",
            ledger.Count + journal.Count, (ledger.Total + journal.Total) * ms, contentions));

        Console.WriteLine($"contention done: {rounds} rounds, {ContentionTargets.Entries} entries " +
                          $"(SharedLedger held {ContentionTargets.LedgerHoldMs} ms, Lock held {ContentionTargets.JournalHoldMs} ms a round)");
        return Program.ExitOk;
    }
}
