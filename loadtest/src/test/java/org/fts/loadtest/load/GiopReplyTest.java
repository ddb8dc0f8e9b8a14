package org.fts.loadtest.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Reply framing as the driver reads it: partial headers, either byte order, lost framing, request id and status. */
class GiopReplyTest {
    /** A GIOP 1.2 Reply for {@code requestId} with {@code status}, no service contexts, and {@code body} bytes. */
    private static ByteBuffer reply(ByteOrder order, int requestId, int status, int body) {
        ByteBuffer b = ByteBuffer.allocate(12 + 12 + body).order(order);
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 2)
                .put((byte) (order == ByteOrder.LITTLE_ENDIAN ? 1 : 0)).put((byte) GiopReply.REPLY);
        b.putInt(12 + body).putInt(requestId).putInt(status).putInt(0);
        return b.position(b.capacity());
    }

    @Test
    void aReplyIsFramedAndReadInEitherByteOrder() {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            ByteBuffer b = reply(order, 0x7fff0001, GiopReply.NO_EXCEPTION, 5);
            assertEquals(29, GiopReply.frameLength(b, 0, b.position()), order.toString());
            assertEquals(GiopReply.REPLY, GiopReply.type(b, 0));
            assertTrue(GiopReply.isGiop12(b, 0));
            assertEquals(0x7fff0001, GiopReply.requestId(b, 0));
            assertEquals(GiopReply.NO_EXCEPTION, GiopReply.status(b, 0));
        }
        ByteBuffer exception = reply(ByteOrder.BIG_ENDIAN, 3, 2, 0);
        assertEquals(2, GiopReply.status(exception, 0), "SYSTEM_EXCEPTION");
    }

    @Test
    void aHeaderNotAllThereYetIsNoFrameYet() {
        ByteBuffer b = reply(ByteOrder.BIG_ENDIAN, 1, 0, 0);
        for (int have = 0; have < 12; have++) {
            assertEquals(-1, GiopReply.frameLength(b, 0, have), have + " bytes");
        }
        assertEquals(24, GiopReply.frameLength(b, 0, 12), "the header alone tells the whole length");
    }

    @Test
    void bytesThatAreNotGiopMeanTheFramingIsLost() {
        ByteBuffer b = ByteBuffer.allocate(12).put("HTTP/1.1 200".getBytes(StandardCharsets.US_ASCII));
        assertThrows(IllegalStateException.class, () -> GiopReply.frameLength(b, 0, 12));
        ByteBuffer huge = reply(ByteOrder.BIG_ENDIAN, 1, 0, 0).putInt(8, -1);
        assertThrows(IllegalStateException.class, () -> GiopReply.frameLength(huge, 0, 12), "4 GiB declared");
    }
}
