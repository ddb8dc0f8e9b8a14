package org.fts.goa;

import org.fts.goa.intake.Membership;
import org.fts.goa.intake.Placement;
import org.fts.goa.intake.Standing;
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
        return getNotServing().isEmpty();
    }

    /**
     * {@link Standing#notServing()}, and one more case: between a view and its epoch, requests are taken (they
     * wait for the epoch) but the view is not known to be primary yet, and the replica may still find that its
     * state misses part of the history. An operator, a health check and a test are told it does not serve yet.
     */
    @Override
    public String getNotServing() {
        Standing standing = engine.standing();
        String why = standing.notServing();
        return why != null ? why : standing.epochOpen() ? "" : "is waiting for its view's epoch to open";
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
    public String getVoters() {
        return channel.voters().toString();
    }

    @Override
    public int getGroupSize() {
        org.fts.gc.Voters voters = channel.voters();
        return voters.n() > 0 ? voters.n() : config.groupSize();
    }

    @Override
    public long getRequestsOrdered() {
        return engine.outcomes().ordered();
    }

    @Override
    public long getRequestsAnsweredFromCache() {
        return engine.outcomes().fromCache();
    }

    @Override
    public long getRequestsTimedOut() {
        return engine.outcomes().timedOut();
    }

    @Override
    public long getRequestsRefusedNotServing() {
        return engine.outcomes().notServing();
    }

    @Override
    public long getRequestsRefusedNoObject() {
        return engine.outcomes().noObject();
    }

    @Override
    public long getRequestsRefusedTooLarge() {
        return engine.outcomes().tooLarge();
    }

    @Override
    public long getRequestsRefusedMalformed() {
        return engine.outcomes().malformed();
    }

    @Override
    public int getWireVersion() {
        return engine.wireVersion();
    }

    @Override
    public int getWireVersionSent() {
        return engine.batcher().speaking();
    }

    @Override
    public String getWireVersions() {
        return org.fts.gc.WireVersion.lowest() + "-" + org.fts.gc.WireVersion.highest();
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
    public long getReplyCacheEarlyEvictions() {
        return engine.cache().earlyEvictions();
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
    public String getPlacement() {
        return placement.figures().mode();
    }

    @Override
    public long getPlacementInFlight() {
        return placement.figures().inFlight();
    }

    @Override
    public long getCpuPermille() {
        return placement.figures().cpuPermille();
    }

    @Override
    public long getFixedPermille() {
        return placement.figures().fixedPermille();
    }

    @Override
    public boolean isPlacementServing() {
        return placement.figures().serving();
    }

    @Override
    public int getServingReplicas() {
        return placement.figures().servingReplicas();
    }

    @Override
    public java.util.Map<String, Long> getBoard() {
        return placement.figures().board();
    }

    @Override
    public java.util.Map<String, Long> getExtraWork() {
        return placement.figures().extra();
    }

    @Override
    public int getPendingDeliveries() {
        return channel.diagnostics().pendingDeliveries();
    }

    @Override
    public long getPendingDeliveryBytes() {
        return channel.diagnostics().pendingBytes();
    }

    @Override
    public long getFellBehind() {
        return channel.diagnostics().fellBehind();
    }

    @Override
    public long getReadsLocal() {
        return engine.readCounts()[0];
    }

    /** One of the log's figures, or -1 without a log. */
    private long log(java.util.function.ToLongFunction<org.fts.gc.LogFigures> figure) {
        org.fts.gc.LogFigures f = channel.diagnostics().logFigures();
        return f == null ? -1 : figure.applyAsLong(f);
    }

    @Override
    public long getLogSyncs() {
        return log(org.fts.gc.LogFigures::syncs);
    }

    @Override
    public double getLogRecordsPerSync() {
        org.fts.gc.LogFigures f = channel.diagnostics().logFigures();
        return f == null ? -1 : f.recordsPerSync();
    }

    @Override
    public long getLogSyncP50Micros() {
        return log(org.fts.gc.LogFigures::p50Micros);
    }

    @Override
    public long getLogSyncP99Micros() {
        return log(org.fts.gc.LogFigures::p99Micros);
    }

    @Override
    public long getLogDiskBytes() {
        return log(org.fts.gc.LogFigures::diskBytes);
    }

    @Override
    public long getReadsOrdered() {
        return engine.readCounts()[1];
    }

    /**
     * This replica's fields for {@code fts status} ({@link GroupChannel#exposeStatus}): identity, whether it
     * serves, its view as the adaptor sees it, the configured group size, reply cache, log, state digest and load.
     * The digest is a snapshot of the whole state taken between two executions: it is taken at most once every
     * {@value #DIGEST_REFRESH_MS} ms however often operators ask (a health check every second costs no more), and
     * waits at most {@value #DIGEST_WAIT_MS} ms for its cut ({@code busy} otherwise).
     */
    java.util.Map<String, String> fields() {
        java.util.Map<String, String> f = new java.util.LinkedHashMap<>();
        f.put("id", config.replicaId());
        f.put("group", config.group());
        f.put("serving", isServing() ? "yes" : "no: " + getNotServing());
        f.put("primary", Boolean.toString(isPrimary()));
        f.put("members", channel.view() == null ? "" : channel.view().members().stream()
                .map(m -> m.name().split("#")[0]).collect(Collectors.joining(",")));
        org.fts.gc.Voters voters = channel.voters();   // the binding's now: they may change (docs/membership.md)
        f.put("size", Integer.toString(getGroupSize()));   // N: the voters' number
        f.put("voter", voters.votes(config.replicaId()) ? "yes" : "no");
        f.put("voters", voters.toString());
        f.put("group_version", Long.toString(getGroupVersion()));
        f.put("wire", Integer.toString(getWireVersion()));
        f.put("wire_speaks", getWireVersions());
        f.put("wire_sent", Integer.toString(getWireVersionSent()));
        f.put("reply_cache", Integer.toString(getReplyCacheSize()));
        org.fts.gc.LogFigures log = channel.diagnostics().logFigures();
        f.put("log", log == null ? "-" : log.format());
        f.put("digest", digest());
        f.put("load", placement.describe());
        f.put("reads", "local=" + getReadsLocal() + " ordered=" + getReadsOrdered());
        return f;
    }

    private static final long DIGEST_WAIT_MS = 1000;
    private static final long DIGEST_REFRESH_MS = 5000;
    private String digest;
    private long digestAtNanos;

    private synchronized String digest() {
        long now = System.nanoTime();
        if (digest == null || now - digestAtNanos > DIGEST_REFRESH_MS * 1_000_000) {
            try {
                digest = engine.stateDigest(DIGEST_WAIT_MS);
            } catch (Exception e) {
                return "busy";
            }
            digestAtNanos = now;
        }
        return digest;
    }

    @Override
    public void close() {
        Jmx.unregister(name);
    }
}
