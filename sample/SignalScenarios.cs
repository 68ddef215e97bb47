// SignalScenarios.cs: scenarios for the signal sampler's tests, each with output that does not depend on timing:
//   nre [SECONDS] [THREADS]  THREADS threads (default 4) dereference null and catch the NullReferenceException in a
//                            loop (the runtime's SIGSEGV handler, on its small alternate stack, under CPU sampling)
//   hotloop [SECONDS]        thread "clrprobe-hot": HotTargets.Caller calls HotTargets.Spin, a loop of arithmetic
//                            with no call and no safe point, compiled fully optimized from the start (no OSR)
//   io [ROUNDS]              file writes and reads, sleeps, Process.Start and a loopback TCP echo with a receive
//                            timeout, on three threads while a fourth burns CPU: every result checked
//   many [THREADS] [SECONDS] THREADS threads (default 200) alternate about 1 ms of work and a 4 ms sleep
//   unloadburn [ROUNDS]      each round loads a collectible copy of this assembly, burns ~50 ms of CPU (a fixed
//                            amount of work) in its HotTargets.CallerFor, unloads it and waits until it is collected
//   sigprof [SECONDS]        burns CPU; after 1 s it handles SIGPROF itself (PosixSignalRegistration), then
//                            prints "sigprof registered"; at the end, how many SIGPROF it handled
//   gcstress [SECONDS]       two threads call a small method in a loop (code the runtime suspends by hijacking its
//                            return address) while a third allocates garbage: thousands of GC suspensions
using System.Diagnostics;
using System.Net;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Runtime.Loader;
using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public sealed class NreTarget
{
    public int Value;
}

public static class NreTargets
{
    // Reads a field through a null reference: a hardware fault the runtime turns into a NullReferenceException.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Deref(NreTarget? target) => target!.Value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool Catch(NreTarget? target)
    {
        try
        {
            Deref(target);
            return false;
        }
        catch (NullReferenceException)
        {
            return true;
        }
    }
}

public static class GcStressTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Step(long x) => x * 6364136223846793005L + 1442695040888963407L;

    // A loop with a call: partially interruptible code, stopped for a GC at a hijacked return.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Calls(long until)
    {
        long x = 1;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 1000; i++)
            {
                x = Step(x);
            }
        }
        return x;
    }

    private static readonly object?[] s_keep = new object?[64];

    // Garbage that escapes (kept a moment in a static array), so the JIT cannot put it on the stack.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Garbage(long until)
    {
        int n = 0;
        while (Stopwatch.GetTimestamp() < until)
        {
            var a = new byte[4096];
            s_keep[n++ & 63] = a;
        }
        return n;
    }
}

public static class HotTargets
{
    public static long Sink;

    // Arithmetic only: no call, no allocation, no safe point in the loop; fully optimized at once.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static long Spin(long iterations, long seed)
    {
        long x = seed;
        for (long i = 0; i < iterations; i++)
        {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >> 29;
        }
        return x;
    }

    // Calls Spin in slices of about a millisecond until the time is up; its own work is a clock read per slice.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static long Caller(double seconds)
    {
        long until = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency), x = 1;
        while (Stopwatch.GetTimestamp() < until)
        {
            x = Spin(400_000, x);
        }
        return x;
    }

    // Spin called `calls` times: a fixed amount of CPU, however busy the machine (about 0.4 ms a call).
    public static long CallerFor(int calls)
    {
        long x = 1;
        for (int i = 0; i < calls; i++)
        {
            x = Spin(400_000, x);
        }
        return x;
    }
}

internal static class SignalScenarios
{
    public static int Nre(double seconds, int threads) => Nre(seconds, threads, null);

    // Until stopFile exists (looked for every 20 ms), however long that takes: an attach target whose test sets its
    // end, so that a loaded machine, slower at each attach, never outlives it.
    public static int NreUntil(string stopFile, int threads) => Nre(double.PositiveInfinity, threads, stopFile);

    private static int Nre(double seconds, int threads, string? stopFile)
    {
        if (threads < 1 || threads > 64)
        {
            Console.Error.WriteLine("nre: THREADS must be 1..64");
            return Program.ExitUsage;
        }
        var counts = new long[threads];
        var failures = new int[threads];
        var workers = new Thread[threads];
        long until = double.IsPositiveInfinity(seconds) ? long.MaxValue
                   : Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        var stopped = new StrongBox<bool>(false);
        for (int t = 0; t < threads; t++)
        {
            int index = t;
            workers[t] = new Thread(() =>
            {
                NreTarget? none = index < 0 ? new NreTarget() : null;
                while (!Volatile.Read(ref stopped.Value) && Stopwatch.GetTimestamp() < until)
                {
                    if (!NreTargets.Catch(none))
                    {
                        failures[index]++;
                    }
                    counts[index]++;
                }
            }) { Name = $"clrprobe-nre-{t}" };
            workers[t].Start();
        }
        if (stopFile != null)
        {
            while (!File.Exists(stopFile))
            {
                Thread.Sleep(20);
            }
            Volatile.Write(ref stopped.Value, true);
        }
        foreach (Thread w in workers)
        {
            w.Join();
        }
        Console.Error.WriteLine($"nre: {counts.Sum()} NullReferenceExceptions caught");
        Console.WriteLine($"nre done: {threads} threads, {failures.Sum()} failures");
        return Program.ExitOk;
    }

