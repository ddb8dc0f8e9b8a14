package org.fts.goa;

import javax.management.ObjectName;

import org.fts.batching.BatchStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's batching statistics, exported over JMX ({@code org.fts:type=Batching,group=…,member=…}) and
 * dumped to the log when the JVM exits, until {@link #close()}.
 */
final class StatsExport implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StatsExport.class);

    private final ObjectName name;
    private final Thread atExit;

    StatsExport(GoaConfig config, BatchStats stats) {
        this.name = Jmx.register(stats, "Batching", config.group(), config.replicaId());
        this.atExit = new Thread(() -> LOG.info("replica {} at exit: {}", config.replicaId(), stats.dump()),
                "fts-stats-dump");
        Runtime.getRuntime().addShutdownHook(atExit);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(atExit);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs anyway
        }
        Jmx.unregister(name);
    }
}
