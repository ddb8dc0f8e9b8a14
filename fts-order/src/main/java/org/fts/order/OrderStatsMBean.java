package org.fts.order;

import org.fts.config.Counter;

/**
 * The total order's counters of one member, beside JGroups' own MBeans:
 * {@code jgroups:type=fts-order,cluster="<group>/<member>"}. Each getter reads the protocol's current value; none
 * blocks for long (the member's monitor is never held across a send).
 */
public interface OrderStatsMBean {
    /** Read barriers this member confirmed (docs/reads.md). */
    @Counter
    long getReadsConfirmed();

    /** Read barriers this member refused: their reads were ordered. */
    @Counter
    long getReadsRefused();

    /** Read-index requests this member sent its sequencer (each for every barrier waiting then). */
    @Counter
    long getReadRequests();

    /** As a sequencer: read-index requests it answered, a round of pings or none (three replicas) each. */
    @Counter
    long getReadRounds();

    /** {@code sequencer} or {@code offload} ({@code fts.gc.jgroups.ordering}). */
    String getOrdering();

    /** {@code sequencer} while this member orders its open epoch, else {@code member}. */
    String getRole();

    /** Where the member stands: Open, Frozen, Catching, Blocked or Joining, with the epoch or view. */
    String getPhase();

    /** The open epoch as {@code <view>@<sequencer>}, or the phase's name (joining, frozen, ...) while none is open. */
    String getEpoch();

    /** The last position of the history this member holds contiguously. */
    long getHeld();

    /** The last position this member delivered. */
    long getDelivered();

    /** The last position this member knows a majority holds. */
    long getCommitted();

    /** As the sequencer: the last position every member holds (-1 when not the sequencer). */
    long getStable();

    /** This member's broadcasts not delivered back yet. */
    long getUnacked();

    /** Offload, as the sequencer: grants made since this member started. */
    @Counter
    long getGrants();

    /** Recoveries this member coordinated (one per view it was the coordinator of). */
    @Counter
    long getRecoveries();

    /** How many times this member suspected its sequencer. */
    @Counter
    long getSequencerSuspicions();

    /** Epochs this member opened since it started. */
    @Counter
    long getEpochsOpened();

    /** Of those, the ones it opened with a gap: it had to fetch the group's state. */
    @Counter
    long getEpochsOpenedWithAGap();

    /** Of those, foundings of the group again (an interrupted founding committed nothing). */
    @Counter
    long getFoundingsAgain();
}