    public static int HotLoop(double seconds)
    {
        long result = 0;
        var hot = new Thread(() => result = HotTargets.Caller(seconds)) { Name = "clrprobe-hot" };
        hot.Start();
        hot.Join();
        HotTargets.Sink = result;
        Console.WriteLine("hotloop done");
        return Program.ExitOk;
    }

    public static int Io(int rounds)
    {
        if (rounds < 1 || rounds > 100_000)
        {
            Console.Error.WriteLine("io: ROUNDS must be 1..100000");
            return Program.ExitUsage;
        }
        string dir = Path.Combine(Path.GetTempPath(), $"clrprobe-io-{Environment.ProcessId}");
        Directory.CreateDirectory(dir);
        var errors = new List<string>();
        var stop = false;
        var burner = new Thread(() =>
        {
            long x = 1;
            while (!Volatile.Read(ref stop))
            {
                x = HotTargets.Spin(100_000, x);
            }
            HotTargets.Sink = x;
        }) { Name = "clrprobe-io-burn" };
        burner.Start();
        try
        {
            var files = new Thread(() => Record(errors, "files", () => FileRounds(dir, rounds))) { Name = "clrprobe-io-files" };
            var procs = new Thread(() => Record(errors, "processes", () => ProcessRounds(rounds))) { Name = "clrprobe-io-procs" };
            var socks = new Thread(() => Record(errors, "sockets", () => SocketRounds(rounds))) { Name = "clrprobe-io-sockets" };
            files.Start();
            procs.Start();
            socks.Start();
            files.Join();
            procs.Join();
            socks.Join();
        }
        finally
        {
            Volatile.Write(ref stop, true);
            burner.Join();
            Directory.Delete(dir, true);
        }
        foreach (string e in errors)
        {
            Console.WriteLine($"io error: {e}");
        }
        Console.WriteLine($"io done: {rounds} rounds of files, sleeps, processes and sockets, {errors.Count} errors");
        return errors.Count == 0 ? Program.ExitOk : Program.ExitFailure;
    }

    private static void Record(List<string> errors, string what, Action action)
    {
        try
        {
            action();
        }
        catch (Exception e)
        {
            lock (errors)
            {
                errors.Add($"{what}: {e.GetType().Name}: {e.Message}");
            }
        }
    }

