package org.fts.gc.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;

/**
 * The decision a recovery takes once every member of a view reported (docs/group-communication.md,
 * "Epochs"): whether the view establishes a new epoch of the group's history, from which member's history it
 * continues, and what each member must do. Pure: the same reports give the same plan, in every binding.
 *
 * <p>The rules, in the style of Viewstamped Replication's view change:
 * <ol>
 *   <li><b>Exclusive</b> (N &gt; 0): the view's members hold a majority of the N replicas. Two disjoint views
 *       cannot both hold one.</li>
 *   <li><b>Durable</b> (N &gt; 0): the members that hold a history (not {@code fresh}: they opened an epoch in
 *       this incarnation) hold a majority of the N replicas. Every broadcast delivered under uniform delivery
 *       was held by a majority, so one of them is here. A replica restarted after a crash is fresh: it lost
 *       what its predecessor held. Exceptions: when every member is fresh, they <em>found</em> the group; and
 *       a founding that was interrupted before a majority opened it committed nothing, so the view founds the
 *       group again.</li>
 *   <li><b>Continued</b>: the new epoch continues the most advanced history, the highest (epoch, last) among
 *       the members that hold one (the <em>source</em>). Members of the source's epoch hold a prefix of it
 *       (one sequencer per epoch, FIFO) and are repaired up to it; every other member has a gap.</li>
 *   <li><b>Served</b> (N &gt; 0): some member of the source's epoch holds a synced state, so that members with
 *       a gap can fetch one. Without it the group would be primary yet unable to serve, waiting for ever.</li>
 * </ol>
 */
public final class EpochPlan {
    /**
     * What one member told the recovery: {@code epoch} (null for a fresh member) is the last epoch it opened,
     * {@code founding} whether that epoch founded the group (the history before it is empty) and
     * {@code epochMembers} its membership; {@code last} the last entry of the history it holds; {@code base} the
     * last entry it can no longer give for a repair (0 without a log; with one, compacted behind a checkpoint).
     */
    public record Report(boolean fresh, boolean synced, long ballot, EpochId epoch, boolean founding,
                         List<MemberId> epochMembers, long last, long commit, long base) {
        public Report {
            epochMembers = List.copyOf(epochMembers);
        }

        public Report(boolean fresh, boolean synced, long ballot, EpochId epoch, boolean founding,
                      List<MemberId> epochMembers, long last, long commit) {
            this(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, 0);
        }

        /** A report whose epoch's ballot is its view id (as every ballot is while no member restarted from a log). */
        public Report(boolean fresh, boolean synced, EpochId epoch, boolean founding, List<MemberId> epochMembers,
                      long last) {
            this(fresh, synced, epoch == null ? 0 : epoch.view(), epoch, founding, epochMembers, last, 0, 0);
        }

        boolean holdsHistory() {
            return !fresh && epoch != null;
        }
    }

    /**
     * What one member does in the new epoch: skip to it ({@code gap}), or continue; {@code provider} names a
     * member with a synced state for one whose state is not (null if it is, or if there is none but itself).
     * {@code truncate} (durable members of another epoch than the source's; else -1): the member drops what it
     * holds after that entry (all of it committed, so in the history) and is repaired from there.
     */
    public record Assignment(boolean gap, MemberId provider, long truncate) {
        public Assignment(boolean gap, MemberId provider) {
            this(gap, provider, -1);
        }
    }

    /** A member of the source's epoch that lags: {@code source} sends it entries in ({@code from}, {@code upTo}]. */
    public record Repair(MemberId source, MemberId target, long from, long upTo) {
    }

    /**
     * The outcome: {@code reason} is non-null when the view is not primary. {@code founding}: the view starts
     * the group's history afresh (every member at the initial state; with {@code refounding}, members drop
     * what they hold of a founding that never committed anything).
     */
    public record Decision(String reason, MemberId source, boolean founding, boolean refounding, long start,
                           Map<MemberId, Assignment> assignments, List<Repair> repairs) {
        public boolean established() {
            return reason == null;
        }

        static Decision notPrimary(String reason) {
            return new Decision(reason, null, false, false, 0, Map.of(), List.of());
        }

        static Decision founding(List<MemberId> members, boolean refounding, long start) {
            Map<MemberId, Assignment> all = new LinkedHashMap<>();
            members.forEach(m -> all.put(m, new Assignment(false, null)));
            return new Decision(null, null, true, refounding, start, all, List.of());
        }
    }

