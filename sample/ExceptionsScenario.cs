// ExceptionsScenario.cs: "exceptions N" scenario - throws N ClrProbe.Sample.SampleException in ExceptionTargets.Thrower
// (caught in ExceptionTargets.Catcher) plus exactly 3 System.InvalidOperationException thrown in
// ExceptionTargets.InvalidOperationThrower and caught in ExceptionTargets.InvalidOperationCatcher. Nothing else throws.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public sealed class SampleException : Exception
{
    public SampleException(int index)
        : base("clrprobe sample exception")
    {
        Index = index;
    }

    public int Index { get; }
}

public static class ExceptionTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Thrower(int index)
    {
        throw new SampleException(index);
    }

    // Returns true when the SampleException thrown by Thrower was caught here.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool Catcher(int index)
    {
        try
        {
            Thrower(index);
            return false;
        }
        catch (SampleException e)
        {
            return e.Index == index;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void InvalidOperationThrower(int index)
    {
        throw new InvalidOperationException("clrprobe sample invalid operation");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool InvalidOperationCatcher(int index)
    {
        try
        {
            InvalidOperationThrower(index);
            return false;
        }
        catch (InvalidOperationException)
        {
            return true;
        }
    }
}

internal static class ExceptionsScenario
{
    public const int DefaultCount = 25;
    public const int InvalidOperationCount = 3;

    public static int Run(int count)
    {
        int firstChanceBefore = Program.FirstChanceExceptions;

        int sampleCaught = 0;
        for (int i = 0; i < count; i++)
        {
            if (ExceptionTargets.Catcher(i))
            {
                sampleCaught++;
            }
        }

        int invalidOperationCaught = 0;
        for (int i = 0; i < InvalidOperationCount; i++)
        {
            if (ExceptionTargets.InvalidOperationCatcher(i))
            {
                invalidOperationCaught++;
            }
        }

        Console.WriteLine($"exceptions thrown: {sampleCaught + invalidOperationCaught}");
        Console.WriteLine($"SampleException: {sampleCaught}");
        Console.WriteLine($"InvalidOperationException: {invalidOperationCaught}");

        int seen = Program.FirstChanceExceptions - firstChanceBefore;
        if (sampleCaught != count || invalidOperationCaught != InvalidOperationCount || seen != count + InvalidOperationCount)
        {
            Console.Error.WriteLine(
                $"Sample: exceptions: expected {count}+{InvalidOperationCount} exceptions, caught {sampleCaught}+{invalidOperationCaught}, first-chance {seen}");
            return Program.ExitFailure;
        }
        return Program.ExitOk;
    }
}
