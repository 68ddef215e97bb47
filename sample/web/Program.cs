// Program.cs: an ASP.NET Core sample for clrprobe. Endpoints (minimal APIs, Kestrel on loopback):
//   GET /hash?kb=N   the SHA-256 of an N KiB buffer (default 64), hashed 8 times: CPU in libcrypto, under
//                    HashEndpoint.Handle
//   GET /json        an order serialized with System.Text.Json: managed CPU and allocation
//   GET /checkout    3 units of CPU in ShareEndpoints.Checkout, and GET /refund 1 unit in ShareEndpoints.Refund: a
//                    request loop of known shares (3:1 between the two; bench/sampling.sh, the per-CPU clock's test)
//   GET /            "hello"
// Usage:
//   Web serve [URL]                      serve on URL (default http://127.0.0.1:5080) until stopped; prints
//                                        "listening on URL" when ready
//   Web load REQUESTS [CONCURRENCY] [PATHS]  serve on a free loopback port and send REQUESTS requests from
//                                        CONCURRENCY clients (default 8) over the comma-separated PATHS (default
//                                        /hash,/json), in turn; every response checked; prints a fixed line
using System.Net;
using System.Security.Cryptography;
using System.Text.Json;

namespace ClrProbe.Web;

public sealed record OrderLine(string Sku, int Quantity, decimal Price);
public sealed record Order(int Id, string Customer, List<OrderLine> Lines, DateTime Placed);

public static class HashEndpoint
{
    private static readonly byte[] s_data = MakeData(1024 * 1024);

    private static byte[] MakeData(int n)
    {
        var d = new byte[n];
        for (int i = 0; i < n; i++)
        {
            d[i] = (byte)(i * 31 + 7);
        }
        return d;
    }

    // The endpoint's own method: the hashing runs in libcrypto below it.
    public static string Handle(int? kb)
    {
        int n = Math.Clamp(kb ?? 64, 1, 1024) * 1024;
        Span<byte> digest = stackalloc byte[32];
        for (int i = 0; i < 8; i++)
        {
            SHA256.HashData(s_data.AsSpan(0, n), digest);
        }
        return Convert.ToHexString(digest);
    }
}

public static class JsonEndpoint
{
    public static string Handle()
    {
        var lines = new List<OrderLine>();
        for (int i = 0; i < 20; i++)
        {
            lines.Add(new OrderLine($"SKU-{i:D4}", i + 1, 9.99m + i));
        }
        var order = new Order(42, "clrprobe", lines, new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        string text = JsonSerializer.Serialize(order);
        Order back = JsonSerializer.Deserialize<Order>(text)!;
        return back.Lines.Count == 20 ? text : "bad";
    }
}

public static class ShareEndpoints
{
    private const int UnitIterations = 20_000;   // about 20 us of CPU

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static ulong Burn(int units, ulong seed)
    {
        ulong x = seed | 1;
        for (int i = 0; i < units * UnitIterations; i++)
        {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
        }
        return x;
    }

    // Each endpoint's own method burns; a unit is the same work in both.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    public static string Checkout() => (Burn(3, 7) & 0xff).ToString();

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    public static string Refund() => (Burn(1, 7) & 0xff).ToString();
}

internal static class Program
{
    private static WebApplication Build(string url)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls(url);
        var app = builder.Build();
        app.MapGet("/", () => "hello");
        app.MapGet("/hash", (int? kb) => HashEndpoint.Handle(kb));
        app.MapGet("/json", () => Results.Content(JsonEndpoint.Handle(), "application/json"));
        app.MapGet("/checkout", () => ShareEndpoints.Checkout());
        app.MapGet("/refund", () => ShareEndpoints.Refund());
        return app;
    }

    private static int Main(string[] args)
    {
        if (args.Length >= 1 && args[0] == "serve")
        {
            string url = args.Length > 1 ? args[1] : "http://127.0.0.1:5080";
            var app = Build(url);
            app.Start();
            Console.WriteLine($"listening on {string.Join(", ", app.Urls)}");
            Console.Out.Flush();
            app.WaitForShutdown();
            return 0;
        }
        if (args.Length >= 2 && args[0] == "load" && int.TryParse(args[1], out int requests) && requests > 0)
        {
            int concurrency = args.Length > 2 && int.TryParse(args[2], out int c) && c > 0 ? c : 8;
            string[] paths = (args.Length > 3 ? args[3] : "/hash,/json").Split(',');
            return Load(requests, concurrency, paths).GetAwaiter().GetResult();
        }
        Console.Error.WriteLine("usage: Web serve [URL] | Web load REQUESTS [CONCURRENCY] [PATHS]");
        return 2;
    }

    private static async Task<int> Load(int requests, int concurrency, string[] paths)
    {
        var app = Build("http://127.0.0.1:0");
        await app.StartAsync();
        string baseUrl = app.Urls.First();
        using var client = new HttpClient { BaseAddress = new Uri(baseUrl) };
        int next = -1, errors = 0;
        string expectedHash = HashEndpoint.Handle(64);
        async Task Client()
        {
            int i;
            while ((i = Interlocked.Increment(ref next)) < requests)
            {
                string path = paths[i % paths.Length];
                using var resp = await client.GetAsync(path);
                string body = await resp.Content.ReadAsStringAsync();
                bool ok = resp.StatusCode == HttpStatusCode.OK &&
                          (path != "/hash" || body == expectedHash) && (path != "/json" || body.StartsWith("{\"Id\":42"));
                if (!ok)
                {
                    Interlocked.Increment(ref errors);
                }
            }
        }
        await Task.WhenAll(Enumerable.Range(0, concurrency).Select(_ => Task.Run(Client)));
        await app.StopAsync();
        Console.WriteLine($"load done: {requests} requests over {string.Join(",", paths)}, {errors} errors");
        return errors == 0 ? 0 : 1;
    }
}
