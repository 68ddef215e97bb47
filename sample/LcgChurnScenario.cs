// LcgChurnScenario.cs: "lcgchurn [ROUNDS]" scenario - dynamic methods made, run and collected one after another, for
// the sampler's cache of their names. Round k makes a DynamicMethod named churn_even_k or churn_odd_k (by k's
// parity) whose IL calls LcgChurnWork.EvenWork or LcgChurnWork.OddWork (and adds 1), runs it for 40 ms of CPU on thread
// "clrprobe-lcg", drops it and collects it (the runtime then reuses its ID and often its code's place for the
// next round's method). So a profile is right only if every stack with churn_even_N calls EvenWork and every one
// with churn_odd_N calls OddWork. Prints "lcgchurn started", then the rounds and a checksum of the work.
using System.Reflection.Emit;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class LcgChurnWork
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long EvenWork(long x)
    {
        for (int i = 0; i < 20000; i++)
        {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long OddWork(long x)
    {
        for (int i = 0; i < 20000; i++)
        {
            x = x * 2862933555777941757L + 3037000493L;
        }
        return x;
    }

    // x => EvenWork(x) + 1 or OddWork(x) + 1, as a dynamic method of its own name.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static Func<long, long> Make(int round)
    {
        bool even = round % 2 == 0;
        var m = new DynamicMethod((even ? "churn_even_" : "churn_odd_") + round, typeof(long), new[] { typeof(long) },
                                  typeof(LcgChurnWork).Module);
        ILGenerator il = m.GetILGenerator();
        il.Emit(OpCodes.Ldarg_0);
        il.Emit(OpCodes.Call, typeof(LcgChurnWork).GetMethod(even ? nameof(EvenWork) : nameof(OddWork))!);
        il.Emit(OpCodes.Ldc_I8, 1L);                // (work after the call: not a tail call, so its frame stays)
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Ret);
        return m.CreateDelegate<Func<long, long>>();
    }

    // One round: its method called `calls` times (some 40 ms of CPU for 2,000); not referenced after.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Round(int round, int calls, long x)
    {
        Func<long, long> f = Make(round);
        for (int i = 0; i < calls; i++)
        {
            x = f(x);
        }
        return x;
    }
}

internal static class LcgChurnScenario
{
    public const int DefaultRounds = 40;
    private const int CallsPerRound = 2000;

    public static int Run(int rounds)
    {
        long x = 1;
        var worker = new Thread(() =>
        {
            for (int k = 0; k < rounds; k++)
            {
                x = LcgChurnWork.Round(k, CallsPerRound, x);
                // the round's method collected: its resolver's finalizer runs after a first GC, frees it after
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
        }) { Name = "clrprobe-lcg" };
        Console.WriteLine("lcgchurn started");
        Console.Out.Flush();
        worker.Start();
        worker.Join();
        Console.WriteLine($"lcgchurn x: 0x{x:x16}");
        Console.WriteLine($"lcgchurn done: {rounds} rounds");
        return Program.ExitOk;
    }
}
