// HashScenario.cs: "sha [SECONDS]" scenario - CPU time spent in native code called from a known managed method, for
// sampling tests. Thread "clrprobe-hasher" alternates HashWork.HashLoop (SHA-256 of a 16 KiB buffer, over and over:
// System.Security.Cryptography's one-shot hash, a P/Invoke into libcrypto through
// System.Security.Cryptography.Native.OpenSsl) and HashWork.Mix (plain managed arithmetic) in a 3:1 ratio of time.
// Prints "sha started" when the thread runs, and at the end the digest of the buffer (fixed) and a fixed line.
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;

namespace ClrProbe.Sample;

public static class HashWork
{
    private static volatile bool s_stop;
    public static long Sink;

    public static void Stop() => s_stop = true;
    public static bool Stopped => s_stop;

    public static byte[] MakeBuffer()
    {
        var buffer = new byte[16 * 1024];
        for (int i = 0; i < buffer.Length; i++)
        {
            buffer[i] = (byte)(i * 31 + 7);
        }
        return buffer;
    }

    // Hashes the buffer again and again for `ticks` Stopwatch ticks: nearly all of its time is in libcrypto.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long HashLoop(byte[] buffer, byte[] digest, long ticks)
    {
        long until = Stopwatch.GetTimestamp() + ticks, x = 0;
        while (Stopwatch.GetTimestamp() < until)
        {
            SHA256.HashData(buffer, digest);
            x += digest[0];
        }
        return x;
    }

    // Managed arithmetic only, for `ticks` Stopwatch ticks.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Mix(long ticks, long seed)
    {
        long until = Stopwatch.GetTimestamp() + ticks, x = seed;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 200; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        return x;
    }
}

internal static class HashScenario
{
    public const double DefaultSeconds = 3;

    public static int Run(double seconds)
    {
        long slice = Stopwatch.Frequency / 100;          // 10 ms
        byte[] buffer = HashWork.MakeBuffer();
        using var ready = new ManualResetEventSlim(false);
        var hasher = new Thread(() =>
        {
            var digest = new byte[32];
            ready.Set();
            long x = 1;
            while (!HashWork.Stopped)
            {
                x ^= HashWork.HashLoop(buffer, digest, 3 * slice);
                x ^= HashWork.Mix(slice, x);
            }
            Interlocked.Add(ref HashWork.Sink, x);
        }) { Name = "clrprobe-hasher" };
        hasher.Start();
        ready.Wait();
        Console.WriteLine("sha started");
        Console.Out.Flush();
        Thread.Sleep(TimeSpan.FromSeconds(seconds));
        HashWork.Stop();
        hasher.Join();
        Console.WriteLine($"sha digest: {Convert.ToHexStringLower(SHA256.HashData(buffer))}");
        Console.WriteLine("sha done: 1 thread");
        return Program.ExitOk;
    }
}
