// ProcessScenarios.cs: process-behaviour scenarios used by the launcher tests: "spin SECONDS" (long-running busy loop to be
// killed mid-run), "exit CODE" (exit-code passthrough), "echo" (stdin passthrough), "raise SIGNAL" (a signal sent
// to itself with raise(3), whose default action may end the process) and "exec SECONDS PROGRAM [ARGS...]" (the
// process burns CPU on two threads for SECONDS, then replaces itself with PROGRAM by execv(2), SIGPROF blocked on the
// thread that execs: a signal still on its way then waits, for PROGRAM to discard).
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

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

    [DllImport("libc", EntryPoint = "execv", SetLastError = true)]
    private static extern int ExecV(string path, string?[] argv);

    [DllImport("libc", EntryPoint = "pthread_sigmask")]
    private static extern int PthreadSigMask(int how, ulong[] set, IntPtr old);

    private const int SigBlock = 0;
    private const int SigProf = 27;

    public static int Exec(double seconds, string[] program)
    {
        Console.WriteLine($"exec: burning {seconds} s, then {program[0]}");
        Console.Out.Flush();
        var stopwatch = Stopwatch.StartNew();
        var deadline = TimeSpan.FromSeconds(seconds);
        var other = new Thread(() =>
        {
            ulong s = 0;
            while (stopwatch.Elapsed < deadline)
            {
                s += SpinStep(s);
            }
            GC.KeepAlive(s);
        });
        other.Start();
        ulong sink = 0;
        while (stopwatch.Elapsed < deadline)
        {
            sink += SpinStep(sink);
        }
        GC.KeepAlive(sink);
        var set = new ulong[16];                      // a sigset_t: 1024 bits
        set[0] = 1UL << (SigProf - 1);
        PthreadSigMask(SigBlock, set, IntPtr.Zero);
        var argv = new string?[program.Length + 1];
        Array.Copy(program, argv, program.Length);
        ExecV(program[0], argv);
        Console.Error.WriteLine($"exec: execv {program[0]} failed: error {Marshal.GetLastWin32Error()}");
        return Program.ExitFailure;
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

    [DllImport("libc", EntryPoint = "raise")]
    private static extern int RaiseSignal(int signal);

    [DllImport("libc", EntryPoint = "sigaction")]
    private static extern int SigAction(int signal, IntPtr action, byte[] oldAction);

    // The signal's disposition: "default", "ignored" or "handled" (the handler's address is the first field of
    // struct sigaction; 256 bytes hold the whole struct).
    private static string Disposition(int signal)
    {
        var old = new byte[256];
        if (SigAction(signal, IntPtr.Zero, old) != 0)
        {
            return "unknown";
        }
        long handler = BitConverter.ToInt64(old, 0);
        return handler == 0 ? "default" : handler == 1 ? "ignored" : "handled";
    }

    // Prints a line, raises the signal at the calling thread, then prints another: the second line and exit code 0
    // only if the signal's disposition let the process go on (ignored, or handled).  The disposition it raises it
    // under goes to stderr (a profiler's handler makes it "handled").
    public static int Raise(int signal)
    {
        Console.Error.WriteLine($"signal {signal} disposition: {Disposition(signal)}");
        Console.WriteLine($"raising signal {signal}");
        Console.Out.Flush();
        int rc = RaiseSignal(signal);
        Console.WriteLine($"still running after signal {signal} (raise returned {rc})");
        return Program.ExitOk;
    }
}
