package org.fts.gc;

/**
 * One change of a group's voters ({@link GroupChannel#changeVoters}): {@code replica} is added (a learner becomes a
 * voter) or removed (a voter becomes a learner, or leaves). One voter at a time, so that any majority of the voters
 * before and any majority after share a replica (docs/membership.md).
 *
 * @param add     true to add, false to remove
 * @param replica the replica id ({@link MemberId#replica()})
 */
public record VoterChange(boolean add, String replica) {
    public VoterChange {
        if (replica == null || replica.isBlank() || replica.contains("#") || replica.contains(",")) {
            throw new IllegalArgumentException("a replica id, such as r3, not '" + replica + "'");
        }
    }

    @Override
    public String toString() {
        return (add ? "add " : "remove ") + replica;
    }
}
