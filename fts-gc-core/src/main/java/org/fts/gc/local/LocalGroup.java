package org.fts.gc.local;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.gc.GroupException;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.EpochId;
import org.fts.gc.internal.EpochPlan;

/**
 * One group on a {@link LocalNetwork}: its partitions and their sequencers. Every state change and every
 * broadcast happens under this object's monitor, which is what makes the order total within a partition:
 * a broadcast is appended to all members' queues (non-blocking) before the next one is. Every view change
 * runs the same recovery decision as the JGroups binding ({@link EpochPlan}); a partition whose view is not
 * primary holds its members' broadcasts until a primary epoch opens for them.
 */
final class LocalGroup {
    /** One connected component: members in view order (coordinator first), its view, its open epoch. */
    private static final class Partition {
        final List<LocalChannel> members = new ArrayList<>();
        long viewId;
        EpochId epoch;   // null while the view is not primary
        long gseq;

        List<MemberId> ids() {
            return members.stream().map(LocalChannel::self).toList();
        }
    }

    private final String name;
    private final List<Partition> partitions = new ArrayList<>();
    private long lastViewId;
    private GroupConfig config;

    LocalGroup(String name) {
        this.name = name;
    }

    synchronized void join(LocalChannel joiner) {
        if (config == null) {
            config = joiner.config();
        } else if (!config.equals(joiner.config())) {
            throw new GroupException(joiner.self() + " is configured with " + joiner.config() + " but group " + name
                    + " with " + config);
        }
        for (Partition p : partitions) {
            for (LocalChannel m : p.members) {
                if (m.self().equals(joiner.self())) {
                    throw new GroupException("member " + joiner.self() + " is already in group " + name);
                }
            }
        }
        if (partitions.isEmpty()) {
            partitions.add(new Partition());
        }
        Partition p = partitions.get(0);
        p.members.add(joiner);
        installView(p, List.of());
    }

    /** Leave (graceful) or crash: either way the member vanishes from its partition's next view. */
    synchronized void remove(MemberId member, boolean crash) {
        for (Partition p : partitions) {
            for (LocalChannel m : p.members) {
                if (m.self().equals(member)) {
                    p.members.remove(m);
                    m.detach();
                    if (p.members.isEmpty()) {
                        partitions.remove(p);
                    } else {
                        installView(p, List.of());
                    }
                    return;
                }
            }
        }
        if (crash) {
            throw new GroupException("no member " + member + " in group " + name);
        }
    }

    /** The sequencer: orders {@code payload} for every member of the sender's partition, or holds it. */
    synchronized void abcast(LocalChannel sender, byte[] payload) {
        Partition p = partitionOf(sender);
        if (p.epoch == null) {
            sender.hold(payload);   // no primary epoch: ordered once one opens for this member
            return;
        }
        order(p, sender.self(), payload);
    }

    private void order(Partition p, MemberId sender, byte[] payload) {
        p.gseq++;
        for (LocalChannel m : p.members) {
            m.enqueueBroadcast(sender, payload.clone(), p.gseq);
        }
    }

    /**
     * A read barrier at {@code member}: in a primary partition every broadcast ordered so far is already queued at
     * each of its members, so a task queued now runs after them; no other partition delivers meanwhile.
     */
    synchronized void readBarrier(LocalChannel member, org.fts.gc.ReadBarrier barrier) {
        Partition p = partitionOf(member);
        if (!config.uniform()) {
            member.enqueueTask(() -> barrier.refused("fts.delivery=agreed: reads are ordered"));
        } else if (p.epoch == null) {
            member.enqueueTask(() -> barrier.refused("its view is not primary"));
        } else {
            member.enqueueTask(barrier::ready);
        }
    }

    synchronized void send(LocalChannel sender, MemberId to, byte[] payload) {
        Partition p = partitionOf(sender);
        for (LocalChannel m : p.members) {
            if (m.self().equals(to)) {
                m.enqueueDirect(sender.self(), payload.clone());
                return;
            }
        }
        throw new GroupException(to + " is not in the current view of " + sender.self());
    }

