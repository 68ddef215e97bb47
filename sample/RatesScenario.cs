// RatesScenario.cs: "rates [SECONDS [EXCEPTIONS [KIB]]]" scenario - known rates, for `clrprobe counters`.
// For SECONDS (default 10) the main thread throws and catches EXCEPTIONS InvalidOperationException a second
// (default 200) and allocates KIB KiB a second (default 20480) in 1000-byte arrays, both paced against a
// stopwatch every 10 ms; thread "clrprobe-busy" spins on one CPU the whole time. Prints "rates started" and
// "rates done" on stdout, and the counts it made (exceptions, bytes allocated by the main thread, seconds) on
// stderr, the truth the counters are checked against.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class RatesScenario
{
    public const double DefaultSeconds = 10;
    private static volatile bool s_stop;
    private static byte[]? s_keep;
    public static long Sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Busy()
    {
        long x = 7;
        while (!s_stop)
        {
            for (int i = 0; i < 1000; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        Sink = x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Fail(long n)
    {
        throw new InvalidOperationException("rate " + n);
    }

    public static int Run(string[] args)
    {
        // "until FILE": until FILE exists (looked for every 100 ms), not for a time
        string? stopFile = args.Length > 1 && args[0] == "until" ? args[1] : null;
        if (stopFile != null)
        {
            args = args[1..];
        }
        double seconds = stopFile == null && args.Length > 0
            ? double.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture) : DefaultSeconds;
        long perSecond = args.Length > 1 ? long.Parse(args[1]) : 200;
        long kibPerSecond = args.Length > 2 ? long.Parse(args[2]) : 20480;
        double looked = 0;
        var busy = new Thread(Busy) { Name = "clrprobe-busy", IsBackground = true };
        busy.Start();
        Console.WriteLine("rates started");
        Console.Out.Flush();
        var clock = Stopwatch.StartNew();
        long thrown = 0, arrays = 0;
        long before = GC.GetAllocatedBytesForCurrentThread();
        while (stopFile != null || clock.Elapsed.TotalSeconds < seconds)
        {
            double t = clock.Elapsed.TotalSeconds;
            if (stopFile != null && t - looked >= 0.1)
            {
                looked = t;
                if (File.Exists(stopFile))
                {
                    break;
                }
            }
            while (thrown < (long)(t * perSecond))
            {
                try
                {
                    Fail(thrown);
                }
                catch (InvalidOperationException)
                {
                    thrown++;
                }
            }
            while (arrays < (long)(t * kibPerSecond * 1024 / 1000))
            {
                s_keep = new byte[1000 - 24];   // 1000 bytes with its header, length and method table
                arrays++;
            }
            Thread.Sleep(10);
        }
        double took = clock.Elapsed.TotalSeconds;
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        s_stop = true;
        busy.Join();
        GC.KeepAlive(s_keep);
        Console.WriteLine("rates done");
        Console.Error.WriteLine($"rates: {thrown} exceptions, {allocated} bytes, {took:F3} s");
        return 0;
    }
}
