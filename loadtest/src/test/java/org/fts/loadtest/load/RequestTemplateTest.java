package org.fts.loadtest.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupVersionContext;
import org.fts.ft.FtRequestContext;
import org.junit.jupiter.api.Test;

/**
 * The driver's requests, decoded field by field as GIOP 1.2 (CORBA 3, 15.4.2): framing, header, alignment, and
 * the FT contexts read back with the decoders the adaptor itself uses; and the per-call patch changes exactly the
 * request id and the FT fields. The smoke test then has real JacORB servers answer them.
 */
class GiopRequestTest {
    private static final byte[] KEY = "fts/FTS-g/hello-7".getBytes(StandardCharsets.ISO_8859_1);

    /** A request taken apart: header fields, service contexts by id, where the body starts, and the body. */
    private record Parsed(int size, int requestId, int flags, int responseFlags, byte[] key, String operation,
                          Map<Integer, byte[]> contexts, int bodyStart, byte[] body) {
    }

    private static Parsed parse(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.BIG_ENDIAN);
        assertEquals("GIOP", new String(m, 0, 4, StandardCharsets.US_ASCII));
        assertEquals(1, m[4]);
        assertEquals(2, m[5]);
        assertEquals(0, m[7], "a Request");
        int size = b.getInt(8);
        int pos = 12;
        int rid = b.getInt(pos);
        int responseFlags = m[16];
        pos = 20;
        assertEquals(0, b.getShort(pos), "KeyAddr");
        pos = align(pos + 2, 4);
        byte[] key = new byte[b.getInt(pos)];
        b.get(pos + 4, key);
        pos = align(pos + 4 + key.length, 4);
        int opLen = b.getInt(pos);
        String op = new String(m, pos + 4, opLen - 1, StandardCharsets.ISO_8859_1);
        assertEquals(0, m[pos + 4 + opLen - 1], "the operation ends with NUL");
        pos = align(pos + 4 + opLen, 4);
        int n = b.getInt(pos);
        pos += 4;
        Map<Integer, byte[]> contexts = new HashMap<>();
        for (int i = 0; i < n; i++) {
            pos = align(pos, 4);
            int id = b.getInt(pos);
            byte[] data = new byte[b.getInt(pos + 4)];
            b.get(pos + 8, data);
            contexts.put(id, data);
            pos += 8 + data.length;
        }
        int bodyStart = pos == m.length ? pos : align(pos, 8);
        byte[] body = java.util.Arrays.copyOfRange(m, bodyStart, m.length);
        return new Parsed(size, rid, m[6], responseFlags, key, op, contexts, bodyStart, body);
    }

    private static int align(int pos, int n) {
        return (pos + n - 1) / n * n;
    }

    @Test
    void aSetRequestIsWellFormedGiop12WithItsStringArgument8Aligned() {
        RequestTemplate r = new RequestTemplate.Builder().objectKey(KEY).operation("set").codeSets(true)
                .body(w -> w.string("fifteen-chars..")).build();
        byte[] m = r.bytes();
        Parsed p = parse(m);
        assertEquals(m.length - 12, p.size(), "the size counts what follows the 12-byte header");
        assertEquals(0, p.flags(), "big-endian, not fragmented");
        assertEquals(3, p.responseFlags(), "a reply is expected");
        assertArrayEquals(KEY, p.key());
        assertEquals("set", p.operation());
        assertEquals(0, p.bodyStart() % 8, "GIOP 1.2 aligns the body to 8");
        ByteBuffer body = ByteBuffer.wrap(p.body());
        assertEquals(16, body.getInt(0), "15 characters and the NUL");
        assertEquals("fifteen-chars..", new String(p.body(), 4, 15, StandardCharsets.ISO_8859_1));
        assertEquals(20, p.body().length);
        byte[] codeSets = p.contexts().get(RequestTemplate.CODE_SETS);
        ByteBuffer cs = ByteBuffer.wrap(codeSets);
        assertEquals(0, codeSets[0], "a big-endian encapsulation");
        assertEquals(RequestTemplate.UTF8, cs.getInt(4));
        assertEquals(RequestTemplate.UTF16, cs.getInt(8));
    }

    @Test
    void anOperationWithoutArgumentsHasNoBodyAndNoPadding() {
        byte[] m = new RequestTemplate.Builder().objectKey(KEY).operation("increment").build().bytes();
        Parsed p = parse(m);
        assertEquals(0, p.body().length);
        assertEquals(m.length, p.bodyStart(), "nothing after the service contexts");
        assertTrue(p.contexts().isEmpty());
    }

    @Test
    void thePatchChangesOnlyTheRequestIdAndTheFtFieldsWhichDecodeAsTheAdaptorReadsThem() {
        RequestTemplate r = new RequestTemplate.Builder().objectKey(KEY).operation("set").ftRequest("fts-load-x-c3")
                .groupVersion(7).body(w -> w.string("abc")).build();
        ByteBuffer buf = r.newBuffer();
        long expiration = FtRequestContext.timeT(1_800_000_000_000L);
        r.patch(buf, 0x01020304, 99, expiration);
        byte[] m = new byte[buf.remaining()];
        buf.get(m);
        Parsed p = parse(m);
        assertEquals(0x01020304, p.requestId());
        FtRequestContext ft = FtRequestContext.decode(p.contexts().get(FtConstants.FT_REQUEST));
        assertEquals("fts-load-x-c3", ft.clientId());
        assertEquals(99, ft.retentionId());
        assertEquals(expiration, ft.expirationTime());
        assertEquals(7, FtGroupVersionContext.decode(p.contexts().get(FtConstants.FT_GROUP_VERSION)).version());
        assertFalse(p.contexts().containsKey(RequestTemplate.CODE_SETS));

        r.patch(buf, 5, 100, expiration + 1);
        byte[] again = new byte[buf.remaining()];
        buf.get(again);
        int differing = 0;
        for (int i = 0; i < m.length; i++) {
            differing += m[i] != again[i] ? 1 : 0;
        }
        assertTrue(differing <= 4 + 1 + 1, "only the id, the retention id and the expiration's last byte: " + differing);
        assertEquals(100, FtRequestContext.decode(parse(again).contexts().get(FtConstants.FT_REQUEST)).retentionId());
    }

    @Test
    void aRequestNeedsAKeyAndAnOperation() {
        assertThrows(IllegalArgumentException.class, () -> new RequestTemplate.Builder().operation("set").build());
        assertThrows(IllegalArgumentException.class, () -> new RequestTemplate.Builder().objectKey(KEY).build());
    }
}
