package org.fts.goa.behaviour;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Hand-made GIOP 1.2 messages, for clients that behave as no ORB would (floods, pipelining, never reading). */
public final class RawGiop {
    private RawGiop() {
    }

    /** A two-way {@code set(string)} Request to {@code objectKey}, whose argument is {@code chars} times 'x'. */
    public static byte[] setRequest(String objectKey, int requestId, int chars) {
        byte[] key = objectKey.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(12 + 64 + key.length + chars + 16);
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put(new byte[] {1, 2, 0, 0}).putInt(0);
        b.putInt(requestId).put((byte) 3).put(new byte[3]);   // request id, response expected, reserved
        b.putShort((short) 0);                                // TargetAddress: KeyAddr
        align(b, 4);
        b.putInt(key.length).put(key);
        align(b, 4);
        b.putInt(4).put("set".getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        align(b, 4);
        b.putInt(0);                                          // no service contexts
        align(b, 8);
        b.putInt(chars + 1);
        byte[] x = new byte[chars];
        Arrays.fill(x, (byte) 'x');
        b.put(x).put((byte) 0);
        int end = b.position();
        b.putInt(8, end - 12);
        return Arrays.copyOf(b.array(), end);
    }

    /** A two-way {@code get()} Request to {@code objectKey}. */
    static byte[] getRequest(String objectKey, int requestId) {
        byte[] key = objectKey.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(12 + 64 + key.length);
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put(new byte[] {1, 2, 0, 0}).putInt(0);
        b.putInt(requestId).put((byte) 3).put(new byte[3]);
        b.putShort((short) 0);
        align(b, 4);
        b.putInt(key.length).put(key);
        align(b, 4);
        b.putInt(4).put("get".getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        align(b, 4);
        b.putInt(0);
        int end = b.position();
        b.putInt(8, end - 12);
        return Arrays.copyOf(b.array(), end);
    }

    /** A GIOP 1.2 Request header declaring {@code size} bytes, then {@code sent} bytes of its body. */
    static byte[] startedRequest(int size, int sent) {
        ByteBuffer b = ByteBuffer.allocate(12 + sent);
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put(new byte[] {1, 2, 0, 0}).putInt(size);
        b.putInt(1).put((byte) 3);
        return b.array();
    }

    private static void align(ByteBuffer b, int n) {
        while (b.position() % n != 0) {
            b.put((byte) 0);
        }
    }
}
