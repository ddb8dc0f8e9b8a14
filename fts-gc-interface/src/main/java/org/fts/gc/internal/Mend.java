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

    /** The plan for {@code reports}, or null if no member reports damage (the recovery decides at once). */
    public static Plan plan(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports) {
        List<Repair> repairs = new ArrayList<>();
        Map<MemberId, Long> cuts = new LinkedHashMap<>();
        List<String> waits = new ArrayList<>();
        boolean any = false;
        for (MemberId m : members) {
            Report r = reports.get(m);
            for (Span s : r.damaged()) {
                any = true;
                long p = s.from();
                while (p <= s.to()) {
                    MemberId supplier = null;
                    long reach = p - 1;
                    for (MemberId o : members) {
                        long upTo = o.equals(m) ? -1 : suppliesUpTo(reports.get(o), r, p, s.to());
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
        if (!any) {
            return null;
        }
        String waiting = waits.isEmpty() ? null : String.join("; ", waits) + ": waiting for a replica that holds it "
                + "(the group is unavailable rather than lose an answered request)";
        return new Plan(repairs, cuts, waiting);
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
     * Whether {@code m}'s entry {@code p} may have been committed: a majority of the replicas may hold it. Members
     * here that hold less than {@code p}, and, for an entry of {@code m}'s epoch's own ({@code p} at or after its start),
     * members here of an older epoch, do not; every other member of that epoch, here or not, every other member here,
     * and {@code m} itself (its copy exists, only damaged), may.
     */
    static boolean mayBeCommitted(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports,
                                  MemberId m, long p) {
        Report r = reports.get(m);
        List<MemberId> may = new ArrayList<>();
        may.add(m);
        List<MemberId> candidates = new ArrayList<>(r.epochMembers());
        for (MemberId x : members) {
            if (!candidates.contains(x)) {
                candidates.add(x);
            }
        }
        for (MemberId x : candidates) {
            if (x.equals(m)) {
                continue;
            }
            Report here = members.contains(x) ? reports.get(x) : null;
            boolean own = r.start() > 0 && p >= r.start();
            boolean lacks = here != null && (here.fresh() || here.last() < p
                    || own && here.knowsEpoch() && EpochPlan.rank(here, r) < 0);
            if (!lacks && (here != null || r.epochMembers().contains(x))) {
                may.add(x);
            }
        }
        return GroupConfig.replicas(may) >= config.majority(members);
    }
}
