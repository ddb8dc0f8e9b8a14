package org.fts.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One file of a {@link SegmentedLog}: a header, then records with consecutive indexes.
 *
 * <pre>
 *   segment := header record*
 *   header  := "FTSL" version:u16 reserved:u16 firstIndex:u64                      (16 bytes, big-endian)
 *   record  := headerCrc:u32 length:u32 metaLength:u16 reserved:u16 index:u64 synced:u64 payloadCrc:u32
 *              meta{metaLength} payload{length}
 * </pre>
 * {@code headerCrc} is the CRC-32C of the bytes from {@code length} to the end of {@code meta}, so that a record's
 * identity (its index, its meta) survives damage to its payload, and the scan can find the next record after a
 * damaged one; {@code payloadCrc} covers the payload. {@code synced} is the log's durable point when the record was
 * written: every record up to it had been synced.
 *
 * <p>The file is kept zero-filled {@link #PREALLOCATE} bytes ahead of its last record: a sync then writes the
 * records' blocks only, not the file's size and its new blocks (on ext4, a journal commit per sync). A scan ends its
 * records where only zeros are left: a record never has an all-zero header (its index is at least 1).
 *
 * <p>Not thread-safe: the log serializes access.
 */
final class Segment {
    static final int VERSION = 2;
    static final int HEADER = 16;
    static final int RECORD_HEADER = 32;
    static final int MAX_META = 1024;
    /** How far ahead of its last record the file is zero-filled (grown in steps of this size). */
    static final int PREALLOCATE = 1 << 20;
    private static final byte[] MAGIC = {'F', 'T', 'S', 'L'};

    /** What a stretch of the file holds: a verified record, a record whose payload fails, or unreadable bytes. */
    enum Kind { VALID, BAD_PAYLOAD, LOST }

    /**
     * A stretch of the file, in order: records {@code first}..{@code last} between {@code offset} and {@code end}
     * (one record unless LOST; a LOST stretch at the end of the file may hold a record cut short, with {@code first}
     * the index due there); {@code meta} and {@code synced} of a record whose header verified.
     */
    record Piece(Kind kind, long first, long last, long offset, long end, byte[] meta, long synced) {
    }

    final Path path;
    final long firstIndex;
    private final FileChannel channel;
    /** File offset of each record, by index - firstIndex (for one inside a LOST stretch, -1 - the stretch's offset). */
    private long[] offsets = new long[64];
    private int count;
    private long end;
    /** The file's size: zeros from {@code end} up to it. */
    private long allocated;

    private Segment(Path path, long firstIndex, FileChannel channel) {
        this.path = path;
        this.firstIndex = firstIndex;
        this.channel = channel;
    }

    static String fileName(long firstIndex) {
        return String.format("%020d.log", firstIndex);
    }

    /** A new, empty segment whose first record will have {@code firstIndex}. */
    static Segment create(Path dir, long firstIndex) throws IOException {
        Path p = dir.resolve(fileName(firstIndex));
        FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        writeFully(ch, header(firstIndex), 0);
        Segment s = new Segment(p, firstIndex, ch);
        s.end = HEADER;
        s.allocated = HEADER;
        return s;
    }

    static ByteBuffer header(long firstIndex) {
        return ByteBuffer.allocate(HEADER).put(MAGIC).putShort((short) VERSION).putShort((short) 0)
                .putLong(firstIndex).flip();
    }

    /**
     * Opens a segment and scans it, checking every checksum; {@code pieces} receives what the file holds, in order.
     * Its first index is the header's, or, if the header is damaged, the file name's.
     *
     * @throws IOException naming the file if it is a segment of another format version, or not a segment at all
     */
    static Segment open(Path p, long nameIndex, List<Piece> pieces) throws IOException {
        FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            ByteBuffer h = ByteBuffer.allocate(HEADER);
            int read = readFully(ch, h, 0);
            h.flip();
            byte[] magic = new byte[4];
            long first = nameIndex;
            if (read == HEADER) {
                h.get(magic);
                int version = h.getShort() & 0xffff;
                h.getShort();
                long declared = h.getLong();
                if (Arrays.equals(magic, MAGIC) && version != VERSION) {
                    throw new IOException(p + ": FTS log format version " + version + "; this build reads version "
                            + VERSION + " only");
                }
                if (!Arrays.equals(magic, MAGIC) && ch.size() > 0 && !looksLikeRecords(ch)) {
                    throw new IOException(p + ": not an FTS log segment (no FTSL header)");
                }
                first = Arrays.equals(magic, MAGIC) && declared == nameIndex ? declared : nameIndex;
            }
            Segment s = new Segment(p, first, ch);
            s.scan(pieces);
            return s;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** A segment whose 16-byte header is damaged still holds records that verify on their own. */
    private static boolean looksLikeRecords(FileChannel ch) throws IOException {
        byte[] data = readAll(ch);
        return data.length >= HEADER + RECORD_HEADER && header(data, HEADER, -1) != null;
    }

    private void scan(List<Piece> pieces) throws IOException {
        byte[] data = readAll(channel);
        int size = data.length;
        allocated = size;
        int pos = Math.min(HEADER, size);
        while (pos < size && !zeros(data, pos)) {
            long due = firstIndex + count;
            Piece r = header(data, pos, due);
            if (r != null) {
                int metaLength = r.meta().length;
                int from = pos + RECORD_HEADER + metaLength;
                CRC32C c = new CRC32C();
                c.update(data, from, (int) r.end() - from);
                boolean ok = (int) c.getValue() == ByteBuffer.wrap(data, pos + RECORD_HEADER - 4, 4).getInt();
                pieces.add(new Piece(ok ? Kind.VALID : Kind.BAD_PAYLOAD, due, due, pos, r.end(), r.meta(), r.synced()));
                add(pos);
                pos = (int) r.end();
                continue;
            }
            // Unreadable from here: find the next record whose header verifies (a later index); the bytes between
            // hold the records due until it, identities unknown. None: the rest of the file is lost (or cut short).
            Piece found = null;
            int q = pos + 1;
            for (; q + RECORD_HEADER <= size && found == null; q++) {
                found = header(data, q, -1);
                if (found != null && found.first() <= due) {
                    found = null;
                }
            }
            long lastLost = found == null ? due : found.first() - 1;
            int stop = found == null ? size : q - 1;
            pieces.add(new Piece(Kind.LOST, due, lastLost, pos, stop, null, -1));
            for (long i = due; i <= lastLost; i++) {
                add(-pos - 1L);   // inside a stretch that starts at pos
            }
            pos = stop;
        }
        end = pos;
    }

    /** Whether {@code data} holds only zeros from {@code pos} on: the file's preallocated end. */
    static boolean zeros(byte[] data, int pos) {
        for (int i = pos; i < data.length; i++) {
            if (data[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The record at {@code pos} of {@code data} if its header verifies (and, with {@code due} not -1, has that index),
     * as a VALID piece whose payload is not checked yet; null otherwise.
     */
    private static Piece header(byte[] data, int pos, long due) {
        if (pos + RECORD_HEADER > data.length) {
            return null;
        }
        ByteBuffer h = ByteBuffer.wrap(data, pos, RECORD_HEADER);
        int crc = h.getInt();
        int length = h.getInt();
        int metaLength = h.getShort() & 0xffff;
        h.getShort();
        long index = h.getLong();
        long synced = h.getLong();
        if (length < 0 || metaLength > MAX_META || index < 1 || (due >= 0 && index != due)
                || pos + RECORD_HEADER + metaLength + (long) length > data.length) {
            return null;
        }
        CRC32C c = new CRC32C();
        c.update(data, pos + 4, RECORD_HEADER - 4 + metaLength);
        if ((int) c.getValue() != crc) {
            return null;
        }
        byte[] meta = Arrays.copyOfRange(data, pos + RECORD_HEADER, pos + RECORD_HEADER + metaLength);
        return new Piece(Kind.VALID, index, index, pos, pos + RECORD_HEADER + metaLength + length, meta, synced);
    }

    private static byte[] readAll(FileChannel ch) throws IOException {
        long size = ch.size();
        if (size > Integer.MAX_VALUE - 16) {
            throw new IOException("a segment of " + size + " bytes is larger than a segment can be");
        }
        ByteBuffer b = ByteBuffer.allocate((int) size);
        readFully(ch, b, 0);
        return b.array();
    }

    /**
     * The records after the last one the file holds, up to {@code upTo}, which the log had synced: lost (read back as
     * zeros, or cut off), so an unreadable stretch over the bytes where they were, reported as damage, never the end.
     */
    Piece lostTail(long upTo) {
        long due = firstIndex + count;
        long start = end;
        for (long i = due; i <= upTo; i++) {
            add(-start - 1);
        }
        end = Math.max(end, allocated);
        return new Piece(Kind.LOST, due, upTo, start, end, null, -1);
    }

    /** Cuts the file at {@code offset} (a torn tail), durably; the records from {@code index} on are gone. */
    void cutAt(long offset, long index) throws IOException {
        channel.truncate(offset);
        channel.force(true);
        count = (int) Math.max(0, index - firstIndex);
        end = offset;
        allocated = offset;
    }

    long lastIndex() {
        return firstIndex + count - 1;
    }

    int count() {
        return count;
    }

    long size() {
        return end;
    }

    /** Appends the record with the next index (written, not yet synced). */
    void append(long index, byte[] meta, byte[] payload, long synced) throws IOException {
        if (index != firstIndex + count) {
            throw new IllegalArgumentException("index " + index + " appended where " + (firstIndex + count) + " is due");
        }
        ByteBuffer b = encode(index, meta, payload, synced);
        if (end + b.capacity() > allocated) {   // zeros ahead, synced with the next sync
            long to = end + b.capacity() + PREALLOCATE;
            ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(PREALLOCATE, to - allocated));
            for (long p = Math.max(allocated, end); p < to; p += zeros.capacity()) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), to - p));
                writeFully(channel, zeros, p);
            }
            allocated = to;
        }
        writeFully(channel, b, end);
        add(end);
        end += b.capacity();
    }

    static ByteBuffer encode(long index, byte[] meta, byte[] payload, long synced) {
        if (meta.length > MAX_META) {
            throw new IllegalArgumentException("meta of " + meta.length + " bytes, at most " + MAX_META);
        }
        ByteBuffer b = ByteBuffer.allocate(RECORD_HEADER + meta.length + payload.length);
        b.putInt(0).putInt(payload.length).putShort((short) meta.length).putShort((short) 0).putLong(index)
                .putLong(synced).putInt(crc(payload)).put(meta).put(payload);
        CRC32C c = new CRC32C();
        c.update(b.array(), 4, RECORD_HEADER - 4 + meta.length);
        return b.putInt(0, (int) c.getValue()).flip();
    }

    /** The record at {@code index}, verified; throws {@link DamagedRecordException} if it is damaged. */
    Record read(long index) throws IOException {
        long off = offsetOf(index);
        if (off < 0) {
            throw new DamagedRecordException(path, index, null);
        }
        ByteBuffer len = ByteBuffer.allocate(8);
        readFully(channel, len, off);
        int length = len.flip().getInt(4);
        long recordEnd = Math.min(end, off + RECORD_HEADER + MAX_META + Math.max(0L, length));
        byte[] data = bytes(off, recordEnd);
        Piece h = header(data, 0, index);
        if (h == null) {
            throw new DamagedRecordException(path, index, null);
        }
        int from = RECORD_HEADER + h.meta().length;
        byte[] payload = Arrays.copyOfRange(data, from, (int) h.end());
        if (crc(payload) != ByteBuffer.wrap(data, RECORD_HEADER - 4, 4).getInt()) {
            throw new DamagedRecordException(path, index, h.meta());
        }
        return new Record(index, h.meta(), payload);
    }

    /** The raw bytes of {@code [from, to)} (a segment rewritten around a repair copies what it keeps). */
    byte[] bytes(long from, long to) throws IOException {
        ByteBuffer b = ByteBuffer.allocate((int) (to - from));
        readFully(channel, b, from);
        return b.array();
    }

    private long offsetOf(long index) {
        int k = (int) (index - firstIndex);
        if (k < 0 || k >= count) {
            throw new IllegalArgumentException("index " + index + " is not in " + path);
        }
        return offsets[k];
    }

    /**
     * Drops every record after {@code index} (index below the first: all of them), durably. A stretch of unreadable
     * bytes is dropped whole: cutting inside it would keep bytes no scan can place.
     */
    void truncateAfter(long index) throws IOException {
        int keep = (int) Math.max(0, Math.min(count, index - firstIndex + 1));
        long cut = keep == count ? end : startOf(keep);
        while (keep > 0 && startOf(keep - 1) >= cut) {
            keep--;
        }
        end = cut;
        count = keep;
        channel.truncate(end);
        channel.force(true);
        allocated = end;
    }

    /** Where record {@code k} (or the unreadable stretch holding it) begins. */
    private long startOf(int k) {
        return offsets[k] >= 0 ? offsets[k] : -offsets[k] - 1;
    }

    /**
     * The bytes of record {@code index} as the file holds them, or, inside an unreadable stretch, of the whole stretch
     * ({@code [0]}: its first index, {@code [1]}: its last; the bytes in the array's third slot).
     */
    Object[] raw(long index) throws IOException {
        int k = (int) (index - firstIndex);
        long start = startOf(k);
        int first = k;
        while (first > 0 && startOf(first - 1) == start) {
            first--;
        }
        int last = k;
        while (last + 1 < count && startOf(last + 1) == start) {
            last++;
        }
        long stop = last + 1 < count ? startOf(last + 1) : end;
        return new Object[] {firstIndex + first, firstIndex + last, bytes(start, stop)};
    }

    void sync() throws IOException {
        channel.force(false);
    }

    void close() throws IOException {
        channel.close();
    }

    private void add(long offset) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
        }
        offsets[count++] = offset;
    }

    static int crc(byte[] payload) {
        CRC32C c = new CRC32C();
        c.update(payload);
        return (int) c.getValue();
    }

    static void writeFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        long p = pos;
        while (b.hasRemaining()) {
            p += ch.write(b, p);
        }
    }

    static int readFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        int total = 0;
        while (b.hasRemaining()) {
            int n = ch.read(b, pos + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }
}
