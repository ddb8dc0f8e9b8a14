package org.fts.gc.raft;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.fts.gc.Checkpoint;
import org.fts.gc.Epoch;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.jgroups.Address;
import org.jgroups.protocols.raft.RAFT;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a raft member tells its application about epochs, and when its applied entries reach it
 * (docs/group-communication.md, "The raft binding"). After each view, once: an epoch when a leader of a majority is
 * in the view (and again when a later term's leader is), or "not primary" when the view holds no majority of the
 * raft members. Entries applied before the first epoch are held and handed over right after it (an application is
 * current only from its first epoch on), or dropped when that epoch is a gap (a restart without a synced log: the
 * application fetches the state). Views come on JGroups' threads, the leader watch on a timer, entries on RAFT's
 * runner: all under this object's monitor, never the channel's (its join holds that while connect installs views).
 */
final class EpochWatch {
    private static final Logger LOG = LoggerFactory.getLogger(EpochWatch.class);

    private final MemberId self;
    /** The Raft members now: they change through the log (docs/membership.md). */
    private final java.util.function.Supplier<List<String>> raftMembers;
    private final DeliveryPump pump;
    private final List<Object[]> held = new ArrayList<>();
    private boolean opened;
    private boolean restartedInMemory;
    /** A snapshot replaced entries before the first epoch without restoring the application: that epoch is a gap. */
    private boolean skippedBeforeOpen;
    /** Whether the application's state holds the history: false after a gap or a shed, until it calls synced(). */
    private volatile boolean appSynced = true;
    private long reportedView = -1;
    private long reportedTerm = -1;

    EpochWatch(MemberId self, java.util.function.Supplier<List<String>> raftMembers, DeliveryPump pump) {
        this.self = self;
        this.raftMembers = raftMembers;
        this.pump = pump;
    }

    /** Whether this member's first epoch opened (its deliveries then go straight to the pump). */
    synchronized boolean opened() {
        return opened;
    }

    /** A restart without fts.durability=log found a log of its own: its first epoch is a gap. */
    synchronized void restartedInMemory() {
        restartedInMemory = true;
    }

    /** The application installed a state (GroupChannel.synced); one installed before the latest gap is stale. */
    void synced() {
        if (pump.noGapPending()) {
            appSynced = true;
        }
    }

    /** Whether a snapshot read now may hand its state to the application: nothing was handed over or held yet. */
    synchronized boolean mayRestore() {
        return !opened && held.isEmpty() && !restartedInMemory;
    }

    /** The state a restart goes on from (its snapshot's): before any delivery. */
    synchronized void restore(long position, byte[] state) {
        pump.restore(position, state);
    }

    /** A snapshot replaced {@code missed} entries the application did not get: it fetches the state. */
    synchronized void skipped(long missed) {
        if (opened) {
            pump.skipped(missed);
            return;
        }
        held.clear();
        skippedBeforeOpen = true;
    }

    /** A checkpoint at the last entry applied: asked of the application once it is past its first epoch. */
    synchronized void checkpoint(Checkpoint c) {
        if (opened) {
            pump.checkpoint(c);
        } else {
            c.skip("no epoch opened yet");
        }
    }

    /** The pump shed broadcasts: the application's state misses some. */
    void unsynced() {
        appSynced = false;
    }

    /** An applied entry of {@code origin}: held before the first epoch, else queued ({@code replay}: never shed). */
    synchronized void deliver(MemberId origin, byte[] payload, boolean replay) {
        if (!opened) {
            held.add(new Object[] {origin, payload});
        } else if (replay) {
            pump.replay(origin, payload);
        } else {
            pump.broadcast(origin, payload);
        }
    }

    /** Reports what {@code v} and {@code r}'s leadership call for, if not reported yet. */
    synchronized void check(View v, RAFT r) {
        if (v == null || r == null) {
            return;
        }
        List<String> members = raftMembers.get();
        int present = present(v, members);
        int majority = members.size() / 2 + 1;
        if (present < majority) {
            // once per view, and again if this view served until the members changed under it
            if (reportedView != v.id() || reportedTerm != -1) {
                reportedView = v.id();
                reportedTerm = -1;
                pump.notPrimary(v, "the view holds " + present + " of the " + members.size() + " raft members "
                        + members + "; Raft needs " + majority);
            }
            return;
        }
        Address leader = r.leader();
        long term = r.currentTerm();
        MemberId leaderId = leader == null ? null : org.fts.jgroups.AddressBook.name(leader);
        if (leaderId == null || !v.contains(leaderId) || (reportedView == v.id() && reportedTerm >= term)) {
            return;
        }
        reportedView = v.id();
        reportedTerm = term;
        boolean gap = !opened && (restartedInMemory || skippedBeforeOpen);
        if (gap) {
            appSynced = false;
        }
        boolean synced = appSynced;
        pump.epoch(new Epoch(term, leaderId, v.members(), gap, synced, synced || leaderId.equals(self) ? null
                : leaderId));
        if (!opened) {
            opened = true;
            for (Object[] h : gap ? List.<Object[]>of() : held) {
                pump.replay((MemberId) h[0], (byte[]) h[1]);   // in memory already: never shed
            }
            LOG.info("{}: first epoch (term {}, leader {}): {} entries applied before it {}", self, term, leaderId,
                    held.size(), gap ? "dropped (a gap: the state is fetched)" : "handed over");
            held.clear();
        }
    }

    private static int present(View v, List<String> members) {
        Set<String> here = new HashSet<>();
        for (MemberId m : v.members()) {
            if (members.contains(m.replica())) {
                here.add(m.replica());
            }
        }
        return here.size();
    }
}
