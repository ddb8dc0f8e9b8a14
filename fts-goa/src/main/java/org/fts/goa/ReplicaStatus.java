package org.fts.goa;

import java.lang.management.ManagementFactory;
import java.util.stream.Collectors;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.fts.gc.GroupChannel;
import org.fts.gc.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link ReplicaMXBean} over one replica's engine, registered with the platform MBean server until closed. */
final class ReplicaStatus implements ReplicaMXBean, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaStatus.class);

    private final GoaConfig config;
    private final ReplicaEngine engine;
    private final GroupChannel channel;
    private final Membership membership;
    private final ObjectName name;

    ReplicaStatus(GoaConfig config, ReplicaEngine engine, GroupChannel channel, Membership membership) {
        this.config = config;
        this.engine = engine;
        this.channel = channel;
        this.membership = membership;
        this.name = register();
    }

    /** The name this replica's bean has, for {@code group} and {@code replicaId}. */
    static ObjectName objectName(String group, String replicaId) throws JMException {
        return new ObjectName("org.fts:type=Replica,group=" + ObjectName.quote(group) + ",member="
                + ObjectName.quote(replicaId));
    }

    private ObjectName register() {
        try {
            ObjectName n = objectName(config.group(), config.replicaId());
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(n)) {
                server.unregisterMBean(n);
            }
            server.registerMBean(this, n);
            return n;
        } catch (JMException e) {
            LOG.warn("replica state not registered over JMX: {}", e.toString());
            return null;
        }
    }

    @Override
    public String getReplicaId() {
        return config.replicaId();
    }

    @Override
    public String getGroup() {
        return config.group();
    }

    @Override
    public boolean isServing() {
        return engine.standing().notServing() == null;
    }

    @Override
    public String getNotServing() {
        String why = engine.standing().notServing();
        return why == null ? "" : why;
    }

    @Override
    public boolean isPrimary() {
        return engine.standing().epochOpen();
    }

    @Override
    public String getView() {
        View v = channel.view();
        return v == null ? "" : v.members().stream().map(m -> m.name()).collect(Collectors.joining(","));
    }

    @Override
    public long getGroupVersion() {
        return membership.current().version();
    }

    @Override
    public int getReplyCacheSize() {
        return engine.cache().size();
    }

    @Override
    public long getStateTransfersInstalled() {
        return engine.transfer().installs();
    }

    @Override
    public long getStateTransfersProvided() {
        return engine.transfer().provided();
    }

    @Override
    public int getRequestsInFlight() {
        return engine.castPath().inFlight();
    }

    @Override
    public int getPendingDeliveries() {
        return channel.pendingDeliveries();
    }

    @Override
    public void close() {
        if (name != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            } catch (JMException e) {
                LOG.debug("replica MBean already gone: {}", e.toString());
            }
        }
    }
}
