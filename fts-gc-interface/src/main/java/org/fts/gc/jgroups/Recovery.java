package org.fts.gc.jgroups;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.MemberId;

/**
 * One recovery run by a new sequencer ({@link TotalOrder}): the STATE reports of the view's members, and the
 * plan once all are in. Pure bookkeeping: no locks, no sending.
 */
final class Recovery {
    /**
     * What to do once every member reported: {@code holder} (the most advanced member) sends each lagging
     * member the entries after its last one up to {@code start - 1}; the new epoch opens at {@code start}.
     */
    record Plan(MemberId holder, long start, Map<MemberId, Long> lagging) {
    }

    private final long viewId;
    private final List<MemberId> members;
    private final Map<MemberId, long[]> states = new HashMap<>();   // member -> {fresh ? 1 : 0, last}

    Recovery(long viewId, List<MemberId> members) {
        this.viewId = viewId;
        this.members = List.copyOf(members);
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

    /** The plan; {@code self} wins ties for holder (it repairs without a hop). Fresh joiners need nothing. */
    Plan plan(MemberId self) {
        long max = 0;
        MemberId holder = null;
        for (MemberId m : members) {
            long[] s = states.get(m);
            if (s[0] == 0 && (holder == null || s[1] > max || (s[1] == max && m.equals(self)))) {
                max = s[1];
                holder = m;
            }
        }
        Map<MemberId, Long> lagging = new LinkedHashMap<>();
        for (MemberId m : members) {
            long[] s = states.get(m);
            if (s[0] == 0 && s[1] < max) {
                lagging.put(m, s[1]);
            }
        }
        return new Plan(holder, max + 1, lagging);
    }
}
