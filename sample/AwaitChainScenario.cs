// AwaitChainScenario.cs: "awaitchain [SECONDS]" scenario - an await chain of known shape, for the report's
// async stacks (docs/sampling.md, "Async methods"): AwaitChain.HandleAsync awaits LoadCustomerAsync, which
// awaits FetchOrdersAsync, which awaits ComputeTotalsAsync.  ComputeTotalsAsync yields first (its continuation
// is posted to the thread pool: no caller is on the stack after it), then burns 2 units of CPU in
// BurnTotals; each caller, resumed inline by the completion of the method it awaited (the stack then has the
// completed method under it), burns 1 unit after its await: FetchOrdersAsync in BurnOrders, LoadCustomerAsync
// in BurnCustomer, HandleAsync in BurnRequest.  So of the chain's CPU: BurnTotals 40%, BurnOrders, BurnCustomer
// and BurnRequest 20% each (a unit is 1 to 3 ms, drawn for each chain, so that the chains never keep step with
// the sampler's period).  One chain at a time, on the thread pool, for SECONDS (default 2).  Prints a fixed
// line at the end.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class AwaitChain
{
    public static long Sink;
    // A unit of CPU: 2 ms on average, drawn for each chain between 1 and 3 ms (a fixed seed): a chain of
    // always 10 ms would keep step with a 100 Hz sampler's period of CPU, every sample falling at the same
    // point of the chain; each chain keeps its 2:1:1:1.
    private static long s_unitTicks = Stopwatch.Frequency / 500;
    private static readonly Random s_units = new Random(20261128);

    public static void NextUnit() => s_unitTicks = Stopwatch.Frequency * (1000 + s_units.Next(2001)) / 1_000_000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Burn(long units)
    {
        long until = Stopwatch.GetTimestamp() + units * s_unitTicks, x = Sink;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 100; i++)
            {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        Sink = x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)] public static void BurnTotals() => Burn(2);
    [MethodImpl(MethodImplOptions.NoInlining)] public static void BurnOrders() => Burn(1);
    [MethodImpl(MethodImplOptions.NoInlining)] public static void BurnCustomer() => Burn(1);
    [MethodImpl(MethodImplOptions.NoInlining)] public static void BurnRequest() => Burn(1);

    public static async Task ComputeTotalsAsync()
    {
        await Task.Yield();
        BurnTotals();
    }

    public static async Task FetchOrdersAsync()
    {
        await ComputeTotalsAsync();
        BurnOrders();
    }

    public static async Task LoadCustomerAsync()
    {
        await FetchOrdersAsync();
        BurnCustomer();
    }

    public static async Task HandleAsync()
    {
        await LoadCustomerAsync();
        BurnRequest();
    }
}

internal static class AwaitChainScenario
{
    public const double DefaultSeconds = 2;

    public static int Run(double seconds)
    {
        long until = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        int chains = 0;
        Task.Run(async () =>
        {
            while (Stopwatch.GetTimestamp() < until)
            {
                AwaitChain.NextUnit();
                await AwaitChain.HandleAsync();
                chains++;
            }
        }).GetAwaiter().GetResult();
        Console.WriteLine(chains > 0 ? "awaitchain done" : "awaitchain: no chain ran");
        return chains > 0 ? Program.ExitOk : Program.ExitFailure;
    }
}
