// IlShapes.cs: methods of known IL shapes for the IL rewriter's unit tests ("ildump TYPE.METHOD" prints a
// method's body as the compiler wrote it, header and exception sections included: tests/unit/il_fixtures.sh
// turns them into tests/unit/il_fixtures.h), and for tracing them after an attach.
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;

namespace ClrProbe.Sample;

public static class IlShapes
{
    // a tiny header (no locals, under 64 bytes), one ret
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Tiny(int x) => x + 1;

    // short branches and a loop back to the first instruction's neighbourhood, several rets
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Branches(int n)
    {
        if (n < 0)
            return -1;
        int s = 0;
        for (int i = 0; i < n; i++)
        {
            if ((i & 1) == 0)
                s += i;
            else
                s -= 1;
        }
        return s;
    }

    // a long branch: the loop body is longer than 127 bytes
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long LongBranch(long n)
    {
        long a = 1, b = 2, c = 3;
        for (long i = 0; i < n; i++)
        {
            a = a * 6364136223846793005L + 1442695040888963407L;
            b ^= a >> 13; c += b * 31; a ^= c << 7; b += a * 17; c ^= b >> 3;
            a = a * 6364136223846793005L + 1442695040888963407L;
            b ^= a >> 13; c += b * 31; a ^= c << 7; b += a * 17; c ^= b >> 3;
            a = a * 6364136223846793005L + 1442695040888963407L;
            b ^= a >> 13; c += b * 31; a ^= c << 7; b += a * 17; c ^= b >> 3;
        }
        return a ^ b ^ c;
    }

    // a switch
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Switch(int n)
    {
        switch (n)
        {
            case 0: return "zero";
            case 1: return "one";
            case 2: return "two";
            case 3: return "three";
            case 5: return "five";
            default: return n < 0 ? "negative" : "many";
        }
    }

    // nested try/catch/finally and a filter
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Nested(int n)
    {
        int r = 0;
        try
        {
            try
            {
                if (n == 1)
                    throw new InvalidOperationException("one");
                if (n == 2)
                    throw new ArgumentException("two");
                r = 10;
            }
            catch (InvalidOperationException) when (n > 0)
            {
                r = 1;
            }
            finally
            {
                r += 100;
            }
        }
        catch (ArgumentException)
        {
            r = 2;
        }
        return r;
    }

    // a method that only throws
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void OnlyThrows(string what) => throw new InvalidOperationException(what);

    // a void method that returns early
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void VoidEarly(int[] a)
    {
        if (a.Length == 0)
            return;
        a[0]++;
    }

    // a generic method
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static T Pick<T>(bool first, T a, T b) => first ? a : b;

    // an async method (the compiler's state machine: MoveNext holds the body)
    public static async Task<int> AsyncWork(int n)
    {
        await Task.Yield();
        return n * 2;
    }

    private static string TypeName(MetadataReader md, TypeDefinitionHandle h)
    {
        TypeDefinition t = md.GetTypeDefinition(h);
        if (!t.GetDeclaringType().IsNil)
            return TypeName(md, t.GetDeclaringType()) + "+" + md.GetString(t.Name);
        return t.Namespace.IsNil ? md.GetString(t.Name) : md.GetString(t.Namespace) + "." + md.GetString(t.Name);
    }

    // "ildump Type.Method": the raw body of a method of this assembly, as hex
    public static int Dump(string[] rest)
    {
        if (rest.Length != 1 || rest[0].LastIndexOf('.') < 1)
        {
            Console.Error.WriteLine("ildump: give Namespace.Type.Method (nested types as Outer+Inner)");
            return Program.ExitUsage;
        }
        string typeName = rest[0][..rest[0].LastIndexOf('.')], methodName = rest[0][(rest[0].LastIndexOf('.') + 1)..];
        using var stream = File.OpenRead(typeof(IlShapes).Assembly.Location);
        using var pe = new PEReader(stream);
        MetadataReader md = pe.GetMetadataReader();
        foreach (MethodDefinitionHandle h in md.MethodDefinitions)
        {
            MethodDefinition m = md.GetMethodDefinition(h);
            string full = TypeName(md, m.GetDeclaringType());
            if (full != typeName || md.GetString(m.Name) != methodName || m.RelativeVirtualAddress == 0)
                continue;
            MethodBodyBlock body = pe.GetMethodBody(m.RelativeVirtualAddress);
            byte[] raw = pe.GetSectionData(m.RelativeVirtualAddress).GetContent(0, body.Size).ToArray();
            Console.WriteLine(Convert.ToHexString(raw));
            return Program.ExitOk;
        }
        Console.Error.WriteLine($"ildump: no method {rest[0]} with a body");
        return Program.ExitFailure;
    }
}
