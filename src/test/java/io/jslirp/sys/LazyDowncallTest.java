package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A lazily linked downcall: linked once however many threads call it first, then called directly. */
class LazyDowncallTest {
    private static final FunctionDescriptor GETPID = FunctionDescriptor.of(ValueLayout.JAVA_INT);

    @Test
    void linkedOnceByTheFirstCallersThenCalled() throws Exception {
        AtomicInteger links = new AtomicInteger();
        MethodHandle getpid = new LazyDowncall("test_getpid", GETPID.toMethodType(), () -> {
            links.incrementAndGet();
            return Linker.nativeLinker().downcallHandle(Native.find("getpid"), GETPID);
        }).invoker();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        List<Integer> pids = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 8; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    for (int j = 0; j < 1000; j++) pids.add((int) getpid.invokeExact());
                } catch (Throwable t) {
                    throw new AssertionError(t);
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) t.join();
        assertThat(links.get()).isEqualTo(1);
        assertThat(pids).hasSize(8000).containsOnly((int) ProcessHandle.current().pid());
    }

    @Test
    void prelinkingByNameLinksBeforeTheFirstCall() throws Throwable {
        AtomicInteger links = new AtomicInteger();
        MethodHandle getpid = new LazyDowncall("test_getpid_prelinked", GETPID.toMethodType(), () -> {
            links.incrementAndGet();
            return Linker.nativeLinker().downcallHandle(Native.find("getpid"), GETPID);
        }).invoker();
        LazyDowncall.link("test_getpid_prelinked");
        assertThat(links.get()).isEqualTo(1);
        assertThat((int) getpid.invokeExact()).isEqualTo((int) ProcessHandle.current().pid());
        assertThat(links.get()).isEqualTo(1);
    }
}
