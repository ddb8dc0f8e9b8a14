package org.fts.goa;

import java.util.stream.Collectors;

import javax.management.ObjectName;

import org.fts.gc.GroupChannel;
import org.fts.gc.View;

/** {@link ReplicaMXBean} over one replica's engine, registered with the platform MBean server until closed. */
final class ReplicaStatus implements ReplicaMXBean, AutoCloseable {
    private final GoaConfig config;
    private final ReplicaEngine engine;
    private final GroupChannel channel;
    private final Membership membership;
    private final Placement placement;
    private final ObjectName name;

    ReplicaStatus(GoaConfig config, ReplicaEngine engine, GroupChannel channel, Membership membership,
                  Placement placement) {
        this.config = config;
        this.placement = placement;
        this.engine = engine;
        this.channel = channel;
        this.membership = membership;
        this.name = Jmx.register(this, "Replica", config.group(), config.replicaId());
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
    public int getConnections() {
        return placement.load().connections();
    }

    @Override
    public long getConnectionsForwarded() {
        return placement.forwarded();
    }

    @Override
    public String getLoad() {
        return placement.describe();
    }

    @Override
    public int getPendingDeliveries() {
        return channel.pendingDeliveries();
    }

    @Override
    public long getPendingDeliveryBytes() {
        return channel.pendingBytes();
    }

    @Override
    public long getFellBehind() {
        return channel.fellBehind();
    }

    @Override
    public void close() {
        Jmx.unregister(name);
    }
}
