package org.fts.gc.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochPlan.Repair;
import org.fts.gc.internal.EpochPlan.Report;
import org.fts.gc.internal.EpochPlan.Span;

/**
 * The step of a recovery that comes before its decision when a member reports damaged entries (a damaged disk,
 * docs/durability.md, "Storage faults"), in the manner of CTRL (Alagappan et al., FAST 2018): a damaged entry exists,
 * so it counts, and it is fetched from a member whose copy verifies; if no member here has one, the group waits unless
 * the entry cannot have been committed, in which case the damaged member cuts its log before it. The decision is
 * taken only once no report shows damage, so that the new epoch never continues a history shorter than what a member
 * acknowledged, and never repairs from a copy that does not verify. Pure.
 */
public final class Mend {
    /**
     * What to do before deciding: {@code repairs} (a supplier sends a damaged member the copies it has),
     * {@code cuts} (a member drops its log after that position: its damaged entry there, and everything after it,
     * was never committed), and {@code waiting}, non-null when some damaged entry may be committed and no member here
     * can give it: the recovery cannot decide until a replica that holds it is here.
     */
    public record Plan(List<Repair> repairs, Map<MemberId, Long> cuts, String waiting) {
    }

    private Mend() {
    }

    /**
     * The plan for {@code reports} before {@code decision} (taken on the reports as they are) is sent, or null if no
     * member needs a damaged entry it holds: the recovery then goes on with the decision. A member needs the damaged
     * entries it keeps in the decision: all of them if it continues (or if the view is not primary: mending them
     * costs nothing), those up to its cut if it is cut back, none if it has a gap.
     */
    public static Plan plan(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports,
                            EpochPlan.Decision decision) {
        List<Repair> repairs = new ArrayList<>();
        Map<MemberId, Long> cuts = new LinkedHashMap<>();
        List<String> waits = new ArrayList<>();
        boolean any = false;
        for (MemberId m : members) {
            Report r = reports.get(m);
            long keep = kept(decision, m, r);
            for (Span s : r.damaged()) {
                if (s.from() > keep) {
                    continue;
                }
                any = true;
                long p = s.from();
                while (p <= Math.min(s.to(), keep)) {
                    MemberId supplier = null;
                    long reach = p - 1;
                    for (MemberId o : members) {
                        long upTo = o.equals(m) ? -1 : suppliesUpTo(reports.get(o), r, p, Math.min(s.to(), keep));
                        if (upTo > reach) {
                            supplier = o;
                            reach = upTo;
                        }
                    }
                    if (supplier == null) {
                        if (mayBeCommitted(config, members, reports, m, p)) {
                            waits.add("entry " + p + " of " + m + "'s log is damaged and no replica here holds a copy that "
                                    + "verifies");
                        } else {
                            cuts.merge(m, p - 1, Math::min);
                        }
                        break;   // a cut drops the rest; a wait decides nothing anyway
                    }
                    repairs.add(new Repair(supplier, m, p - 1, reach));
                    p = reach + 1;
                }
            }
        }
        if (decision.established()) {
            any |= uncertain(config, members, reports, decision, waits);
        }
        if (!any) {
            return null;
        }
        String waiting = waits.isEmpty() ? null : String.join("; ", waits) + ": waiting for a replica that holds it "
                + "(the group is unavailable rather than lose an answered request)";
        return new Plan(repairs, cuts, waiting);
    }

    /**
     * A member whose log may have held entries from {@code X} on that a power loss damaged and its recovery cut
     * ({@link Report#uncertainFrom}) may have acknowledged them. The decision's history ends before its start
     * {@code S}: if {@code X <= S} and entry {@code S} may be committed (that member counted as holding it), the
     * decision would drop a committed entry, so the recovery waits for a replica that holds it. Checking {@code S}
     * suffices: entries {@code X..S-1} are in the decision's history, and a majority that acknowledged an entry after
     * {@code S} acknowledged {@code S} too (acknowledgements are of a prefix). A member the decision gives a gap needs
     * nothing, and neither does one whose epoch is older than the source's: that epoch's recovery saw its log whole (it
     * has opened no epoch since the power loss, or it would have settled it) or formed without it, so what it
     * acknowledged in its own epoch was committed, so in the history, or never was. Other members
     * count by what their logs hold: a power loss damages at most one replica's batch synced last (the fault model),
     * so another's cut tail was a torn write. Adds the waits to {@code waits}; whether it added any.
     */
    private static boolean uncertain(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports,
                                     EpochPlan.Decision decision, List<String> waits) {
        boolean any = false;
        long s = decision.start();
        Report source = decision.source() == null ? null : reports.get(decision.source());
        for (MemberId m : members) {
            Report r = reports.get(m);
            if (r.mayHoldFrom() == Long.MAX_VALUE) {
                continue;
            }
            EpochPlan.Assignment a = decision.assignments().get(m);
            if (r.mayHoldFrom() > s || a == null || a.gap() || decision.founding()) {
                continue;
            }
            if (source != null && source.knowsEpoch() && r.knowsEpoch() && EpochPlan.rank(source, r) > 0) {
                continue;   // a later epoch's history: its recovery saw this log whole, or a majority without it
            }
            if (mayBeCommitted(config, members, reports, m, s)) {
                waits.add(m + "'s log may have held entries from " + r.mayHoldFrom() + " on (a power loss damaged the "
                        + "batch it synced last, or tore a write: it cannot tell) and entry " + s + ", where the new "
                        + "epoch would start, may be committed");
                any = true;
            }
        }
        return any;
    }

