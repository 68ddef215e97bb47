// Program.cs: entry point of the clrprobe sample target; parses the scenario name and its arguments and dispatches.
// Everything written to stdout must be deterministic (tests diff it with and without the profiler).
using System.Globalization;

namespace ClrProbe.Sample;

internal static class Program
{
    internal const int ExitOk = 0;
    internal const int ExitFailure = 1;
    internal const int ExitUsage = 2;

    private const string UsageText =
        """
        usage: Sample <scenario> [args]
        scenarios:
          jit               call uniquely named JIT-compiled methods (ClrProbe.Sample.JitTargets)
          generics          generic classes/methods, a nested type, Dictionary<int,string>
          threads           4 named worker threads (clrprobe-worker-0..3)
          exceptions [N]    throw/catch N SampleException (default 25) plus 3 InvalidOperationException
          gc [N]            N induced garbage collections (default 5)
          heap [SECONDS [GROW]]  a known heap (1000 HeapLeaf with byte[100], 500 HeapTwig, garbage dropped)
                            held for SECONDS (default 2), for heap snapshots; GROW more HeapLeaf half way
          heapbench M [SECONDS]  M million live objects held for SECONDS (default 30) while a ticker thread
                            measures the longest stop (bench/heap.sh)
          collectible       collectible AssemblyLoadContext + RunAndCollect dynamic assembly, then unload
          all               jit, generics, threads, exceptions 25, gc 5, collectible
          work [N]          fixed-work JIT- and thread-heavy benchmark, N rounds (default 20)
          spin [SECONDS]    busy loop with allocation for SECONDS (default 5), then "spin done"
          burn [T] [UNITS] [wait]  fixed CPU work split over T threads (default 2), for the sampling
                            benchmark; with wait, then waits for a line on stdin (prints its pid)
          churn [ROUNDS]    attach target: collectible loads/unloads, threads, exceptions, ~50 ms per round
          churn until FILE  the same until FILE exists, then 5 more rounds
          shares [SECONDS]  CPU profile with known shares: 3:1 in two functions on one thread, a third
                            function on another, a sleeping thread (default 3 s)
          shares until FILE the same until FILE exists
          stacks [SECONDS]  threads in known places for clrprobe stack: one in Monitor.Wait, one spinning,
                            one sleeping, for SECONDS (default 10)
          pool [SECONDS]    attach target: 4 thread-pool work items burn CPU for SECONDS (default 5)
          bursty [SECONDS]  4 async flows wake from 1-3 ms delays and burn 0.2 + 0.1 ms (2:1 in two
                            functions) between the kernel's ticks, for SECONDS (default 3)
          mute [SECONDS]    a fake diagnostics socket that accepts and never answers (run with
                            DOTNET_EnableDiagnostics=0), for SECONDS (default 5)
          async [SECONDS]   CPU burnt in async methods (AsyncTargets.BurnAsync about half of it), a
                            ValueTask, a generic method, a lambda, a local function, iterators (default 3 s)
          awaitchain [SECONDS]  AwaitChain.HandleAsync -> LoadCustomerAsync -> FetchOrdersAsync -> ComputeTotalsAsync,
                            each burning CPU after its await (2:1:1:1 units from the innermost), the callers
                            resumed inline by the completion of what they awaited (default 2 s)
          lines [SECONDS]   LinesTargets.Loops burning CPU in two loops on two lines (3:1), called by
                            LinesTargets.Caller from two lines (3:1), for source-line tests (default 3 s)
          sha [SECONDS]     SHA-256 of a buffer (native, libcrypto) from HashWork.HashLoop, 3:1 with managed
                            HashWork.Mix, on thread clrprobe-hasher (default 3 s)
          expr [SECONDS]    a compiled expression (a dynamic method, lambda_method...) called from
                            ExprWork.CallLoop on thread clrprobe-expr (default 3 s)
          lcgchurn [ROUNDS] dynamic methods churn_even_K / churn_odd_K made, run (calling EvenWork /
                            OddWork) and collected one after another on thread clrprobe-lcg (default 40)
          alloc [SECONDS | rounds N]  3:1 bytes in AllocTargets.AllocateLarge (byte[1000]) and AllocateSmall
                            (AllocItem), interleaved, dying young: 300 MiB a second for SECONDS (default 2; at
                            least 300 MiB), or N rounds of 4 MiB flat out; the truth on stderr
          json rounds N     N rounds of 200 orders serialized and parsed back with System.Text.Json: a
                            service-like allocation-heavy workload (bench/alloc.sh); the truth on stderr
          live [SECONDS [garbage]]  LiveTargets.Retain keeps 64 MiB of long[125] alive, LiveTargets.Churn drops
                            512 MiB of byte[1000], in 64 steps over SECONDS (default 2), 4 induced GCs; with garbage,
                            then LiveTargets.DropLarge drops 96 MiB of 96,000-byte arrays (large objects) that only
                            gen0 and gen1 GCs follow; the truth on stderr
          contention [SECONDS]  thread clrprobe-waiter blocks in ContentionTargets.WaitForLedger on a SharedLedger
                            (held 30 ms a round) and in WaitForJournal on a System.Threading.Lock (10 ms), 3:1,
                            SECONDS / 40 ms rounds (default 2 s); the measured waits on stderr
          nre [SECONDS [THREADS]]  THREADS threads (default 4) throw and catch NullReferenceExceptions from a null
                            dereference for SECONDS (default 2)
          nre until FILE [THREADS]  the same until FILE exists
          hotloop [SECONDS] thread clrprobe-hot: HotTargets.Caller calls HotTargets.Spin, a loop with no call and
                            no safe point (default 2 s)
          io [ROUNDS]       files, sleeps, Process.Start and a loopback TCP echo with a receive timeout, ROUNDS
                            rounds (default 20), with a CPU burner beside them; every result checked
          many [THREADS [SECONDS]]  THREADS threads (default 200) alternate ~1 ms of work and a 4 ms sleep
                            (default 2 s)
          unloadburn [ROUNDS]  each round burns ~50 ms of CPU in a collectible copy of this assembly, then unloads
                            it (default 20 rounds)
          sigprof [SECONDS] burns CPU and handles SIGPROF itself from 1 s on (default 4 s)
          gcstress [SECONDS]  two threads in a loop of calls while a third allocates garbage: many GC
                            suspensions that hijack return addresses (default 2 s)
          rates [SECONDS | until FILE] [EXCEPTIONS [KIB]]  EXCEPTIONS thrown a second (default 200) and KIB KiB allocated
                            a second (default 20480) by the main thread, a thread spinning, for SECONDS (default 10)
          phases [SECONDS]  burn in PhaseTargets.PhaseOne for half of SECONDS (default 1), then in PhaseTwo
          hostile           a thread named with terminal escapes, CR LF and a NUL burns a little CPU
          calls [SCALE] [wait]  methods called a known number of times, for --trace (CallTargets.*)
          ildump TYPE.METHOD  print a method's IL body (header, code, EH sections) as hex
          callbench [MILLIONS]  ns per call of a method traced and of one not (bench/trace.sh)
          ehcases [CASE...] the exception-handling shapes of docs/exceptions.md (filters, finally, nested, rethrow,
                            a type initializer's); "ehcases unhandled" dies of an unhandled exception
          ehbench COUNT SPIN  COUNT exceptions thrown and caught, SPIN rounds of work before each;
                            "ehbench calibrate RATE" prints the SPIN for RATE a second (bench/exceptions.sh)
          exit CODE         print "exiting with CODE" and exit with CODE
          raise SIGNAL      print a line, raise(SIGNAL) at itself, print "still running after signal SIGNAL"
          exec SECONDS PROGRAM [ARGS...]  burn CPU on two threads for SECONDS, then execv(PROGRAM) with SIGPROF blocked
                            on the thread that execs
          echo              copy stdin to stdout line by line
          help              print this text (exit code 2)
        """;

