// CollectibleScenario.cs: "collectible" scenario - (a) loads a second copy of this assembly into a collectible
// AssemblyLoadContext "clrprobe-collectible" and calls ClrProbe.Sample.PluginEntry.Run() by reflection, (b) emits a
// RunAndCollect dynamic assembly "ClrProbe.Sample.Dynamic" and calls its method, then unloads both and waits (bounded)
// until they are really collected, so the profiler sees the module/assembly unload before the process exits.
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;

namespace ClrProbe.Sample;

// Invoked by reflection inside the collectible copy of this assembly. Must not touch any static state.
public static class PluginEntry
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Run()
    {
        Assembly self = typeof(PluginEntry).Assembly;
        string context = AssemblyLoadContext.GetLoadContext(self)?.Name ?? "<none>";
        return $"plugin ran in '{context}' (collectible: {self.IsCollectible}), fib(30) = {JitTargets.ComputeFibonacci(30)}";
    }
}

public static class CollectibleTargets
{
    public const string ContextName = "clrprobe-collectible";
    public const string DynamicAssemblyName = "ClrProbe.Sample.Dynamic";
    public const string DynamicTypeName = "ClrProbe.Sample.Dynamic.Generated";
    public const string DynamicMethodName = "GetAnswer";
    private const int MaxCollectIterations = 200;

    // Loads the plugin copy, runs it, starts unloading, and returns only weak references (context, assembly).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static WeakReference[] LoadAndRunPlugin(string assemblyPath, out string result)
    {
        var context = new AssemblyLoadContext(ContextName, isCollectible: true);
        Assembly assembly = context.LoadFromAssemblyPath(assemblyPath);
        Type? type = assembly.GetType("ClrProbe.Sample.PluginEntry", throwOnError: false);
        MethodInfo? run = type?.GetMethod(nameof(PluginEntry.Run), BindingFlags.Public | BindingFlags.Static);
        result = run?.Invoke(null, null) as string ?? "<PluginEntry.Run not found>";
        var refs = new[] { new WeakReference(context), new WeakReference(assembly) };
        context.Unload();
        return refs;
    }

    // Emits a collectible dynamic assembly with a type whose static method returns a constant, runs it,
    // and returns only weak references (assembly builder, created type).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static WeakReference[] EmitAndRunDynamic(out int result)
    {
        AssemblyBuilder assembly = AssemblyBuilder.DefineDynamicAssembly(
            new AssemblyName(DynamicAssemblyName), AssemblyBuilderAccess.RunAndCollect);
        ModuleBuilder module = assembly.DefineDynamicModule(DynamicAssemblyName);
        TypeBuilder typeBuilder = module.DefineType(
            DynamicTypeName, TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed | TypeAttributes.Class);
        MethodBuilder method = typeBuilder.DefineMethod(
            DynamicMethodName, MethodAttributes.Public | MethodAttributes.Static, typeof(int), Type.EmptyTypes);
        ILGenerator il = method.GetILGenerator();
        il.Emit(OpCodes.Ldc_I4, 42);
        il.Emit(OpCodes.Ret);
        Type created = typeBuilder.CreateType();
        MethodInfo? getAnswer = created.GetMethod(DynamicMethodName, BindingFlags.Public | BindingFlags.Static);
        result = getAnswer?.Invoke(null, null) is int value ? value : -1;
        return [new WeakReference(assembly), new WeakReference(created)];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool WaitUntilCollected(WeakReference[] refs)
    {
        for (int i = 0; i < MaxCollectIterations && refs.Any(r => r.IsAlive); i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        return !refs.Any(r => r.IsAlive);
    }
}

internal static class CollectibleScenario
{
    public static int Run()
    {
        string path = typeof(Program).Assembly.Location;
        WeakReference[] pluginRefs = CollectibleTargets.LoadAndRunPlugin(path, out string pluginResult);
        Console.WriteLine($"PluginEntry.Run() = {pluginResult}");

        WeakReference[] dynamicRefs = CollectibleTargets.EmitAndRunDynamic(out int dynamicResult);
        Console.WriteLine($"{CollectibleTargets.DynamicTypeName}.{CollectibleTargets.DynamicMethodName}() = {dynamicResult}");

        bool unloaded = CollectibleTargets.WaitUntilCollected([.. pluginRefs, .. dynamicRefs]);
        Console.WriteLine($"collectible unloaded: {unloaded}");

        // Give the runtime time to finish the native side of the unload (LoaderAllocator destruction and the
        // profiler's ModuleUnload/AssemblyUnload callbacks) before the process exits.
        Thread.Sleep(200);
        for (int i = 0; i < 3; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        return unloaded ? Program.ExitOk : Program.ExitFailure;
    }
}