    /** The last position of its log that {@code m} keeps in {@code decision}. */
    private static long kept(EpochPlan.Decision decision, MemberId m, Report r) {
        EpochPlan.Assignment a = decision.established() ? decision.assignments().get(m) : null;
        if (a == null) {
            return r.last();
        }
        return a.gap() ? 0 : a.truncate() >= 0 ? a.truncate() : r.last();
    }

    /**
     * Up to where, from {@code p} on (at most {@code to}), {@code o} can give copies of {@code m}'s entries: its log
     * verifies them, and its history is {@code m}'s there: the same epoch; or one continued the other's epoch up to
     * there (lineage); or the member of the older epoch knows the position committed (a later epoch's history holds
     * every entry committed before it, at its position); {@code p - 1} if it cannot give {@code p}.
     */
    static long suppliesUpTo(Report o, Report m, long p, long to) {
        long agree = Math.min(Math.min(o.commit(), o.last()), Math.min(m.commit(), m.last()));
        if (o.knowsEpoch() && m.knowsEpoch()) {
            int c = EpochPlan.rank(o, m);
            Report older = c < 0 ? o : m;
            agree = c == 0 ? Long.MAX_VALUE : Math.max(Math.max(agree, Math.min(older.commit(), older.last())),
                    EpochPlan.Link.common(o, m));
        }
        long q = p - 1;
        while (q < Math.min(to, agree) && o.verifies(q + 1)) {
            q++;
        }
        return q;
    }

    /**
     * Whether {@code here}'s history is known to part from {@code r}'s before {@code p}: their lineages continue a
     * common epoch only up to before {@code p}. Its entry {@code p} is then another epoch's, and it holds none of
     * {@code r}'s: a member's log keeps what it acknowledged, unless a recovery found it never committed (simulator seed
     * 11605 with logs: a replica holding another history's entry at the damaged position was counted as a holder of
     * the damaged one, and the group waited for good for a copy nobody had).
     */
    private static boolean partsBefore(Report here, Report r, long p) {
        if (!here.knowsEpoch() || !r.knowsEpoch()) {
            return false;
        }
        long together = EpochPlan.Link.together(here, r);
        return together >= 0 && together < p;
    }

    /**
     * Whether {@code m}'s entry {@code p} may have been committed: a majority of the replicas may hold it. Any replica
     * may (it may have been repaired up to there in a later epoch), unless its report here says it does not: it is
     * fresh, it holds less than {@code p}, or, for an entry of {@code m}'s epoch's own ({@code p} at or after its
     * start), it reports an older epoch (it never opened that one), or its history parts from {@code m}'s before
     * {@code p}. {@code m} itself may: its copy exists, damaged. Replicas that nobody here speaks for may.
     */
    static boolean mayBeCommitted(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports,
                                  MemberId m, long p) {
        Report r = reports.get(m);
        java.util.Set<String> known = new java.util.HashSet<>();
        java.util.Set<String> may = new java.util.HashSet<>();
        if (config.votes(m)) {
            may.add(m.replica());
        }
        List<MemberId> candidates = new ArrayList<>(r.epochMembers());
        candidates.addAll(members);
        boolean own = r.start() > 0 && p >= r.start();
        for (MemberId x : candidates) {
            if (!config.votes(x)) {
                continue;   // a learner: not one of the N, its copy counts for nothing
            }
            known.add(x.replica());
            if (x.replica().equals(m.replica())) {
                continue;
            }
            Report here = Lineage.speaksFor(x, members, reports, true);
            boolean lacks = here != null && (here.fresh() || here.last() < p
                    || own && here.knowsEpoch() && EpochPlan.rank(here, r) < 0
                    || partsBefore(here, r, p));
            if (!lacks) {
                may.add(x.replica());
            }
        }
        int unknown = Math.max(0, config.groupSize() - known.size());
        return may.size() + unknown >= config.majority(members);
    }
}
