// PhasesScenario.cs: "phases [SECONDS]" - the main thread burns CPU in PhaseTargets.PhaseOne for the first half of
// SECONDS (default 1), then in PhaseTargets.PhaseTwo for the second half: a profile whose functions are known by time
// (the html page's time-range strip is checked against it).
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class PhaseTargets
{
    private static long s_sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void PhaseOne(double seconds) => Burn(seconds);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void PhaseTwo(double seconds) => Burn(seconds);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Burn(double seconds)
    {
        var clock = Stopwatch.StartNew();
        long x = s_sink;
        while (clock.Elapsed.TotalSeconds < seconds)
            for (int i = 0; i < 10000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
        s_sink = x;
    }
}

internal static class PhasesScenario
{
    public static int Run(double seconds)
    {
        PhaseTargets.PhaseOne(seconds / 2);
        PhaseTargets.PhaseTwo(seconds / 2);
        Console.WriteLine("phases done");
        return Program.ExitOk;
    }
}
