package org.fts.gc.internal;

import java.util.Comparator;

import org.fts.gc.MemberId;

/**
 * Names one epoch of the group's history: the view it was established in, and that view's coordinator (its
 * sequencer). Epochs compare by view id, then sequencer name. Two established epochs never share a view id:
 * their establishing majorities share a replica, whose view ids strictly increase. The sequencer breaks ties
 * between epochs of views that were only ever believed in by a side (never established).
 */
public record EpochId(long view, MemberId sequencer) implements Comparable<EpochId> {
    private static final Comparator<EpochId> ORDER =
            Comparator.comparingLong(EpochId::view).thenComparing(EpochId::sequencer);

    @Override
    public int compareTo(EpochId o) {
        return ORDER.compare(this, o);
    }

    @Override
    public String toString() {
        return view + "@" + sequencer;
    }
}