    /** The whiteboard: {@code writer}'s entry reaches every member of its partition at once. */
    synchronized void publish(LocalChannel writer) {
        spread(partitionOf(writer), writer);
    }

    private static void spread(Partition p, LocalChannel writer) {
        org.fts.gc.internal.Board.Item own = writer.board().own();
        for (LocalChannel m : p.members) {
            if (own != null && m != writer) {
                m.board().merge(List.of(own), false);
            }
        }
    }

    synchronized void synced(LocalChannel member) {
        member.markSynced();
    }

    synchronized void partition(List<Set<MemberId>> sides) {
        List<LocalChannel> all = new ArrayList<>();
        partitions.forEach(p -> all.addAll(p.members));
        Set<MemberId> named = new HashSet<>();
        List<Partition> next = new ArrayList<>();
        for (Set<MemberId> side : sides) {
            Partition np = new Partition();
            for (LocalChannel m : all) {
                if (side.contains(m.self())) {
                    if (!named.add(m.self())) {
                        throw new GroupException(m.self() + " is named in two sides");
                    }
                    np.members.add(m);
                }
            }
            if (!np.members.isEmpty()) {
                next.add(np);
            }
        }
        Partition rest = new Partition();
        all.stream().filter(m -> !named.contains(m.self())).forEach(rest.members::add);
        if (!rest.members.isEmpty()) {
            next.add(rest);
        }
        partitions.clear();
        partitions.addAll(next);
        partitions.forEach(p -> installView(p, List.of()));
    }

    synchronized void heal() {
        if (partitions.size() < 2) {
            return;
        }
        // The largest side leads the merged view (ties: the side whose coordinator sorts first).
        partitions.sort(Comparator.comparingInt((Partition p) -> -p.members.size())
                .thenComparing(p -> p.members.get(0).self()));
        List<List<MemberId>> subgroups = partitions.stream().map(Partition::ids).toList();
        Partition merged = new Partition();
        partitions.forEach(p -> merged.members.addAll(p.members));
        partitions.clear();
        partitions.add(merged);
        installView(merged, subgroups);
    }

    private Partition partitionOf(LocalChannel member) {
        for (Partition p : partitions) {
            if (p.members.contains(member)) {
                return p;
            }
        }
        throw new GroupException(member.self() + " is not a member of group " + name);
    }

    /** A new view, then at once its recovery: every member reports, and the same decision as JGroups'. */
    private void installView(Partition p, List<List<MemberId>> subgroups) {
        p.viewId = ++lastViewId;
        List<MemberId> ids = p.ids();
        for (LocalChannel m : p.members) {
            m.enqueueView(new View(p.viewId, ids, m.self(), subgroups));
        }
        for (LocalChannel m : p.members) {
            spread(p, m);   // a joiner learns everyone's whiteboard entry
        }
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        for (LocalChannel m : p.members) {
            reports.put(m.self(), m.report());
        }
        EpochPlan.Decision d = EpochPlan.decide(config, ids, reports, ids.get(0));
        if (!d.established()) {
            p.epoch = null;
            for (LocalChannel m : p.members) {
                m.enqueueNotPrimary(d.reason());
            }
            return;
        }
        p.epoch = new EpochId(p.viewId, ids.get(0));
        p.gseq = d.start() - 1;
        for (LocalChannel m : p.members) {
            EpochPlan.Assignment a = d.assignments().get(m.self());
            // Members of one partition deliver alike: a member of the source's epoch never lags behind it here;
            // and a founding started again keeps only members that delivered nothing.
            boolean gap = d.refounding() ? m.report().last() > 0 : a.gap() || m.report().last() != d.start() - 1;
            boolean synced = !gap && (d.founding() || m.report().synced());
            m.open(new Epoch(p.viewId, ids.get(0), ids, gap, synced, synced ? null : a.provider()), p.epoch, d.start() - 1,
                    d.founding());
        }
        for (LocalChannel m : p.members) {
            for (byte[] payload : m.takeHeld()) {
                order(p, m.self(), payload);
            }
        }
    }
}
