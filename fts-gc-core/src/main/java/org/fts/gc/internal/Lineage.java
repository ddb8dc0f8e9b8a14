package org.fts.gc.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochPlan.Assignment;
import org.fts.gc.internal.EpochPlan.Decision;
import org.fts.gc.internal.EpochPlan.Repair;
import org.fts.gc.internal.EpochPlan.Report;

/**
 * What a recovery's reports say about epochs that no longer matter: which ones committed nothing, and what an
 * epoch that committed nothing of its own hands back to (docs/group-communication.md, "Epochs"). Used by
 * {@link EpochPlan}; pure.
 */
final class Lineage {
    private final List<MemberId> members;
    private final Map<MemberId, Report> reports;
    private final int majority;
    /** With logs, a replica's disk outlives its incarnations: a later one's report speaks for the earlier ones. */
    private final boolean durable;
    private final int groupSize;
    private final GroupConfig config;

    Lineage(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports, boolean durable) {
        this.config = config;
        this.members = members;
        this.reports = reports;
        this.majority = config.groupSize() / 2 + 1;
        this.durable = durable;
        this.groupSize = config.groupSize();
    }

    /**
     * The report that speaks for epoch member {@code m}: its own, if it is here; with logs, that of the incarnation of
     * its replica that is here (its disk holds what every earlier incarnation made durable, the epoch it opened
     * included: the meta is written before an opening is acknowledged); else null.
     */
    static Report speaksFor(MemberId m, List<MemberId> members, Map<MemberId, Report> reports, boolean durable) {
        if (members.contains(m)) {
            return reports.get(m);
        }
        if (durable) {
            for (MemberId x : members) {
                if (x.replica().equals(m.replica())) {
                    return reports.get(x);
                }
            }
        }
        return null;
    }

