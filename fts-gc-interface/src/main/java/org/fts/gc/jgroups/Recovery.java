package org.fts.gc.jgroups;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.MemberId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One recovery run by a new sequencer ({@link TotalOrder}): the STATE reports of the view's members, and the
 * plan once all are in, and how the steps that follow one run. No locks, no sending.
 */
final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);
    /** {@code holder} sends {@code target} its entries in ({@code from}, {@code upTo}]. */
    record Repair(MemberId holder, MemberId target, long from, long upTo) {
    }

    /**
     * What to do once every member reported: the repairs, then every member, once it holds everything up to
     * its {@code catchUp} mark, opens the new epoch at {@code start} (a member whose mark is below
     * {@code start - 1} skips the numbers in between: they were another partition's).
     */
    record Plan(long start, List<Repair> repairs, Map<MemberId, Long> catchUp) {
    }

    private final long viewId;
    private final List<MemberId> members;
    private final List<List<MemberId>> sides;
    private final Map<MemberId, long[]> states = new HashMap<>();   // member -> {fresh ? 1 : 0, last}

    /**
     * @param sides for a merge view, the member lists of the merged views: their orders diverged while they
     *              were apart, so entries are repaired only within a side; empty otherwise (one side)
     */
    Recovery(long viewId, List<MemberId> members, List<List<MemberId>> sides) {
        this.viewId = viewId;
        this.members = List.copyOf(members);
        this.sides = sides.isEmpty() ? List.of(this.members) : sides;
    }

    long viewId() {
        return viewId;
    }

    List<MemberId> members() {
        return members;
    }

    /** Records a member's report; returns true when this completes the set. */
    boolean report(MemberId member, boolean fresh, long last) {
        if (!members.contains(member)) {
            return false;
        }
        states.put(member, new long[] {fresh ? 1 : 0, last});
        return states.size() == members.size();
    }

    /**
     * The plan: within each side, its most advanced member repairs the others ({@code self} wins ties: it
     * repairs without a hop); the epoch opens after the most advanced member of all. Fresh joiners need
     * nothing.
     */
    Plan plan(MemberId self) {
        long max = 0;
        List<Repair> repairs = new ArrayList<>();
        Map<MemberId, Long> catchUp = new LinkedHashMap<>();
        for (MemberId m : members) {
            catchUp.put(m, 0L);
        }
        for (List<MemberId> side : sides) {
            long sideMax = 0;
            MemberId holder = null;
            for (MemberId m : side) {
                long[] s = states.get(m);
                if (s != null && s[0] == 0 && (holder == null || s[1] > sideMax || (s[1] == sideMax && m.equals(self)))) {
                    sideMax = s[1];
                    holder = m;
                }
            }
            for (MemberId m : side) {
                long[] s = states.get(m);
                if (s == null) {
                    continue;
                }
                catchUp.put(m, s[0] == 0 ? sideMax : 0L);
                if (s[0] == 0 && s[1] < sideMax) {
                    repairs.add(new Repair(holder, m, s[1], sideMax));
                }
            }
            max = Math.max(max, sideMax);
        }
        return new Plan(max + 1, repairs, catchUp);
    }

    /**
     * Runs every action even if one fails: the actions after a recovery step (open the epoch, acknowledge,
     * resend, tell the other members) must not be cut short by an unrelated failure of one of them.
     */
    static void runAll(List<Runnable> actions) {
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException e) {
                LOG.error("recovery step failed; the others go on", e);
            }
        }
    }
}
