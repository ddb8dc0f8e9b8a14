package org.fts.log;

/**
 * One record of a {@link SegmentedLog}: its index, a small {@code meta} (checksummed with the record's header, so it
 * survives damage to the payload: a caller keeps there what identifies the record) and its {@code payload}.
 */
public record Record(long index, byte[] meta, byte[] payload) {
}