    /**
     * Rule 2's one exception: an interrupted founding. Members that start together found the group, but a view
     * change can reach some of them before the founding epoch opens there; they stay fresh, and the few that
     * did open it would be all the history holders, too few for ever. If the latest epoch here is a founding
     * one and the members that may have opened it (its members, less those here that say they
     * did not) are fewer than a majority, it committed nothing: the history is empty, and the view founds it
     * again. A replica restarted since is another incarnation, so it cannot vouch for its predecessor.
     */
    boolean foundingNeverCommitted(List<MemberId> holders) {
        Report latest = top(holders);
        return latest.founding() && config.voters(mayHaveOpened(latest)) < majority;
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
    void dropHollowEpochs(List<MemberId> holders) {
        while (!holders.isEmpty()) {
            Report latest = top(holders);
            List<MemberId> inTop = holders.stream().filter(m -> EpochPlan.rank(reports.get(m), latest) == 0).toList();
            if (latest.founding() || inTop.size() == holders.size()
                    || inTop.stream().anyMatch(m -> reports.get(m).synced())) {
                return;
            }
            if (config.voters(mayHaveOpened(latest)) >= majority) {
                return;
            }
            holders.removeAll(inTop);
        }
    }

    /**
     * The certified path, tried when rules 2-4 fail on the latest epoch E because no member of E here holds a synced
     * state (docs/group-communication.md, "Splicing"). Everything ever committed is in E's history: commits before
     * E's recovery are in the history it continued, and after it they are E's own (held by a majority of E's members,
     * so by one of E's members here unless a majority of replicas lost their memory) or of epochs established after
     * E, which need a majority of replicas that opened them, while every member here that holds a history reports E or
     * an older epoch (the guard: those members are a majority). E's history is assembled from two members: a synced
     * member x whose history is known to be E's up to some t (what x knows committed, or, if x's epoch is in E's
     * lineage, up to where E's history continued it), and whose state is not past t (one at a founding done again is at
     * that founding's start), which gives the state up to t; and the most advanced member of
     * E here, whose log must reach back to t, which gives the entries after it. x's own entries after t were never
     * committed in E's history (E's recovery froze a majority, one of which held every one that was). x is cut back
     * to t and repaired from there; E's members keep their entries and fetch the state from x (with a log, x's log
     * then holds E's history, as a member's log must hold one epoch's).
     *
     * @param holders the members that hold a history (before any hollow epoch was dropped)
     * @return the decision, or null if the path does not apply
     */
    Decision splice(List<MemberId> holders, MemberId self) {
        List<MemberId> knowing = members.stream().filter(m -> reports.get(m).knowsEpoch()).toList();
        if (config.voters(knowing) < majority || holders.isEmpty()) {
            return null;   // an epoch established after the latest one reported here could have committed
        }
        Report latest = top(holders);
        if (knowing.stream().anyMatch(m -> EpochPlan.rank(reports.get(m), latest) > 0
                && !committedOnlyWhatItsOpenersHold(reports.get(m), latest))) {
            // A member here opened a later epoch than E (its log short of it, or cut back by a recovery): it may have
            // committed entries E's history lacks, and what it knows committed is not a position of E's history.
            // Found by the simulator at 1,000 steps with logs (seeds 3263, agreement, and 7448, FIFO). A later epoch
            // that committed nothing beyond what its openers here hold of E's history says nothing E lacks (seed 5750:
            // only its coordinator opened it, its log short of it; the others report older epochs).
            return null;
        }
        List<MemberId> inTop = holders.stream().filter(m -> EpochPlan.rank(reports.get(m), latest) == 0).toList();
        if (latest.founding() || latest.start() <= 0 || inTop.stream().anyMatch(m -> reports.get(m).synced())) {
            return null;
        }
        MemberId src = null;
        for (MemberId m : inTop) {
            if (src == null || reports.get(m).last() > reports.get(src).last()
                    || reports.get(m).last() == reports.get(src).last() && m.equals(self)) {
                src = m;
            }
        }
        Report top = reports.get(src);
        for (MemberId m : knowing) {
            Report r = reports.get(m);
            if (!inTop.contains(m) && EpochPlan.rank(r, latest) == 0 && r.last() > top.last()
                    && Mend.mayBeCommitted(config, members, reports, m, top.last() + 1)) {
                // A member of E here whose log is short of E or was cut back by a recovery it never opened is no
                // holder, yet its log holds E's history beyond the source's end, and a majority may hold the next entry:
                // spliced at the source's end, a committed entry would be lost. Found by the simulator at 1,000 steps
                // with logs and offload ordering (seed 3052, agreement: the only copy here of an answered entry was
                // cut back). The group waits for a member that holds it as a source.
                return null;
            }
        }
        MemberId x = null;
        long t = -1;   // x's history is E's up to t; the logs of E's members give the rest
        for (MemberId m : members) {   // members whose log is short of their epoch too: they hold what they report
            Report r = reports.get(m);
            long upTo = agreesUpTo(r, latest);
            // Its state must not be past t: cut back to t, it delivers E's entries after t on that state (a state at a
            // founding done again is at that founding's start, past positions of E's history it never applied).
            boolean stateNotPast = r.delivered() >= 0 ? r.delivered() <= upTo : durable;
            if (r.synced() && upTo >= 0 && stateNotPast && (upTo > t || upTo == t && m.equals(self))) {
                x = m;
                t = upTo;
            }
        }
        Map<MemberId, Long> agree = new LinkedHashMap<>();   // who can give E's entries, up to where
        for (MemberId m : members) {
            long upTo = inTop.contains(m) ? reports.get(m).last() : agreesUpTo(reports.get(m), latest);
            if (upTo > reports.get(m).base()) {
                agree.put(m, upTo);
            }
        }
        long witness = EpochPlan.witnessFrom(reports, top);
        if (witness >= 0 && witness < top.base()) {
            witness = top.base();
        }
        if (x == null || supply(agree, src, t, top.last(), x) == null
                || witness >= 0 && supply(agree, src, witness, top.last(), x) == null) {
            return null;   // nobody here holds a state of E's history, or no log here reaches back to it
        }
        Map<MemberId, Assignment> assignments = new LinkedHashMap<>();
        List<Repair> repairs = new ArrayList<>();
        for (MemberId m : members) {
            Report r = reports.get(m);
            if (inTop.contains(m)) {
                repairs.addAll(supply(agree, src, r.last(), top.last(), m));
                assignments.put(m, new Assignment(false, x));
            } else if (m.equals(x)) {
                repairs.addAll(supply(agree, src, t, top.last(), m));
                assignments.put(m, new Assignment(false, null, t));
            } else if (durable && agree.getOrDefault(m, -1L) > t && (r.delivered() < 0 || r.delivered() <= t)
                    && supply(agree, src, Math.min(agree.get(m), top.last()), top.last(), m) != null) {
                // With a log, a member whose log holds part of what x is repaired with keeps it, as E's members do: a
                // gap would restart its log, and if this recovery is interrupted before x opened, x's next one needs
                // it. Cut back where its history stops being E's, repaired after, its state fetched from x. Found by
                // the simulator at 1,000 steps with logs (seed 16373: the only copy of 4..8 was dropped so).
                long cut = Math.min(agree.get(m), top.last());
                repairs.addAll(supply(agree, src, cut, top.last(), m));
                assignments.put(m, new Assignment(false, x, cut));
            } else if (!durable && t < top.last() && supply(agree, src, t, top.last(), m, true) != null) {
                // Without a log, a member with a gap keeps a copy of what x is repaired with, from t on (from its own
                // memory where it holds E's history, a repair to itself): it may be the only one that holds part of
                // it, and if this recovery is interrupted after it opened but before x did, x's next one needs it.
                // Found by the simulator at 1,000 steps (seed 2709: the copies of 14..19 were dropped by both).
                repairs.addAll(supply(agree, src, t, top.last(), m, true));
                assignments.put(m, new Assignment(true, x, -1, t));
            } else if (witness >= 0) {
                repairs.addAll(supply(agree, src, witness, top.last(), m));
                assignments.put(m, new Assignment(true, x, -1, witness));
            } else {
                assignments.put(m, new Assignment(true, x));
            }
        }
        return new Decision(null, src, false, false, top.last() + 1, assignments, repairs);
    }

    /**
     * The repairs that bring {@code target} from {@code from} up to {@code to}: ranges, each from one of {@code
     * suppliers} (each with the last position up to which its history is the one continued) whose memory or log
     * still holds it, preferring {@code preferred}; null if some position is held by none of them.
     */
    private List<Repair> supply(Map<MemberId, Long> suppliers, MemberId preferred, long from, long to,
                                MemberId target) {
        return supply(suppliers, preferred, from, to, target, false);
    }

    /** As above; {@code itself}: the target may supply itself (what its memory holds of E's history, kept as a copy). */
    private List<Repair> supply(Map<MemberId, Long> suppliers, MemberId preferred, long from, long to,
                                MemberId target, boolean itself) {
        List<Repair> out = new ArrayList<>();
        long p = from;
        while (p < to) {
            long next = p + 1;
            MemberId best = null;
            long reach = p;
            for (Map.Entry<MemberId, Long> e : suppliers.entrySet()) {
                MemberId s = e.getKey();
                long upTo = e.getValue();
                if ((itself || !s.equals(target)) && reports.get(s).base() < next && upTo >= next
                        && (upTo > reach || upTo == reach && s.equals(preferred))) {
                    best = s;
                    reach = upTo;
                }
            }
            if (best == null) {
                return null;
            }
            long upTo = Math.min(reach, to);
            out.add(new Repair(best, target, p, upTo));
            p = upTo;
        }
        return out;
    }

    /**
     * Up to where {@code r}'s history is {@code e}'s: what it knows committed (every later history holds that), or, if
     * its epoch is in {@code e}'s lineage, up to where {@code e} continued it; -1 if neither says anything. For a
     * member of a later epoch than {@code e}, only the common part of their lineages.
     */
    static long agreesUpTo(Report r, Report e) {
        if (!r.knowsEpoch()) {
            return -1;
        }
        if (EpochPlan.rank(r, e) > 0) {
            return EpochPlan.Link.common(r, e);   // a later epoch's commit point says nothing of e's history
        }
        return Math.max(Math.min(r.commit(), r.last()), EpochPlan.Link.common(r, e));
    }

    /**
     * Whether {@code r}'s epoch (an epoch whose members' logs are short of it) committed nothing beyond what its members
     * hold: fewer than a majority of replicas may have opened it, or every one that may have is here and reports it
     * with a short log whose history {@code top}'s covers (a member acknowledges only what its log holds). And no
     * epoch between them committed anything {@code top}'s history lacks: an epoch of {@code r}'s lineage later than
     * {@code top}'s, continued beyond where the two histories part, committed nothing there of its own (fewer than a
     * majority of replicas may have acknowledged the entry after that point in it). Without that, a later epoch that
     * committed nothing of its own hid an intermediate one that did: found by the simulator at 1,000 steps with logs and
     * offload ordering (seed 9021, agreement: an epoch opened only by its coordinator, its log short of it, continued one
     * that a majority had opened and committed in).
     */
    boolean committedOnlyWhatItsOpenersHold(Report r, Report top) {
        if (r != top && EpochPlan.rank(r, top) > 0) {
            long parted = EpochPlan.Link.common(r, top);
            for (EpochPlan.Link x : r.lineage()) {
                boolean later = x.ballot() != top.ballot() ? x.ballot() > top.ballot()
                        : x.epoch().compareTo(top.epoch()) > 0;
                if (later && x.upTo() > parted && replicasThatMayHaveAcknowledged(x, parted + 1) >= majority) {
                    return false;
                }
            }
        }
        List<MemberId> openers = mayHaveOpened(r);
        if (config.voters(openers) < majority) {
            return true;
        }
        for (MemberId m : openers) {
            Report here = speaksFor(m, members, reports, durable);
            if (here == null || !here.shortLog() || !here.knowsEpoch() || EpochPlan.rank(here, r) != 0
                    || top.last() < here.last() || EpochPlan.Link.common(here, top) < here.last()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code r}, whose log is short of its epoch W (with logs), may be the source of the history after all: no
     * entry after its last can have been committed. W committed nothing beyond what its openers hold, and {@code r}
     * holds the most of them ({@link #committedOnlyWhatItsOpenersHold}); and every older epoch whose entries W
     * continued beyond {@code r}'s last committed nothing there of its own, as fewer than a majority of replicas may
     * have acknowledged the entry after that last in it (acknowledgements are of a prefix). Then what {@code r} holds is a history that holds everything committed: the entries
     * it holds are W's, which continued each of those epochs up to where it says. Not a member a recovery cut back: its
     * marks are that recovery's source's ({@link Report#cutBack}), not its log's, and a source's marks say which
     * broadcasts the history holds (with them, an origin's broadcast dropped by the cut was never sent again). Found by the simulator at 1,000
     * steps with logs (seeds 16811, 12419 and others): every member holding the latest history had its log short of
     * its epoch (a crash between an opening's meta and its prefix's sync), and the group stayed not primary.
     */
    boolean mayContinueShort(Report r) {
        if (!durable || !r.shortLog() || r.cut() || !r.knowsEpoch() || r.founding()
                || !committedOnlyWhatItsOpenersHold(r, r)) {
            return false;
        }
        for (EpochPlan.Link x : r.lineage()) {
            if (x.upTo() <= r.last()) {
                return true;   // it holds the rest of W's history: this epoch's part and every older one's
            }
            if (replicasThatMayHaveAcknowledged(x, r.last() + 1) >= majority) {
                return false;
            }
        }
        return true;
    }

    /**
     * How many replicas may have acknowledged entry {@code p} in the epoch of link {@code x} (its members are not
     * known here: any replica may, unless its report here says it did not: it reports an older epoch or none (fresh),
     * or its log ends before {@code p}, and no power loss left it unsure it held {@code p}; a member acknowledges only
     * what its log holds). None if the epoch's sequencer
     * is here and did not open it.
     */
    private int replicasThatMayHaveAcknowledged(EpochPlan.Link x, long p) {
        Report as = new Report(false, false, x.ballot(), x.epoch(), false, List.of(), 0, 0);
        Report seqHere = speaksFor(x.epoch().sequencer(), members, reports, durable);
        if (seqHere != null && didNotOpen(seqHere, as)) {
            return 0;
        }
        java.util.Set<String> not = new java.util.HashSet<>();
        for (MemberId m : members) {
            Report here = reports.get(m);
            if ((didNotOpen(here, as) || here.last() < p) && here.mayHoldFrom() > p   // after a power loss it may
                    && config.votes(m)) {   // of the N voters, those known not to hold it (a learner is none of them)
                not.add(m.replica());
            }
        }
        return Math.max(0, groupSize - not.size());
    }

    /**
     * The members of {@code latest}'s epoch that may have opened it: less those here that say they did not. None if
     * its sequencer is here and did not open it: only the sequencer counts an epoch's commits (the tail, and what it
     * orders; a follower's shortcut delivers only what the sequencer ordered, so held, in it), so that epoch committed
     * nothing whoever else opened it.
     */
    private List<MemberId> mayHaveOpened(Report latest) {
        MemberId seq = latest.epoch().sequencer();
        Report seqHere = speaksFor(seq, members, reports, durable);
        if (seqHere != null && didNotOpen(seqHere, latest)) {
            return List.of();
        }
        List<MemberId> out = new ArrayList<>();
        for (MemberId m : latest.epochMembers()) {
            Report here = speaksFor(m, members, reports, durable);
            if (here == null || !didNotOpen(here, latest)) {
                out.add(m);
            }
        }
        return out;
    }

    /**
     * Whether {@code here}'s report shows it did not open {@code latest}'s epoch: it is fresh, or it opened an
     * older one (a member whose log is short of its epoch still says which epoch it opened). A member that reports no
     * epoch and is not fresh may have opened it: it counts as one that may have.
     */
    private static boolean didNotOpen(Report here, Report latest) {
        return here.knowsEpoch() ? EpochPlan.rank(here, latest) < 0 : here.fresh();
    }

    /** The report of the latest epoch among {@code holders}. */
    private Report top(List<MemberId> holders) {
        Report latest = null;
        for (MemberId m : holders) {
            Report r = reports.get(m);
            if (latest == null || EpochPlan.rank(r, latest) > 0) {
                latest = r;
            }
        }
        return latest;
    }
}
