// LateLines.cs: a loop on a known line of the Late library, whose symbols are embedded in Late.dll (Late.csproj's
// DebugType), for the source-line tests of an embedded PDB (the lines scenario calls it; marker LINES-LATE).
using System.Runtime.CompilerServices;

namespace ClrProbe.Late;

public static class LateLines
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double Spin(int n)
    {
        double x = 2.0;
        for (int i = 0; i < n; i++) { x = x * 1.0000001 + 0.25; } // LINES-LATE
        return x;
    }
}
