package org.fts.log;

/**
 * Records {@code from}..{@code to} of a log that exist but do not verify: a damaged disk, not a torn write (records
 * that verify follow them, or the log had synced them). {@code meta} is the record's meta when its header still
 * verifies (one record: the payload is damaged), else null (the header is unreadable: which records the stretch holds is
 * known from its neighbours).
 */
public record Damage(long from, long to, byte[] meta) {
    @Override
    public String toString() {
        return (from == to ? "record " + from : "records " + from + ".." + to) + (meta == null ? " (unreadable)"
                : " (payload damaged)");
    }
}