    // Number of first-chance exceptions seen by this process (used to check that the
    // exceptions scenario throws exactly what it claims to throw).
    private static int s_firstChanceExceptions;

    internal static int FirstChanceExceptions => Volatile.Read(ref s_firstChanceExceptions);

    private static int Main(string[] args)
    {
        AppDomain.CurrentDomain.FirstChanceException += (_, _) => Interlocked.Increment(ref s_firstChanceExceptions);

        if (args.Length == 0)
        {
            Console.Error.WriteLine(UsageText);
            return ExitUsage;
        }

        string scenario = args[0];
        string[] rest = args[1..];
        switch (scenario)
        {
            case "help":
            case "-h":
            case "--help":
                Console.WriteLine(UsageText);
                return ExitUsage;

            case "jit":
                return NoArgs(scenario, rest) ?? JitScenario.Run();
            case "generics":
                return NoArgs(scenario, rest) ?? GenericsScenario.Run();
            case "threads":
                return NoArgs(scenario, rest) ?? ThreadsScenario.Run();
            case "exceptions":
                return OptionalInt(scenario, rest, ExceptionsScenario.DefaultCount, out int exceptions) ?? ExceptionsScenario.Run(exceptions);
            case "gc":
                return OptionalInt(scenario, rest, GcScenario.DefaultCount, out int gcs) ?? GcScenario.Run(gcs);
            case "collectible":
                return NoArgs(scenario, rest) ?? CollectibleScenario.Run();
            case "heap":
                return HeapArgs(rest);
            case "heapbench":
                return HeapBench(rest);
            case "all":
                return NoArgs(scenario, rest) ?? RunAll();
            case "work":
                return OptionalInt(scenario, rest, WorkScenario.DefaultRounds, out int rounds) ?? WorkScenario.Run(rounds);
            case "churn" when rest.Length == 2 && rest[0] == "until":
                return ChurnScenario.RunUntil(rest[1]);
            case "churn":
                return OptionalInt(scenario, rest, ChurnScenario.DefaultRounds, out int churnRounds) ?? ChurnScenario.Run(churnRounds);
            case "spin":
                return OptionalSeconds(scenario, rest, out double seconds) ?? ProcessScenarios.Spin(seconds);
            case "burn":
                return BurnScenario.Run(rest);
            case "shares" when rest.Length == 2 && rest[0] == "until":
                return SharesScenario.Run(0, rest[1]);
            case "shares":
                return OptionalSeconds(scenario, rest, out double shareSeconds) ??
                       SharesScenario.Run(rest.Length == 0 ? SharesScenario.DefaultSeconds : shareSeconds);
            case "stacks":
                return OptionalSeconds(scenario, rest, out double stackSeconds) ??
                       StacksScenario.Run(rest.Length == 0 ? StacksScenario.DefaultSeconds : stackSeconds);
            case "rates":
                return RatesScenario.Run(rest);
            case "bursty":
                return OptionalSeconds(scenario, rest, out double burstySeconds) ??
                       BurstyScenario.Run(rest.Length == 0 ? BurstyScenario.DefaultSeconds : burstySeconds);
            case "pool":
                return OptionalSeconds(scenario, rest, out double poolSeconds) ??
                       PoolScenario.Run(rest.Length == 0 ? PoolScenario.DefaultSeconds : poolSeconds);
            case "mute":
                return OptionalSeconds(scenario, rest, out double muteSeconds) ?? MuteScenario.Run(muteSeconds);
            case "async":
                return OptionalSeconds(scenario, rest, out double asyncSeconds) ??
                       AsyncScenario.Run(rest.Length == 0 ? AsyncScenario.DefaultSeconds : asyncSeconds);
            case "lines":
                return OptionalSeconds(scenario, rest, out double lineSeconds) ??
                       LinesScenario.Run(rest.Length == 0 ? LinesScenario.DefaultSeconds : lineSeconds);
            case "awaitchain":
                return OptionalSeconds(scenario, rest, out double chainSeconds) ??
                       AwaitChainScenario.Run(rest.Length == 0 ? AwaitChainScenario.DefaultSeconds : chainSeconds);
            case "sha":
                return OptionalSeconds(scenario, rest, out double shaSeconds) ??
                       HashScenario.Run(rest.Length == 0 ? HashScenario.DefaultSeconds : shaSeconds);
            case "expr":
                return OptionalSeconds(scenario, rest, out double exprSeconds) ??
                       ExprScenario.Run(rest.Length == 0 ? ExprScenario.DefaultSeconds : exprSeconds);
            case "lcgchurn":
                return OptionalInt(scenario, rest, LcgChurnScenario.DefaultRounds, out int lcgRounds) ??
                       LcgChurnScenario.Run(lcgRounds);
            case "alloc":
                return AllocArgs(rest);
            case "json":
                return JsonArgs(rest);
            case "live":
            {
                bool garbage = rest.Length == 2 && rest[1] == "garbage";
                string[] secs = garbage ? rest[..1] : rest;
                return OptionalSeconds(scenario, secs, out double liveSeconds) ??
                       LiveScenario.Run(secs.Length == 0 ? LiveScenario.DefaultSeconds : liveSeconds, garbage);
            }
            case "contention":
                return OptionalSeconds(scenario, rest, out double contentionSeconds) ??
                       ContentionScenario.Run(rest.Length == 0 ? ContentionScenario.DefaultSeconds : contentionSeconds);
            case "nre" when rest.Length >= 2 && rest[0] == "until":
                return OptionalInt(scenario, rest[2..], 4, out int untilThreads) ??
                       SignalScenarios.NreUntil(rest[1], untilThreads);
            case "nre":
                return TwoNumbers(scenario, rest, 2, 4, out double nreSeconds, out int nreThreads) ??
                       SignalScenarios.Nre(nreSeconds, nreThreads);
            case "hotloop":
                return OptionalSeconds(scenario, rest, out double hotSeconds) ??
                       SignalScenarios.HotLoop(rest.Length == 0 ? 2 : hotSeconds);
            case "phases":
                return OptionalSeconds(scenario, rest, out double phaseSeconds) ??
                       PhasesScenario.Run(rest.Length == 0 ? 1 : phaseSeconds);
            case "io":
                return OptionalInt(scenario, rest, 20, out int ioRounds) ?? SignalScenarios.Io(ioRounds);
            case "many":
                return ManyArgs(rest);
            case "unloadburn":
                return OptionalInt(scenario, rest, 20, out int unloadRounds) ?? SignalScenarios.UnloadBurn(unloadRounds);
            case "sigprof":
                return OptionalSeconds(scenario, rest, out double profSeconds) ??
                       SignalScenarios.SigProf(rest.Length == 0 ? 4 : profSeconds);
            case "gcstress":
                return OptionalSeconds(scenario, rest, out double gcSeconds) ??
                       SignalScenarios.GcStress(rest.Length == 0 ? 2 : gcSeconds);
            case "hostile":
                return NoArgs(scenario, rest) ?? HostileScenario.Run();
            case "calls":
                return CallsScenario.Run(rest);
            case "callbench":
                return CallBenchScenario.Run(rest);
            case "ildump":
                return IlShapes.Dump(rest);
            case "ehcases":
                return EhCasesScenario.Run(rest);
            case "ehbench":
                return EhCasesScenario.Bench(rest);
            case "exit":
                return ExitCodeArg(rest, out int code) ?? ProcessScenarios.Exit(code);
            case "echo":
                return NoArgs(scenario, rest) ?? ProcessScenarios.Echo();
            case "raise":
                return SignalArg(rest, out int signal) ?? ProcessScenarios.Raise(signal);
            case "exec" when rest.Length >= 2 && double.TryParse(rest[0], NumberStyles.Float,
                                                                  CultureInfo.InvariantCulture, out double execSeconds):
                return ProcessScenarios.Exec(execSeconds, rest[1..]);

            default:
                Console.Error.WriteLine($"Sample: unknown scenario '{scenario}'");
                Console.Error.WriteLine(UsageText);
                return ExitUsage;
        }
    }

