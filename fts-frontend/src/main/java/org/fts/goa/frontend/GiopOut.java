package org.fts.goa.frontend;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes one GIOP message big-endian into a growing byte array, alignment counted from the header's first byte;
 * {@link #finish()} fills in the header's size.
 */
final class GiopOut {
    private byte[] b;
    private int pos;

    /** A message of {@code type} (GIOP 1.{@code minor}), its header written. */
    GiopOut(int minor, int type, int capacity) {
        b = new byte[Math.max(64, capacity)];
        b[0] = 'G';
        b[1] = 'I';
        b[2] = 'O';
        b[3] = 'P';
        b[4] = 1;
        b[5] = (byte) minor;
        b[6] = 0;   // big-endian, as JacORB marshals the replies FTS caches
        b[7] = (byte) type;
        pos = 12;
    }

    int pos() {
        return pos;
    }

    private void room(int n) {
        if (pos + n > b.length) {
            b = Arrays.copyOf(b, Math.max(b.length * 2, pos + n));
        }
    }

    GiopOut align(int n) {
        int to = (pos + n - 1) & -n;
        room(to - pos);
        pos = to;   // the array is zeroed: padding is zeros
        return this;
    }

    GiopOut octet(int v) {
        room(1);
        b[pos++] = (byte) v;
        return this;
    }

    GiopOut ushort(int v) {
        align(2);
        room(2);
        b[pos++] = (byte) (v >>> 8);
        b[pos++] = (byte) v;
        return this;
    }

    GiopOut ulong(int v) {
        align(4);
        room(4);
        b[pos++] = (byte) (v >>> 24);
        b[pos++] = (byte) (v >>> 16);
        b[pos++] = (byte) (v >>> 8);
        b[pos++] = (byte) v;
        return this;
    }

    GiopOut raw(byte[] data, int from, int len) {
        room(len);
        System.arraycopy(data, from, b, pos, len);
        pos += len;
        return this;
    }

    GiopOut octets(byte[] data) {
        ulong(data.length);
        return raw(data, 0, data.length);
    }

    GiopOut string(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        ulong(bytes.length + 1);
        raw(bytes, 0, bytes.length);
        return octet(0);
    }

    /** The whole message, its size filled in. */
    byte[] finish() {
        int size = pos - 12;
        for (int i = 0; i < 4; i++) {
            b[11 - i] = (byte) (size >>> (8 * i));
        }
        return pos == b.length ? b : Arrays.copyOf(b, pos);
    }
}
