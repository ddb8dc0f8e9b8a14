package org.jgroups.protocols.raft;

/**
 * Reads fields of jgroups-raft's {@code AppendEntriesResponse} that it keeps package-private ({@code FtsRaft}
 * needs it). Only reads; in jgroups-raft's package for that reason alone ({@code JGroupsRaftLinkageTest} checks the
 * fields against the pinned version).
 */
public final class FtsRaftHeaders {
    private FtsRaftHeaders() {
    }

    /**
     * The follower's last index if {@code r} says it lacks the entry before the ones sent (it is behind), else -1.
     */
    public static long entryNotFound(AppendEntriesResponse r) {
        AppendResult a = r.result;
        return a != null && a.result == AppendResult.Result.FAIL_ENTRY_NOT_FOUND ? a.index : -1;
    }

    /** The follower's commit index as its answer {@code r} reports it (0 when not said). */
    public static long commitIndex(AppendEntriesResponse r) {
        AppendResult a = r.result;
        return a == null ? 0 : a.commit_index;
    }

    /** The follower's last index acknowledged if {@code r} is a success, else -1. */
    public static long appended(AppendEntriesResponse r) {
        AppendResult a = r.result;
        return a != null && a.result == AppendResult.Result.OK ? a.index : -1;
    }
}