    private static int RunAll()
    {
        int firstChanceBefore = FirstChanceExceptions;
        (string Name, Func<int> Run)[] scenarios =
        [
            ("jit", JitScenario.Run),
            ("generics", GenericsScenario.Run),
            ("threads", ThreadsScenario.Run),
            ("exceptions", () => ExceptionsScenario.Run(ExceptionsScenario.DefaultCount)),
            ("gc", () => GcScenario.Run(GcScenario.DefaultCount)),
            ("collectible", CollectibleScenario.Run),
        ];
        foreach ((string name, Func<int> run) in scenarios)
        {
            Console.WriteLine($"== {name} ==");
            int rc = run();
            if (rc != ExitOk)
            {
                Console.Error.WriteLine($"Sample: scenario '{name}' failed with exit code {rc}");
                return rc;
            }
        }

        int expected = ExceptionsScenario.DefaultCount + ExceptionsScenario.InvalidOperationCount;
        int seen = FirstChanceExceptions - firstChanceBefore;
        if (seen != expected)
        {
            // Diagnostic only (stderr): stdout and the exit code stay the same.
            Console.Error.WriteLine($"Sample: warning: 'all' saw {seen} first-chance exceptions, expected {expected}");
        }
        return ExitOk;
    }

    // Argument helpers: each returns null when the arguments are fine, otherwise the exit code to return.

