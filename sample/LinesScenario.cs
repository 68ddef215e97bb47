// LinesScenario.cs: "lines [SECONDS]" scenario - hot code on known source lines, for the source-line tests
// (clrprobe report --lines, pprof's line table). LinesTargets.Loops spends its CPU in two loops, each on one
// line, in a 3:1 ratio (the same arithmetic, 3n and n times); LinesTargets.Caller calls it from two lines, with
// 3n and n; ClrProbe.Late.LateLines.Spin (the Late library, its PDB embedded) about a tenth. The tests find the
// lines by their markers (LINES-...) in the sources. Built Release like the whole
// sample: the JIT optimises these methods once they are hot (tier 1). Prints "lines started" once running, and
// a fixed line at the end.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class LinesTargets
{
    public static double Sink, SinkA, SinkB;

    // (each call a statement of its own that leaves nothing on the IL stack: the JIT maps its optimised code
    // back to IL offsets at such points, and no finer)
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double Caller(int n)
    {
        SinkA = Loops(3 * n); // LINES-CALL-3
        SinkB = Loops(n); // LINES-CALL-1
        return SinkA + SinkB;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double Loops(int n)
    {
        double x = 1.0;
        for (int i = 0; i < n; i++) { x = x * 1.0000001 + 0.5; x = x * 1.0000001 + 0.5; x = x * 1.0000001 + 0.5; } // LINES-LOOP-3
        for (int i = 0; i < n; i++) { x = x * 0.9999999 - 0.5; } // LINES-LOOP-1
        return x;
    }
}

public static class LinesScenario
{
    public const double DefaultSeconds = 3;

    public static int Run(double seconds)
    {
        var sw = Stopwatch.StartNew();
        var sizes = new Random(20261128);       // (rounds of varied length: never in step with a sampler's period)
        bool said = false;
        while (sw.Elapsed.TotalSeconds < seconds)
        {
            int n = 15000 + sizes.Next(10001);
            LinesTargets.Sink += LinesTargets.Caller(n);
            LinesTargets.Sink += ClrProbe.Late.LateLines.Spin(3 * n / 2);
            if (!said)
            {
                Console.WriteLine("lines started");
                said = true;
            }
        }
        Console.WriteLine("lines done");
        return 0;
    }
}
