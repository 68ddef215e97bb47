// JsonScenario.cs: "json rounds N" scenario - an allocation-heavy workload of the kind a web service runs, for the
// allocation-profiling overhead benchmark (bench/alloc.sh): each round builds 200 orders (strings, a list of
// lines each, decimals, dates), serializes them with System.Text.Json, parses the text back and sums it up.  It
// allocates about as much as it computes (a few hundred MB a second on one thread), unlike `alloc`, which does
// nothing but allocate.  Fixed work: exactly N rounds, as fast as it can.
// stdout: "json started", then "json done: N rounds, checksum C" (C is fixed by N).
// stderr: "truth json total rounds=N bytes=B elapsed_ms=T" (B: GC.GetAllocatedBytesForCurrentThread over the
// rounds; T: their wall time).
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text.Json;

namespace ClrProbe.Sample;

public sealed class JsonLine
{
    public string Sku { get; set; } = "";
    public int Quantity { get; set; }
    public decimal Price { get; set; }
}

public sealed class JsonOrder
{
    public int Id { get; set; }
    public string Customer { get; set; } = "";
    public DateTime Placed { get; set; }
    public List<JsonLine> Lines { get; set; } = new();
}

public static class JsonTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static List<JsonOrder> BuildOrders(int round)
    {
        var orders = new List<JsonOrder>(200);
        for (int i = 0; i < 200; i++)
        {
            var o = new JsonOrder
            {
                Id = round * 200 + i,
                Customer = "customer-" + ((round * 7 + i) % 997).ToString(CultureInfo.InvariantCulture),
                Placed = new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddMinutes(round + i),
            };
            for (int k = 0; k < 1 + i % 5; k++)
                o.Lines.Add(new JsonLine { Sku = "sku-" + (i * 31 + k).ToString(CultureInfo.InvariantCulture),
                                           Quantity = 1 + k, Price = 9.99m + k });
            orders.Add(o);
        }
        return orders;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Serialize(List<JsonOrder> orders) => JsonSerializer.Serialize(orders);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Parse(string json)
    {
        var orders = JsonSerializer.Deserialize<List<JsonOrder>>(json)!;
        long sum = 0;
        foreach (var o in orders)
            foreach (var l in o.Lines)
                sum += o.Id + l.Quantity * (long)(l.Price * 100) + l.Sku.Length + o.Customer.Length;
        return sum;
    }
}

public static class JsonScenario
{
    public static int Run(long rounds)
    {
        Console.WriteLine("json started");
        long checksum = 0;
        long before = GC.GetAllocatedBytesForCurrentThread();
        var sw = Stopwatch.StartNew();
        for (int r = 0; r < rounds; r++)
        {
            var json = JsonTargets.Serialize(JsonTargets.BuildOrders(r));
            checksum = unchecked(checksum * 31 + JsonTargets.Parse(json) + json.Length);
        }
        sw.Stop();
        long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
        Console.WriteLine($"json done: {rounds} rounds, checksum {checksum.ToString(CultureInfo.InvariantCulture)}");
        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"truth json total rounds={rounds} bytes={bytes} elapsed_ms={sw.Elapsed.TotalMilliseconds:F1}"));
        return 0;
    }
}
