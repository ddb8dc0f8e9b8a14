package org.fts.gc.raft;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.function.Supplier;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.jgroups.Address;
import org.jgroups.protocols.raft.RAFT;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The raft binding's {@link RaftOrderStatsMBean}: read from RAFT when asked; leader changes counted by the binding's
 * leader watch ({@link #watch}, every 20 ms on its timer thread). Registered over JMX as {@code
 * jgroups:type=fts-order,cluster="<group>/<member>"}; a failure to register is logged, never fatal.
 */
final class RaftOrderStats implements RaftOrderStatsMBean {
    private static final Logger LOG = LoggerFactory.getLogger(RaftOrderStats.class);

    private final String self;
    private final Supplier<List<String>> voters;
    private volatile RAFT raft;
    private volatile ObjectName registered;
    /** The leader and term the watch saw last (its thread only). */
    private Address lastLeader;
    private long lastTerm;
    private volatile long recoveries;
    private volatile long suspicions;
    private volatile RaftReads reads;

    RaftOrderStats(String self, Supplier<List<String>> voters) {
        this.self = self;
        this.voters = voters;
    }

    /** Starts reading {@code r} and registers the MBean as {@code <group>/<member>}. */
    void register(RAFT r, String name) {
        raft = r;
        try {
            ObjectName on = new ObjectName("jgroups:type=fts-order,cluster=" + ObjectName.quote(name));
            ManagementFactory.getPlatformMBeanServer().registerMBean(this, on);
            registered = on;
        } catch (Exception e) {
            LOG.warn("{}: the raft binding's figures are not registered over JMX: {}", self, e.toString());
        }
    }

    void unregister() {
        ObjectName on = registered;
        if (on != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(on);
            } catch (Exception e) {
                LOG.debug("{}: raft figures' MBean already gone: {}", self, e.toString());
            }
        }
    }

    /** The leader watch's tick: counts a new leader (or term) and a leader lost. */
    synchronized void watch() {
        RAFT r = raft;
        if (r == null) {
            return;
        }
        Address leader = r.leader();
        long term = r.currentTerm();
        if (leader != null && (!leader.equals(lastLeader) || term != lastTerm)) {
            if (lastLeader != null || lastTerm != 0) {
                recoveries++;
            }
            lastLeader = leader;
            lastTerm = term;
        } else if (leader == null && lastLeader != null) {
            suspicions++;
            lastLeader = null;
        }
    }

    @Override
    public String getOrdering() {
        return "raft";
    }

    @Override
    public String getRole() {
        RAFT r = raft;
        return r == null ? "-" : r.isLeader() ? "leader" : voters.get().contains(r.raftId()) ? "follower" : "learner";
    }

    @Override
    public String getEpoch() {
        return "term " + getTerm();
    }

    @Override
    public long getTerm() {
        RAFT r = raft;
        return r == null ? 0 : r.currentTerm();
    }

    @Override
    public long getHeld() {
        RAFT r = raft;
        return r == null ? 0 : r.lastAppended();
    }

    @Override
    public long getCommitted() {
        RAFT r = raft;
        return r == null ? 0 : r.commitIndex();
    }

    @Override
    public long getDelivered() {
        return getCommitted();   // jgroups-raft applies each entry as it commits it
    }

    @Override
    public String getVoters() {
        return String.join(",", new java.util.TreeSet<>(voters.get()));
    }

    @Override
    public long getRecoveries() {
        return recoveries;
    }

    @Override
    public long getSequencerSuspicions() {
        return suspicions;
    }

    @Override
    public long getReadsConfirmed() {
        RaftReads r = reads;
        return r == null ? 0 : r.confirmedCount();
    }

    @Override
    public long getReadsRefused() {
        RaftReads r = reads;
        return r == null ? 0 : r.refusedCount();
    }

    /** The binding's read barriers, once it has them. */
    void reads(RaftReads r) {
        reads = r;
    }
}
