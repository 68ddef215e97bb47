// ExprScenario.cs: "expr [SECONDS]" scenario - CPU time in a dynamic method, for sampling tests. A
// System.Linq.Expressions lambda compiled at run time (LightweightCodeGen: a DynamicMethod the runtime names
// lambda_method<N>) runs a loop of arithmetic, then calls ExprWork.Step, a compiled method with the same amount of
// arithmetic; thread "clrprobe-expr" calls the lambda from ExprWork.CallLoop over and over. So about half of the
// thread's time is in the lambda itself and half in Step called by it. Prints "expr started" when the thread runs, and at the end the lambda's result for a fixed input and a
// fixed line.
using System.Diagnostics;
using System.Linq.Expressions;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class ExprWork
{
    private static volatile bool s_stop;
    public static long Sink;

    public static void Stop() => s_stop = true;
    public static bool Stopped => s_stop;

    // The same amount of arithmetic as the lambda's own loop, in a method of this assembly.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Step(long x)
    {
        for (int i = 0; i < 20000; i++)
        {
            x = x * 2862933555777941757L + 3037000493L;
        }
        return x;
    }

    // x => { for (i = 0; i < 20000; i++) x = x * 6364136223846793005 + 1442695040888963407; return Step(x); }
    public static Func<long, long> Compile()
    {
        ParameterExpression x = Expression.Parameter(typeof(long), "x");
        ParameterExpression i = Expression.Variable(typeof(int), "i");
        LabelTarget done = Expression.Label(typeof(long), "done");
        BlockExpression body = Expression.Block(
            new[] { i },
            Expression.Assign(i, Expression.Constant(0)),
            Expression.Loop(
                Expression.IfThenElse(
                    Expression.LessThan(i, Expression.Constant(20000)),
                    Expression.Block(
                        Expression.Assign(x, Expression.Add(
                            Expression.Multiply(x, Expression.Constant(6364136223846793005L)),
                            Expression.Constant(1442695040888963407L))),
                        Expression.PostIncrementAssign(i)),
                    Expression.Break(done, Expression.Call(typeof(ExprWork).GetMethod(nameof(Step))!, x))),
                done));
        return Expression.Lambda<Func<long, long>>(body, x).Compile();
    }

    // Calls the compiled lambda again and again for `ticks` Stopwatch ticks.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long CallLoop(Func<long, long> f, long ticks, long seed)
    {
        long until = Stopwatch.GetTimestamp() + ticks, x = seed;
        while (Stopwatch.GetTimestamp() < until)
        {
            x = f(x);
        }
        return x;
    }
}

internal static class ExprScenario
{
    public const double DefaultSeconds = 3;

    public static int Run(double seconds)
    {
        Func<long, long> f = ExprWork.Compile();
        long slice = Stopwatch.Frequency / 100;          // 10 ms
        using var ready = new ManualResetEventSlim(false);
        var worker = new Thread(() =>
        {
            ready.Set();
            long x = 1;
            while (!ExprWork.Stopped)
            {
                x = ExprWork.CallLoop(f, slice, x);
            }
            Interlocked.Add(ref ExprWork.Sink, x);
        }) { Name = "clrprobe-expr" };
        worker.Start();
        ready.Wait();
        Console.WriteLine("expr started");
        Console.Out.Flush();
        Thread.Sleep(TimeSpan.FromSeconds(seconds));
        ExprWork.Stop();
        worker.Join();
        Console.WriteLine($"expr f(1): 0x{f(1):x16}");
        Console.WriteLine("expr done: 1 thread");
        return Program.ExitOk;
    }
}
