package org.fts.goa.intake;

import java.util.Arrays;
import java.util.HexFormat;

/** An object id usable as a map key. */
public record ObjectKey(byte[] id) {
    public ObjectKey {
        id = id.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectKey k && Arrays.equals(id, k.id);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(id);
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(id);
    }
}
