package org.fts.goa;

import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
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
        this.name = register(config, stats);
        this.atExit = new Thread(() -> LOG.info("replica {} at exit: {}", config.replicaId(), stats.dump()),
                "fts-stats-dump");
        Runtime.getRuntime().addShutdownHook(atExit);
    }

    private static ObjectName register(GoaConfig config, BatchStats stats) {
        try {
            ObjectName n = new ObjectName("org.fts:type=Batching,group=" + ObjectName.quote(config.group())
                    + ",member=" + ObjectName.quote(config.replicaId()));
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(n)) {
                server.unregisterMBean(n);
            }
            server.registerMBean(stats, n);
            return n;
        } catch (JMException e) {
            LOG.warn("batching stats not registered over JMX: {}", e.toString());
            return null;
        }
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(atExit);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs anyway
        }
        if (name != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            } catch (JMException e) {
                LOG.debug("stats MBean already gone: {}", e.toString());
            }
        }
    }
}
