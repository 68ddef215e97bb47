// HostileScenario.cs: "hostile" scenario - names a thread with terminal escapes, a line break that would forge a
// "runtime" line of the text report, and a NUL, then burns a fixed amount of CPU on it so that it shows up in
// the samples too. Prints a checksum that does not depend on timing. Used to check that clrprobe keeps such a
// name whole and prints it inert.
namespace ClrProbe.Sample;

public static class HostileTargets
{
    // The name, as the tests spell it: ESC [31m, CR LF, a fake report line, NUL, and the rest of the name.
    public const string ThreadName = "\u001b[31mevil\r\n  runtime    .NET 99\u0000tail";
}

internal static class HostileScenario
{
    private const long Units = 400_000;

    public static int Run()
    {
        long result = 0;
        string? seen = null;
        var thread = new Thread(() =>
        {
            seen = Thread.CurrentThread.Name;
            result = BurnTargets.Work(Units, 7);   // the burn scenario's work, on this thread
        })
        {
            Name = HostileTargets.ThreadName,
        };
        thread.Start();
        thread.Join();
        if (seen != HostileTargets.ThreadName)
        {
            Console.Error.WriteLine("Sample: hostile: the thread did not see its own name");
            return Program.ExitFailure;
        }
        Console.WriteLine($"hostile name length: {HostileTargets.ThreadName.Length}");
        Console.WriteLine($"hostile checksum: {result:x16}");
        return Program.ExitOk;
    }
}
