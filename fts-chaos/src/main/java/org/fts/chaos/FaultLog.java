package org.fts.chaos;

import org.fts.checker.History;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nemesis's record of what it did, each line stamped with seconds since the run's start (the same origin
 * as the {@link History}, so a violation's times can be matched with the faults around it). Thread-safe.
 */
public final class FaultLog {
    private static final Logger LOG = LoggerFactory.getLogger(FaultLog.class);
    private final long origin;
    private final PrintStream echo;
    private final List<String> lines = new ArrayList<>();

    /**
     * @param origin {@code System.nanoTime()} at the run's start
     * @param echo   where to print each line as it happens, or null
     */
    public FaultLog(long origin, PrintStream echo) {
        this.origin = origin;
        this.echo = echo;
    }

    public void record(long nanoTime, String what) {
        String line = String.format(Locale.ROOT, "%9.3fs %s", (nanoTime - origin) / 1e9, what);
        synchronized (this) {
            lines.add(line);
        }
        LOG.info("nemesis {}", line);
        if (echo != null) {
            echo.println("nemesis " + line);
        }
    }

    public synchronized List<String> lines() {
        return List.copyOf(lines);
    }
}
