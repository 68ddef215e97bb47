// ChurnScenario.cs: "churn [ROUNDS]" scenario - the target for attach tests. It first JIT-compiles the
// named methods of JitTargets (so an attached profiler must find them by catch-up), prints "churn started",
// then for ROUNDS rounds (default 60, ~50 ms each) loads and unloads a collectible copy of this assembly,
// starts and joins two named threads, and throws and catches exceptions. Its output does not depend on timing.
// "churn until FILE": rounds until FILE exists, then 5 more (so each kind of event also comes after it),
// with a thread spinning on the CPU all along (so that every moment has CPU samples to take); its output
// does not depend on how many rounds that made.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class ChurnTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ThrowAndCatch(int round)
    {
        try
        {
            throw new SampleException(round);
        }
        catch (SampleException)
        {
            return 1;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Spin(StrongBox<bool> running)
    {
        long sum = 0;
        while (Volatile.Read(ref running.Value))
        {
            for (int i = 0; i < 100_000; i++)
            {
                sum += (i ^ sum) % 7;
            }
        }
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long ThreadBody(int seed)
    {
        long sum = 0;
        for (int i = 0; i < 20_000; i++)
        {
            sum += (i ^ seed) % 7;
        }
        return sum;
    }
}

internal static class ChurnScenario
{
    public const int DefaultRounds = 60;

    public const int RoundsAfterStop = 5;

    public static int Run(int rounds) => Run(rounds, null);

    public static int RunUntil(string stopFile) => Run(int.MaxValue, stopFile);

    private static int Run(int rounds, string? stopFile)
    {
        // Compiled before any attach can happen.
        long warm = JitTargets.ComputeFibonacci(20) + JitTargets.SumSquares(100);
        Console.WriteLine($"churn warm-up: {warm}");
        Console.WriteLine("churn started");
        Console.Out.Flush();

        var spinning = new StrongBox<bool>(stopFile != null);
        var spinner = new Thread(() => ChurnTargets.Spin(spinning)) { Name = "clrprobe-churn-spin", IsBackground = true };
        if (spinning.Value)
        {
            spinner.Start();
        }

        string path = typeof(Program).Assembly.Location;
        int caught = 0, loaded = 0;
        long threadSum = 0;
        var pending = new List<WeakReference>();
        int last = rounds;
        for (int round = 0; round < last; round++)
        {
            if (stopFile != null && last == int.MaxValue && File.Exists(stopFile))
            {
                last = round + RoundsAfterStop;
            }
            pending.AddRange(CollectibleTargets.LoadAndRunPlugin(path, out string result));
            if (result.StartsWith("plugin ran", StringComparison.Ordinal))
            {
                loaded++;
            }

            var results = new long[2];
            var threads = new Thread[2];
            for (int t = 0; t < threads.Length; t++)
            {
                int index = t;
                threads[t] = new Thread(() => results[index] = ChurnTargets.ThreadBody(round * 2 + index))
                {
                    Name = $"clrprobe-churn-{t}",
                };
                threads[t].Start();
            }
            foreach (Thread thread in threads)
            {
                thread.Join();
            }
            threadSum += results[0] + results[1];

            for (int e = 0; e < 3; e++)
            {
                caught += ChurnTargets.ThrowAndCatch(round);
            }
            if (round % 5 == 4)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
                pending.RemoveAll(r => !r.IsAlive);
            }
            Thread.Sleep(40);
        }
        if (spinning.Value)
        {
            Volatile.Write(ref spinning.Value, false);
            spinner.Join();
        }
        bool unloaded = CollectibleTargets.WaitUntilCollected([.. pending]);
        if (stopFile == null)
        {
            Console.WriteLine($"churn rounds: {rounds}");
            Console.WriteLine($"plugins loaded: {loaded}");
            Console.WriteLine($"exceptions caught: {caught}");
            Console.WriteLine($"thread checksum: {threadSum}");
        }
        else
        {
            Console.WriteLine("churn rounds: until stopped");
            Console.WriteLine($"a plugin loaded every round: {loaded == last}");
            Console.WriteLine($"3 exceptions caught every round: {caught == 3 * last}");
        }
        Console.WriteLine($"collectible unloaded: {unloaded}");
        return unloaded ? Program.ExitOk : Program.ExitFailure;
    }
}
