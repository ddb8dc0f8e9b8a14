package org.fts.goa.giop;

/**
 * The intake budget over JMX ({@code org.fts:type=Intake,group=<group>,member=<id>,port=<listener's port>}; in the metrics as {@code fts_intake_*}):
 * what a listener of a replica (the adaptor's own, or JacORB's with the GIOP guard) holds of
 * {@code fts.intake.max_bytes} (docs/capacity.md). A budget whose used
 * bytes stay at the maximum means the clients offer more than the group executes.
 */
public interface IntakeBudgetMXBean {
    /** The budget, {@code fts.intake.max_bytes} (or its default, a thirty-second of the heap). */
    long getMaxBytes();

    /** The bytes held now for requests read and not yet answered. */
    long getUsedBytes();

    /** The most ever held at once. */
    long getPeakBytes();

    /** How many times a connection's reader was held back because the budget was spent. */
    @org.fts.config.Counter
    long getHolds();
}
