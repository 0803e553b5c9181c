package io.jslirp.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Samples a process's VmRSS and open descriptors every 200 ms in a daemon thread, keeping the peaks. */
final class ProcessMonitor implements AutoCloseable {
    record Sample(long rssKib, int fds) {}

    private final long pid;
    private final Thread thread;
    private volatile boolean running = true;
    private long peakRss;
    private int peakFds;

    ProcessMonitor(long pid) {
        this.pid = pid;
        this.thread = Thread.ofPlatform().daemon().name("process-monitor-" + pid).start(() -> {
            while (running) {
                sampleNow();
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** Takes one sample (also counted in the peaks); zeros once the process is gone. */
    synchronized Sample sampleNow() {
        long rss = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) rss = Long.parseLong(line.replaceAll("\\D", ""));
            }
        } catch (IOException e) {
            return new Sample(0, 0);
        }
        String[] fds = new java.io.File("/proc/" + pid + "/fd").list();
        int n = fds == null ? 0 : fds.length;
        peakRss = Math.max(peakRss, rss);
        peakFds = Math.max(peakFds, n);
        return new Sample(rss, n);
    }

    synchronized Sample peak() {
        return new Sample(peakRss, peakFds);
    }

    synchronized int peakFds() {
        return peakFds;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
