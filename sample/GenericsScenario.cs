// GenericsScenario.cs: "generics" scenario - generic classes and methods with value-type and reference-type
// instantiations (Box<int>, Box<string>, GenericTargets.Echo<T>), a nested type (Outer.Inner) and a Dictionary<int,string>.
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public sealed class Box<T>
{
    public Box(T value)
    {
        Value = value;
    }

    public T Value { get; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public string Describe() => $"Box<{typeof(T).Name}>({Value})";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public Box<TResult> Map<TResult>(Func<T, TResult> map) => new Box<TResult>(map(Value));
}

public readonly struct Pair<TFirst, TSecond>
{
    public Pair(TFirst first, TSecond second)
    {
        First = first;
        Second = second;
    }

    public TFirst First { get; }
    public TSecond Second { get; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public Pair<TSecond, TFirst> Swap() => new Pair<TSecond, TFirst>(Second, First);

    public override string ToString() => $"({First}, {Second})";
}

public static class GenericTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static T Echo<T>(T value) => value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CountMatching<T>(IEnumerable<T> items, Func<T, bool> predicate)
    {
        int count = 0;
        foreach (T item in items)
        {
            if (predicate(item))
            {
                count++;
            }
        }
        return count;
    }
}

public class Outer
{
    public sealed class Inner
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public string Describe() => "I am ClrProbe.Sample.Outer.Inner";
    }
}

internal static class GenericsScenario
{
    public static int Run()
    {
        var intBox = new Box<int>(42);
        var stringBox = new Box<string>("hello");
        Console.WriteLine($"Box<int>.Describe() = {intBox.Describe()}");
        Console.WriteLine($"Box<string>.Describe() = {stringBox.Describe()}");
        Console.WriteLine($"Box<int>.Map(x => x * 2) = {intBox.Map(x => x * 2).Describe()}");
        Console.WriteLine($"Box<string>.Map(s => s.Length) = {stringBox.Map(s => s.Length).Describe()}");
        Console.WriteLine($"Box<long>(-7).Map(x => x * 3) = {new Box<long>(-7L).Map(x => x * 3).Describe()}");

        Console.WriteLine($"GenericTargets.Echo<int>(7) = {GenericTargets.Echo(7)}");
        Console.WriteLine($"GenericTargets.Echo<string>(\"seven\") = {GenericTargets.Echo("seven")}");
        Console.WriteLine($"GenericTargets.Echo<Pair<int,string>>(...) = {GenericTargets.Echo(new Pair<int, string>(1, "one"))}");
        Console.WriteLine($"Pair<int,string>.Swap() = {new Pair<int, string>(2, "two").Swap()}");

        Console.WriteLine($"Outer.Inner.Describe() = {new Outer.Inner().Describe()}");

        var names = new Dictionary<int, string>
        {
            [3] = "three",
            [1] = "one",
            [4] = "four",
            [5] = "five",
            [9] = "nine",
            [2] = "two",
        };
        Console.WriteLine($"Dictionary<int,string> count = {names.Count}");
        foreach (int key in names.Keys.Order())
        {
            Console.WriteLine($"  [{key}] = {names[key]}");
        }
        Console.WriteLine($"Dictionary<int,string> has 7 = {names.ContainsKey(7)}");
        Console.WriteLine($"CountMatching<int>(keys, odd) = {GenericTargets.CountMatching(names.Keys, k => k % 2 == 1)}");
        Console.WriteLine($"CountMatching<string>(values, len>3) = {GenericTargets.CountMatching(names.Values, v => v.Length > 3)}");
        return Program.ExitOk;
    }
}
