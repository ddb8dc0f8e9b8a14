package org.fts.gc;

import java.util.List;

/**
 * A primary epoch opened at this member ({@link GroupListener#epochOpened}): from here on, until the next
 * view, the member delivers broadcasts of this epoch. Every epoch is opened after a view change, once a
 * recovery established it: the epoch continues the group's one history (docs/group-communication.md).
 *
 * @param id        the epoch's id: the id of the view it was established in (increases along the history)
 * @param sequencer the member that orders this epoch's broadcasts (the view's coordinator)
 * @param members   the view's members: the epoch's fixed membership
 * @param gap       true when this member's history misses broadcasts the group delivered before this epoch
 *                  (it was cut off while a primary went on, it joined, or its last deliveries were of a
 *                  branch the group did not keep): its application state must be replaced by another
 *                  member's, taken at a position of the order, before it serves again; then it calls
 *                  {@link GroupChannel#synced()}. False when its deliveries continue without a hole.
 * @param synced    whether this member's state holds the group's history (false after a gap, and until the
 *                  member calls {@link GroupChannel#synced()} after installing a state)
 * @param provider  when this member's state is not synced (a gap now, or one it has not repaired yet): a
 *                  member of this epoch whose state is, to ask for it first; null otherwise, or if there is
 *                  none besides this member
 */
public record Epoch(long id, MemberId sequencer, List<MemberId> members, boolean gap, boolean synced,
                    MemberId provider) {
    public Epoch {
        members = List.copyOf(members);
    }
}
