package org.fts.order;

/** {@link OrderStatsMBean} over one member's {@link TotalOrder}. */
public final class OrderStats implements OrderStatsMBean {
    private final Member member;
    private final Sequencer sequencer;
    private final Origin origin;
    private final SequencerWatch watch;
    private final Ordering ordering;
    private final ReadRequester reads;
    private final ReadConfirmer readRounds;
    private final EpochCounts epochs;

    OrderStats(Member member, Sequencer sequencer, Origin origin, SequencerWatch watch, Ordering ordering,
               ReadRequester reads, ReadConfirmer readRounds, EpochCounts epochs) {
        this.epochs = epochs;
        this.reads = reads;
        this.readRounds = readRounds;
        this.member = member;
        this.sequencer = sequencer;
        this.origin = origin;
        this.watch = watch;
        this.ordering = ordering;
    }

    @Override
    public long getReadsConfirmed() {
        return reads.counts()[0];
    }

    @Override
    public long getReadsRefused() {
        return reads.counts()[1];
    }

    @Override
    public long getReadRequests() {
        return reads.counts()[2];
    }

    @Override
    public long getReadRounds() {
        return readRounds.rounds();
    }

    @Override
    public String getOrdering() {
        return ordering.alias;
    }

    @Override
    public String getRole() {
        return sequencer.sequencing() ? "sequencer" : "member";
    }

    @Override
    public String getPhase() {
        return member.phase().toString();
    }

    @Override
    public String getEpoch() {
        org.fts.gc.internal.EpochId e = member.epoch();
        return e == null ? member.phase().getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT)
                : e.view() + "@" + e.sequencer().name();
    }

    @Override
    public long getHeld() {
        return member.counters().held();
    }

    @Override
    public long getDelivered() {
        return member.counters().delivered();
    }

    @Override
    public long getCommitted() {
        return member.counters().committed();
    }

    @Override
    public long getStable() {
        return sequencer.sequencing() ? sequencer.acks().stable() : -1;
    }

    @Override
    public long getUnacked() {
        return origin.unackedCount();
    }

    @Override
    public long getGrants() {
        return sequencer.holes().grants();
    }

    @Override
    public long getRecoveries() {
        return sequencer.recoveries();
    }

    @Override
    public long getSequencerSuspicions() {
        return watch.suspicions();
    }

    @Override
    public long getEpochsOpened() {
        return epochs.opened();
    }

    @Override
    public long getEpochsOpenedWithAGap() {
        return epochs.withGap();
    }

    @Override
    public long getFoundingsAgain() {
        return epochs.refounded();
    }

    /** The standing of a member of FTS's total order, as {@code fts status} shows it; empty before the join. */
    public static java.util.Map<String, String> standing(OrderStatsMBean stats, org.fts.gc.View view) {
        if (stats == null) {
            return java.util.Map.of();
        }
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        out.put("role", stats.getRole());
        out.put("ordering", stats.getOrdering());
        out.put("view", view == null ? "-" : Long.toString(view.id()));
        out.put("epoch", stats.getEpoch());
        out.put("delivered", Long.toString(stats.getDelivered()));
        out.put("committed", Long.toString(stats.getCommitted()));
        out.put("read_barriers", "confirmed=" + stats.getReadsConfirmed() + " refused=" + stats.getReadsRefused()
                + " requests=" + stats.getReadRequests() + " rounds=" + stats.getReadRounds());
        return out;
    }
}