    // "SECONDS [COUNT]": both optional.
    private static int? TwoNumbers(string scenario, string[] rest, double defaultSeconds, int defaultCount,
                                   out double seconds, out int count)
    {
        seconds = defaultSeconds;
        count = defaultCount;
        if (rest.Length > 2 ||
            (rest.Length >= 1 && (!double.TryParse(rest[0], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) || seconds <= 0)) ||
            (rest.Length == 2 && !int.TryParse(rest[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out count)))
        {
            return UsageError($"scenario '{scenario}' takes [SECONDS [COUNT]]");
        }
        return null;
    }

    // "many [THREADS [SECONDS]]"
    private static int ManyArgs(string[] rest)
    {
        int threads = 200;
        double seconds = 2;
        if (rest.Length > 2 ||
            (rest.Length >= 1 && !int.TryParse(rest[0], NumberStyles.Integer, CultureInfo.InvariantCulture, out threads)) ||
            (rest.Length == 2 && (!double.TryParse(rest[1], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) || seconds <= 0)))
        {
            return UsageError("scenario 'many' takes [THREADS [SECONDS]]");
        }
        return SignalScenarios.Many(threads, seconds);
    }

    private static int? NoArgs(string scenario, string[] rest)
    {
        if (rest.Length == 0)
        {
            return null;
        }
        return UsageError($"scenario '{scenario}' takes no arguments");
    }

    private static int? OptionalInt(string scenario, string[] rest, int defaultValue, out int value)
    {
        value = defaultValue;
        if (rest.Length > 1)
        {
            return UsageError($"scenario '{scenario}' takes at most one argument");
        }
        if (rest.Length == 1 &&
            (!int.TryParse(rest[0], NumberStyles.None, CultureInfo.InvariantCulture, out value) || value > 1_000_000))
        {
            return UsageError($"scenario '{scenario}': expected a count between 0 and 1000000, got '{rest[0]}'");
        }
        return null;
    }

    private static int? OptionalSeconds(string scenario, string[] rest, out double seconds)
    {
        seconds = ProcessScenarios.DefaultSpinSeconds;
        if (rest.Length > 1)
        {
            return UsageError($"scenario '{scenario}' takes at most one argument");
        }
        if (rest.Length == 1 &&
            (!double.TryParse(rest[0], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out seconds) ||
             !(seconds >= 0 && seconds <= 86_400)))
        {
            return UsageError($"scenario '{scenario}': expected a number of seconds, got '{rest[0]}'");
        }
        return null;
    }

    // heap [SECONDS [GROW]]: the known heap, held SECONDS; GROW more HeapLeaf half way through.
    private static int HeapArgs(string[] rest)
    {
        int grow = 0;
        if (rest.Length == 2 &&
            (!int.TryParse(rest[1], NumberStyles.None, CultureInfo.InvariantCulture, out grow) || grow > 1_000_000))
        {
            return UsageError($"scenario 'heap': expected a number of objects to grow by (0 to 1000000), got '{rest[1]}'");
        }
        return OptionalSeconds("heap", rest.Length == 2 ? rest[..1] : rest, out double seconds) ??
               HeapScenario.Run(seconds, grow);
    }

    // heapbench M [SECONDS]: M million objects (0 < M <= 50), held SECONDS (default 30).
    private static int HeapBench(string[] rest)
    {
        double seconds = 30;
        if (rest.Length < 1 || rest.Length > 2 ||
            !double.TryParse(rest[0], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out double millions) ||
            !(millions > 0 && millions <= 50) ||
            (rest.Length == 2 &&
             (!double.TryParse(rest[1], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out seconds) ||
              !(seconds >= 0 && seconds <= 86_400))))
        {
            return UsageError("scenario 'heapbench' takes a number of millions (0 to 50) and optionally seconds");
        }
        return HeapBenchScenario.Run(millions, seconds);
    }

    // "rounds N" (rest[0] is "rounds"): N into rounds, or a usage error naming the scenario.
    private static int? RoundsArg(string scenario, string[] rest, out long rounds)
    {
        rounds = 0;
        if (rest.Length != 2 || rest[0] != "rounds" ||
            !long.TryParse(rest[1], NumberStyles.None, CultureInfo.InvariantCulture, out rounds) ||
            rounds > 1_000_000)
        {
            return UsageError($"scenario '{scenario}' takes 'rounds N' (N from 0 to 1000000)");
        }
        return null;
    }

    // json rounds N: exactly N rounds.
    private static int JsonArgs(string[] rest) => RoundsArg("json", rest, out long rounds) ?? JsonScenario.Run(rounds);

    // alloc [SECONDS | rounds N]: for SECONDS (default 2), or exactly N rounds.
    private static int AllocArgs(string[] rest)
    {
        if (rest.Length > 0 && rest[0] == "rounds")
            return RoundsArg("alloc", rest, out long rounds) ?? AllocScenario.Run(0, rounds);
        return OptionalSeconds("alloc", rest, out double seconds) ??
               AllocScenario.Run(rest.Length == 0 ? AllocScenario.DefaultSeconds : seconds, -1);
    }

    private static int? ExitCodeArg(string[] rest, out int code)
    {
        code = 0;
        if (rest.Length != 1 ||
            !int.TryParse(rest[0], NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out code))
        {
            return UsageError("scenario 'exit' takes exactly one integer argument");
        }
        return null;
    }

    private static int? SignalArg(string[] rest, out int signal)
    {
        signal = 0;
        if (rest.Length != 1 || !int.TryParse(rest[0], NumberStyles.None, CultureInfo.InvariantCulture, out signal) ||
            signal < 1 || signal > 64)
        {
            return UsageError("scenario 'raise' takes one signal number, 1..64");
        }
        return null;
    }

    private static int UsageError(string message)
    {
        Console.Error.WriteLine($"Sample: {message}");
        Console.Error.WriteLine(UsageText);
        return ExitUsage;
    }
}
