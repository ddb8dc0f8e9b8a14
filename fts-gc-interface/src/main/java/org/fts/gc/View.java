package org.fts.gc;

import java.util.List;

/**
 * A group membership as seen by one member.
 *
 * <p>Guarantees: view ids increase at each member (a member never installs a view whose id is lower than the
 * previous one); every member of a view that installs it sees the same id and the same member order; the
 * first member is the coordinator (in the JGroups binding, also the total-order sequencer). After a
 * partition heals, the merged view lists in {@link #subgroups()} the member lists of the views that were
 * merged, so that the application can tell which side it was on; it is empty for ordinary views.
 *
 * @param id        the view id; unique per group at a given time, increasing at each member
 * @param members   the members, coordinator first, in an order every member agrees on
 * @param self      the member that installed this view
 * @param subgroups for a merge view, the member lists of the merged views; otherwise empty
 */
public record View(long id, List<MemberId> members, MemberId self, List<List<MemberId>> subgroups) {
    public View {
        members = List.copyOf(members);
        subgroups = subgroups.stream().map(List::copyOf).toList();
        if (!members.contains(self)) {
            throw new IllegalArgumentException("view " + id + " " + members + " does not contain " + self);
        }
    }

    public View(long id, List<MemberId> members, MemberId self) {
        this(id, members, self, List.of());
    }

    public MemberId coordinator() {
        return members.get(0);
    }

    public boolean isCoordinator() {
        return coordinator().equals(self);
    }

    public int size() {
        return members.size();
    }

    public boolean contains(MemberId member) {
        return members.contains(member);
    }

    public boolean isMerge() {
        return !subgroups.isEmpty();
    }

    @Override
    public String toString() {
        return "View[" + id + " " + members + (isMerge() ? " merged from " + subgroups : "") + "]";
    }
}
