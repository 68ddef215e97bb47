// ProcessScenarios.cs: process-behaviour scenarios used by the launcher tests: "spin SECONDS" (long-running busy loop to be
// killed mid-run), "exit CODE" (exit-code passthrough) and "echo" (stdin passthrough).
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

internal static class ProcessScenarios
{
    public const double DefaultSpinSeconds = 5;

    public static int Spin(double seconds)
    {
        Console.WriteLine("spin started");
        Console.Out.Flush();

        var stopwatch = Stopwatch.StartNew();
        var deadline = TimeSpan.FromSeconds(seconds);
        ulong sink = 0;
        while (stopwatch.Elapsed < deadline)
        {
            sink += SpinStep(sink);
        }
        GC.KeepAlive(sink);

        Console.WriteLine("spin done");
        return Program.ExitOk;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong SpinStep(ulong seed)
    {
        ulong acc = seed | 1;
        for (int i = 0; i < 1_000; i++)
        {
            var bytes = new byte[48];
            bytes[i % bytes.Length] = (byte)acc;
            acc = acc * 6364136223846793005UL + bytes[i % bytes.Length];
        }
        return acc;
    }

    public static int Exit(int code)
    {
        Console.WriteLine($"exiting with {code}");
        return code;
    }

    public static int Echo()
    {
        string? line;
        while ((line = Console.In.ReadLine()) != null)
        {
            Console.Out.WriteLine(line);
        }
        Console.Out.Flush();
        return Program.ExitOk;
    }
}
