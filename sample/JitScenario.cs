// JitScenario.cs: "jit" scenario - calls uniquely named, never-inlined methods (ClrProbe.Sample.JitTargets) that are
// certainly JIT-compiled, so profiler tests can look for their JITCompilation callbacks; prints their deterministic results.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class JitTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long ComputeFibonacci(int n)
    {
        long a = 0, b = 1;
        for (int i = 0; i < n; i++)
        {
            (a, b) = (b, a + b);
        }
        return a;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long SumSquares(int n)
    {
        long sum = 0;
        for (long i = 1; i <= n; i++)
        {
            sum += i * i;
        }
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string ReverseWords(string text)
    {
        string[] words = text.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Array.Reverse(words);
        return string.Join(' ', words);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CountPrimes(int limit)
    {
        var composite = new bool[limit + 1];
        int count = 0;
        for (int i = 2; i <= limit; i++)
        {
            if (composite[i])
            {
                continue;
            }
            count++;
            for (long j = (long)i * i; j <= limit; j += i)
            {
                composite[j] = true;
            }
        }
        return count;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong HashFnv1a(string text)
    {
        ulong hash = 14695981039346656037UL;
        foreach (char c in text)
        {
            hash = (hash ^ c) * 1099511628211UL;
        }
        return hash;
    }
}

internal static class JitScenario
{
    public static int Run()
    {
        const string sentence = "the quick brown fox jumps over the lazy dog";
        Console.WriteLine($"ComputeFibonacci(40) = {JitTargets.ComputeFibonacci(40)}");
        Console.WriteLine($"SumSquares(1000) = {JitTargets.SumSquares(1000)}");
        Console.WriteLine($"ReverseWords(\"{sentence}\") = \"{JitTargets.ReverseWords(sentence)}\"");
        Console.WriteLine($"CountPrimes(10000) = {JitTargets.CountPrimes(10000)}");
        Console.WriteLine($"HashFnv1a(\"clrprobe\") = 0x{JitTargets.HashFnv1a("clrprobe"):x16}");
        return Program.ExitOk;
    }
}
