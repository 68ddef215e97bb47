// Calc.cs - the methods tests/unit/test_pdb.c looks up, on known lines.
using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace PdbLib
{
    public partial class Calc
    {
        public static int Add(int a, int b)
        {
            return a + b;
        }

        public static int SumTo(int n)
        {
            int total = 0;
            for (int i = 1; i <= n; i++)
            {
                total += i;
                if (total > 1000)
                    break;
            }
            return total;
        }

        public static int Moved(int x)
        {
            int y = x * 2;
#line 500 "Generated.txt"
            y = y + 1;
            y = y * 3;
#line default
            return y;
        }

        public static async Task<int> LaterAsync(int x)
        {
            await Task.Yield();
            return x + 1;
        }

        public static Func<int, int> MakeAdder(int k)
        {
            return v => v + k;
        }

        public static T First<T>(List<T> items)
        {
            if (items.Count == 0)
                return default(T);
            return items[0];
        }
    }
}
