// EhCasesScenario.cs: "ehcases [CASE...]" - the exception-handling shapes of the runtime's (docs/exceptions.md), each thrown
// from a known function with a known message and handled in a known place (EhCases.*):
//   plain       InvalidOperationException "plain throw" from PlainThrower, caught in PlainCatcher
//   filterfalse ArgumentException "filter says no" from FilterThrower; FilterFalse's filter rejects it, caught in
//               FilterFalseOuter
//   filtertrue  ArgumentException "filter says yes" from FilterThrower; FilterTrue's filter accepts it and catches it
//   finally     KeyNotFoundException "finally on the way" from FinallyThrower; Finally's finally runs, caught in
//               FinallyOuter
//   infilter    ArgumentException "filter escapes" from FilterThrower; the filter in InFilter throws
//               FormatException "thrown in a filter" (escapes: the filter counts as false); the first caught in
//               InFilterOuter
//   infinally   TimeoutException "lost in a finally" from FinallyThrower; InFinally's finally throws
//               NotSupportedException "thrown in a finally", caught in InFinallyOuter (whose catch takes both: the first
//               never resumes)
//   incatch     InvalidCastException "replaced in a catch" from CatchThrower; InCatch's catch throws
//               ApplicationException "thrown in a catch", caught in InCatchOuter
//   rethrow     DivideByZeroException "thrown twice" from RethrowThrower; Rethrow catches and rethrows (throw;),
//               caught in RethrowOuter
//   caughtinfinally  RankException "survives a finally" from FinallyThrower; CaughtInFinally's finally throws and
//               catches FieldAccessException "caught inside a finally"; the first caught in CaughtInFinallyOuter
//   runtime     a static constructor (EhCctor) throws NotImplementedException "from a type initializer", which the
//               runtime catches and wraps: TypeInitializationException caught in RuntimeOuter
// No CASE: all of them, in this order. "ehcases unhandled": Doomed throws InvalidOperationException "clrprobe
// unhandled" on the main thread and nothing catches it (the process dies as .NET makes it). Nothing else throws.
// "ehbench COUNT SPIN": one thread throws and catches COUNT exceptions (two frames between), each after SPIN rounds
// of arithmetic; "ehbench calibrate RATE" prints the SPIN that makes RATE exceptions a second here.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class EhCases
{
    public static int FinallyRuns;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void PlainThrower() => throw new InvalidOperationException("plain throw");

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool PlainCatcher()
    {
        try { PlainThrower(); return false; }
        catch (InvalidOperationException) { return true; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void FilterThrower(string message) => throw new ArgumentException(message);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool Reject(Exception e) => e.Message == "never";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool Accept(Exception e) => e.Message == "filter says yes";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool FilterFalse()
    {
        try { FilterThrower("filter says no"); return false; }
        catch (ArgumentException e) when (Reject(e)) { return false; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool FilterFalseOuter()
    {
        try { return FilterFalse(); }
        catch (ArgumentException) { return true; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool FilterTrue()
    {
        try { FilterThrower("filter says yes"); return false; }
        catch (ArgumentException e) when (Accept(e)) { return true; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void FinallyThrower(Exception e) => throw e;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Finally()
    {
        try { FinallyThrower(new KeyNotFoundException("finally on the way")); }
        finally { FinallyRuns++; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool FinallyOuter()
    {
        int before = FinallyRuns;
        try { Finally(); return false; }
        catch (KeyNotFoundException) { return FinallyRuns == before + 1; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool ThrowingFilter(Exception e) => throw new FormatException("thrown in a filter");

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool InFilter()
    {
        try { FilterThrower("filter escapes"); return false; }
        catch (ArgumentException e) when (ThrowingFilter(e)) { return false; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool InFilterOuter()
    {
        try { return InFilter(); }
        catch (ArgumentException e) { return e.Message == "filter escapes"; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void InFinally()
    {
        try { FinallyThrower(new TimeoutException("lost in a finally")); }
        finally { FinallyThrower(new NotSupportedException("thrown in a finally")); }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool InFinallyOuter()
    {
        try { InFinally(); return false; }
        catch (SystemException e) { return e is NotSupportedException; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void CatchThrower() => throw new InvalidCastException("replaced in a catch");

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void InCatch()
    {
        try { CatchThrower(); }
        catch (InvalidCastException e) { throw new ApplicationException("thrown in a catch", e); }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool InCatchOuter()
    {
        try { InCatch(); return false; }
        catch (ApplicationException e) { return e.InnerException is InvalidCastException; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void RethrowThrower() => throw new DivideByZeroException("thrown twice");

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Rethrow()
    {
        try { RethrowThrower(); }
        catch (DivideByZeroException) { throw; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool RethrowOuter()
    {
        try { Rethrow(); return false; }
        catch (DivideByZeroException) { return true; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void CaughtInFinally()
    {
        try { FinallyThrower(new RankException("survives a finally")); }
        finally
        {
            try { FinallyThrower(new FieldAccessException("caught inside a finally")); }
            catch (FieldAccessException) { FinallyRuns++; }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool CaughtInFinallyOuter()
    {
        int before = FinallyRuns;
        try { CaughtInFinally(); return false; }
        catch (RankException) { return FinallyRuns == before + 1; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool RuntimeOuter()
    {
        try { return EhCctor.Value > 0; }
        catch (TypeInitializationException e) { return e.InnerException is NotImplementedException; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Doomed() => throw new InvalidOperationException("clrprobe unhandled");

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void BenchThrower(int i) => throw new InvalidOperationException("bench");

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool BenchMiddle(int i)
    {
        BenchThrower(i);
        return false;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool BenchCatcher(int i)
    {
        try { return BenchMiddle(i); }
        catch (InvalidOperationException) { return true; }
    }
}

internal static class EhCctor
{
    public static readonly int Value = Init();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Init() => throw new NotImplementedException("from a type initializer");
}

internal static class EhCasesScenario
{
    private static readonly (string Name, Func<bool> Run)[] Cases =
    [
        ("plain", EhCases.PlainCatcher),
        ("filterfalse", EhCases.FilterFalseOuter),
        ("filtertrue", EhCases.FilterTrue),
        ("finally", EhCases.FinallyOuter),
        ("infilter", EhCases.InFilterOuter),
        ("infinally", EhCases.InFinallyOuter),
        ("incatch", EhCases.InCatchOuter),
        ("rethrow", EhCases.RethrowOuter),
        ("caughtinfinally", EhCases.CaughtInFinallyOuter),
        ("runtime", EhCases.RuntimeOuter),
    ];

    public static int Run(string[] args)
    {
        if (args.Length == 1 && args[0] == "unhandled")
        {
            Console.WriteLine("ehcases: unhandled next");
            Console.Out.Flush();
            EhCases.Doomed();
            return Program.ExitOk;
        }
        var chosen = new List<(string Name, Func<bool> Run)>();
        foreach (string name in args)
        {
            int i = Array.FindIndex(Cases, c => c.Name == name);
            if (i < 0)
            {
                Console.Error.WriteLine($"ehcases: unknown case '{name}' (cases: {string.Join(' ', Cases.Select(c => c.Name))}, unhandled)");
                return Program.ExitUsage;
            }
            chosen.Add(Cases[i]);
        }
        if (chosen.Count == 0)
            chosen.AddRange(Cases);
        int failures = 0;
        foreach (var (name, run) in chosen)
        {
            bool ok = run();
            Console.WriteLine($"ehcases {name}: {(ok ? "ok" : "FAILED")}");
            if (!ok)
                failures++;
        }
        return failures == 0 ? Program.ExitOk : Program.ExitFailure;
    }

    // ehbench COUNT SPIN: COUNT exceptions, each after SPIN rounds of arithmetic; ehbench calibrate RATE: the SPIN
    // that makes this machine throw RATE exceptions a second (bench/exceptions.sh).
    public static int Bench(string[] args)
    {
        if (args.Length == 2 && args[0] == "calibrate" && int.TryParse(args[1], out int rate) && rate > 0)
        {
            RunBench(20000, 0);                               // (JIT and warm up)
            double exceptionNs = RunBench(50000, 0) / 50000;
            const int probe = 20000;
            SpinTime(probe);                                  // (tiered up first)
            Thread.Sleep(200);
            SpinTime(probe);
            double spinNs = SpinTime(probe) / probe;
            double wantNs = 1e9 / rate - exceptionNs;
            Console.WriteLine($"spin {Math.Max(0, (long)(wantNs / spinNs))}");
            return Program.ExitOk;
        }
        if (args.Length != 2 || !int.TryParse(args[0], out int count) || count <= 0 ||
            !int.TryParse(args[1], out int spin) || spin < 0)
        {
            Console.Error.WriteLine("ehbench: usage: ehbench COUNT SPIN | ehbench calibrate RATE");
            return Program.ExitUsage;
        }
        double ns = RunBench(count, spin);
        Console.WriteLine($"ehbench: {count} exceptions in {ns / 1e9:F3} s ({count / (ns / 1e9):F0}/s)");
        return Program.ExitOk;
    }

    private static long s_sink;

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static void Spin(int rounds)
    {
        long x = s_sink;
        for (int i = 0; i < rounds; i++)
            x = x * 6364136223846793005L + 1442695040888963407L;
        s_sink = x;
    }

    private static double SpinTime(int times)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        for (int i = 0; i < times; i++)
            Spin(1000);
        return clock.Elapsed.TotalNanoseconds / 1000;
    }

    private static double RunBench(int count, long spin)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        int caught = 0;
        for (int i = 0; i < count; i++)
        {
            Spin((int)spin);
            if (EhCases.BenchCatcher(i))
                caught++;
        }
        if (caught != count)
            throw new InvalidOperationException("ehbench: an exception was not caught");
        return clock.Elapsed.TotalNanoseconds;
    }
}
