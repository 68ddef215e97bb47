// MuteScenario.cs: a process that looks like a .NET process whose diagnostics server has hung: it listens on the
// socket name the runtime would use ($TMPDIR/dotnet-diagnostic-PID-STARTTIME-socket), accepts connections and never
// answers.  Run it with DOTNET_EnableDiagnostics=0 so the real server does not compete.  Tests use it to check that
// `clrprobe attach` gives up at its documented limit and honours Ctrl-C at once.
using System.Globalization;
using System.Net.Sockets;

namespace ClrProbe.Sample;

internal static class MuteScenario
{
    public static int Run(double seconds)
    {
        string tmp = Environment.GetEnvironmentVariable("TMPDIR") is { Length: > 0 } t ? t : "/tmp";
        // Field 22 of /proc/self/stat, the process's start time: the key the runtime puts in the socket's name.
        string stat = File.ReadAllText("/proc/self/stat");
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        string startTime = fields[19];
        string path = Path.Combine(tmp,
            string.Create(CultureInfo.InvariantCulture, $"dotnet-diagnostic-{Environment.ProcessId}-{startTime}-socket"));

        using var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        listener.Bind(new UnixDomainSocketEndPoint(path));
        listener.Listen(16);
        var held = new List<Socket>();
        Console.WriteLine("mute started");
        Console.Out.Flush();

        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(seconds);
        while (DateTime.UtcNow < deadline)
        {
            if (listener.Poll(100_000, SelectMode.SelectRead))
            {
                held.Add(listener.Accept());      // read nothing, answer nothing
            }
        }
        foreach (Socket s in held)
        {
            s.Dispose();
        }
        File.Delete(path);
        Console.WriteLine("mute done");
        return Program.ExitOk;
    }
}
