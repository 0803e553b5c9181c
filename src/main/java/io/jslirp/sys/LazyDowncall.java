package io.jslirp.sys;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A downcall linked on its first call, or ahead of it by {@link Prelink}: its invoker calls a call
 * site whose target links the downcall and then becomes the downcall itself.
 */
final class LazyDowncall {
    /** Every lazy downcall by C function name, for {@link Prelink}. */
    private static final Map<String, List<LazyDowncall>> BY_NAME = new ConcurrentHashMap<>();
    private static final MethodHandle LINK;
    static {
        try {
            LINK = MethodHandles.lookup().findVirtual(LazyDowncall.class, "link", MethodType.methodType(MethodHandle.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MutableCallSite site;
    private final Supplier<MethodHandle> linker;
    private MethodHandle linked;

    LazyDowncall(String name, MethodType type, Supplier<MethodHandle> linker) {
        this.linker = linker;
        this.site = new MutableCallSite(type);
        site.setTarget(MethodHandles.foldArguments(MethodHandles.exactInvoker(type), LINK.bindTo(this)));
        List<LazyDowncall> named = BY_NAME.computeIfAbsent(name, n -> new ArrayList<>());
        synchronized (named) {
            named.add(this);
        }
    }

    MethodHandle invoker() {
        return site.dynamicInvoker();
    }

    /** Links the downcall once (a second thread waits for the first) and makes it the site's target. */
    synchronized MethodHandle link() {
        if (linked == null) {
            linked = linker.get();
            site.setTarget(linked);
        }
        return linked;
    }

    /** Links the downcalls of C function name made so far. */
    static void link(String name) {
        List<LazyDowncall> all = BY_NAME.get(name);
        if (all == null) return;
        List<LazyDowncall> copy;
        synchronized (all) {
            copy = List.copyOf(all);
        }
        copy.forEach(LazyDowncall::link);
    }
}
