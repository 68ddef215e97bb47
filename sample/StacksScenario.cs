// StacksScenario.cs: "stacks [SECONDS]" scenario - threads in known places, for `clrprobe stack`.
// Thread "clrprobe-waiter" waits in Monitor.Wait inside StackTargets.WaitForSignal (on a lock only the main
// thread pulses); thread "clrprobe-spinner" spins on a CPU in StackTargets.Spin; thread "clrprobe-napper"
// sleeps in StackTargets.Nap. Prints "stacks started" when all three are there, and a fixed line at the end.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class StackTargets
{
    private static readonly object s_gate = new();
    private static bool s_signalled;
    private static volatile bool s_stop;
    public static long Sink;

    public static void Stop()
    {
        s_stop = true;
        lock (s_gate)
        {
            s_signalled = true;
            Monitor.PulseAll(s_gate);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WaitForSignal(CountdownEvent ready)
    {
        lock (s_gate)
        {
            ready.Signal();
            while (!s_signalled)
            {
                Monitor.Wait(s_gate);
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Spin(CountdownEvent ready)
    {
        ready.Signal();
        long x = 3;
        while (!s_stop)
        {
            for (int i = 0; i < 1000; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Nap(CountdownEvent ready)
    {
        ready.Signal();
        while (!s_stop)
        {
            Thread.Sleep(50);
        }
    }
}

internal static class StacksScenario
{
    public const double DefaultSeconds = 10;

    public static int Run(double seconds)
    {
        using var ready = new CountdownEvent(3);
        var waiter = new Thread(() => StackTargets.WaitForSignal(ready)) { Name = "clrprobe-waiter" };
        var spinner = new Thread(() => Interlocked.Add(ref StackTargets.Sink, StackTargets.Spin(ready)))
            { Name = "clrprobe-spinner" };
        var napper = new Thread(() => StackTargets.Nap(ready)) { Name = "clrprobe-napper" };
        waiter.Start();
        spinner.Start();
        napper.Start();
        ready.Wait();
        Console.WriteLine("stacks started");
        Console.Out.Flush();
        Thread.Sleep(TimeSpan.FromSeconds(seconds));
        StackTargets.Stop();
        waiter.Join();
        spinner.Join();
        napper.Join();
        Console.WriteLine("stacks done: 3 threads");
        return Program.ExitOk;
    }
}
