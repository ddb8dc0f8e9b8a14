package org.fts.gc.raft;

import org.fts.config.Counter;

/**
 * The raft binding's figures under the names of the jgroups binding's total order ({@code OrderStatsMBean}), so that
 * the same dashboards and alert rules read both (docs/metrics.md): {@code jgroups:type=fts-order,cluster=
 * "<group>/<member>"}. Each getter reads the binding's current value; none blocks.
 */
public interface RaftOrderStatsMBean {
    /** {@code raft}: what orders. */
    String getOrdering();

    /** leader, follower or learner. */
    String getRole();

    /** The Raft term, as {@code fts status} shows the epoch ("term N"). */
    String getEpoch();

    /** The Raft term. */
    long getTerm();

    /** The last index appended to this member's log. */
    long getHeld();

    /** The commit index. */
    long getCommitted();

    /** The last index applied here (delivered to the application's queue). */
    long getDelivered();

    /** The voters now, comma-separated (docs/membership.md). */
    String getVoters();

    /** Leaders this member has seen take over (a new leader, or a new term): the raft binding's recoveries. */
    @Counter
    long getRecoveries();

    /** Times this member found no leader in its view after having one (it left, crashed, or was cut off). */
    @Counter
    long getSequencerSuspicions();

    /** Read barriers whose read index the leader confirmed (docs/reads.md). */
    @Counter
    long getReadsConfirmed();

    /** Read barriers refused (no leader confirmed an index, or this member did not reach it in time): ordered. */
    @Counter
    long getReadsRefused();
}
