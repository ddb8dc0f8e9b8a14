package org.fts.goa.frontend;

import java.nio.charset.StandardCharsets;

/**
 * Reads the CDR of one whole GIOP message held in a byte array: alignment counts from the message's first byte
 * (the {@code G} of its header), the byte order is the header's. Every read checks its bounds: a truncated or
 * lying message fails with {@link GiopException}, never with an index error.
 */
final class GiopIn {
    private final byte[] b;
    private final int end;
    private final boolean little;
    private int pos;

    GiopIn(byte[] message, int start, int end, boolean littleEndian) {
        this.b = message;
        this.pos = start;
        this.end = end;
        this.little = littleEndian;
    }

    int pos() {
        return pos;
    }

    void align(int n) {
        pos = (pos + n - 1) & -n;
    }

    private void need(int n, String what) {
        if (n < 0 || pos + n > end) {
            throw new GiopException(what + " of " + n + " bytes at offset " + pos + " runs past the message's end (" + end + ")");
        }
    }

    int octet() {
        need(1, "an octet");
        return b[pos++] & 0xff;
    }

    void skip(int n) {
        need(n, "a field");
        pos += n;
    }

    int ushort() {
        align(2);
        need(2, "a short");
        int a = b[pos] & 0xff;
        int c = b[pos + 1] & 0xff;
        pos += 2;
        return little ? a | c << 8 : a << 8 | c;
    }

    int ulong() {
        align(4);
        need(4, "a long");
        int v = little ? (b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8 | (b[pos + 2] & 0xff) << 16 | b[pos + 3] << 24
                : b[pos] << 24 | (b[pos + 1] & 0xff) << 16 | (b[pos + 2] & 0xff) << 8 | (b[pos + 3] & 0xff);
        pos += 4;
        return v;
    }

    /** A sequence of octets: its length, then its bytes, copied. */
    byte[] octets() {
        int n = ulong();
        need(n, "a sequence");
        byte[] out = new byte[n];
        System.arraycopy(b, pos, out, 0, n);
        pos += n;
        return out;
    }

    /** A string in the ISO 8859-1 of GIOP's own fields (operation names): its length counts the closing NUL. */
    String string() {
        int n = ulong();
        if (n < 1) {
            throw new GiopException("a string of length " + n + " at offset " + (pos - 4) + " (at least its NUL)");
        }
        need(n, "a string");
        String s = new String(b, pos, n - 1, StandardCharsets.ISO_8859_1);
        pos += n;
        return s;
    }
}
