package org.fts.log;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One file of a {@link SegmentedLog}: a header, then records with consecutive indexes.
 *
 * <pre>
 *   segment := header record*
 *   header  := "FTSL" version:u16 reserved:u16 firstIndex:u64            (16 bytes, big-endian)
 *   record  := length:u32 crc:u32 index:u64 payload{length}              (crc: CRC-32C of index and payload)
 * </pre>
 *
 * Not thread-safe: the log serializes access.
 */
final class Segment {
    static final int VERSION = 1;
    static final int HEADER = 16;
    static final int RECORD_HEADER = 16;
    private static final byte[] MAGIC = {'F', 'T', 'S', 'L'};

    final Path path;
    final long firstIndex;
    private final FileChannel channel;
    /** File offset of each record, by index - firstIndex; then the end of the last one. */
    private long[] offsets = new long[64];
    private int count;
    private long end;

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
        ByteBuffer h = ByteBuffer.allocate(HEADER).put(MAGIC).putShort((short) VERSION).putShort((short) 0)
                .putLong(firstIndex).flip();
        writeFully(ch, h, 0);
        Segment s = new Segment(p, firstIndex, ch);
        s.end = HEADER;
        return s;
    }

    /** What {@link #open} found beyond the last whole record, if anything. */
    record Tail(long offset, long bytes, String why) {
    }

    /**
     * Opens a segment and reads its records' framing, checking every checksum.
     *
     * @return the tail beyond the last valid record (null if the file ends with a whole record); the segment's
     *         records are the valid ones before it
     * @throws IOException naming the file if its header is not an FTS log segment of a version this reads
     */
    static Segment open(Path p, Tail[] tail) throws IOException {
        FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            ByteBuffer h = ByteBuffer.allocate(HEADER);
            if (readFully(ch, h, 0) < HEADER) {
                throw new IOException(p + ": not an FTS log segment (shorter than its 16-byte header)");
            }
            h.flip();
            byte[] magic = new byte[4];
            h.get(magic);
            int version = h.getShort() & 0xffff;
            h.getShort();
            long first = h.getLong();
            if (!Arrays.equals(magic, MAGIC)) {
                throw new IOException(p + ": not an FTS log segment (no FTSL header)");
            }
            if (version != VERSION) {
                throw new IOException(p + ": FTS log format version " + version + "; this build reads version "
                        + VERSION + " only");
            }
            Segment s = new Segment(p, first, ch);
            tail[0] = s.scan();
            return s;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private Tail scan() throws IOException {
        long size = channel.size();
        long pos = HEADER;
        ByteBuffer rh = ByteBuffer.allocate(RECORD_HEADER);
        while (pos < size) {
            rh.clear();
            if (readFully(channel, rh, pos) < RECORD_HEADER) {
                return cut(pos, size, "a record header cut short");
            }
            rh.flip();
            int length = rh.getInt();
            int crc = rh.getInt();
            long index = rh.getLong();
            if (length < 0 || pos + RECORD_HEADER + (long) length > size) {
                return cut(pos, size, "a record cut short (" + length + " bytes declared)");
            }
            if (index != firstIndex + count) {
                return cut(pos, size, "record index " + index + " where " + (firstIndex + count) + " was due");
            }
            ByteBuffer payload = ByteBuffer.allocate(length);
            readFully(channel, payload, pos + RECORD_HEADER);
            if (crc(index, payload.array()) != crc) {
                return cut(pos, size, "a checksum mismatch at index " + index);
            }
            add(pos);
            pos += RECORD_HEADER + length;
        }
        end = pos;
        return null;
    }

    private Tail cut(long pos, long size, String why) {
        end = pos;
        return new Tail(pos, size - pos, why);
    }

    /** Cuts the file at the end of its last valid record (after {@link #open} reported a tail). */
    void dropTail() throws IOException {
        channel.truncate(end);
        channel.force(true);
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
    void append(long index, byte[] payload) throws IOException {
        if (index != firstIndex + count) {
            throw new IllegalArgumentException("index " + index + " appended where " + (firstIndex + count) + " is due");
        }
        ByteBuffer b = ByteBuffer.allocate(RECORD_HEADER + payload.length).putInt(payload.length)
                .putInt(crc(index, payload)).putLong(index).put(payload).flip();
        writeFully(channel, b, end);
        add(end);
        end += RECORD_HEADER + payload.length;
    }

    byte[] read(long index) throws IOException {
        int k = (int) (index - firstIndex);
        if (k < 0 || k >= count) {
            throw new IllegalArgumentException("index " + index + " is not in " + path);
        }
        long off = offsets[k];
        long next = k + 1 < count ? offsets[k + 1] : end;
        ByteBuffer b = ByteBuffer.allocate((int) (next - off - RECORD_HEADER));
        if (readFully(channel, b, off + RECORD_HEADER) < b.capacity()) {
            throw new EOFException(path + ": record " + index + " cut short");
        }
        return b.array();
    }

    /** Drops every record after {@code index} (index below the first: all of them). */
    void truncateAfter(long index) throws IOException {
        int keep = (int) Math.max(0, Math.min(count, index - firstIndex + 1));
        end = keep == count ? end : offsets[keep];
        count = keep;
        channel.truncate(end);
        channel.force(true);
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

    static int crc(long index, byte[] payload) {
        CRC32C c = new CRC32C();
        c.update(ByteBuffer.allocate(8).putLong(index).flip());
        c.update(payload);
        return (int) c.getValue();
    }

    private static void writeFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        long p = pos;
        while (b.hasRemaining()) {
            p += ch.write(b, p);
        }
    }

    private static int readFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
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
