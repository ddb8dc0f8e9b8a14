package org.fts.gc.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochPlan.Assignment;
import org.fts.gc.internal.EpochPlan.Decision;
import org.fts.gc.internal.EpochPlan.Link;
import org.fts.gc.internal.EpochPlan.Repair;
import org.fts.gc.internal.EpochPlan.Report;

/**
 * Rules 3 and 4 of {@link EpochPlan}: which history the new epoch continues, and what each member does in it (repaired,
 * cut back and repaired, or a gap with a provider); and which members whose logs are short of their epoch count
 * towards rule 2. Pure.
 */
final class Continuation {
    private Continuation() {
    }

    /**
     * {@code holders}, and the members whose logs are short of their epoch ({@link Report#shortOf}) that the best
     * source among them covers: it holds at least what they do, and its epoch is theirs or later, or theirs continued
     * the source's history beyond what they hold and committed nothing past that (no majority can have opened it, or
     * every member that may have is here, short, and covered: a member acknowledges only what its log holds). Such a
     * member opened nothing after its epoch, and everything it acknowledged is in its log, so it counts towards
     * rule 2. So does one that holds more than the source when the source's history is its own up to the source's end
     * and nothing past that end may be committed ({@link Mend#mayBeCommitted}).
     */
    static List<MemberId> covered(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports,
                                  List<MemberId> holders, MemberId self, Lineage lineage) {
        List<MemberId> out = new ArrayList<>(holders);
        MemberId best = null;
        for (MemberId m : holders) {
            if (best == null || better(reports.get(m), m, reports.get(best), best, self)) {
                best = m;
            }
        }
        if (best == null) {
            return out;
        }
        Report top = reports.get(best);
        for (MemberId m : members) {
            Report r = reports.get(m);
            if (r.shortLog() && r.knowsEpoch() && top.last() >= r.last() && (EpochPlan.rank(top, r) >= 0
                    || Link.common(r, top) >= r.last() && lineage.committedOnlyWhatItsOpenersHold(r, top))) {
                out.add(m);
            } else if (r.shortLog() && r.knowsEpoch() && top.last() < r.last() && Link.common(r, top) >= top.last()
                    && lineage.committedOnlyWhatItsOpenersHold(r, r)
                    && !Mend.mayBeCommitted(config, members, reports, m, top.last() + 1)) {
                // It holds more than the source, but its history is the source's up to the source's end, its epoch
                // committed nothing beyond what its openers hold, and no majority may hold the source's next position:
                // what it holds beyond was never committed (it is cut back to the source's end). Simulator seeds 111,
                // 2150 at 1,000 steps with logs ended not primary for good without this.
                out.add(m);
            }
        }
        return out;
    }

    /**
     * Rules 3 and 4 over {@code holders}: continues the most advanced history among them, which must reach at least
     * {@code need}; every member not of the source's epoch has a gap (or, durable, is cut back and repaired).
     */
    static Decision from(GroupConfig config, boolean durable, List<MemberId> members,
                                 Map<MemberId, Report> reports, List<MemberId> holders, MemberId self, long need) {
        int n = config.groupSize();
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
            if (EpochPlan.rank(r, top) == 0) {   // the same epoch: the same id and the same ballot (ids repeat after a restart)
                continuing.add(m);
                anySynced |= r.synced();
            }
        }
        if (n > 0 && !anySynced) {
            return Decision.notPrimary("no member of the latest epoch " + top.epoch() + " here holds a synced state "
                    + "(those here are still fetching it)");
        }
        if (top.last() < need) {
            return Decision.notPrimary("the history the group continues reaches " + need + ", but no member here "
                    + "holds it beyond " + top.last());
        }
        Map<MemberId, Assignment> assignments = new LinkedHashMap<>();
        List<Repair> repairs = new ArrayList<>();
        Set<MemberId> cont = new HashSet<>(continuing);
        long witness = EpochPlan.witnessFrom(reports, top);
        for (MemberId m : members) {
            boolean gap = !cont.contains(m);
            Report r = reports.get(m);
            // its commit point, but never beyond what it holds: a lagging member may know of a later one
            long from = !gap ? r.last() : r.fresh() ? 0 : Math.min(Math.min(r.commit(), r.last()), top.last());
            long agree = gap && !durable && n > 0 && r.synced() ? Math.min(Lineage.agreesUpTo(r, top), top.last()) : -1;
            if (agree >= 0 && agree >= top.base() && r.delivered() >= 0 && agree >= r.delivered()) {
                // Without a log, a synced member of another epoch whose history is known to be this one's up to some
                // position its state has not passed keeps that state: it is cut back there (as it opens) and repaired,
                // rather than given a gap.
                if (agree < top.last()) {
                    repairs.add(new Repair(source, m, agree, top.last()));
                }
                assignments.put(m, new Assignment(false, null, agree));
                continue;
            }
            if (gap && durable && !r.fresh()) {
                // Cut back where its history is known to be the source's: what it knows committed, or where the
                // lineages part (what it holds after that is in no later history, so was never committed). Never below
                // that: a cut member would not hold what it acknowledged, and an interrupted recovery would then count
                // it as holding its epoch's history with less than it acknowledged.
                from = Math.min(Math.max(from, Math.min(Link.common(r, top), top.last())), r.last());
                if (from < r.last() && !Link.shares(r, top)) {
                    from = -1;   // nothing says where it parts from the source's history: a gap (its log is replaced
                }                // as it opens, not before)
            }
            if (durable && from >= 0 && (from < top.base() || cannotRebuild(r, from, top))) {
                gap = true;   // the source's log no longer holds what it misses: it fetches a state
            } else if (gap && durable && from >= 0 && (r.synced() || r.fresh())
                    && (r.delivered() < 0 || from >= r.delivered())) {
                // Its log rebuilds its state: cut back and repaired. (One that has no state of its own, a gap it had not
                // checkpointed, or whose state is already past the cut, gets a gap: its log restarts here and it fetches
                // the state.)
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
            if (n > 0 && gap && p == null) {
                return Decision.notPrimary(m + " must fetch the group's state, but no other member of the latest epoch "
                        + top.epoch() + " here that holds one can be repaired up to it");
            }
            if (gap && !durable && n > 0 && witness >= 0) {
                repairs.add(new Repair(source, m, witness, top.last()));
                assignments.put(m, new Assignment(true, p, -1, witness));
            } else {
                assignments.put(m, new Assignment(gap, p));
            }
        }
        return new Decision(null, source, false, false, top.last() + 1, assignments, repairs);
    }

    /**
     * Whether {@code r}'s log, cut back at {@code from}, cannot rebuild its state: an entry after that state and up to
     * the cut is damaged, and the source's log no longer holds it (compacted behind the source's checkpoint, so no
     * copy may be left anywhere). The entry is committed (the member's history is the source's up to the cut), so it
     * is in the source's state: the member fetches that state rather than wait for a copy. Found by the simulator at
     * 1,000 steps with logs (seed 19468: r2's entry 16 damaged, the others' logs compacted up to 38 and 46).
     */
    private static boolean cannotRebuild(Report r, long from, Report top) {
        long upTo = Math.min(from, top.base());
        return r.damaged().stream().anyMatch(s -> s.from() <= upTo && s.to() > r.delivered());
    }

    /** Whether {@code a} continues a more advanced history than {@code b}: (epoch, last), then synced, then self. */
    private static boolean better(Report a, MemberId am, Report b, MemberId bm, MemberId self) {
        int c = EpochPlan.rank(a, b);
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
