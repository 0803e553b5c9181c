package io.jslirp.splice;

import io.jslirp.loop.EventLoop;
import io.jslirp.sys.EventFd;
import io.jslirp.sys.Epoll;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/** An {@link EventLoop} on a thread of its own for a test, taking work from the test's thread. */
public final class LoopThread implements AutoCloseable {
    public final EventLoop loop = new EventLoop();
    private final EventFd wake = new EventFd();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread thread;

    public LoopThread() {
        loop.register(wake.fd(), Epoll.IN, events -> {
            wake.drain();
            Runnable r;
            while ((r = tasks.poll()) != null) r.run();
        });
        thread = Thread.ofPlatform().name("test loop").start(loop::run);
    }

    /** Runs task on the loop and returns its result. */
    public <T> T call(Callable<T> task) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        wake.signal();
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    public void run(Runnable task) throws Exception {
        call(() -> {
            task.run();
            return null;
        });
    }

    @Override
    public void close() throws Exception {
        run(loop::stop);
        thread.join(10_000);
        loop.close();
        wake.close();
    }
}
