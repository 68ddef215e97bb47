// StacksScenario.cs: "stacks [SECONDS]" scenario - threads in known places, for `clrprobe stack`.
// Thread "clrprobe-waiter" waits in Monitor.Wait inside StackTargets.WaitForSignal (on a lock only the main
// thread pulses); thread "clrprobe-spinner" spins on a CPU in StackTargets.Spin; thread "clrprobe-napper"
// sleeps in StackTargets.Nap; thread "clrprobe-reader" reads a loopback TCP connection nobody writes to, in
// StackTargets.Read; thread "clrprobe-holder" holds a lock (sleeping inside it) that thread "clrprobe-blocked"
// waits to enter in StackTargets.Enter. Prints "stacks started" when all are there, and a fixed line at the
// end.
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class StackTargets
{
    private static readonly object s_gate = new();
    private static bool s_signalled;
    private static volatile bool s_stop;
    public static long Sink;

    private static readonly object s_held = new();
    private static Socket? s_server;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Hold(CountdownEvent ready, ManualResetEventSlim holding)
    {
        lock (s_held)
        {
            holding.Set();
            ready.Signal();
            while (!s_stop)
            {
                Thread.Sleep(20);
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Enter(CountdownEvent ready, ManualResetEventSlim holding)
    {
        holding.Wait();
        ready.Signal();
        lock (s_held)
        {
            Sink++;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Read(CountdownEvent ready, Socket client)
    {
        var buffer = new byte[1];
        ready.Signal();
        return client.Receive(buffer);      // until the main thread writes a byte at the end
    }

    /// <summary>A connected loopback pair: the client end returned, the accepted end kept to write at the end.</summary>
    public static Socket Connect()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        client.Connect(listener.LocalEndPoint!);
        s_server = listener.Accept();
        return client;
    }

    public static void Stop()
    {
        s_stop = true;
        s_server?.Send(new byte[] { 1 });
        lock (s_gate)
        {
            s_signalled = true;
            Monitor.PulseAll(s_gate);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WaitForSignal(CountdownEvent ready)
    {
        lock (s_gate)
        {
            ready.Signal();
            while (!s_signalled)
            {
                Monitor.Wait(s_gate);
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Spin(CountdownEvent ready)
    {
        ready.Signal();
        long x = 3;
        while (!s_stop)
        {
            for (int i = 0; i < 1000; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Nap(CountdownEvent ready)
    {
        ready.Signal();
        while (!s_stop)
        {
            Thread.Sleep(50);
        }
    }
}

internal static class StacksScenario
{
    public const double DefaultSeconds = 10;

    public static int Run(double seconds)
    {
        using var ready = new CountdownEvent(6);
        using var holding = new ManualResetEventSlim();
        using Socket client = StackTargets.Connect();
        var waiter = new Thread(() => StackTargets.WaitForSignal(ready)) { Name = "clrprobe-waiter" };
        var spinner = new Thread(() => Interlocked.Add(ref StackTargets.Sink, StackTargets.Spin(ready)))
            { Name = "clrprobe-spinner" };
        var napper = new Thread(() => StackTargets.Nap(ready)) { Name = "clrprobe-napper" };
        var reader = new Thread(() => StackTargets.Read(ready, client)) { Name = "clrprobe-reader" };
        var holder = new Thread(() => StackTargets.Hold(ready, holding)) { Name = "clrprobe-holder" };
        var blocked = new Thread(() => StackTargets.Enter(ready, holding)) { Name = "clrprobe-blocked" };
        var threads = new[] { waiter, spinner, napper, reader, holder, blocked };
        foreach (var t in threads)
        {
            t.Start();
        }
        ready.Wait();
        Thread.Sleep(100);      // (the last signals come just before their waits)
        Console.WriteLine("stacks started");
        Console.Out.Flush();
        Thread.Sleep(TimeSpan.FromSeconds(seconds));
        StackTargets.Stop();
        foreach (var t in threads)
        {
            t.Join();
        }
        Console.WriteLine("stacks done: 6 threads");
        return Program.ExitOk;
    }
}