    private EpochPlan() {
    }

    /**
     * @param members the view, coordinator first (every one of them reported)
     * @param self    the deciding member (preferred as source among equals: it repairs without a hop)
     */
    public static Decision decide(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports,
                                  MemberId self) {
        return decide(config, false, members, reports, self);
    }

    /**
     * @param durable the members log what they hold ({@code fts.durability=log}): a member of another epoch than
     *                the source's is not given a gap but repaired from its commit point (its own log rebuilds its
     *                application's state), and a fresh one from the start of the history
     */
    public static Decision decide(GroupConfig config, boolean durable, List<MemberId> members,
                                  Map<MemberId, Report> reports, MemberId self) {
        int n = config.groupSize();
        int majority = n / 2 + 1;
        if (n > 0 && GroupConfig.replicas(members) < majority) {
            return Decision.notPrimary("the view holds " + GroupConfig.replicas(members) + " of the " + n
                    + " replicas (fts.group.size); a primary needs " + majority);
        }
        List<MemberId> holders = new ArrayList<>();
        for (MemberId m : members) {
            if (reports.get(m).holdsHistory()) {
                holders.add(m);
            }
        }
        if (holders.isEmpty()) {
            if (durable && members.stream().anyMatch(m -> !reports.get(m).fresh())) {
                // A durable member holds entries it cannot vouch for yet (cut back for repairs from an epoch it has
                // not opened): what it holds up to its commit point is committed, so the group is not founded anew.
                return Decision.notPrimary("no member here holds the latest epoch of the group's history (those "
                        + "here were being repaired when it changed)");
            }
            return Decision.founding(members, false, 1);
        }
        if (n > 0) {
            dropHollowEpochs(members, reports, holders, majority);
        }
        if (n > 0 && GroupConfig.replicas(holders) < majority) {
            if (foundingNeverCommitted(members, reports, holders, majority)) {
                long last = members.stream().mapToLong(m -> reports.get(m).last()).max().orElse(0);
                return Decision.founding(members, true, last + 1);
            }
            return Decision.notPrimary("only " + GroupConfig.replicas(holders) + " of the " + n + " replicas here hold "
                    + "the group's history (restarted replicas lost theirs); a primary needs " + majority);
        }
        MemberId source = null;
        for (MemberId m : holders) {
            if (source == null || better(reports.get(m), m, reports.get(source), source, self)) {
                source = m;
            }
        }
        Report top = reports.get(source);
        List<MemberId> continuing = new ArrayList<>();
        boolean anySynced = false;
        for (MemberId m : holders) {
            Report r = reports.get(m);
            if (rank(r, top) == 0) {   // the same epoch: the same id and the same ballot (ids repeat after a restart)
                continuing.add(m);
                anySynced |= r.synced();
            }
        }
        if (n > 0 && !anySynced) {
            return Decision.notPrimary("no member of the latest epoch " + top.epoch() + " here holds a synced state "
                    + "(those here are still fetching it)");
        }
        Map<MemberId, Assignment> assignments = new LinkedHashMap<>();
        List<Repair> repairs = new ArrayList<>();
        Set<MemberId> cont = new HashSet<>(continuing);
        for (MemberId m : members) {
            boolean gap = !cont.contains(m);
            Report r = reports.get(m);
            // its commit point, but never beyond what it holds: a lagging member may know of a later one
            long from = !gap ? r.last() : r.fresh() ? 0 : Math.min(Math.min(r.commit(), r.last()), top.last());
            if (durable && from < top.base()) {
                gap = true;   // the source's log no longer holds what it misses: it fetches a state
            } else if (gap && durable) {
                if (from < top.last()) {
                    repairs.add(new Repair(source, m, from, top.last()));
                }
                assignments.put(m, new Assignment(false, null, from));
                continue;
            } else if (!gap && from < top.last()) {
                repairs.add(new Repair(source, m, from, top.last()));
            }
            MemberId p = null;
            if (gap || !reports.get(m).synced()) {   // it needs a state: name a member that has one
                p = continuing.stream().filter(c -> !c.equals(m) && reports.get(c).synced()).findFirst().orElse(null);
            }
            assignments.put(m, new Assignment(gap, p));
        }
        return new Decision(null, source, false, false, top.last() + 1, assignments, repairs);
    }

