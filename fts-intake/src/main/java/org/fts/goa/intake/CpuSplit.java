package org.fts.goa.intake;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This process's CPU, split into what its client connections cost it and the rest (docs/placement.md). A
 * connection's work runs on JacORB's threads: its reader ({@code ServerMessageReceptor}), the POA's dispatch ({@code
 * RequestController}) and the request threads ({@code RequestProcessor}), where FTS checks, captures and casts each
 * request and writes its reply. Everything else (executing every request, ordering, the group's protocol, the
 * collector and the compiler) the replica does whichever connections it carries. Not thread-safe: one caller (the
 * load sampler).
 */
public final class CpuSplit {
    /** Thread name prefixes of JacORB's server-side connection and request threads (JacORB 3.9). */
    private static final List<String> CONNECTION_THREADS = List.of("ServerMessageReceptor", "RequestProcessor",
            "RequestController", "fts-iiop-");   // the last: the adaptor's own listener (docs/frontend.md)

    /** CPU over the interval since the previous {@link #sample}, in thousandths of a core. */
    record Sample(long total, long connections) {
    }

    private final com.sun.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean b ? b : null;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final boolean perThread;
    private Map<Long, Long> connectionThreads = new HashMap<>();
    private long processNanos = -1;
    private long atNanos;

    /** @param perThread whether to split at all (each sample then reads every thread's CPU time) */
    CpuSplit(boolean perThread) {
        this.perThread = perThread && threads.isThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled();
    }

    /** The CPU used since the previous call (zeros on the first, or where the JVM does not say). */
    Sample sample() {
        long now = System.nanoTime();
        long process = os == null ? -1 : os.getProcessCpuTime();
        long connections = connectionNanos();
        long wall = now - atNanos;
        Sample s = processNanos < 0 || process < 0 || wall <= 0 ? new Sample(0, 0)
                : new Sample(Math.max(0, (process - processNanos) * 1000 / wall), connections * 1000 / wall);
        processNanos = process;
        atNanos = now;
        return s;
    }

    /** CPU time the connection threads used since the previous call (a thread that ended takes its last share). */
    private long connectionNanos() {
        if (!perThread) {
            return 0;
        }
        Map<Long, Long> now = new HashMap<>();
        long used = 0;
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t == null || CONNECTION_THREADS.stream().noneMatch(t.getThreadName()::startsWith)) {
                continue;
            }
            long cpu = threads.getThreadCpuTime(t.getThreadId());
            if (cpu < 0) {
                continue;
            }
            now.put(t.getThreadId(), cpu);
            Long before = connectionThreads.get(t.getThreadId());
            used += before == null ? 0 : Math.max(0, cpu - before);
        }
        connectionThreads = now;
        return used;
    }
}
