package org.fts.loadtest.load;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupVersionContext;
import org.fts.ft.FtRequestContext;

/**
 * One call as a GIOP 1.2 Request message, big-endian, built once and patched in place for every call: the
 * request id, and with FT_REQUEST the retention id and expiration time. Nothing is allocated per call.
 *
 * <p>Layout (CORBA 3, 15.4.2; alignment counts from the message's first byte): the 12-byte GIOP header, then
 * {@code RequestHeader_1_2}: request id, response flags, 3 reserved octets, the target as {@code KeyAddr}
 * (object key), the operation, the service contexts; then the body, 8-aligned when there is one. The FT
 * contexts are the encapsulations {@link FtRequestContext#encode()} and {@link FtGroupVersionContext#encode()}
 * make, the very codecs the adaptor reads them with.
 */
final class RequestTemplate {
    /** The request id's offset: right after the 12-byte GIOP header. */
    static final int REQUEST_ID_OFFSET = 12;
    /** {@code IOP::CodeSets}: a client's first request on a connection names its transmission code sets. */
    static final int CODE_SETS = 1;
    /** OSF registry ids of UTF-8 and UTF-16, what JacORB and omniORB negotiate with each other. */
    static final int UTF8 = 0x05010001;
    static final int UTF16 = 0x00010109;

    private final byte[] bytes;
    private final int retentionOffset;
    private final int expirationOffset;

    private RequestTemplate(byte[] bytes, int retentionOffset, int expirationOffset) {
        this.bytes = bytes;
        this.retentionOffset = retentionOffset;
        this.expirationOffset = expirationOffset;
    }

    /** The message's bytes (a copy), for tests and for a connection's own buffer. */
    byte[] bytes() {
        return bytes.clone();
    }

    int length() {
        return bytes.length;
    }

    boolean hasFtRequest() {
        return retentionOffset >= 0;
    }

    /** A direct buffer holding this message, to patch with {@link #patch} and write again and again. */
    ByteBuffer newBuffer() {
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length);
        b.put(bytes).flip();
        return b;
    }

    /**
     * Patches {@code buf} (from {@link #newBuffer()}) for one call and rewinds it. {@code retentionId} and
     * {@code expirationTimeT} are ignored without FT_REQUEST.
     */
    void patch(ByteBuffer buf, int requestId, int retentionId, long expirationTimeT) {
        buf.putInt(REQUEST_ID_OFFSET, requestId);
        if (retentionOffset >= 0) {
            buf.putInt(retentionOffset, retentionId);
            buf.putLong(expirationOffset, expirationTimeT);
        }
        buf.clear();
    }

    /** Builds a request; {@link IllegalArgumentException} for a key or operation GIOP cannot carry. */
    static final class Builder {
        private byte[] objectKey;
        private String operation;
        private boolean responseExpected = true;
        private boolean codeSets;
        private String ftClientId;
        private long groupVersion = -1;
        private Consumer<Writer> body = w -> { };

        Builder objectKey(byte[] key) {
            this.objectKey = key.clone();
            return this;
        }

        Builder operation(String op) {
            this.operation = op;
            return this;
        }

        Builder responseExpected(boolean expected) {
            this.responseExpected = expected;
            return this;
        }

        /** Adds the CodeSets context (UTF-8, UTF-16), as a client's first request on a connection does. */
        Builder codeSets(boolean on) {
            this.codeSets = on;
            return this;
        }

        /** Adds FT_REQUEST with this client id (retention id and expiration are patched per call). */
        Builder ftRequest(String clientId) {
            this.ftClientId = clientId;
            return this;
        }

        /** Adds FT_GROUP_VERSION with this version (as FTS's client interceptor does). */
        Builder groupVersion(long version) {
            this.groupVersion = version;
            return this;
        }

        /** The arguments, marshalled from an 8-aligned start. */
        Builder body(Consumer<Writer> args) {
            this.body = args;
            return this;
        }

        RequestTemplate build() {
            if (objectKey == null || operation == null || operation.isEmpty()) {
                throw new IllegalArgumentException("a request needs an object key and an operation");
            }
            Writer w = new Writer();
            w.octets("GIOP".getBytes(StandardCharsets.US_ASCII));
            w.octet(1).octet(2).octet(0).octet(0);   // GIOP 1.2, big-endian, Request
            w.ulong(0);                               // message size, set below
            w.ulong(0);                               // request id, patched per call
            w.octet(responseExpected ? 3 : 0).octet(0).octet(0).octet(0);
            w.ushort(0);                              // TargetAddress: KeyAddr
            w.ulong(objectKey.length).octets(objectKey);
            w.string(operation);
            int contexts = (codeSets ? 1 : 0) + (ftClientId != null ? 1 : 0) + (groupVersion >= 0 ? 1 : 0);
            w.ulong(contexts);
            if (codeSets) {
                byte[] data = ByteBuffer.allocate(12).put((byte) 0).put(new byte[3]).putInt(UTF8).putInt(UTF16).array();
                w.ulong(CODE_SETS).ulong(data.length).octets(data);
            }
            int retention = -1;
            int expiration = -1;
            if (ftClientId != null) {
                byte[] data = new FtRequestContext(ftClientId, 0, 0).encode();
                w.ulong(FtConstants.FT_REQUEST).ulong(data.length);
                int start = w.size();
                w.octets(data);
                // Inside the encapsulation (aligned from its byte-order octet): octet, string, long, TimeT.
                int afterString = 4 + 4 + ftClientId.getBytes(StandardCharsets.ISO_8859_1).length + 1;
                int retentionAt = align(afterString, 4);
                retention = start + retentionAt;
                expiration = start + align(retentionAt + 4, 8);
            }
            if (groupVersion >= 0) {
                byte[] data = new FtGroupVersionContext(groupVersion).encode();
                w.ulong(FtConstants.FT_GROUP_VERSION).ulong(data.length).octets(data);
            }
            Writer args = new Writer();
            body.accept(args);
            if (args.size() > 0) {
                w.align(8);
                w.octets(args.toBytes());
            }
            byte[] msg = w.toBytes();
            ByteBuffer.wrap(msg).putInt(8, msg.length - 12);
            return new RequestTemplate(msg, retention, expiration);
        }
    }

    private static int align(int pos, int n) {
        return (pos + n - 1) / n * n;
    }

    /** Big-endian CDR, aligned from the first byte written (a GIOP message, or a body from an aligned start). */
    static final class Writer {
        private byte[] buf = new byte[256];
        private int pos;

        private void ensure(int n) {
            if (pos + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
            }
        }

        Writer align(int n) {
            int to = RequestTemplate.align(pos, n);
            ensure(to - pos);
            pos = to;   // the array is zeroed
            return this;
        }

        Writer octet(int v) {
            ensure(1);
            buf[pos++] = (byte) v;
            return this;
        }

        Writer octets(byte[] b) {
            ensure(b.length);
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
            return this;
        }

        Writer ushort(int v) {
            align(2);
            return octet(v >>> 8).octet(v);
        }

        Writer ulong(long v) {
            align(4);
            return octet((int) (v >>> 24)).octet((int) (v >>> 16)).octet((int) (v >>> 8)).octet((int) v);
        }

        /** A CDR string: its length with the terminating NUL, ISO-8859-1 bytes, NUL. */
        Writer string(String s) {
            byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
            return ulong(b.length + 1L).octets(b).octet(0);
        }

        int size() {
            return pos;
        }

        byte[] toBytes() {
            return Arrays.copyOf(buf, pos);
        }
    }
}