    private static void FileRounds(string dir, int rounds)
    {
        var data = new byte[256 * 1024];
        for (int i = 0; i < data.Length; i++)
        {
            data[i] = (byte)(i * 7 + 3);
        }
        for (int r = 0; r < rounds; r++)
        {
            string path = Path.Combine(dir, $"f{r % 4}");
            using (var fs = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, 4096))
            {
                fs.Write(data, 0, data.Length);
                fs.Flush(true);
            }
            byte[] back = File.ReadAllBytes(path);
            if (!back.AsSpan().SequenceEqual(data))
            {
                throw new InvalidDataException($"round {r}: the file read back differs");
            }
            Thread.Sleep(2);
        }
    }

    private static void ProcessRounds(int rounds)
    {
        for (int r = 0; r < rounds; r += 4)
        {
            var psi = new ProcessStartInfo("/bin/echo", $"round {r}") { RedirectStandardOutput = true, UseShellExecute = false };
            using Process p = Process.Start(psi) ?? throw new InvalidOperationException("Process.Start returned null");
            string output = p.StandardOutput.ReadToEnd();
            p.WaitForExit();
            if (output != $"round {r}\n" || p.ExitCode != 0)
            {
                throw new InvalidDataException($"round {r}: echo said '{output.TrimEnd()}', exit code {p.ExitCode}");
            }
            Thread.Sleep(1);
        }
    }

    private static void SocketRounds(int rounds)
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        client.Connect(listener.LocalEndPoint!);
        using Socket server = listener.Accept();
        client.ReceiveTimeout = 5000;
        server.ReceiveTimeout = 5000;
        var message = new byte[64 * 1024];
        var buffer = new byte[message.Length];
        for (int i = 0; i < message.Length; i++)
        {
            message[i] = (byte)(i * 13 + 1);
        }
        var echo = new Thread(() =>
        {
            var b = new byte[8192];
            int n;
            while ((n = server.Receive(b)) > 0)
            {
                server.Send(b, 0, n, SocketFlags.None);
            }
        }) { Name = "clrprobe-io-echo" };
        echo.Start();
        for (int r = 0; r < rounds; r++)
        {
            client.Send(message);
            int got = 0;
            while (got < buffer.Length)
            {
                int n = client.Receive(buffer, got, buffer.Length - got, SocketFlags.None);
                if (n == 0)
                {
                    throw new InvalidDataException($"round {r}: the echo closed");
                }
                got += n;
            }
            if (!buffer.AsSpan().SequenceEqual(message))
            {
                throw new InvalidDataException($"round {r}: the echo differs");
            }
            Thread.Sleep(1);
        }
        client.Shutdown(SocketShutdown.Send);
        echo.Join();
    }

    private const int UnloadBurnCalls = 125;

    public static int UnloadBurn(int rounds)
    {
        if (rounds < 1 || rounds > 10000)
        {
            Console.Error.WriteLine("unloadburn: ROUNDS must be 1..10000");
            return Program.ExitUsage;
        }
        string path = typeof(SignalScenarios).Assembly.Location;
        int collected = 0;
        for (int r = 0; r < rounds; r++)
        {
            WeakReference context = BurnInCollectible(path);
            for (int i = 0; i < 200 && context.IsAlive; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            collected += context.IsAlive ? 0 : 1;
        }
        Console.Error.WriteLine($"unloadburn: {collected} of {rounds} contexts collected");
        Console.WriteLine($"unloadburn done: {rounds} rounds");
        return Program.ExitOk;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference BurnInCollectible(string path)
    {
        var context = new AssemblyLoadContext("clrprobe-unloadburn", isCollectible: true);
        Assembly copy = context.LoadFromAssemblyPath(path);
        // (a fixed amount of work, not a time: on a busy machine a time gets it less CPU than the loading and
        // the collections around it, which are fixed)
        MethodInfo caller = copy.GetType("ClrProbe.Sample.HotTargets")!.GetMethod(nameof(HotTargets.CallerFor))!;
        HotTargets.Sink ^= (long)caller.Invoke(null, new object[] { UnloadBurnCalls })!;
        context.Unload();
        return new WeakReference(context);
    }

    public static int SigProf(double seconds)
    {
        int handled = 0;
        long until = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long at = Stopwatch.GetTimestamp() + Stopwatch.Frequency;
        PosixSignalRegistration? registration = null;
        long x = 1;
        while (Stopwatch.GetTimestamp() < until)
        {
            x = HotTargets.Spin(100_000, x);
            if (registration == null && Stopwatch.GetTimestamp() >= at)
            {
                registration = PosixSignalRegistration.Create((PosixSignal)27, ctx =>
                {
                    Interlocked.Increment(ref handled);
                    ctx.Cancel = true;
                });
                Console.WriteLine("sigprof registered");
                Console.Out.Flush();
            }
        }
        registration?.Dispose();
        HotTargets.Sink = x;
        Console.Error.WriteLine($"sigprof: {handled} SIGPROF handled");
        Console.WriteLine("sigprof done");
        return Program.ExitOk;
    }

    public static int GcStress(double seconds)
    {
        long until = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        var results = new long[3];
        var workers = new Thread[3];
        for (int t = 0; t < 2; t++)
        {
            int index = t;
            workers[t] = new Thread(() => results[index] = GcStressTargets.Calls(until)) { Name = $"clrprobe-calls-{t}" };
        }
        workers[2] = new Thread(() => results[2] = GcStressTargets.Garbage(until)) { Name = "clrprobe-garbage" };
        foreach (Thread w in workers)
        {
            w.Start();
        }
        foreach (Thread w in workers)
        {
            w.Join();
        }
        Console.Error.WriteLine($"gcstress: {GC.CollectionCount(0)} gen0 GCs");
        Console.WriteLine("gcstress done");
        return Program.ExitOk;
    }

    public static int Many(int threads, double seconds)
    {
        if (threads < 1 || threads > 2000)
        {
            Console.Error.WriteLine("many: THREADS must be 1..2000");
            return Program.ExitUsage;
        }
        var workers = new Thread[threads];
        var results = new long[threads];
        long until = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        for (int t = 0; t < threads; t++)
        {
            int index = t;
            workers[t] = new Thread(() =>
            {
                long x = index + 1;
                while (Stopwatch.GetTimestamp() < until)
                {
                    x = HotTargets.Spin(200_000, x);
                    Thread.Sleep(4);
                }
                results[index] = x == 0 ? 0 : 1;
            }) { Name = $"clrprobe-many-{t}" };
            workers[t].Start();
        }
        foreach (Thread w in workers)
        {
            w.Join();
        }
        Console.WriteLine($"many done: {threads} threads, {results.Sum()} finished");
        return Program.ExitOk;
    }
}
