package org.fts.goa.giop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

/** The framing the guard follows, fed as a connection would deliver it: whole, or in arbitrary pieces. */
class GiopFrameGuardTest {
    private static final int LIMIT = 4096;
    private static final int REQUEST = 0;
    private static final int FRAGMENT = 7;

    /** One GIOP message: header with {@code declared} size, then {@code body} (the request id first, if any). */
    private static byte[] message(int minor, int type, boolean little, boolean more, long declared, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(12 + body.length).order(little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        b.put(new byte[] {'G', 'I', 'O', 'P', 1, (byte) minor, (byte) ((little ? 1 : 0) | (more ? 2 : 0)), (byte) type});
        b.putInt((int) declared);
        b.put(body);
        return b.array();
    }

    private static byte[] body(int size, int requestId, boolean little) {
        ByteBuffer b = ByteBuffer.allocate(size).order(little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        b.putInt(requestId);
        return b.array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Feeds {@code bytes} one byte at a time; returns the index of the byte at which the guard refused, or -1. */
    private static int byteByByte(GiopFrameGuard g, byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (g.accept(bytes, i, 1) != null) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void aMessageAtTheLimitPassesAndAHeaderOverItIsRefusedAtItsLastByte() {
        byte[] atLimit = message(2, REQUEST, false, false, LIMIT, new byte[LIMIT]);
        byte[] over = message(2, REQUEST, false, false, LIMIT + 1, new byte[0]);
        byte[] stream = concat(atLimit, atLimit, over);
        assertEquals(stream.length - 1, byteByByte(new GiopFrameGuard(LIMIT), stream),
                "refused once the header is complete, not before, and not for the messages at the limit");
        GiopFrameGuard whole = new GiopFrameGuard(LIMIT);
        String why = whole.accept(stream, 0, stream.length);
        assertNotNull(why);
        assertTrue(why.contains("Request declares " + (LIMIT + 1) + " bytes"), why);
        assertEquals(why, whole.accept(new byte[1], 0, 1), "refused for good");
    }

    @Test
    void sizesAreReadInTheHeadersByteOrderAndUnsigned() {
        byte[] little = message(2, REQUEST, true, false, LIMIT, new byte[LIMIT]);
        assertNull(new GiopFrameGuard(LIMIT).accept(little, 0, little.length));
        byte[] littleOver = message(2, REQUEST, true, false, LIMIT + 1, new byte[0]);
        assertNotNull(new GiopFrameGuard(LIMIT).accept(littleOver, 0, littleOver.length));
        byte[] huge = message(1, 1, false, false, 0xFFFF_FFF0L, new byte[0]);   // negative as a Java int
        String why = new GiopFrameGuard(Integer.MAX_VALUE).accept(huge, 0, huge.length);
        assertNotNull(why);
        assertTrue(why.contains("GIOP 1.1 Reply declares 4294967280 bytes"), why);
    }

    @Test
    void aStreamThatIsNotGiopIsRefused() {
        byte[] http = "GET / HTTP/1.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertTrue(new GiopFrameGuard(LIMIT).accept(http, 0, http.length).contains("not a GIOP message"));
    }

    @Test
    void aFragmentedMessageCountsWholeAndACompletedOneFreesItsShare() {
        int part = 1500;
        byte[] first = message(2, REQUEST, false, true, part, body(part, 9, false));
        byte[] middle = message(2, FRAGMENT, false, true, part, body(part, 9, false));
        byte[] last = message(2, FRAGMENT, false, false, 100, body(100, 9, false));
        // 12 + 1500 + overhead + 1500 + 100 < 4096: complete; then the same again on the freed account
        byte[] twice = concat(first, middle, last, first, middle, last);
        assertEquals(-1, byteByByte(new GiopFrameGuard(LIMIT), twice));
        byte[] tooLong = concat(first, middle, middle);
        GiopFrameGuard g = new GiopFrameGuard(LIMIT);
        int at = byteByByte(g, tooLong);
        assertEquals(first.length + middle.length + 12 - 1, at, "refused by the third part's header");
        assertTrue(g.accept(new byte[0], 0, 0).contains("fragmented messages being reassembled would reach 4768"));
    }

    @Test
    void interleavedFragmentedMessagesShareTheAccountInEitherByteOrder() {
        int part = 1200;
        byte[] a = message(2, REQUEST, true, true, part, body(part, 1, true));
        byte[] b = message(2, REQUEST, false, true, part, body(part, 2, false));
        byte[] c = message(2, REQUEST, true, true, part, body(part, 3, true));
        String why = new GiopFrameGuard(LIMIT).accept(concat(a, b, c), 0, 3 * a.length);
        assertNotNull(why, "three open messages of 1200 bytes each (+ overhead) exceed 4096");
        assertTrue(why.contains("(3 messages)"), why);
    }

    @Test
    void partsJacorbDropsAreNotCounted() {
        int part = 3000;
        byte[] orphan = message(2, FRAGMENT, false, true, part, body(part, 77, false));   // no first part
        byte[] giop11 = message(1, REQUEST, false, true, part, body(part, 5, false));    // 1.1: not reassembled
        byte[] cancel = message(2, 2, false, true, part, body(part, 6, false));           // may not be fragmented
        assertNull(new GiopFrameGuard(LIMIT).accept(concat(orphan, orphan, giop11, giop11, cancel, cancel), 0,
                6 * orphan.length));
    }
}
