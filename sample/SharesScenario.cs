// SharesScenario.cs: "shares [SECONDS]" (or "shares until FILE") scenario - a CPU profile with known answers, for sampling tests.
// Thread "clrprobe-burner" burns CPU in SharesTargets.BurnThreeQuarters and SharesTargets.BurnOneQuarter in a
// 3:1 ratio of time; thread "clrprobe-busy" burns CPU in SharesTargets.BurnOther; thread "clrprobe-sleeper"
// sleeps in SharesTargets.Sleep. Prints "shares started" when all three run, and a fixed line at the end.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class SharesTargets
{
    private static volatile bool s_stop;
    public static long Sink;

    public static void Stop() => s_stop = true;
    public static bool Stopped => s_stop;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long BurnThreeQuarters(long ticks, long seed)
    {
        long until = Stopwatch.GetTimestamp() + ticks, x = seed;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 200; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long BurnOneQuarter(long ticks, long seed)
    {
        long until = Stopwatch.GetTimestamp() + ticks, x = seed;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 200; i++)
            {
                x = x * 2862933555777941757L + 3037000493L;
            }
        }
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long BurnOther(long ticks, long seed)
    {
        long until = Stopwatch.GetTimestamp() + ticks, x = seed;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 200; i++)
            {
                x = x * 3202034522624059733L + 1L;
            }
        }
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Sleep(int milliseconds) => Thread.Sleep(milliseconds);
}

internal static class SharesScenario
{
    public const double DefaultSeconds = 3;

    public static int Run(double seconds) => Run(seconds, null);

    // Until stopFile exists (looked for every 100 ms) when it is given, else for seconds.
    public static int Run(double seconds, string? stopFile)
    {
        long slice = Stopwatch.Frequency / 100;          // 10 ms
        using var ready = new CountdownEvent(3);
        var burner = new Thread(() =>
        {
            ready.Signal();
            long x = 1;
            while (!SharesTargets.Stopped)
            {
                x ^= SharesTargets.BurnThreeQuarters(3 * slice, x);
                x ^= SharesTargets.BurnOneQuarter(slice, x);
            }
            Interlocked.Add(ref SharesTargets.Sink, x);
        }) { Name = "clrprobe-burner" };
        var busy = new Thread(() =>
        {
            ready.Signal();
            long x = 2;
            while (!SharesTargets.Stopped)
            {
                x ^= SharesTargets.BurnOther(slice, x);
            }
            Interlocked.Add(ref SharesTargets.Sink, x);
        }) { Name = "clrprobe-busy" };
        var sleeper = new Thread(() =>
        {
            ready.Signal();
            while (!SharesTargets.Stopped)
            {
                SharesTargets.Sleep(20);
            }
        }) { Name = "clrprobe-sleeper" };
        burner.Start();
        busy.Start();
        sleeper.Start();
        ready.Wait();
        Console.WriteLine("shares started");
        Console.Out.Flush();
        if (stopFile == null)
        {
            Thread.Sleep(TimeSpan.FromSeconds(seconds));
        }
        else
        {
            while (!File.Exists(stopFile))
            {
                Thread.Sleep(100);
            }
        }
        SharesTargets.Stop();
        burner.Join();
        busy.Join();
        sleeper.Join();
        Console.WriteLine("shares done: 3 threads");
        return Program.ExitOk;
    }
}