    /**
     * Rule 2's one exception: an interrupted founding. Members that start together found the group, but a view
     * change can reach some of them before the founding epoch opens there; they stay fresh, and the few that
     * did open it would be all the history holders, too few for ever. If the latest epoch here is a founding
     * one and the members that may have opened it (its members, less those here that say they
     * did not) are fewer than a majority, it committed nothing: the history is empty, and the view founds it
     * again. A replica restarted since is another incarnation, so it cannot vouch for its predecessor.
     */
    private static boolean foundingNeverCommitted(List<MemberId> members, Map<MemberId, Report> reports,
                                                  List<MemberId> holders, int majority) {
        Report latest = null;
        for (MemberId m : holders) {
            Report r = reports.get(m);
            if (latest == null || rank(r, latest) > 0) {
                latest = r;
            }
        }
        if (!latest.founding()) {
            return false;
        }
        List<MemberId> mayHaveOpened = new ArrayList<>();
        for (MemberId m : latest.epochMembers()) {
            Report here = members.contains(m) ? reports.get(m) : null;
            boolean didNot = here != null && didNotOpen(here, latest);
            if (!didNot) {
                mayHaveOpened.add(m);
            }
        }
        return GroupConfig.replicas(mayHaveOpened) < majority;
    }

    /**
     * Rule 3's refinement. A member opens an epoch with a gap at once, while the members of its source's epoch
     * wait for their repairs; a view change in between can leave an epoch that only members with a gap opened.
     * They hold nothing of the history before it, and no synced member of it is here to provide it (rule 4), so
     * taken as the most advanced it would keep the group not primary for good. Such an epoch committed nothing if
     * the members that may have opened it (its members, less those here that report an older epoch) are fewer
     * than a majority: neither its tail (committed once a majority opened it) nor what it ordered (once a majority
     * held it). Its reporters then hold no part of the history and are not counted as holders: they skip to the
     * new epoch with a gap. Repeated while the latest epoch left is such a one; never empties the holders.
     */
    private static void dropHollowEpochs(List<MemberId> members, Map<MemberId, Report> reports, List<MemberId> holders,
                                         int majority) {
        while (!holders.isEmpty()) {
            Report top = null;
            for (MemberId m : holders) {
                Report r = reports.get(m);
                top = top == null || rank(r, top) > 0 ? r : top;
            }
            Report latest = top;
            List<MemberId> inTop = holders.stream().filter(m -> rank(reports.get(m), latest) == 0).toList();
            Report any = reports.get(inTop.get(0));
            if (any.founding() || inTop.size() == holders.size()
                    || inTop.stream().anyMatch(m -> reports.get(m).synced())) {
                return;
            }
            List<MemberId> mayHaveOpened = new ArrayList<>();
            for (MemberId m : any.epochMembers()) {
                Report here = members.contains(m) ? reports.get(m) : null;
                boolean didNot = here != null && didNotOpen(here, any);
                if (!didNot) {
                    mayHaveOpened.add(m);
                }
            }
            if (GroupConfig.replicas(mayHaveOpened) >= majority) {
                return;
            }
            holders.removeAll(inTop);
        }
    }

    /**
     * Whether {@code here}'s report shows it did not open {@code latest}'s epoch: it is fresh, or it opened an
     * older one. A member that is neither fresh nor a holder (a durable member cut back and catching up, which
     * reports no epoch) may have opened it: it counts as one that may have.
     */
    private static boolean didNotOpen(Report here, Report latest) {
        return here.holdsHistory() ? rank(here, latest) < 0 : here.fresh();
    }

    /**
     * How the epochs two holders opened compare: by the ballot that established each (a later recovery's ballot is
     * above every ballot its majority promised, as in Paxos), then by epoch id. View ids alone do not order epochs
     * across a whole-group restart: JGroups numbers the views of a group formed again from 1.
     */
    static int rank(Report a, Report b) {
        int c = Long.compare(a.ballot(), b.ballot());
        return c != 0 ? c : a.epoch().compareTo(b.epoch());
    }

    /** Whether {@code a} continues a more advanced history than {@code b}: (epoch, last), then synced, then self. */
    private static boolean better(Report a, MemberId am, Report b, MemberId bm, MemberId self) {
        int c = rank(a, b);
        if (c != 0) {
            return c > 0;
        }
        if (a.last() != b.last()) {
            return a.last() > b.last();
        }
        if (a.synced() != b.synced()) {
            return a.synced();
        }
        return am.equals(self) && !bm.equals(self);
    }
}
