// LateTargets.cs: the method of the Late library (its own module, loaded the first time the sample needs it).
namespace ClrProbe.Late;

public static class LateTargets
{
    public static int Work(int x) => x * 7 + 3;
}
