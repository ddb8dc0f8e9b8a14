package org.fts.log;

import java.io.IOException;
import java.nio.file.Path;

/** A record that exists but does not verify: its payload's checksum fails, or its header is unreadable. */
public final class DamagedRecordException extends IOException {
    private final long index;
    private final transient byte[] meta;

    DamagedRecordException(Path file, long index, byte[] meta) {
        super(file + ": record " + index + " is damaged (" + (meta == null ? "its header is unreadable"
                : "its payload fails its checksum") + ")");
        this.index = index;
        this.meta = meta;
    }

    public long index() {
        return index;
    }

    /** The record's meta if its header still verifies, else null. */
    public byte[] meta() {
        return meta;
    }
}
