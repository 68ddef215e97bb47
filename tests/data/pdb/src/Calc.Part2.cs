// Calc.Part2.cs - the second file of the partial class (a second document).
namespace PdbLib
{
    public partial class Calc
    {
        public int Twice(int v)
        {
            int r = v + v;
            return r;
        }
    }
}
#if OTHERBUILD
namespace PdbLib
{
    public static class Other
    {
        public static int Extra() { return 1; }
    }
}
#endif
