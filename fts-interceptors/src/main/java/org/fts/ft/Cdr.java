package org.fts.ft;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * CDR encapsulations for the few FT-CORBA structures FTS puts on the wire (tagged components, service
 * contexts). An encapsulation starts with its byte-order octet, and alignment counts from that octet. Written
 * big-endian; read in either order. The reader rejects truncated or inconsistent input with
 * {@link org.omg.CORBA.MARSHAL}, never reading past the end.
 */
public final class Cdr {
    private Cdr() {
    }

    /** Builds one encapsulation, big-endian. */
    public static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        public Writer() {
            out.write(0);   // byte order: big-endian
        }

        private void align(int n) {
            while (out.size() % n != 0) {
                out.write(0);
            }
        }

        public Writer octet(int v) {
            out.write(v);
            return this;
        }

        public Writer ushort(int v) {
            align(2);
            out.write((v >>> 8) & 0xff);
            out.write(v & 0xff);
            return this;
        }

        public Writer ulong(long v) {
            align(4);
            out.writeBytes(ByteBuffer.allocate(4).putInt((int) v).array());
            return this;
        }

        public Writer ulonglong(long v) {
            align(8);
            out.writeBytes(ByteBuffer.allocate(8).putLong(v).array());
            return this;
        }

        public Writer string(String s) {
            byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
            ulong(b.length + 1L);
            out.writeBytes(b);
            out.write(0);
            return this;
        }

        /** {@code sequence<octet>}: a length, then the bytes. */
        public Writer octets(byte[] b) {
            ulong(b.length);
            out.writeBytes(b);
            return this;
        }

        public byte[] bytes() {
            return out.toByteArray();
        }
    }

    /** Reads one encapsulation. */
    public static final class Reader {
        private final ByteBuffer in;

        public Reader(byte[] encapsulation) {
            if (encapsulation == null || encapsulation.length == 0) {
                throw new org.omg.CORBA.MARSHAL("empty CDR encapsulation");
            }
            in = ByteBuffer.wrap(encapsulation);
            int order = in.get();
            if (order != 0 && order != 1) {
                throw new org.omg.CORBA.MARSHAL("bad byte-order octet " + order + " in CDR encapsulation");
            }
            in.order(order == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        }

        private void need(int n, String what) {
            if (in.remaining() < n) {
                throw new org.omg.CORBA.MARSHAL("CDR encapsulation ends inside " + what);
            }
        }

        private void align(int n) {
            int pad = (n - in.position() % n) % n;
            need(pad, "padding");
            in.position(in.position() + pad);
        }

        public int octet() {
            need(1, "an octet");
            return in.get() & 0xff;
        }

        public int ushort() {
            align(2);
            need(2, "an unsigned short");
            return in.getShort() & 0xffff;
        }

        public long ulong() {
            align(4);
            need(4, "an unsigned long");
            return in.getInt() & 0xffffffffL;
        }

        public long ulonglong() {
            align(8);
            need(8, "an unsigned long long");
            return in.getLong();
        }

        /** {@code sequence<octet>}. */
        public byte[] octets() {
            long len = ulong();
            if (len > in.remaining()) {
                throw new org.omg.CORBA.MARSHAL("CDR octet sequence of " + len + " does not fit the encapsulation");
            }
            byte[] b = new byte[(int) len];
            in.get(b);
            return b;
        }

        /** Whether every byte has been read. */
        public boolean atEnd() {
            return !in.hasRemaining();
        }

        public String string() {
            long len = ulong();
            if (len < 1 || len > in.remaining()) {
                throw new org.omg.CORBA.MARSHAL("CDR string length " + len + " does not fit the encapsulation");
            }
            byte[] b = new byte[(int) len];
            in.get(b);
            if (b[b.length - 1] != 0) {
                throw new org.omg.CORBA.MARSHAL("CDR string not NUL-terminated");
            }
            return new String(b, 0, b.length - 1, StandardCharsets.ISO_8859_1);
        }
    }
}
