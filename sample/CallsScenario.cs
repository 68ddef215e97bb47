// CallsScenario.cs: "calls [SCALE]" scenario - methods called a known number of times, for the method tracer
// (--trace ClrProbe.Sample.CallTargets.*): Tiny 1,000,000 x SCALE times (a method small enough to be inlined),
// Slow 5 times (each sleeps 20 ms), Thrower 1000 x SCALE times (always throws; its caller catches), Recurse(9)
// 1000 x SCALE times (10 calls each: 10,000 x SCALE), Outer 100 x SCALE times (each calls Tiny twice), on the
// main thread, IlBig.Huge (more than 64 KB of IL) 3 times, and Tiny 500,000 x SCALE times more on a second thread. Prints the counts it made and a
// checksum that does not depend on timing. With "wait" as a last argument it prints "calls waiting (pid N)"
// first and waits for a line on stdin before it calls anything (so that a profiler can attach). Then, with "late"
// (calls [SCALE] late wait), it loads the Late library (a module of its own), prints "calls late loaded", waits for
// another line, and calls LateTargets.Work 1000 times.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class CallTargets
{
    public static int Tiny(int x) => x * 3 + 1;

    public static void Slow() => Thread.Sleep(20);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Thrower(int i) => throw new InvalidOperationException($"thrown {i}");

    public static int Recurse(int n) => n == 0 ? 1 : 1 + Recurse(n - 1);

    public static int Outer(int x) => Tiny(x) + Tiny(x + 1);
}

internal static class CallsScenario
{
    public static int Run(string[] rest)
    {
        bool wait = rest.Length > 0 && rest[^1] == "wait";
        string[] args = wait ? rest[..^1] : rest;
        bool late = args.Length > 0 && args[^1] == "late";
        args = late ? args[..^1] : args;
        int scale = args.Length > 0 ? int.Parse(args[0]) : 1;
        if (scale < 1 || scale > 1000 || args.Length > 1)
        {
            Console.Error.WriteLine("calls: SCALE must be 1..1000, optionally followed by 'late' and 'wait'");
            return Program.ExitUsage;
        }
        if (wait)
        {
            Console.WriteLine($"calls waiting (pid {Environment.ProcessId})");
            Console.Out.Flush();
            Console.In.ReadLine();
        }
        long sum = 0;
        var other = new Thread(() =>
        {
            long s = 0;
            for (int i = 0; i < 500_000 * scale; i++)
            {
                s += CallTargets.Tiny(i);
            }
            Interlocked.Add(ref sum, s);
        }) { Name = "clrprobe-calls" };
        other.Start();
        long local = 0;
        for (int i = 0; i < 1_000_000 * scale; i++)
        {
            local += CallTargets.Tiny(i);
        }
        for (int i = 0; i < 5; i++)
        {
            CallTargets.Slow();
        }
        int caught = 0;
        for (int i = 0; i < 1000 * scale; i++)
        {
            try
            {
                CallTargets.Thrower(i);
            }
            catch (InvalidOperationException)
            {
                caught++;
            }
        }
        for (int i = 0; i < 1000 * scale; i++)
        {
            local += CallTargets.Recurse(9);
        }
        for (int i = 0; i < 100 * scale; i++)
        {
            local += CallTargets.Outer(i);
        }
        for (int i = 0; i < 3; i++)
        {
            local += IlBig.Huge(i);               // a method of more than 64 KB of IL
        }
        other.Join();
        Interlocked.Add(ref sum, local);
        Console.WriteLine($"calls: Tiny {1_500_000L * scale + 200L * scale}, Slow 5, Thrower {1000 * scale} (caught {caught}), " +
                          $"Recurse {10_000 * scale}, Outer {100 * scale}, Huge 3");
        Console.WriteLine($"calls checksum: {Interlocked.Read(ref sum)}");
        if (late)
            return Late(wait);
        return Program.ExitOk;
    }

    // Loads the Late library (its module appears now), then calls into it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Late(bool wait)
    {
        System.Runtime.CompilerServices.RuntimeHelpers.RunClassConstructor(LateType().TypeHandle);
        Console.WriteLine("calls late loaded");
        Console.Out.Flush();
        if (wait)
            Console.In.ReadLine();
        return LateCalls();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Type LateType() => typeof(ClrProbe.Late.LateTargets);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int LateCalls()
    {
        long s = 0;
        for (int i = 0; i < 1000; i++)
            s += ClrProbe.Late.LateTargets.Work(i);
        Console.WriteLine($"calls late: Work 1000, checksum {s}");
        return Program.ExitOk;
    }
}

// "callbench [MILLIONS] [wait]": the method tracer's per-call cost. Times MILLIONS million calls (default 50) of
// BenchTargets.Traced and as many of BenchTargets.Untraced (the same body, both never inlined), after a warm-up
// that lets tiered compilation settle, and prints the time of each loop in ns per call. bench/trace.sh runs it
// unprofiled and with --trace ClrProbe.Sample.BenchTargets.Traced, side by side. With "wait" it prints
// "callbench waiting (pid N)" first and waits for a line on stdin (for an attach).
public static class BenchTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Traced(int x) => x * 3 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Untraced(int x) => x * 3 + 1;
}

internal static class CallBenchScenario
{
    public static int Run(string[] rest)
    {
        bool wait = rest.Length > 0 && rest[^1] == "wait";
        rest = wait ? rest[..^1] : rest;
        int millions = rest.Length > 0 ? int.Parse(rest[0]) : 50;
        if (millions < 1 || millions > 100_000 || rest.Length > 1)
        {
            Console.Error.WriteLine("callbench: MILLIONS must be 1..100000, optionally followed by 'wait'");
            return Program.ExitUsage;
        }
        if (wait)
        {
            Console.Error.WriteLine($"callbench waiting (pid {Environment.ProcessId})");
            Console.In.ReadLine();
        }
        long n = millions * 1_000_000L, sum = 0;
        for (int round = 0; round < 3; round++)       // warm-up: tier 0, then tier 1 (and OSR) code
        {
            sum += Loop(BenchTargets.Traced, 2_000_000) + Loop(BenchTargets.Untraced, 2_000_000);
            Thread.Sleep(150);
        }
        var watch = System.Diagnostics.Stopwatch.StartNew();
        sum += Loop(BenchTargets.Traced, n);
        double traced = watch.Elapsed.TotalNanoseconds / n;
        watch.Restart();
        sum += Loop(BenchTargets.Untraced, n);
        double untraced = watch.Elapsed.TotalNanoseconds / n;
        Console.Error.WriteLine($"callbench: traced {traced:F3} ns/call, untraced {untraced:F3} ns/call");
        Console.WriteLine($"callbench checksum: {sum}");
        return Program.ExitOk;
    }

    private static long Loop(Func<int, int> f, long n)
    {
        // (a delegate would cost more than the call: one loop per method instead)
        long s = 0;
        if (f == BenchTargets.Traced)
            for (long i = 0; i < n; i++) s += BenchTargets.Traced((int)i);
        else
            for (long i = 0; i < n; i++) s += BenchTargets.Untraced((int)i);
        return s;
    }
}
